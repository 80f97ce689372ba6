/*
 * Inferno-style kernel PC histograms: /dev/kpdata's layout and the kprof
 * report (see lib/kprof.h).
 */
#include <lib/fmt.h>
#include <lib/kprof.h>
#include <lib/profgmon.h>
#include <lib/string.h>

#include <stdbool.h>

/* ---------------------------------------------------------------- histogram */

errno_t kprof_hist_init(kprof_hist_t *h, uint64_t start, uint64_t end,
			uint32_t usec_per_tick)
{
	uint32_t log2 = KPROF_LOG2_MIN;

	if (end <= start)
		return EINVAL;
	while (log2 <= KPROF_LOG2_MAX &&
	       ((end - start - 1) >> log2) + 1 > KPROF_BUCKETS_MAX)
		log2++;
	if (log2 > KPROF_LOG2_MAX)
		return EINVAL;
	uint64_t n = ((end - start - 1) >> log2) + 1;
	h->nbuckets = n < KPROF_HDR_WORDS ? KPROF_HDR_WORDS : (uint32_t)n;
	h->log2 = log2;
	h->start = start;
	h->end = end;
	kprof_hist_clear(h);
	h->words[KPROF_W_USPT] = usec_per_tick;
	h->words[KPROF_W_NBUCKETS] = h->nbuckets;
	h->words[KPROF_W_SIZE] = KPROF_WORD;
	h->words[KPROF_W_LOG2] = log2;
	return EOK;
}

void kprof_hist_clear(kprof_hist_t *h)
{
	__atomic_store_n(&h->words[KPROF_W_TOTAL], 0, __ATOMIC_RELAXED);
	__atomic_store_n(&h->words[KPROF_W_OUTSIDE], 0, __ATOMIC_RELAXED);
	for (uint32_t i = KPROF_HDR_WORDS; i < h->nbuckets; i++)
		__atomic_store_n(&h->words[i], 0, __ATOMIC_RELAXED);
}

static void kprof_add(uint32_t *w)
{
	__atomic_store_n(w, __atomic_load_n(w, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
}

void kprof_hist_count(kprof_hist_t *h, uint64_t pc)
{
	kprof_add(&h->words[KPROF_W_TOTAL]);
	if (pc < h->start || pc >= h->end) {
		kprof_add(&h->words[KPROF_W_OUTSIDE]);
		return;
	}
	uint64_t i = (pc - h->start) >> h->log2;
	if (i >= KPROF_HDR_WORDS)     /* the first six are the header's */
		kprof_add(&h->words[i]);
}

size_t kprof_hist_encode(const kprof_hist_t *h, uint64_t off, uint8_t *dst,
			 size_t len)
{
	uint64_t size = (uint64_t)h->nbuckets * KPROF_WORD;
	size_t n = 0;

	for (; n < len && off + n < size; n++) {
		uint64_t at = off + n;
		uint32_t w = __atomic_load_n(&h->words[at / KPROF_WORD], __ATOMIC_RELAXED);
		dst[n] = (uint8_t)(w >> (8 * (KPROF_WORD - 1 - at % KPROF_WORD)));
	}
	return n;
}

/* ---------------------------------------------------------------- the file */

uint32_t kprof_word(const kprof_data_t *d, uint32_t i)
{
	const uint8_t *p = d->raw + (size_t)i * KPROF_WORD;

	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

errno_t kprof_parse(const uint8_t *raw, size_t size, kprof_data_t *d)
{
	d->raw = raw;
	if (size < KPROF_HDR_WORDS * KPROF_WORD)
		return EINVAL;
	d->total = kprof_word(d, KPROF_W_TOTAL);
	d->outside = kprof_word(d, KPROF_W_OUTSIDE);
	d->usec_per_tick = kprof_word(d, KPROF_W_USPT);
	d->nbuckets = kprof_word(d, KPROF_W_NBUCKETS);
	d->word = kprof_word(d, KPROF_W_SIZE);
	d->log2 = kprof_word(d, KPROF_W_LOG2);
	if (d->word != KPROF_WORD || d->log2 > KPROF_LOG2_MAX ||
	    d->nbuckets < KPROF_HDR_WORDS || d->nbuckets > KPROF_BUCKETS_MAX ||
	    (uint64_t)d->nbuckets * KPROF_WORD != size || d->outside > d->total)
		return EINVAL;
	return EOK;
}

uint64_t kprof_text_start(const void *image, size_t size)
{
	const elf64_shdr_t *symtab, *strtab;

	if (elf_find_symtab(image, size, &symtab, &strtab) != EOK)
		return 0;
	const uint8_t *img = image;
	const elf64_sym_t *syms = (const void *)(img + symtab->sh_offset);
	const char *names = (const char *)img + strtab->sh_offset;
	size_t n = symtab->sh_size / sizeof(elf64_sym_t);
	for (size_t i = 0; i < n; i++) {
		if (syms[i].st_name < strtab->sh_size &&
		    strcmp(names + syms[i].st_name, "__text_start") == 0)
			return syms[i].st_value;
	}
	return 0;
}

/* ---------------------------------------------------------------- report */

typedef struct kprof_row {
	const char *name;               /* NULL: no symbol, print addr */
	uint64_t addr;
	uint64_t ticks;
} kprof_row_t;

/* Does row a come before b (more ticks, then lower address)? */
static bool kprof_before(const kprof_row_t *a, const kprof_row_t *b)
{
	return a->ticks != b->ticks ? a->ticks > b->ticks : a->addr < b->addr;
}

/* Shell sort rows (no recursion, no allocation). */
static void kprof_sort(kprof_row_t *rows, size_t n)
{
	for (size_t gap = n / 2; gap > 0; gap /= 2) {
		for (size_t i = gap; i < n; i++) {
			kprof_row_t r = rows[i];
			size_t j = i;
			for (; j >= gap && kprof_before(&r, &rows[j - gap]); j -= gap)
				rows[j] = rows[j - gap];
			rows[j] = r;
		}
	}
}

/* Sum the buckets of d into rows (one per function, in address order); returns the count. */
static size_t kprof_rows(const kprof_data_t *d, uint64_t text_start,
			 const elfsym_table_t *syms, kprof_row_t *rows)
{
	size_t n = 0;

	for (uint32_t i = KPROF_HDR_WORDS; i < d->nbuckets; i++) {
		uint32_t t = kprof_word(d, i);
		if (t == 0)
			continue;
		uint64_t addr = text_start + ((uint64_t)i << d->log2), off = 0;
		const char *name = syms ? elfsym_lookup(syms, addr, &off) : NULL;
		if (name && n > 0 && rows[n - 1].name == name) {
			rows[n - 1].ticks += t;
			continue;
		}
		rows[n++] = (kprof_row_t){ .name = name, .addr = name ? addr - off : addr,
					   .ticks = t };
	}
	return n;
}

/* One row: ticks, percent of total (hundredths), ms (tenths), function. */
static void kprof_print_row(const fmt_out_t *o, const kprof_data_t *d,
			    const kprof_row_t *r)
{
	uint64_t centi = d->total ? (r->ticks * 10000 + d->total / 2) / d->total : 0;
	uint64_t tenth_ms = (r->ticks * d->usec_per_tick + 50) / 100;

	fmt_outf(o, "%8lu %3lu.%02lu%% %5lu.%lu  ", (unsigned long)r->ticks,
		 (unsigned long)(centi / 100), (unsigned long)(centi % 100),
		 (unsigned long)(tenth_ms / 10), (unsigned long)(tenth_ms % 10));
	if (r->name)
		fmt_outf(o, "%s\n", r->name);
	else
		fmt_outf(o, "0x%lx\n", (unsigned long)r->addr);
}

errno_t kprof_report(const kprof_data_t *d, uint64_t text_start,
		     const elfsym_table_t *syms, const profsym_mem_t *mem,
		     fmt_sink_t out, void *ctx)
{
	fmt_out_t o = { out, ctx };
	size_t cap = d->nbuckets - KPROF_HDR_WORDS + 1;
	kprof_row_t *rows = mem->alloc(mem->ctx, cap * sizeof(*rows));

	if (!rows)
		return ENOMEM;
	size_t n = kprof_rows(d, text_start, syms, rows);
	kprof_sort(rows, n);
	fmt_outf(&o, "total: %u\tin kernel text: %u\toutside kernel text: %u\n",
		 d->total, d->total - d->outside, d->outside);
	fmt_outf(&o, "KTZERO %lx\t%u us per tick, %u buckets of %u bytes\n",
		 (unsigned long)text_start, d->usec_per_tick, d->nbuckets, 1u << d->log2);
	fmt_outf(&o, "   ticks       %%      ms  function\n");
	for (size_t i = 0; i < n; i++)
		kprof_print_row(&o, d, &rows[i]);
	mem->release(mem->ctx, rows);
	return EOK;
}

/* ---------------------------------------------------------------- gmon.out */

/* Bucket i of the histogram: 0 for the header words. */
static uint64_t kprof_gmon_count(const void *ctx, size_t i)
{
	const kprof_data_t *d = ctx;

	return i < KPROF_HDR_WORDS ? 0 : kprof_word(d, (uint32_t)i);
}

void kprof_gmon(const kprof_data_t *d, uint64_t text_start, fmt_sink_t out, void *ctx)
{
	uint32_t rate = d->usec_per_tick ? 1000000 / d->usec_per_tick : 1;
	prof_gmon_hist_t h = { text_start, d->log2, d->nbuckets, rate, kprof_gmon_count, d };

	prof_gmon_write(&h, out, ctx);
}
