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

void origin_put(origin_t *o)
{
	if (o->task)
		task_unref(o->task);
	o->task = NULL;
}

void origin_of_caller(origin_t *o)
{
	thread_t *t = thread_current();

	if (t->serve.call && t->serve.o.task) {
		*o = t->serve.o;
	} else {
		memset(o, 0, sizeof(*o));
		o->task = t->task;
		o->thread = t->id;
		o->nhops = o->depth = 1;
		o->hops[0] = t->task->id;
	}
	task_ref(o->task);
}

/* Add task as o's last hop; a full list keeps the origin and the deepest. */
static void origin_hop(origin_t *o, uint64_t task)
{
	if (o->depth < UINT16_MAX)
		o->depth++;
	if (o->nhops < PROF_IPC_HOPS) {
		o->hops[o->nhops++] = task;
		return;
	}
	memmove(&o->hops[1], &o->hops[2], (PROF_IPC_HOPS - 2) * sizeof(o->hops[0]));
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

/*
 * Replace the current thread's serving state with (id, method, o, pair);
 * the old origin goes to *old. The cycles so far are charged to the old
 * state first. Interrupts off inside.
 */
static void origin_serve_set(uint64_t id, uint32_t method, const origin_t *o,
			     origin_pair_t *pair, origin_t *old)
{
	thread_t *t = thread_current();
	uint64_t f = irq_save();

	acct_kernel_enter();                     /* charge up to now */
	*old = t->serve.o;
	t->serve.call = 0;
	origin_fence();
	memset(&t->serve.o, 0, sizeof(t->serve.o));
	if (o)
		t->serve.o = *o;
	t->serve.method = method;
	t->serve.pair = pair;
	origin_fence();
	t->serve.call = id;
	irq_restore(f);
}

void origin_serve_begin(uint64_t id, uint32_t method, const origin_t *o)
{
	thread_t *t = thread_current();
	origin_t mine = *o, old;

	if (!o->task) {
		origin_serve_end();
		return;
	}
	task_ref(mine.task);
	origin_hop(&mine, t->task->id);
	origin_pair_t *pair = origin_pair_get(o->task, t->task);
	__atomic_add_fetch(&pair->calls, 1, __ATOMIC_RELAXED);
	origin_serve_set(id, method, &mine, pair, &old);
	origin_put(&old);
}

void origin_serve_end(void)
{
	thread_t *t = thread_current();
	origin_t old;

	if (!t->serve.call && !t->serve.o.task)
		return;
	origin_serve_set(0, 0, NULL, NULL, &old);
	origin_put(&old);
}

void origin_serve_done(uint64_t id)
{
	if (thread_current()->serve.call == id)
		origin_serve_end();
}

void origin_charge(thread_t *t, uint64_t d)
{
	origin_serve_t *s = &t->serve;

	if (!d || !s->o.task || !s->pair)
		return;
	__atomic_add_fetch(&s->o.task->acct.imposed_cycles, d, __ATOMIC_RELAXED);
	__atomic_add_fetch(&t->task->acct.served_cycles, d, __ATOMIC_RELAXED);
	__atomic_add_fetch(&s->pair->cycles, d, __ATOMIC_RELAXED);
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
