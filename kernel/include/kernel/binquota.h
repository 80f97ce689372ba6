/*
 * The program cache's charge per quota tree (issue 27 hole 3): every
 * cached entry of an image passed to SYS_SPAWN is charged, with its
 * symbol copies, to the quota tree of the task that spawned it (task.h:
 * fixed at spawn, like libc's task_quota_root), at most limit bytes per
 * tree (LIMIT_TREE_BIN_BYTES); it is uncharged when the entry leaves the
 * cache or the tree's last task is freed. Pure logic with no locking: the
 * program cache (binary.c) changes the bytes under its lock; the
 * references (the tree's tasks) are atomic. Shared by the kernel and the
 * host unit test (test/unit/test_binquota.c).
 */
#ifndef KERNEL_BINQUOTA_H
#define KERNEL_BINQUOTA_H

#include <kernel/types.h>

typedef struct binquota {
	uint64_t root;               /* id of the tree's root task (0 until published) */
	size_t bytes;                /* charged by cached entries */
	size_t limit;                /* at most this many */
	uint32_t entries;            /* cached entries charged */
	uint32_t refs;               /* the tree's tasks not yet freed */
	uint64_t denied;             /* charges refused (ELIMIT) */
} binquota_t;

/* A new account of limit bytes, with one reference (its root task's). */
void binquota_init(binquota_t *q, size_t limit);

/* Would bytes more fit within q's limit? */
bool binquota_fits(const binquota_t *q, size_t bytes);

/* Charge one entry of bytes: EOK, or ELIMIT (counted, nothing charged). */
errno_t binquota_charge(binquota_t *q, size_t bytes);

/* Uncharge one entry of bytes (charged before: never below zero). */
void binquota_uncharge(binquota_t *q, size_t bytes);

/* Take a reference to q. */
void binquota_ref(binquota_t *q);

/* Drop a reference; true if it was the last (the caller frees q). */
bool binquota_unref(binquota_t *q);

#endif
