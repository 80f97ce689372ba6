/*
 * Whose work is it: call origins, threads' serving state and the
 * (origin, server) totals. See kernel/origin.h.
 *
 * The pair table is open-addressed by a hash of the two task ids. An
 * entry is published once (its ids and names written, then `used` set
 * with release order) and never moved or freed, so the accounting adds
 * to it lock-free from any context; only the insertion takes the lock.
 * Pairs that find no free entry add to one "other" entry.
 */
#include <abi/sysinfo.h>
#include <kernel/acct.h>
#include <kernel/origin.h>
#include <kernel/prof.h>
#include <kernel/task.h>
#include <kernel/thread.h>
#include <lib/string.h>

typedef struct origin_pair {
	volatile bool used;
	uint64_t origin, server;
	char origin_name[SYSINFO_NAME_MAX];
	char server_name[SYSINFO_NAME_MAX];
	uint64_t cycles, calls;         /* atomic */
} origin_pair_t;

static origin_pair_t origin_table[SYSINFO_IPC_PAIRS];
static origin_pair_t origin_other;
static spinlock_t origin_lock = SPINLOCK_INIT("origin");

#define origin_fence() __atomic_signal_fence(__ATOMIC_SEQ_CST)

void origin_inherit(origin_t *o, const origin_serve_t *s)
{
	*o = s->o;                           /* o.task is set whenever call is */
	task_ref(o->task);
	if (o->stack)
		prof_stack_get(o->stack);
}

/* Add task as o's last hop; a full list keeps the origin and the deepest. */
static inline void origin_hop(origin_t *o, uint64_t task)
{
	if (o->depth < UINT16_MAX)
		o->depth++;
	if (o->nhops < PROF_IPC_HOPS) {
		o->hops[o->nhops++] = task;
		return;
	}
	for (unsigned i = 1; i + 1 < PROF_IPC_HOPS; i++)
		o->hops[i] = o->hops[i + 1];
	o->hops[PROF_IPC_HOPS - 1] = task;
}

static bool origin_pair_is(const origin_pair_t *p, uint64_t origin, uint64_t server)
{
	return __atomic_load_n(&p->used, __ATOMIC_ACQUIRE) && p->origin == origin &&
	       p->server == server;
}

/* Publish a pair in the free entry p (origin_lock held). */
static void origin_pair_fill(origin_pair_t *p, const task_t *origin, const task_t *server)
{
	p->origin = origin->id;
	p->server = server->id;
	strlcpy(p->origin_name, origin->name, sizeof(p->origin_name));
	strlcpy(p->server_name, server->name, sizeof(p->server_name));
	__atomic_store_n(&p->used, true, __ATOMIC_RELEASE);
}

/* The entry of (origin, server): found, added, or "other" when full. */
static origin_pair_t *origin_pair_get(const task_t *origin, const task_t *server)
{
	uint64_t h = (origin->id * 0x9e3779b97f4a7c15ull) ^ server->id;
	origin_pair_t *free = NULL;

	for (unsigned i = 0; i < SYSINFO_IPC_PAIRS; i++) {
		origin_pair_t *p = &origin_table[(h + i) % SYSINFO_IPC_PAIRS];
		if (origin_pair_is(p, origin->id, server->id))
			return p;
		if (!__atomic_load_n(&p->used, __ATOMIC_ACQUIRE)) {
			free = p;
			break;
		}
	}
	if (!free)
		return &origin_other;
	uint64_t f = spin_lock_irqsave(&origin_lock);
	if (!free->used)
		origin_pair_fill(free, origin, server);
	spin_unlock_irqrestore(&origin_lock, f);
	return origin_pair_is(free, origin->id, server->id) ? free
	       : origin_pair_get(origin, server);    /* another pair took it: look again */
}

/* The pair entry of (origin, t's task), from t's cache if it is that one. */
static origin_pair_t *origin_pair_of(thread_t *t, const task_t *origin)
{
	origin_pair_t *p = t->serve.last;

	if (!p || p->origin != origin->id || p->server != t->task->id)
		p = t->serve.last = origin_pair_get(origin, t->task);
	return p;
}

/* s (call 0) holds stack (referenced here) instead of its old one. */
static __attribute__((noinline, cold)) void origin_serve_swap_stack(origin_serve_t *s,
								   struct prof_stack *stack)
{
	struct prof_stack *old = s->o.stack;

	if (stack)
		prof_stack_get(stack);
	s->o.stack = stack;
	if (old)
		prof_stack_put(old);
}

/*
 * s takes the origin of a call (o, or its caller's when o->task is NULL)
 * with task as the last hop; returns the origin task, referenced.
 * s->o.task is NULL: the accounting does not read s meanwhile.
 */
static inline task_t *origin_serve_take(origin_serve_t *s, const origin_t *o, task_t *caller,
					const task_t *task)
{
	if (!o->task) {                      /* the caller's own work: hops caller, task */
		s->o.thread = o->thread;
		s->o.nhops = s->o.depth = 2;
		s->o.hops[0] = caller->id;
		s->o.hops[1] = task->id;
		task_ref(caller);
		return caller;
	}
	s->o.thread = o->thread;             /* not o->task: set last, by the caller */
	s->o.nhops = o->nhops;
	s->o.depth = o->depth;
	memcpy(s->o.hops, o->hops, sizeof(s->o.hops));
	origin_hop(&s->o, task->id);
	task_ref(o->task);
	return o->task;
}

/*
 * Without an interrupts-off section: the accounting (interrupts on this
 * CPU) charges only while s->o.task is set, and the exchange that clears
 * it is one instruction, so a boundary either moved the old origin to
 * unref before it or sees NULL after it. The sampler sees call 0 until
 * the fields are whole.
 */
void origin_serve_begin(uint64_t id, uint32_t method, const origin_t *o, task_t *caller)
{
	thread_t *t = thread_current();
	origin_serve_t *s = &t->serve;
	task_t *origin = o->task ? o->task : caller;

	if (!origin) {
		origin_serve_end();
		return;
	}
	origin_pair_t *pair = origin_pair_of(t, origin);
	__atomic_add_fetch(&pair->calls, 1, __ATOMIC_RELAXED);
	s->call = 0;
	task_t *old = __atomic_exchange_n(&s->o.task, NULL, __ATOMIC_RELAXED);
	origin_fence();
	if (__builtin_expect(o->stack || s->o.stack, 0))
		origin_serve_swap_stack(s, o->stack);
	origin = origin_serve_take(s, o, caller, t->task);
	s->method = method;
	s->cycles = &pair->cycles;
	s->ending = false;
	origin_fence();
	s->o.task = origin;
	s->call = id;
	if (old)
		task_unref(old);
}

void origin_serve_drop_stack(origin_serve_t *s)
{
	struct prof_stack *stack = s->o.stack;

	s->o.stack = NULL;
	prof_stack_put(stack);
}

void origin_serve_end(void)
{
	origin_serve_t *s = &thread_current()->serve;

	s->call = 0;                         /* samples: its own work from now */
	s->ending = s->o.task != NULL;
	if (s->o.stack)
		origin_serve_drop_stack(s);
}

void origin_serve_flush(bool exiting)
{
	origin_serve_t *s = &thread_current()->serve;
	task_t *now = NULL;

	if (exiting) {
		s->call = 0;
		now = __atomic_exchange_n(&s->o.task, NULL, __ATOMIC_RELAXED);
		s->ending = false;
	}
	task_t *drop = __atomic_exchange_n(&s->unref, NULL, __ATOMIC_RELAXED);
	if (exiting && s->o.stack)
		origin_serve_drop_stack(s);
	if (drop)
		task_unref(drop);
	if (now)
		task_unref(now);
}

bool origin_sample(const thread_t *t, prof_ipc_t *out)
{
	const origin_serve_t *s = &t->serve;
	uint64_t call = s->call;

	if (!call)
		return false;
	origin_fence();
	out->call = call;
	out->origin_thread = s->o.thread;
	out->method = s->method;
	out->nhops = s->o.nhops;
	out->depth = s->o.depth;
	memcpy(out->hops, s->o.hops, sizeof(out->hops));
	out->stack = 0;
	origin_fence();
	return s->call == call && out->nhops;
}

/* Copy entry p into the record r. */
static void origin_pair_record(const origin_pair_t *p, sysinfo_ipc_pair_t *r)
{
	memset(r, 0, sizeof(*r));
	r->origin = p->origin;
	r->server = p->server;
	memcpy(r->origin_name, p->origin_name, sizeof(r->origin_name));
	memcpy(r->server_name, p->server_name, sizeof(r->server_name));
	r->cycles = __atomic_load_n(&p->cycles, __ATOMIC_RELAXED);
	r->calls = __atomic_load_n(&p->calls, __ATOMIC_RELAXED);
}

/* Insert r into the first n records of out, kept most cycles first. */
static void origin_sorted_insert(sysinfo_ipc_pair_t *out, size_t n, const sysinfo_ipc_pair_t *r)
{
	size_t i = n;

	while (i > 0 && out[i - 1].cycles < r->cycles) {
		out[i] = out[i - 1];
		i--;
	}
	out[i] = *r;
}

size_t origin_pairs(void *buf, size_t max)
{
	sysinfo_ipc_pair_t *out = buf, r;
	size_t n = 0;

	for (unsigned i = 0; i < SYSINFO_IPC_PAIRS && n < max; i++) {
		if (!__atomic_load_n(&origin_table[i].used, __ATOMIC_ACQUIRE))
			continue;
		origin_pair_record(&origin_table[i], &r);
		origin_sorted_insert(out, n++, &r);
	}
	origin_pair_record(&origin_other, &r);
	if (r.calls && n < max)
		out[n++] = r;
	return n;
}
