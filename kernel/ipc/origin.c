/*
 * Whose work is it: call origins, threads' serving state and the
 * (origin, server) totals. See kernel/origin.h.
 *
 * The pair table is open-addressed by a hash of the two task ids. An
 * entry is published once (its ids and names written, then `used` set
 * with release order) and never moved or freed, so the accounting adds
 * to it lock-free from any context; only the insertion takes the lock.
 * Pairs that find no free entry add to one "other" entry.
 *
 * Lock order: origin_lock and a task's lock (origin_serve_gone) are
 * never held together.
 */
#include <abi/sysinfo.h>
#include <kernel/acct.h>
#include <kernel/origin.h>
#include <kernel/sysinfo.h>
#include <kernel/task.h>
#include <kernel/thread.h>
#include <kernel/vm.h>
#include <lib/string.h>

typedef struct origin_pair {
	volatile bool used;
	uint64_t origin, server;
	char origin_name[SYSINFO_NAME_MAX];
	char server_name[SYSINFO_NAME_MAX];
	origin_count_t count;
} origin_pair_t;

static origin_pair_t origin_table[SYSINFO_IPC_PAIRS];
static origin_pair_t origin_other;
static spinlock_t origin_lock = SPINLOCK_INIT("origin");

#define origin_fence() __atomic_signal_fence(__ATOMIC_SEQ_CST)

void origin_inherit(origin_t *o, const origin_serve_t *s)
{
	o->task = s->task;                   /* set whenever rec.call is */
	o->thread = s->rec.origin_thread;
	o->nhops = s->rec.nhops;
	o->depth = s->rec.depth;
	memcpy(o->hops, s->rec.hops, sizeof(o->hops));
	o->stack = s->stack;
	task_ref(o->task);
	if (o->stack)
		ostack_get(o->stack);
}

/* Add task as r's last hop; a full list keeps the origin and the deepest. */
static inline void origin_hop(prof_ipc_t *r, uint64_t task)
{
	if (r->depth < UINT16_MAX)
		r->depth++;
	if (r->nhops < PROF_IPC_HOPS) {
		r->hops[r->nhops++] = task;
		return;
	}
	for (unsigned i = 1; i + 1 < PROF_IPC_HOPS; i++)
		r->hops[i] = r->hops[i + 1];
	r->hops[PROF_IPC_HOPS - 1] = task;
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

/* The totals of (origin, t's task), from t's cache if it is that pair. */
static origin_count_t *origin_count_of(thread_t *t, const task_t *origin)
{
	origin_serve_t *s = &t->serve;

	if (!s->count || s->count_origin != origin->id) {
		s->count = &origin_pair_get(origin, t->task)->count;
		s->count_origin = origin->id;
		s->self = t->task->id;
	}
	return s->count;
}

/* s (rec.call 0) holds stack (referenced here) instead of its old one. */
static __attribute__((noinline, cold)) void origin_serve_swap_stack(origin_serve_t *s,
								   ostack_t *stack)
{
	ostack_t *old = s->stack;

	if (stack)
		ostack_get(stack);
	s->stack = stack;
	s->rec.stack = ostack_id(stack);
	if (old)
		ostack_put(old);
}

/*
 * s takes the origin of a call (o, or its caller's when o->task is NULL)
 * with task as the last hop; returns the origin task, referenced.
 * s->task is NULL: the accounting does not read s meanwhile.
 */
static inline task_t *origin_serve_take(origin_serve_t *s, const origin_t *o, task_t *caller,
					const task_t *task)
{
	prof_ipc_t *r = &s->rec;

	r->origin_thread = o->thread;
	if (!o->task) {                      /* the caller's own work: hops caller, task */
		r->nhops = r->depth = 2;
		r->hops[0] = caller->id;
		r->hops[1] = task->id;
		task_ref(caller);
		return caller;
	}
	r->nhops = o->nhops;
	r->depth = o->depth;
	memcpy(r->hops, o->hops, sizeof(r->hops));
	origin_hop(r, task->id);
	task_ref(o->task);
	return o->task;
}

/*
 * Without an interrupts-off section: the accounting (interrupts on this
 * CPU) charges only while s->task is set, and the exchange that clears
 * it is one instruction, so a boundary either moved the old origin to
 * unref before it or sees NULL after it. The sampler sees rec.call 0
 * until the fields are whole.
 */
void origin_serve_begin(uint64_t id, uint64_t method, const origin_t *o, task_t *caller)
{
	thread_t *t = thread_current();
	origin_serve_t *s = &t->serve;
	task_t *origin = o->task ? o->task : caller;

	if (!origin) {
		origin_serve_end();
		return;
	}
	origin_count_t *count = origin_count_of(t, origin);
	__atomic_add_fetch(&count->calls, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&s->rec.call, 0, __ATOMIC_RELAXED);
	task_t *old = __atomic_exchange_n(&s->task, NULL, __ATOMIC_RELAXED);
	origin_fence();
	if (__builtin_expect(o->stack || s->stack, 0))
		origin_serve_swap_stack(s, o->stack);
	origin = origin_serve_take(s, o, caller, t->task);
	s->rec.method = method;
	s->ending = false;
	origin_fence();
	s->task = origin;
	__atomic_store_n(&s->rec.call, id, __ATOMIC_RELAXED);
	if (old)
		task_unref(old);
}

void origin_serve_drop_stack(origin_serve_t *s)
{
	ostack_t *stack = s->stack;

	s->stack = NULL;
	s->rec.stack = 0;
	ostack_put(stack);
}

void origin_serve_end(void)
{
	origin_serve_t *s = &thread_current()->serve;

	__atomic_store_n(&s->rec.call, 0, __ATOMIC_RELAXED);   /* samples: its own work */
	s->ending = s->task != NULL;
	if (s->stack)
		origin_serve_drop_stack(s);
}

void origin_serve_flush(bool exiting)
{
	origin_serve_t *s = &thread_current()->serve;
	task_t *now = NULL;

	if (exiting) {
		__atomic_store_n(&s->rec.call, 0, __ATOMIC_RELAXED);
		now = __atomic_exchange_n(&s->task, NULL, __ATOMIC_RELAXED);
		s->ending = false;
	}
	task_t *drop = __atomic_exchange_n(&s->unref, NULL, __ATOMIC_RELAXED);
	if (exiting && s->stack)
		origin_serve_drop_stack(s);
	if (drop)
		task_unref(drop);
	if (now)
		task_unref(now);
}

/*
 * Out of line and cold: a call is mostly answered by the thread serving
 * it. The threads stay listed (and allocated) while the task's lock is
 * held; call ids are never reused, so a taker that moved on to another
 * call ignores gone. gone holds ~id: a zeroed thread's matches no call.
 */
__attribute__((noinline, cold)) void origin_serve_gone(uint64_t id)
{
	task_t *task = task_current();
	thread_t *me = thread_current();
	uint64_t f = spin_lock_irqsave(&task->lock);

	list_foreach(&task->threads, it) {
		thread_t *t = list_entry(it, thread_t, task_node);
		if (t != me && origin_serving(&t->serve) == id)
			__atomic_store_n(&t->serve.gone, ~id, __ATOMIC_RELAXED);
	}
	spin_unlock_irqrestore(&task->lock, f);
}

bool origin_sample(const thread_t *t, prof_ipc_t *out)
{
	const origin_serve_t *s = &t->serve;
	uint64_t call = origin_serving(s);

	if (!call)
		return false;
	origin_fence();
	*out = s->rec;                       /* whole: call is set last, cleared first */
	origin_fence();
	return out->call == call && origin_serving(s) == call;
}

/* Copy entry p into the record r. */
static void origin_pair_record(const origin_pair_t *p, sysinfo_ipc_pair_t *r)
{
	memset(r, 0, sizeof(*r));
	r->origin = p->origin;
	r->server = p->server;
	memcpy(r->origin_name, p->origin_name, sizeof(r->origin_name));
	memcpy(r->server_name, p->server_name, sizeof(r->server_name));
	r->cycles = __atomic_load_n(&p->count.cycles, __ATOMIC_RELAXED);
	r->calls = __atomic_load_n(&p->count.calls, __ATOMIC_RELAXED);
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

/* system.ipc.pairs: the pairs, most cycles first, "other" last. */
static errno_t origin_si_pairs(si_buf_t *b, uint64_t arg)
{
	sysinfo_ipc_pair_t *pairs = kmalloc((SYSINFO_IPC_PAIRS + 1) * sizeof(*pairs));

	if (!pairs)
		return ENOMEM;
	size_t n = origin_pairs(pairs, SYSINFO_IPC_PAIRS + 1);
	errno_t rc = si_put(b, pairs, n * sizeof(*pairs));
	kfree(pairs);
	return rc;
}

SYSINFO_DATA_NODE(ipc_pairs, "system.ipc.pairs", 230, origin_si_pairs);
