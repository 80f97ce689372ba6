/* malloc and friends: the engine of malloc_core.c over SYS_MAP pages. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <vernier.h>

#include "malloc_core.h"

static void *sys_pages_map(void *ctx, size_t len)
{
	void *addr;

	return sys_map(NULL, len, PROT_READ | PROT_WRITE, &addr) == EOK ?
		addr : NULL;
}

static void sys_pages_unmap(void *ctx, void *addr, size_t len)
{
	sys_unmap(addr, len);
}

static heap_t heap = {
	.lock = LIBC_LOCK_INIT,
	.pages = { .map = sys_pages_map, .unmap = sys_pages_unmap },
};

static void *nomem(void)
{
	errno = ENOMEM;
	return NULL;
}

void *malloc(size_t size)
{
	void *p = __libc_heap_alloc(&heap, size);

	return p ? p : nomem();
}

void free(void *ptr)
{
	__libc_heap_free(&heap, ptr);
}

void *calloc(size_t n, size_t size)
{
	if (size != 0 && n > SIZE_MAX / size)
		return nomem();
	void *p = malloc(n * size);
	if (p)
		memset(p, 0, n * size);
	return p;
}

void *realloc(void *ptr, size_t size)
{
	if (ptr && size == 0) {
		free(ptr);
		return NULL;
	}
	void *p = __libc_heap_realloc(&heap, ptr, size);
	return p ? p : nomem();
}

void *reallocarray(void *ptr, size_t n, size_t size)
{
	if (size != 0 && n > SIZE_MAX / size)
		return nomem();
	return realloc(ptr, n * size);
}

int posix_memalign(void **out, size_t align, size_t size)
{
	if (align < sizeof(void *) || (align & (align - 1)) != 0)
		return EINVAL;
	void *p = __libc_heap_memalign(&heap, align, size);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

void *aligned_alloc(size_t align, size_t size)
{
	if (align == 0 || (align & (align - 1)) != 0) {
		errno = EINVAL;
		return NULL;
	}
	void *p = __libc_heap_memalign(&heap, align, size);
	return p ? p : nomem();
}

size_t malloc_usable_size(void *ptr)
{
	return __libc_heap_usable(&heap, ptr);
}
