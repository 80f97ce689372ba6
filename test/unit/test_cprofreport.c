/*
 * Unit tests for lib/prof/cprofreport.c, the call profile report (cprofalyze):
 * files built in memory (a kernel table made by lib/cprof.c's hooks on a
 * synthetic clock: two parts, the thesis's 3.5.5 shape, a path whose
 * parent is in the other part; a process table with known counts and
 * errors; a table with bad and cyclic parents), parsing and its checks,
 * merging, every option's order and line counts, -n, the tree, ms from
 * tsc_hz, warnings, unknown symbols, fuzzing (every truncation, flipped
 * bytes), ENOMEM; then the host tool build/host/cprofalyze and its exit
 * codes.
 */
#include "hosttool.h"
#include "prof_testutil.h"
#include "rng.h"
#include "tap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lib/cprof.h>
#include <lib/cprofreport.h>

#define HZ 1000000u             /* 1 MHz: 1000 cycles are 1 ms */
#define B 1000u                 /* cycles of a body: 1.00 ms */
#define H 37u                   /* cycles between a hook's two reads */

/* Kernel functions (the 3.5.5 shape: a calls b and c, b calls d). */
enum { KA = 0xffffffff80101000, KB = 0xffffffff80101100, KC = 0xffffffff80101200,
       KD = 0xffffffff80101300 };
/* Process functions; 0x500000 has no symbol. */
enum { PMAIN = 0x401000, PF = 0x401100, PG = 0x401200, PUNK = 0x500000 };

static const char kernel_nm[] =
	"ffffffff80101000 T main\n"     /* a */
	"ffffffff80101100 T zeta\n"     /* b */
	"ffffffff80101200 T alpha\n"    /* c */
	"ffffffff80101300 t delta\n";   /* d */
static const char app_nm[] =
	"0000000000401000 T main\n"
	"0000000000401100 T f\n"
	"0000000000401200 T g\n";

/* ---------------------------------------------------------------- environment */

static void files_default(void)
{
	pt_nfiles = 0;
	pt_add_file("/boot/kernel.nm", kernel_nm, sizeof(kernel_nm) - 1);
	pt_add_file("/bin/app.nm", app_nm, sizeof(app_nm) - 1);
}

/* ---------------------------------------------------------------- file builder */

static void sb_file(pt_sb_t *b, uint32_t ntables)
{
	cprof_file_hdr_t h;

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, CPROF_FILE_MAGIC, 8);
	h.version = CPROF_VERSION;
	h.ntables = ntables;
	h.tsc_hz = HZ;
	h.taken = 123456789;
	h.cpus = 2;
	b->len = 0;
	pt_sb_put(b, &h, sizeof(h));
}

static void sb_table(pt_sb_t *b, uint64_t task, uint32_t nparts, const char *name,
		     const char *path)
{
	cprof_table_hdr_t t;

	memset(&t, 0, sizeof(t));
	t.task = task;
	t.nparts = nparts;
	strncpy(t.name, name, sizeof(t.name));
	strncpy(t.path, path, sizeof(t.path));
	pt_sb_put(b, &t, sizeof(t));
}

/* A part as the kernel copies it: the header, then the used slots. */
static void sb_part(pt_sb_t *b, const cprof_part_t *p)
{
	pt_sb_put(b, &p->h, sizeof(p->h));
	pt_sb_put(b, p->slot, (size_t)p->h.used * sizeof(cprof_slot_t));
}

/* ---------------------------------------------------------------- the hooks */

static uint64_t now;
static cprof_part_t *kparts[2];
static cprof_table_t ktab;
static cprof_stack_t *kstk;

static void enter(uint64_t fn)
{
	cprof_sync(kstk, &ktab);
	cprof_frame_t *f = cprof_enter(kstk, &ktab, fn, now, 0);
	now += H;
	if (f)
		f->t2 = now;
}

static void leave(uint64_t fn)
{
	cprof_sync(kstk, &ktab);
	cprof_frame_t *f = cprof_exit_begin(kstk, &ktab, fn, now, 0);
	now += H;
	if (f)
		cprof_exit_end(kstk, f, now, 0);
}

static void body(uint64_t fn)
{
	enter(fn);
	now += B;
	leave(fn);
}

static void fn_b(void)
{
	enter(KB);
	now += B / 2;
	body(KD);
	now += B - B / 2;
	leave(KB);
}

static void fn_a(void)
{
	enter(KA);
	now += B / 2;
	fn_b();
	body(KC);
	now += B - B / 2;
	leave(KA);
}

/*
 * The kernel table: a() 3 times on CPU 0 and twice on CPU 1 (the same
 * paths in both parts), then a() on CPU 0 whose b moves to CPU 1 before
 * calling d (a b d in part 1 under a b in part 0), then a b c on CPU 0
 * (the last slot of part 0). a, a b: 7 calls, a b d: 6, a c: 5, a b c:
 * 1; every call B cycles of self time.
 */
static void build_kernel(void)
{
	for (int i = 0; i < 2; i++) {
		free(kparts[i]);
		kparts[i] = calloc(1, CPROF_PART_SIZE(64));
		cprof_part_init(kparts[i], (uint32_t)i, 64);
	}
	free(kstk);
	kstk = calloc(1, CPROF_STACK_SIZE(16));
	cprof_stack_init(kstk, 16, 0);
	ktab = (cprof_table_t){ kparts, 2, 0, 0, 0 };
	now = 1000;
	for (int i = 0; i < 3; i++)
		fn_a();
	ktab.own = 1;
	for (int i = 0; i < 2; i++)
		fn_a();
	ktab.own = 0;
	enter(KA);
	now += B / 2;
	enter(KB);
	now += B / 2;
	ktab.own = 1;
	body(KD);
	now += B - B / 2;
	leave(KB);
	now += B - B / 2;
	leave(KA);
	ktab.own = 0;           /* a new path last: a b c */
	enter(KA);
	now += B;
	enter(KB);
	now += B;
	body(KC);
	leave(KB);
	leave(KA);
}

/*
 * The process table (one part): main 1 call (still running: 0 time);
 * main f 3 calls, 1234567 cycles (1000000 on CPU); main f f 2, 5 (4);
 * main g 10, 2000; main 0x500000 (no symbol) 7, 3000000. Errors: stack
 * overrun (12), table full (3), 2 mismatches.
 */
static cprof_part_t *build_app(void)
{
	cprof_part_t *p = calloc(1, CPROF_PART_SIZE(16));
	cprof_part_init(p, 3, 16);
	uint32_t m = cprof_lookup(p, CPROF_ROOT, PMAIN);
	uint32_t f = cprof_lookup(p, m, PF);
	uint32_t ff = cprof_lookup(p, f, PF);
	uint32_t g = cprof_lookup(p, m, PG);
	uint32_t u = cprof_lookup(p, m, PUNK);
	static const struct { uint64_t calls, wall, oncpu; } v[5] = {
		{ 1, 0, 0 }, { 3, 1234567, 1000000 }, { 2, 5, 4 }, { 10, 2000, 2000 },
		{ 7, 3000000, 3000000 },
	};
	const uint32_t ids[5] = { m, f, ff, g, u };
	for (int i = 0; i < 5; i++) {
		cprof_slot_t *s = &p->slot[ids[i] & CPROF_INDEX_MASK];
		s->calls = v[i].calls;
		s->wall = v[i].wall;
		s->oncpu = v[i].oncpu;
	}
	p->h.err = CPROF_ERR_STACK | CPROF_ERR_TABLE | CPROF_ERR_PATH;
	p->h.lost_stack = 12;
	p->h.lost_table = 3;
	p->h.mismatch = 2;
	p->h.thread = 77;
	return p;
}

/* A part of raw slots (parent ids as given): for bad and cyclic parents. */
static void sb_raw_part(pt_sb_t *b, uint32_t id, const uint32_t *parents, size_t n)
{
	cprof_part_hdr_t h;

	memset(&h, 0, sizeof(h));
	h.magic = CPROF_PART_MAGIC;
	h.id = id;
	h.nslots = h.used = (uint32_t)n;
	pt_sb_put(b, &h, sizeof(h));
	for (size_t i = 0; i < n; i++) {
		cprof_slot_t s;
		memset(&s, 0, sizeof(s));
		s.fn = 0x700000 + i * 0x10;
		s.parent = parents[i];
		s.calls = i + 1;
		pt_sb_put(b, &s, sizeof(s));
	}
}

/*
 * The reference file: the kernel (2 parts), app (task 5) and "broken"
 * (task 9, no path): slot 0 fine, 1 and 2 each other's parent, 3 under a
 * part that does not exist, 4 under 3, 5 with parent CPROF_NONE.
 */
static void build_ref(pt_sb_t *b)
{
	static const uint32_t broken[6] = { CPROF_ROOT, 2, 1, 7u << CPROF_ID_SHIFT, 3,
					    CPROF_NONE };
	cprof_part_t *app = build_app();

	build_kernel();
	sb_file(b, 3);
	sb_table(b, 0, 2, "", "/boot/kernel");
	sb_part(b, kparts[0]);
	sb_part(b, kparts[1]);
	sb_table(b, 5, 1, "app", "/bin/app");
	sb_part(b, app);
	sb_table(b, 9, 1, "broken", "");
	sb_raw_part(b, 0, broken, 6);
	free(app);
}

/* ---------------------------------------------------------------- helpers */

/* Parse data and print it with o; the output (NULL if parsing failed). */
static char *report(const void *data, size_t len, const cprofreport_opts_t *o, errno_t *err,
		    char *why, size_t whylen)
{
	cprofreport_t *pc;

	pt_out_len = 0;
	pt_out_text(NULL, "", 0);
	*err = cprofreport_parse(&pt_env, data, len, &pc, why, whylen);
	if (*err != EOK)
		return NULL;
	*err = cprofreport_print(pc, o);
	cprofreport_free(pc);
	return strdup(pt_out);
}

static char *print_opts(const pt_sb_t *b, unsigned sort, bool functions, bool full,
			uint64_t max)
{
	cprofreport_opts_t o = { sort, functions, full, max };
	errno_t err;
	char why[128];
	char *text = report(b->buf, b->len, &o, &err, why, sizeof(why));

	if (err != EOK)
		diag("report failed: %d %s", err, why);
	return text ? text : strdup("");
}

/*
 * Compare the lines of the table whose header line starts with head
 * (after its column header, up to a blank line or the end) with want.
 */
static bool table_is(const char *text, const char *head, const char *const *want, size_t n)
{
	const char *p = strstr(text, head);

	if (!p || !(p = strstr(p, "    calls    wall ms     cpu ms  ")))
		return false;
	p = strchr(p, '\n') + 1;
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(want[i]);
		if (strncmp(p, want[i], len) != 0 || p[len] != '\n') {
			diag("line %zu: got \"%.*s\" want \"%s\"", i, (int)strcspn(p, "\n"), p,
			     want[i]);
			return false;
		}
		p += len + 1;
	}
	if (*p != '\n' && *p != '\0') {
		diag("extra line: \"%.*s\"", (int)strcspn(p, "\n"), p);
		return false;
	}
	return true;
}

#define TABLE_IS(text, head, desc, ...) \
	ok(table_is(text, head, (const char *const[]){ __VA_ARGS__ }, \
		    sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(char *)), desc)
#define HAS(text, line) ok(pt_has_line(text, line), "line: %s", line)

/* ---------------------------------------------------------------- tests */

static pt_sb_t ref;

#define KHEAD "kernel (task 0, /boot/kernel)"
#define AHEAD "app (task 5, /bin/app)"

static void poke32(pt_sb_t *b, size_t off, uint32_t v);

static void test_kernel_table(void)
{
	char *t = print_opts(&ref, CPROFREPORT_SORT_ALPHA, false, false, 0);

	note_text("default report:", t);
	HAS(t, KHEAD ": 2 parts, 5 call paths");
	ok(kparts[1]->slot[kparts[1]->h.used - 1].parent >> CPROF_ID_SHIFT == 0,
	   "the file has a part-1 slot whose parent is in part 0");
	TABLE_IS(t, KHEAD, "-a: the tree, alphabetical siblings, merged parts",
		 "        7       7.00       7.00  main",
		 "        5       5.00       5.00    alpha",
		 "        7       7.00       7.00    zeta",
		 "        1       1.00       1.00      alpha",
		 "        6       6.00       6.00      delta");
	ok(!strstr(t, "warning: kernel"), "kernel: no warnings");
	ok(!strstr(t, "exited processes were dropped"), "no dropped tables: no warning");
	free(t);

	pt_sb_t d = { malloc(ref.len), ref.len, ref.len };
	memcpy(d.buf, ref.buf, ref.len);
	poke32(&d, offsetof(cprof_file_hdr_t, dropped), 3);
	t = print_opts(&d, CPROFREPORT_SORT_ALPHA, false, false, 0);
	HAS(t, "warning: the tables of 3 exited processes were dropped (the kernel keeps 4 MiB of them)");
	free(t);
	free(d.buf);

	t = print_opts(&ref, CPROFREPORT_SORT_FILE, false, false, 0);
	TABLE_IS(t, KHEAD, "-o: the tree, siblings in file order",
		 "        7       7.00       7.00  main",
		 "        7       7.00       7.00    zeta",
		 "        6       6.00       6.00      delta",
		 "        1       1.00       1.00      alpha",
		 "        5       5.00       5.00    alpha");
	free(t);

	t = print_opts(&ref, CPROFREPORT_SORT_ALPHA, false, true, 0);
	TABLE_IS(t, KHEAD, "-a -i: full paths",
		 "        7       7.00       7.00  main",
		 "        5       5.00       5.00  main alpha",
		 "        7       7.00       7.00  main zeta",
		 "        1       1.00       1.00  main zeta alpha",
		 "        6       6.00       6.00  main zeta delta");
	free(t);

	t = print_opts(&ref, CPROFREPORT_SORT_FILE, false, true, 0);
	TABLE_IS(t, KHEAD, "-o -i: full paths in file order (a b c last)",
		 "        7       7.00       7.00  main",
		 "        7       7.00       7.00  main zeta",
		 "        6       6.00       6.00  main zeta delta",
		 "        5       5.00       5.00  main alpha",
		 "        1       1.00       1.00  main zeta alpha");
	free(t);
}

static void test_app_table(void)
{
	char *t = print_opts(&ref, CPROFREPORT_SORT_ALPHA, false, false, 0);

	HAS(t, AHEAD ": 1 part, 5 call paths");
	HAS(t, "warning: app (task 5): call stack overrun: 12 calls not recorded");
	HAS(t, "warning: app (task 5): table full: 3 calls not recorded");
	HAS(t, "warning: app (task 5): 2 exits without their entry");
	TABLE_IS(t, AHEAD, "app -a: tree; hex sorts first; ms rounded to hundredths",
		 "        1       0.00       0.00  main",
		 "        7    3000.00    3000.00    0x500000",
		 "        3    1234.57    1000.00    f",
		 "        2       0.01       0.00      f",
		 "       10       2.00       2.00    g");
	free(t);

	t = print_opts(&ref, CPROFREPORT_SORT_CALLS, false, false, 0);
	TABLE_IS(t, AHEAD, "-c: most calls first, full paths",
		 "       10       2.00       2.00  main g",
		 "        7    3000.00    3000.00  main 0x500000",
		 "        3    1234.57    1000.00  main f",
		 "        2       0.01       0.00  main f f",
		 "        1       0.00       0.00  main");
	free(t);

	t = print_opts(&ref, CPROFREPORT_SORT_TIME, false, false, 0);
	TABLE_IS(t, AHEAD, "-t: most wall time first",
		 "        7    3000.00    3000.00  main 0x500000",
		 "        3    1234.57    1000.00  main f",
		 "       10       2.00       2.00  main g",
		 "        2       0.01       0.00  main f f",
		 "        1       0.00       0.00  main");
	free(t);

	t = print_opts(&ref, CPROFREPORT_SORT_FILE, false, false, 0);
	TABLE_IS(t, AHEAD, "-o: creation order",
		 "        1       0.00       0.00  main",
		 "        3    1234.57    1000.00    f",
		 "        2       0.01       0.00      f",
		 "       10       2.00       2.00    g",
		 "        7    3000.00    3000.00    0x500000");
	free(t);
}

static void test_functions(void)
{
	char *t = print_opts(&ref, CPROFREPORT_SORT_ALPHA, true, false, 0);

	HAS(t, AHEAD ": 1 part, 4 functions");
	HAS(t, KHEAD ": 2 parts, 4 functions");
	ok(strstr(t, "    calls    wall ms     cpu ms  function\n") != NULL,
	   "-f: column header says function");
	TABLE_IS(t, AHEAD, "-f -a: by name; f's two levels summed",
		 "        7    3000.00    3000.00  0x500000",
		 "        5    1234.57    1000.00  f",
		 "       10       2.00       2.00  g",
		 "        1       0.00       0.00  main");
	free(t);

	t = print_opts(&ref, CPROFREPORT_SORT_CALLS, true, false, 0);
	TABLE_IS(t, AHEAD, "-f -c",
		 "       10       2.00       2.00  g",
		 "        7    3000.00    3000.00  0x500000",
		 "        5    1234.57    1000.00  f",
		 "        1       0.00       0.00  main");
	free(t);

	t = print_opts(&ref, CPROFREPORT_SORT_TIME, true, false, 0);
	TABLE_IS(t, AHEAD, "-f -t",
		 "        7    3000.00    3000.00  0x500000",
		 "        5    1234.57    1000.00  f",
		 "       10       2.00       2.00  g",
		 "        1       0.00       0.00  main");
	free(t);

	t = print_opts(&ref, CPROFREPORT_SORT_FILE, true, true, 0);
	TABLE_IS(t, AHEAD, "-f -o (-i ignored): first appearance",
		 "        1       0.00       0.00  main",
		 "        5    1234.57    1000.00  f",
		 "       10       2.00       2.00  g",
		 "        7    3000.00    3000.00  0x500000");
	TABLE_IS(t, KHEAD, "-f -o kernel",
		 "        7       7.00       7.00  main",
		 "        7       7.00       7.00  zeta",
		 "        6       6.00       6.00  delta",
		 "        6       6.00       6.00  alpha");
	free(t);
}

static void test_lines_and_bad(void)
{
	char *t = print_opts(&ref, CPROFREPORT_SORT_TIME, false, false, 2);

	TABLE_IS(t, AHEAD, "-n 2: two lines per table (app)",
		 "        7    3000.00    3000.00  main 0x500000",
		 "        3    1234.57    1000.00  main f");
	TABLE_IS(t, KHEAD, "-n 2: two lines per table (kernel)",
		 "        7       7.00       7.00  main",
		 "        7       7.00       7.00  main zeta");
	free(t);

	t = print_opts(&ref, CPROFREPORT_SORT_ALPHA, false, false, 0);
	HAS(t, "broken (task 9, (no path)): 1 part, 1 call path");
	HAS(t, "warning: broken (task 9): 5 call paths left out: "
	    "their caller's path is missing or bad");
	HAS(t, "warning: broken (task 9): no binary path: addresses in hex");
	TABLE_IS(t, "broken (task 9", "broken: only the good slot",
		 "        1       0.00       0.00  0x700000");
	ok(!strstr(t, "warning: app (task 5): no symbols"), "app: symbols found");
	ok(strncmp(t, "\n", 1) == 0, "tables start with a blank line");
	free(t);

	pt_nfiles = 0;             /* no symbol files at all */
	t = print_opts(&ref, CPROFREPORT_SORT_ALPHA, false, true, 0);
	HAS(t, "warning: kernel (task 0): no symbols for /boot/kernel: addresses in hex");
	HAS(t, "        7       7.00       7.00  0xffffffff80101000 0xffffffff80101100");
	free(t);
	files_default();
}

static void test_notes(void)
{
	pt_out_len = 0;
	pt_out_text(NULL, "", 0);
	cprofreport_notes(&pt_env);
	ok(strncmp(pt_out, "Notes:\n", 7) == 0, "notes start with Notes:");
	ok(strstr(pt_out, "\"wall ms\" includes time spent blocking") != NULL, "notes: wall ms");
	ok(strstr(pt_out, "main functions show 0 ms") != NULL, "notes: main shows 0");
	ok(strstr(pt_out, "TSC frequency recorded in the file") != NULL, "notes: ms from TSC");
}

/* Replace the 8 bytes at off with v. */
static void poke64(pt_sb_t *b, size_t off, uint64_t v)
{
	memcpy(b->buf + off, &v, 8);
}

static void poke32(pt_sb_t *b, size_t off, uint32_t v)
{
	memcpy(b->buf + off, &v, 4);
}

static errno_t parse_only(const pt_sb_t *b, char *why, size_t n)
{
	cprofreport_t *pc;
	errno_t err = cprofreport_parse(&pt_env, b->buf, b->len, &pc, why, n);

	cprofreport_free(pc);
	return err;
}

static void test_checks(void)
{
	pt_sb_t b = { 0 };
	char why[128];
	const size_t part0 = sizeof(cprof_file_hdr_t) + sizeof(cprof_table_hdr_t);

	is_int(parse_only(&ref, why, sizeof(why)), EOK, "the reference file parses");
	is_str(why, "", "no reason");
	sb_file(&b, 0);
	is_int(parse_only(&b, why, sizeof(why)), EOK, "no tables: EOK");

#define CHECK(desc, fix, text) do { \
	pt_sb_put(&b, ref.buf, 0); b.len = 0; pt_sb_put(&b, ref.buf, ref.len); fix; \
	is_int(parse_only(&b, why, sizeof(why)), EINVAL, desc); \
	ok(strstr(why, text) != NULL, "%s: says \"%s\" (%s)", desc, text, why); \
} while (0)
	CHECK("bad magic", b.buf[0] = 'X', "bad magic");
	CHECK("bad version", poke32(&b, 8, 2), "version 2");
	CHECK("tsc_hz 0", poke64(&b, 16, 0), "TSC frequency");
	CHECK("tsc_hz huge", poke64(&b, 16, CPROFREPORT_HZ_MAX + 1), "TSC frequency");
	CHECK("too many tables", poke32(&b, 12, 1000000), "tables do not fit");
	CHECK("too many parts", poke32(&b, sizeof(cprof_file_hdr_t) + 8, 70000), "parts");
	CHECK("bad part magic", poke32(&b, part0, 0), "bad magic");
	CHECK("part id out of range", poke32(&b, part0 + 4, 1u << 12), "out of range");
	CHECK("used > nslots", poke32(&b, part0 + 12, 65), "slots used of");
	CHECK("used beyond the file", (poke32(&b, part0 + 8, 1u << 20),
				       poke32(&b, part0 + 12, 1u << 20)), "truncated slots");
	CHECK("duplicate part ids", poke32(&b, part0 + sizeof(cprof_part_hdr_t) +
					   kparts[0]->h.used * sizeof(cprof_slot_t) + 4, 0),
	      "two parts with id 0");
	CHECK("trailing bytes", pt_sb_put(&b, "x", 1), "after the last table");
	CHECK("too short", b.len = 10, "too short");
#undef CHECK

	int bad = 0, crashed_free = 1;
	for (size_t len = 0; len < ref.len; len++) {
		cprofreport_t *pc;
		errno_t err = cprofreport_parse(&pt_env, ref.buf, len, &pc, why, sizeof(why));
		bad += err == EINVAL && why[0] != '\0';
		crashed_free &= pc == NULL;
	}
	is_int(bad, (int)ref.len, "every truncation (%zu lengths) is EINVAL with a reason",
	       ref.len);
	ok(crashed_free, "no report on a truncated file");
	is_int(pt_live_allocs, 0, "truncations: every allocation released");
	free(b.buf);
}

/* A chain 100000 calls deep and 100000 callees of one function: fast, right. */
static void test_big(void)
{
	enum { N = 100000 };
	uint32_t *parents = malloc(N * sizeof(uint32_t));
	pt_sb_t b = { 0 };

	for (uint32_t i = 0; i < N; i++)
		parents[i] = i ? i - 1 : CPROF_ROOT;
	sb_file(&b, 2);
	sb_table(&b, 11, 1, "deep", "");
	sb_raw_part(&b, 0, parents, N);
	for (uint32_t i = 0; i < N; i++)
		parents[i] = i ? 0 : CPROF_ROOT;
	sb_table(&b, 12, 1, "wide", "");
	sb_raw_part(&b, 1, parents, N);
	for (uint32_t i = 0; i < N; i++)   /* wide's parents are in part 1 */
		memcpy(b.buf + b.len - (size_t)(N - i) * sizeof(cprof_slot_t) + 8,
		       &(uint32_t){ i ? 1u << CPROF_ID_SHIFT : CPROF_ROOT }, 4);
	char *t = print_opts(&b, CPROFREPORT_SORT_ALPHA, false, false, 3);
	HAS(t, "deep (task 11, (no path)): 1 part, 100000 call paths");
	TABLE_IS(t, "deep (task 11", "deep: the tree's first 3 levels",
		 "        1       0.00       0.00  0x700000",
		 "        2       0.00       0.00    0x700010",
		 "        3       0.00       0.00      0x700020");
	HAS(t, "wide (task 12, (no path)): 1 part, 100000 call paths");
	TABLE_IS(t, "wide (task 12", "wide: callees sorted by name (hex, as text)",
		 "        1       0.00       0.00  0x700000",
		 "        2       0.00       0.00    0x700010",
		 "        3       0.00       0.00    0x700020");
	free(t);
	t = print_opts(&b, CPROFREPORT_SORT_CALLS, false, false, 1);
	HAS(t, "   100000       0.00       0.00  0x700000 0x8869f0");
	ok(strlen(t) > 9 * (size_t)N, "-c: deep's top path printed in full (%zu bytes)",
	   strlen(t));
	free(t);
	free(parents);
	free(b.buf);
}

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint64_t rng(void)
{
	return rng_next(&rng_state);
}

/* Where the reference file's headers are, and its slots' parent fields. */
static size_t hdr_at[16], hdr_len[16], nhdr, parent_at[256], nparent;

static void fuzz_targets(void)
{
	cprof_file_hdr_t f;
	size_t off = sizeof(f);

	memcpy(&f, ref.buf, sizeof(f));
	hdr_at[nhdr] = 0;
	hdr_len[nhdr++] = sizeof(f);
	for (uint32_t t = 0; t < f.ntables; t++) {
		cprof_table_hdr_t th;
		memcpy(&th, ref.buf + off, sizeof(th));
		hdr_at[nhdr] = off;
		hdr_len[nhdr++] = sizeof(th);
		off += sizeof(th);
		for (uint32_t p = 0; p < th.nparts; p++) {
			cprof_part_hdr_t ph;
			memcpy(&ph, ref.buf + off, sizeof(ph));
			hdr_at[nhdr] = off;
			hdr_len[nhdr++] = sizeof(ph);
			off += sizeof(ph);
			for (uint32_t i = 0; i < ph.used; i++, off += sizeof(cprof_slot_t))
				parent_at[nparent++] = off + 8;
		}
	}
}

/* A byte to damage: anywhere, in a parent field or (half the time) a header. */
static size_t fuzz_at(void)
{
	switch (rng() % 4) {
	case 0:
		return rng() % ref.len;
	case 1:
		return parent_at[rng() % nparent] + rng() % 4;
	default: {
		size_t h = rng() % nhdr;
		return hdr_at[h] + rng() % hdr_len[h];
	}
	}
}

/* Does text warn of bad parents in a table other than "broken"? */
static bool other_bad(const char *text)
{
	for (const char *p = text; (p = strstr(p, "path is missing or bad")) != NULL; p++) {
		const char *line = p;
		while (line > text && line[-1] != '\n')
			line--;
		if (strncmp(line, "warning: broken (task 9)", 24) != 0)
			return true;
	}
	return false;
}

/* Flip bytes of the reference file; whatever parses must also print. */
static void test_fuzz(void)
{
	pt_sb_t b = { 0 };
	int parsed = 0, rejected = 0, printed = 0, more_bad = 0;
	char why[128];

	fuzz_targets();
	ok(nhdr == 8 && nparent > 10, "fuzz targets: %zu headers, %zu parent fields", nhdr,
	   nparent);
	for (int i = 0; i < 3000; i++) {
		b.len = 0;
		pt_sb_put(&b, ref.buf, ref.len);
		for (uint64_t k = 1 + rng() % 3; k > 0; k--) {
			size_t at = fuzz_at();
			b.buf[at] = rng() % 3 ? (unsigned char)rng() : b.buf[at] ^ 0x80;
		}
		cprofreport_t *pc;
		errno_t err = cprofreport_parse(&pt_env, b.buf, b.len, &pc, why, sizeof(why));
		if (err != EOK) {
			rejected += err == EINVAL;
			continue;
		}
		parsed++;
		for (unsigned s = 0; s < 4; s++) {
			cprofreport_opts_t o = { s, i & 1, i & 2, i % 5 };
			pt_out_len = 0;
			printed += cprofreport_print(pc, &o) == EOK;
			more_bad += s == 0 && other_bad(pt_out);
		}
		cprofreport_free(pc);
	}
	ok(more_bad > 0, "damaged parents in the good tables left out (%d files)", more_bad);
	ok(parsed > 0 && rejected > 0, "flipped bytes: %d parsed, %d rejected", parsed,
	   rejected);
	is_int(printed, parsed * 4, "every parsed one printed with each sort");
	is_int(parsed + rejected, 3000, "every one parsed or EINVAL");
	is_int(pt_live_allocs, 0, "fuzzing: every allocation released");
	free(b.buf);
}

static void null_write(void *ctx, const void *data, size_t len)
{
	(void)ctx, (void)data, (void)len;
}

static void test_enomem(void)
{
	cprofreport_opts_t o = { CPROFREPORT_SORT_ALPHA, false, false, 0 };
	int failures = 0;
	bool done = false;

	for (long budget = 0; budget < 200 && !done; budget++) {
		cprofreport_t *pc;
		pt_alloc_budget = budget;
		errno_t err = cprofreport_parse(&pt_env, ref.buf, ref.len, &pc, NULL, 0);
		if (err == EOK) {
			err = cprofreport_print(pc, &o);
			cprofreport_free(pc);
			done = err == EOK;
		}
		failures += err == ENOMEM;
		pt_alloc_budget = -1;
		if (pt_live_allocs != 0)
			break;
	}
	ok(done, "enough memory: the report is printed");
	ok(failures > 5, "ENOMEM reported (%d times)", failures);
	is_int(pt_live_allocs, 0, "ENOMEM: every allocation released");
	static const unsigned fmts[] = { PROF_FMT_CALLGRIND, PROF_FMT_FOLDED, PROF_FMT_PPROF };
	for (unsigned fi = 0; fi < sizeof(fmts) / sizeof(fmts[0]); fi++) {
		unsigned fmt = fmts[fi];
		int export_failures = 0, other = 0;
		done = false;
		for (long budget = 0; budget < 200 && !done && pt_live_allocs == 0; budget++) {
			cprofreport_t *pc;
			if (cprofreport_parse(&pt_env, ref.buf, ref.len, &pc, NULL, 0) != EOK)
				break;
			pt_alloc_budget = budget;
			errno_t err = fmt == PROF_FMT_PPROF ? cprofreport_pprof(pc, null_write, NULL) :
				      cprofreport_export(pc, fmt);
			pt_alloc_budget = -1;
			cprofreport_free(pc);
			done = err == EOK;
			export_failures += err == ENOMEM;
			other += err != EOK && err != ENOMEM;
		}
		ok(done && export_failures > 0 && other == 0 && pt_live_allocs == 0,
		   "export %u: ENOMEM %d times, then done, every allocation released", fmt,
		   export_failures);
	}
	is_int(cprofreport_export(NULL, 9), EINVAL, "export: an unknown format is EINVAL");
}

/* ---------------------------------------------------------------- the tool */

/*
 * Without -r, cprofalyze finds the root next to its own binary (a copy in
 * B/host/ reads B/initrd-root, a link to dir), run from /; with a root
 * lacking the binaries it prints the reports, warns naming them and exits 3.
 */
static void test_tool_root(const char *build, const char *dir, char *text, size_t size)
{
	char b[] = "/tmp/cprofalyze-build.XXXXXX", cmd[1400];

	tool_stage(b, "cprofalyze", build, dir);
	snprintf(cmd, sizeof(cmd), "cd / && %s/host/cprofalyze %s/call.out 2>&1", b, dir);
	is_int(tool_run(cmd, text, size), 0, "without -r, run from /: exits 0");
	HAS(text, "        5       5.00       5.00    alpha");
	snprintf(cmd, sizeof(cmd), "%s/host/cprofalyze -r %s/nothing %s/call.out 2>&1 >/dev/null",
		 b, b, dir);
	is_int(tool_run(cmd, text, size), 3, "binaries not found: exit 3");
	ok(strstr(text, "warning: 2 binaries") && strstr(text, " /bin/app") &&
	   strstr(text, " /boot/kernel") && strstr(text, "/nothing"),
	   "the warning names them and the root: %.*s", (int)strcspn(text, "\n"), text);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", b);
	if (system(cmd) != 0)
		diag("could not remove %s", b);
}

static bool has_flat_text(const char *text, const char *flat, const char *name);

/* Does pprof -top's text have a row "FLAT ... NAME" (flat count exact)? */
static bool has_flat(const char *text, const char *name, unsigned long flat)
{
	char want[128];

	snprintf(want, sizeof(want), "%lu", flat);
	return has_flat_text(text, want, name);
}

static bool has_flat_text(const char *text, const char *flat, const char *name)
{
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		char first[64], rest[256];
		size_t len = strcspn(l, "\n");
		if (len >= sizeof(rest) || sscanf(l, "%63s", first) != 1)
			continue;
		memcpy(rest, l, len);
		rest[len] = '\0';
		size_t nl = strlen(name), rl = strlen(rest);
		if (!strcmp(first, flat) && rl > nl + 2 && !strcmp(rest + rl - nl, name) &&
		    rest[rl - nl - 1] == ' ' && rest[rl - nl - 2] == ' ')
			return true;
	}
	return false;
}

/*
 * cprofalyze -F callgrind: fn= per function with self wall and on-CPU
 * cycles, cfn= per callee path with the exact calls and its inclusive
 * cycles; callgrind_annotate reads it (self and --inclusive=yes).
 * -F folded: a line per path with self time.
 */
/*
 * Every -F format on bad input: a file cut in half (bad.out), an empty
 * file, a missing one: exit 1 and a message naming it, nothing on stdout;
 * binaries not found: exit 3, a warning, the export still written.
 */
static void test_tool_export_bad(const char *build, const char *dir, char *text, size_t size)
{
	static const char *const fmts[] = { "callgrind", "folded", "pprof" };
	static const struct { const char *file, *msg; } bad[] = {
		{ "bad.out", "bad.out: not a call profile or damaged: " },
		{ "empty.out", "empty.out: not a call profile or damaged: too short (0 bytes)" },
		{ "none.out", "none.out: cannot read" },
	};
	char cmd[1400];

	snprintf(cmd, sizeof(cmd), ": > %s/empty.out", dir);
	if (system(cmd) != 0)
		abort();
	for (size_t f = 0; f < sizeof(fmts) / sizeof(fmts[0]); f++) {
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			snprintf(cmd, sizeof(cmd), "%s/host/cprofalyze -F %s -r %s %s/%s 2>&1 "
				 ">%s/x.out; echo rc=$?; wc -c < %s/x.out", build, fmts[f], dir, dir,
				 bad[i].file, dir, dir);
			tool_run(cmd, text, size);
			ok(strstr(text, bad[i].msg) && strstr(text, "rc=1\n0\n"),
			   "cprofalyze -F %s %s: '%s', exit 1, no output", fmts[f], bad[i].file,
			   bad[i].msg);
		}
		snprintf(cmd, sizeof(cmd), "%s/host/cprofalyze -F %s -r %s/nothing %s/call.out 2>&1 "
			 ">%s/x.out; echo rc=$?; test -s %s/x.out && echo written", build, fmts[f],
			 dir, dir, dir, dir);
		tool_run(cmd, text, size);
		ok(strstr(text, "warning") && strstr(text, "/bin/app") && strstr(text, "rc=3\n") &&
		   strstr(text, "written"), "cprofalyze -F %s, binaries not found: a warning, "
		   "exit 3, the export written", fmts[f]);
	}
}

static void test_tool_export(const char *build, const char *dir, char *text, size_t size)
{
	char cmd[1400];

	snprintf(cmd, sizeof(cmd), "%s/host/cprofalyze -F callgrind -r %s %s/call.out > "
		 "%s/cg.out && cat %s/cg.out", build, dir, dir, dir, dir);
	is_int(tool_run(cmd, text, size), 0, "cprofalyze -F callgrind exits 0");
	ok(strncmp(text, "# callgrind format\nversion: 1\ncreator: cprofalyze\n", 50) == 0 &&
	   strstr(text, "\nevents: Wall Cpu\n"), "callgrind: header, events Wall Cpu");
	ok(strstr(text, "\nob=/boot/kernel\nfl=???\nfn=main [k]\n0 7000 7000\ncfn=zeta [k]\n"
		  "calls=7 0\n0 14000 14000\ncfn=alpha [k]\ncalls=5 0\n0 5000 5000\n") != NULL,
	   "callgrind: the kernel's main: self, calls to zeta and alpha, inclusive costs");
	ok(strstr(text, "\nfn=zeta [k]\n0 7000 7000\ncfn=delta [k]\ncalls=6 0\n0 6000 6000\n"
		  "cfn=alpha [k]\ncalls=1 0\n0 1000 1000\n") != NULL,
	   "callgrind: zeta's calls to delta and alpha");
	snprintf(cmd, sizeof(cmd), "callgrind_annotate --inclusive=yes %s/cg.out 2>&1", dir);
	is_int(tool_run(cmd, text, size), 0, "callgrind_annotate --inclusive=yes reads it");
	ok(strstr(text, "26,000 ( 0.61%)    26,000 ( 0.65%)  ???:main [k] [/boot/kernel]") &&
	   strstr(text, "4,236,572 (99.39%) 4,002,004 (99.35%)  ???:main [/bin/app]"),
	   "... inclusive: the kernel's main 26 bodies, the app's main all its time");
	snprintf(cmd, sizeof(cmd), "callgrind_annotate %s/cg.out 2>&1", dir);
	tool_run(cmd, text, size);
	HAS(text, "1,234,572 (28.96%) 1,000,004 (24.83%)  ???:f [/bin/app]");
	snprintf(cmd, sizeof(cmd), "%s/host/cprofalyze -F folded -r %s %s/call.out", build, dir,
		 dir);
	is_int(tool_run(cmd, text, size), 0, "cprofalyze -F folded exits 0");
	HAS(text, "kernel-0;main_[k];zeta_[k];delta_[k] 6000");
	HAS(text, "app-5;main;f;f 5");
	HAS(text, "app-5;main;0x500000 3000000");
	snprintf(cmd, sizeof(cmd), "%s/host/cprofalyze -F folded -r %s %s/call.out | perl "
		 "/usr/share/perl5/Devel/NYTProf/flamegraph.pl 2>&1", build, dir, dir);
	is_int(tool_run(cmd, text, size), 0, "flamegraph.pl reads cprofalyze -F folded");
	ok(strstr(text, "<title>main_[k] (26,000 samples, ") &&
	   strstr(text, "<title>f (1,234,572 samples, "),
	   "... the kernel's main 26 bodies inclusive, f its self and recursion");
	snprintf(cmd, sizeof(cmd), "%s/host/cprofalyze -F pprof -r %s %s/call.out > %s/cp.pb.gz && "
		 "HOME=%s go tool pprof -top -sample_index=calls -nodefraction=0 %s/cp.pb.gz 2>&1",
		 build, dir, dir, dir, dir, dir);
	is_int(tool_run(cmd, text, size), 0, "go tool pprof -top reads cprofalyze -F pprof");
	ok(strstr(text, "Type: calls") && has_flat(text, "zeta [k]", 7) &&
	   has_flat(text, "alpha [k]", 6) && has_flat(text, "delta [k]", 6) &&
	   has_flat(text, "f", 5) && has_flat(text, "g", 10) && has_flat(text, "0x500000", 7),
	   "... the exact calls per function (alpha [k] 5 + 1, f 3 + 2)");
	snprintf(cmd, sizeof(cmd), "HOME=%s go tool pprof -top -sample_index=wall -nodefraction=0 "
		 "%s/cp.pb.gz 2>&1", dir, dir);
	tool_run(cmd, text, size);
	ok(strstr(text, "Type: wall") && strstr(text, "100% of 4262.57ms total") &&
	   has_flat_text(text, "3000ms", "0x500000") && has_flat_text(text, "1234.57ms", "f"),
	   "... self wall time in ns from the TSC rate: 4262.57 ms, 3000 in 0x500000");
	snprintf(cmd, sizeof(cmd), "%s/host/cprofalyze -F pdf %s/call.out 2>&1", build, dir);
	is_int(tool_run(cmd, text, size), 2, "-F with an unknown format: exit 2");
	test_tool_export_bad(build, dir, text, size);
}

static void test_tool(void)
{
	const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
	char dir[] = "/tmp/cprofalyze-test.XXXXXX", cmd[1024], path[600];
	static char text[1 << 16];

	tool_root(dir, app_nm, kernel_nm);
	snprintf(path, sizeof(path), "%s/call.out", dir);
	tool_write(path, ref.buf, ref.len);
	snprintf(path, sizeof(path), "%s/bad.out", dir);
	tool_write(path, ref.buf, ref.len / 2);

	snprintf(cmd, sizeof(cmd), "%s/host/cprofalyze -r %s %s/call.out 2>&1", build, dir, dir);
	is_int(tool_run(cmd, text, sizeof(text)), 0, "cprofalyze FILE exits 0");
	ok(strncmp(text, "Notes:\n", 7) == 0, "it starts with the notes");
	HAS(text, KHEAD ": 2 parts, 5 call paths");
	HAS(text, "        5       5.00       5.00    alpha");
	HAS(text, "        2       0.01       0.00      f");
	note_text("cprofalyze output:", text);
	test_tool_export(build, dir, text, sizeof(text));

	snprintf(cmd, sizeof(cmd), "%s/host/cprofalyze -f -t -n 1 -r %s/ %s/call.out 2>&1",
		 build, dir, dir);
	is_int(tool_run(cmd, text, sizeof(text)), 0, "cprofalyze -f -t -n 1 exits 0");
	HAS(text, "        7    3000.00    3000.00  0x500000");
	HAS(text, "        7       7.00       7.00  main");
	ok(strstr(text, "  zeta\n") == NULL, "-n 1: zeta (as much time as main) not printed");
	ok(strstr(text, "  f\n") == NULL, "-n 1: f not printed");

	snprintf(cmd, sizeof(cmd), "%s/host/cprofalyze -r %s %s/bad.out 2>&1 >/dev/null",
		 build, dir, dir);
	is_int(tool_run(cmd, text, sizeof(text)), 1, "a damaged file exits 1");
	ok(strstr(text, "bad.out: not a call profile or damaged: ") != NULL,
	   "the message names the file: %.*s", (int)strcspn(text, "\n"), text);
	snprintf(cmd, sizeof(cmd), "%s/host/cprofalyze %s/none.out 2>&1 >/dev/null", build, dir);
	is_int(tool_run(cmd, text, sizeof(text)), 1, "a missing file exits 1");
	ok(strstr(text, "none.out: cannot read") != NULL, "and says so");
	snprintf(cmd, sizeof(cmd), "%s/host/cprofalyze -r %s %s/bad.out %s/call.out 2>/dev/null",
		 build, dir, dir, dir);
	is_int(tool_run(cmd, text, sizeof(text)), 1, "a damaged file among good ones exits 1");
	ok(strstr(text, "call.out:\n") != NULL && strstr(text, KHEAD) != NULL,
	   "the good one is still printed, named");

	snprintf(path, sizeof(path), "%s/call.out", dir);
	tool_usage_checks(build, "cprofalyze", "usage: cprofalyze", path, text, sizeof(text));
	snprintf(cmd, sizeof(cmd), "%s/host/cprofalyze -n abc %s/call.out 2>/dev/null", build, dir);
	is_int(tool_run(cmd, text, sizeof(text)), 2, "-n abc exits 2");
	snprintf(cmd, sizeof(cmd), "%s/host/cprofalyze -n 0 %s/call.out 2>/dev/null", build, dir);
	is_int(tool_run(cmd, text, sizeof(text)), 2, "-n 0 exits 2");
	test_tool_root(build, dir, text, sizeof(text));

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		diag("could not remove %s", dir);
}

int main(void)
{
	files_default();
	build_ref(&ref);
	test_kernel_table();
	test_app_table();
	test_functions();
	test_lines_and_bad();
	test_notes();
	test_checks();
	test_big();
	test_fuzz();
	test_enomem();
	test_tool();
	free(ref.buf);
	free(pt_out);
	free(kparts[0]);
	free(kparts[1]);
	free(kstk);
	return done_testing();
}
