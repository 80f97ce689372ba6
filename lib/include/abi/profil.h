/*
 * The classic profiler (MINIX's profil, see README "profil"), shared by
 * the kernel and libc: SYS_PROFILE starts or stops counting the profiled
 * task's user PCs in up to PROFIL_MAX_BINS bins over part of its text
 * segment, SYS_GETPROFILE copies the counts out.
 *
 * Addresses are absolute user addresses; the profiled range is
 * [start_addr, end_addr). Bin i counts PCs in
 * [start_addr + i * bin_sz, start_addr + (i + 1) * bin_sz), the last bin
 * only up to end_addr. Bins are 64-bit counters; one that would overflow
 * stops the profile (it keeps its maximum value).
 */
#ifndef ABI_PROFIL_H
#define ABI_PROFIL_H

#include <stdint.h>

#define PROFIL_MAX_BINS 1024

struct profil_data {
	uint64_t start_addr;            /* first address profiled */
	uint64_t end_addr;              /* end of the range (exclusive) */
	uint64_t nr_bins;               /* bins in use, <= PROFIL_MAX_BINS */
	uint64_t bin_sz;                /* bytes per bin */
	uint64_t bin[PROFIL_MAX_BINS];  /* counts; unused bins are 0 */
};

#endif
