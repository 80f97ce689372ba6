/*
 * gprof's gmon.out, the one encoder (lib/prof/export/gmonfile.c): the
 * header ("gmon", version 1), a histogram record and call-arc records.
 * The sample profile's gmon export (one file per binary, with arcs) and
 * kprof -F gmon (the kernel PC histogram, no arcs) both write through it.
 */
#ifndef LIB_PROFGMON_H
#define LIB_PROFGMON_H

#include <lib/fmt.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A histogram: nbins bins of 2^shift bytes from lo, at rate ticks a
 * second; count(ctx, i) is bin i's count.
 */
typedef struct prof_gmon_hist {
	uint64_t lo;
	unsigned shift;
	size_t nbins;
	uint64_t rate;
	uint64_t (*count)(const void *ctx, size_t i);
	const void *ctx;
} prof_gmon_hist_t;

/*
 * Write the header and the histogram record of h to put (bytes, not text): counts above
 * 65535 divide every bin (rounded) and the rate (at least 1) alike, as
 * gmon's bins are 16-bit.
 */
void prof_gmon_write(const prof_gmon_hist_t *h, fmt_sink_t put, void *ctx);

/* Write one call-arc record: count calls (at most 2^32 - 1) from from_pc to self_pc. */
void prof_gmon_arc(uint64_t from_pc, uint64_t self_pc, uint64_t count, fmt_sink_t put,
		   void *ctx);

#endif
