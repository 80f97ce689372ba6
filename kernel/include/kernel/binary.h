/*
 * Programs from the initrd or passed by tasks, checked once and cached: the ELF load plan and
 * a sorted copy of the symbol table, so faults and (later) profiler samples
 * of a task symbolize even after it exited.
 */
#ifndef KERNEL_BINARY_H
#define KERNEL_BINARY_H

#include <kernel/types.h>
#include <lib/elf.h>
#include <lib/elfload.h>
#include <lib/list.h>
#include <lib/sha256.h>

#define BINARY_CACHE_MAX 512
/* The cache's byte budget: RAM / BINARY_CACHE_SHARE, within these bounds. */
#define BINARY_CACHE_SHARE 32
#define BINARY_BUDGET_MIN (1u << 20)
#define BINARY_BUDGET_MAX (16u << 20)

typedef struct binary {
	list_node_t node;
	char path[128];
	const void *image;           /* in the initrd; NULL for a passed image */
	size_t size;
	uint64_t hash;               /* FNV-1a of a passed image (LOAD records); 0: initrd */
	uint8_t digest[SHA256_BYTES]; /* SHA-256 of a passed image: the cache key */
	size_t bytes;                /* heap bytes it holds (kmalloc_size): itself, symbol copies */
	uint32_t refs;               /* tasks running it (binaries_lock) */
	bool named;                  /* named to a profiling session (binaries_lock) */
	struct binquota *quota;      /* the quota tree charged for it, or NULL (binaries_lock) */
	char *strtab;                /* a passed image's string table copy */
	elf_plan_t plan;
	elfsym_table_t syms;
	bool have_syms;
} binary_t;

/* Find the initrd module; logs what it holds. */
void initrd_init(void);

/* Raw file from the initrd: EOK with its data and size, or ENOENT. */
errno_t initrd_find(const char *path, const void **data, size_t *size);

/*
 * The binary at path, loaded from the initrd and checked (cached), with a
 * reference for the caller (binary_put). Returns EOK and *out, ENOENT,
 * ENOEXEC, ENOMEM or ELIMIT (see binary_get_image).
 */
errno_t binary_get(const char *path, binary_t **out);

/*
 * The binary of an ELF image passed by a task (kernel copy at image, size
 * bytes), found by path, size and SHA-256 of the content or checked and
 * cached, with a reference for the caller (binary_put). The cache keeps
 * the load plan and symbols, not the image: the caller loads from its own
 * copy. At most BINARY_CACHE_MAX binaries are cached, holding at most the
 * byte budget (binary_cache_limit): beyond, the least recently used ones
 * that no task runs and no live profiling session named are evicted; a
 * binary whose symbols still do not fit is cached without them; binaries
 * tasks run may exceed BINARY_CACHE_MAX; ELIMIT if BINARY_CACHE_MAX others
 * are all named by live sessions. A new entry is charged to quota (the
 * spawner's quota tree; NULL: none) until it leaves the cache: if it does
 * not fit within the tree's LIMIT_TREE_BIN_BYTES once the tree's own
 * unused entries have gone, ELIMIT (symbols that could never fit are
 * left out, as for the global budget). Returns EOK and *out, ENOEXEC,
 * ENOMEM or ELIMIT.
 */
errno_t binary_get_image(const char *path, const void *image, size_t size,
			 struct binquota *quota, binary_t **out);

/* Drop a reference from binary_get*; b (or NULL) may be evicted at 0. */
void binary_put(binary_t *b);

/*
 * b was named to a profiling session (a LOAD record): it stays cached
 * while any session is open (prof_sessions_open). Any context but NMI.
 */
void binary_mark_named(binary_t *b);

/* How many binaries are cached (for tests and monitoring). */
size_t binary_cached_count(void);

/* Test hook: cache at most max binaries from now on; the old limit. */
size_t binary_cache_set_max(size_t max);

/* sysinfo system.bincache: entries cached, bytes they hold, the byte budget. */
uint64_t binary_cache_entries(void);
uint64_t binary_cache_bytes(void);
uint64_t binary_cache_limit(void);

/* Test hook: a byte budget from now on (evicting at the next put); the old one. */
size_t binary_cache_set_budget(size_t bytes);

/* Is a binary of this path cached (for tests)? */
bool binary_path_cached(const char *path);

/* A new quota tree's account (LIMIT_TREE_BIN_BYTES, one reference), or NULL (no memory). */
struct binquota *binary_quota_new(void);

/*
 * A task of q's tree (or NULL) is freed: drop its reference; the last
 * uncharges the tree's cached entries (they stay, charged to no one) and
 * frees q. No lock held.
 */
void binary_quota_put(struct binquota *q);

/* q (or NULL) belongs to the tree whose root task is root, if it has no root yet. */
void binary_quota_publish(struct binquota *q, uint64_t root);

/* sysinfo system.limits: q's root, bytes charged and refusals (zeros for NULL). */
void binary_quota_usage(struct binquota *q, uint64_t *root, uint32_t *bytes,
			uint64_t *denied);

/* Symbol of addr in b, or NULL; *off the offset into it. */
const char *binary_symbol(const binary_t *b, uint64_t addr, uint64_t *off);

#endif
