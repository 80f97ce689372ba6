/*
 * The output formats' names (PROF_FMT_*, lib/profformat.h), the one list
 * vprof, cprofalyze and kprof parse -F with.
 */
#include <lib/profformat.h>
#include <lib/string.h>

static const char *const prof_format_names[PROF_FMT_COUNT] = {
	[PROF_FMT_REPORT] = "report",
	[PROF_FMT_FOLDED] = "folded",
	[PROF_FMT_PPROF] = "pprof",
	[PROF_FMT_CALLGRIND] = "callgrind",
	[PROF_FMT_SPEEDSCOPE] = "speedscope",
	[PROF_FMT_SVG] = "svg",
	[PROF_FMT_GMON] = "gmon",
	[PROF_FMT_PERF] = "perf",
	[PROF_FMT_TRACE] = "trace",
};

/* PROF_FMT_* of name, or -1. */
int prof_format_parse(const char *name)
{
	for (int i = 0; i < PROF_FMT_COUNT; i++) {
		if (strcmp(name, prof_format_names[i]) == 0)
			return i;
	}
	return -1;
}

/* The name of format, "?" if none. */
const char *prof_format_name(unsigned format)
{
	return format < PROF_FMT_COUNT ? prof_format_names[format] : "?";
}
