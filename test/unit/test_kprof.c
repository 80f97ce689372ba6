/*
 * Unit tests for lib/prof/kprof.c: the kpdata layout (geometry, counting,
 * big-endian encoding, the six header words over the first buckets),
 * parsing and its checks, and the per-function report.
 */
#include "tap.h"

#include <stdlib.h>
#include <string.h>

#include <lib/kprof.h>
#include <profenv.h>

#define TEXT 0xffffffff80200000ull

static uint32_t words[KPROF_BUCKETS_MAX];
static uint8_t file[KPROF_BUCKETS_MAX * KPROF_WORD];
static char outbuf[8192];
static size_t outlen;

static void sink(void *ctx, const char *s, size_t len)
{
	(void)ctx;
	if (outlen + len < sizeof(outbuf)) {
		memcpy(outbuf + outlen, s, len);
		outlen += len;
		outbuf[outlen] = '\0';
	}
}

static void test_geometry(void)
{
	kprof_hist_t h = { .words = words };

	is_int(kprof_hist_init(&h, TEXT, TEXT + 0x1cd35, 1000), EOK, "118 KiB: laid out");
	is_uint(h.log2, 3, "118 KiB: 8-byte buckets");
	is_uint(h.nbuckets, 14759, "118 KiB: 14759 buckets (the last partly)");
	is_uint(words[KPROF_W_NBUCKETS], 14759, "header: nbuckets");
	is_uint(words[KPROF_W_SIZE], 4, "header: 4-byte counts");
	is_uint(words[KPROF_W_LOG2], 3, "header: log2 3");
	is_uint(words[KPROF_W_USPT], 1000, "header: us per tick");
	is_int(kprof_hist_init(&h, TEXT, TEXT + 0x100000, 1000), EOK, "1 MiB: laid out");
	is_uint(h.log2, 4, "1 MiB: 16-byte buckets (65536 at most)");
	is_uint(h.nbuckets, 65536, "1 MiB: 65536 buckets");
	is_int(kprof_hist_init(&h, TEXT, TEXT, 1000), EINVAL, "empty text: EINVAL");
	is_int(kprof_hist_init(&h, TEXT, TEXT + (1ull << 33), 1000), EINVAL,
	       "8 GiB of text: EINVAL");
}

static void test_count_encode(void)
{
	kprof_hist_t h = { .words = words };
	kprof_data_t d;

	kprof_hist_init(&h, TEXT, TEXT + 0x400, 976);
	kprof_hist_count(&h, TEXT + 0x100);        /* bucket 32 */
	kprof_hist_count(&h, TEXT + 0x107);        /* bucket 32 */
	kprof_hist_count(&h, TEXT + 0x3ff);        /* the last, 127 */
	kprof_hist_count(&h, TEXT + 0x10);         /* bucket 2: the header's */
	kprof_hist_count(&h, 0x401000);            /* user: outside */
	kprof_hist_count(&h, TEXT + 0x400);        /* just past the text */
	is_uint(kprof_hist_encode(&h, 0, file, sizeof(file)), 128 * 4, "file: 4 x 128 bytes");
	is_uint(kprof_hist_encode(&h, 128 * 4, file, 4), 0, "nothing past the end");
	ok(file[0] == 0 && file[1] == 0 && file[2] == 0 && file[3] == 6,
	   "word 0: 6 ticks, big-endian");
	ok(file[7] == 2, "word 1: 2 outside");
	ok(file[10] == 0x03 && file[11] == 0xd0, "word 2: 976 us per tick (0x3d0)");
	ok(file[15] == 128 && file[19] == 4 && file[23] == 3, "words 3-5: 128, 4, 3");
	ok(file[32 * 4 + 3] == 2 && file[127 * 4 + 3] == 1, "buckets 32 and 127");
	is_int(kprof_parse(file, 128 * 4, &d), EOK, "parsed");
	ok(d.total == 6 && d.outside == 2 && d.usec_per_tick == 976 && d.nbuckets == 128 &&
	   d.word == 4 && d.log2 == 3, "parsed header");
	is_uint(kprof_word(&d, 32), 2, "bucket 32 read back");
	uint8_t part[3];
	is_uint(kprof_hist_encode(&h, 129, part, 3), 3, "a read in mid-word");
	ok(part[0] == 0 && part[1] == 0 && part[2] == 2, "mid-word bytes");
	is_int(kprof_parse(file, 127 * 4, &d), EINVAL, "short file: EINVAL");
	is_int(kprof_parse(file, 8, &d), EINVAL, "no header: EINVAL");
	file[19] = 8;
	is_int(kprof_parse(file, 128 * 4, &d), EINVAL, "count size 8: EINVAL");
	kprof_hist_clear(&h);
	kprof_hist_encode(&h, 0, file, sizeof(file));
	ok(file[3] == 0 && file[7] == 0 && file[32 * 4 + 3] == 0 && file[15] == 128,
	   "cleared: counts zero, header kept");
}

static void test_report(void)
{
	static char strtab[] = "\0alpha\0beta\0";
	elf64_sym_t syms[2] = {
		{ .st_name = 1, .st_info = STT_FUNC, .st_shndx = 1, .st_value = TEXT + 0x100,
		  .st_size = 0x100 },
		{ .st_name = 7, .st_info = STT_FUNC, .st_shndx = 1, .st_value = TEXT + 0x200,
		  .st_size = 0x100 },
	};
	elfsym_table_t t;
	profsym_mem_t mem = { NULL, prof_env_malloc, prof_env_free };
	kprof_hist_t h = { .words = words };
	kprof_data_t d;

	is_int(elfsym_prepare(&t, syms, 2, strtab, sizeof(strtab)), EOK, "symbols");
	kprof_hist_init(&h, TEXT, TEXT + 0x400, 1000);
	for (int i = 0; i < 3; i++)
		kprof_hist_count(&h, TEXT + 0x108 + 8 * i);  /* alpha, 3 buckets */
	kprof_hist_count(&h, TEXT + 0x100);
	kprof_hist_count(&h, TEXT + 0x2f8);              /* beta */
	kprof_hist_count(&h, TEXT + 0x300);              /* no symbol */
	kprof_hist_count(&h, 0x401000);                  /* outside */
	kprof_hist_encode(&h, 0, file, sizeof(file));
	kprof_parse(file, h.nbuckets * 4, &d);
	is_int(kprof_report(&d, TEXT, &t, &mem, sink, NULL), EOK, "report");
	is_str(outbuf,
	       "total: 7\tin kernel text: 6\toutside kernel text: 1\n"
	       "KTZERO ffffffff80200000\t1000 us per tick, 128 buckets of 8 bytes\n"
	       "   ticks       %      ms  function\n"
	       "       4  57.14%     4.0  alpha\n"
	       "       1  14.29%     1.0  beta\n"
	       "       1  14.29%     1.0  0xffffffff80200300\n",
	       "report text");
}

/* kprof_gmon: header, one histogram record over the buckets, header words 0. */
static void test_gmon(void)
{
	kprof_hist_t h = { .words = words };
	kprof_data_t d;

	kprof_hist_init(&h, TEXT, TEXT + 0x400, 500);
	for (int i = 0; i < 70000; i++)
		kprof_hist_count(&h, TEXT + 0x108);          /* bucket 33 */
	kprof_hist_count(&h, TEXT + 0x2f8);              /* bucket 95 */
	kprof_hist_count(&h, TEXT + 0x8);                /* bucket 1: a header word */
	kprof_hist_encode(&h, 0, file, sizeof(file));
	kprof_parse(file, h.nbuckets * 4, &d);
	outlen = 0;
	kprof_gmon(&d, TEXT, sink, NULL);
	const unsigned char *g = (const unsigned char *)outbuf;
	uint64_t lo = 0, hi = 0;
	for (int i = 7; i >= 0; i--) {
		lo = lo << 8 | g[21 + i];
		hi = hi << 8 | g[29 + i];
	}
	is_uint(outlen, 20 + 41 + 2 * 128, "gmon: header, histogram record, 128 bins");
	ok(memcmp(g, "gmon\1\0\0\0", 8) == 0 && g[20] == 0, "gmon: magic, version 1, tag 0");
	ok(lo == TEXT && hi == TEXT + 0x400 && (g[37] | g[38] << 8) == 128,
	   "gmon: the text in 128 bins");
	/* 70000 ticks > 65535: bins and the rate (2000 Hz) halve. */
	is_int(g[41] | g[42] << 8, 1000, "gmon: rate 1e6 / 500 us, halved with the bins");
	ok(memcmp(g + 45, "seconds", 8) == 0 && g[60] == 's', "gmon: dimension seconds, s");
	is_int(g[61 + 2 * 33] | g[62 + 2 * 33] << 8, 35000, "gmon: bucket 33 halved");
	is_int(g[61 + 2 * 95] | g[62 + 2 * 95] << 8, 1, "gmon: bucket 95 (1, rounded)");
	is_int(g[61 + 2 * 3] | g[62 + 2 * 3] << 8, 0, "gmon: header-word buckets are 0");
}

int main(void)
{
	test_geometry();
	test_count_encode();
	test_report();
	test_gmon();
	return done_testing();
}
