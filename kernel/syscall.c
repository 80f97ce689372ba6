/*
 * System call dispatch: a table indexed by the number in abi/syscall.h.
 * Unknown numbers return -ENOSYS. Every handler validates its arguments;
 * user pointers go through copy_from_user/copy_to_user.
 *
 * Lock order: ucon_lock and fault_lock are each taken alone.
 */
#include <abi/syscall.h>
#include <abi/limits.h>
#include <kernel/failinj.h>
#include <kernel/acct.h>
#include <kernel/acct_syscall.h>
#include <kernel/binary.h>
#include <kernel/console.h>
#include <kernel/platform.h>
#include <kernel/printk.h>
#include <kernel/sched.h>
#include <kernel/syscall.h>
#include <kernel/sysimpl.h>
#include <kernel/task.h>
#include <kernel/time.h>
#include <kernel/trace.h>
#include <kernel/vm_space.h>
#include <kernel/spinlock.h>
#include <lib/fmt.h>
#include <lib/string.h>

#define CONSOLE_CHUNK 256

static int64_t sys_null(SYSCALL_ARGS)
{
	return 0;
}

/*
 * Unprivileged console text (tasks without PERM_IO or PERM_SYSTEM): each
 * task may log LIMIT_CONSOLE_BYTES a second (a burst of as many; its own
 * budget, in task_t, so a chatty task silences nobody else), so they
 * cannot push the kernel's lines out of the log ring. Text goes whole
 * lines at a time, each prefixed "uID| "; a line longer than
 * LIMIT_CONSOLE_LINE is refused (EINVAL), never cut, so no piece of it
 * can start a line of its own. ucon_lock guards every task's budget; it
 * nests no lock.
 */
static spinlock_t ucon_lock = SPINLOCK_INIT("ucon");

/* Take n bytes of t's budget for this second: all of them, or false. */
static bool ucon_budget(task_t *t, size_t n)
{
	uint64_t now = time_ns();
	uint64_t f = spin_lock_irqsave(&ucon_lock);

	if (now - t->ucon_window >= NSEC_PER_SEC) {
		t->ucon_window = now;
		t->ucon_used = 0;
	}
	bool ok = t->ucon_used + n <= LIMIT_CONSOLE_BYTES;
	if (ok)
		t->ucon_used += n;
	spin_unlock_irqrestore(&ucon_lock, f);
	return ok;
}

/*
 * The length of the line at the start of buf (have bytes): up to and with
 * its '\n', or all of buf if it has none; 0 if it is longer than
 * LIMIT_CONSOLE_LINE (buf holds LIMIT_CONSOLE_LINE + 1 bytes, none '\n').
 */
static size_t ucon_line(const char *buf, size_t have)
{
	for (size_t i = 0; i < have; i++)
		if (buf[i] == '\n')
			return i + 1;
	return have > LIMIT_CONSOLE_LINE ? 0 : have;
}

/* SYS_CONSOLE_WRITE for an unprivileged task t: whole lines, budgeted. */
static int64_t ucon_write(task_t *t, const char *ubuf, size_t len)
{
	char line[LIMIT_CONSOLE_LINE + 1];
	size_t done = 0;

	while (done < len) {
		size_t have = MIN(len - done, sizeof(line));
		if (copy_from_user(line, ubuf + done, have) != EOK)
			return done ? (int64_t)done : -EFAULT;
		size_t n = ucon_line(line, have);
		if (!n)
			return done ? (int64_t)done : -EINVAL;
		if (!ucon_budget(t, n))
			return done ? (int64_t)done : -ELIMIT;
		char prefix[32];
		fmt_snprintf(prefix, sizeof(prefix), "u%lu| ", (unsigned long)t->id);
		console_write_user(prefix, line, n);
		done += n;
	}
	return (int64_t)done;
}

/*
 * SYS_CONSOLE_WRITE: bytes written (whole lines for an unprivileged task,
 * see ucon_write); ELIMIT when its budget is spent, EINVAL for a line
 * too long.
 */
static int64_t sys_console_write(SYSCALL_ARGS)
{
	const char *ubuf = (const char *)a0;
	size_t len = a1, done = 0;
	char buf[CONSOLE_CHUNK];
	task_t *t = task_current();

	if (len > (1u << 20))
		return -EINVAL;
	if (!(t->perms & (PERM_IO | PERM_SYSTEM)))
		return ucon_write(t, ubuf, len);
	while (done < len) {
		size_t n = MIN(len - done, sizeof(buf));
		if (copy_from_user(buf, ubuf + done, n) != EOK)
			return done ? (int64_t)done : -EFAULT;
		console_write(buf, n);
		done += n;
	}
	return (int64_t)done;
}

static int64_t sys_task_id(SYSCALL_ARGS)
{
	return (int64_t)task_current()->id;
}

static int64_t sys_thread_id(SYSCALL_ARGS)
{
	return (int64_t)thread_current()->id;
}

static int64_t sys_exit(SYSCALL_ARGS)
{
	task_exit((int)(a0 & 0xff));
}

static int64_t sys_yield(SYSCALL_ARGS)
{
	sched_yield();
	return 0;
}

static int64_t sys_sleep(SYSCALL_ARGS)
{
	return -thread_sleep(a0);
}

static int64_t sys_clock(SYSCALL_ARGS)
{
	uint64_t user, kernel;

	if (a0 == CLOCK_MONOTONIC)
		return (int64_t)time_ns();
	if (a0 == CLOCK_REALTIME)
		return (int64_t)time_wall_ns();
	if (a0 == CLOCK_PROCESS_CPUTIME_ID)
		task_cycles(task_current(), &user, &kernel);
	else if (a0 == CLOCK_THREAD_CPUTIME_ID)
		acct_thread_now(thread_current(), &user, &kernel);
	else
		return -EINVAL;
	return (int64_t)time_cycles_to_ns(user + kernel);
}

static int64_t sys_poweroff(SYSCALL_ARGS)
{
	if (!(task_current()->perms & PERM_SYSTEM))
		return -EPERM;
	if (a0 == POWEROFF_TEST_PASS || a0 == POWEROFF_TEST_FAIL)
		platform_test_exit(a0 == POWEROFF_TEST_PASS);
	if (a0 == POWEROFF_HALT)
		platform_halt();
	if (a0 == POWEROFF_OFF)
		platform_poweroff();
	if (a0 == POWEROFF_REBOOT)
		platform_reboot();
	return -EINVAL;
}

/* A number with no system call. */
static int64_t sys_nosys(SYSCALL_ARGS)
{
	return -ENOSYS;
}

/* One entry per number: the function and its name for monitoring. */
typedef struct syscall_entry {
	syscall_fn_t fn;
	const char *name;
} syscall_entry_t;

#define SYSCALL(nr, fn, name) [nr] = { fn, name }

/* Every number has a function (sys_nosys unless named below). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
static const syscall_entry_t syscall_table[SYS_COUNT] = {
	[0 ... SYS_COUNT - 1] = { sys_nosys, NULL },
	SYSCALL(SYS_NULL, sys_null, "null"),
	SYSCALL(SYS_EXIT, sys_exit, "exit"),
	SYSCALL(SYS_CONSOLE_WRITE, sys_console_write, "console_write"),
	SYSCALL(SYS_TASK_ID, sys_task_id, "task_id"),
	SYSCALL(SYS_THREAD_ID, sys_thread_id, "thread_id"),
	SYSCALL(SYS_SPAWN, sys_spawn, "spawn"),
	SYSCALL(SYS_WAIT, sys_wait, "wait"),
	SYSCALL(SYS_KILL, sys_kill, "kill"),
	SYSCALL(SYS_THREAD_CREATE, sys_thread_create, "thread_create"),
	SYSCALL(SYS_THREAD_EXIT, sys_thread_exit, "thread_exit"),
	SYSCALL(SYS_THREAD_JOIN, sys_thread_join, "thread_join"),
	SYSCALL(SYS_YIELD, sys_yield, "yield"),
	SYSCALL(SYS_SLEEP, sys_sleep, "sleep"),
	SYSCALL(SYS_CLOCK, sys_clock, "clock"),
	SYSCALL(SYS_MAP, sys_map, "map"),
	SYSCALL(SYS_UNMAP, sys_unmap, "unmap"),
	SYSCALL(SYS_TASK_INFO, sys_task_info, "task_info"),
	SYSCALL(SYS_SET_AFFINITY, sys_set_affinity, "set_affinity"),
	SYSCALL(SYS_POWEROFF, sys_poweroff, "poweroff"),
	SYSCALL(SYS_THREAD_STATS, sys_thread_stats, "thread_stats"),
	SYSCALL(SYS_SYSTEM_STATS, sys_system_stats, "system_stats"),
	SYSCALL(SYS_IPC_CALL, sys_ipc_call, "ipc_call"),
	SYSCALL(SYS_IPC_WAIT, sys_ipc_wait, "ipc_wait"),
	SYSCALL(SYS_IPC_ANSWER, sys_ipc_answer, "ipc_answer"),
	SYSCALL(SYS_IPC_FORWARD, sys_ipc_forward, "ipc_forward"),
	SYSCALL(SYS_IPC_HANGUP, sys_ipc_hangup, "ipc_hangup"),
	SYSCALL(SYS_IPC_CONNECT_KBOX, sys_ipc_connect_kbox, "ipc_connect_kbox"),
	SYSCALL(SYS_IRQ_SUBSCRIBE, sys_irq_subscribe, "irq_subscribe"),
	SYSCALL(SYS_IRQ_ACK, sys_irq_ack, "irq_ack"),
	SYSCALL(SYS_MAP_DEVICE, sys_map_device, "map_device"),
	SYSCALL(SYS_FB_INFO, sys_fb_info, "fb_info"),
	SYSCALL(SYS_KLOG_READ, sys_klog_read, "klog_read"),
	SYSCALL(SYS_CONSOLE_CLAIM, sys_console_claim, "console_claim"),
	SYSCALL(SYS_INITRD_MAP, sys_initrd_map, "initrd_map"),
	SYSCALL(SYS_SYSINFO_KEYS, sys_sysinfo_keys, "sysinfo_keys"),
	SYSCALL(SYS_SYSINFO_TYPE, sys_sysinfo_type, "sysinfo_type"),
	SYSCALL(SYS_SYSINFO_INT, sys_sysinfo_int, "sysinfo_int"),
	SYSCALL(SYS_SYSINFO_DATA, sys_sysinfo_data, "sysinfo_data"),
	SYSCALL(SYS_PROFILE, sys_profile, "profile"),
	SYSCALL(SYS_GETPROFILE, sys_getprofile, "getprofile"),
	SYSCALL(SYS_CPROF, sys_cprof, "cprof"),
	SYSCALL(SYS_IPC_CALLER_PERMS, sys_ipc_caller_perms, "ipc_caller_perms"),
	SYSCALL(SYS_IOPORT_ALLOW, sys_ioport_allow, "ioport_allow"),
	SYSCALL(SYS_IOPORT_REVOKE, sys_ioport_revoke, "ioport_revoke"),
	SYSCALL(SYS_IPC_CALL_SYNC, sys_ipc_call_sync, "ipc_call_sync"),
	SYSCALL(SYS_IPC_ANSWER_WAIT, sys_ipc_answer_wait, "ipc_answer_wait"),
	SYSCALL(SYS_IPC_CALL_SHORT, sys_ipc_call_short, "ipc_call_short"),
};
#pragma GCC diagnostic pop

const char *syscall_name(uint64_t nr)
{
	return nr < SYS_COUNT && syscall_table[nr].name ? syscall_table[nr].name : NULL;
}

/* Before a return to user mode: die if killed, reschedule if asked. Irqs off. */
static inline __attribute__((always_inline)) void user_return_loop(void)
{
	for (;;) {
		if (task_current()->killed)
			thread_exit(0);
		if (!cpu_current()->need_resched)
			break;
		sched_schedule();
	}
}

/* user_return_loop with interrupts in any state before. Irqs off after. */
static inline __attribute__((always_inline)) void user_return_check(void)
{
	irq_disable();
	user_return_loop();
}

/* Syscall nr (below SYS_COUNT) with f's arguments. */
static inline __attribute__((always_inline)) int64_t syscall_call(const int_frame_t *f,
								   uint64_t nr)
{
	uint64_t a[6];

	syscall_args(f, a);
	return syscall_table[nr].fn(a[0], a[1], a[2], a[3], a[4], a[5]);
}

/* SYSCALL_HOOK_* bits, each set and cleared by its owner alone. */
static uint8_t syscall_hooks;

void syscall_hook_set(unsigned hook, bool on)
{
	if (on)
		__atomic_or_fetch(&syscall_hooks, (uint8_t)hook, __ATOMIC_RELEASE);
	else
		__atomic_and_fetch(&syscall_hooks, (uint8_t)~hook, __ATOMIC_RELEASE);
}

/* Is syscall tracing or failure injection on (one test for both)? */
static inline bool syscall_hooked(void)
{
	return __builtin_expect(__atomic_load_n(&syscall_hooks, __ATOMIC_RELAXED) != 0, 0);
}

/*
 * f's system call, any number, with its hooks: trace events at its entry and
 * exit, the injected failures' check of its result (chosen at the entry,
 * so a call that turns a hook on or off is not half hooked), then the
 * return's work and section (irqlat_ret_begin). Irqs off, as it returns.
 */
static __attribute__((noinline)) void syscall_run_hooked(int_frame_t *f)
{
	uint64_t nr = syscall_nr(f);

	if (trace_wants(PROF_F_TRACE_SYSCALL))
		trace_syscall(PROF_TR_SYSCALL_ENTER, nr);
	irq_enable();                   /* the entry came with IF masked */
	uint32_t mark = failinj_mark();
	int64_t r = nr < SYS_COUNT ? syscall_call(f, nr) : -ENOSYS;
	failinj_syscall_done(nr, mark, r);
	syscall_set_result(f, r);
	user_return_check();
	if (trace_wants(PROF_F_TRACE_SYSCALL))
		trace_syscall(PROF_TR_SYSCALL_EXIT, nr);
	irqlat_off_end();
	irqlat_ret_begin();
	acct_syscall_exit();            /* the exit code's stamp ends the kernel time */
}

/*
 * The fast return's rare case, a kill or a reschedule due: its section
 * becomes an open one for user_return_loop, then opens again for the exit
 * stamp. Irqs off.
 */
static __attribute__((noinline)) void syscall_return_work(void)
{
	irqlat_ret_reopen();
	user_return_loop();
	irqlat_off_end();
	irqlat_ret_begin();
}

/*
 * The entry charged in one step (acct_syscall_fast), no hook on: the call
 * with interrupts on, then the return's section (closed by the exit
 * stamp) and its checks. Irqs off before and after.
 */
static inline __attribute__((always_inline)) void syscall_run(int_frame_t *f, uint64_t nr)
{
	irq_enable_raw();               /* masked since the entry: no section open */
	syscall_set_result(f, syscall_call(f, nr));
	irq_disable_raw();              /* a system call returns with IF set */
	irqlat_ret_begin();
	cpu_t *c = cpu_current();       /* the call may have moved the thread */

	if (__builtin_expect(c->current->task->killed || c->need_resched, 0)) {
		syscall_return_work();
		c = cpu_current();
	}
	acct_syscall_exit_on(c);        /* the exit code's stamp ends the kernel time */
}

void syscall_dispatch(int_frame_t *f)
{
	uint64_t nr = syscall_nr(f);

	if (__builtin_expect(!acct_syscall_enter(nr), 0) || syscall_hooked())
		syscall_run_hooked(f);          /* the general path */
	else
		syscall_run(f, nr);
}

void user_return_work(int_frame_t *f)
{
	user_return_check();
	acct_user_enter();
	irqlat_off_end();               /* IF goes on with the return to user mode */
}

void user_return_from_irq(int_frame_t *f, unsigned vector)
{
	if (__builtin_expect(!task_current()->killed && !cpu_current()->need_resched, 1)) {
		acct_irq_exit_user(vector);
		return;                 /* the gate's section ends at the iretq (isr.asm) */
	}
	acct_irq_exit(vector);
	user_return_work(f);
}

void syscall_bad_return(int_frame_t *f)
{
	user_fault(f, "bad return address", frame_pc(f));
	irq_disable();
	thread_exit(0);
}

/*
 * Fault reports: at most FAULT_REPORTS in a FAULT_WINDOW_NS window (as
 * Linux's printk rate limit: 10 per 5 s); the rest are counted, and the
 * next report printed says how many were suppressed. fault_lock guards
 * the three; it nests no lock.
 */
#define FAULT_REPORTS 10
#define FAULT_WINDOW_NS (5 * NSEC_PER_SEC)
static spinlock_t fault_lock = SPINLOCK_INIT("fault_rate");
static uint64_t fault_window, fault_reports, fault_suppressed;

#define FAULT_SYMBOL_MAX 160          /* a symbol's bytes in a report, escaped */

/* May a fault report be printed now? *skipped: suppressed ones to mention. */
static bool fault_report_allowed(uint64_t *skipped)
{
	uint64_t now = time_ns();
	uint64_t f = spin_lock_irqsave(&fault_lock);

	if (now - fault_window >= FAULT_WINDOW_NS) {
		fault_window = now;
		fault_reports = 0;
	}
	bool ok = fault_reports < FAULT_REPORTS;
	fault_reports += ok;
	*skipped = ok ? fault_suppressed : 0;
	fault_suppressed = ok ? 0 : fault_suppressed + 1;
	spin_unlock_irqrestore(&fault_lock, f);
	return ok;
}

/*
 * The task's name and the symbol of the faulting address are the
 * program's choice: escaped, no name ends the line or starts a forged
 * one; the symbol is cut to FAULT_SYMBOL_MAX - 1 bytes.
 */
void user_fault(int_frame_t *f, const char *what, uint64_t addr)
{
	task_t *t = task_current();
	uint64_t off = 0, skipped;
	const char *sym = binary_symbol(t->binary, frame_pc(f), &off);

	if (!fault_report_allowed(&skipped)) {
		task_kill(t, TASK_STATUS_KILLED | KILL_REASON_FAULT);
		return;
	}
	if (skipped)
		printk("fault: %lu reports suppressed (at most %u in %llu s)\n", skipped,
		       FAULT_REPORTS, FAULT_WINDOW_NS / NSEC_PER_SEC);
	char name[sizeof(t->name) * 4], symbol[FAULT_SYMBOL_MAX];
	str_escape_ctrl(name, sizeof(name), t->name);
	str_escape_ctrl(symbol, sizeof(symbol), sym ? sym : "?");
	printk("task: %lu (%s): %s at %#lx, rip %#lx <%s+%#lx>; killed\n", t->id,
	       name, what, addr, frame_pc(f), symbol, off);
	task_kill(t, TASK_STATUS_KILLED | KILL_REASON_FAULT);
}
