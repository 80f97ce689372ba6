/*
 * The call profiler's report (cprofalyze; the MINIX 3 thesis's
 * cprofalyze.pl): reads a call profile file (lib/include/abi/cprof.h, as
 * `cprof get` writes it) from memory and prints its tables. Freestanding:
 * shared by the guest's /bin/cprofalyze and the host tool
 * build/host/cprofalyze; memory, files and output come through a
 * prof_env_t (lib/profreport.h).
 *
 * Parsing checks every size, count and offset: a truncated or damaged
 * file is EINVAL with the reason, never a crash. Each table's parts are
 * merged by call path (the function addresses from the top level down;
 * a slot's parent may be in another part): the same path in two parts
 * sums its calls and times. Slots whose parent chain has a bad slot id
 * or a cycle are left out and counted (a live system may also give a
 * slot whose parent was added to its part after that part was copied).
 *
 * Printing resolves function addresses through the table's binary (its
 * path as recorded: the loader maps it, e.g. under a root directory; ELF
 * .symtab, else PATH.nm, see lib/profbin.h); an unknown address prints
 * as hex (0x401a2b). Times are milliseconds from the file's tsc_hz, with
 * two decimals, in integer arithmetic.
 */
#ifndef LIB_CPROFREPORT_H
#define LIB_CPROFREPORT_H

#include <abi/cprof.h>
#include <abi/errno.h>
#include <lib/profformat.h>
#include <lib/profreport.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CPROFREPORT_SORT_ALPHA 0           /* -a: by path, alphabetically (default) */
#define CPROFREPORT_SORT_FILE 1            /* -o: no sort: the order in the file
					   (the tree: each path under its caller) */
#define CPROFREPORT_SORT_CALLS 2           /* -c: most calls first */
#define CPROFREPORT_SORT_TIME 3            /* -t: most wall time first */

#define CPROFREPORT_HZ_MAX 1000000000000ull /* tsc_hz above this is damage */

typedef struct cprofreport_opts {
	unsigned sort;                  /* CPROFREPORT_SORT_* */
	bool functions;                 /* -f: totals per function */
	bool full_paths;                /* -i: with -a/-o, full paths, not the tree */
	uint64_t max_lines;             /* -n: lines per table, 0 for all */
} cprofreport_opts_t;

typedef struct cprofreport cprofreport_t;

/*
 * Parse and merge the call profile of size bytes at data (any alignment;
 * not kept). EOK and *out; EINVAL for a malformed file, with the reason
 * in why (whylen bytes, NUL-terminated; may be NULL); ENOMEM.
 */
errno_t cprofreport_parse(const prof_env_t *env, const void *data, size_t size,
		       cprofreport_t **out, char *why, size_t whylen);

/* Number of tables (processes, the kernel first if it was profiled) in pc. */
size_t cprofreport_tables(const cprofreport_t *pc);

/* Print the notes on reading the report (the thesis's "Notes:" block). */
void cprofreport_notes(const prof_env_t *env);

/*
 * Print every table of pc: a header line (NAME (task ID, PATH): P parts,
 * N call paths | N functions), warnings for what was lost, the column
 * header and at most o->max_lines lines. EOK or ENOMEM.
 */
errno_t cprofreport_print(cprofreport_t *pc, const cprofreport_opts_t *o);

/*
 * The formats of a call profile (lib/profformat.h): PROF_FMT_CALLGRIND
 * (events: Wall Cpu, calls= exact), PROF_FMT_FOLDED (TASK;root;...;fn
 * SELF_WALL_CYCLES) and PROF_FMT_PPROF (gzipped profile.proto: calls,
 * wall, cpu; cprofreport_pprof).
 */

/*
 * Write every table of pc in format (PROF_FMT_CALLGRIND or PROF_FMT_FOLDED) through env.out:
 * callgrind: one ob= per table's binary, fn= per function with its self
 * wall and on-CPU cycles, cfn= per caller -> callee with calls= the exact
 * call count and the callee path's inclusive cycles (kernel functions
 * named NAME [k]); folded: one line per call path with self wall time, the
 * task's name first, its self wall cycles as the count. EOK, EINVAL for
 * an unknown format, ENOMEM.
 */
errno_t cprofreport_export(cprofreport_t *pc, unsigned format);

/*
 * Write pc as a gzipped pprof profile.proto to write(ctx, ...): sample
 * types calls/count, wall/nanoseconds, cpu/nanoseconds (self time, from
 * the file's TSC frequency); a sample per call path (its locations leaf
 * first, label task), a mapping per table's binary. EOK or ENOMEM.
 */
errno_t cprofreport_pprof(cprofreport_t *pc, void (*write)(void *ctx, const void *data, size_t len),
		       void *ctx);

/* Release pc and everything it holds (NULL is fine). */
void cprofreport_free(cprofreport_t *pc);

#endif
