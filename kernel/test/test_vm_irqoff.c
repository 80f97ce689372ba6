/*
 * ktest: long kernel paths run with interrupts on. A demand-zero fault of
 * user memory takes its interrupts (the timer's samples among them) inside
 * the kernel's fault path, not on the user instruction after it; a dead
 * task's space is freed with interrupts on (the reaper thread).
 */
#include <kernel/ktest.h>
#include <kernel/sched.h>
#include <kernel/task.h>
#include <kernel/thread.h>
#include <kernel/tick.h>
#include <kernel/time.h>
#include <kernel/vm_space.h>
#include <lib/string.h>

#define IRQOFF_WAIT_TICKS 3          /* the probe waits this long for an interrupt */
#define IRQOFF_SPAWN_WAIT_MS 2000

/* What the fault hook saw of the first fault of the probe task. */
static struct {
	volatile bool seen;
	bool irq_on;                 /* interrupts were on in the fault path */
	uint64_t interrupts;         /* interrupts this CPU took while the hook waited */
} irqoff_fault;

/*
 * In the fault path of the first fault of a task named "tester": wait up
 * to IRQOFF_WAIT_TICKS tick periods for this CPU to take an interrupt.
 */
static void irqoff_fault_probe(vm_space_t *s, uintptr_t addr)
{
	(void)s;
	(void)addr;
	task_t *t = task_current();
	if (irqoff_fault.seen || !t || strcmp(t->name, "tester"))
		return;
	cpu_t *c = cpu_current();
	uint64_t before = __atomic_load_n(&c->acct.interrupts, __ATOMIC_RELAXED);
	uint64_t end = time_cycles() + IRQOFF_WAIT_TICKS * time_cycles_per_sec() / tick_hz();
	irqoff_fault.irq_on = irq_enabled();
	while (__atomic_load_n(&c->acct.interrupts, __ATOMIC_RELAXED) == before &&
	       time_cycles() < end)
		cpu_relax();
	irqoff_fault.interrupts = __atomic_load_n(&c->acct.interrupts, __ATOMIC_RELAXED) - before;
	__atomic_store_n(&irqoff_fault.seen, true, __ATOMIC_RELEASE);
}

/* Wait until the probe's fault was seen and the task is gone. */
static void irqoff_wait_probe(task_id_t id)
{
	for (int ms = 0; ms < IRQOFF_SPAWN_WAIT_MS; ms += 10) {
		task_t *t = task_get(id);
		if (t)
			task_unref(t);
		if (!t && __atomic_load_n(&irqoff_fault.seen, __ATOMIC_ACQUIRE))
			return;
		thread_sleep(10 * 1000000ull);
	}
}

KTEST(irqoff_user_fault, "irqoff: a user page fault takes interrupts inside the kernel's fault path")
{
	const char *argv[] = { "tester", "noop", NULL };
	task_spawn_req_t req = { .path = "/bin/tester", .argv = argv };
	task_id_t id;

	memset(&irqoff_fault, 0, sizeof(irqoff_fault));
	__atomic_store_n(&vm_fault_hook, irqoff_fault_probe, __ATOMIC_RELEASE);
	errno_t rc = task_spawn(&req, NULL, &id);
	if (rc == EOK)
		irqoff_wait_probe(id);
	__atomic_store_n(&vm_fault_hook, NULL, __ATOMIC_RELEASE);
	KT_CHECK(rc == EOK, "spawn of /bin/tester gave %d", rc);
	KT_CHECK(irqoff_fault.seen, "no page fault of the tester task seen");
	KT_CHECK(irqoff_fault.irq_on, "interrupts were off in the fault path");
	KT_CHECK(irqoff_fault.interrupts > 0, "no interrupt taken in the fault path within %d ticks",
		 IRQOFF_WAIT_TICKS);
	return true;
}

/* What the destroy hook saw of the probe task's space. */
static struct {
	vm_space_t *space;           /* the probe's, taken before it runs */
	volatile bool seen;
	bool irq_on;                 /* interrupts were on while it was freed */
} irqoff_teardown;

/* In vm_space_destroy of the probe's space: were interrupts on? */
static void irqoff_destroy_probe(vm_space_t *s)
{
	if (s != irqoff_teardown.space || irqoff_teardown.seen)
		return;
	irqoff_teardown.irq_on = irq_enabled();
	__atomic_store_n(&irqoff_teardown.seen, true, __ATOMIC_RELEASE);
}

/* Note the space of task id (spawned stopped), then start it. */
static errno_t irqoff_start_noted(task_id_t id)
{
	task_t *t = task_get(id);

	if (!t)
		return ESRCH;
	irqoff_teardown.space = t->space;
	errno_t rc = task_start(t);
	task_unref(t);
	return rc;
}

KTEST(irqoff_task_teardown, "irqoff: a dead task's space is freed with interrupts on")
{
	const char *argv[] = { "tester", "noop", NULL };
	task_spawn_req_t req = { .path = "/bin/tester", .argv = argv, .flags = SPAWN_F_STOPPED };
	task_id_t id;

	memset(&irqoff_teardown, 0, sizeof(irqoff_teardown));
	__atomic_store_n(&vm_destroy_hook, irqoff_destroy_probe, __ATOMIC_RELEASE);
	errno_t rc = task_spawn(&req, NULL, &id);
	if (rc == EOK)
		rc = irqoff_start_noted(id);
	for (int ms = 0; rc == EOK && !irqoff_teardown.seen && ms < IRQOFF_SPAWN_WAIT_MS; ms += 10)
		thread_sleep(10 * 1000000ull);
	__atomic_store_n(&vm_destroy_hook, NULL, __ATOMIC_RELEASE);
	KT_CHECK(rc == EOK, "spawn and start of /bin/tester gave %d", rc);
	KT_CHECK(irqoff_teardown.seen, "the tester task's space was not freed within %d ms",
		 IRQOFF_SPAWN_WAIT_MS);
	KT_CHECK(irqoff_teardown.irq_on, "interrupts were off while the space was freed");
	return true;
}
