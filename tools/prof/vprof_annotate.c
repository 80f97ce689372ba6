/*
 * tools/prof/vprof_annotate.c - vprof's source-level views (issue 29
 * item 3): `vprof -a SYMBOL` (SYMBOL's instructions with each one's share
 * of the function's samples and of all samples, source lines interleaved
 * where the binary has DWARF line information) and `vprof --lines` (the
 * samples per source line of the whole profile). Host only: the
 * disassembly and the lines come from binutils (objdump -d -l -S,
 * addr2line -a -f -i) run on the staged binaries and the kernel ELF, the
 * files vprof symbolises from (vprof_binary_file).
 *
 * A sample counts at its PC (the interrupted instruction; the return
 * addresses of the chain are not used): the instruction containing it,
 * the line addr2line gives it (the innermost one of inlined code).
 * Shares are of time, the samples' weights, as the report's and perf
 * annotate's (its default local-period percentages of vprof -F perf's
 * perf.data, whose periods are the weights) are, rounded to hundredths
 * like the report's; the samples are counted beside them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vprof.h"

#define VA_LINE 4096

/* Samples and the time they stand for (their weights, ns). */
typedef struct va_n {
	uint64_t count, ns;
} va_n_t;

static void va_n_add(va_n_t *to, va_n_t n)
{
	to->count += n.count;
	to->ns += n.ns;
}

/* One distinct sampled PC of a binary. */
typedef struct va_pc {
	char *path;                     /* the binary as the stream names it */
	char *name;                     /* the function (the report's name) */
	uint64_t func, addr;
	va_n_t n;
	bool known, kernel;
} va_pc_t;

/* The sampled PCs of a walk. */
typedef struct va_pcs {
	va_pc_t *v;
	size_t n, cap;
	va_n_t total;                   /* in every stack */
	bool nomem;
} va_pcs_t;

/* One line of objdump's output: an instruction or a source line. */
typedef struct va_insn {
	uint64_t addr;                  /* instruction's address; 0 for a source line */
	char *text;
	va_n_t n;
} va_insn_t;

typedef struct va_dis {
	va_insn_t *v;
	size_t n, cap;
} va_dis_t;

static bool va_grow(void **v, size_t *cap, size_t n, size_t size)
{
	size_t c = *cap ? *cap * 2 : 256;
	void *p;

	if (n < *cap)
		return true;
	p = realloc(*v, c * size);
	if (!p)
		return false;
	*v = p;
	*cap = c;
	return true;
}

/* The walk's callback: the sampled (last) frame of each stack. */
static errno_t va_collect(void *ctx, const prof_walk_info_t *info, const prof_xstack_t *s)
{
	va_pcs_t *p = ctx;
	const prof_frame_t *f;

	p->total = (va_n_t){ info->total, info->total_ns };
	if (!s->nframes)
		return EOK;
	f = &s->frames[s->nframes - 1];
	if (!va_grow((void **)&p->v, &p->cap, p->n, sizeof(*p->v)))
		return ENOMEM;
	va_pc_t *pc = &p->v[p->n];
	*pc = (va_pc_t){ strdup(f->path ? f->path : ""), strdup(f->name), f->func_addr,
			 f->addr, { s->count, s->ns }, f->known, f->kernel };
	if (!pc->path || !pc->name)
		return ENOMEM;
	p->n++;
	return EOK;
}

static void va_pcs_free(va_pcs_t *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->v[i].path), free(p->v[i].name);
	free(p->v);
}

/* By binary, function, then PC. */
static int va_cmp_pc(const void *a, const void *b)
{
	const va_pc_t *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	if (c)
		return c;
	if (x->func != y->func)
		return x->func < y->func ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Walk r's stacks into p, sorted by binary, function and PC. 0, or 1 with a message. */
static int va_gather(prof_report_t *r, const vprof_annot_t *a, va_pcs_t *p)
{
	errno_t err = prof_report_walk(r, a->kernel, va_collect, p);

	if (err != EOK) {
		fprintf(stderr, "vprof: %s\n", err == ENOMEM ? "out of memory" :
			"the stream's stacks were not kept");
		return 1;
	}
	qsort(p->v, p->n, sizeof(*p->v), va_cmp_pc);
	return 0;
}

/* n/total as "ddd.dd" in width characters (rounded to hundredths, as the report). */
static void va_pct(FILE *out, uint64_t n, uint64_t total, int width)
{
	uint64_t c = total ? (n * 10000 + total / 2) / total : 0;

	fprintf(out, "%*llu.%02u", width - 3, (unsigned long long)(c / 100), (unsigned)(c % 100));
}

/* s in single quotes for sh into buf; false when it does not fit. */
static bool va_quote(char *buf, size_t size, const char *s)
{
	size_t n = 0;

	if (size < 3)
		return false;
	buf[n++] = '\'';
	for (; *s; s++) {
		const char *put = *s == '\'' ? "'\\''" : (char[2]){ *s, 0 };
		size_t len = strlen(put);
		if (n + len + 2 > size)
			return false;
		memcpy(buf + n, put, len);
		n += len;
	}
	buf[n++] = '\'';
	buf[n] = '\0';
	return true;
}

/* Is tool (objdump, addr2line) on PATH? A message when not. */
static bool va_have(const char *tool)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "%s --version >/dev/null 2>&1", tool);
	if (system(cmd) == 0)
		return true;
	fprintf(stderr, "vprof: %s not found (binutils; it is run from PATH)\n", tool);
	return false;
}

/* The file of the binary path, or NULL with a message naming where it was looked for. */
static const char *va_file(const vprof_annot_t *a, const char *path, char *buf, size_t size)
{
	if (!*path || !vprof_binary_file(a->root, a->kernel, path, buf, size))
		return NULL;
	if (access(buf, R_OK) == 0)
		return buf;
	fprintf(stderr, "vprof: %s: binary not found (looked for %s)\n", path, buf);
	return NULL;
}

/* ------------------------------------------------------------------ -a */

/* "  401510:\tnop" -> its address; false for any other line. */
static bool va_insn_addr(const char *line, uint64_t *addr)
{
	char *end;

	while (*line == ' ')
		line++;
	*addr = strtoull(line, &end, 16);
	return end != line && end[0] == ':' && end[1] == '\t';
}

/* "0000000000401500 <spin>:" -> its address; false for any other line. */
static bool va_sym_header(const char *line, uint64_t *addr)
{
	char *end;
	size_t len = strlen(line);

	*addr = strtoull(line, &end, 16);
	return end != line && *end == ' ' && end[1] == '<' && len > 2 &&
	       strcmp(line + len - 2, ">:") == 0;
}

static bool va_dis_add(va_dis_t *d, uint64_t addr, const char *text)
{
	if (!va_grow((void **)&d->v, &d->cap, d->n, sizeof(*d->v)))
		return false;
	d->v[d->n] = (va_insn_t){ addr, strdup(text), { 0, 0 } };
	return d->v[d->n].text && ++d->n;
}

static void va_dis_free(va_dis_t *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->v[i].text);
	free(d->v);
}

/*
 * Read objdump's listing from f: the lines of the function at func, from
 * its header to the next symbol's. Source lines (file:line, source text,
 * "name():") keep addr 0. False when out of memory.
 */
static bool va_read_listing(FILE *f, uint64_t func, va_dis_t *d)
{
	char line[VA_LINE];
	bool in = false;
	uint64_t addr, last = func;

	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (va_sym_header(line, &addr)) {
			if (in)
				break;
			in = addr == func;
			continue;
		}
		if (!in || !*line)
			continue;
		/* An instruction's address grows; source text that looks like one ("add:\t") does not. */
		bool insn = va_insn_addr(line, &addr) && addr >= last;
		if (!va_dis_add(d, insn ? addr : 0, line))
			return false;
		last = insn ? addr : last;
	}
	return true;
}

/* objdump -d -l -S of file from func into d. 0, or 1 with a message. */
static int va_disassemble(const char *file, uint64_t func, va_dis_t *d)
{
	char q[VPROF_PATH_MAX * 4 + 8], cmd[sizeof(q) + 192];

	if (!va_quote(q, sizeof(q), file))
		return fprintf(stderr, "vprof: %s: path too long\n", file), 1;
	/* Its errors go to stderr, its warnings (the kernel's DWARF has some) do not. */
	snprintf(cmd, sizeof(cmd), "{ objdump -d -l -S --no-show-raw-insn --start-address=0x%llx "
		 "%s 2>&1 >&3 3>&- | grep -v '^objdump: Warning: ' >&2 3>&-; } 3>&1",
		 (unsigned long long)func, q);
	FILE *f = popen(cmd, "r");
	if (!f)
		return fprintf(stderr, "vprof: cannot run objdump\n"), 1;
	bool ok = va_read_listing(f, func, d);
	pclose(f);
	if (!ok)
		return fprintf(stderr, "vprof: out of memory\n"), 1;
	return 0;
}

/* Each sampled PC of pcs[0..n) onto the instruction containing it; those outside are returned. */
static va_n_t va_attribute(va_dis_t *d, const va_pc_t *pcs, size_t n)
{
	va_n_t outside = { 0, 0 };
	size_t last = SIZE_MAX;

	for (size_t i = 0, at = 0; i < n; i++) {
		for (; at < d->n && (d->v[at].addr == 0 || d->v[at].addr <= pcs[i].addr); at++)
			if (d->v[at].addr)
				last = at;
		if (last != SIZE_MAX)
			va_n_add(&d->v[last].n, pcs[i].n);
		else
			va_n_add(&outside, pcs[i].n);
	}
	return outside;
}

/* The listing with its counts: % of the function, % of all, samples, the line. */
static void va_print_listing(FILE *out, const va_dis_t *d, va_n_t fn_total, va_n_t total)
{
	fprintf(out, "%7s  %7s  %7s  %s\n", "%", "total%", "samples",
		"instruction (source lines indented)");
	for (size_t i = 0; i < d->n; i++) {
		const va_insn_t *x = &d->v[i];
		if (!x->addr) {
			fprintf(out, "%27s%s\n", "", x->text);
			continue;
		}
		va_pct(out, x->n.ns, fn_total.ns, 7);
		fprintf(out, "  ");
		va_pct(out, x->n.ns, total.ns, 7);
		fprintf(out, "  %7llu  %s\n", (unsigned long long)x->n.count, x->text);
	}
}

/* One function (pcs[0..n), one binary and start): its header and listing. 0 or 1. */
static int va_annotate_one(FILE *out, const vprof_annot_t *a, const va_pc_t *pcs, size_t n,
			   va_n_t total)
{
	char buf[VPROF_PATH_MAX];
	const char *file = va_file(a, pcs->path, buf, sizeof(buf));
	va_n_t fn_total = { 0, 0 };
	va_dis_t d = { 0 };

	if (!file)
		return 1;
	for (size_t i = 0; i < n; i++)
		va_n_add(&fn_total, pcs[i].n);
	if (va_disassemble(file, pcs->func, &d))
		return 1;
	va_n_t outside = va_attribute(&d, pcs, n);
	fprintf(out, "%s%s (%s, at 0x%llx): %llu of %llu samples, ", pcs->name,
		pcs->kernel ? " [k]" : "", pcs->path, (unsigned long long)pcs->func,
		(unsigned long long)fn_total.count, (unsigned long long)total.count);
	va_pct(out, fn_total.ns, total.ns, 4);
	fprintf(out, "%% of the time\n");
	if (!d.n)
		fprintf(stderr, "vprof: %s: objdump listed no instructions at 0x%llx\n", file,
			(unsigned long long)pcs->func);
	if (outside.count)
		fprintf(out, "(%llu samples outside the listed instructions)\n",
			(unsigned long long)outside.count);
	va_print_listing(out, &d, fn_total, total);
	va_dis_free(&d);
	return d.n ? 0 : 1;
}

/* Is pc in the function named symbol (by its symbol, not an address's hex)? */
static bool va_is(const va_pc_t *pc, const char *symbol)
{
	return pc->known && strcmp(pc->name, symbol) == 0;
}

/* Name the binaries of samples without a symbol that were not found (their functions unknown). */
static void va_name_missing(const vprof_annot_t *a, const va_pcs_t *p)
{
	char buf[VPROF_PATH_MAX];

	for (size_t i = 0; i < p->n; i++)
		if (!p->v[i].known && (i == 0 || strcmp(p->v[i].path, p->v[i - 1].path)))
			va_file(a, p->v[i].path, buf, sizeof(buf));
}

/* -a: each function named symbol (one per binary and start), in the sorted pcs. */
static int va_annotate_pcs(FILE *out, const vprof_annot_t *a, const va_pcs_t *p)
{
	int rc = 0, found = 0;

	for (size_t i = 0; i < p->n;) {
		size_t j = i + 1;
		if (!va_is(&p->v[i], a->symbol)) {
			i++;
			continue;
		}
		while (j < p->n && p->v[j].func == p->v[i].func && !strcmp(p->v[j].path, p->v[i].path))
			j++;
		if (found++)
			fprintf(out, "\n");
		rc |= va_annotate_one(out, a, &p->v[i], j - i, p->total);
		i = j;
	}
	if (!found) {
		fprintf(stderr, "vprof: %s: no such function among the sampled ones (unknown "
			"symbol, or no samples in it after the filters)\n", a->symbol);
		va_name_missing(a, p);
	}
	return found ? rc : 1;
}

/* -a SYMBOL of the fed report r to out (vprof.h). */
int vprof_annotate(prof_report_t *r, const vprof_annot_t *a, FILE *out)
{
	va_pcs_t p = { 0 };
	int rc = va_have("objdump") ? va_gather(r, a, &p) : 1;

	if (rc == 0)
		rc = va_annotate_pcs(out, a, &p);
	va_pcs_free(&p);
	return rc;
}

/* -------------------------------------------------------------- --lines */

/* One row of the per-line table. */
typedef struct va_line {
	const char *func;               /* the report's name (in va_pcs_t) */
	char *where;                    /* "FILE:LINE", "??:0" if unknown */
	va_n_t n;
	bool kernel;
} va_line_t;

typedef struct va_lines {
	va_line_t *v;
	size_t n, cap;
} va_lines_t;

/* "FILE:LINE (discriminator N)" -> "FILE:LINE"; "??:?" -> "??:0". */
static void va_clean_where(char *s)
{
	char *d = strstr(s, " (discriminator");

	if (d)
		*d = '\0';
	if (strcmp(s, "??:?") == 0)
		strcpy(s, "??:0");
}

/* Write pcs[0..n)'s addresses, one per line, to a temporary file; its name in tmp. */
static bool va_addr_file(const va_pc_t *pcs, size_t n, char *tmp, size_t size)
{
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	int fd;

	snprintf(tmp, size, "%s/vprof-lines.XXXXXX", dir);
	if ((fd = mkstemp(tmp)) < 0)
		return false;
	FILE *f = fdopen(fd, "w");
	if (!f)
		return close(fd), unlink(tmp), false;
	for (size_t i = 0; i < n; i++)
		fprintf(f, "0x%llx\n", (unsigned long long)pcs[i].addr);
	bool ok = fclose(f) == 0;
	if (!ok)
		unlink(tmp);
	return ok;
}

/*
 * Read addr2line -a -f -i's answers for pcs[0..n) from f: per address
 * "0xADDR", then function and FILE:LINE pairs, innermost first; the
 * first pair's line goes to where[i].
 */
static void va_read_lines(FILE *f, const va_pc_t *pcs, size_t n, char **where)
{
	char line[VA_LINE];
	size_t i = SIZE_MAX;
	int pair = 0;

	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '0' && line[1] == 'x' && i + 1 < n &&
		    strtoull(line, NULL, 16) == pcs[i + 1].addr) {
			i++, pair = 0;
			continue;
		}
		if (i < n && pair++ == 1 && !where[i]) {
			va_clean_where(line);
			where[i] = strdup(line);
		}
	}
}

/* addr2line on file for pcs[0..n) (one binary): where[i] each (NULL if none). 0 or 1. */
static int va_addr2line(const char *file, const va_pc_t *pcs, size_t n, char **where)
{
	char tmp[512], q[VPROF_PATH_MAX * 4 + 8], qt[sizeof(tmp) * 4 + 8];
	char cmd[sizeof(q) + sizeof(qt) + 64];

	if (!va_addr_file(pcs, n, tmp, sizeof(tmp)))
		return fprintf(stderr, "vprof: cannot write a temporary file\n"), 1;
	int rc = !va_quote(q, sizeof(q), file) || !va_quote(qt, sizeof(qt), tmp);
	snprintf(cmd, sizeof(cmd), "addr2line -a -f -i -e %s < %s", q, qt);
	FILE *f = rc ? NULL : popen(cmd, "r");
	if (f) {
		va_read_lines(f, pcs, n, where);
		rc = pclose(f) != 0;
	}
	unlink(tmp);
	if (rc)
		fprintf(stderr, "vprof: addr2line failed on %s\n", file);
	return rc;
}

/* Append the row (func, where, count); va_merge sums equal ones. False when out of memory. */
static bool va_line_add(va_lines_t *t, const va_pc_t *pc, const char *where)
{
	if (!va_grow((void **)&t->v, &t->cap, t->n, sizeof(*t->v)))
		return false;
	t->v[t->n] = (va_line_t){ pc->name, strdup(where), pc->n, pc->kernel };
	return t->v[t->n].where && ++t->n;
}

/* By function (kernel ones apart), then line. */
static int va_cmp_key(const void *a, const void *b)
{
	const va_line_t *x = a, *y = b;
	int c = strcmp(x->func, y->func);

	if (c)
		return c;
	if (x->kernel != y->kernel)
		return x->kernel ? 1 : -1;
	return strcmp(x->where, y->where);
}

/* Sum the rows of the same function and line into one. */
static void va_merge(va_lines_t *t)
{
	size_t n = 0;

	qsort(t->v, t->n, sizeof(*t->v), va_cmp_key);
	for (size_t i = 0; i < t->n; i++) {
		if (n && va_cmp_key(&t->v[n - 1], &t->v[i]) == 0) {
			va_n_add(&t->v[n - 1].n, t->v[i].n);
			free(t->v[i].where);
		} else {
			t->v[n++] = t->v[i];
		}
	}
	t->n = n;
}

/* The rows of one binary's pcs[0..n); missing counts a binary not found. 0 or 1. */
static int va_lines_bin(const vprof_annot_t *a, const va_pc_t *pcs, size_t n, va_lines_t *t,
			unsigned *missing)
{
	char buf[VPROF_PATH_MAX];
	const char *file = va_file(a, pcs->path, buf, sizeof(buf));
	char **where = calloc(n, sizeof(*where));
	int rc = where ? 0 : 1;

	if (!file && *pcs->path)
		++*missing;
	if (file && where)
		rc = va_addr2line(file, pcs, n, where);
	for (size_t i = 0; i < n && where; i++)
		if (!va_line_add(t, &pcs[i], where[i] ? where[i] : "??:0"))
			rc = 1;
	for (size_t i = 0; i < n && where; i++)
		free(where[i]);
	free(where);
	return rc;
}

/* Most time first, then most samples, then by function and line. */
static int va_cmp_line(const void *a, const void *b)
{
	const va_line_t *x = a, *y = b;

	if (x->n.ns != y->n.ns)
		return x->n.ns > y->n.ns ? -1 : 1;
	if (x->n.count != y->n.count)
		return x->n.count > y->n.count ? -1 : 1;
	return va_cmp_key(a, b);
}

static void va_print_lines(FILE *out, va_lines_t *t, va_n_t total)
{
	va_merge(t);
	qsort(t->v, t->n, sizeof(*t->v), va_cmp_line);
	fprintf(out, "samples by source line: %llu total (%% of the time)\n\n",
		(unsigned long long)total.count);
	fprintf(out, "%8s  %7s  %-28s %s\n", "%", "samples", "function", "line");
	for (size_t i = 0; i < t->n; i++) {
		char fn[256];
		snprintf(fn, sizeof(fn), "%s%s", t->v[i].func, t->v[i].kernel ? " [k]" : "");
		va_pct(out, t->v[i].n.ns, total.ns, 7);
		fprintf(out, "%%  %7llu  %-28s %s\n", (unsigned long long)t->v[i].n.count, fn,
			t->v[i].where);
	}
}

/* --lines over the sorted pcs, one addr2line per binary. */
static int va_lines_pcs(FILE *out, const vprof_annot_t *a, const va_pcs_t *p)
{
	va_lines_t t = { 0 };
	unsigned missing = 0;
	int rc = 0;

	for (size_t i = 0, j; i < p->n; i = j) {
		for (j = i + 1; j < p->n && strcmp(p->v[j].path, p->v[i].path) == 0; j++)
			;
		rc |= va_lines_bin(a, &p->v[i], j - i, &t, &missing);
	}
	if (rc == 0)
		va_print_lines(out, &t, p->total);
	for (size_t i = 0; i < t.n; i++)
		free(t.v[i].where);
	free(t.v);
	if (rc == 0 && missing)
		fprintf(stderr, "vprof: warning: %u binar%s not found: their lines print as ??:0\n",
			missing, missing == 1 ? "y" : "ies");
	return rc ? 1 : missing ? 3 : 0;
}

/* --lines of the fed report r to out (vprof.h). */
int vprof_lines(prof_report_t *r, const vprof_annot_t *a, FILE *out)
{
	va_pcs_t p = { 0 };
	int rc = va_have("addr2line") ? va_gather(r, a, &p) : 1;

	if (rc == 0)
		rc = va_lines_pcs(out, a, &p);
	va_pcs_free(&p);
	return rc;
}
