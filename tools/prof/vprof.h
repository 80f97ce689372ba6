/*
 * tools/prof/vprof.h - what the parts of the host tool vprof share
 * (tools/prof/vprof.c: the report; tools/prof/vprof_diff.c: `vprof diff`;
 * tools/prof/vprof_annotate.c: -a and --lines).
 */
#ifndef TOOLS_VPROF_H
#define TOOLS_VPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <abi/errno.h>

#include <lib/profreport.h>
#include <profenv.h>

#include <binmiss.h>

#define VPROF_PATH_MAX 4096

/*
 * The file of a binary a stream names, into buf (size bytes): relative
 * paths and the kernel (kernel, may be NULL) as given, absolute guest
 * paths under root. False when it does not fit.
 */
bool vprof_binary_file(const char *root, const char *kernel, const char *path, char *buf,
		       size_t size);

/*
 * Load a binary a stream names: relative paths and the kernel (kernel,
 * may be NULL) as given, absolute guest paths under root; a miss is noted
 * in missing. EOK, ENOENT, ENOMEM or EIO (prof_env_read_file).
 */
errno_t vprof_load_binary(const char *root, const char *kernel, binmiss_t *missing,
			  const char *path, void **data, size_t *size);

/* "12", "0.5", "1.25" (0..100) -> hundredths; -1 when malformed. */
long vprof_parse_percent(const char *s);

/* What -a and --lines look at (tools/prof/vprof_annotate.c). */
typedef struct vprof_annot {
	const char *symbol;             /* -a SYMBOL */
	const char *root, *kernel;      /* the binaries' root, the kernel ELF (NULL: default) */
} vprof_annot_t;

/*
 * -a: the functions named a->symbol among the fed stacks' sampled ones,
 * each (per binary) disassembled by objdump with its samples per
 * instruction, to out. 0, or 1 with a message (no such function, binary
 * not found, objdump missing or failing).
 */
int vprof_annotate(prof_report_t *r, const vprof_annot_t *a, FILE *out);

/*
 * --lines: the samples of the fed stacks per function and source line
 * (addr2line, one run per binary), most first, to out. 0; 1 with a
 * message; 3 when binaries were not found (their lines print as ??:0).
 */
int vprof_lines(prof_report_t *r, const vprof_annot_t *a, FILE *out);

/* `vprof diff ARGS` (argv[0] is "diff"): its exit status. */
int vprof_diff_main(int argc, char **argv);

#endif
