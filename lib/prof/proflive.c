/*
 * The live view's model (lib/proflive.h): rows of (task, function) found
 * by a key string (task id, binary, function) in a string-keyed
 * prof_map_t (lib/profcore.h), their counts since the start and over the
 * last refresh; the view's selection, sorted with prof_sort; the keys.
 */
#include <lib/fmt.h>
#include <lib/profcore.h>
#include <lib/proflive.h>
#include <lib/string.h>

#define KEY_CTRL_C 0x03
#define KEY_ESC 0x1b
#define KEY_SEP '\x1f'                  /* between a key's parts */
#define TASK_HEX_MAX 17                 /* a task id in hex, NUL included */

struct prof_live {
	prof_env_t env;
	prof_live_row_t *rows;
	size_t nrows, cap;
	prof_map_t index;               /* prof_str_t of a row's key -> row */
	uint32_t *sel;                  /* prof_live_select's rows, sorted */
	size_t nsel, cap_sel;
};

static const char *const col_names[PROF_LIVE_NCOLS] = {
	"LAST%", "TOTAL%", "SAMPLES", "TASK", "FUNCTION",
};

static const char *const mode_names[] = { "all", "user", "kernel" };

const char *const prof_live_help[] = {
	"keys of the live view:",
	"  < >       sort by the column to the left / right",
	"  m         show all, user or kernel functions (kernel: idle too)",
	"  t         one task: type its id and Enter (Enter alone: all tasks)",
	"  a space   pause / resume sampling",
	"  h ?       this help (any key leaves it)",
	"  q Ctrl-C  quit",
	NULL,
};

errno_t prof_live_new(const prof_env_t *env, prof_live_t **out)
{
	prof_live_t *l = prof_alloc(env, sizeof(*l));

	*out = l;
	if (!l)
		return ENOMEM;
	memset(l, 0, sizeof(*l));
	l->env = *env;
	prof_map_init_str(&l->index, sizeof(uint32_t));
	return EOK;
}

void prof_live_free(prof_live_t *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->nrows; i++)
		prof_release(&l->env, l->rows[i].key);
	prof_map_free(&l->env, &l->index);
	prof_release(&l->env, l->rows);
	prof_release(&l->env, l->sel);
	prof_release(&l->env, l);
}

void prof_live_begin(prof_live_t *l)
{
	for (size_t i = 0; i < l->nrows; i++)
		l->rows[i].last = 0;
}

/* ---------------------------------------------------------------- rows */

/*
 * The key of r from env: "TASK^_BINARY^_FUNCTION" (*len bytes, then a
 * NUL), then a NUL-terminated copy of the binary; NULL without memory.
 */
static char *row_key(prof_live_t *l, const prof_row_info_t *r, size_t *len)
{
	char task[TASK_HEX_MAX];
	size_t nt = (size_t)fmt_snprintf(task, sizeof(task), "%llx",
					 (unsigned long long)r->task_id);
	size_t nb = strlen(r->binary), nf = strlen(r->function);
	char *k = prof_alloc(&l->env, nt + 2 * nb + nf + 4);

	if (!k)
		return NULL;
	memcpy(k, task, nt);
	k[nt] = KEY_SEP;
	memcpy(k + nt + 1, r->binary, nb);
	k[nt + 1 + nb] = KEY_SEP;
	memcpy(k + nt + nb + 2, r->function, nf + 1);
	*len = nt + nb + nf + 2;
	memcpy(k + *len + 1, r->binary, nb + 1);
	return k;
}

/* The row of key (len bytes), or NULL if there is none yet. */
static prof_live_row_t *row_find(prof_live_t *l, const char *key, size_t len)
{
	prof_str_t k = { key, len };
	const uint32_t *i = prof_map_lookup(&l->index, &k);

	return i ? &l->rows[*i] : NULL;
}

/* A new row of key (owned by it from now on), indexed; NULL without memory. */
static prof_live_row_t *row_new(prof_live_t *l, char *key, size_t len,
				const prof_row_info_t *r)
{
	prof_str_t k = { key, len };
	bool created;

	if (prof_vec_reserve(&l->env, (void **)&l->rows, &l->cap, l->nrows,
			     sizeof(*l->rows)) != EOK)
		return NULL;
	uint32_t *v = prof_map_get(&l->env, &l->index, &k, &created);
	if (!v)
		return NULL;
	prof_live_row_t *row = &l->rows[l->nrows];
	*v = (uint32_t)l->nrows++;
	memset(row, 0, sizeof(*row));
	row->key = key;
	row->task = r->task_id;
	row->func = key + len - strlen(r->function);
	row->bin = key + len + 1;
	row->kernel = r->kernel;
	return row;
}

errno_t prof_live_add(prof_live_t *l, const prof_row_info_t *r)
{
	size_t len = 0;
	char *key = row_key(l, r, &len);

	if (!key)
		return ENOMEM;
	prof_live_row_t *row = row_find(l, key, len);
	if (row) {
		prof_release(&l->env, key);
	} else if ((row = row_new(l, key, len, r)) == NULL) {
		prof_release(&l->env, key);
		return ENOMEM;
	}
	row->last = r->count > row->total ? r->count - row->total : 0;
	row->total = r->count;
	strlcpy(row->task_name, r->task, sizeof(row->task_name));
	return EOK;
}

/* prof_report_rows' callback: a row into the table. */
static errno_t refresh_row(void *ctx, const prof_row_info_t *r)
{
	return prof_live_add(ctx, r);
}

errno_t prof_live_refresh(prof_live_t *l, prof_report_t *r, const prof_report_opts_t *o)
{
	prof_live_begin(l);
	return prof_report_rows(r, o, refresh_row, l);
}

/* ---------------------------------------------------------------- the view */

/* Does view v take row r? */
static bool view_takes(const prof_live_view_t *v, const prof_live_row_t *r)
{
	if (!r->total)
		return false;
	if ((v->mode == PROF_XMODE_USER && r->kernel) ||
	    (v->mode == PROF_XMODE_KERNEL && !r->kernel))
		return false;
	return !v->by_task || r->task == v->task;
}

/* a before b (negative), after (positive): most first. */
static int cmp_desc(uint64_t a, uint64_t b)
{
	return a > b ? -1 : a < b;
}

/* Ties: most since the start, then by function and task. */
static int cmp_tie(const prof_live_row_t *a, const prof_live_row_t *b)
{
	int c = cmp_desc(a->total, b->total);

	if (!c)
		c = strcmp(a->func, b->func);
	if (!c)
		c = a->task < b->task ? -1 : a->task > b->task;
	return c;
}

/* Order of two selected rows by the view's column (ctx: the view). */
static int cmp_rows(const void *pa, const void *pb, void *ctx)
{
	const prof_live_t *l = ((const void **)ctx)[0];
	const prof_live_view_t *v = ((const void **)ctx)[1];
	const prof_live_row_t *a = &l->rows[*(const uint32_t *)pa];
	const prof_live_row_t *b = &l->rows[*(const uint32_t *)pb];
	int c = 0;

	if (v->sort == PROF_LIVE_LAST)
		c = cmp_desc(a->last, b->last);
	else if (v->sort == PROF_LIVE_TASK)
		c = a->task < b->task ? -1 : a->task > b->task;
	else if (v->sort == PROF_LIVE_FUNC)
		c = strcmp(a->func, b->func);
	return c ? c : cmp_tie(a, b);
}

errno_t prof_live_select(prof_live_t *l, const prof_live_view_t *v, uint64_t *total,
			 uint64_t *last)
{
	const void *ctx[2] = { l, v };

	l->nsel = 0;
	*total = *last = 0;
	for (size_t i = 0; i < l->nrows; i++) {
		if (!view_takes(v, &l->rows[i]))
			continue;
		if (prof_vec_reserve(&l->env, (void **)&l->sel, &l->cap_sel, l->nsel,
				     sizeof(*l->sel)) != EOK)
			return ENOMEM;
		l->sel[l->nsel++] = (uint32_t)i;
		*total += l->rows[i].total;
		*last += l->rows[i].last;
	}
	prof_sort(l->sel, l->nsel, sizeof(*l->sel), cmp_rows, ctx);
	return EOK;
}

size_t prof_live_count(const prof_live_t *l)
{
	return l->nsel;
}

const prof_live_row_t *prof_live_at(const prof_live_t *l, size_t i)
{
	return &l->rows[l->sel[i]];
}

unsigned prof_live_centi(uint64_t n, uint64_t whole)
{
	if (!whole)
		return 0;
	if (n > UINT64_MAX / 10000)
		return (unsigned)(n / (whole / 10000 ? whole / 10000 : 1));
	return (unsigned)((n * 10000 + whole / 2) / whole);
}

const char *prof_live_col_name(prof_live_col_t c)
{
	return c < PROF_LIVE_NCOLS ? col_names[c] : "?";
}

const char *prof_live_mode_name(unsigned mode)
{
	return mode <= PROF_XMODE_KERNEL ? mode_names[mode] : "?";
}

/* ---------------------------------------------------------------- keys */

void prof_live_ui_init(prof_live_ui_t *ui)
{
	memset(ui, 0, sizeof(*ui));
	ui->view.sort = PROF_LIVE_LAST;
	ui->view.mode = PROF_XMODE_ALL;
}

/* A key while a task id is typed; Enter: that task (none typed: every task). */
static void entry_key(prof_live_ui_t *ui, char c)
{
	uint64_t id;
	bool given;

	if (num_entry_key(&ui->entry, c, &id, &given) != NUM_ENTRY_DONE)
		return;
	ui->view.by_task = given;
	ui->view.task = id;
}

/* < or >: the sort column one to the left or right (wrapping). */
static void sort_move(prof_live_ui_t *ui, bool right)
{
	unsigned n = PROF_LIVE_NCOLS, s = ui->view.sort;

	ui->view.sort = (prof_live_col_t)(right ? (s + 1) % n : (s + n - 1) % n);
}

/* A key of the view itself; what it asks. */
static prof_live_act_t view_key(prof_live_ui_t *ui, char c)
{
	if (c == '<' || c == '>') {
		sort_move(ui, c == '>');
	} else if (c == 'm') {
		ui->view.mode = (ui->view.mode + 1) % (PROF_XMODE_KERNEL + 1);
	} else if (c == 't') {
		num_entry_start(&ui->entry);
	} else if (c == 'h' || c == '?') {
		ui->help = true;
	} else if (c == 'a' || c == ' ') {
		return PROF_LIVE_ACT_PAUSE;
	} else {
		return PROF_LIVE_ACT_NONE;
	}
	return PROF_LIVE_ACT_DRAW;
}

prof_live_act_t prof_live_key(prof_live_ui_t *ui, char c)
{
	if (c == 'q' || c == KEY_CTRL_C)
		return PROF_LIVE_ACT_QUIT;
	if (ui->help) {
		ui->help = false;
		return PROF_LIVE_ACT_DRAW;
	}
	if (ui->entry.active) {
		entry_key(ui, c);
		return PROF_LIVE_ACT_DRAW;
	}
	return view_key(ui, c);
}
