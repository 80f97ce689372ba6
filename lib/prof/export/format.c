/*
 * The export formats' names (PROF_FMT_*, lib/profexport.h), the one list
 * vprof, cprofalyze and kprof parse -F with.
 */
#include "px.h"
#include <lib/string.h>

/* ---------------------------------------------------------------- format names */

static const char *const px_names[PROF_FMT_COUNT] = {
	[PROF_FMT_REPORT] = "report",
	[PROF_FMT_FOLDED] = "folded",
	[PROF_FMT_PPROF] = "pprof",
	[PROF_FMT_CALLGRIND] = "callgrind",
	[PROF_FMT_SPEEDSCOPE] = "speedscope",
	[PROF_FMT_SVG] = "svg",
	[PROF_FMT_GMON] = "gmon",
};

int prof_export_format(const char *name)
{
	for (int i = 0; i < PROF_FMT_COUNT; i++) {
		if (strcmp(name, px_names[i]) == 0)
			return i;
	}
	return -1;
}

const char *prof_export_name(unsigned format)
{
	return format < PROF_FMT_COUNT ? px_names[format] : "?";
}
