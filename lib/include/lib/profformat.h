/*
 * The profiler tools' output formats: the one numbering every tool
 * uses, vprof and the sample-profile exports (lib/profexport.h),
 * cprofalyze and the call-profile exports (lib/cprofreport.h), kprof
 * (report or gmon) and the guest tools. Names in lib/prof/export/format.c.
 */
#ifndef LIB_PROFFORMAT_H
#define LIB_PROFFORMAT_H

#define PROF_FMT_REPORT 0               /* the tool's own text report */
#define PROF_FMT_FOLDED 1               /* collapsed stacks (flamegraph.pl) */
#define PROF_FMT_PPROF 2                /* gzipped profile.proto (go tool pprof) */
#define PROF_FMT_CALLGRIND 3            /* callgrind_annotate, KCachegrind */
#define PROF_FMT_SPEEDSCOPE 4           /* speedscope's JSON */
#define PROF_FMT_SVG 5                  /* an interactive flame graph */
#define PROF_FMT_GMON 6                 /* gprof's gmon.out */
#define PROF_FMT_PERF 7                 /* perf.data (perf report, script, annotate) */
#define PROF_FMT_TRACE 8                /* a timeline: Chrome trace-event JSON (Perfetto UI) */
#define PROF_FMT_COUNT 9

/* PROF_FMT_* of a name ("report", "folded", ...), or -1. */
int prof_format_parse(const char *name);

/* The name of a PROF_FMT_*, "?" if none. */
const char *prof_format_name(unsigned format);

#endif
