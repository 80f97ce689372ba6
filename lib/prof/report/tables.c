/*
 * The profiler report's tables: rows of (task, function) summed from the
 * stacks, the per-task and function tables, the caller tree of the top
 * rows and prof_report_print.
 */
#include "rep.h"

/* ---------------------------------------------------------------- tables */

/* Is a row of time t (TSC cycles) below the threshold share? */
bool pr_hidden(const prof_print_t *pp, uint64_t t)
{
	return rep_centi(t, pp->ttotal) < pp->o->threshold_centi;
}

/* Say how many rows the threshold hid (nothing for none). */
void pr_hidden_line(prof_print_t *pp, size_t hidden)
{
	unsigned t = pp->o->threshold_centi;

	if (hidden > 0)
		rep_printf(pp->r, "(%zu row%s below %u.%02u%% hidden)\n", hidden,
			   hidden == 1 ? "" : "s", t / 100, t % 100);
}

/*
 * "off-cpu: N records, S s" (the time summed over threads), and with
 * the wall clock what the shares below are of.
 */
static void pr_offcpu(prof_print_t *pp)
{
	prof_report_t *r = pp->r;
	uint64_t per = r->header.tsc_hz / 10;

	if (r->wall && !r->c.offcpu)
		rep_printf(r, "wall clock: no off-CPU records (a session without -w, or a "
			   "stream before v4): on-CPU samples only\n");
	if (!r->c.offcpu)
		return;
	uint64_t tenths = per ? r->c.offcpu_cycles / per : 0;
	rep_printf(r, "off-cpu: %llu records, %llu.%u s", (unsigned long long)r->c.offcpu,
		   (unsigned long long)(tenths / 10), (unsigned)(tenths % 10));
	if (r->wall)
		rep_printf(r, "; wall clock: %llu samples = %llu on-CPU + %llu off-CPU",
			   (unsigned long long)(r->c.samples + r->c.offcpu_weight),
			   (unsigned long long)r->c.samples,
			   (unsigned long long)r->c.offcpu_weight);
	rep_printf(r, "\n");
}

/* "trace: N events" (v7 TRACE records), and the unknown kinds skipped. */
static void pr_trace(prof_print_t *pp)
{
	prof_report_t *r = pp->r;

	if (!r->c.trace && !r->c.trace_unknown)
		return;
	rep_printf(r, "trace: %llu event%s", (unsigned long long)r->c.trace,
		   r->c.trace == 1 ? "" : "s");
	if (r->c.trace_unknown)
		rep_printf(r, ", %llu of unknown kinds skipped",
			   (unsigned long long)r->c.trace_unknown);
	rep_printf(r, "\n");
}

/* Ticks due on each CPU over the session (its time * hz). */
static uint64_t pr_due(const prof_report_t *r)
{
	const prof_rec_header_t *h = &r->header;

	if (!h->tsc_hz || r->tsc_last <= h->h.tsc)
		return 0;
	return (uint64_t)((unsigned __int128)(r->tsc_last - h->h.tsc) * h->hz / h->tsc_hz);
}

/*
 * With MISSED records (v5), one line per CPU: the ticks due, the samples
 * taken (in the stream), the ticks that never came and the samples lost.
 */
static void pr_cpus(prof_print_t *pp)
{
	prof_report_t *r = pp->r;
	uint64_t due = pr_due(r);

	for (uint32_t i = 0; i < r->header.ncpus && i < PROF_MAX_CPUS; i++) {
		const prof_rec_cpu_t *c = &r->cpu[i];
		if (!c->missed_seen)
			continue;
		rep_printf(r, "cpu %u: due %llu, taken %llu, missed %llu, lost %llu\n", i,
			   (unsigned long long)due, (unsigned long long)c->samples,
			   (unsigned long long)(c->missed_last - c->missed_first),
			   (unsigned long long)c->lost);
	}
}

static void pr_summary(prof_print_t *pp)
{
	prof_report_t *r = pp->r;
	const prof_rec_header_t *h = &r->header;

	rep_printf(r, "samples: %llu total, %llu user, %llu kernel, %llu idle, %llu lost\n",
		   (unsigned long long)r->c.samples, (unsigned long long)r->c.user,
		   (unsigned long long)r->c.kernel, (unsigned long long)r->c.idle,
		   (unsigned long long)r->c.lost);
	if (r->c.throttled > 0)
		rep_printf(r, "throttled: %llu\n", (unsigned long long)r->c.throttled);
	if (!r->c.have_header)
		return;
	rep_printf(r, "time: %llu ns sampled, %llu ns idle (shares below are of time)\n",
		   (unsigned long long)rep_ns(r, r->c.cycles),
		   (unsigned long long)rep_ns(r, r->c.idle_cycles));
	rep_printf(r, "source: %s at %u Hz on %u CPU%s", r->c.source_name,
		   h->hz, h->ncpus, h->ncpus == 1 ? "" : "s");
	if (h->tsc_hz >= 10 && r->tsc_last > h->h.tsc) {
		uint64_t tenths = (r->tsc_last - h->h.tsc) / (h->tsc_hz / 10);
		rep_printf(r, ", %llu.%u s", (unsigned long long)(tenths / 10),
			   (unsigned)(tenths % 10));
	}
	rep_printf(r, "\n");
	pr_cpus(pp);
	pr_offcpu(pp);
	pr_trace(pp);
}

/* Per-task shares: the rows summed by slot, most first. */
static errno_t pr_tasks(prof_print_t *pp)
{
	prof_report_t *r = pp->r;
	size_t n = 0, hidden = 0;
	prof_row_t *t = prof_alloc(&r->env, (r->ntasks + 1) * sizeof(*t));
	char label[48];

	if (!t)
		return ENOMEM;
	for (size_t i = 0; i < r->ntasks; i++) {
		if (r->tasks[i].samples > 0)
			t[n++] = (prof_row_t){ (uint32_t)i, 0, r->tasks[i].samples, r->tasks[i].time };
	}
	if (r->c.idle > 0)
		t[n++] = (prof_row_t){ PROF_SLOT_IDLE, 0, r->c.idle, r->c.idle_cycles };
	prof_sort(t, n, sizeof(*t), pr_row_cmp, pp);
	rep_printf(r, "\n%7s %8s %12s  %s\n", "%", "samples", "ns", "task");
	for (size_t i = 0; i < n; i++) {
		if (pr_hidden(pp, t[i].time)) {
			hidden++;
			continue;
		}
		rep_task_label(r, t[i].slot, label, sizeof(label));
		rep_pct(r, t[i].time, pp->ttotal);
		rep_counts(r, t[i].count, t[i].time);
		rep_printf(r, "  %s\n", label);
	}
	pr_hidden_line(pp, hidden);
	prof_release(&r->env, t);
	return EOK;
}

static void pr_row_system(prof_print_t *pp, const prof_row_t *row)
{
	char label[48];

	rep_task_label(pp->r, row->slot, label, sizeof(label));
	rep_pct(pp->r, row->time, pp->ttotal);
	rep_counts(pp->r, row->count, row->time);
	rep_printf(pp->r, "  %-20s ", label);
	rep_func_name(pp, row->func);
	rep_printf(pp->r, "\n");
}

static void pr_row_task(prof_print_t *pp, const prof_row_t *row)
{
	rep_printf(pp->r, "0x%016llx", (unsigned long long)pp->funcs[row->func].addr);
	rep_counts(pp->r, row->count, row->time);
	rep_printf(pp->r, " ");
	rep_pct(pp->r, row->time, pp->ttotal);
	rep_printf(pp->r, "  ");
	rep_func_name(pp, row->func);
	rep_printf(pp->r, "\n");
}

/* The function table (rows already sorted); returns the rows shown. */
static size_t pr_functions(prof_print_t *pp)
{
	size_t hidden = 0, shown = 0;
	bool task = pp->o->style == PROF_STYLE_TASK;

	if (task)
		rep_printf(pp->r, "%18s %8s %12s %7s  %s\n", "Address", "Samples", "ns", "%",
			   "Symbol");
	else
		rep_printf(pp->r, "\n%7s %8s %12s  %-20s %s\n", "%", "samples", "ns", "task",
			   "symbol");
	for (size_t i = 0; i < pp->nrows; i++) {
		if (pr_hidden(pp, pp->rows[i].time)) {
			hidden++;
			continue;
		}
		/* Hidden rows are the smallest: the shown ones come first. */
		shown++;
		if (task)
			pr_row_task(pp, &pp->rows[i]);
		else
			pr_row_system(pp, &pp->rows[i]);
	}
	pr_hidden_line(pp, hidden);
	return shown;
}

/* ---------------------------------------------------------------- tree */

/* The callers of one sample group, outermost last. */
typedef struct prof_path {
	uint32_t f[PROF_TREE_DEPTH];
	uint32_t n;
	prof_val_t v;                   /* samples, time */
} prof_path_t;

static int pr_path_cmp(const void *a, const void *b, void *ctx)
{
	const prof_path_t *x = a, *y = b;
	uint32_t n = x->n < y->n ? x->n : y->n;

	for (uint32_t i = 0; i < n; i++) {
		if (x->f[i] != y->f[i])
			return x->f[i] < y->f[i] ? -1 : 1;
	}
	return x->n < y->n ? -1 : x->n > y->n;
}

/* Callers shown per level of the tree (level 0: direct callers). */
static const unsigned pr_fanout[] = { 5, 3, 2 };
#define PR_TREE_LEVELS (sizeof(pr_fanout) / sizeof(pr_fanout[0]))

/* End of the group of paths starting at lo that share f[d]; its sums in *v. */
static size_t pr_group_end(const prof_path_t *p, size_t lo, size_t hi, uint32_t d,
			   prof_val_t *v)
{
	size_t i = lo;

	*v = (prof_val_t){ 0, 0 };
	while (i < hi && p[i].f[d] == p[lo].f[d]) {
		val_add(v, p[i].v.n, p[i].v.t);
		i++;
	}
	return i;
}

/*
 * The largest group in [lo, hi) at level d that ranks below (time *count,
 * at) (more time first, then earlier start); false when none is left.
 */
static bool pr_next_group(const prof_path_t *p, size_t lo, size_t hi, uint32_t d,
			  uint64_t *count, size_t *at)
{
	uint64_t best = 0;
	prof_val_t v;
	size_t best_at = hi;

	for (size_t i = lo; i < hi;) {
		size_t end = pr_group_end(p, i, hi, d, &v);
		uint64_t c = v.t;
		bool below = c < *count || (c == *count && i > *at);
		if (below && (c > best || best_at == hi)) {
			best = c;
			best_at = i;
		}
		i = end;
	}
	if (best_at == hi)
		return false;
	*count = best;
	*at = best_at;
	return true;
}

/*
 * Print level d of the callers of the paths p[lo, hi) (sorted, sharing
 * their first d callers; those with no caller at level d sort first and
 * are skipped), the largest groups first, each line indented by level.
 * Recursion depth is at most PR_TREE_LEVELS.
 */
static void pr_tree_level(prof_print_t *pp, const prof_path_t *p, size_t lo,
			  size_t hi, uint32_t d, uint64_t row_time)
{
	uint64_t count = UINT64_MAX, rest = 0;
	size_t at = 0, shown = 0, groups = 0;

	while (lo < hi && p[lo].n <= d)
		lo++;
	while (pr_next_group(p, lo, hi, d, &count, &at)) {
		prof_val_t c;
		size_t end = pr_group_end(p, at, hi, d, &c);
		if (shown == pr_fanout[d]) {
			rest += c.n;
			groups++;
			continue;
		}
		shown++;
		rep_printf(pp->r, "%*s", (int)(3 + 4 * d), "");
		rep_counts(pp->r, c.n, c.t);
		rep_printf(pp->r, " ");
		rep_pct(pp->r, c.t, row_time);
		rep_printf(pp->r, "  <- ");
		rep_func_name(pp, p[at].f[d]);
		rep_printf(pp->r, "\n");
		if (d + 1 < PR_TREE_LEVELS)
			pr_tree_level(pp, p, at, end, d + 1, row_time);
	}
	if (groups > 0)
		rep_printf(pp->r, "%*s%8llu  in %zu more caller%s\n", (int)(4 + 4 * d), "",
			   (unsigned long long)rest, groups, groups == 1 ? "" : "s");
}

/* Collect the caller paths of row (from the stacks) into p; their number. */
static size_t pr_tree_paths(prof_print_t *pp, const prof_row_t *row, prof_path_t *p)
{
	prof_report_t *r = pp->r;
	size_t n = 0;

	for (size_t i = 0; i < r->stacks.cap; i++) {
		prof_val_t v;
		if (!prof_map_entry(&r->stacks, i)[0])
			continue;
		const prof_stack_t *s = pr_stack(pp, i, &v);
		const uint32_t *f = &pp->sfunc[i * (1 + PROF_TREE_DEPTH)];
		if (f[0] != row->func || pr_slot(pp, s) != row->slot)
			continue;
		memset(&p[n], 0, sizeof(p[n]));
		p[n].n = pp->nframes[i] - 1u;
		memcpy(p[n].f, f + 1, p[n].n * sizeof(uint32_t));
		p[n++].v = v;
	}
	return n;
}

static errno_t pr_tree(prof_print_t *pp, size_t shown)
{
	prof_report_t *r = pp->r;
	prof_path_t *p = prof_alloc(&r->env, r->stacks.count * sizeof(*p));
	char label[48];

	if (!p)
		return ENOMEM;
	rep_printf(r, "\ncallers of the top functions:\n");
	for (size_t i = 0; i < shown && i < PROF_TREE_ROWS; i++) {
		const prof_row_t *row = &pp->rows[i];
		size_t n = pr_tree_paths(pp, row, p);
		prof_sort(p, n, sizeof(*p), pr_path_cmp, NULL);
		rep_printf(r, "\n");
		rep_pct(r, row->time, pp->ttotal);
		rep_counts(r, row->count, row->time);
		rep_printf(r, "  ");
		rep_func_name(pp, row->func);
		if (pp->o->style != PROF_STYLE_TASK) {
			rep_task_label(r, row->slot, label, sizeof(label));
			rep_printf(r, "  (%s)", label);
		}
		rep_printf(r, "\n");
		pr_tree_level(pp, p, 0, n, 0, row->time);
	}
	prof_release(&r->env, p);
	return EOK;
}

/* ---------------------------------------------------------------- print */

/* Release what pr_prepare and printing made. */
void pr_free(prof_print_t *pp)
{
	prof_report_t *r = pp->r;

	prof_map_free(&r->env, &pp->fmap);
	prof_release(&r->env, pp->funcs);
	prof_release(&r->env, pp->sfunc);
	prof_release(&r->env, pp->nframes);
	prof_release(&r->env, pp->rows);
	for (size_t i = 0; i < pp->nnames; i++)
		prof_release(&r->env, pp->names[i]);
	prof_release(&r->env, pp->names);
}

/* Ready pp to print: the kernel binary, the stacks' functions, the rows. EOK or ENOMEM. */
errno_t pr_prepare(prof_print_t *pp)
{
	prof_report_t *r = pp->r;
	const char *kpath = pp->o->kernel_path ? pp->o->kernel_path : "/boot/kernel";
	size_t per = 1 + PROF_TREE_DEPTH;

	pp->kbin = rep_bin(r, kpath, strlen(kpath));
	if (pp->kbin == PROF_NONE)
		return ENOMEM;
	prof_map_init(&pp->fmap, sizeof(prof_fkey_t), sizeof(uint32_t));
	pp->sfunc = prof_alloc(&r->env, r->stacks.cap * per * sizeof(uint32_t));
	pp->nframes = prof_alloc(&r->env, r->stacks.cap);
	if (!pp->sfunc || !pp->nframes)
		return ENOMEM;
	for (size_t i = 0; i < r->stacks.cap; i++) {
		if (prof_map_entry(&r->stacks, i)[0] && pr_stack_funcs(pp, i) != EOK)
			return ENOMEM;
	}
	errno_t err = pr_rows(pp);
	if (err == EOK)
		prof_sort(pp->rows, pp->nrows, sizeof(prof_row_t), pr_row_cmp, pp);
	return err;
}

/*
 * Say when the samples are biased (QEMU TCG without -icount, -icount on
 * SMP with an old QEMU, -icount shift=auto) and which
 * binaries' files differ from the ones profiled (after loading).
 */
static void pr_warnings(prof_print_t *pp)
{
	prof_report_t *r = pp->r;

	if (r->c.have_header && (r->header.flags & PROF_F_TB_BIASED))
		rep_printf(r, "warning: QEMU TCG without -icount: weights keep each CPU's "
			   "time (a half-busy system's split within 3 points of the "
			   "kernel's accounting), but positions in code are biased to "
			   "translation-block boundaries (functions up to 8 points off "
			   "against callgrind, 15 before weights; boot with -icount for "
			   "exact profiles)\n");
	if (r->c.have_header && (r->header.flags & PROF_F_ICOUNT_SMP))
		rep_printf(r, "warning: QEMU -icount on %u CPUs with a QEMU before 8.1: its "
			   "vCPUs take uneven turns, so samples due while a CPU waits land "
			   "where its turn ended (QEMU 7.2, half-busy 2 CPUs: 48%% of the idle "
			   "CPU in tick_irq, idle 1.6%% for 53%%; profile on 1 CPU or use "
			   "QEMU 10, exact per job within 0.33 points)\n",
			   (unsigned)r->header.ncpus);

	if (r->c.have_header && (r->header.flags & PROF_F_ICOUNT_AUTO))
		rep_printf(r, "warning: QEMU -icount shift=auto: guest time follows the "
			   "host's emulation speed, so shares follow it, not instructions "
			   "(a program with phases: up to 9.5 points off against callgrind, "
			   "0.5 under a fixed shift; make profile uses one)\n");
	for (size_t i = 0; i < r->nbins; i++) {
		if (r->bins[i].stale)
			rep_printf(r, "warning: %s is not the file profiled (hash differs)\n",
				   r->bins[i].path);
	}
}

static void pr_task_summary(prof_print_t *pp)
{
	prof_report_t *r = pp->r;

	rep_printf(r, "Samples: %8llu total, %8llu user, %8llu kernel\n",
		   (unsigned long long)r->c.samples, (unsigned long long)r->c.user,
		   (unsigned long long)(r->c.kernel + r->c.idle));
	if (r->c.lost > 0)
		rep_printf(r, "Lost: %llu\n", (unsigned long long)r->c.lost);
	rep_printf(r, "Time: %llu ns (shares are of time)\n",
		   (unsigned long long)rep_ns(r, r->c.cycles));
	pr_cpus(pp);
	pr_offcpu(pp);
	pr_trace(pp);
}

/* Print the report (summary, tables, tree or by origin). EOK or ENOMEM. */
errno_t pr_body(prof_print_t *pp)
{
	errno_t err = pr_prepare(pp);

	if (err != EOK)
		return err;
	if (pp->o->style == PROF_STYLE_TASK) {
		pr_task_summary(pp);
		pr_warnings(pp);
	} else {
		pr_summary(pp);
		pr_warnings(pp);
		err = pp->o->by_origin ? EOK : pr_tasks(pp);
	}
	if (err != EOK)
		return err;
	if (pp->o->by_origin)
		return pr_by_origin(pp);
	size_t shown = pr_functions(pp);
	return pp->o->tree ? pr_tree(pp, shown) : EOK;
}

/* Settle the wall clock, then print the report of r as o asks. EOK or ENOMEM. */
errno_t prof_report_print(prof_report_t *r, const prof_report_opts_t *o)
{
	prof_print_t pp;

	memset(&pp, 0, sizeof(pp));
	pp.r = r;
	pp.o = o;
	errno_t err = rep_wall_settle(r, o->by_origin);
	if (err != EOK)
		return err;
	rep_totals(r, &r->c);
	err = pr_body(&pp);
	pr_free(&pp);
	return err;
}
