/*
 * The profiler report by origin (-c): each task's own samples and those
 * it imposed on servers through IPC, by server, method, path, function
 * and call site.
 */
#include "rep.h"

/* ---------------------------------------------------------------- by origin */

#define PO_TOP 10                       /* functions listed per kind */

/* An origin's imposed samples by server, method and path. */
typedef struct po_skey {
	uint32_t origin, server, method, nhops;
	uint32_t hop[PROF_IPC_HOPS];
} po_skey_t;

/* An origin's samples in one function: kind 0 own, 1 imposed (on server). */
typedef struct po_fkey {
	uint32_t origin, kind, func, server;
} po_fkey_t;

typedef struct po_srow {
	po_skey_t k;
	prof_val_t v;
} po_srow_t;

typedef struct po_frow {
	po_fkey_t k;
	prof_val_t v;
} po_frow_t;

/* An origin's imposed samples at one call site (kind 2 of po_fkey_t). */
#define PO_SITE 2
#define PO_SITE_FRAMES 4                /* functions shown per call site */
#define PO_SITES 5                      /* call sites shown per origin */

/* The tally of a -c report. */
typedef struct po {
	prof_print_t *pp;
	prof_val_t *own, *imposed;      /* per task slot */
	prof_map_t smap, fmap;
	po_srow_t *srows;
	po_frow_t *frows;               /* kinds 0, 1: func; PO_SITE: func is the site */
	size_t nsrows, nfrows;
} po_t;

/* Add c to key's value in m. */
static errno_t po_add(prof_report_t *r, prof_map_t *m, const void *key, prof_val_t c)
{
	bool created;
	prof_val_t *v = prof_map_get(&r->env, m, key, &created);

	if (!v)
		return ENOMEM;
	val_add(v, c.n, c.t);
	return EOK;
}

/* Charge stack slot i (its samples and time) to its origin or its own task. */
static errno_t po_stack(po_t *po, size_t i)
{
	prof_print_t *pp = po->pp;
	prof_val_t count;
	const prof_stack_t *s = pr_stack(pp, i, &count);
	po_fkey_t fk = { s->slot, 0, pp->sfunc[i * (1 + PROF_TREE_DEPTH)], s->slot };
	po_skey_t sk;

	if (s->mode == PROF_MODE_IDLE)
		return EOK;
	if (s->origin == PROF_NONE) {
		val_add(&po->own[s->slot], count.n, count.t);
		return po_add(pp->r, &po->fmap, &fk, count);
	}
	val_add(&po->imposed[s->origin], count.n, count.t);
	memset(&sk, 0, sizeof(sk));
	sk.origin = fk.origin = s->origin;
	fk.kind = 1;
	sk.server = s->slot;
	sk.method = s->method;
	sk.nhops = s->nhops;
	memcpy(sk.hop, s->hop, sizeof(sk.hop));
	errno_t err = po_add(pp->r, &po->smap, &sk, count);
	if (err == EOK && s->site != PROF_NONE) {
		po_fkey_t ck = { s->origin, PO_SITE, s->site, s->origin };
		err = po_add(pp->r, &po->fmap, &ck, count);
	}
	return err != EOK ? err : po_add(pp->r, &po->fmap, &fk, count);
}

/* The entries of map m (key ksize bytes, then a prof_val_t) into a new array. */
static void *po_rows(prof_report_t *r, const prof_map_t *m, size_t rsize, size_t *n)
{
	unsigned char *a = prof_alloc(&r->env, (m->count + 1) * rsize);

	*n = 0;
	for (size_t i = 0; a && i < m->cap; i++) {
		const unsigned char *e = prof_map_entry(m, i);
		if (!e[0])
			continue;
		memcpy(a + *n * rsize, e + 8, m->ksize);
		memcpy(a + *n * rsize + rsize - sizeof(prof_val_t), e + 8 + m->ksize,
		       sizeof(prof_val_t));
		(*n)++;
	}
	return a;
}

static int po_srow_cmp(const void *a, const void *b, void *ctx)
{
	const po_srow_t *x = a, *y = b;

	(void)ctx;
	if (x->v.t != y->v.t)
		return x->v.t > y->v.t ? -1 : 1;
	return memcmp(&x->k, &y->k, sizeof(x->k));
}

static int po_frow_cmp(const void *a, const void *b, void *ctx)
{
	const po_frow_t *x = a, *y = b;
	const prof_print_t *pp = ctx;

	if (x->v.t != y->v.t)
		return x->v.t > y->v.t ? -1 : 1;
	if (x->k.kind == PO_SITE || y->k.kind == PO_SITE)
		return memcmp(&x->k, &y->k, sizeof(x->k));
	int c = strcmp(pr_fname(pp, x->k.func), pr_fname(pp, y->k.func));
	return c ? c : memcmp(&x->k, &y->k, sizeof(x->k));
}

/* Tally every stack; the sorted rows in po. */
static errno_t po_tally(po_t *po)
{
	prof_report_t *r = po->pp->r;
	errno_t err = EOK;

	po->own = prof_alloc(&r->env, (r->ntasks + 1) * sizeof(prof_val_t));
	po->imposed = prof_alloc(&r->env, (r->ntasks + 1) * sizeof(prof_val_t));
	if (!po->own || !po->imposed)
		return ENOMEM;
	memset(po->own, 0, (r->ntasks + 1) * sizeof(prof_val_t));
	memset(po->imposed, 0, (r->ntasks + 1) * sizeof(prof_val_t));
	prof_map_init(&po->smap, sizeof(po_skey_t), sizeof(prof_val_t));
	prof_map_init(&po->fmap, sizeof(po_fkey_t), sizeof(prof_val_t));
	for (size_t i = 0; i < r->stacks.cap && err == EOK; i++) {
		if (prof_map_entry(&r->stacks, i)[0])
			err = po_stack(po, i);
	}
	if (err != EOK)
		return err;
	po->srows = po_rows(r, &po->smap, sizeof(po_srow_t), &po->nsrows);
	po->frows = po_rows(r, &po->fmap, sizeof(po_frow_t), &po->nfrows);
	if (!po->srows || !po->frows)
		return ENOMEM;
	prof_sort(po->srows, po->nsrows, sizeof(po_srow_t), po_srow_cmp, NULL);
	prof_sort(po->frows, po->nfrows, sizeof(po_frow_t), po_frow_cmp, po->pp);
	return EOK;
}

static void po_free(po_t *po)
{
	prof_report_t *r = po->pp->r;

	prof_release(&r->env, po->own);
	prof_release(&r->env, po->imposed);
	prof_release(&r->env, po->srows);
	prof_release(&r->env, po->frows);
	prof_map_free(&r->env, &po->smap);
	prof_map_free(&r->env, &po->fmap);
}

/* Does opts.origin leave task slot out? */
static bool po_skip(const po_t *po, uint32_t slot)
{
	uint64_t only = po->pp->o->origin;

	return only && po->pp->r->tasks[slot].id != only;
}

static int po_total_cmp(const void *a, const void *b, void *ctx)
{
	const po_t *po = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint64_t tx = po->own[x].t + po->imposed[x].t, ty = po->own[y].t + po->imposed[y].t;

	if (tx != ty)
		return tx > ty ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* The task slots with samples (own or imposed), most in total first. */
static uint32_t *po_order(po_t *po, size_t *n)
{
	prof_report_t *r = po->pp->r;
	uint32_t *ord = prof_alloc(&r->env, (r->ntasks + 1) * sizeof(uint32_t));

	*n = 0;
	for (size_t i = 0; ord && i < r->ntasks; i++) {
		if ((po->own[i].n || po->imposed[i].n) && !po_skip(po, (uint32_t)i))
			ord[(*n)++] = (uint32_t)i;
	}
	if (ord)
		prof_sort(ord, *n, sizeof(uint32_t), po_total_cmp, po);
	return ord;
}

/* The table of every origin: own, imposed, total, % of all samples. */
static void po_table(po_t *po, const uint32_t *ord, size_t n)
{
	prof_print_t *pp = po->pp;
	char label[48];
	size_t hidden = 0;

	rep_printf(pp->r, "\nby origin: own (its threads), imposed (others serving its "
		   "calls)\n%8s %8s %8s %12s %7s  %s\n", "own", "imposed", "total", "ns", "%",
		   "task");
	for (size_t i = 0; i < n; i++) {
		prof_val_t own = po->own[ord[i]], imp = po->imposed[ord[i]];
		if (!pp->o->origin && pr_hidden(pp, own.t + imp.t)) {
			hidden++;
			continue;
		}
		rep_task_label(pp->r, ord[i], label, sizeof(label));
		rep_printf(pp->r, "%8llu %8llu", (unsigned long long)own.n,
			   (unsigned long long)imp.n);
		rep_counts(pp->r, own.n + imp.n, own.t + imp.t);
		rep_printf(pp->r, " ");
		rep_pct(pp->r, own.t + imp.t, pp->ttotal);
		rep_printf(pp->r, "  %s\n", label);
	}
	pr_hidden_line(pp, hidden);
}

/* A row's samples, time and share of the time total, as the by-origin tables start it. */
static void po_count(prof_print_t *pp, prof_val_t v, uint64_t total)
{
	rep_printf(pp->r, " ");
	rep_counts(pp->r, v.n, v.t);
	rep_printf(pp->r, " ");
	rep_pct(pp->r, v.t, total);
}

/* An origin's imposed samples per server, method and path. */
static void po_servers(po_t *po, uint32_t origin, uint64_t total)
{
	prof_print_t *pp = po->pp;
	char label[48];

	rep_printf(pp->r, "  imposed by server:\n");
	for (size_t i = 0; i < po->nsrows; i++) {
		const po_srow_t *row = &po->srows[i];
		if (row->k.origin != origin)
			continue;
		uint32_t f = pr_ipc_func(pp, row->k.server, row->k.method);
		rep_task_label(pp->r, row->k.server, label, sizeof(label));
		po_count(pp, row->v, total);
		rep_printf(pp->r, "  %s  %s  path", f == PROF_NONE ? "[ipc ?]" : pr_fname(pp, f),
			   label);
		for (uint32_t h = 0; h < row->k.nhops; h++)
			rep_printf(pp->r, "%s%llu", h ? " -> " : " ",
				   (unsigned long long)pp->r->tasks[row->k.hop[h]].id);
		rep_printf(pp->r, "\n");
	}
}

/* An origin's top functions of one kind (0 own, 1 imposed). */
static void po_funcs(po_t *po, uint32_t origin, uint32_t kind, uint64_t total)
{
	prof_print_t *pp = po->pp;
	char label[48];
	size_t shown = 0, more = 0;

	rep_printf(pp->r, "  %s functions:\n", kind ? "imposed" : "own");
	for (size_t i = 0; i < po->nfrows; i++) {
		const po_frow_t *row = &po->frows[i];
		if (row->k.origin != origin || row->k.kind != kind)
			continue;
		if (shown == PO_TOP || rep_centi(row->v.t, total) < pp->o->threshold_centi) {
			more++;
			continue;
		}
		shown++;
		po_count(pp, row->v, total);
		rep_printf(pp->r, "  ");
		rep_func_name(pp, row->k.func);
		if (kind) {
			rep_task_label(pp->r, row->k.server, label, sizeof(label));
			rep_printf(pp->r, "  (%s)", label);
		}
		rep_printf(pp->r, "\n");
	}
	if (more)
		rep_printf(pp->r, "  (%zu more row%s)\n", more, more == 1 ? "" : "s");
}

/* The functions of call site (innermost first, up to PO_SITE_FRAMES). */
static void po_site_name(po_t *po, uint32_t site)
{
	prof_print_t *pp = po->pp;
	const prof_callstk_t *c = &pp->r->cstk[site];
	uint32_t bin = pp->r->tasks[c->slot].bin;

	for (uint32_t j = 0; j < c->n && j < PO_SITE_FRAMES; j++) {
		uint32_t f = pr_func(pp, bin, pp->r->cwords[c->off + j], j > 0, false);
		rep_printf(pp->r, "%s%s", j ? " <- " : "", f == PROF_NONE ? "?" : pr_fname(pp, f));
	}
	if (c->n > PO_SITE_FRAMES)
		rep_printf(pp->r, " <- ...");
}

/* An origin's imposed samples by the call site they came from (with -g). */
static void po_sites(po_t *po, uint32_t origin, uint64_t total)
{
	prof_print_t *pp = po->pp;
	size_t shown = 0, more = 0;

	for (size_t i = 0; i < po->nfrows; i++) {
		const po_frow_t *row = &po->frows[i];
		if (row->k.origin != origin || row->k.kind != PO_SITE)
			continue;
		if (!shown && !more)
			rep_printf(pp->r, "  imposed by call site (its stack at the call):\n");
		if (shown == PO_SITES) {
			more++;
			continue;
		}
		shown++;
		po_count(pp, row->v, total);
		rep_printf(pp->r, "  ");
		po_site_name(po, row->k.func);
		rep_printf(pp->r, "\n");
	}
	if (more)
		rep_printf(pp->r, "  (%zu more call site%s)\n", more, more == 1 ? "" : "s");
}

/* One origin's part: the servers and the functions. */
static void po_origin(po_t *po, uint32_t slot)
{
	prof_print_t *pp = po->pp;
	prof_val_t own = po->own[slot], imp = po->imposed[slot];
	uint64_t total = own.t + imp.t;
	char label[48];

	rep_task_label(pp->r, slot, label, sizeof(label));
	rep_printf(pp->r, "\norigin %s: %llu samples, %llu own, %llu imposed; %llu ns\n", label,
		   (unsigned long long)(own.n + imp.n), (unsigned long long)own.n,
		   (unsigned long long)imp.n, (unsigned long long)rep_ns(pp->r, total));
	if (imp.n)
		po_servers(po, slot, total);
	if (imp.n)
		po_sites(po, slot, total);
	if (own.n)
		po_funcs(po, slot, 0, total);
	if (imp.n)
		po_funcs(po, slot, 1, total);
}

/*
 * The report by origin (after the summary): the table, then the part of
 * each origin that others served (or of opts.origin).
 */
errno_t pr_by_origin(prof_print_t *pp)
{
	po_t po;
	size_t n;

	memset(&po, 0, sizeof(po));
	po.pp = pp;
	errno_t err = po_tally(&po);
	uint32_t *ord = err == EOK ? po_order(&po, &n) : NULL;
	if (ord) {
		rep_printf(pp->r, "ipc: %llu samples serving calls, %llu redacted\n",
			   (unsigned long long)pp->r->c.ipc,
			   (unsigned long long)pp->r->c.redacted);
		po_table(&po, ord, n);
		for (size_t i = 0; i < n; i++) {
			if (po.imposed[ord[i]].n || pp->o->origin)
				po_origin(&po, ord[i]);
		}
	}
	if (pp->o->origin && ord && n == 0)
		rep_printf(pp->r, "\nno samples of task %llu or for it\n",
			   (unsigned long long)pp->o->origin);
	prof_release(&pp->r->env, ord);
	po_free(&po);
	return err != EOK ? err : ord ? EOK : ENOMEM;
}
