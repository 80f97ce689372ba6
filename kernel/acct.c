/* Cycle accounting at kernel boundaries: see kernel/acct.h. */
#include <kernel/acct.h>
#include <kernel/thread.h>
#include <kernel/time.h>

static uint64_t acct_delta(cpu_t *c)
{
	uint64_t now = time_cycles();
	uint64_t d = c->acct_last ? now - c->acct_last : 0;
	c->acct_last = now;
	return d;
}

void acct_kernel_enter(void)
{
	cpu_t *c = cpu_current();
	c->current->acct.user_cycles += acct_delta(c);
}

void acct_user_enter(void)
{
	cpu_t *c = cpu_current();
	c->current->acct.kernel_cycles += acct_delta(c);
}

void acct_switch(cpu_t *c, thread_t *prev, thread_t *next)
{
	prev->acct.kernel_cycles += acct_delta(c);
	next->acct.switches++;
	next->acct.last_switch_in = c->acct_last;
}
