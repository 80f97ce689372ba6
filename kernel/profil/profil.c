/*
 * The classic profiler (MINIX's profil): one task at a time, its user PCs
 * counted in up to PROFIL_MAX_BINS bins over a range of its text segment.
 * Counts come from every scheduler tick (profil_hit from tick_irq, on any
 * CPU, whichever handler owns the timer vector) and from every sample the
 * statistical profiler takes of the task (profil_hit as a consumer of
 * its samples, registered by profil_init: NMI context).
 *
 * The counting side is lock-free: it announces itself in profil_inflight,
 * then reads profil_task (the profiled task id, 0 when off) and bumps a
 * bin atomically. The control side (SYS_PROFILE, SYS_GETPROFILE, the exit
 * hook) serializes on profil_lock (taken with interrupts off; it nests
 * no other lock); to change the geometry it clears
 * profil_task and waits until no counter is in flight (both sides use
 * sequentially consistent accesses, so a counter either sees the task
 * cleared or is seen in flight). A bin that would overflow stops the
 * profile from the counting side by clearing profil_task.
 */
#include <arch/cpu.h>
#include <arch/interrupt.h>
#include <kernel/binary.h>
#include <kernel/cpu.h>
#include <kernel/printk.h>
#include <kernel/prof.h>
#include <kernel/profil.h>
#include <kernel/spinlock.h>
#include <kernel/sysimpl.h>
#include <kernel/task.h>
#include <kernel/thread.h>
#include <kernel/vm.h>
#include <kernel/vm_space.h>
#include <lib/string.h>

static struct profil_data profil_data;         /* bins: atomics; the rest: profil_lock */
static volatile uint64_t profil_task;        /* profiled task id; 0: not profiling */
static volatile uint32_t profil_inflight;    /* counters between announce and done */
static spinlock_t profil_lock = SPINLOCK_INIT("profil");
static bool profil_wants_samples;            /* told the profiler; profil_lock */

/*
 * Who may stop or read the current or last profile: its task, that task's
 * parent and the task that started it (each 0 when none); anyone with
 * PERM_PROFILE besides. profil_lock.
 */
static struct {
	uint64_t task, parent, starter;
} profil_rights;

/* Count pc in its bin; stop the profile if that bin would overflow. */
static void profil_count(uint64_t task, uint64_t pc)
{
	int64_t i = profil_bin_of(&profil_data, pc);

	if (i < 0 || (uint64_t)i >= PROFIL_MAX_BINS)
		return;
	if (!profil_bin_inc(&profil_data.bin[i]))
		__atomic_compare_exchange_n(&profil_task, &task, 0, false, __ATOMIC_SEQ_CST,
					    __ATOMIC_SEQ_CST);
}

/* Count f's PC if it is the profiled task's, in user mode (IRQ or NMI context). */
void profil_hit(const int_frame_t *f)
{
	if (!__atomic_load_n(&profil_task, __ATOMIC_RELAXED) || !frame_from_user(f))
		return;
	__atomic_add_fetch(&profil_inflight, 1, __ATOMIC_SEQ_CST);
	uint64_t want = __atomic_load_n(&profil_task, __ATOMIC_SEQ_CST);
	thread_t *th = cpu_current()->current;
	if (want && th && th->task && th->task->id == want)
		profil_count(want, frame_pc(f));
	__atomic_sub_fetch(&profil_inflight, 1, __ATOMIC_SEQ_CST);
}

void profil_init(void)
{
	if (prof_consumer_add(profil_hit) != EOK)
		panic("profil: no room among the profiler's consumers");
}

/* Stop counting and wait until no counter is in flight. profil_lock held. */
static void profil_stop_locked(void)
{
	__atomic_store_n(&profil_task, 0, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&profil_inflight, __ATOMIC_SEQ_CST))
		cpu_relax();
	if (profil_wants_samples)
		prof_consumers_want(false);
	profil_wants_samples = false;
}

/*
 * t is exiting (its last thread is gone): end its profile if it has one.
 * Thread context; always takes profil_lock, so a profil_start racing with
 * the exit either sees no threads left or is stopped here.
 */
void profil_task_exited(task_t *t)
{
	uint64_t f = spin_lock_irqsave(&profil_lock);
	if (profil_task == t->id)
		profil_stop_locked();
	spin_unlock_irqrestore(&profil_lock, f);
}

/* May the calling task profile t? Itself, its child, or PERM_PROFILE. */
static bool profil_allowed(const task_t *t)
{
	task_t *me = task_current();

	return t == me || t->parent == me || (me->perms & PERM_PROFILE);
}

/* Is t gone or going (no thread left: its exit hook ran or will run)? */
static bool profil_task_gone(const task_t *t)
{
	return t->state != TASK_ALIVE || t->killed ||
	       !__atomic_load_n(&t->nthreads, __ATOMIC_ACQUIRE);
}

/* Install geometry d for t and start counting: EOK, EBUSY or ESRCH. */
static errno_t profil_start(task_t *t, const struct profil_data *d)
{
	task_id_t parent = task_parent_id(t);
	uint64_t f = spin_lock_irqsave(&profil_lock);
	errno_t rc = profil_task ? EBUSY : profil_task_gone(t) ? ESRCH : EOK;

	if (rc != EOK) {
		spin_unlock_irqrestore(&profil_lock, f);
		return rc;
	}
	profil_stop_locked();
	memset(&profil_data, 0, sizeof(profil_data));
	profil_data.start_addr = d->start_addr;
	profil_data.end_addr = d->end_addr;
	profil_data.nr_bins = d->nr_bins;
	profil_data.bin_sz = d->bin_sz;
	profil_rights.task = t->id;
	profil_rights.parent = parent;
	profil_rights.starter = task_current()->id;
	prof_consumers_want(true);                /* before the task: no sample missed */
	profil_wants_samples = true;
	__atomic_store_n(&profil_task, t->id, __ATOMIC_SEQ_CST);
	spin_unlock_irqrestore(&profil_lock, f);
	return EOK;
}

/* Check task t and the range, then start. ESRCH, EFAULT, EBUSY or EGENERIC. */
static errno_t profil_begin(task_t *t, uint64_t start, uint64_t end, uint64_t interval)
{
	struct profil_data d;

	if (profil_task_gone(t))
		return ESRCH;
	if (!profil_allowed(t) || !t->binary)
		return EGENERIC;
	const elf_plan_t *p = &t->binary->plan;
	if (profil_range(p->text_start, p->text_end, &start, &end) != EOK ||
	    profil_geometry(start, end, interval, &d) != EOK)
		return EFAULT;
	return profil_start(t, &d);
}

/*
 * May the calling task stop or read the current or last profile? The same
 * right as starting it: the profiled task, its parent, the starter, or
 * PERM_PROFILE (no profile yet: anyone). profil_lock held.
 */
static bool profil_may_control_locked(void)
{
	task_t *me = task_current();

	if (!profil_rights.task || (me->perms & PERM_PROFILE))
		return true;
	return me->id == profil_rights.task || me->id == profil_rights.parent ||
	       me->id == profil_rights.starter;
}

/* Stop the profile if the caller may: EOK or EGENERIC. */
static errno_t profil_stop(void)
{
	uint64_t f = spin_lock_irqsave(&profil_lock);
	bool ok = profil_may_control_locked();

	if (ok)
		profil_stop_locked();
	spin_unlock_irqrestore(&profil_lock, f);
	return ok ? EOK : EGENERIC;
}

/* SYS_PROFILE (task id or 0, start, end, interval). */
int64_t sys_profile(SYSCALL_ARGS)
{
	if (a0 == 0)
		return -(int64_t)profil_stop();
	task_t *t = task_get(a0);
	if (!t)
		return -ESRCH;
	errno_t rc = profil_begin(t, a1, a2, a3);
	task_unref(t);
	return -(int64_t)rc;
}

/*
 * SYS_GETPROFILE (struct profil_data *): a snapshot of the current or last
 * profile; EGENERIC if the caller may not read it (see
 * profil_may_control_locked), EFAULT for a bad pointer, ENOMEM if the
 * snapshot cannot be allocated.
 */
int64_t sys_getprofile(SYSCALL_ARGS)
{
	struct profil_data *snap = kmalloc(sizeof(*snap));

	if (!snap)
		return -ENOMEM;
	uint64_t f = spin_lock_irqsave(&profil_lock);
	bool ok = profil_may_control_locked();

	if (ok)
		memcpy(snap, &profil_data, sizeof(*snap));
	spin_unlock_irqrestore(&profil_lock, f);
	errno_t rc = ok ? copy_to_user((void *)a0, snap, sizeof(*snap)) : EGENERIC;
	kfree(snap);
	return rc == EOK ? 0 : rc == EGENERIC ? -EGENERIC : -EFAULT;
}
