/*
 * The idle poll limit's adaptation (see <kernel/idle.h>), apart from the
 * idle loop so that the host unit tests can link it.
 */
#include <kernel/idle.h>

uint64_t idle_poll_adjust(uint64_t limit, uint64_t block, uint64_t max,
			  uint64_t grow_start)
{
	if (limit > max)                              /* the maximum was lowered */
		limit = max;
	if (block > limit && block <= max) {          /* a longer poll had caught it */
		uint64_t grown = limit * 2;
		if (grown < grow_start)
			grown = grow_start;
		return grown < max ? grown : max;
	}
	if (block > max) {                            /* polling would have been waste */
		uint64_t shrunk = limit / 2;
		return shrunk < grow_start ? 0 : shrunk;
	}
	return limit;                                 /* the poll caught it */
}
