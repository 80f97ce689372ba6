/*
 * The callgrind format's lines (lib/profcallgrind.h): positions are
 * lines, every cost at line 0 and files "???" (no source), costs printed
 * in the order of the header's events.
 */
#include <lib/profcallgrind.h>

/* " C1 C2 ...\n" */
static void cg_costs(const fmt_out_t *o, const uint64_t *costs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fmt_outf(o, " %llu", (unsigned long long)costs[i]);
	fmt_outf(o, "\n");
}

/* The header lines, through "summary:". */
void prof_callgrind_head(const fmt_out_t *o, const char *creator, const char *cmd,
			 const char *events, const uint64_t *costs, size_t n)
{
	fmt_outf(o, "# callgrind format\nversion: 1\ncreator: %s\n", creator);
	if (cmd)
		fmt_outf(o, "cmd: %s\n", cmd);
	fmt_outf(o, "positions: line\nevents: %s\nsummary:", events);
	cg_costs(o, costs, n);
}

/* A function's block and its self costs. */
void prof_callgrind_fn(const fmt_out_t *o, const char *ob, const char *name,
		       const char *suffix, const uint64_t *costs, size_t n)
{
	fmt_outf(o, "\nob=%s\nfl=???\nfn=%s%s\n0", ob, name, suffix);
	cg_costs(o, costs, n);
}

/* A call and its inclusive costs. */
void prof_callgrind_call(const fmt_out_t *o, const char *cob, const char *name,
			 const char *suffix, uint64_t calls, const uint64_t *costs, size_t n)
{
	if (cob)
		fmt_outf(o, "cob=%s\n", cob);
	fmt_outf(o, "cfn=%s%s\ncalls=%llu 0\n0", name, suffix, (unsigned long long)calls);
	cg_costs(o, costs, n);
}
