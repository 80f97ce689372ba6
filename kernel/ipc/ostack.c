/*
 * Origin stacks (kernel/ostack.h): a fixed pool under ostack_lock, taken
 * in thread context when a call is made, given back by the last holder.
 * Marks are the consumer's, set and cleared atomically (NMI context
 * included); the pool knows nothing of what they mean.
 */
#include <arch/callchain.h>
#include <kernel/ostack.h>
#include <kernel/spinlock.h>
#include <kernel/task.h>
#include <kernel/thread.h>

ostack_filter_t volatile ostack_wanted;

static ostack_t ostack_pool[PROF_IPC_STACKS];
static ostack_t *ostack_free;
static bool ostack_ready;
static uint64_t ostack_lost_count;
static spinlock_t ostack_lock = SPINLOCK_INIT("ostack");

void ostack_want(ostack_filter_t wanted)
{
	__atomic_store_n(&ostack_wanted, wanted, __ATOMIC_RELEASE);
}

/* A free entry, or NULL when all are held. ostack_lock held. */
static ostack_t *ostack_take(void)
{
	if (!ostack_ready) {
		for (unsigned i = 0; i < PROF_IPC_STACKS; i++) {
			ostack_pool[i].next_free = ostack_free;
			ostack_free = &ostack_pool[i];
		}
		ostack_ready = true;
	}
	ostack_t *s = ostack_free;
	if (s)
		ostack_free = s->next_free;
	else
		ostack_lost_count++;
	return s;
}

ostack_t *ostack_capture(uint64_t id)
{
	thread_t *th = thread_current();
	ostack_filter_t wanted = __atomic_load_n(&ostack_wanted, __ATOMIC_ACQUIRE);

	if (!wanted || !wanted(th->task))
		return NULL;
	uint64_t f = spin_lock_irqsave(&ostack_lock);
	ostack_t *s = ostack_take();
	spin_unlock_irqrestore(&ostack_lock, f);
	if (!s)
		return NULL;
	s->id = id;
	s->task = th->task->id;
	s->thread = th->id;
	s->n = (uint16_t)arch_user_stack(th, s->chain, PROF_IPC_STACK_MAX);
	__atomic_store_n(&s->marks, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&s->refs, 1, __ATOMIC_RELEASE);
	return s;
}

void ostack_get(ostack_t *s)
{
	__atomic_add_fetch(&s->refs, 1, __ATOMIC_RELAXED);
}

void ostack_put(ostack_t *s)
{
	if (__atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL))
		return;
	uint64_t f = spin_lock_irqsave(&ostack_lock);
	s->next_free = ostack_free;
	ostack_free = s;
	spin_unlock_irqrestore(&ostack_lock, f);
}

bool ostack_mark(ostack_t *s, unsigned bit)
{
	uint64_t m = 1ull << (bit % 64);

	return !(__atomic_load_n(&s->marks, __ATOMIC_RELAXED) & m) &&
	       !(__atomic_fetch_or(&s->marks, m, __ATOMIC_ACQ_REL) & m);
}

void ostack_unmark(ostack_t *s, unsigned bit)
{
	__atomic_fetch_and(&s->marks, ~(1ull << (bit % 64)), __ATOMIC_RELAXED);
}

uint64_t ostack_lost(void)
{
	return __atomic_load_n(&ostack_lost_count, __ATOMIC_RELAXED);
}
