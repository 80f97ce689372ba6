/*
 * The profile comparison (lib/profdiff.h): two tables (tasks, functions)
 * of rows matched by a key string, kept in an array with an index (a
 * string-keyed prof_map_t, lib/profcore.h); the statistics are computed here
 * in double precision without libm (exp by range reduction and a Taylor
 * series, sqrt by Newton's method, the normal tail by its power series
 * below 3 and its continued fraction from 3 on).
 */
#include <lib/fmt.h>
#include <lib/profdiff.h>
#include <lib/profexport.h>
#include <lib/string.h>

#define PD_LN2_HI 6.93147180369123816490e-01    /* ln 2 = HI + LO */
#define PD_LN2_LO 1.90821492927058770002e-10
#define PD_INV_SQRT_2PI 0.39894228040143267794
#define PD_CF_TERMS 80                  /* continued fraction depth (x >= 3) */
#define PD_SERIES_MAX 200
#define PD_KEY_MAX 512
#define PD_TINY_P 1e-99                 /* smaller p-values print as "<1e-99" */

typedef struct pd_table {
	profdiff_row_t *rows;
	size_t n, cap;
	prof_map_t index;               /* key (prof_str_t of a row's key) -> row */
} pd_table_t;

struct profdiff {
	prof_env_t env;
	profdiff_opts_t o;
	pd_table_t t[2];                /* PROFDIFF_TASKS, PROFDIFF_FUNCS */
	uint64_t total[2];
	bool finished;
};

/* ---------------------------------------------------------------- arithmetic */

/* x * 2^k, by halving or doubling (subnormals come out right). */
static double pd_scale2(double x, int k)
{
	for (; k > 0; k--)
		x *= 2.0;
	for (; k < 0; k++)
		x *= 0.5;
	return x;
}

/* e^x for x <= 709; 0 below -745. */
static double pd_exp(double x)
{
	if (x < -745.2)
		return 0.0;
	double kf = x / (PD_LN2_HI + PD_LN2_LO);
	int k = (int)(kf < 0 ? kf - 0.5 : kf + 0.5);
	double r = (x - k * PD_LN2_HI) - k * PD_LN2_LO;     /* |r| <= ln2 / 2 */
	double sum = 1.0, term = 1.0;

	for (int i = 1; i < 24; i++) {
		term *= r / i;
		sum += term;
	}
	return pd_scale2(sum, k);
}

/* The square root of x >= 0 (0 for anything else). */
static double pd_sqrt(double x)
{
	if (!(x > 0.0))
		return 0.0;
	double y = x > 1.0 ? x : 1.0;   /* >= sqrt(x): Newton falls from above */

	for (;;) {
		double n = 0.5 * (y + x / y);
		if (n >= y)
			return y;
		y = n;
	}
}

/* The standard normal density. */
static double pd_density(double x)
{
	return PD_INV_SQRT_2PI * pd_exp(-0.5 * x * x);
}

double profdiff_normal_tail(double x)
{
	if (x != x)
		return x;
	if (x < 0)
		return 1.0 - profdiff_normal_tail(-x);
	if (x < 3.0) {
		/* P(Z > x) = 1/2 - phi(x) (x + x^3/3 + x^5/(3*5) + ...) */
		double term = x, sum = x;
		for (int n = 1; n < PD_SERIES_MAX && term > 1e-17 * sum; n++) {
			term *= x * x / (2 * n + 1);
			sum += term;
		}
		return 0.5 - pd_density(x) * sum;
	}
	if (x > 40.0)
		return 0.0;
	/* P(Z > x) = phi(x) / (x + 1/(x + 2/(x + 3/(x + ...)))) */
	double t = x;
	for (int k = PD_CF_TERMS; k > 0; k--)
		t = x + k / t;
	return pd_density(x) / t;
}

void profdiff_ztest(uint64_t ca, uint64_t na, uint64_t cb, uint64_t nb,
		    profdiff_test_t *t)
{
	double pa = na ? (double)ca / (double)na : 0.0;
	double pb = nb ? (double)cb / (double)nb : 0.0;

	t->share_a = 100.0 * pa;
	t->share_b = 100.0 * pb;
	t->diff = t->share_b - t->share_a;
	t->z = 0.0;
	t->p = 1.0;
	if (!na || !nb)
		return;
	double pool = (double)(ca + cb) / (double)(na + nb);
	double se = pd_sqrt(pool * (1.0 - pool) * (1.0 / (double)na + 1.0 / (double)nb));
	if (se > 0.0) {
		t->z = (pb - pa) / se;
		t->p = 2.0 * profdiff_normal_tail(t->z < 0 ? -t->z : t->z);
	}
}

/* ---------------------------------------------------------------- tables */

static char *pd_strdup(profdiff_t *d, const char *s)
{
	size_t len = strlen(s);
	char *c = prof_alloc(&d->env, len + 1);

	if (c)
		memcpy(c, s, len + 1);
	return c;
}

/* The row of key in t's index, or NULL (no row has it yet). */
static profdiff_row_t *pd_find(pd_table_t *t, const char *key)
{
	prof_str_t k = { key, strlen(key) };
	const uint32_t *row = prof_map_lookup(&t->index, &k);

	return row ? &t->rows[*row] : NULL;
}

/* Index row n of t (its key copied already). EOK or ENOMEM. */
static errno_t pd_index(profdiff_t *d, pd_table_t *t, size_t n)
{
	prof_str_t k = { t->rows[n].key, strlen(t->rows[n].key) };
	bool created;

	if (!t->index.esize)
		prof_map_init_str(&t->index, sizeof(uint32_t));
	uint32_t *v = prof_map_get(&d->env, &t->index, &k, &created);
	if (!v)
		return ENOMEM;
	*v = (uint32_t)n;
	return EOK;
}

/* The row of key in t, added (counts zero) when new; NULL without memory. */
static profdiff_row_t *pd_row(profdiff_t *d, pd_table_t *t, const char *key,
			      const char *name, const char *bin, bool kernel)
{
	profdiff_row_t *row = pd_find(t, key);

	if (row) {
		if (strcmp(row->bin, bin) != 0)
			fmt_snprintf(row->bin, sizeof(row->bin), "*");
		return row;
	}
	if (prof_vec_reserve(&d->env, (void **)&t->rows, &t->cap, t->n, sizeof(*t->rows)) != EOK)
		return NULL;
	row = &t->rows[t->n];
	memset(row, 0, sizeof(*row));
	row->key = pd_strdup(d, key);
	row->name = pd_strdup(d, name);
	if (!row->key || !row->name || pd_index(d, t, t->n) != EOK) {
		prof_release(&d->env, row->key);
		prof_release(&d->env, row->name);
		return NULL;
	}
	fmt_snprintf(row->bin, sizeof(row->bin), "%s", bin);
	row->kernel = kernel;
	t->n++;
	return row;
}

/* The file name of a path ("" stays ""). */
static const char *pd_basename(const char *path)
{
	const char *name = path;

	for (const char *p = path; *p; p++)
		if (*p == '/' && p[1])
			name = p + 1;
	return name;
}

/* Whether row belongs to the task opts.task names (by name or id). */
static bool pd_task_wanted(const profdiff_t *d, const prof_row_info_t *row)
{
	const char *want = d->o.task;
	char id[24];

	if (!want)
		return true;
	if (strcmp(want, row->task) == 0)
		return true;
	if (row->task_id == PROF_ROW_IDLE)
		return false;
	fmt_snprintf(id, sizeof(id), "%llu", (unsigned long long)row->task_id);
	return strcmp(want, id) == 0;
}

/* The function key of row: [k] or binary+hash, then the symbol. */
static void pd_func_key(const profdiff_t *d, const prof_row_info_t *row, char *key,
			size_t size)
{
	if (d->o.by_name)
		fmt_snprintf(key, size, "%c %s", row->kernel ? 'k' : 'u', row->function);
	else
		fmt_snprintf(key, size, "%c %s %016llx %s", row->kernel ? 'k' : 'u',
			     row->binary, (unsigned long long)row->hash, row->function);
}

errno_t profdiff_add(profdiff_t *d, unsigned side, const prof_row_info_t *row)
{
	char key[PD_KEY_MAX];

	if (side > 1 || d->finished)
		return EINVAL;
	if (!pd_task_wanted(d, row))
		return EOK;
	profdiff_row_t *task = pd_row(d, &d->t[PROFDIFF_TASKS], row->task, row->task, "",
				      false);
	if (!task)
		return ENOMEM;
	pd_func_key(d, row, key, sizeof(key));
	profdiff_row_t *func = pd_row(d, &d->t[PROFDIFF_FUNCS], key, row->function,
				      row->kernel ? "kernel" : pd_basename(row->binary),
				      row->kernel);
	if (!func)
		return ENOMEM;
	task->count[side] += row->count;
	func->count[side] += row->count;
	d->total[side] += row->count;
	return EOK;
}

typedef struct pd_feed {
	profdiff_t *d;
	unsigned side;
} pd_feed_t;

static errno_t pd_feed_row(void *ctx, const prof_row_info_t *row)
{
	pd_feed_t *f = ctx;

	return profdiff_add(f->d, f->side, row);
}

errno_t profdiff_add_report(profdiff_t *d, unsigned side, prof_report_t *r,
			    const prof_report_opts_t *ro)
{
	pd_feed_t f = { d, side };

	return prof_report_rows(r, ro, pd_feed_row, &f);
}

/* ---------------------------------------------------------------- order */

static double pd_abs(double x)
{
	return x < 0 ? -x : x;
}

/* Larger |z| first, then the larger share in either profile, then name. */
static int pd_cmp(const profdiff_row_t *a, const profdiff_row_t *b)
{
	double za = pd_abs(a->t.z), zb = pd_abs(b->t.z);

	if (za != zb)
		return za > zb ? -1 : 1;
	double ma = a->t.share_a > a->t.share_b ? a->t.share_a : a->t.share_b;
	double mb = b->t.share_a > b->t.share_b ? b->t.share_a : b->t.share_b;
	if (ma != mb)
		return ma > mb ? -1 : 1;
	return strcmp(a->key, b->key);
}

/* By key alone (the folded join's order). */
static int pd_cmp_key(const profdiff_row_t *a, const profdiff_row_t *b)
{
	return strcmp(a->key, b->key);
}

typedef int (*pd_cmp_t)(const profdiff_row_t *a, const profdiff_row_t *b);

/* prof_sort's comparison of two rows by the pd_cmp_t at ctx. */
static int pd_sort_cmp(const void *a, const void *b, void *ctx)
{
	const pd_cmp_t *cmp = ctx;

	return (*cmp)(a, b);
}

/* Sort the rows ascending by cmp. */
static void pd_sort(profdiff_row_t *rows, size_t n, pd_cmp_t cmp)
{
	prof_sort(rows, n, sizeof(*rows), pd_sort_cmp, &cmp);
}

void profdiff_finish(profdiff_t *d)
{
	if (d->finished)
		return;
	for (unsigned i = 0; i < 2; i++) {
		pd_table_t *t = &d->t[i];
		for (size_t j = 0; j < t->n; j++)
			profdiff_ztest(t->rows[j].count[0], d->total[0], t->rows[j].count[1],
				       d->total[1], &t->rows[j].t);
		pd_sort(t->rows, t->n, pd_cmp);
		/* The index points at the old order: drop it (no more adds). */
		prof_map_free(&d->env, &t->index);
	}
	d->finished = true;
}

const profdiff_row_t *profdiff_rows(const profdiff_t *d, unsigned table, size_t *n)
{
	*n = table < 2 ? d->t[table].n : 0;
	return table < 2 ? d->t[table].rows : NULL;
}

uint64_t profdiff_total(const profdiff_t *d, unsigned side)
{
	return side < 2 ? d->total[side] : 0;
}

/* ---------------------------------------------------------------- printing */

#define pd_printf(d, ...) fmt_format((d)->env.out, (d)->env.ctx, __VA_ARGS__)

static bool pd_hidden(const profdiff_t *d, const profdiff_row_t *row)
{
	double t = d->o.threshold_centi / 100.0;

	return row->t.share_a < t && row->t.share_b < t;
}

static void pd_print_row(profdiff_t *d, const profdiff_row_t *row, bool funcs)
{
	const profdiff_test_t *t = &row->t;

	pd_printf(d, "%7.2f%% %7.2f%% %+8.2f %8.2f ", t->share_a, t->share_b, t->diff, t->z);
	if (t->p < PD_TINY_P)
		pd_printf(d, "%9s", "<1e-99");
	else
		pd_printf(d, "%9.2e", t->p);
	pd_printf(d, " %c ", t->p < PROFDIFF_ALPHA ? '*' : ' ');
	if (funcs)
		pd_printf(d, "%-12s %s%s\n", row->bin, row->name, row->kernel ? " [k]" : "");
	else
		pd_printf(d, "%s\n", row->name);
}

static void pd_print_table(profdiff_t *d, unsigned table)
{
	const pd_table_t *t = &d->t[table];
	bool funcs = table == PROFDIFF_FUNCS;
	size_t hidden = 0;
	unsigned th = d->o.threshold_centi;

	pd_printf(d, "\n%8s %8s %8s %8s %9s   %s\n", "A", "B", "B-A", "z", "p",
		  funcs ? "binary       function" : "task");
	for (size_t i = 0; i < t->n; i++) {
		if (pd_hidden(d, &t->rows[i]))
			hidden++;
		else
			pd_print_row(d, &t->rows[i], funcs);
	}
	if (hidden)
		pd_printf(d, "(%zu row%s below %u.%02u%% in both hidden)\n", hidden,
			  hidden == 1 ? "" : "s", th / 100, th % 100);
}

void profdiff_print(profdiff_t *d)
{
	profdiff_finish(d);
	pd_printf(d, "A: %s: %llu samples%s%s\n", d->o.name_a ? d->o.name_a : "A",
		  (unsigned long long)d->total[0], d->o.task ? " of task " : "",
		  d->o.task ? d->o.task : "");
	pd_printf(d, "B: %s: %llu samples%s%s\n", d->o.name_b ? d->o.name_b : "B",
		  (unsigned long long)d->total[1], d->o.task ? " of task " : "",
		  d->o.task ? d->o.task : "");
	pd_printf(d, "shares in %% of each profile's samples; B-A in points; z and p of "
		  "a two-proportion z-test; * p < %.2f; rows by |z|\n", PROFDIFF_ALPHA);
	pd_print_table(d, PROFDIFF_TASKS);
	pd_print_table(d, PROFDIFF_FUNCS);
}

/* ---------------------------------------------------------------- folded */

/*
 * One "STACK N" line (len bytes, no newline; a trailing \r is dropped)
 * into table t as side, the stack copied to buf. EOK, EINVAL, ENOMEM.
 */
static errno_t pd_folded_line(profdiff_t *d, unsigned side, const char *line, size_t len,
			      char *buf)
{
	uint64_t n = 0;
	size_t sp = len, digits = 0;

	if (len && line[len - 1] == '\r')
		len--;
	while (sp > 0 && line[sp - 1] != ' ')
		sp--;
	for (size_t i = sp; i < len; i++, digits++) {
		if (line[i] < '0' || line[i] > '9' || n > (UINT64_MAX - 9) / 10)
			return EINVAL;
		n = n * 10 + (uint64_t)(line[i] - '0');
	}
	if (sp < 2 || !digits)
		return EINVAL;
	memcpy(buf, line, sp - 1);
	buf[sp - 1] = '\0';
	profdiff_row_t *row = pd_row(d, &d->t[PROFDIFF_FUNCS], buf, "", "", false);
	if (!row)
		return ENOMEM;
	row->count[side] += n;
	return EOK;
}

/* Every line of text (len bytes) into side; empty lines are skipped. */
static errno_t pd_folded_text(profdiff_t *d, unsigned side, const char *text, size_t len,
			      char *buf)
{
	errno_t err = EOK;

	for (size_t at = 0, end; at < len && err == EOK; at = end + 1) {
		for (end = at; end < len && text[end] != '\n'; end++)
			;
		if (end > at && !(end == at + 1 && text[at] == '\r'))
			err = pd_folded_line(d, side, text + at, end - at, buf);
	}
	return err;
}

/* A new comparison holding the stacks of folded texts a and b as rows. */
static errno_t pd_folded_read(const prof_env_t *env, const char *a, size_t alen,
			      const char *b, size_t blen, profdiff_t **out)
{
	profdiff_opts_t o = { 0, false, NULL, NULL, NULL };
	profdiff_t *d;

	if (profdiff_new(env, &o, &d) != EOK)
		return ENOMEM;
	char *buf = prof_alloc(&d->env, (alen > blen ? alen : blen) + 1);
	errno_t err = buf ? pd_folded_text(d, 0, a, alen, buf) : ENOMEM;
	if (err == EOK)
		err = pd_folded_text(d, 1, b, blen, buf);
	prof_release(&d->env, buf);
	if (err != EOK)
		profdiff_free(d);
	else
		*out = d;
	return err;
}

errno_t profdiff_folded_join(const prof_env_t *env, const char *a, size_t alen,
			     const char *b, size_t blen)
{
	profdiff_t *d;
	errno_t err = pd_folded_read(env, a, alen, b, blen, &d);

	if (err != EOK)
		return err;
	pd_table_t *t = &d->t[PROFDIFF_FUNCS];
	pd_sort(t->rows, t->n, pd_cmp_key);
	for (size_t i = 0; i < t->n; i++)
		pd_printf(d, "%s %llu %llu\n", t->rows[i].key,
			  (unsigned long long)t->rows[i].count[0],
			  (unsigned long long)t->rows[i].count[1]);
	profdiff_free(d);
	return EOK;
}

/* ---------------------------------------------------------------- flame */

static bool pd_ends(const char *s, size_t len, const char *tail)
{
	size_t n = strlen(tail);

	return len >= n && memcmp(s + len - n, tail, n) == 0;
}

/*
 * A folded frame (len bytes at s) as the flame graph names it, into buf
 * (its length returned), and its kind: the first frame is the task;
 * NAME_[k] a kernel function (NAME [k]); 0xADDR_(BINARY) an unknown
 * address (0xADDR (BINARY)).
 */
static size_t pd_frame(const char *s, size_t len, bool first, char *buf, unsigned *kind)
{
	memcpy(buf, s, len);
	buf[len] = '\0';
	*kind = first ? PROF_FLAME_K_TASK : PROF_FLAME_K_USER;
	if (!first && pd_ends(s, len, "_[k]")) {
		buf[len - 4] = ' ';
		*kind = PROF_FLAME_K_KERNEL;
	} else if (!first && len > 2 && s[0] == '0' && s[1] == 'x' && pd_ends(s, len, ")")) {
		size_t i = 2;
		while (i + 1 < len && !(s[i] == '_' && s[i + 1] == '('))
			i++;
		if (i + 1 < len) {
			buf[i] = ' ';
			*kind = PROF_FLAME_K_UNKNOWN;
		}
	}
	return len;
}

/* The length of the frame at s (up to ';' or the end). */
static size_t pd_frame_len(const char *s)
{
	size_t n = 0;

	while (s[n] && s[n] != ';')
		n++;
	return n;
}

/* Add one joined row (stack, counts in A and B) to f; buf holds a frame. */
static errno_t pd_flame_row(prof_flame_t *f, const profdiff_row_t *row, char *buf)
{
	uint32_t at = PROF_FLAME_ROOT;
	const char *s = row->key;

	for (bool first = true; at != PROF_FLAME_NONE; first = false) {
		size_t len = pd_frame_len(s);
		unsigned kind;
		size_t n = pd_frame(s, len, first, buf, &kind);
		at = prof_flame_child(f, at, buf, n, kind);
		if (!s[len])
			break;
		s += len + 1;
	}
	if (at == PROF_FLAME_NONE)
		return ENOMEM;
	prof_flame_count(f, at, row->count[1], row->count[0]);
	return EOK;
}

/*
 * The heats of f's nodes: each node's share of A's and B's samples
 * tested as the table's rows are; where p < PROFDIFF_ALPHA, 1 .. 1000 by
 * the change in points against the largest significant one (negative
 * where the share shrank); 0 elsewhere.
 */
static void pd_flame_heat(prof_flame_t *f)
{
	uint64_t ta, tb, a, b;
	profdiff_test_t t;
	double max = 0.0;

	prof_flame_counts(f, PROF_FLAME_ROOT, &tb, &ta);
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t i = 1; i < prof_flame_size(f); i++) {
			prof_flame_counts(f, i, &b, &a);
			profdiff_ztest(a, ta, b, tb, &t);
			double mag = t.diff < 0 ? -t.diff : t.diff;
			if (t.p >= PROFDIFF_ALPHA || mag == 0.0)
				continue;
			if (pass == 0) {
				max = mag > max ? mag : max;
				continue;
			}
			int heat = (int)(1000.0 * mag / max + 0.5);
			heat = heat < 1 ? 1 : heat;
			prof_flame_heat(f, i, t.diff < 0 ? -heat : heat);
		}
	}
}

/* The flame graph of d's joined rows, written to out. */
static errno_t pd_flame_write(profdiff_t *d, const profdiff_opts_t *o, char *buf,
			      const prof_export_out_t *out)
{
	prof_flame_t *f = NULL;
	pd_table_t *t = &d->t[PROFDIFF_FUNCS];
	char heading[320], title[256];
	errno_t err = prof_flame_new(&d->env, &f);

	for (size_t i = 0; i < t->n && err == EOK; i++)
		err = pd_flame_row(f, &t->rows[i], buf);
	if (err != EOK) {
		prof_flame_free(f);
		return ENOMEM;
	}
	pd_flame_heat(f);
	uint64_t ta, tb;
	prof_flame_counts(f, PROF_FLAME_ROOT, &tb, &ta);
	fmt_snprintf(title, sizeof(title), "%s vs %s", o->name_a ? o->name_a : "A",
		     o->name_b ? o->name_b : "B");
	fmt_snprintf(heading, sizeof(heading), "A %llu samples, B %llu; width: B; red: the "
		     "share grew, blue: it shrank (p < %.2f)", (unsigned long long)ta,
		     (unsigned long long)tb, PROFDIFF_ALPHA);
	prof_flame_opts_t fo = { title, heading, true };
	err = prof_flame_write(f, &fo, out);
	prof_flame_free(f);
	return err;
}

errno_t profdiff_folded_flame(const prof_env_t *env, const char *a, size_t alen,
			      const char *b, size_t blen, const profdiff_opts_t *o,
			      const prof_export_out_t *out)
{
	profdiff_t *d;
	errno_t err = pd_folded_read(env, a, alen, b, blen, &d);

	if (err != EOK)
		return err;
	char *buf = prof_alloc(&d->env, (alen > blen ? alen : blen) + 1);
	err = buf ? pd_flame_write(d, o, buf, out) : ENOMEM;
	prof_release(&d->env, buf);
	profdiff_free(d);
	return err;
}

/* ---------------------------------------------------------------- life */

errno_t profdiff_new(const prof_env_t *env, const profdiff_opts_t *o,
		     profdiff_t **out)
{
	profdiff_t *d = env->alloc(env->ctx, sizeof(*d));

	if (!d)
		return ENOMEM;
	memset(d, 0, sizeof(*d));
	d->env = *env;
	d->o = *o;
	*out = d;
	return EOK;
}

void profdiff_free(profdiff_t *d)
{
	if (!d)
		return;
	for (unsigned i = 0; i < 2; i++) {
		pd_table_t *t = &d->t[i];
		for (size_t j = 0; j < t->n; j++) {
			prof_release(&d->env, t->rows[j].key);
			prof_release(&d->env, t->rows[j].name);
		}
		prof_release(&d->env, t->rows);
		prof_map_free(&d->env, &t->index);
	}
	prof_release(&d->env, d);
}
