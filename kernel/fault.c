/* fault_catch_run(): see kernel/fault.h. */
#include <kernel/cpu.h>
#include <kernel/fault.h>

bool fault_catch_run(fault_catch_t *fc, void (*fn)(void *), void *arg)
{
	cpu_t *c = cpu_current();

	fc->prev = c->fault_catch;
	fc->nbt = 0;
	if (kjmp_set(&fc->jb) != 0)
		return true;       /* the exception handler already restored prev */
	c->fault_catch = fc;
	fn(arg);
	c->fault_catch = fc->prev;
	return false;
}
