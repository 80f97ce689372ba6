/*
 * gprof's gmon.out records (lib/profgmon.h): the header, the histogram
 * record with its 16-bit bins, call arcs; little-endian throughout.
 */
#include <lib/profgmon.h>
#include <lib/string.h>

#define GMON_TAG_HIST 0
#define GMON_TAG_ARC 1

static void gmon_le(unsigned char *p, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* The divisor that brings the largest bin of h under 65536. */
static uint64_t gmon_div(const prof_gmon_hist_t *h)
{
	uint64_t max = 0;

	for (size_t i = 0; i < h->nbins; i++) {
		uint64_t c = h->count(h->ctx, i);
		max = c > max ? c : max;
	}
	return max > 0xffff ? (max + 0xfffe) / 0xffff : 1;
}

/* The header, the histogram record and its bins. */
void prof_gmon_write(const prof_gmon_hist_t *h, fmt_sink_t put, void *ctx)
{
	static const unsigned char head[20] = { 'g', 'm', 'o', 'n', 1 };
	unsigned char rec[1 + 8 + 8 + 4 + 4 + 15 + 1], c[2];
	uint64_t div = gmon_div(h);

	memset(rec, 0, sizeof(rec));
	rec[0] = GMON_TAG_HIST;
	gmon_le(rec + 1, h->lo, 8);
	gmon_le(rec + 9, h->lo + ((uint64_t)h->nbins << h->shift), 8);
	gmon_le(rec + 17, h->nbins, 4);
	gmon_le(rec + 21, h->rate / div ? h->rate / div : 1, 4);
	memcpy(rec + 25, "seconds", 7);
	rec[40] = 's';
	put(ctx, (const char *)head, sizeof(head));
	put(ctx, (const char *)rec, sizeof(rec));
	for (size_t i = 0; i < h->nbins; i++) {
		gmon_le(c, (h->count(h->ctx, i) + div / 2) / div, 2);
		put(ctx, (const char *)c, 2);
	}
}

/* One call-arc record. */
void prof_gmon_arc(uint64_t from_pc, uint64_t self_pc, uint64_t count, fmt_sink_t put,
		   void *ctx)
{
	unsigned char rec[1 + 8 + 8 + 4];

	rec[0] = GMON_TAG_ARC;
	gmon_le(rec + 1, from_pc, 8);
	gmon_le(rec + 9, self_pc, 8);
	gmon_le(rec + 17, count > UINT32_MAX ? UINT32_MAX : count, 4);
	put(ctx, (const char *)rec, sizeof(rec));
}
