/* fault_catch_run(): see kernel/fault.h. */
#include <kernel/cpu.h>
#include <kernel/fault.h>
#include <kernel/sched.h>

/* The catch belongs to this CPU: no migration while it is armed. */
bool fault_catch_run(fault_catch_t *fc, void (*fn)(void *), void *arg)
{
	preempt_disable();
	cpu_t *c = cpu_current();

	fc->prev = c->fault_catch;
	fc->nbt = 0;
	if (kjmp_set(&fc->jb) != 0) {
		preempt_enable();
		return true;       /* the exception handler already restored prev */
	}
	c->fault_catch = fc;
	fn(arg);
	c->fault_catch = fc->prev;
	preempt_enable();
	return false;
}
