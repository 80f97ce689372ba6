/*
 * Unit tests for lib/prof/profreport.c and lib/prof/profsym.c: synthetic profiler
 * streams built in memory (HEADER, TASK, LOAD, samples in known
 * proportions, LOST, THROTTLE, END) against nm-format symbol files served
 * by a fake loader (and this binary's own ELF .symtab), checking the
 * summary, the per-task and per-function rows and their percentages, the
 * threshold, kernel/user/idle attribution, split feeding, unknown
 * records, malformed streams (EINVAL), versions (1 and 2 read, others
 * ENOTSUP), the task style, the caller tree, leaf callers from the stack
 * top words (lib/prof/profleaf.c, on a synthetic ELF of x86 code),
 * memory balance, and fuzzing with random and truncated data. Last, the
 * host tool build/host/vprof on a stream file: its output and exit codes.
 */
#include "hosttool.h"
#include "prof_testutil.h"
#include "rng.h"
#include "tap.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lib/elf.h>
#include <lib/profleaf.h>
#include <lib/profreport.h>
#include <lib/profsym.h>

/* ---------------------------------------------------------------- stream builder */

static uint32_t sb_more_flags;   /* header flags besides PROF_F_CALLCHAIN */

static void sb_header(pt_sb_t *b, uint64_t magic, uint32_t version)
{
	prof_rec_header_t h;

	memset(&h, 0, sizeof(h));
	pt_sb_hdr(&h.h, PROF_REC_HEADER, sizeof(h), 0);
	h.magic = magic;
	h.version = version;
	pt_sb_version = version;
	h.source = PROF_SRC_RTC_NMI;
	h.hz = 1024;
	h.ncpus = 4;
	h.flags = PROF_F_CALLCHAIN | sb_more_flags;
	h.depth = 64;
	h.tsc_hz = 1000000000;
	strcpy(h.kernel, "vernier test");
	pt_sb_put(b, &h, sizeof(h));
}

static uint64_t load_hash;     /* hash put in LOAD records */

static void sb_load(pt_sb_t *b, uint64_t task, const char *path)
{
	pt_sb_load(b, task, path, load_hash);
}

/* count samples of one kind; chain: nchain return addresses. */
static void sb_samples(pt_sb_t *b, unsigned count, uint64_t task, unsigned mode,
		       uint64_t pc, unsigned nkernel, unsigned nchain, ...)
{
	prof_rec_sample_t s;
	uint64_t chain[16];
	va_list ap;

	va_start(ap, nchain);
	for (unsigned i = 0; i < nchain; i++)
		chain[i] = va_arg(ap, uint64_t);
	va_end(ap);
	memset(&s, 0, sizeof(s));
	s.task = task;
	s.thread = task * 10;
	s.pc = pc;
	s.mode = (uint8_t)mode;
	s.nchain = (uint16_t)nchain;
	s.nkernel = (uint16_t)nkernel;
	pt_sb_samples(b, count, &s, chain, 2);
}

static void sb_lost(pt_sb_t *b, uint64_t count)
{
	prof_rec_lost_t l;

	memset(&l, 0, sizeof(l));
	pt_sb_hdr(&l.h, PROF_REC_LOST, sizeof(l), 3);
	l.count = count;
	pt_sb_put(b, &l, sizeof(l));
}

static void sb_throttle(pt_sb_t *b, uint32_t cpu, uint64_t skipped)
{
	prof_rec_throttle_t t;

	memset(&t, 0, sizeof(t));
	pt_sb_hdr(&t.h, PROF_REC_THROTTLE, sizeof(t), 3);
	t.h.cpu = cpu;
	t.divisor = 2;
	t.skipped = skipped;
	pt_sb_put(b, &t, sizeof(t));
}

static void sb_end(pt_sb_t *b, uint64_t tsc, uint64_t lost, uint64_t throttled)
{
	prof_rec_end_t e;

	memset(&e, 0, sizeof(e));
	pt_sb_hdr(&e.h, PROF_REC_END, sizeof(e), tsc);
	e.lost = lost;
	e.throttled = throttled;
	e.reason = PROF_END_REQUEST;
	pt_sb_put(b, &e, sizeof(e));
}

static void sb_unknown(pt_sb_t *b)
{
	unsigned char rec[40];

	memset(rec, 0xab, sizeof(rec));
	pt_sb_hdr((prof_rec_t *)rec, 99, sizeof(rec), 3);
	pt_sb_put(b, rec, sizeof(rec));
}

/* ---------------------------------------------------------------- fake env */

static const char app_nm[] =
	"0000000000401000 T main\n"
	"0000000000401100 T compute\n"
	"0000000000401200 t helper\n"
	"0000000000401300 0000000000000010 T leaf\n"
	"0000000000403000 D data_object\n"
	"garbage line\n"
	"0000000000401400 U undefined_thing\n";
static const char kernel_nm[] =
	"ffffffff80100000 T kmain\n"
	"ffffffff80100100 T syscall_entry\n"
	"ffffffff80100200 W memcpy";

#define K(x) (0xffffffff80100000ull + (x))

/*
 * The reference stream: task 5 "app" (84 % user, 10 kernel), task 7
 * (3 samples), 6 idle; 100 samples; lost 3 + 2 (LOST records; END's 5 is
 * the session's total, as the kernel writes it), throttled 7, 10 s.
 */
static void build_ref(pt_sb_t *b, bool unknown)
{
	b->len = 0;
	sb_header(b, PROF_MAGIC, PROF_VERSION);
	pt_sb_task(b, 0, "");
	pt_sb_task(b, 5, "app");
	pt_sb_task(b, 7, "app");
	sb_load(b, 5, "/bin/app");
	sb_load(b, 7, "/bin/app");
	if (unknown)
		sb_unknown(b);
	sb_samples(b, 40, 5, PROF_MODE_USER, 0x401110, 0, 1, 0x401020ull);
	sb_samples(b, 20, 5, PROF_MODE_USER, 0x401204, 0, 2, 0x401130ull, 0x401020ull);
	sb_samples(b, 20, 5, PROF_MODE_USER, 0x401300, 0, 1, 0x401040ull);
	sb_samples(b, 10, 5, PROF_MODE_KERNEL, K(0x208), 1, 2, K(0x110), 0x401150ull);
	sb_samples(b, 6, 0, PROF_MODE_IDLE, K(4), 0, 0);
	sb_lost(b, 3);
	if (unknown)
		sb_unknown(b);
	sb_samples(b, 3, 7, PROF_MODE_USER, 0x401008, 0, 0);
	sb_samples(b, 1, 5, PROF_MODE_USER, 0x500000, 0, 0);
	sb_throttle(b, 1, 7);
	sb_lost(b, 2);
	sb_end(b, 10000000000ull, 5, 7);
}

static void files_default(void)
{
	pt_nfiles = 0;
	pt_add_file("/bin/app.nm", app_nm, sizeof(app_nm) - 1);
	pt_add_file("/boot/kernel.nm", kernel_nm, sizeof(kernel_nm) - 1);
}

/* Feed data in pieces of step bytes (0: one piece) and print; the output. */
static char *report(const void *data, size_t len, size_t step,
		    const prof_report_opts_t *o, errno_t *feed_err)
{
	return pt_report(data, len, step, false, o, feed_err, NULL, 0);
}

static bool starts(const char *text, const char *prefix)
{
	return strncmp(text, prefix, strlen(prefix)) == 0;
}

#define HAS(text, line) ok(pt_has_line(text, line), "line: %s", line)
#define LACKS(text, s) ok(strstr(text, s) == NULL, "no: %s", s)

static const prof_report_opts_t sys_opts = { PROF_STYLE_SYSTEM, 50, false, NULL, false, 0 };

/* ---------------------------------------------------------------- tests */

static pt_sb_t sb, sb2;

static void test_system(void)
{
	build_ref(&sb, false);
	files_default();
	char *t = report(sb.buf, sb.len, 0, &sys_opts, NULL);

	note_text("system report:", t);
	ok(starts(t, "samples: 100 total, 84 user, 10 kernel, 6 idle, 5 lost\n"),
	   "first line is the summary");
	HAS(t, "throttled: 7");
	HAS(t, "source: rtc-nmi at 1024 Hz on 4 CPUs, 10.0 s");
	HAS(t, "      %  samples           ns  task");
	HAS(t, " 91.00%       91     88867142  5 app");
	HAS(t, "  6.00%        6      5859372  [idle]");
	HAS(t, "  3.00%        3      2929686  7 app");
	HAS(t, "      %  samples           ns  task                 symbol");
	HAS(t, " 40.00%       40     39062480  5 app                compute");
	HAS(t, " 20.00%       20     19531240  5 app                helper");
	HAS(t, " 20.00%       20     19531240  5 app                leaf");
	HAS(t, " 10.00%       10      9765620  5 app                memcpy [k]");
	HAS(t, "  6.00%        6      5859372  [idle]               kmain [k]");
	HAS(t, "  3.00%        3      2929686  7 app                main");
	HAS(t, "  1.00%        1       976562  5 app                0x500000");
	LACKS(t, "hidden");
	LACKS(t, "callers");
	LACKS(t, "translation-block");
	/* Sorted: compute before helper before memcpy before main. */
	ok(strstr(t, "compute") < strstr(t, "helper") &&
	   strstr(t, "helper") < strstr(t, "memcpy") &&
	   strstr(t, "memcpy") < strstr(t, "  main"), "rows sorted by samples");
	free(t);
}

/*
 * Task labels without TASK records (the program's name; "kernel" for task
 * 0); a re-loaded task symbolizes each sample by the LOAD before it.
 */
/*
 * A session without the profile permission gets kernel samples with pc 0
 * and no kernel chain: they are one "[kernel]" entry.
 */
static void test_redacted_kernel(void)
{
	pt_sb_t *b = &sb2;

	b->len = 0;
	sb_header(b, PROF_MAGIC, PROF_VERSION);
	sb_load(b, 8, "/bin/app");
	sb_samples(b, 3, 8, PROF_MODE_USER, 0x401008, 0, 0);
	sb_samples(b, 1, 8, PROF_MODE_KERNEL, 0, 0, 0);
	char *t = report(b->buf, b->len, 0, &sys_opts, NULL);
	note_text("redacted:", t);
	HAS(t, " 25.00%        1       976562  8 app                [kernel] [k]");
	free(t);
}

static void test_labels(void)
{
	pt_sb_t *b = &sb2;

	b->len = 0;
	sb_header(b, PROF_MAGIC, PROF_VERSION);
	sb_load(b, 8, "/bin/nameless");
	sb_samples(b, 2, 8, PROF_MODE_USER, 0x401008, 0, 0);
	sb_samples(b, 1, 0, PROF_MODE_KERNEL, K(0x204), 0, 0);
	sb_load(b, 10, "/bin/tool");
	sb_samples(b, 1, 10, PROF_MODE_USER, 0x401008, 0, 0);
	sb_load(b, 8, "/bin/app");
	sb_samples(b, 4, 8, PROF_MODE_USER, 0x401008, 0, 0);
	prof_rec_exit_t e = { { PROF_REC_EXIT, sizeof(e), 0, 9 }, 8, 0 };
	/* Task 8 exited; its samples still symbolize (by the last LOAD). */
	pt_sb_put(b, &e, sizeof(e));
	char *t = report(b->buf, b->len, 0, &sys_opts, NULL);
	note_text("labels:", t);
	HAS(t, " 75.00%        6      5859372  8 app");
	HAS(t, " 12.50%        1       976562  0 kernel");
	HAS(t, " 12.50%        1       976562  10 tool");
	HAS(t, " 50.00%        4      3906248  8 app                main");
	HAS(t, " 25.00%        2      1953124  8 app                0x401008");
	HAS(t, " 12.50%        1       976562  0 kernel             memcpy [k]");
	HAS(t, " 12.50%        1       976562  10 tool              0x401008");
	free(t);
}

static void test_threshold(void)
{
	prof_report_opts_t o = sys_opts;

	o.threshold_centi = 500;
	char *t = report(sb.buf, sb.len, 0, &o, NULL);
	HAS(t, "  6.00%        6      5859372  [idle]               kmain [k]");
	LACKS(t, "7 app                main");
	LACKS(t, "0x500000");
	HAS(t, "(2 rows below 5.00% hidden)");
	HAS(t, "(1 row below 5.00% hidden)");       /* the task table: 7 app */
	free(t);
	o.threshold_centi = 0;
	t = report(sb.buf, sb.len, 0, &o, NULL);
	LACKS(t, "hidden");
	free(t);
}

static void test_split(void)
{
	char *whole = report(sb.buf, sb.len, 0, &sys_opts, NULL);
	char *bytes = report(sb.buf, sb.len, 1, &sys_opts, NULL);
	char *odd = report(sb.buf, sb.len, 13, &sys_opts, NULL);

	is_str(bytes, whole, "byte-by-byte feeding gives the same report");
	is_str(odd, whole, "13-byte pieces give the same report");
	build_ref(&sb2, true);
	char *unk = report(sb2.buf, sb2.len, 7, &sys_opts, NULL);
	is_str(unk, whole, "unknown record types are skipped");
	free(whole);
	free(bytes);
	free(odd);
	free(unk);
}

static void test_counts(void)
{
	prof_report_t *r;
	prof_counts_t c;

	prof_report_new(&pt_env, &r);
	prof_report_counts(r, &c);
	ok(!c.have_header && c.samples == 0, "empty counts");
	is_int(prof_report_feed(r, sb.buf, sb.len), EOK, "feed the reference stream");
	prof_report_counts(r, &c);
	is_uint(c.samples, 100, "samples");
	is_uint(c.user, 84, "user");
	is_uint(c.kernel, 10, "kernel");
	is_uint(c.idle, 6, "idle");
	is_uint(c.lost, 5, "lost: END's total (the LOST records are part of it)");
	is_uint(c.throttled, 7, "throttled");
	is_uint(c.tasks, 3, "tasks");
	ok(c.have_header && c.ended, "header and end seen");
	is_uint(c.source, PROF_SRC_RTC_NMI, "source");
	is_uint(c.hz, 1024, "hz");
	is_uint(c.ncpus, 4, "ncpus");
	prof_report_free(r);
	is_int(pt_live_allocs, 0, "every allocation released");
}

static void test_task_style(void)
{
	prof_report_opts_t o = { PROF_STYLE_TASK, 50, false, NULL, false, 0 };
	char *t = report(sb.buf, sb.len, 0, &o, NULL);

	note_text("task report:", t);
	ok(starts(t, "Samples:      100 total,       84 user,       16 kernel\n"),
	   "task style first line");
	HAS(t, "Lost: 5");
	HAS(t, "           Address  Samples           ns       %  Symbol");
	HAS(t, "0x0000000000401100       40     39062480  40.00%  compute");
	HAS(t, "0x0000000000401200       20     19531240  20.00%  helper");
	HAS(t, "0xffffffff80100200       10      9765620  10.00%  memcpy [k]");
	HAS(t, "0x0000000000401000        3      2929686   3.00%  main");
	LACKS(t, "5 app");
	free(t);
}

static void test_tree(void)
{
	prof_report_opts_t o = sys_opts;

	o.tree = true;
	char *t = report(sb.buf, sb.len, 0, &o, NULL);
	note_text("tree:", strstr(t, "callers"));
	HAS(t, "callers of the top functions:");
	HAS(t, " 40.00%       40     39062480  compute  (5 app)");
	HAS(t, "          40     39062480 100.00%  <- main");
	HAS(t, " 20.00%       20     19531240  helper  (5 app)");
	HAS(t, "          20     19531240 100.00%  <- compute");
	HAS(t, "              20     19531240 100.00%  <- main");
	HAS(t, " 10.00%       10      9765620  memcpy [k]  (5 app)");
	HAS(t, "          10      9765620 100.00%  <- syscall_entry [k]");
	HAS(t, "              10      9765620 100.00%  <- compute");
	free(t);
}

/* Symbols from this binary's own ELF .symtab. */
int marker_function(int x);

__attribute__((noinline, used)) int marker_function(int x)
{
	return x * 3 + 1;
}

static void test_elf(void)
{
	size_t size;

	pt_nfiles = 0;
	FILE *f = fopen("/proc/self/exe", "rb");
	static unsigned char exe[1 << 24];
	size = f ? fread(exe, 1, sizeof(exe), f) : 0;
	if (f)
		fclose(f);
	ok(size > 0 && size < sizeof(exe), "read /proc/self/exe");

	/* The marker's link-time address, as the stream would carry it. */
	static unsigned char copy[1 << 24];
	const elf64_shdr_t *sym, *str;
	profsym_t ps;
	memcpy(copy, exe, size);
	is_int(profsym_from_elf(&ps, copy, size), EOK, "profsym_from_elf on self");
	uint64_t addr = elfsym_address(&ps.table, "marker_function");
	ok(addr != 0 && elf_find_symtab(copy, size, &sym, &str) == EOK, "marker found");

	pt_add_file("/bin/self", exe, size);
	sb.len = 0;
	sb_header(&sb, PROF_MAGIC, PROF_VERSION);
	pt_sb_task(&sb, 9, "self");
	sb_load(&sb, 9, "/bin/self");
	sb_samples(&sb, 3, 9, PROF_MODE_USER, addr + 2, 0, 0);
	prof_report_opts_t o = { PROF_STYLE_TASK, 50, false, NULL, false, 0 };
	char *t = report(sb.buf, sb.len, 0, &o, NULL);
	char want[128];
	snprintf(want, sizeof(want), "0x%016llx        3      2929686 100.00%%  marker_function",
		 (unsigned long long)addr);
	HAS(t, want);
	LACKS(t, "warning");
	free(t);

	/* The LOAD's hash is checked against the file's. */
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < size; i++)
		h = (h ^ exe[i]) * 0x100000001b3ull;
	for (int pass = 0; pass < 2; pass++) {
		load_hash = h + (uint64_t)pass;
		sb.len = 0;
		sb_header(&sb, PROF_MAGIC, PROF_VERSION);
		sb_load(&sb, 9, "/bin/self");
		sb_samples(&sb, 3, 9, PROF_MODE_USER, addr + 2, 0, 0);
		t = report(sb.buf, sb.len, 0, &o, NULL);
		ok(pt_has_line(t, "warning: /bin/self is not the file profiled (hash differs)") ==
		   (pass == 1), "hash %s", pass ? "differs: warning" : "matches: no warning");
		HAS(t, want);
		free(t);
	}
	load_hash = 0;
	t = report(sb.buf, sb.len, 0, &o, NULL);
	/* The kernel (no file at all) falls back to hex, with a [k] mark. */
	sb_samples(&sb, 1, 9, PROF_MODE_KERNEL, K(0x10), 0, 0);
	free(t);
	t = report(sb.buf, sb.len, 0, &o, NULL);
	HAS(t, "0xffffffff80100010        1       976562  25.00%  0xffffffff80100010 [k]");
	free(t);
	volatile int v = 1;
	ok(marker_function(v) == 4, "marker runs");
}

/* ---------------------------------------------------------------- leaf callers */

/*
 * A synthetic ELF of x86 code at LEAF_VA (one PT_LOAD, a .symtab):
 *   grand    0x401080: push rbp; mov rsp,rbp; call caller_a; pop rbp; ret
 *   caller_a 0x401000: push rbp; mov rsp,rbp; call leaf; call *%rax; pop; ret
 *   caller_b 0x401040: push rbp; mov rsp,rbp; call leaf; call framed; pop; ret
 *   leaf     0x401100: mov edi,eax; ret        (no frame)
 *   framed   0x401140: push rbp; mov rsp,rbp; nop; nop; pop rbp; ret
 *   sched    0x401180: push rbp; mov $0,ecx; mov rsp,rbp; nop; pop rbp; ret
 *   wrapped  0x4011c0: test; push rbp; mov rsp,rbp; call leaf; pop rbp; xor; ret
 */
#define LEAF_VA 0x401000ull
#define LEAF_CODE 0x200
#define RA_A (LEAF_VA + 0x09)           /* after caller_a's call leaf */
#define RA_A2 (LEAF_VA + 0x0b)          /* after its call *%rax */
#define RA_B (LEAF_VA + 0x49)           /* after caller_b's call leaf */
#define RA_BF (LEAF_VA + 0x4e)          /* after its call framed */
#define RA_G (LEAF_VA + 0x89)           /* after grand's call caller_a */
#define F_LEAF (LEAF_VA + 0x100)
#define F_FRAMED (LEAF_VA + 0x140)
#define F_SCHED (LEAF_VA + 0x180)
#define F_WRAPPED (LEAF_VA + 0x1c0)

static _Alignas(8) unsigned char leaf_elf[2048];
static size_t leaf_elf_size;

static void leaf_call(unsigned char *code, uint64_t at, uint64_t target)
{
	int32_t rel = (int32_t)(target - (at + 5));

	code[at - LEAF_VA] = 0xe8;
	memcpy(&code[at - LEAF_VA + 1], &rel, 4);
}

static void leaf_code(unsigned char *c)
{
	static const unsigned char pro[] = { 0x55, 0x48, 0x89, 0xe5 };

	memset(c, 0x90, LEAF_CODE);
	memcpy(c + 0x00, pro, 4);
	leaf_call(c, LEAF_VA + 0x04, F_LEAF);
	c[0x09] = 0xff;
	c[0x0a] = 0xd0;
	c[0x0b] = 0x5d;
	c[0x0c] = 0xc3;
	memcpy(c + 0x40, pro, 4);
	leaf_call(c, LEAF_VA + 0x44, F_LEAF);
	leaf_call(c, LEAF_VA + 0x49, F_FRAMED);
	c[0x4e] = 0x5d;
	c[0x4f] = 0xc3;
	memcpy(c + 0x80, pro, 4);
	leaf_call(c, LEAF_VA + 0x84, LEAF_VA);
	c[0x89] = 0x5d;
	c[0x8a] = 0xc3;
	c[0x100] = 0x89;
	c[0x101] = 0xf8;
	c[0x102] = 0xc3;
	memcpy(c + 0x140, pro, 4);
	c[0x146] = 0x5d;
	c[0x147] = 0xc3;
	static const unsigned char sched[] = { 0x55, 0xb9, 0, 0, 0, 0, 0x48, 0x89, 0xe5,
					       0x90, 0x5d, 0xc3 };
	memcpy(c + 0x180, sched, sizeof(sched));
	leaf_call(c, LEAF_VA + 0x1a0, F_SCHED);
	static const unsigned char wrapped[] = { 0x85, 0xf6, 0x55, 0x48, 0x89, 0xe5 };
	memcpy(c + 0x1c0, wrapped, sizeof(wrapped));
	leaf_call(c, LEAF_VA + 0x1c6, F_LEAF);
	c[0x1cb] = 0x5d;
	c[0x1cc] = 0x31;
	c[0x1cd] = 0xc0;
	c[0x1ce] = 0xc3;
	leaf_call(c, LEAF_VA + 0x1e0, F_WRAPPED);
}

static void leaf_sym(elf64_sym_t *s, uint32_t name, uint64_t value)
{
	memset(s, 0, sizeof(*s));
	s->st_name = name;
	s->st_info = STT_FUNC;
	s->st_shndx = 1;
	s->st_value = value;
}

/* Build leaf_elf: ehdr, phdr, code, symtab, strtab, section headers. */
static void leaf_build(void)
{
	static const char str[] = "\0grand\0caller_a\0caller_b\0leaf\0framed";
	unsigned char *img = leaf_elf;
	elf64_ehdr_t eh = { .e_ident = { ELF_MAG0, 'E', 'L', 'F', ELFCLASS64, ELFDATA2LSB, 1 } };
	elf64_phdr_t ph = { .p_type = PT_LOAD, .p_offset = 0x100, .p_vaddr = LEAF_VA,
			    .p_filesz = LEAF_CODE, .p_memsz = LEAF_CODE };
	elf64_sym_t sym[6];
	elf64_shdr_t sh[4];
	size_t symoff = 0x100 + LEAF_CODE, stroff = symoff + sizeof(sym);
	size_t shoff = (stroff + sizeof(str) + 7) & ~(size_t)7;

	memset(img, 0, sizeof(leaf_elf));
	eh.e_type = 2;
	eh.e_machine = 62;
	eh.e_phoff = sizeof(eh);
	eh.e_phentsize = sizeof(ph);
	eh.e_phnum = 1;
	eh.e_shoff = shoff;
	eh.e_shentsize = sizeof(elf64_shdr_t);
	eh.e_shnum = 4;
	memcpy(img, &eh, sizeof(eh));
	memcpy(img + sizeof(eh), &ph, sizeof(ph));
	leaf_code(img + 0x100);
	memset(sym, 0, sizeof(sym));
	leaf_sym(&sym[1], 1, LEAF_VA + 0x80);
	leaf_sym(&sym[2], 7, LEAF_VA);
	leaf_sym(&sym[3], 16, LEAF_VA + 0x40);
	leaf_sym(&sym[4], 25, F_LEAF);
	leaf_sym(&sym[5], 30, F_FRAMED);
	memcpy(img + symoff, sym, sizeof(sym));
	memcpy(img + stroff, str, sizeof(str));
	memset(sh, 0, sizeof(sh));
	sh[1] = (elf64_shdr_t){ .sh_type = SHT_PROGBITS, .sh_addr = LEAF_VA,
				.sh_offset = 0x100, .sh_size = LEAF_CODE };
	sh[2] = (elf64_shdr_t){ .sh_type = SHT_SYMTAB, .sh_offset = symoff,
				.sh_size = sizeof(sym), .sh_link = 3,
				.sh_entsize = sizeof(elf64_sym_t) };
	sh[3] = (elf64_shdr_t){ .sh_type = SHT_STRTAB, .sh_offset = stroff,
				.sh_size = sizeof(str) };
	memcpy(img + shoff, sh, sizeof(sh));
	leaf_elf_size = shoff + sizeof(sh);
}

static uint64_t leaf_caller(uint64_t fstart, uint64_t pc, uint64_t t0, uint64_t t1,
			    size_t ntop)
{
	uint64_t top[2] = { t0, t1 };

	return profleaf_caller(leaf_elf, leaf_elf_size, fstart, pc, top, ntop);
}

static void test_leaf_decide(void)
{
	unsigned char b[4];
	const uint64_t junk = 0x7fff0000ull;

	leaf_build();
	is_int(profleaf_read(leaf_elf, leaf_elf_size, F_LEAF, b, 4), 4, "read in the LOAD");
	ok(b[0] == 0x89 && b[2] == 0xc3, "read: the bytes at the address");
	is_int(profleaf_read(leaf_elf, leaf_elf_size, LEAF_VA + LEAF_CODE - 2, b, 4), 2,
	       "read: cut at the end of the LOAD");
	is_int(profleaf_read(leaf_elf, leaf_elf_size, LEAF_VA - 1, b, 4), 0, "read: below it");
	is_int(profleaf_read(leaf_elf, 100, F_LEAF, b, 4), 0, "read: truncated image");
	is_int(profleaf_read(NULL, 0, F_LEAF, b, 4), 0, "read: no image");

	is_int(leaf_caller(F_LEAF, F_LEAF + 2, RA_A, junk, 2), RA_A, "frameless leaf: [rsp] after call leaf");
	is_int(leaf_caller(F_LEAF, F_LEAF, RA_B, junk, 2), RA_B, "frameless leaf: the other caller");
	is_int(leaf_caller(F_LEAF, F_LEAF, RA_A2, junk, 2), RA_A2, "frameless leaf: after call *%%rax");
	is_int(leaf_caller(F_LEAF, F_LEAF, RA_BF, junk, 2), 0, "a call to another function: no");
	is_int(leaf_caller(F_LEAF, F_LEAF, LEAF_VA + 0x20, junk, 2), 0, "not after a call: no");
	is_int(leaf_caller(F_LEAF, F_LEAF, junk, RA_A, 2), 0, "frameless: only [rsp]");
	is_int(leaf_caller(F_LEAF, F_LEAF, RA_A, 0, 0), 0, "no top words: no");
	is_int(leaf_caller(F_FRAMED, F_FRAMED, RA_BF, junk, 2), RA_BF, "at the push: [rsp]");
	is_int(leaf_caller(F_FRAMED, F_FRAMED + 1, junk, RA_BF, 2), RA_BF, "at the mov: [rsp+8]");
	is_int(leaf_caller(F_FRAMED, F_FRAMED + 1, junk, RA_BF, 1), 0, "at the mov, one word: no");
	is_int(leaf_caller(F_FRAMED, F_FRAMED + 4, RA_BF, RA_BF, 2), 0, "frame set up: the walk is right");
	is_int(leaf_caller(F_FRAMED, F_FRAMED + 6, RA_BF, RA_BF, 2), 0, "at the pop: still set up");
	is_int(leaf_caller(F_FRAMED, F_FRAMED + 7, RA_BF, junk, 2), RA_BF, "at the ret: [rsp]");
	is_int(leaf_caller(F_FRAMED, F_FRAMED - 1, RA_BF, junk, 2), 0, "pc before the function: no");
	const uint64_t ra_s = LEAF_VA + 0x1a5;   /* after a call sched at 0x4011a0 */
	is_int(leaf_caller(F_SCHED, F_SCHED + 1, junk, RA_G, 2), 0, "scheduled prologue: not a call to it");
	is_int(leaf_caller(F_SCHED, F_SCHED + 1, junk, ra_s, 2), ra_s,
	       "scheduled prologue, between push and mov: [rsp+8]");
	is_int(leaf_caller(F_SCHED, F_SCHED + 6, junk, ra_s, 2), ra_s, "... at the mov: [rsp+8]");
	is_int(leaf_caller(F_SCHED, F_SCHED + 9, ra_s, ra_s, 2), 0, "... after it: set up");
	is_int(leaf_caller(F_SCHED, F_SCHED + 11, ra_s, junk, 2), ra_s, "... at its ret: [rsp]");
	const uint64_t ra_w = LEAF_VA + 0x1e5;   /* after a call wrapped at 0x4011e0 */
	is_int(leaf_caller(F_WRAPPED, F_WRAPPED, ra_w, junk, 2), ra_w, "shrink-wrapped, before the push: [rsp]");
	is_int(leaf_caller(F_WRAPPED, F_WRAPPED + 3, junk, ra_w, 2), ra_w, "... at the mov: [rsp+8]");
	is_int(leaf_caller(F_WRAPPED, F_WRAPPED + 6, junk, ra_w, 2), 0, "... set up: the walk is right");
	is_int(leaf_caller(F_WRAPPED, F_WRAPPED + 12, ra_w, junk, 2), ra_w, "... after the pop: [rsp]");
}

/* Damaged images and random addresses: no crash, an answer among the words. */
static void test_leaf_fuzz(void)
{
	static _Alignas(8) unsigned char img[sizeof(leaf_elf)];
	unsigned bad = 0, found = 0;
	uint64_t st = 0x9e3779b97f4a7c15ull;    /* its own sequence: test_fuzz keeps its own */
#define rng() rng_next(&st)

	leaf_build();
	for (unsigned i = 0; i < 20000; i++) {
		memcpy(img, leaf_elf, leaf_elf_size);
		for (unsigned j = rng() % 8; j > 0; j--)
			img[rng() % leaf_elf_size] = (unsigned char)rng();
		static const uint64_t ras[] = { RA_A, RA_A2, RA_B, RA_BF, RA_G };
		static const uint64_t fs[] = { F_LEAF, F_FRAMED, F_SCHED, F_WRAPPED };
		uint64_t top[2] = { rng() % 2 ? ras[rng() % 5] : LEAF_VA + rng() % 0x220,
				    rng() % 2 ? ras[rng() % 5] : rng() };
		uint64_t fstart = rng() % 2 ? fs[rng() % 4] : LEAF_VA + rng() % 0x200;
		uint64_t pc = fstart + rng() % 16;
		uint64_t got = profleaf_caller(img, rng() % 4 ? leaf_elf_size : rng() % leaf_elf_size, fstart, pc, top,
					       rng() % 3);
		bad += got != 0 && got != top[0] && got != top[1];
		found += got != 0;
	}
#undef rng
	note("leaf fuzz: %u callers found", found);
	ok(bad == 0 && found > 0, "leaf fuzz: 0 or one of the top words");
}

/* n samples at pc with chain (ret) and top words (t0, t1), version 2. */
static void sb_leaf(pt_sb_t *b, unsigned n, uint64_t pc, uint64_t ret, uint64_t t0, uint64_t t1)
{
	unsigned char rec[128];
	prof_rec_sample_t s;
	uint64_t words[3] = { ret, t0, t1 };
	size_t size = sizeof(s) + sizeof(words);

	memset(&s, 0, sizeof(s));
	s.task = 7;
	s.pc = pc;
	s.mode = PROF_MODE_USER;
	s.nchain = 1;
	s.ntop = 2;
	for (unsigned i = 0; i < n; i++) {
		pt_sb_hdr(&s.h, PROF_REC_SAMPLE, size, 2 + i);
		memcpy(rec, &s, sizeof(s));
		memcpy(rec + sizeof(s), words, sizeof(words));
		pt_sb_put(b, rec, size);
	}
}

/* prof_walk_fn_t: "COUNT: root;...;leaf" lines into out. */
static errno_t walk_line(void *ctx, const prof_walk_info_t *info, const prof_xstack_t *s)
{
	char line[256];
	int n = snprintf(line, sizeof(line), "%llu:", (unsigned long long)s->count);

	(void)ctx, (void)info;
	for (size_t i = 0; i < s->nframes && n < (int)sizeof(line); i++)
		n += snprintf(line + n, sizeof(line) - (size_t)n, "%s%s", i ? ";" : " ",
			      s->frames[i].name);
	pt_out_text(NULL, line, strlen(line));
	pt_out_text(NULL, "\n", 1);
	return EOK;
}

/* The whole stacks of prof_report_walk get the leaf callers too. */
static void test_leaf_walk(void)
{
	static const prof_filter_t all;
	prof_report_t *r;

	pt_out_len = 0;
	pt_out_text(NULL, "", 0);
	prof_report_new(&pt_env, &r);
	prof_report_setup(r, &all, true);
	prof_report_feed(r, sb.buf, sb.len);
	is_int(prof_report_walk(r, NULL, walk_line, NULL), EOK, "leaf walk: EOK");
	prof_report_free(r);
	HAS(pt_out, "30: grand;caller_a;leaf");
	HAS(pt_out, "10: grand;caller_b;leaf");
	HAS(pt_out, "10: grand;leaf");
	HAS(pt_out, "20: caller_b;framed");
	HAS(pt_out, "5: grand;caller_b;framed");
}

static void test_leaf_tree(void)
{
	prof_report_opts_t o = sys_opts;
	const uint64_t junk = 0x7fff0000ull;

	o.tree = true;
	pt_nfiles = 0;
	leaf_build();
	pt_add_file("/bin/leafy", leaf_elf, leaf_elf_size);
	sb.len = 0;
	sb_header(&sb, PROF_MAGIC, PROF_VERSION);
	pt_sb_task(&sb, 7, "leafy");
	sb_load(&sb, 7, "/bin/leafy");
	/* The walk finds the grand-caller's return address in all of them. */
	sb_leaf(&sb, 30, F_LEAF + 2, RA_G, RA_A, junk);
	sb_leaf(&sb, 10, F_LEAF, RA_G, RA_B, junk);
	sb_leaf(&sb, 10, F_LEAF + 1, RA_G, LEAF_VA + 0x20, junk);       /* not a return address */
	sb_leaf(&sb, 20, F_FRAMED + 4, RA_BF, RA_A, RA_A);              /* set up: chain kept */
	sb_leaf(&sb, 5, F_FRAMED + 1, RA_G, junk, RA_BF);               /* at the mov */
	char *t = report(sb.buf, sb.len, 0, &o, NULL);
	note_text("leaf tree:", strstr(t, "callers"));
	HAS(t, " 66.67%       50     48828100  leaf  (7 leafy)");
	HAS(t, "          30     29296860  60.00%  <- caller_a");
	HAS(t, "          10      9765620  20.00%  <- grand");
	HAS(t, "          10      9765620  20.00%  <- caller_b");
	HAS(t, "              30     29296860  60.00%  <- grand");
	HAS(t, " 33.33%       25     24414050  framed  (7 leafy)");
	HAS(t, "          25     24414050 100.00%  <- caller_b");
	HAS(t, "               5      4882810  20.00%  <- grand");
	free(t);
	test_leaf_walk();
	is_int(pt_live_allocs, 0, "leaf tree: all memory released");
	pt_nfiles = 0;
	files_default();
}

static void test_kernel_path(void)
{
	static const char other_nm[] = "ffffffff80100000 T other_kmain\n";
	prof_report_opts_t o = sys_opts;

	files_default();
	pt_add_file("/k2.nm", other_nm, sizeof(other_nm) - 1);
	build_ref(&sb, false);
	o.kernel_path = "/k2";
	char *t = report(sb.buf, sb.len, 0, &o, NULL);
	HAS(t, "  6.00%        6      5859372  [idle]               other_kmain [k]");
	free(t);

	/* Symbol tables load once per path per report, even over prints. */
	prof_report_t *r;
	prof_report_new(&pt_env, &r);
	prof_report_feed(r, sb.buf, sb.len);
	pt_loads = 0;
	prof_report_print(r, &sys_opts);
	unsigned first = pt_loads;
	prof_report_print(r, &sys_opts);
	ok(first > 0 && pt_loads == first, "symbols cached (%u loads)", first);
	prof_report_free(r);
	is_int(pt_live_allocs, 0, "every allocation released");
}

static void test_einval(void)
{
	prof_report_t *r;
	prof_rec_t h;
	errno_t err;

	sb.len = 0;
	sb_header(&sb, PROF_MAGIC + 1, PROF_VERSION);
	free(report(sb.buf, sb.len, 0, &sys_opts, &err));
	is_int(err, EINVAL, "bad magic");
	sb.len = 0;
	sb_header(&sb, PROF_MAGIC, PROF_VERSION + 1);
	free(report(sb.buf, sb.len, 5, &sys_opts, &err));
	is_int(err, ENOTSUP, "a newer version: ENOTSUP");
	sb.len = 0;
	sb_header(&sb, PROF_MAGIC, 0);
	free(report(sb.buf, sb.len, 5, &sys_opts, &err));
	is_int(err, ENOTSUP, "version 0: ENOTSUP");
	sb.len = 0;
	sb_header(&sb, PROF_MAGIC, PROF_VERSION_MIN);
	sb_samples(&sb, 3, 1, PROF_MODE_USER, 0x1000, 0, 1, 2ull);
	char *v1 = report(sb.buf, sb.len, 0, &sys_opts, &err);
	is_int(err, EOK, "version %u is read", PROF_VERSION_MIN);
	ok(strstr(v1, "samples: 3 total") != NULL, "version %u: its samples", PROF_VERSION_MIN);
	free(v1);
	sb.len = 0;
	pt_sb_task(&sb, 1, "x");
	free(report(sb.buf, sb.len, 0, &sys_opts, &err));
	is_int(err, EINVAL, "first record not a header");

	unsigned sizes[] = { 0, 8, 12, 20, 33 };
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		sb.len = 0;
		sb_header(&sb, PROF_MAGIC, PROF_VERSION);
		pt_sb_hdr(&h, PROF_REC_LOST, sizes[i], 0);
		pt_sb_put(&sb, &h, sizeof(h));
		pt_sb_put(&sb, &h, sizeof(h));
		free(report(sb.buf, sb.len, 3, &sys_opts, &err));
		is_int(err, EINVAL, "record size %u", sizes[i]);
	}

	/* A short known record, and a chain longer than its record. */
	sb.len = 0;
	sb_header(&sb, PROF_MAGIC, PROF_VERSION);
	pt_sb_hdr(&h, PROF_REC_SAMPLE, 16, 0);
	pt_sb_put(&sb, &h, sizeof(h));
	free(report(sb.buf, sb.len, 0, &sys_opts, &err));
	is_int(err, EINVAL, "sample shorter than its struct");
	sb.len = 0;
	sb_header(&sb, PROF_MAGIC, PROF_VERSION);
	sb_samples(&sb, 1, 1, PROF_MODE_USER, 0x1000, 0, 2, 1ull, 2ull);
	((prof_rec_sample_t *)(sb.buf + sizeof(prof_rec_header_t)))->nchain = 3;
	free(report(sb.buf, sb.len, 0, &sys_opts, &err));
	is_int(err, EINVAL, "chain past the record");
	((prof_rec_sample_t *)(sb.buf + sizeof(prof_rec_header_t)))->nchain = 1;
	((prof_rec_sample_t *)(sb.buf + sizeof(prof_rec_header_t)))->ntop = 2;
	free(report(sb.buf, sb.len, 0, &sys_opts, &err));
	is_int(err, EINVAL, "top words past the record");

	/* EINVAL sticks. */
	prof_report_new(&pt_env, &r);
	prof_report_feed(r, sb.buf, sb.len);
	build_ref(&sb2, false);
	is_int(prof_report_feed(r, sb2.buf, sb2.len), EINVAL, "EINVAL is sticky");
	prof_report_free(r);
	is_int(pt_live_allocs, 0, "every allocation released");
}

static void test_sources(void)
{
	is_str(prof_source_name(PROF_SRC_PMC), "pmc", "name pmc");
	is_str(prof_source_name(PROF_SRC_RTC), "rtc", "name rtc");
	is_str(prof_source_name(PROF_SRC_RTC_NMI), "rtc-nmi", "name rtc-nmi");
	is_str(prof_source_name(PROF_SRC_TIMER), "timer", "name timer");
	is_str(prof_source_name(77), "?", "name unknown");
	is_int(prof_source_parse("default"), PROF_SRC_DEFAULT, "parse default");
	is_int(prof_source_parse("rtc-nmi"), PROF_SRC_RTC_NMI, "parse rtc-nmi");
	is_int(prof_source_parse("timer"), PROF_SRC_TIMER, "parse timer");
	is_int(prof_source_parse("pmc"), PROF_SRC_PMC, "parse pmc");
	is_int(prof_source_parse("nmi"), -1, "parse unknown");
}

/* The source name of a stream's header (len bytes of h, version v), or "" if refused. */
static void header_source(prof_rec_header_t *h, size_t len, uint32_t v, char *name)
{
	prof_report_t *r;
	prof_counts_t c;

	pt_sb_hdr(&h->h, PROF_REC_HEADER, len, 0);
	h->magic = PROF_MAGIC;
	h->version = v;
	h->hz = 100;
	h->ncpus = 1;
	prof_report_new(&pt_env, &r);
	name[0] = '\0';
	if (prof_report_feed(r, h, len) == EOK) {
		prof_report_counts(r, &c);
		strcpy(name, c.source_name);
	}
	prof_report_free(r);
}

/* A v6 header names its source itself; a v5 one (112 bytes) gets the old table's name. */
static void test_source_header(void)
{
	prof_rec_header_t h;
	char name[PROF_SRC_NAME_MAX];

	is_int(sizeof(h), PROF_REC_HEADER_V5_SIZE + PROF_SRC_NAME_MAX, "v6 header: v5's and a name");
	memset(&h, 0, sizeof(h));
	h.source = 9;
	strcpy(h.source_name, "newsrc");
	header_source(&h, sizeof(h), 6, name);
	is_str(name, "newsrc", "v6: the header's name, for a source no table knows");
	memset(&h, 0, sizeof(h));
	h.source = PROF_SRC_TIMER;
	header_source(&h, PROF_REC_HEADER_V5_SIZE, 5, name);
	is_str(name, "timer", "v5: 112-byte header read, the old table's name");
	memset(&h, 0, sizeof(h));
	h.source = PROF_SRC_TIMER;
	strcpy(h.source_name, "cut");
	header_source(&h, PROF_REC_HEADER_V5_SIZE, 6, name);
	is_str(name, "", "v6 header without its name refused");
	memset(&h, 0, sizeof(h));
	h.source = 9;
	memcpy(h.source_name, "123456789abcdefX", PROF_SRC_NAME_MAX);
	header_source(&h, sizeof(h), 6, name);
	is_int(strlen(name), PROF_SRC_NAME_MAX - 1, "an unterminated name is cut");
}

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint64_t rng(void)
{
	return rng_next(&rng_state);
}

/* Random bytes, mutated and truncated streams, random nm text. */
static void test_fuzz(void)
{
	static unsigned char buf[1 << 16];
	static char nm[512];
	prof_report_opts_t o = sys_opts;
	unsigned einval = 0, eok = 0, bad = 0;

	build_ref(&sb2, false);
	for (int i = 0; i < 3000; i++) {
		size_t len;
		errno_t err;
		memcpy(buf, sb2.buf, sb2.len);
		if (i % 3 == 0) {
			len = sb2.len;
			for (int j = 0; j < 1 + i % 7; j++)
				buf[rng() % len] = (unsigned char)rng();
		} else if (i % 3 == 1) {
			len = rng() % sb2.len;
		} else {
			len = sizeof(prof_rec_header_t) + rng() % 2048;
			for (size_t j = sizeof(prof_rec_header_t); j < len; j++)
				buf[j] = (unsigned char)rng();
		}
		for (size_t j = 0; j < sizeof(nm) - 1; j++)
			nm[j] = "0123456789abcdefTtWw \n"[rng() % 22];
		pt_files[0] = (pt_file_t){ "/bin/app.nm", nm, rng() % sizeof(nm) };
		o.style = i & 1;
		o.tree = i & 2;
		o.threshold_centi = (unsigned)(rng() % 200);
		free(report(buf, len, 1 + rng() % 300, &o, &err));
		if (err == EINVAL || err == ENOTSUP)   /* damaged, or a version byte hit */
			einval++;
		else if (err == EOK)
			eok++;
		else
			bad++;
	}
	note("fuzz: %u EOK, %u EINVAL or ENOTSUP", eok, einval);
	ok(bad == 0 && einval > 0 && eok > 0, "fuzz: only EOK, EINVAL or ENOTSUP");
	is_int(pt_live_allocs, 0, "fuzz: every allocation released");
}

/* Out of memory at every allocation: ENOMEM (or success), no leak. */
static long fail_at, nallocs;

static void *fail_alloc(void *ctx, size_t size)
{
	if (++nallocs == fail_at)
		return NULL;
	return pt_alloc(ctx, size);
}

static void test_enomem(void)
{
	prof_env_t e = pt_env;
	unsigned failures = 0;

	e.alloc = fail_alloc;
	build_ref(&sb, false);
	files_default();
	for (fail_at = 1; fail_at < 80; fail_at++) {
		prof_report_t *r;
		nallocs = 0;
		if (prof_report_new(&e, &r) != EOK) {
			failures++;
			continue;
		}
		errno_t a = prof_report_feed(r, sb.buf, sb.len);
		errno_t b = prof_report_print(r, &sys_opts);
		failures += a == ENOMEM || b == ENOMEM;
		prof_report_free(r);
	}
	ok(failures > 10, "ENOMEM reported (%u times)", failures);
	is_int(pt_live_allocs, 0, "ENOMEM: every allocation released");
}

/* ---------------------------------------------------------------- vprof */

/* printf arguments for the first line of text ("%.*s"). */
#define LINE(text) (int)strcspn(text, "\n"), text

/*
 * Without -r, vprof finds the root next to its own binary (a copy in
 * B/host/vprof reads B/initrd-root, a link to dir), run from /; with a
 * root that lacks the binaries it still prints the report but warns,
 * naming them, and exits 3.
 */
static void test_vprof_root(const char *build, const char *dir, char *text, size_t size)
{
	char b[] = "/tmp/vprof-build.XXXXXX", cmd[1400];

	tool_stage(b, "vprof", build, dir);
	snprintf(cmd, sizeof(cmd), "cd / && %s/host/vprof %s/stream 2>&1", b, dir);
	is_int(tool_run(cmd, text, size), 0, "vprof without -r, run from /, exits 0");
	HAS(text, " 10.00%       10      9765620  5 app                memcpy [k]");
	snprintf(cmd, sizeof(cmd), "%s/host/vprof -r %s/nothing %s/stream 2>&1 >/dev/null", b, b,
		 dir);
	is_int(tool_run(cmd, text, size), 3, "binaries not found: exit 3");
	ok(strstr(text, "warning: 2 binaries") && strstr(text, " /bin/app") &&
	   strstr(text, " /boot/kernel") && strstr(text, "/nothing"),
	   "the warning names them and the root: %.*s", LINE(text));
	snprintf(cmd, sizeof(cmd), "%s/host/vprof -r %s/nothing %s/stream 2>/dev/null", b, b, dir);
	tool_run(cmd, text, size);
	ok(starts(text, "samples: 100 total, 84 user, 10 kernel, 6 idle, 5 lost\n") &&
	   strstr(text, "0x"), "the report is printed still, with addresses");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", b);
	if (system(cmd) != 0)
		abort();
}

/* A TRACE record of kind at tsc (size bytes: short ones too). */
static void sb_trace(pt_sb_t *b, unsigned kind, uint64_t tsc, size_t size)
{
	prof_rec_trace_t t;
	unsigned char rec[sizeof(t) + 8] = { 0 };       /* size: at most 8 bytes more */

	memset(&t, 0, sizeof(t));
	pt_sb_hdr(&t.h, PROF_REC_TRACE, size, tsc);
	t.kind = (uint16_t)kind;
	t.task = 1;
	t.thread = 10;
	memcpy(rec, &t, sizeof(t));
	pt_sb_put(b, rec, size);
}

/* TRACE records (v7): counted, an unknown kind skipped, a short one refused. */
static void test_trace_records(void)
{
	prof_report_t *r;
	prof_counts_t c;
	errno_t err;

	sb.len = 0;
	sb_header(&sb, PROF_MAGIC, PROF_VERSION);
	sb_samples(&sb, 2, 1, PROF_MODE_USER, 0x1000, 0, 0);
	sb_trace(&sb, PROF_TR_SWITCH, 10, sizeof(prof_rec_trace_t));
	sb_trace(&sb, PROF_TR_CALL, 11, sizeof(prof_rec_trace_t) + 8);  /* longer: read */
	sb_trace(&sb, PROF_TR_COUNT, 12, sizeof(prof_rec_trace_t));     /* unknown kind */
	sb_trace(&sb, 0, 13, sizeof(prof_rec_trace_t));
	char *text = report(sb.buf, sb.len, 7, &sys_opts, &err);
	is_int(err, EOK, "trace records: EOK, unknown kinds too");
	ok(text && pt_has_line(text, "trace: 2 events, 2 of unknown kinds skipped"),
	   "trace records: the summary counts them, unknown kinds apart");
	free(text);
	prof_report_new(&pt_env, &r);
	prof_report_keep_records(r, true);
	prof_report_feed(r, sb.buf, sb.len);
	prof_report_counts(r, &c);
	ok(c.trace == 2 && c.trace_unknown == 2, "trace records: counts %llu, %llu unknown",
	   (unsigned long long)c.trace, (unsigned long long)c.trace_unknown);
	prof_report_free(r);
	sb_trace(&sb, PROF_TR_WAKEUP, 14, sizeof(prof_rec_trace_t) - 8);
	char why[80] = "";
	free(pt_report(sb.buf, sb.len, 0, false, &sys_opts, &err, why, sizeof(why)));
	is_int(err, EINVAL, "a short TRACE record: EINVAL");
	is_str(why, "a TRACE record of 80 bytes (88 expected)", "... and why");
	is_int(pt_live_allocs, 0, "trace records: every allocation released");
}

#define TB_WARNING "warning: QEMU TCG without -icount: weights keep each CPU's time " \
	"(a half-busy system's split within 3 points of the kernel's accounting), but " \
	"positions in code are biased to translation-block boundaries (functions up to 8 " \
	"points off against callgrind, 15 before weights; boot with -icount for exact profiles)"

/* A MISSED record of cpu: its count since the engine started. */
static void sb_missed(pt_sb_t *b, uint32_t cpu, uint64_t missed, uint64_t tsc)
{
	prof_rec_missed_t m;

	pt_sb_hdr(&m.h, PROF_REC_MISSED, sizeof(m), tsc);
	m.h.cpu = cpu;
	m.missed = missed;
	pt_sb_put(b, &m, sizeof(m));
}

/*
 * Weighted samples (v5): 10 in compute on CPU 0 of 1 ms each, 10 in
 * helper on CPU 1 of 3 ms each (the same counts, three times the time);
 * CPU 0 missed 12 - 5 ticks and lost 2 samples, 20 ms in all.
 */
static void build_weighted(pt_sb_t *b, uint32_t version)
{
	prof_rec_sample_t s;
	prof_rec_lost_t l;

	b->len = 0;
	sb_header(b, PROF_MAGIC, version);
	pt_sb_task(b, 5, "app");
	sb_load(b, 5, "/bin/app");
	sb_missed(b, 0, 5, 1);
	sb_missed(b, 1, 0, 1);
	memset(&s, 0, sizeof(s));
	s.task = 5;
	s.pc = 0x401110;
	s.weight = 1000000;
	pt_sb_samples(b, 10, &s, NULL, 100);
	s.h.cpu = 1;
	s.pc = 0x401210;
	s.weight = 3000000;
	pt_sb_samples(b, 10, &s, NULL, 200);
	pt_sb_hdr(&l.h, PROF_REC_LOST, sizeof(l), 300);
	l.count = 2;
	pt_sb_put(b, &l, sizeof(l));
	sb_missed(b, 0, 12, 20000000);
}

/* Shares by time: the weights, not the counts; older streams weigh nominally. */
static void test_weights(void)
{
	files_default();
	build_weighted(&sb, PROF_VERSION);
	char *t = report(sb.buf, sb.len, 0, &sys_opts, NULL);
	HAS(t, "time: 40000000 ns sampled, 0 ns idle (shares below are of time)");
	HAS(t, " 75.00%       10     30000000  5 app                helper");
	HAS(t, " 25.00%       10     10000000  5 app                compute");
	HAS(t, "100.00%       20     40000000  5 app");
	HAS(t, "cpu 0: due 20, taken 10, missed 7, lost 2");
	HAS(t, "cpu 1: due 20, taken 10, missed 0, lost 0");
	LACKS(t, "cpu 2:");
	ok(strstr(t, "helper") < strstr(t, "compute"), "the most time first");
	free(t);
	prof_report_opts_t task = { PROF_STYLE_TASK, 50, true, NULL, false, 0 };
	t = report(sb.buf, sb.len, 0, &task, NULL);
	HAS(t, "0x0000000000401200       10     30000000  75.00%  helper");
	HAS(t, "Time: 40000000 ns (shares are of time)");
	free(t);
	build_weighted(&sb, 4);
	t = report(sb.buf, sb.len, 0, &sys_opts, NULL);
	HAS(t, " 50.00%       10      9765620  5 app                helper");
	HAS(t, " 50.00%       10      9765620  5 app                compute");
	free(t);
}

/* A header with PROF_F_TB_BIASED: both report styles warn, after the summary. */
static void test_tb_biased(void)
{
	prof_report_opts_t task = { PROF_STYLE_TASK, 50, false, NULL, false, 0 };

	sb_more_flags = PROF_F_TB_BIASED;
	build_ref(&sb, false);
	sb_more_flags = 0;
	char *t = report(sb.buf, sb.len, 0, &sys_opts, NULL);
	ok(pt_has_line(t, TB_WARNING), "system report: the TB-bias warning");
	ok(strstr(t, "source: ") < strstr(t, TB_WARNING), "... after the summary");
	free(t);
	t = report(sb.buf, sb.len, 0, &task, NULL);
	ok(pt_has_line(t, TB_WARNING), "task report: the TB-bias warning");
	free(t);
	build_ref(&sb, false);
}

/* A header with PROF_F_ICOUNT_SMP: the -icount SMP warning, not the TB one. */
static void test_icount_smp(void)
{
	sb_more_flags = PROF_F_ICOUNT_SMP;
	build_ref(&sb, false);
	sb_more_flags = 0;
	char *t = report(sb.buf, sb.len, 0, &sys_opts, NULL);
	ok(strstr(t, "warning: QEMU -icount on ") && strstr(t, "before 8.1: its vCPUs take uneven turns"),
	   "system report: the -icount SMP warning");
	ok(!pt_has_line(t, TB_WARNING), "... and no TB-bias warning");
	free(t);
	build_ref(&sb, false);
	t = report(sb.buf, sb.len, 0, &sys_opts, NULL);
	ok(!strstr(t, "-icount on "), "without the flag: no -icount SMP warning");
	free(t);
}

/* A header with PROF_F_ICOUNT_AUTO: the shift=auto warning; not without. */
static void test_icount_auto(void)
{
	sb_more_flags = PROF_F_ICOUNT_AUTO;
	build_ref(&sb, false);
	sb_more_flags = 0;
	char *t = report(sb.buf, sb.len, 0, &sys_opts, NULL);
	ok(strstr(t, "warning: QEMU -icount shift=auto: guest time follows the host's "
		  "emulation speed, so shares follow it"), "shift=auto: the warning");
	ok(!pt_has_line(t, TB_WARNING) && !strstr(t, "-icount on "), "... and no other");
	free(t);
	build_ref(&sb, false);
	t = report(sb.buf, sb.len, 0, &sys_opts, NULL);
	ok(!strstr(t, "shift=auto"), "without the flag: no shift=auto warning");
	free(t);
}

static void test_vprof(void)
{
	const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
	char dir[] = "/tmp/vprof-test.XXXXXX", cmd[1024], path[600];
	static char text[1 << 16];

	tool_root(dir, app_nm, kernel_nm);
	build_ref(&sb, false);
	snprintf(path, sizeof(path), "%s/stream", dir);
	tool_write(path, sb.buf, sb.len);

	snprintf(cmd, sizeof(cmd), "%s/host/vprof -r %s %s/stream 2>&1", build, dir, dir);
	is_int(tool_run(cmd, text, sizeof(text)), 0, "vprof STREAM exits 0");
	ok(starts(text, "samples: 100 total, 84 user, 10 kernel, 6 idle, 5 lost\n"),
	   "vprof prints the summary");
	HAS(text, " 10.00%       10      9765620  5 app                memcpy [k]");
	snprintf(cmd, sizeof(cmd), "%s/host/vprof -t -g -p 5 -r %s %s/stream 2>&1", build,
		 dir, dir);
	is_int(tool_run(cmd, text, sizeof(text)), 0, "vprof -t -g -p 5 exits 0");
	HAS(text, "0x0000000000401100       40     39062480  40.00%  compute");
	HAS(text, "(2 rows below 5.00% hidden)");
	HAS(text, "          40     39062480 100.00%  <- main");
	tool_usage_checks(build, "vprof", "Usage: vprof", path, text, sizeof(text));
	snprintf(cmd, sizeof(cmd), "%s/host/vprof -p abc %s/stream 2>/dev/null", build, dir);
	is_int(tool_run(cmd, text, sizeof(text)), 2, "bad percentage exits 2");
	snprintf(cmd, sizeof(cmd), "%s/host/vprof %s/missing 2>&1", build, dir);
	is_int(tool_run(cmd, text, sizeof(text)), 1, "missing stream exits 1");
	ok(strstr(text, "vprof:") && strstr(text, "missing"), "with a message: %.*s",
	   LINE(text));
	snprintf(cmd, sizeof(cmd), "%s/host/vprof %s/bin/app.nm 2>&1", build, dir);
	is_int(tool_run(cmd, text, sizeof(text)), 1, "malformed stream exits 1");
	ok(strstr(text, "not a profiler stream") != NULL, "with a message: %.*s",
	   LINE(text));
	snprintf(cmd, sizeof(cmd), "%s/host/vprof -B %s/boot/kernel.nm", build, dir);
	is_int(tool_run(cmd, text, sizeof(text)), 0, "vprof -B exits 0");
	ok(strncmp(text, "vprof.symbolize ", 16) == 0, "benchmark line: %.*s", LINE(text));
	test_vprof_root(build, dir, text, sizeof(text));
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		abort();
}

int main(void)
{
	test_system();
	test_labels();
	test_redacted_kernel();
	test_threshold();
	test_split();
	test_counts();
	test_task_style();
	test_tree();
	test_leaf_decide();
	test_leaf_fuzz();
	test_leaf_tree();
	test_elf();
	test_kernel_path();
	test_einval();
	test_sources();
	test_source_header();
	test_fuzz();
	test_enomem();
	test_tb_biased();
	test_icount_smp();
	test_icount_auto();
	test_weights();
	test_trace_records();
	test_vprof();
	free(pt_out);
	return done_testing();
}
