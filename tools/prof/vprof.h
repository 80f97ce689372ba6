/*
 * tools/prof/vprof.h - what the parts of the host tool vprof share
 * (tools/prof/vprof.c: the report; tools/prof/vprof_diff.c: `vprof diff`).
 */
#ifndef TOOLS_VPROF_H
#define TOOLS_VPROF_H

#include <stddef.h>

#include <abi/errno.h>

#include <profenv.h>

#include "binmiss.h"

/*
 * Load a binary a stream names: relative paths and the kernel (kernel,
 * may be NULL) as given, absolute guest paths under root; a miss is noted
 * in missing. EOK, ENOENT, ENOMEM or EIO (prof_env_read_file).
 */
errno_t vprof_load_binary(const char *root, const char *kernel, binmiss_t *missing,
			  const char *path, void **data, size_t *size);

/* "12", "0.5", "1.25" (0..100) -> hundredths; -1 when malformed. */
long vprof_parse_percent(const char *s);

/* `vprof diff ARGS` (argv[0] is "diff"): its exit status. */
int vprof_diff_main(int argc, char **argv);

#endif
