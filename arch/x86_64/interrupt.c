/*
 * The IDT and the C side of every interrupt: exceptions are reported (or
 * caught by fault_catch_run), NMIs go to arch_nmi_handle() (nmi.c), other
 * vectors to the registered handler followed by a local APIC EOI.
 */
#include <arch/apic.h>
#include <arch/cpu.h>
#include <arch/harden.h>
#include <arch/interrupt.h>
#include <arch/nmi.h>
#include <kernel/cpu.h>
#include <kernel/fault.h>
#include <kernel/ksym.h>
#include <kernel/panic.h>
#include <kernel/printk.h>
#include <kernel/smp.h>
#include <kernel/acct.h>
#include <kernel/sched.h>
#include <kernel/syscall.h>
#include <kernel/thread.h>
#include <kernel/trace.h>
#include <kernel/vm_space.h>
#include <kernel/vm.h>
#include <lib/fmt.h>

typedef struct {
	uint16_t off_lo, sel;
	uint8_t ist, type;
	uint16_t off_mid;
	uint32_t off_hi, zero;
} __attribute__((packed)) idt_entry_t;

extern const uint64_t isr_table[256];
static idt_entry_t idt[256] __aligned(16);
static irq_handler_t irq_handlers[256];
static volatile uint64_t irq_unhandled;

#define PF_PRESENT (1u << 0)
#define PF_WRITE (1u << 1)
#define PF_FETCH (1u << 4)

extern char uaccess_start[], uaccess_end[], uaccess_fixup[];

static const char *const exc_names[32] = {
	"#DE divide error", "#DB debug", "NMI", "#BP breakpoint",
	"#OF overflow", "#BR bound range", "#UD invalid opcode",
	"#NM device not available", "#DF double fault", "coprocessor overrun",
	"#TS invalid TSS", "#NP segment not present", "#SS stack fault",
	"#GP general protection", "#PF page fault", "reserved 15",
	"#MF x87 error", "#AC alignment check", "#MC machine check",
	"#XM SIMD error", "#VE virtualization", "#CP control protection",
};

static void idt_set(unsigned v, uint64_t handler, uint8_t ist)
{
	idt[v] = (idt_entry_t){
		.off_lo = handler & 0xffff,
		.sel = SEL_KCODE,
		.ist = ist,
		.type = 0x8e,           /* present, DPL 0, interrupt gate */
		.off_mid = (handler >> 16) & 0xffff,
		.off_hi = handler >> 32,
	};
}

static void idt_build(void)
{
	for (unsigned v = 0; v < 256; v++)
		idt_set(v, isr_table[v], 0);
	idt[VEC_NMI].ist = IST_NMI;
	idt[VEC_DF].ist = IST_DF;
	idt[VEC_MC].ist = IST_MC;
}

void idt_load(void)
{
	static bool built;
	struct {
		uint16_t limit;
		uint64_t base;
	} __attribute__((packed)) p = { sizeof(idt) - 1, (uint64_t)idt };

	if (!built) {
		idt_build();
		built = true;
	}
	__asm__ volatile("lidt %0" : : "m"(p));
}

void irq_set_handler(unsigned vector, irq_handler_t fn)
{
	__atomic_store_n(&irq_handlers[vector & 0xff], fn, __ATOMIC_RELEASE);
}

irq_handler_t irq_get_handler(unsigned vector)
{
	return __atomic_load_n(&irq_handlers[vector & 0xff], __ATOMIC_ACQUIRE);
}

static const char *exc_name(unsigned v)
{
	return v < 32 && exc_names[v] ? exc_names[v] : "reserved exception";
}

bool arch_vector_name(unsigned v, char *buf, size_t size)
{
	static const struct { unsigned v; const char *name; } named[] = {
		{ VEC_TIMER, "local APIC timer" }, { VEC_IPI_CALL, "IPI call" },
		{ VEC_IPI_RESCHED, "IPI reschedule" }, { VEC_IPI_PROF, "IPI profiler" },
		{ VEC_APIC_ERROR, "local APIC error" }, { VEC_SPURIOUS, "spurious" },
		{ VEC_LAPIC_CAL, "local APIC timer calibration" },
	};

	if (v < 32) {
		fmt_snprintf(buf, size, "%s", exc_name(v));
		return true;
	}
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (named[i].v == v) {
			fmt_snprintf(buf, size, "%s", named[i].name);
			return true;
		}
	fmt_snprintf(buf, size, "IRQ %u", v - VEC_IRQ_BASE);
	return irq_handlers[v] != NULL;
}

static void exc_dump_regs(const int_frame_t *f, bool locked)
{
	void (*out)(const char *, ...) = locked ? printk : printk_unlocked;

	out("  rax=%016lx rbx=%016lx rcx=%016lx rdx=%016lx\n", f->rax, f->rbx, f->rcx, f->rdx);
	out("  rsi=%016lx rdi=%016lx rbp=%016lx rsp=%016lx\n", f->rsi, f->rdi, f->rbp, f->rsp);
	out("  r8 =%016lx r9 =%016lx r10=%016lx r11=%016lx\n", f->r8, f->r9, f->r10, f->r11);
	out("  r12=%016lx r13=%016lx r14=%016lx r15=%016lx\n", f->r12, f->r13, f->r14, f->r15);
	out("  cs=%04lx ss=%04lx rflags=%08lx cr2=%016lx cr3=%016lx\n",
	    f->cs, f->ss, f->rflags, read_cr2(), read_cr3());
}

static void exc_report(const int_frame_t *f, const char *what, bool locked,
		       uintptr_t *bt, size_t *nbt)
{
	void (*out)(const char *, ...) = locked ? printk : printk_unlocked;
	uint64_t off = 0;
	const char *sym = ksym_lookup(f->rip, &off);

	out("%s: %s at %016lx <%s+%#lx> error %#lx cpu %u\n", what,
	    exc_name(f->vector), f->rip, sym ? sym : "?", off, f->error,
	    cpu_current() ? cpu_id() : 0);
	exc_dump_regs(f, locked);
	*nbt = backtrace_walk(f->rip, f->rbp, bt, FAULT_BT_MAX);
	backtrace_print(bt, *nbt, locked);
}

static bool exc_catchable(unsigned v)
{
	return v != VEC_NMI && v != VEC_DF && v != VEC_MC;
}

/* Resume at the catcher's kjmp_set() returning 1. */
static void exc_catch(int_frame_t *f, fault_catch_t *fc)
{
	fc->vector = f->vector;
	fc->error = f->error;
	fc->addr = f->vector == VEC_PF ? read_cr2() : 0;
	fc->pc = f->rip;
	fc->handler_uaccess = arch_uaccess_allowed();
	if (fc->quiet)
		fc->nbt = backtrace_walk(f->rip, f->rbp, fc->bt, FAULT_BT_MAX);
	else
		exc_report(f, "fault (caught)", true, fc->bt, &fc->nbt);
	cpu_current()->fault_catch = fc->prev;
	f->rip = (uint64_t)kjmp_jump;
	f->rdi = (uint64_t)&fc->jb;
	f->rsi = 1;
	f->rsp = fc->jb.rsp - 8;      /* kjmp_jump never returns */
	f->rflags &= ~0x100ul;        /* no single-step */
}

/* Bottom of the kernel stack in use on this CPU (0 if unknown). */
static uintptr_t exc_stack_bottom(cpu_t *c)
{
	thread_t *t = c->current;
	if (t && t != c->idle && t->kstack_top)
		return t->kstack_top - THREAD_KSTACK_PAGES * PAGE_SIZE;
	return c->stack_bottom;
}

/* A double fault whose CR2 lies in the guard page under the running stack. */
static void exc_explain(const int_frame_t *f)
{
	cpu_t *c = cpu_current();
	uint64_t cr2 = read_cr2();
	uintptr_t bottom = c ? exc_stack_bottom(c) : 0;

	if (f->vector == VEC_DF && bottom && cr2 >= bottom - PAGE_SIZE && cr2 < bottom)
		printk_unlocked("panic: kernel stack overflow on cpu %u (%#lx is in the guard page)\n",
				c->id, cr2);
}

/* Did the fault come from the user copy routine (uaccess.asm)? */
static bool exc_in_uaccess(const int_frame_t *f)
{
	return f->rip >= (uintptr_t)uaccess_start && f->rip < (uintptr_t)uaccess_end;
}

/*
 * Page faults that are not errors: demand-zero user pages (addr: CR2,
 * read once before anything could change it). A fault taken where
 * interrupts were on (user mode, or a user copy in a system call) is
 * resolved with them on again (vm_fault_current).
 */
static bool exc_page_fault_resolved(const int_frame_t *f, uint64_t addr)
{
	bool has_space = cpu_current() && cpu_current()->current && vm_space_current();

	if (f->vector != VEC_PF || !has_space || addr >= USER_END || (f->error & PF_PRESENT))
		return false;
	bool irq_on = (f->rflags & RFLAGS_IF) &&
		      (frame_from_user(f) || exc_in_uaccess(f));
	return vm_fault_current(addr, f->error & PF_WRITE, f->error & PF_FETCH, irq_on) == EOK;
}

/* A user copy hit a bad address: resume at its fixup. */
static bool exc_uaccess_fixup(int_frame_t *f)
{
	if (f->vector != VEC_PF || !exc_in_uaccess(f))
		return false;
	f->rip = (uintptr_t)uaccess_fixup;
	return true;
}

static void exc_user(int_frame_t *f, uint64_t start)
{
	uint64_t addr = f->vector == VEC_PF ? read_cr2() : f->rip;

	if (!exc_page_fault_resolved(f, addr))
		user_fault(f, exc_name(f->vector), addr);
	acct_exc_exit(f->vector, start);
	user_return_work(f);
}

/* Out of line: its locals would give every interrupt a stack-protector check. */
static __attribute__((noinline)) void exception_dispatch(int_frame_t *f)
{
	cpu_t *c = cpu_current();
	uintptr_t bt[FAULT_BT_MAX];
	size_t nbt;

	uint64_t start = acct_exc_enter(f->vector);
	if (frame_from_user(f)) {
		exc_user(f, start);         /* returns to user mode (or exits) */
		return;
	}
	uint64_t cr2 = f->vector == VEC_PF ? read_cr2() : 0;
	bool handled = exc_page_fault_resolved(f, cr2) || exc_uaccess_fixup(f);
	acct_exc_exit(f->vector, start);
	if (handled)
		return;
	if (f->vector == VEC_PF && vm_sync_kernel_half(cr2))
		return;
	if (c && c->fault_catch && exc_catchable(f->vector)) {
		exc_catch(f, c->fault_catch);
		return;
	}
	panic_begin();
	exc_explain(f);
	exc_report(f, "panic", false, bt, &nbt);
	panic_end();
}

static void irq_dispatch(int_frame_t *f)
{
	irq_handler_t h = __atomic_load_n(&irq_handlers[f->vector], __ATOMIC_ACQUIRE);

	if (f->vector == VEC_SPURIOUS)
		return;
	acct_irq_enter(irqlat_open_since());    /* from the gate's stamp */
	if (trace_wants(PROF_F_TRACE_IRQ))
		trace_irq(PROF_TR_IRQ_ENTER, (unsigned)f->vector);
	if (h)
		h(f);
	else
		irq_unhandled++;
	lapic_eoi();
	if (trace_wants(PROF_F_TRACE_IRQ))
		trace_irq(PROF_TR_IRQ_EXIT, (unsigned)f->vector);
	if (frame_from_user(f)) {
		user_return_from_irq(f, (unsigned)f->vector);
		return;
	}
	acct_irq_exit(f->vector);
	if (f->rflags & RFLAGS_IF)
		sched_preempt_point();
}

/* An NMI, timed for the per-CPU maximum (irqlat.c). */
static void nmi_dispatch(int_frame_t *f)
{
	uint64_t start = rdtsc();

	arch_nmi_handle(f);
	irqlat_nmi_end(start);
}

/*
 * Interrupts and exceptions taken with IF set open an interrupts-off
 * section (the gate cleared IF; isr.asm stamped its start) that isr.asm
 * closes at the iretq, unless the handler closed it already (a return to
 * user mode may, in user_return_work); the vectors of the paranoid stub
 * (#DF, #MC: NMIs open none) close theirs here.
 */
void interrupt_dispatch(int_frame_t *f)
{
	bool gate_off = f->vector != VEC_NMI && (f->rflags & RFLAGS_IF);

	if (gate_off)
		irqlat_gate_begin();
	if (f->vector == VEC_NMI)
		nmi_dispatch(f);
	else if (f->vector < 32)
		exception_dispatch(f);
	else
		irq_dispatch(f);
	if (gate_off && (f->vector == VEC_DF || f->vector == VEC_MC))
		irqlat_off_end();
}
