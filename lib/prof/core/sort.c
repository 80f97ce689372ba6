/*
 * The profiler core's sort (lib/profcore.h): a heapsort with a context,
 * no recursion and no memory, the one every table and export uses.
 */
#include <lib/profcore.h>

static void sort_swap(unsigned char *a, unsigned char *b, size_t size)
{
	for (size_t i = 0; i < size; i++) {
		unsigned char t = a[i];
		a[i] = b[i];
		b[i] = t;
	}
}

static void sort_sift(unsigned char *base, size_t root, size_t n, size_t size,
		      prof_cmp_t cmp, void *ctx)
{
	for (size_t child; (child = 2 * root + 1) < n; root = child) {
		if (child + 1 < n && cmp(base + child * size, base + (child + 1) * size, ctx) < 0)
			child++;
		if (cmp(base + root * size, base + child * size, ctx) >= 0)
			return;
		sort_swap(base + root * size, base + child * size, size);
	}
}

/* Heapsort n elements of size bytes ascending by cmp. */
void prof_sort(void *base, size_t n, size_t size, prof_cmp_t cmp, void *ctx)
{
	unsigned char *b = base;

	for (size_t i = n / 2; i-- > 0;)
		sort_sift(b, i, n, size, cmp, ctx);
	for (size_t end = n; end > 1; end--) {
		sort_swap(b, b + (end - 1) * size, size);
		sort_sift(b, 0, end - 1, size, cmp, ctx);
	}
}
