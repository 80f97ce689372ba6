/*
 * Introsort: quicksort (median of three or Tukey's ninther as pivot, Hoare
 * partition) that loops on the larger side and recurses on the smaller
 * (O(log n) stack), insertion sort below SMALL elements, heapsort once the
 * depth budget (2 log2 n) is spent, so the worst case stays O(n log n).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#define SMALL 12
/* Ranges longer than this take the ninther as pivot. */
#define NINTHER 40

typedef int (*cmp_r_t)(const void *, const void *, void *);

typedef struct sorter {
	char *base;
	size_t size;
	cmp_r_t cmp;
	void *ctx;
} sorter_t;

static char *elem(const sorter_t *s, size_t i)
{
	return s->base + i * s->size;
}

static int cmp_at(const sorter_t *s, size_t i, size_t j)
{
	return s->cmp(elem(s, i), elem(s, j), s->ctx);
}

static void swap(const sorter_t *s, size_t i, size_t j)
{
	if (i == j)
		return;
	char *a = elem(s, i), *b = elem(s, j);
	for (size_t k = 0; k < s->size; k++) {
		char t = a[k];
		a[k] = b[k];
		b[k] = t;
	}
}

/* Sort [lo, hi) by insertion. */
static void insertion_sort(const sorter_t *s, size_t lo, size_t hi)
{
	for (size_t i = lo + 1; i < hi; i++) {
		for (size_t j = i; j > lo && cmp_at(s, j - 1, j) > 0; j--)
			swap(s, j - 1, j);
	}
}

/* Restore the max-heap property below node i of the heap [lo, lo+n). */
static void sift_down(const sorter_t *s, size_t lo, size_t i, size_t n)
{
	for (;;) {
		size_t child = 2 * i + 1;
		if (child >= n)
			return;
		if (child + 1 < n && cmp_at(s, lo + child, lo + child + 1) < 0)
			child++;
		if (cmp_at(s, lo + i, lo + child) >= 0)
			return;
		swap(s, lo + i, lo + child);
		i = child;
	}
}

static void heap_sort(const sorter_t *s, size_t lo, size_t hi)
{
	size_t n = hi - lo;

	for (size_t i = n / 2; i-- > 0;)
		sift_down(s, lo, i, n);
	while (n > 1) {
		swap(s, lo, lo + --n);
		sift_down(s, lo, 0, n);
	}
}

/* Index of the median of the elements at a, b and c. */
static size_t median3(const sorter_t *s, size_t a, size_t b, size_t c)
{
	if (cmp_at(s, a, b) < 0) {
		if (cmp_at(s, b, c) < 0)
			return b;
		return cmp_at(s, a, c) < 0 ? c : a;
	}
	if (cmp_at(s, a, c) < 0)
		return a;
	return cmp_at(s, b, c) < 0 ? c : b;
}

/*
 * Move the pivot to lo: the median of first, middle and last element, or
 * for long ranges Tukey's ninther (the median of three such medians).
 */
static void pivot_to_front(const sorter_t *s, size_t lo, size_t hi)
{
	size_t n = hi - lo, mid = lo + n / 2, last = hi - 1;
	size_t p;

	if (n > NINTHER) {
		size_t d = n / 8;
		size_t a = median3(s, lo, lo + d, lo + 2 * d);
		size_t b = median3(s, mid - d, mid, mid + d);
		size_t c = median3(s, last - 2 * d, last - d, last);
		p = median3(s, a, b, c);
	} else {
		p = median3(s, lo, mid, last);
	}
	swap(s, lo, p);
}

/*
 * Hoare partition of [lo, hi) around the pivot at lo; returns the pivot's
 * final index p, with [lo, p) <= pivot <= [p+1, hi). Elements equal to the
 * pivot stop both scans, so runs of duplicates split evenly; the j scan
 * stops at lo at the latest.
 */
static size_t partition(const sorter_t *s, size_t lo, size_t hi)
{
	size_t i = lo, j = hi;

	for (;;) {
		do
			i++;
		while (i < hi && cmp_at(s, i, lo) < 0);
		do
			j--;
		while (cmp_at(s, j, lo) > 0);
		if (i >= j)
			break;
		swap(s, i, j);
	}
	swap(s, lo, j);
	return j;
}

static void intro_sort(const sorter_t *s, size_t lo, size_t hi,
		       unsigned depth)
{
	while (hi - lo > SMALL) {
		if (depth-- == 0) {
			heap_sort(s, lo, hi);
			return;
		}
		pivot_to_front(s, lo, hi);
		size_t p = partition(s, lo, hi);
		if (p - lo < hi - (p + 1)) {
			intro_sort(s, lo, p, depth);
			lo = p + 1;
		} else {
			intro_sort(s, p + 1, hi, depth);
			hi = p;
		}
	}
	insertion_sort(s, lo, hi);
}

void qsort_r(void *base, size_t n, size_t size,
	     int (*cmp)(const void *, const void *, void *), void *ctx)
{
	sorter_t s = { .base = base, .size = size, .cmp = cmp, .ctx = ctx };
	unsigned depth = 0;

	if (n < 2 || size == 0)
		return;
	for (size_t k = n; k > 1; k >>= 1)
		depth += 2;
	intro_sort(&s, 0, n, depth);
}

typedef struct plain_cmp {
	int (*cmp)(const void *, const void *);
} plain_cmp_t;

static int call_plain(const void *a, const void *b, void *ctx)
{
	return ((const plain_cmp_t *)ctx)->cmp(a, b);
}

void qsort(void *base, size_t n, size_t size,
	   int (*cmp)(const void *, const void *))
{
	plain_cmp_t c = { .cmp = cmp };

	qsort_r(base, n, size, call_plain, &c);
}

void *bsearch(const void *key, const void *base, size_t n, size_t size,
	      int (*cmp)(const void *, const void *))
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *e = (const char *)base + mid * size;
		int c = cmp(key, e);
		if (c == 0)
			return (void *)e;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}
