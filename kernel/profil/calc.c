/*
 * The classic profiler's bin arithmetic (see kernel/profil.h): pure
 * functions, also built on the host for test/unit/test_profil.c.
 */
#include <kernel/profil.h>

/* Resolve 0 to the text bounds, check the range (see kernel/profil.h). Pure. */
errno_t profil_range(uint64_t text_start, uint64_t text_end, uint64_t *start,
		     uint64_t *end)
{
	if (!*start)
		*start = text_start;
	if (!*end)
		*end = text_end;
	if (*start >= *end)
		return EFAULT;
	if (*start < text_start || *end > text_end)
		return EFAULT;
	return EOK;
}

/* Smallest bin size covering range bytes with PROFIL_MAX_BINS bins. */
static uint64_t profil_min_bin(uint64_t range)
{
	uint64_t sz = range / PROFIL_MAX_BINS;

	if (sz * PROFIL_MAX_BINS < range)
		sz++;
	return sz;
}

/* Bin size and count for [start, end) (see kernel/profil.h). Pure. */
errno_t profil_geometry(uint64_t start, uint64_t end, uint64_t interval,
			struct profil_data *d)
{
	uint64_t range = end - start, min = profil_min_bin(range);

	if (interval && interval < min)
		return EFAULT;
	d->start_addr = start;
	d->end_addr = end;
	d->bin_sz = interval > min ? interval : min;
	d->nr_bins = range / d->bin_sz;
	if (range > d->bin_sz * d->nr_bins)
		d->nr_bins++;
	return EOK;
}

/* The bin of pc, or -1 outside the range. Pure. */
int64_t profil_bin_of(const struct profil_data *d, uint64_t pc)
{
	if (pc < d->start_addr || pc >= d->end_addr || !d->bin_sz)
		return -1;
	return (int64_t)((pc - d->start_addr) / d->bin_sz);
}

/* Count one in *bin unless that would overflow (then false). Lock-free, NMI-safe. */
bool profil_bin_inc(uint64_t *bin)
{
	uint64_t v = __atomic_load_n(bin, __ATOMIC_RELAXED);

	do {
		if (v == UINT64_MAX)
			return false;
	} while (!__atomic_compare_exchange_n(bin, &v, v + 1, false, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	return true;
}
