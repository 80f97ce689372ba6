/*
 * The sysinfo tree's nodes as the kernel defines them, and the buffer
 * their readers fill (the tree and its system calls: kernel/sysinfo/).
 *
 * Each subsystem defines its own nodes next to its code, as a profiler
 * source does (SYSINFO_INT_NODE and friends put an si_node_t in the
 * .sysinfo_nodes section); sysinfo_init() registers them all at boot, in
 * the order of their rank, and seals the registry before user space
 * starts. The generic code knows no subsystem by name:
 *
 *   static uint64_t failinj_si_injected(void) { ... }
 *   SYSINFO_INT_NODE(failinj_injected, "failinj.injected", 300,
 *                    failinj_si_injected);
 *
 * A path is dot-separated components of [a-z0-9_] (at most
 * SYSINFO_PATH_MAX - 1 bytes); a second node of a path already taken, a
 * bad path or an incomplete node is refused with a log line.
 */
#ifndef KERNEL_SYSINFO_H
#define KERNEL_SYSINFO_H

#include <abi/sysinfo.h>
#include <kernel/types.h>

/* A growing kernel buffer for one read's data. */
typedef struct si_buf {
	char *data;
	size_t len, cap;
} si_buf_t;

/* Append len bytes to b (growing it); EOK or ENOMEM. */
errno_t si_put(si_buf_t *b, const void *data, size_t len);
/* Make room for cap bytes in all, so later puts need not allocate. */
errno_t si_reserve(si_buf_t *b, size_t cap);

/*
 * A node: its path, rank and type (SYSINFO_INT or SYSINFO_DATA), and how
 * to read it. Nodes list and are looked up in the order of their rank
 * (lower first; equal ranks in the order they were registered). A table
 * (children and child_data set) has one child per entry, named by its
 * decimal id.
 */
typedef struct si_node {
	const char *path;
	unsigned rank;
	unsigned type;
	uint64_t (*get_int)(void);                          /* SYSINFO_INT */
	errno_t (*get_data)(si_buf_t *b, uint64_t arg);      /* SYSINFO_DATA */
	errno_t (*children)(si_buf_t *b);                    /* its children's names */
	errno_t (*child_data)(si_buf_t *b, uint64_t id);     /* one child's data */
} si_node_t;

/* Define node NAME (an si_node_t initialiser follows) in .sysinfo_nodes. */
#define SYSINFO_NODE(name)                                                       \
	static const si_node_t si_node_##name                                    \
		__attribute__((used, section(".sysinfo_nodes"), aligned(8)))

/* An integer node: fn() is its value. */
#define SYSINFO_INT_NODE(name, path, rank, fn)                                   \
	SYSINFO_NODE(name) = { path, rank, SYSINFO_INT, fn, NULL, NULL, NULL }

/* A data node: fn(b, 0) appends its value to b. */
#define SYSINFO_DATA_NODE(name, path, rank, fn)                                  \
	SYSINFO_NODE(name) = { path, rank, SYSINFO_DATA, NULL, fn, NULL, NULL }

/* A table: all(b, 0) every entry, ids(b) their names, one(b, id) one. */
#define SYSINFO_TABLE_NODE(name, path, rank, all, ids, one)                      \
	SYSINFO_NODE(name) = { path, rank, SYSINFO_DATA, NULL, all, ids, one }

/* The section's bounds (kernel.ld). */
extern const si_node_t __sysinfo_nodes_start[], __sysinfo_nodes_end[];

#define SYSINFO_NODES_MAX 48

/* A registry: nodes sorted by rank; sealed, it takes no more. */
typedef struct si_registry {
	const si_node_t *nodes[SYSINFO_NODES_MAX];
	size_t count;
	bool sealed;
} si_registry_t;

/*
 * Add n (static storage) to r in the order of its rank. EOK; EINVAL for a
 * bad path or an incomplete node, EEXIST for a path r has, ENOSPC if r is
 * full, EPERM once r is sealed; each refusal is logged.
 */
errno_t si_registry_add(si_registry_t *r, const si_node_t *n);

/* Register n in the kernel's tree, before sysinfo_init seals it (as above). */
errno_t sysinfo_register(const si_node_t *n);

/* Register every node of .sysinfo_nodes and seal the tree. Once, at boot. */
void sysinfo_init(void);

/* The tree's node i (in rank order), or NULL past the last. */
const si_node_t *sysinfo_node_at(size_t i);

/*
 * Read data node path (a table's child too) into b, as SYS_SYSINFO_DATA
 * does: EOK, ENOENT (no such node), EINVAL (not data) or the reader's
 * error. The caller frees b->data.
 */
errno_t sysinfo_read(const char *path, si_buf_t *b);

/* The children of a table of tasks: each live task's id (not the kernel's). */
errno_t si_task_ids(si_buf_t *b);

#endif
