/*
 * tools/vprof.h - what the parts of the host tool vprof share
 * (tools/vprof.c: the report; tools/vprof_diff.c: `vprof diff`).
 */
#ifndef TOOLS_VPROF_H
#define TOOLS_VPROF_H

/* "12", "0.5", "1.25" (0..100) -> hundredths; -1 when malformed. */
long vprof_parse_percent(const char *s);

/* `vprof diff ARGS` (argv[0] is "diff"): its exit status. */
int vprof_diff_main(int argc, char **argv);

#endif
