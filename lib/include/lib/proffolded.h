/*
 * The folded (collapsed) stack format's lines, the one encoder (lib/prof/
 * export/foldfile.c) the sample profile's export (px_folded) and the
 * call profile's (cprofreport_export) both write with: a line is the
 * root (a task), ";FRAME" per frame from the root down, then " COUNT\n".
 * Names have ';' and whitespace made '_', so a line always splits into
 * its frames and its count (flamegraph.pl, speedscope, inferno).
 */
#ifndef LIB_PROFFOLDED_H
#define LIB_PROFFOLDED_H

#include <lib/fmt.h>
#include <stdbool.h>
#include <stdint.h>

/* The root: name made safe, then "-ID" if with_id (names shared by tasks). */
void prof_folded_root(const fmt_out_t *o, const char *name, bool with_id, uint64_t id);

/*
 * ";NAME" made safe, then suffix as it is ("_[k]", "_(BINARY)"...).
 * keep: the first keep bytes go as they are, and after them only ';' is
 * replaced (an "[ipc SERVER.METHOD]" or "[off-cpu: REASON]" frame keeps
 * its spaces, as the reports print it).
 */
void prof_folded_frame(const fmt_out_t *o, const char *name, size_t keep,
		       const char *suffix);

/* Text made safe as a frame's or root's name ('_' for ';' and whitespace). */
void prof_folded_name(const fmt_out_t *o, const char *s);

/* The line's end: " COUNT\n". */
void prof_folded_end(const fmt_out_t *o, uint64_t count);

#endif
