/*
 * bench prof.report: how fast the in-guest report (lib/prof/profreport.c, what
 * sprofile and profile run) turns samples into its symbolized table.
 * Figures:
 *
 *   prof.report               samples a second through prof_report_feed
 *                             and prof_report_print (output discarded),
 *                             the samples at REPORT_PCS distinct PCs (as
 *                             vprof -X report's 4096 stacks on the host)
 *   prof.report.distinct      the same with every sample at its own
 *                             random PC (each symbolized: the worst case)
 *
 * The stream is made here: a HEADER with the kernel's text range, the
 * task and LOAD of /bin/bench, then REPORT_SAMPLES samples without call
 * chains, a quarter in the kernel and the rest in bench, at PCs in its
 * binary's symbol range (symbolized from /boot/kernel's or /bin/bench's
 * .symtab at print time). It is fed in 64 KiB pieces, as sprofile reads
 * the kernel's. One run each; the time is the TSC's from the first feed
 * to the end of the print.
 */
#include <abi/profile.h>
#include <lib/profreport.h>
#include <lib/profsym.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <vernier.h>

#include <profenv.h>

#include "bench.h"

#define REPORT_SAMPLES 200000u
#define REPORT_PIECE 65536u
#define REPORT_TASK 1u
#define REPORT_PCS 4096u

typedef struct rb_range {
	uint64_t lo, hi;                /* the first and the last symbol's address */
} rb_range_t;

static errno_t rb_load(void *ctx, const char *path, void **data, size_t *size)
{
	(void)ctx;
	return file_read_all(path, SIZE_MAX, data, size);
}

static void rb_null(void *ctx, const char *s, size_t len)
{
	(void)ctx, (void)s, (void)len;
}

/* The symbol range of the ELF file at path; false if it has no symbols. */
static bool rb_range(const char *path, rb_range_t *r)
{
	profsym_mem_t mem = { NULL, prof_env_malloc, prof_env_free };
	void *image = NULL;
	size_t size = 0;
	profsym_t ps;

	if (file_read_all(path, SIZE_MAX, &image, &size) != EOK ||
	    profsym_from_elf(&ps, image, size) != EOK || ps.table.count < 2) {
		free(image);
		return false;
	}
	r->lo = ps.table.syms[0].st_value;
	r->hi = ps.table.syms[ps.table.count - 1].st_value;
	profsym_release(&ps, &mem);
	free(image);
	return r->hi > r->lo;
}

/* The stream's first records: header, task, load of /bin/bench. */
static size_t rb_prologue(uint8_t *buf, const rb_range_t *k, const rb_range_t *u)
{
	prof_rec_header_t h;
	prof_rec_task_t t;
	struct { prof_rec_load_t l; char path[16]; } ld;
	size_t n = 0;

	memset(&h, 0, sizeof(h));
	h.h = (prof_rec_t){ PROF_REC_HEADER, sizeof(h), 0, 0 };
	h.magic = PROF_MAGIC;
	h.version = PROF_VERSION;
	h.source = PROF_SRC_TIMER;
	h.hz = 1000;
	h.ncpus = 1;
	h.tsc_hz = 1000000000;
	h.ktext_start = k->lo;
	h.ktext_end = k->hi + 1;
	memcpy(buf + n, &h, sizeof(h));
	n += sizeof(h);
	memset(&t, 0, sizeof(t));
	t.h = (prof_rec_t){ PROF_REC_TASK, sizeof(t), 0, 0 };
	t.task = REPORT_TASK;
	strcpy(t.name, "bench");
	memcpy(buf + n, &t, sizeof(t));
	n += sizeof(t);
	memset(&ld, 0, sizeof(ld));
	ld.l.h = (prof_rec_t){ PROF_REC_LOAD, sizeof(ld), 0, 0 };
	ld.l.task = REPORT_TASK;
	ld.l.text_start = u->lo;
	ld.l.text_end = u->hi + 1;
	strcpy(ld.path, "/bin/bench");
	memcpy(buf + n, &ld, sizeof(ld));
	return n + sizeof(ld);
}

static uint64_t rb_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A random PC: a quarter in the kernel's range k, the rest in u's. */
static uint64_t rb_pc(uint64_t *seed, const rb_range_t *k, const rb_range_t *u)
{
	uint64_t x = rb_next(seed);
	const rb_range_t *b = x % 4 == 0 ? k : u;

	return b->lo + (x >> 2) % (b->hi - b->lo + 1);
}

/*
 * Feed REPORT_SAMPLES samples to r in pieces of buf: at random PCs, or
 * (pcs) at random ones of those REPORT_PCS.
 */
static errno_t rb_feed(prof_report_t *r, uint8_t *buf, const rb_range_t *k, const rb_range_t *u,
		       const uint64_t *pcs)
{
	prof_rec_sample_t s;
	uint64_t seed = 0x2545f4914f6cdd1dull;
	size_t n = 0;
	errno_t err = EOK;

	memset(&s, 0, sizeof(s));
	s.h = (prof_rec_t){ PROF_REC_SAMPLE, sizeof(s), 0, 0 };
	s.task = REPORT_TASK;
	s.thread = 1;
	for (uint32_t i = 0; i < REPORT_SAMPLES && err == EOK; i++) {
		s.h.tsc = 1000000ull * i;
		s.pc = pcs ? pcs[rb_next(&seed) % REPORT_PCS] : rb_pc(&seed, k, u);
		s.mode = s.pc >= k->lo && s.pc <= k->hi ? PROF_MODE_KERNEL : PROF_MODE_USER;
		memcpy(buf + n, &s, sizeof(s));
		n += sizeof(s);
		if (n + sizeof(s) > REPORT_PIECE) {
			err = prof_report_feed(r, buf, n);
			n = 0;
		}
	}
	return err == EOK && n ? prof_report_feed(r, buf, n) : err;
}

/* One figure: feed and print a report; its samples/s printed. 0 or -1. */
static int rb_run(const char *name, uint64_t tsc_hz, const rb_range_t *k, const rb_range_t *u,
		  const uint64_t *pcs)
{
	prof_env_t env = { NULL, prof_env_malloc, prof_env_free, rb_load, rb_null };
	prof_report_opts_t o = { PROF_STYLE_SYSTEM, 50, false, NULL, false, 0 };
	uint8_t *buf = malloc(REPORT_PIECE);
	prof_report_t *r;

	if (!buf || prof_report_new(&env, &r) != EOK) {
		free(buf);
		return -1;
	}
	uint64_t t0 = tsc_read();
	errno_t err = prof_report_feed(r, buf, rb_prologue(buf, k, u));
	if (err == EOK)
		err = rb_feed(r, buf, k, u, pcs);
	if (err == EOK)
		err = prof_report_print(r, &o);
	uint64_t cycles = tsc_read() - t0;
	prof_report_free(r);
	free(buf);
	if (err != EOK) {
		printf("bench: %s: error %d\n", name, err);
		return -1;
	}
	printf("%s %llu samples/s\n", name,
	       (unsigned long long)(cycles ? REPORT_SAMPLES * tsc_hz / cycles : 0));
	printf("# %s: %u samples at %s PCs (1/4 kernel), %llu cycles\n", name, REPORT_SAMPLES,
	       pcs ? "4096 random" : "random", (unsigned long long)cycles);
	return 0;
}

int bench_prof_report(void)
{
	static uint64_t pcs[REPORT_PCS];
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	system_stats_t st;
	rb_range_t k, u;

	if (__vernier_syscall(SYS_SYSTEM_STATS, (long)&st, 0, 0, 0, 0, 0) < 0 ||
	    !rb_range("/boot/kernel", &k) || !rb_range("/bin/bench", &u)) {
		printf("# prof.report: no symbols in /boot/kernel or /bin/bench\n");
		return 0;
	}
	for (unsigned i = 0; i < REPORT_PCS; i++)
		pcs[i] = rb_pc(&seed, &k, &u);
	if (rb_run("prof.report", st.tsc_hz, &k, &u, pcs) != 0)
		return -1;
	return rb_run("prof.report.distinct", st.tsc_hz, &k, &u, NULL);
}
