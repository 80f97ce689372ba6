/*
 * ktest: the kernel's call profiling (kernel/cprof.h). In a kernel built
 * with the hooks (make CPROFILE=1) the thesis's §3.5.5 experiment runs in
 * the kernel: a calls b and c, b calls d, each with the same loop; the
 * four paths must get exactly the calls made and equal self times (within
 * 5% in one of up to CP_TRIES short runs: TCG's guest clock is the
 * host's, and a busy host stopping a vCPU adds a host time slice to
 * whichever path ran, so a run must be short to go unhit); a
 * function that sleeps shows its blocking in wall time and not in on-CPU
 * time. In a kernel without the hooks there is no kernel table.
 */
#include <kernel/cprof.h>
#include <kernel/ktest.h>
#include <kernel/thread.h>
#include <kernel/time.h>
#include <lib/cprof.h>
#include <lib/string.h>

#define CP_CALLS 50
#define CP_LOOP 5000
#define CP_SLEEPS 5
#define CP_SLEEP_NS 10000000ull
#define CP_TRIES 128

static volatile unsigned cp_sink;

/* The same loop in each function's own body (a function would be a path). */
#define CP_SPIN()                                        \
	do {                                             \
		for (unsigned i_ = 0; i_ < CP_LOOP; i_++) \
			cp_sink = cp_sink + i_;          \
	} while (0)

/*
 * Each function starts on a 256-byte boundary, so none (all are shorter)
 * straddles a page: under QEMU TCG a loop whose code crosses a page
 * cannot chain its translated blocks and runs about ten times slower,
 * which made one path's self time 10x the others' in some builds.
 */
#define CP_FN __attribute__((noinline, aligned(256)))

static CP_FN void cp_d(void) { CP_SPIN(); }
static CP_FN void cp_c(void) { CP_SPIN(); }
static CP_FN void cp_b(void) { CP_SPIN(); cp_d(); }
static CP_FN void cp_a(void) { CP_SPIN(); cp_b(); cp_c(); }
static __attribute__((noinline)) void cp_sleeper(void) { thread_sleep(CP_SLEEP_NS); }

/* Calls and self cycles summed over slots. */
typedef struct cp_sum {
	uint64_t calls, wall, oncpu;
} cp_sum_t;

static void cp_table(cprof_table_t *tab, cprof_part_t **parts)
{
	for (uint32_t i = 0; i < MAX_CPUS; i++)
		parts[i] = (cprof_part_t *)cprof_kernel_part(i);
	tab->parts = parts;
	tab->nparts = MAX_CPUS;
	tab->own = 0;
	tab->gen = cprof_kernel_gen();
	tab->root_fn = 0;
}

/* Does slot sl of tab count for the query (fn, under)? */
typedef bool (*cp_match_t)(const cprof_table_t *tab, const cprof_slot_t *sl,
			   void (*fn)(void), void (*under)(void));

/* Sum the slots of the current generation, over all parts, that match. */
static cp_sum_t cp_sum(cp_match_t match, void (*fn)(void), void (*under)(void))
{
	cprof_part_t *parts[MAX_CPUS];
	cprof_table_t tab;
	cp_sum_t s = { 0, 0, 0 };

	cp_table(&tab, parts);
	for (uint32_t i = 0; i < MAX_CPUS; i++) {
		cprof_part_t *p = parts[i];
		for (uint32_t j = 0; p && p->h.gen == tab.gen && j < p->h.used; j++) {
			if (!match(&tab, &p->slot[j], fn, under))
				continue;
			s.calls += p->slot[j].calls;
			s.wall += p->slot[j].wall;
			s.oncpu += p->slot[j].oncpu;
		}
	}
	return s;
}

/* sl is a call of fn from a function under. */
static bool cp_is_call(const cprof_table_t *tab, const cprof_slot_t *sl, void (*fn)(void),
		       void (*under)(void))
{
	const cprof_slot_t *up = cprof_slot(tab, sl->parent);

	return sl->fn == (uintptr_t)fn && up && up->fn == (uintptr_t)under;
}

/* sl is in the subtree of a call of fn (fn's own included). */
static bool cp_is_inside(const cprof_table_t *tab, const cprof_slot_t *sl, void (*fn)(void),
			 void (*under)(void))
{
	for (int depth = 0; sl && depth < 128; depth++) {
		if (sl->fn == (uintptr_t)fn)
			return true;
		sl = cprof_slot(tab, sl->parent);
	}
	return false;
}

/* Totals of fn called from parent_fn. */
static cp_sum_t cp_find(void (*fn)(void), void (*parent_fn)(void))
{
	return cp_sum(cp_is_call, fn, parent_fn);
}

/* Totals of every path inside calls of fn. */
static cp_sum_t cp_subtree(void (*fn)(void))
{
	return cp_sum(cp_is_inside, fn, NULL);
}

/* Run the experiment once on a freshly reset table: each path's totals. */
static void cp_run(cp_sum_t out[4])
{
	cprof_kernel_reset();
	cp_d();                          /* this CPU's part clears at its next hook */
	for (int i = 0; i < CP_CALLS; i++)
		cp_a();
	out[0] = cp_find(cp_a, (void (*)(void))cp_run);
	out[1] = cp_find(cp_b, cp_a);
	out[2] = cp_find(cp_d, cp_b);
	out[3] = cp_find(cp_c, cp_a);
	printk("# self cycles: a %lu, a b %lu, a b d %lu, a c %lu\n",
	       out[0].wall, out[1].wall, out[2].wall, out[3].wall);
}

/*
 * Do the four paths' self times of one try agree within 5%? Each try is
 * judged whole: on a loaded host one path's lucky try must not set its
 * best against the others' unlucky ones.
 */
static bool cp_equal(const cp_sum_t s[4])
{
	uint64_t lo = UINT64_MAX, hi = 0;

	for (int i = 0; i < 4; i++) {
		lo = MIN(lo, s[i].wall);
		hi = MAX(hi, s[i].wall);
	}
	printk("# spread %lu.%lu%%\n", lo ? (hi - lo) * 100 / lo : 0,
	       lo ? (hi - lo) * 1000 / lo % 10 : 0);
	return lo && (hi - lo) * 100 <= lo * 5;
}

KTEST(cprof_kernel, "cprof: kernel call paths: exact calls, equal self times, blocking")
{
	if (!cprof_kernel_on()) {
		KT_CHECK(cprof_kernel_part(0) == NULL, "a kernel table without the hooks");
		KT_SKIP("kernel built without call profiling hooks (make CPROFILE=1 has them)");
	}
	cp_sum_t s[4];
	bool equal = false;
	for (int t = 0; t < CP_TRIES && !equal; t++) {
		cp_run(s);
		for (int i = 0; i < 4; i++)
			KT_CHECK(s[i].calls == CP_CALLS, "path %d: %lu calls, made %d", i,
				 s[i].calls, CP_CALLS);
		equal = cp_equal(s);
	}
	KT_CHECK(equal, "the self times differed by more than 5%% in each of %d tries", CP_TRIES);
	for (int i = 0; i < CP_SLEEPS; i++)
		cp_sleeper();
	cp_sum_t z = cp_subtree(cp_sleeper);
	cp_sum_t w = cp_find(cp_sleeper, (void (*)(void))kt_cprof_kernel);
	uint64_t slept = CP_SLEEPS * CP_SLEEP_NS * time_cycles_per_sec() / NSEC_PER_SEC;
	KT_CHECK(w.calls == CP_SLEEPS, "sleeper called %lu times", w.calls);
	printk("# sleeping: wall %lu cycles, on CPU %lu (slept at least %lu)\n", z.wall, z.oncpu, slept);
	KT_CHECK(z.wall >= slept, "wall %lu < the %lu slept", z.wall, slept);
	KT_CHECK(z.oncpu < slept / 2, "on-CPU %lu includes the blocking", z.oncpu);
	return true;
}
