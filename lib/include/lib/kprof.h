/*
 * Inferno-style kernel PC histograms (kprof(3) / kprof(10.1)): the layout
 * of /dev/kpdata, counting samples into it, and the per-function report of
 * the kprof tools. Freestanding: shared by /bin/fs (which serves
 * /dev/kpctl and /dev/kpdata), the guest's /bin/kprof and tools/kprof.
 *
 * kpdata is nbuckets 4-byte big-endian words. Word i counts the ticks
 * whose PC lay in the kernel text bytes [start + i * B, start + (i+1) * B)
 * with B = 1 << log2; as the manual says, the first six words are replaced
 * by special counts (KPROF_W_*): total ticks, ticks outside kernel text,
 * microseconds per tick, nbuckets, the size of a count in bytes (4) and
 * log2 of B. So the file has 4 * nbuckets bytes, and ticks in the first
 * 6 * B bytes of text count only in the total.
 */
#ifndef LIB_KPROF_H
#define LIB_KPROF_H

#include <abi/errno.h>
#include <lib/elf.h>
#include <lib/fmt.h>
#include <lib/profsym.h>
#include <stddef.h>
#include <stdint.h>

#define KPROF_HDR_WORDS 6
#define KPROF_WORD 4                    /* bytes of a count (word KPROF_W_SIZE) */
#define KPROF_LOG2_MIN 3                /* 8-byte buckets, the manual's usual */
#define KPROF_LOG2_MAX 16
#define KPROF_BUCKETS_MAX 65536         /* 256 KiB of counts at most */

#define KPROF_W_TOTAL 0
#define KPROF_W_OUTSIDE 1
#define KPROF_W_USPT 2                  /* microseconds per tick */
#define KPROF_W_NBUCKETS 3
#define KPROF_W_SIZE 4
#define KPROF_W_LOG2 5

/* A histogram: words[0..nbuckets) in host order, header words included. */
typedef struct kprof_hist {
	uint32_t *words;
	uint32_t nbuckets, log2;
	uint64_t start, end;            /* kernel text */
} kprof_hist_t;

/*
 * Lay out h (words must hold KPROF_BUCKETS_MAX) for text [start, end):
 * the smallest log2 >= KPROF_LOG2_MIN with at most KPROF_BUCKETS_MAX
 * buckets; fills the header words (counts zero). EINVAL for empty or too
 * large text.
 */
errno_t kprof_hist_init(kprof_hist_t *h, uint64_t start, uint64_t end,
			uint32_t usec_per_tick);
/* Zero h's counts (the three count words and the buckets). */
void kprof_hist_clear(kprof_hist_t *h);
/* Count one tick at pc (relaxed atomic adds: one writer, any readers). */
void kprof_hist_count(kprof_hist_t *h, uint64_t pc);
/*
 * The bytes [off, off + len) of the kpdata file of h into dst (big-endian);
 * returns how many there were (0 at or past the end).
 */
size_t kprof_hist_encode(const kprof_hist_t *h, uint64_t off, uint8_t *dst,
			 size_t len);

/* A kpdata file checked by kprof_parse. */
typedef struct kprof_data {
	const uint8_t *raw;
	uint32_t total, outside, usec_per_tick;
	uint32_t nbuckets, word, log2;
} kprof_data_t;

/*
 * Check the size bytes of kpdata at raw: 4 * nbuckets bytes, at least
 * the header, count size 4, log2 in [0, KPROF_LOG2_MAX]. EOK or EINVAL.
 */
errno_t kprof_parse(const uint8_t *raw, size_t size, kprof_data_t *d);
/* Word i of d (host order). */
uint32_t kprof_word(const kprof_data_t *d, uint32_t i);

/*
 * The address of the kernel's __text_start in its ELF image (before
 * profsym_from_elf reorders the symbols), or 0 if there is none.
 */
uint64_t kprof_text_start(const void *image, size_t size);

/*
 * Print the report of d for text at text_start with the symbols syms:
 *   total: T	in kernel text: K	outside kernel text: O
 *   KTZERO ADDR	U us per tick, N buckets of B bytes
 *      ticks       %      ms  function
 *        500  45.45%   500.0  syscall_dispatch
 * one row per function (buckets without a symbol as their hex address),
 * most ticks first, % of the total ticks. Memory for the rows from mem.
 * EOK or ENOMEM.
 */
errno_t kprof_report(const kprof_data_t *d, uint64_t text_start,
		     const elfsym_table_t *syms, const profsym_mem_t *mem,
		     fmt_sink_t out, void *ctx);

/*
 * Write d as gprof's gmon.out (header "gmon", version 1, one histogram
 * record: the buckets over [text_start, text_start + nbuckets * B) as
 * its bins, the six header words' buckets as 0, the rate 1e6 /
 * microseconds per tick; counts above 65535 divide every bin and the rate
 * alike, 16-bit bins being gmon's) to out. No call arcs: kpdata has none.
 */
void kprof_gmon(const kprof_data_t *d, uint64_t text_start, fmt_sink_t out, void *ctx);

#endif
