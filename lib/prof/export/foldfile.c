/*
 * The folded format's lines (lib/proffolded.h): the escaping of names
 * and the layout of a line, for every writer of the format.
 */
#include <lib/proffolded.h>
#include <lib/string.h>

/* Whether c cannot stand in a name: it would split the line. */
static bool fold_bad(char c, bool spaces_ok)
{
	return c == ';' || (!spaces_ok && (c == ' ' || c == '\t' || c == '\n'));
}

/* s made safe: runs of good bytes as they are, '_' for each bad one. */
static void fold_put(const fmt_out_t *o, const char *s, bool spaces_ok)
{
	while (*s) {
		size_t n = 0;
		while (s[n] && !fold_bad(s[n], spaces_ok))
			n++;
		if (n)
			o->put(o->ctx, s, n);
		if (!s[n])
			return;
		o->put(o->ctx, "_", 1);
		s += n + 1;
	}
}

void prof_folded_name(const fmt_out_t *o, const char *s)
{
	fold_put(o, s, false);
}

void prof_folded_root(const fmt_out_t *o, const char *name, bool with_id, uint64_t id)
{
	prof_folded_name(o, name);
	if (with_id)
		fmt_outf(o, "-%llu", (unsigned long long)id);
}

void prof_folded_frame(const fmt_out_t *o, const char *name, size_t keep,
		       const char *suffix)
{
	size_t len = strlen(name);

	o->put(o->ctx, ";", 1);
	keep = keep < len ? keep : len;
	if (keep)
		o->put(o->ctx, name, keep);
	fold_put(o, name + keep, keep > 0);
	if (*suffix)
		o->put(o->ctx, suffix, strlen(suffix));
}

void prof_folded_end(const fmt_out_t *o, uint64_t count)
{
	fmt_outf(o, " %llu\n", (unsigned long long)count);
}
