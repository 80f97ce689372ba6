/*
 * profil's report, in the layout of the MINIX assignment's sample runs:
 * the geometry, then one line per non-empty bin with its text offsets,
 * share, a bar scaled to the largest bin, count, absolute address and
 * the symbol there.
 */
#include <stdio.h>

#include "profil.h"

#define BAR_WIDTH 40
#define STARS "****************************************"

typedef unsigned long long ull;

static const char banner[] = "*************************";

/* Total of the bins used, and the largest into *max. */
static ull profil_total(const struct profil_data *d, ull *max)
{
	ull total = 0;

	*max = 0;
	for (uint64_t i = 0; i < d->nr_bins && i < PROFIL_MAX_BINS; i++) {
		total += d->bin[i];
		if (d->bin[i] > *max)
			*max = d->bin[i];
	}
	return total;
}

/* The geometry lines. */
static void profil_geometry_lines(const struct profil_data *d, const profil_prog_t *p)
{
	ull range = d->end_addr - d->start_addr;
	ull min = (range + PROFIL_MAX_BINS - 1) / PROFIL_MAX_BINS;
	ull last = d->nr_bins ? range - (d->nr_bins - 1) * d->bin_sz : 0;

	printf("%s Profile Statistics %s\n", banner, banner);
	printf("%d maximum bins\n", PROFIL_MAX_BINS);
	printf("Profiled Text Size = %llu = %#llx\n", range, range);
	printf("%llu/%d = %.3f\n", range, PROFIL_MAX_BINS, (double)range / PROFIL_MAX_BINS);
	printf("Minimum bytes/bin: %llu\n", min);
	printf("Bin Size: %llu\n", (ull)d->bin_sz);
	printf("Bins used: %llu\n", (ull)d->nr_bins);
	printf("Last bin represents last %llu bytes\n", last);
	printf("start_addr = %#llx, end_addr = %#llx, nr_bins = %llu, bin_sz = %llu\n",
	       (ull)(d->start_addr - p->text_base), (ull)(d->end_addr - p->text_base),
	       (ull)d->nr_bins, (ull)d->bin_sz);
	printf("text base = %#llx: absolute %#llx-%#llx\n", (ull)p->text_base,
	       (ull)d->start_addr, (ull)d->end_addr);
}

/* One bin's line. */
static void profil_bin_line(const struct profil_data *d, const profil_prog_t *p, uint64_t i,
			    ull total, ull max)
{
	ull n = d->bin[i], lo = d->start_addr + i * d->bin_sz, hi = lo + d->bin_sz;
	int stars = (int)((n * BAR_WIDTH + max - 1) / max);
	uint64_t off = 0;
	const char *sym = p->have_syms ? elfsym_lookup(&p->syms.table, lo, &off) : NULL;

	if (hi > d->end_addr)
		hi = d->end_addr;
	printf("%04llx-%04llx (%5.2f%%) : %-*.*s (%llu)  %#llx %s", lo - p->text_base,
	       hi - 1 - p->text_base, 100.0 * (double)n / (double)total, BAR_WIDTH, stars,
	       STARS, n, lo, sym ? sym : "?");
	if (sym && off)
		printf("+%#llx", (ull)off);
	printf("\n");
}

void profil_report(const struct profil_data *d, const profil_prog_t *p)
{
	ull max, total = profil_total(d, &max), shown = 0;

	profil_geometry_lines(d, p);
	printf("Total ticks in all bins: %llu\n", total);
	if (total) {
		ull top = (max * 100 + total - 1) / total;
		printf("....................................maximum percentage interval: "
		       "%llu%%\n", top);
	}
	for (uint64_t i = 0; total && i < d->nr_bins && i < PROFIL_MAX_BINS; i++) {
		if (!d->bin[i])
			continue;
		profil_bin_line(d, p, i, total, max);
		shown += d->bin[i];
	}
	printf("Percentage time in shown intervals: %.2f\n",
	       total ? 100.0 * (double)shown / (double)total : 0.0);
}
