/*
 * The callgrind format's lines (lib/profcallgrind.h): positions are
 * lines, every cost at line 0 and files "???" (no source), costs printed
 * in the order of the header's events.
 */
#include <lib/profcallgrind.h>

#include <stdarg.h>

static __attribute__((format(printf, 2, 3)))
void cg_printf(const prof_cg_out_t *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fmt_vformat(o->put, o->ctx, fmt, ap);
	va_end(ap);
}

/* " C1 C2 ...\n" */
static void cg_costs(const prof_cg_out_t *o, const uint64_t *costs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		cg_printf(o, " %llu", (unsigned long long)costs[i]);
	cg_printf(o, "\n");
}

/* The header lines, through "summary:". */
void prof_callgrind_head(const prof_cg_out_t *o, const char *creator, const char *cmd,
			 const char *events, const uint64_t *costs, size_t n)
{
	cg_printf(o, "# callgrind format\nversion: 1\ncreator: %s\n", creator);
	if (cmd)
		cg_printf(o, "cmd: %s\n", cmd);
	cg_printf(o, "positions: line\nevents: %s\nsummary:", events);
	cg_costs(o, costs, n);
}

/* A function's block and its self costs. */
void prof_callgrind_fn(const prof_cg_out_t *o, const char *ob, const char *name,
		       const char *suffix, const uint64_t *costs, size_t n)
{
	cg_printf(o, "\nob=%s\nfl=???\nfn=%s%s\n0", ob, name, suffix);
	cg_costs(o, costs, n);
}

/* A call and its inclusive costs. */
void prof_callgrind_call(const prof_cg_out_t *o, const char *cob, const char *name,
			 const char *suffix, uint64_t calls, const uint64_t *costs, size_t n)
{
	if (cob)
		cg_printf(o, "cob=%s\n", cob);
	cg_printf(o, "cfn=%s%s\ncalls=%llu 0\n0", name, suffix, (unsigned long long)calls);
	cg_costs(o, costs, n);
}
