/*
 * Unit tests for lib/cprof.c, the call profiler's bookkeeping, driven by
 * a synthetic clock: hooks read it as lib/cprof.h shows (two reads per
 * hook, H cycles apart), bodies advance it by known amounts. Checked:
 * the thesis's overhead experiment (section 3.5.5: equal self times with
 * two reads, unequal with one), on-CPU time, calls and recursion, stack
 * overrun, table full, exits that do not match (longjmp, no entry),
 * reset by generation, charging a slot in another part and paths that
 * share a hash chain.
 */
#include "tap.h"

#include <stdlib.h>
#include <string.h>

#include <lib/cprof.h>

#define B 1000u                 /* cycles of a body */
#define H 37u                   /* cycles a hook spends between its two reads */
#define S 5000u                 /* cycles switched out */
#define NPARTS 2

enum { FA = 0x401000, FB = 0x401100, FC = 0x401200, FD = 0x401300, FF = 0x401400 };

static uint64_t now, off_now;   /* the clock: TSC and the thread's off-CPU cycles */
static bool single_read;        /* one read per hook: t2 := t1, end := stop */
static cprof_part_t *parts[NPARTS];
static cprof_table_t tab;
static cprof_stack_t *stk;

static void setup(uint32_t nslots, uint32_t cap)
{
	for (int i = 0; i < NPARTS; i++) {
		free(parts[i]);
		parts[i] = calloc(1, CPROF_PART_SIZE(nslots));
		cprof_part_init(parts[i], (uint32_t)i, nslots);
	}
	free(stk);
	stk = calloc(1, CPROF_STACK_SIZE(cap));
	cprof_stack_init(stk, cap, 0);
	tab = (cprof_table_t){ parts, NPARTS, 0, 0, 0 };
	now = 1000000;
	off_now = 0;
	single_read = false;
}

static void work(uint64_t cycles)
{
	now += cycles;
}

/* The entry hook as lib/cprof.h shows it. */
static void enter(uint64_t fn)
{
	cprof_sync(stk, &tab);
	cprof_frame_t *f = cprof_enter(stk, &tab, fn, now, off_now);
	work(H);
	if (f && !single_read)
		f->t2 = now;
}

/* The exit hook; returns whether the frame was finished. */
static bool leave(uint64_t fn)
{
	cprof_sync(stk, &tab);
	uint64_t stop = now, off = off_now;
	cprof_frame_t *f = cprof_exit_begin(stk, &tab, fn, stop, off);
	work(H);
	if (f)
		cprof_exit_end(stk, f, single_read ? stop : now, off_now);
	return f != NULL;
}

/* The slot of the path fns[0] .. fns[n-1] from the root, or NULL. */
static cprof_slot_t *path(const uint64_t *fns, size_t n)
{
	uint32_t parent = CPROF_ROOT;
	cprof_slot_t *found = NULL;

	for (size_t i = 0; i < n; i++) {
		found = NULL;
		for (uint32_t p = 0; p < tab.nparts && !found; p++) {
			for (uint32_t j = 0; j < parts[p]->h.used; j++) {
				cprof_slot_t *sl = &parts[p]->slot[j];
				if (sl->fn == fns[i] && sl->parent == parent) {
					found = sl;
					parent = p << CPROF_ID_SHIFT | j;
					break;
				}
			}
		}
		if (!found)
			return NULL;
	}
	return found;
}

#define PATH(...) path((const uint64_t[]){ __VA_ARGS__ }, \
		       sizeof((const uint64_t[]){ __VA_ARGS__ }) / sizeof(uint64_t))

static uint64_t wall_of(cprof_slot_t *sl)
{
	return sl ? sl->wall : ~0ull;
}

static uint64_t calls_of(cprof_slot_t *sl)
{
	return sl ? sl->calls : ~0ull;
}

/* ---------------------------------------------------------------- 3.5.5 */

/* The thesis's functions: a calls b and c, b calls d; bodies B each. */
static void d(void)
{
	enter(FD);
	work(B);
	leave(FD);
}

static void b(void)
{
	enter(FB);
	work(B / 2);
	d();
	work(B - B / 2);
	leave(FB);
}

static void c(void)
{
	enter(FC);
	work(B);
	leave(FC);
}

static void a(void)
{
	enter(FA);
	work(B / 4);
	b();
	work(B / 4);
	c();
	work(B - 2 * (B / 4));
	leave(FA);
}

#define RUNS 10

static void run_a(bool single)
{
	setup(64, 16);
	single_read = single;
	for (int i = 0; i < RUNS; i++) {
		a();
		work(3 * B);    /* the loop around the call: nobody's */
	}
}

static void test_overhead(void)
{
	static const char *const names[] = { "a", "a b", "a b d", "a c" };
	const uint64_t children[] = { 2, 1, 0, 0 };   /* calls each path makes */
	cprof_slot_t *sl[4];

	run_a(false);
	sl[0] = PATH(FA), sl[1] = PATH(FA, FB), sl[2] = PATH(FA, FB, FD), sl[3] = PATH(FA, FC);
	for (int i = 0; i < 4; i++) {
		is_uint(calls_of(sl[i]), RUNS, "two reads: path %s called %d times", names[i],
			RUNS);
		is_uint(wall_of(sl[i]), (uint64_t)RUNS * B, "two reads: path %s self = B per call",
			names[i]);
		is_uint(sl[i] ? sl[i]->oncpu : 0, (uint64_t)RUNS * B,
			"two reads: path %s on-CPU = wall", names[i]);
	}
	is_uint(stk->depth, 0, "two reads: stack empty at the end");
	is_uint(parts[0]->h.used, 4, "two reads: 4 paths");
	is_uint(parts[0]->h.err, 0, "two reads: no error flags");

	/*
	 * One read per hook: the entry hook's cost after its read and the
	 * exit hooks of the callees (after their reads) land in the caller:
	 * self = B + H per call plus H per call it makes.
	 */
	run_a(true);
	sl[0] = PATH(FA), sl[1] = PATH(FA, FB), sl[2] = PATH(FA, FB, FD), sl[3] = PATH(FA, FC);
	for (int i = 0; i < 4; i++) {
		uint64_t expect = (uint64_t)RUNS * (B + H * (1 + children[i]));
		is_uint(wall_of(sl[i]), expect, "one read: path %s self = B + %llu H per call",
			names[i], (unsigned long long)(1 + children[i]));
	}
	ok(wall_of(sl[0]) > wall_of(sl[1]) && wall_of(sl[1]) > wall_of(sl[2]) &&
	   wall_of(sl[2]) == wall_of(sl[3]),
	   "one read: a > a b > a b d = a c (the thesis's single-read ordering)");
}

/* ---------------------------------------------------------------- on-CPU */

static void test_oncpu(void)
{
	setup(64, 16);
	enter(FA);
	work(B);
	enter(FB);
	work(B / 2);
	now += S;               /* switched out: the scheduler's accounting grows too */
	off_now += S;
	work(B / 2);
	leave(FB);
	work(B);
	leave(FA);
	cprof_slot_t *sb = PATH(FA, FB), *sa = PATH(FA);
	is_uint(wall_of(sb), B + S, "switched out: wall self = B + S");
	is_uint(sb ? sb->oncpu : 0, B, "switched out: on-CPU self = B");
	is_uint(wall_of(sb) - (sb ? sb->oncpu : 0), S, "switched out: wall - on-CPU = S");
	is_uint(wall_of(sa), 2 * B, "caller: wall self = its body only");
	is_uint(sa ? sa->oncpu : 0, 2 * B, "caller: on-CPU self = its body only");
}

/* ---------------------------------------------------------------- calls */

static void f(int n)
{
	enter(FF);
	work(B);
	if (n > 1)
		f(n - 1);
	leave(FF);
}

static void test_calls(void)
{
	setup(64, 16);
	enter(FA);
	for (int i = 0; i < 3; i++)
		b();
	c();
	leave(FA);
	is_uint(calls_of(PATH(FA)), 1, "a called once");
	is_uint(calls_of(PATH(FA, FB)), 3, "a b called 3 times");
	is_uint(calls_of(PATH(FA, FB, FD)), 3, "a b d called 3 times");
	is_uint(calls_of(PATH(FA, FC)), 1, "a c called once");
	is_uint(wall_of(PATH(FA, FB)), 3 * B, "a b: 3 B");

	setup(64, 16);
	f(3);
	f(3);
	f(1);
	is_uint(parts[0]->h.used, 3, "recursion f f f: 3 paths");
	is_uint(calls_of(PATH(FF)), 3, "f: 3 calls");
	is_uint(calls_of(PATH(FF, FF)), 2, "f f: 2 calls");
	is_uint(calls_of(PATH(FF, FF, FF)), 2, "f f f: 2 calls");
	is_uint(wall_of(PATH(FF)), 3 * B, "f: 3 B of self time");
	is_uint(wall_of(PATH(FF, FF, FF)), 2 * B, "f f f: 2 B of self time");
	ok(PATH(FF) != PATH(FF, FF) && PATH(FF, FF) != PATH(FF, FF, FF),
	   "each level its own slot");
}

/* ---------------------------------------------------------------- overrun */

static void test_stack_overrun(void)
{
	static const uint64_t fns[6] = { FA, FB, FC, FD, FF, FF + 0x10 };

	setup(64, 4);
	for (int i = 0; i < 6; i++) {
		enter(fns[i]);
		work(B);
	}
	is_uint(stk->depth, 6, "depth 6 with cap 4");
	is_uint(parts[0]->h.lost_stack, 2, "2 calls not recorded");
	ok(parts[0]->h.err & CPROF_ERR_STACK, "CPROF_ERR_STACK flagged");
	int finished = 0;
	for (int i = 5; i >= 0; i--)
		finished += leave(fns[i]);
	is_int(finished, 4, "4 exits finish a frame, the 2 beyond the cap do not");
	is_uint(stk->depth, 0, "exits balanced: stack empty");
	is_uint(parts[0]->h.used, 4, "4 paths recorded");
	is_uint(parts[0]->h.mismatch, 0, "no mismatch");
	is_uint(wall_of(PATH(FA)), B, "outer a: B");
	is_uint(wall_of(PATH(FA, FB, FC)), B, "a b c: B");
	/* The deepest recorded one takes the unrecorded calls: bodies and hooks. */
	is_uint(wall_of(PATH(FA, FB, FC, FD)), B + 2 * (B + 2 * H),
		"a b c d: B plus the 2 unrecorded calls (bodies and hooks)");
	is_uint(calls_of(PATH(FA, FB, FC, FD)), 1, "a b c d: 1 call");
}

static void test_table_full(void)
{
	setup(3, 16);
	enter(FA);
	work(B);
	b();                    /* a b, a b d: the table is full */
	c();                    /* a c: not recorded */
	enter(FC);              /* a c again, with a callee under it */
	d();
	leave(FC);
	leave(FA);
	is_uint(parts[0]->h.used, 3, "3 slots used");
	ok(parts[0]->h.err & CPROF_ERR_TABLE, "CPROF_ERR_TABLE flagged");
	is_uint(parts[0]->h.lost_table, 3, "3 calls not recorded (a c twice, a c d)");
	ok(PATH(FA, FC) == NULL, "a c has no slot");
	is_uint(wall_of(PATH(FA)), B, "a: B (the unrecorded callees' time not its)");
	is_uint(wall_of(PATH(FA, FB, FD)), B, "a b d: B");
	is_uint(stk->depth, 0, "stack empty");
}

/* ---------------------------------------------------------------- mismatch */

static void test_mismatch(void)
{
	setup(64, 16);
	enter(FA);
	work(B);
	enter(FB);
	work(B);
	enter(FC);
	work(B);
	ok(leave(FA), "exit of a over b and c (longjmp): a finished");
	ok(parts[0]->h.err & CPROF_ERR_PATH, "CPROF_ERR_PATH flagged");
	is_uint(parts[0]->h.mismatch, 2, "2 frames dropped");
	is_uint(stk->depth, 0, "stack resynchronised: empty");
	is_uint(wall_of(PATH(FA)), 3 * B + 2 * H, "a: everything from its entry to its exit");
	is_uint(wall_of(PATH(FA, FB)), 0, "a b: never exited, no time");

	enter(FA);
	ok(!leave(FB), "exit of b not on the stack: nothing finished");
	is_uint(parts[0]->h.mismatch, 3, "counted");
	is_uint(stk->depth, 1, "stack kept");
	ok(leave(FA), "a still exits");
	ok(!leave(FA), "exit with an empty stack: nothing finished");
	is_uint(parts[0]->h.mismatch, 4, "counted");
	is_uint(stk->depth, 0, "stack still empty");
}

/* ---------------------------------------------------------------- reset */

static void test_reset(void)
{
	setup(64, 16);
	enter(FF);
	leave(FF);              /* a path that will go */
	enter(FA);
	work(B);
	enter(FB);
	work(B);
	parts[0]->h.lost_stack = 5;
	parts[0]->h.err = CPROF_ERR_STACK;
	tab.gen = 1;            /* the kernel asks for a reset */
	enter(FC);              /* next hook: clear, re-enter a and b, then c */
	work(B);
	leave(FC);
	is_uint(parts[0]->h.gen, 1, "part cleared for generation 1");
	is_uint(stk->gen, 1, "stack re-entered for generation 1");
	is_uint(parts[0]->h.lost_stack, 0, "counters cleared");
	is_uint(parts[0]->h.err, 0, "flags cleared");
	is_uint(parts[0]->h.used, 3, "3 slots: a, a b, a b c");
	ok(PATH(FF) == NULL, "old path gone");
	is_uint(calls_of(PATH(FA)), 0, "a re-entered with 0 calls");
	is_uint(calls_of(PATH(FA, FB)), 0, "a b re-entered with 0 calls");
	is_uint(calls_of(PATH(FA, FB, FC)), 1, "a b c: 1 call");
	work(B);
	leave(FB);
	leave(FA);
	is_uint(wall_of(PATH(FA, FB)), 2 * B, "a b's exit goes to the new slot");
	is_uint(wall_of(PATH(FA)), B, "a's exit goes to the new slot");
	is_uint(wall_of(PATH(FA, FB, FC)), B, "a b c: B");
}

/* ---------------------------------------------------------------- parts */

static void test_foreign_part(void)
{
	setup(64, 16);
	enter(FA);
	work(B);
	enter(FB);
	work(B);
	tab.own = 1;            /* the thread moved to CPU 1 */
	enter(FC);
	work(B);
	leave(FC);
	is_uint(parts[1]->h.used, 1, "a b c went into part 1");
	is_uint(parts[1]->slot[0].parent, 0u << CPROF_ID_SHIFT | 1,
		"its parent is a b in part 0");
	is_uint(wall_of(PATH(FA, FB, FC)), B, "a b c (part 1): B");
	work(B);
	leave(FB);              /* charged from part 1 to part 0: the atomic path */
	leave(FA);
	is_uint(parts[0]->h.used, 2, "part 0 kept a and a b");
	is_uint(wall_of(PATH(FA, FB)), 2 * B, "a b (part 0) charged from part 1: 2 B");
	is_uint(PATH(FA, FB) ? PATH(FA, FB)->oncpu : 0, 2 * B, "and its on-CPU time");
	is_uint(wall_of(PATH(FA)), B, "a (part 0): B");
	is_uint(calls_of(PATH(FA, FB)), 1, "a b: 1 call");
	cprof_slot_t *sl = cprof_slot(&tab, 1u << CPROF_ID_SHIFT | 0);
	ok(sl == &parts[1]->slot[0], "cprof_slot finds slot 0 of part 1");
	ok(cprof_slot(&tab, 1u << CPROF_ID_SHIFT | 1) == NULL, "unused index: NULL");
	ok(cprof_slot(&tab, 5u << CPROF_ID_SHIFT) == NULL, "no such part: NULL");
	ok(cprof_slot(&tab, CPROF_ROOT) == NULL && cprof_slot(&tab, CPROF_NONE) == NULL,
	   "ROOT and NONE: NULL");
}

/* ---------------------------------------------------------------- chains */

/* n functions above base whose top-level paths share one hash bucket. */
static void colliding(uint64_t base, uint64_t *fns, int n)
{
	uint32_t h = cprof_hash(CPROF_ROOT, base);
	int k = 0;

	for (uint64_t fn = base; k < n; fn += 16)
		if (cprof_hash(CPROF_ROOT, fn) == h)
			fns[k++] = fn;
}

/*
 * Paths in one hash chain: the hooks probe only the chain's head inline,
 * so the others are found out of line. Each keeps one slot (no copy is
 * added), its calls and its self time, whichever heads the chain.
 */
static void test_chain(void)
{
	uint64_t fns[3];

	setup(64, 16);
	colliding(0x402000, fns, 3);
	for (int round = 0; round < 4; round++) {
		for (int i = 0; i < 3; i++) {
			int k = (i + round) % 3;
			enter(fns[k]);
			work((uint64_t)(k + 1) * B);
			leave(fns[k]);
		}
	}
	is_uint(parts[0]->h.used, 3, "chain: 3 paths, 3 slots");
	for (int k = 0; k < 3; k++) {
		cprof_slot_t *sl = PATH(fns[k]);
		is_uint(calls_of(sl), 4, "chain: path %d called 4 times", k);
		is_uint(wall_of(sl), 4 * (uint64_t)(k + 1) * B, "chain: path %d's self time", k);
	}
	is_uint(parts[0]->h.lost_table, 0, "chain: nothing lost");
}

/* ---------------------------------------------------------------- root */

/*
 * An interrupt entry (tab.root_fn) is a top-level path wherever it comes
 * in, also after a reset, and its time is still not its victim's.
 */
static void test_root_fn(void)
{
	setup(64, 16);
	tab.root_fn = FF;
	enter(FA);
	work(B);
	enter(FF);                 /* "interrupts" a */
	work(B);
	enter(FD);
	work(B);
	leave(FD);
	leave(FF);
	work(B);
	leave(FA);
	ok(PATH(FF) && !PATH(FA, FF), "root_fn: a top-level path, not under a");
	ok(calls_of(PATH(FF, FD)) == 1, "root_fn: its callees under it");
	ok(wall_of(PATH(FA)) == 2 * B, "root_fn: a's self time leaves it out (%llu)",
	   (unsigned long long)wall_of(PATH(FA)));
	enter(FA);
	enter(FF);
	tab.gen = 1;               /* a reset while both run */
	enter(FD);
	ok(PATH(FF, FD) && PATH(FF) && !PATH(FA, FF), "root_fn: still top-level after a reset");
	leave(FD);
	leave(FF);
	leave(FA);
}

int main(void)
{
	test_overhead();
	test_oncpu();
	test_calls();
	test_stack_overrun();
	test_table_full();
	test_mismatch();
	test_reset();
	test_foreign_part();
	test_chain();
	test_root_fn();
	for (int i = 0; i < NPARTS; i++)
		free(parts[i]);
	free(stk);
	return done_testing();
}
