/*
 * The kernel's call profiling hooks (kernel/cprof.h). GCC calls
 * __cyg_profile_func_enter/exit around every function of a kernel built
 * with -finstrument-functions (make CPROFILE=1); this file and lib/cprof.c
 * are built without it.
 *
 * A hook runs with interrupts off, on its CPU's part, and on the running
 * thread's call stack (the CPU's own for the boot/idle thread). An NMI
 * that arrives inside a hook finds the CPU busy, and its functions' entry
 * and exit hooks both do nothing, so the stack stays balanced. Before
 * cprof_init the hooks only note that they were called: that is how the
 * kernel knows it is instrumented.
 */
#include <arch/interrupt.h>
#include <kernel/cprof.h>
#include <kernel/printk.h>
#include <kernel/thread.h>
#include <kernel/time.h>
#include <kernel/vm.h>
#include <lib/cprof.h>

#define CPROF_KSLOTS 32768         /* call paths per CPU (1.3 MiB) */
#define CPROF_KDEPTH 96            /* calls in progress per thread */
#define CPROF_KPART_PAGES ((CPROF_PART_SIZE(CPROF_KSLOTS) + PAGE_SIZE - 1) / PAGE_SIZE)

typedef struct cprof_kcpu {
	cprof_stack_t *stack;      /* the CPU's boot/idle thread's */
	volatile uint32_t busy;    /* a hook is running (an NMI came in) */
} cprof_kcpu_t;

static cprof_kcpu_t cprof_kcpu[MAX_CPUS];
static cprof_part_t *cprof_kparts[MAX_CPUS];      /* part id = CPU id */
static volatile bool cprof_kready;
static volatile bool cprof_kseen;
static volatile uint32_t cprof_kgen;

void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);

/* This CPU's state if a hook may run now (then it is marked busy), else NULL. */
static cprof_kcpu_t *cprof_claim(cpu_t *c)
{
	cprof_kcpu_t *k = &cprof_kcpu[c->id];

	if (!cprof_kparts[c->id] || k->busy)
		return NULL;
	k->busy = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return k;
}

static void cprof_release(cprof_kcpu_t *k)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	k->busy = 0;
}

/* What a hook works on: its CPU's state, the table, the thread's stack. */
typedef struct cprof_hook {
	cprof_kcpu_t *k;
	cprof_table_t tab;
	cprof_stack_t *s;
	uint64_t off;              /* the thread's off-CPU cycles (constant: irqs off) */
} cprof_hook_t;

/*
 * Begin a hook on this CPU (interrupts off): false if it must do nothing
 * (no part yet, or an NMI inside a hook). Brings the stack and the CPU's
 * part to the current reset generation.
 */
static bool cprof_hook_begin(cprof_hook_t *h)
{
	cpu_t *c = cpu_current();
	thread_t *t = c->current;

	h->k = cprof_claim(c);
	if (!h->k)
		return false;
	h->tab.parts = cprof_kparts;
	h->tab.nparts = MAX_CPUS;
	h->tab.own = c->id;
	h->tab.gen = cprof_kgen;
	h->tab.root_fn = ARCH_IRQ_ENTRY_FN;  /* else every interrupted path gets the handlers' */
	h->s = t && t->cprof_stack ? t->cprof_stack : h->k->stack;
	h->off = t ? t->acct.off_cycles : 0;
	cprof_sync(h->s, &h->tab);
	return true;
}

/* GCC's hook at the entry of every instrumented function fn. Any context. */
void __cyg_profile_func_enter(void *fn, void *site)
{
	uint64_t t1 = time_cycles();
	cprof_hook_t h;

	if (!cprof_kready) {
		cprof_kseen = true;
		return;
	}
	uint64_t f = irq_save();
	if (cprof_hook_begin(&h)) {
		cprof_frame_t *fr = cprof_enter(h.s, &h.tab, (uintptr_t)fn, t1, h.off);
		if (fr)
			fr->t2 = time_cycles();
		cprof_release(h.k);
	}
	irq_restore(f);
}

/* GCC's hook when fn returns. Any context. */
void __cyg_profile_func_exit(void *fn, void *site)
{
	uint64_t stop = time_cycles();
	cprof_hook_t h;

	if (!cprof_kready)
		return;
	uint64_t f = irq_save();
	if (cprof_hook_begin(&h)) {
		cprof_frame_t *fr = cprof_exit_begin(h.s, &h.tab, (uintptr_t)fn, stop, h.off);
		if (fr)
			cprof_exit_end(h.s, fr, time_cycles(), h.off);
		cprof_release(h.k);
	}
	irq_restore(f);
}

/* A new call stack of CPROF_KDEPTH frames, or NULL. */
static cprof_stack_t *cprof_kstack_new(void)
{
	cprof_stack_t *s = kmalloc(CPROF_STACK_SIZE(CPROF_KDEPTH));

	if (s)
		cprof_stack_init(s, CPROF_KDEPTH, cprof_kgen);
	return s;
}

void cprof_cpu_init(cpu_t *c)
{
	paddr_t pa;

	if (!cprof_kready || c->id >= MAX_CPUS || cprof_kparts[c->id])
		return;
	cprof_kcpu[c->id].stack = cprof_kstack_new();
	if (!cprof_kcpu[c->id].stack ||
	    frame_alloc_contig(CPROF_KPART_PAGES, 1, ~(paddr_t)0, &pa) != EOK) {
		printk("cprof: no memory for CPU %u's table: not profiled\n", c->id);
		return;
	}
	cprof_part_t *p = phys_to_virt(pa);
	cprof_part_init(p, c->id, CPROF_KSLOTS);
	p->h.gen = cprof_kgen;
	__atomic_store_n(&cprof_kparts[c->id], p, __ATOMIC_RELEASE);
}

void cprof_init(void)
{
	if (!cprof_kseen)
		return;                   /* not instrumented */
	cprof_kready = true;
	cprof_cpu_init(cpu_current());
	printk("cprof: the kernel is call-profiled (%u paths per CPU, %u calls deep per thread)\n",
	       CPROF_KSLOTS, CPROF_KDEPTH);
}

void cprof_thread_init(thread_t *t)
{
	t->cprof_stack = cprof_kready ? cprof_kstack_new() : NULL;
}

void cprof_thread_fini(thread_t *t)
{
	kfree(t->cprof_stack);
	t->cprof_stack = NULL;
}

bool cprof_kernel_on(void)
{
	return cprof_kready;
}

const cprof_part_t *cprof_kernel_part(uint32_t i)
{
	return i < MAX_CPUS ? __atomic_load_n(&cprof_kparts[i], __ATOMIC_ACQUIRE) : NULL;
}

void cprof_kernel_reset(void)
{
	__atomic_add_fetch(&cprof_kgen, 1, __ATOMIC_RELEASE);
}

uint32_t cprof_kernel_gen(void)
{
	return cprof_kgen;
}
