/*
 * What the parts of the call profiler's report share (lib/prof/cprof/,
 * inside lib/prof only): the merged tables (pc_table_t, pc_node_t), the
 * file's slots and parts, the print state and the functions more than
 * one part calls. The parts: read.c (parsing and merging), print.c (the
 * tables), export.c (callgrind and folded, and pprof).
 */
#ifndef LIB_PROF_CPROF_PC_H
#define LIB_PROF_CPROF_PC_H

#include <lib/fmt.h>
#include <lib/profbin.h>
#include <lib/cprofreport.h>
#include <lib/profexport.h>
#include <lib/string.h>
#include <stdarg.h>

#define PC_NONE UINT32_MAX              /* no node: the top level's parent */
#define PC_BAD (UINT32_MAX - 1)         /* a slot whose path is broken */
#define PC_PART_IDS (1u << (32 - CPROF_ID_SHIFT))
#define PC_HEX 20                       /* "0x" + 16 digits + NUL, rounded */

/* One call path of a table: its parts' slots merged. */
typedef struct pc_node {
	uint64_t fn;
	uint32_t parent;                /* node index, or PC_NONE at the top */
	uint32_t depth;                 /* 1 at the top */
	uint32_t order;                 /* its first slot in the file */
	uint32_t reserved;
	uint64_t calls, wall, oncpu;
} pc_node_t;

typedef struct pc_table {
	uint64_t task;
	char name[CPROF_NAME_MAX + 1];
	char path[CPROF_PATH_MAX + 1];
	uint64_t hash;
	uint32_t nparts, err;
	uint64_t lost_stack, lost_table, mismatch;
	uint64_t bad;                   /* slots left out: bad or cyclic parent */
	pc_node_t *nodes;
	uint32_t nnodes;
	uint32_t bin;                   /* index in bins, or PC_NONE */
} pc_table_t;

struct cprofreport {
	prof_env_t env;
	uint64_t tsc_hz;
	uint32_t dropped;               /* exited processes' tables the kernel dropped */
	pc_table_t *tables;
	uint32_t ntables;
	profbin_t *bins;
	uint32_t nbins;
};

/* A slot as read from the file. */
typedef struct pc_slot {
	uint64_t fn;
	uint32_t parent;
	uint32_t reserved;
	uint64_t calls, wall, oncpu;
} pc_slot_t;

/* A part as seen in the first walk. */
typedef struct pc_part {
	uint32_t id, used, start;       /* start: its first slot's index */
} pc_part_t;

/* Reading the file: what is left of it, and where the reason goes. */
typedef struct pc_cursor {
	const unsigned char *p;
	size_t left;
	char *why;
	size_t whylen;
} pc_cursor_t;



/* Print-time state of one table: its items (paths, or functions with -f). */
typedef struct pc_print {
	cprofreport_t *pc;
	const cprofreport_opts_t *o;
	const pc_table_t *t;
	pc_node_t *items;
	uint32_t n;
	bool tree;
	const char **names;             /* per item: its function's name */
	char *hex;                      /* PC_HEX bytes per item: unknown names */
	uint32_t *idx;                  /* items in print order */
	uint32_t *path;                 /* a path's nodes, top first (n + 2) */
	uint32_t *rank;                 /* per item: its place in the tree */
	uint32_t *work;                 /* n entries for pc_rank */
	pc_node_t *rows;                /* -f: one item per function */
} pc_print_t;

/* An order of two items (by index) of the table being printed. */
typedef int (*pc_cmp_t)(const pc_print_t *pp, uint32_t x, uint32_t y);

/* ---------------------------------------------------------------- read.c */

/* n elements of size bytes from env.alloc (at least 1 byte); NULL on overflow or ENOMEM. */
void *pc_alloc(const cprofreport_t *pc, size_t n, size_t size);

/* env.release of p (NULL: nothing). */
void pc_release(const cprofreport_t *pc, void *p);

/* ---------------------------------------------------------------- print.c */

/* Print printf-style text (lib/fmt.h) through pc's env.out. */
#define pc_printf(pc, ...) fmt_format((pc)->env.out, (pc)->env.ctx, __VA_ARGS__)

/*
 * Names of the items: the symbol starting at the function's address in
 * the table's binary (the hooks get functions' own addresses), else hex.
 */
void pc_names(pc_print_t *pp);

/* Heapsort the n item indices at v by cmp (no recursion, no allocation). */
void pc_heapsort(const pc_print_t *pp, uint32_t *v, size_t n, pc_cmp_t cmp);

#endif
