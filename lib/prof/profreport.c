/*
 * The profiler report (lib/profreport.h): reading the record stream and
 * printing what it holds.
 *
 * Feeding aggregates samples at once into a hash map of "stacks": the
 * task, the mode, the binary of the user frames (the task's last LOAD),
 * the PC and the first PROF_TREE_DEPTH return addresses, each with a
 * count. Printing loads the symbol tables (lib/prof/profbin.c, cached per path
 * for the report's life), maps every stack frame to a function, sums the
 * rows (task, function) and prints the tables; the tree groups the stacks
 * of a top row by their callers. A stack also keeps the sample's top words
 * that fall in its binary's text: where the sampled function had not set
 * up its frame, printing takes its caller from them (lib/profleaf.h). Nothing recurses deeper than
 * PROF_TREE_DEPTH; all memory comes from env.alloc.
 */
#include <lib/fmt.h>
#include <lib/profbin.h>
#include <lib/profcore.h>
#include <lib/profleaf.h>
#include <lib/profreport.h>
#include <lib/string.h>

#include <stdarg.h>

#define PROF_TREE_DEPTH 4               /* callers kept per sample */
#define PROF_TREE_ROWS 10               /* top rows given a tree */
#define PROF_TREE_FANOUT 5              /* callers shown per level */
#define PROF_MAX_CPUS 256               /* per-CPU throttle counters kept */
#define PROF_REC_MAX 65536              /* record sizes are 16-bit */
#define PROF_NONE UINT32_MAX
#define PROF_SLOT_IDLE UINT32_MAX       /* row "task" of idle samples */

/* ---------------------------------------------------------------- types */

/*
 * What the maps count: samples and the time they stand for, in TSC
 * cycles (a v5 sample's weight; tsc_hz / hz for older ones; an off-CPU
 * record's cycles with the wall clock). Shares are of time.
 */
typedef struct prof_val {
	uint64_t n, t;
} prof_val_t;

static void val_add(prof_val_t *v, uint64_t n, uint64_t t)
{
	v->n += n;
	v->t += t;
}

typedef struct prof_task {
	uint64_t id;
	char name[32];
	uint32_t bin;                   /* binary of its last LOAD, or NONE */
	uint64_t samples;
	uint64_t time;                  /* their weight, TSC cycles */
	uint64_t text_start, text_end;  /* its executable range (LOAD) */
} prof_task_t;

typedef profbin_t prof_bin_t;      /* a binary and its symbols (lib/profbin.h) */

/*
 * libc's protocols take methods from IPC_M_LIBC (1 << 48) up
 * (uspace/lib/c/include/ipc.h); the report keys them in 32 bits with the
 * top bit set, the rest as they are.
 */
#define PROF_M_LIBC (1ull << 48)
#define PROF_M_LIBC_CODE 0x80000000u

static uint32_t prof_method_code(uint64_t m)
{
	if (m >= PROF_M_LIBC)
		return PROF_M_LIBC_CODE | (uint32_t)((m - PROF_M_LIBC) & 0x7fffffffu);
	return (uint32_t)m;
}

/* The aggregation key of samples (no padding: hashed as bytes). */
typedef struct prof_stack {
	uint32_t slot;                  /* task index */
	uint32_t bin;                   /* binary of user frames, or NONE */
	uint8_t mode, nframes;
	uint16_t kmask;                 /* bit i: frame i is a kernel address */
	uint32_t origin;                /* serving a call: its origin's slot; else NONE */
	uint32_t method;                /* ... the call's method */
	uint32_t nhops;                 /* ... the path's tasks (2..PROF_IPC_HOPS) */
	uint32_t hop[PROF_IPC_HOPS];    /* ... their slots, origin first */
	uint32_t site;                  /* ... the origin's call site (PROF_REC_CALL), or NONE */
	uint32_t off;                   /* off-CPU weight (wall clock): WAIT_WHY_* + 1; else 0 */
	uint32_t wtask, wmethod;        /* ... an IPC wait: the callee's slot, the method code */
	uint64_t frame[1 + PROF_TREE_DEPTH]; /* pc (0 when off), then return addresses */
	uint64_t top[PROF_TOP_WORDS];   /* top words in the text, else 0 */
} prof_stack_t;

/*
 * The key of a whole stack for prof_report_walk (no padding): frame[]
 * holds 1 + the report's xdepth entries (zero past nframes); the first
 * nkern frames are kernel addresses.
 */
typedef struct prof_xkey {
	uint32_t slot, bin;
	uint64_t thread;
	uint32_t cpu;
	uint8_t mode, nkern, nframes;
	uint8_t off;                    /* as in prof_stack_t; nkern then counts chain[] only */
	uint32_t origin, method;        /* as in prof_stack_t */
	uint32_t wtask, wmethod;        /* as in prof_stack_t */
	uint64_t site;                  /* the origin's call site + 1 (0: none) */
	uint64_t top[PROF_TOP_WORDS];
	uint64_t frame[];
} prof_xkey_t;

#define PROF_XKEY_MAX (sizeof(prof_xkey_t) + (1 + PROF_DEPTH_MAX) * 8)

/*
 * Who waited on whom (wall clock), as task slots: the origin of the work,
 * the task that waited (the origin itself, or a server working for it)
 * and the server it called. What a server did for such a wait (its
 * samples, and its own waits while serving) is kept under this key until
 * wall_settle takes it out of the waits.
 */
typedef struct prof_wkey {
	uint32_t origin, waiter, callee;
	uint32_t zero;                  /* 16 bytes: the map's values stay 8-aligned */
} prof_wkey_t;

/*
 * A call site: an origin's distinct stack (PROF_REC_CALL records with the
 * same task and chain share one), its words in the report's cwords.
 */
typedef struct prof_callstk {
	uint32_t slot;                  /* the origin task */
	uint32_t n;                     /* words: the call's pc, return addresses */
	size_t off;                     /* in cwords */
} prof_callstk_t;

/* The key of a call site: the origin's slot and chain, zero past n. */
typedef struct prof_sitekey {
	uint32_t slot, n;
	uint64_t w[PROF_IPC_STACK_MAX];
} prof_sitekey_t;

/* A CPU's part of the stream (v5 report head). */
typedef struct prof_rec_cpu {
	uint64_t samples, lost;
	uint64_t missed_first, missed_last; /* PROF_REC_MISSED: the base and the latest */
	bool missed_seen;
} prof_rec_cpu_t;

struct prof_report {
	prof_env_t env;
	errno_t error;                  /* sticky EINVAL */
	char why[80];                   /* the reason of error */
	uint64_t nsamples;              /* sample records read (for reasons) */
	bool x_by_origin;               /* prof_report_set_origin */
	bool wall;                      /* prof_report_set_wall */
	uint64_t off_acc;               /* off-CPU weight carried: cycles * hz mod tsc_hz */
	uint64_t x_origin;
	uint32_t cur_site;              /* the sample being read: its call site, or NONE */
	prof_map_t calls;                   /* PROF_REC_CALL id -> its site (index in cstk) */
	prof_map_t sites;                   /* prof_sitekey_t -> index in cstk */
	prof_callstk_t *cstk;
	size_t ncstk, cap_cstk;
	uint64_t *cwords;               /* their chains, one after another */
	size_t ncwords, cap_cwords;
	prof_rec_header_t header;
	uint64_t tsc_last;
	prof_counts_t c;
	uint64_t lost_recs, end_lost, end_throttled;
	uint64_t cpu_skipped[PROF_MAX_CPUS];
	uint64_t cur_w;                 /* the sample being read: its weight (TSC cycles) */
	prof_rec_cpu_t cpu[PROF_MAX_CPUS]; /* per CPU: samples, lost, missed (report head) */
	prof_task_t *tasks;
	size_t ntasks, cap_tasks, last_task;
	prof_bin_t *bins;
	size_t nbins, cap_bins;
	prof_map_t stacks;                  /* prof_stack_t -> prof_val_t */
	prof_filter_t filter;           /* prof_report_setup */
	char filter_name[32];
	bool xon;                       /* keep whole stacks in xstacks */
	uint32_t xdepth;                /* return addresses per xkey */
	prof_map_t xstacks;                 /* prof_xkey_t -> prof_val_t */
	prof_map_t served;                  /* prof_wkey_t -> served prof_val_t not yet taken from waits */
	size_t pend_len;
	uint64_t pend[PROF_REC_MAX / 8];
	uint64_t norm[PROF_REC_MAX / 8 + 1]; /* an older sample in v5 layout */
};

/* One function, found at print time. */
typedef struct prof_func {
	const char *name;               /* NULL: unknown, use hex */
	uint64_t addr;                  /* symbol start, or the pc if unknown */
	uint32_t bin;                   /* its binary, or PROF_NONE */
	bool kernel;
	char hex[24];
} prof_func_t;

typedef struct prof_row {
	uint32_t slot, func;
	uint64_t count;
	uint64_t time;                  /* TSC cycles */
} prof_row_t;

/* Print-time state. */
typedef struct prof_print {
	prof_report_t *r;
	const prof_report_opts_t *o;
	uint32_t kbin;
	prof_map_t fmap;                    /* (bin, known, addr) -> func index */
	prof_func_t *funcs;
	size_t nfuncs, cap_funcs;
	uint32_t *sfunc;                /* per stack slot: 1 + DEPTH func ids */
	uint8_t *nframes;               /* per stack slot: frames after the leaf fix */
	uint64_t leaf_fixed;            /* stacks whose caller came from the top words */
	prof_row_t *rows;
	size_t nrows;
	uint64_t total;                 /* samples in the rows */
	uint64_t ttotal;                /* their time, TSC cycles: what shares are of */
	char **names;                   /* "[ipc S.M]" names made (freed with pp) */
	size_t nnames, cap_names;
} prof_print_t;

/* ---------------------------------------------------------------- memory */

static char *rep_strdup(prof_report_t *r, const char *s, size_t len)
{
	char *d = prof_alloc(&r->env, len + 1);

	if (d) {
		memcpy(d, s, len);
		d[len] = '\0';
	}
	return d;
}

/* ---------------------------------------------------------------- sources */

static const char *const prof_source_names[PROF_SRC_COUNT] = {
	[PROF_SRC_DEFAULT] = "default",
	[PROF_SRC_PMC] = "pmc",
	[PROF_SRC_RTC] = "rtc",
	[PROF_SRC_RTC_NMI] = "rtc-nmi",
	[PROF_SRC_TIMER] = "timer",
};

const char *prof_source_name(unsigned source)
{
	if (source >= PROF_SRC_COUNT)
		return "?";
	return prof_source_names[source];
}

int prof_source_parse(const char *name)
{
	for (int i = 0; i < PROF_SRC_COUNT; i++) {
		if (strcmp(name, prof_source_names[i]) == 0)
			return i;
	}
	return -1;
}

/* ---------------------------------------------------------------- tasks, binaries */

/* Index of task id, added (nameless) when new; PROF_NONE without memory. */
static uint32_t rep_task(prof_report_t *r, uint64_t id)
{
	if (r->last_task < r->ntasks && r->tasks[r->last_task].id == id)
		return (uint32_t)r->last_task;
	for (size_t i = 0; i < r->ntasks; i++) {
		if (r->tasks[i].id == id) {
			r->last_task = i;
			return (uint32_t)i;
		}
	}
	if (prof_vec_reserve(&r->env, (void **)&r->tasks, &r->cap_tasks, r->ntasks,
			sizeof(prof_task_t)) != EOK)
		return PROF_NONE;
	prof_task_t *t = &r->tasks[r->ntasks];
	memset(t, 0, sizeof(*t));
	t->id = id;
	t->bin = PROF_NONE;
	r->c.tasks++;
	r->last_task = r->ntasks;
	return (uint32_t)r->ntasks++;
}

/* Index of the binary at path (len bytes), added when new; NONE on ENOMEM. */
static uint32_t rep_bin(prof_report_t *r, const char *path, size_t len)
{
	for (size_t i = 0; i < r->nbins; i++) {
		if (strlen(r->bins[i].path) == len &&
		    memcmp(r->bins[i].path, path, len) == 0)
			return (uint32_t)i;
	}
	if (prof_vec_reserve(&r->env, (void **)&r->bins, &r->cap_bins, r->nbins,
			sizeof(prof_bin_t)) != EOK)
		return PROF_NONE;
	prof_bin_t *b = &r->bins[r->nbins];
	memset(b, 0, sizeof(*b));
	b->path = rep_strdup(r, path, len);
	if (!b->path)
		return PROF_NONE;
	return (uint32_t)r->nbins++;
}

/*
 * The name of a task slot: its TASK record's, else its program's file
 * name, else "kernel" for task 0, else "?".
 */
static const char *rep_task_name(const prof_report_t *r, uint32_t slot)
{
	const prof_task_t *t = &r->tasks[slot];
	const char *name = t->name[0] ? t->name : t->id == 0 ? "kernel" : "?";

	if (!t->name[0] && t->bin != PROF_NONE) {
		name = r->bins[t->bin].path;
		for (const char *p = name; *p; p++)
			if (*p == '/' && p[1])
				name = p + 1;
	}
	return name;
}

/* ---------------------------------------------------------------- records */

/* Keep the first reason the stream is refused; returns EINVAL. */
static __attribute__((format(printf, 2, 3)))
errno_t rec_bad(prof_report_t *r, const char *fmt, ...)
{
	va_list ap;

	if (r->why[0])
		return EINVAL;
	va_start(ap, fmt);
	fmt_vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
	return EINVAL;
}

/* Copy a record of at least want bytes out of rec (len bytes) into dst. */
static errno_t rec_get(void *dst, size_t want, const void *rec, size_t len)
{
	if (len < want)
		return EINVAL;
	memcpy(dst, rec, want);
	return EOK;
}

static errno_t rec_header(prof_report_t *r, const void *rec, size_t len)
{
	prof_rec_header_t h;

	if (rec_get(&h, sizeof(h), rec, len) != EOK || h.magic != PROF_MAGIC)
		return rec_bad(r, "no profiler stream header (magic)");
	if (h.version < PROF_VERSION_MIN || h.version > PROF_VERSION) {
		fmt_snprintf(r->why, sizeof(r->why), "stream version %u (this reads %u to %u)",
			     h.version, PROF_VERSION_MIN, PROF_VERSION);
		return ENOTSUP;
	}
	if (r->c.have_header)
		return EOK;
	r->header = h;
	r->c.have_header = true;
	if (r->xon) {
		r->xdepth = h.depth < 1 ? 1 : h.depth > PROF_DEPTH_MAX ? PROF_DEPTH_MAX : h.depth;
		prof_map_init(&r->xstacks, sizeof(prof_xkey_t) + (1 + r->xdepth) * 8,
			  sizeof(prof_val_t));
	}
	r->c.source = h.source;
	r->c.hz = h.hz;
	r->c.ncpus = h.ncpus;
	return EOK;
}

static errno_t rec_task(prof_report_t *r, const void *rec, size_t len)
{
	prof_rec_task_t t;

	if (rec_get(&t, sizeof(t), rec, len) != EOK)
		return EINVAL;
	uint32_t i = rep_task(r, t.task);
	if (i == PROF_NONE)
		return ENOMEM;
	memcpy(r->tasks[i].name, t.name, sizeof(t.name));
	r->tasks[i].name[sizeof(t.name) - 1] = '\0';
	return EOK;
}

static errno_t rec_load(prof_report_t *r, const unsigned char *rec, size_t len)
{
	prof_rec_load_t l;

	if (rec_get(&l, sizeof(l), rec, len) != EOK)
		return EINVAL;
	const char *path = (const char *)rec + sizeof(l);
	size_t plen = strnlen(path, len - sizeof(l));
	uint32_t t = rep_task(r, l.task);
	if (t == PROF_NONE)
		return ENOMEM;
	uint32_t b = rep_bin(r, path, plen);
	if (b == PROF_NONE)
		return ENOMEM;
	r->tasks[t].bin = b;
	r->tasks[t].text_start = l.text_start;
	r->tasks[t].text_end = l.text_end;
	r->bins[b].hash = l.hash;
	return EOK;
}

/* Keep the sample's top words that lie in the text of its code (else 0). */
static void rec_stack_top(prof_report_t *r, const prof_rec_sample_t *s,
			  const unsigned char *chain, uint32_t slot, prof_stack_t *k)
{
	const prof_task_t *t = &r->tasks[slot];
	bool user = s->mode == PROF_MODE_USER;
	uint64_t lo = user ? t->text_start : r->header.ktext_start;
	uint64_t hi = user ? t->text_end : r->header.ktext_end;

	for (size_t i = 0; i < s->ntop && i < PROF_TOP_WORDS; i++) {
		uint64_t w;
		memcpy(&w, chain + 8 * (s->nchain + i), 8);
		k->top[i] = w >= lo && w < hi ? w : 0;
	}
}

/* Build the aggregation key of a sample whose chain starts at chain. */
static void rec_stack_key(prof_report_t *r, const prof_rec_sample_t *s,
			  const unsigned char *chain, uint32_t slot,
			  prof_stack_t *k)
{
	memset(k, 0, sizeof(*k));
	k->slot = slot;
	k->mode = s->mode;
	k->bin = r->tasks[slot].bin;
	k->frame[0] = s->pc;
	k->kmask = s->mode != PROF_MODE_USER;
	size_t n = s->nchain < PROF_TREE_DEPTH ? s->nchain : PROF_TREE_DEPTH;
	for (size_t i = 0; i < n; i++) {
		memcpy(&k->frame[1 + i], chain + 8 * i, 8);
		if (i < s->nkernel)
			k->kmask |= (uint16_t)(1u << (1 + i));
	}
	k->nframes = (uint8_t)(1 + n);
	rec_stack_top(r, s, chain, slot, k);
	if (k->kmask == (1u << k->nframes) - 1)
		k->bin = PROF_NONE;     /* no user frame: one key per kernel stack */
	k->origin = PROF_NONE;
	k->site = PROF_NONE;
}

/* Build the whole-stack key of a sample (k has PROF_XKEY_MAX bytes). */
static void rec_xkey(prof_report_t *r, const prof_rec_sample_t *s,
		     const unsigned char *chain, uint32_t slot, const prof_stack_t *sk,
		     prof_xkey_t *k)
{
	prof_stack_t top;
	size_t n = s->nchain < r->xdepth ? s->nchain : r->xdepth;
	uint64_t *w = (uint64_t *)k;

	for (size_t i = 0; i < r->xstacks.ksize / 8; i++)
		w[i] = 0;                       /* a word loop: this is the hot path */
	k->slot = slot;
	k->bin = r->tasks[slot].bin;
	k->thread = s->thread;
	k->cpu = s->h.cpu;
	k->mode = s->mode;
	k->frame[0] = s->pc;
	for (size_t i = 0; i < n; i++)
		k->frame[1 + i] = prof_map_word(chain + 8 * i);
	k->nframes = (uint8_t)(1 + n);
	k->nkern = (uint8_t)((s->mode != PROF_MODE_USER) + (s->nkernel < n ? s->nkernel : n));
	k->origin = sk->origin;
	k->method = sk->method;
	k->site = sk->site == PROF_NONE ? 0 : (uint64_t)sk->site + 1;
	memset(top.top, 0, sizeof(top.top));   /* rec_stack_top sets only ntop words */
	rec_stack_top(r, s, chain, slot, &top);
	memcpy(k->top, top.top, sizeof(k->top));
	if (k->nkern == k->nframes)
		k->bin = PROF_NONE;
}

/* Does the filter (prof_report_setup) take this sample of task slot? */
static bool rec_keep(const prof_report_t *r, const prof_rec_sample_t *s, uint32_t slot)
{
	const prof_filter_t *f = &r->filter;

	if (f->by_task && (f->task_name ? strcmp(rep_task_name(r, slot), f->task_name) != 0 :
			   s->task != f->task_id))
		return false;
	if ((f->mode == PROF_XMODE_USER && s->mode != PROF_MODE_USER) ||
	    (f->mode == PROF_XMODE_KERNEL && s->mode == PROF_MODE_USER))
		return false;
	if (f->by_cpu && s->h.cpu != f->cpu)
		return false;
	if (!f->window)
		return true;
	uint64_t per_ms = r->header.tsc_hz / 1000;
	uint64_t ms = per_ms && s->h.tsc > r->header.h.tsc ?
		(s->h.tsc - r->header.h.tsc) / per_ms : 0;
	return ms >= f->from_ms && ms < f->to_ms;
}

/* Add n samples of t TSC cycles to a whole-stack key. EOK or ENOMEM. */
static errno_t rec_xadd(prof_report_t *r, const prof_xkey_t *k, uint64_t n, uint64_t t)
{
	bool created;
	prof_val_t *v = prof_map_get(&r->env, &r->xstacks, k, &created);

	if (!v)
		return ENOMEM;
	val_add(v, n, t);
	return EOK;
}

/* Count a sample in the whole stacks. EOK or ENOMEM. */
static errno_t rec_xstack(prof_report_t *r, const prof_rec_sample_t *s,
			  const unsigned char *chain, uint32_t slot, const prof_stack_t *sk)
{
	uint64_t kbuf[PROF_XKEY_MAX / 8];

	rec_xkey(r, s, chain, slot, sk, (prof_xkey_t *)kbuf);
	return rec_xadd(r, (prof_xkey_t *)kbuf, 1, r->cur_w);
}

static void rec_count_mode(prof_report_t *r, unsigned mode, uint64_t w)
{
	r->c.samples++;
	r->c.cycles += w;
	if (mode == PROF_MODE_USER)
		r->c.user++;
	else if (mode == PROF_MODE_KERNEL)
		r->c.kernel++;
	else
		r->c.idle++;
	if (mode == PROF_MODE_IDLE)
		r->c.idle_cycles += w;
}

/* The call site of a PROF_REC_CALL id (read before), or PROF_NONE. */
static uint32_t rec_site_of(const prof_report_t *r, uint64_t stack)
{
	uint64_t idx;

	if (!stack || !r->calls.cap)
		return PROF_NONE;
	const unsigned char *e = prof_map_find(&r->calls, &stack);
	if (!e[0])
		return PROF_NONE;
	memcpy(&idx, e + 8 + sizeof(uint64_t), 8);
	return (uint32_t)idx;
}

/* A new call site of key, its index into *site. EOK or ENOMEM. */
static errno_t rec_site_add(prof_report_t *r, const prof_sitekey_t *key, uint64_t *site)
{
	*site = PROF_NONE;
	if (prof_vec_reserve(&r->env, (void **)&r->cstk, &r->cap_cstk, r->ncstk, sizeof(prof_callstk_t)))
		return ENOMEM;
	while (r->ncwords + key->n > r->cap_cwords) {
		if (prof_vec_reserve(&r->env, (void **)&r->cwords, &r->cap_cwords, r->cap_cwords, 8))
			return ENOMEM;
	}
	r->cstk[r->ncstk] = (prof_callstk_t){ key->slot, key->n, r->ncwords };
	memcpy(r->cwords + r->ncwords, key->w, 8 * (size_t)key->n);
	r->ncwords += key->n;
	*site = r->ncstk++;
	return EOK;
}

/*
 * Check the prof_ipc_t of sample s (n = sample records so far): the hop
 * count, the path's depth, the sampled task last, a redacted sample's
 * emptiness. EOK or EINVAL (with the reason).
 */
/*
 * The path of record n's origin block (what: "sample", "off-CPU record"):
 * 2..PROF_IPC_HOPS hops, no deeper than its depth, ending at the record's
 * task. EOK or EINVAL (reason).
 */
static errno_t rec_ipc_path(prof_report_t *r, const char *what, uint64_t n,
			    const prof_ipc_t *ipc, uint64_t task)
{
	if (ipc->nhops < 2 || ipc->nhops > PROF_IPC_HOPS)
		return rec_bad(r, "%s %llu: ipc block with %u hops (2..%u)", what,
			       (unsigned long long)n, ipc->nhops, PROF_IPC_HOPS);
	if (ipc->depth < ipc->nhops)
		return rec_bad(r, "%s %llu: ipc path depth %u below its %u hops", what,
			       (unsigned long long)n, ipc->depth, ipc->nhops);
	if (ipc->hops[ipc->nhops - 1] != task)
		return rec_bad(r, "%s %llu: ipc path does not end at the record's task", what,
			       (unsigned long long)n);
	return EOK;
}

static errno_t rec_ipc_check(prof_report_t *r, const prof_rec_sample_t *s,
			     const prof_ipc_t *ipc)
{
	uint64_t n = r->nsamples;

	if (rec_ipc_path(r, "sample", n, ipc, s->task) != EOK)
		return EINVAL;
	if (s->mode == PROF_MODE_IDLE)
		return rec_bad(r, "sample %llu: an idle CPU serving a call",
			       (unsigned long long)n);
	if (!s->pc && (s->nchain || s->ntop))
		return rec_bad(r, "sample %llu: redacted (pc 0) but with a chain",
			       (unsigned long long)n);
	return EOK;
}

/* A checked origin block into the key's origin, method and path (task slots). */
static errno_t rec_ipc_key(prof_report_t *r, const prof_ipc_t *ipc, prof_stack_t *k)
{
	k->nhops = ipc->nhops;
	k->method = prof_method_code(ipc->method);
	for (size_t i = 0; i < ipc->nhops; i++) {
		k->hop[i] = rep_task(r, ipc->hops[i]);
		if (k->hop[i] == PROF_NONE)
			return ENOMEM;
	}
	k->origin = k->hop[0];
	k->site = rec_site_of(r, ipc->stack);
	return EOK;
}

/*
 * The IPC part of a sample (v3): none when the record ends after the
 * chain and top words, else a whole prof_ipc_t, checked, into the key's
 * origin, method and path (task slots). EOK, EINVAL (reason), ENOMEM.
 */
static errno_t rec_ipc(prof_report_t *r, const prof_rec_sample_t *s,
		       const unsigned char *rec, size_t len, prof_stack_t *k)
{
	size_t used = sizeof(*s) + 8 * ((size_t)s->nchain + s->ntop);
	prof_ipc_t ipc;

	if (r->header.version < 3 || len == used)
		return EOK;
	if (len - used < sizeof(ipc))
		return rec_bad(r, "sample %llu: ipc block cut short (%zu of %zu bytes)",
			       (unsigned long long)r->nsamples, len - used, sizeof(ipc));
	memcpy(&ipc, rec + used, sizeof(ipc));
	errno_t err = rec_ipc_check(r, s, &ipc);
	if (err == EOK)
		err = rec_ipc_key(r, &ipc, k);
	if (err != EOK)
		return err;
	r->c.ipc++;
	r->c.redacted += !s->pc;
	return EOK;
}

/*
 * w samples' worth of a server working for a call (key k: its sample or
 * off-CPU record): inside the wait of the path's last caller on it.
 */
static errno_t wall_served(prof_report_t *r, const prof_stack_t *k, uint64_t w, uint64_t t)
{
	prof_wkey_t key = { k->origin, k->hop[k->nhops - 2], k->hop[k->nhops - 1], 0 };
	bool created;
	prof_val_t *pool = prof_map_get(&r->env, &r->served, &key, &created);

	if (!pool)
		return ENOMEM;
	val_add(pool, w, t);
	return EOK;
}

/*
 * A sample before v5 in v5 layout (in r->norm, weight 0: nominal), its
 * new length in *len; a v5 one as it is. NULL when too short.
 */
static const unsigned char *rec_sample_v5(prof_report_t *r, const unsigned char *rec,
					  size_t *len)
{
	if (r->header.version >= 5)
		return rec;
	if (*len < PROF_SAMPLE_V4_SIZE)
		return NULL;
	unsigned char *n = (unsigned char *)r->norm;
	memcpy(n, rec, PROF_SAMPLE_V4_SIZE);
	memset(n + PROF_SAMPLE_V4_SIZE, 0, 8);
	memcpy(n + PROF_SAMPLE_V4_SIZE + 8, rec + PROF_SAMPLE_V4_SIZE, *len - PROF_SAMPLE_V4_SIZE);
	*len += 8;
	return n;
}

/* The TSC cycles a sample stands for: its weight, or nominally tsc_hz / hz. */
static uint64_t rec_weight(const prof_report_t *r, const prof_rec_sample_t *s)
{
	if (s->weight)
		return s->weight;
	return r->header.hz ? r->header.tsc_hz / r->header.hz : 0;
}

/* A sample's part in its CPU's line of the report head. */
static void rec_cpu_sample(prof_report_t *r, uint32_t cpu)
{
	if (cpu < PROF_MAX_CPUS)
		r->cpu[cpu].samples++;
}

static errno_t rec_sample(prof_report_t *r, const unsigned char *rec, size_t len)
{
	prof_rec_sample_t s;
	prof_stack_t k;
	bool created;

	r->nsamples++;
	rec = rec_sample_v5(r, rec, &len);
	if (!rec || rec_get(&s, sizeof(s), rec, len) != EOK)
		return rec_bad(r, "sample %llu: record of %zu bytes",
			       (unsigned long long)r->nsamples, len);
	if ((len - sizeof(s)) / 8 < (size_t)s.nchain + s.ntop || s.nkernel > s.nchain ||
	    s.mode > PROF_MODE_IDLE)
		return rec_bad(r, "sample %llu: chain or mode out of range",
			       (unsigned long long)r->nsamples);
	uint32_t slot = rep_task(r, s.task);
	if (slot == PROF_NONE)
		return ENOMEM;
	rec_cpu_sample(r, s.h.cpu);
	r->cur_w = rec_weight(r, &s);
	rec_stack_key(r, &s, rec + sizeof(s), slot, &k);
	uint64_t ipc_before = r->c.ipc, red_before = r->c.redacted;
	errno_t err = rec_ipc(r, &s, rec, len, &k);
	if (err != EOK)
		return err;
	if (!rec_keep(r, &s, slot)) {
		r->c.ipc = ipc_before;
		r->c.redacted = red_before;
		return EOK;
	}
	if (r->xon && rec_xstack(r, &s, rec + sizeof(s), slot, &k) != EOK)
		return ENOMEM;
	prof_val_t *v = prof_map_get(&r->env, &r->stacks, &k, &created);
	if (!v)
		return ENOMEM;
	val_add(v, 1, r->cur_w);
	if (s.mode != PROF_MODE_IDLE) {
		r->tasks[slot].samples++;
		r->tasks[slot].time += r->cur_w;
	}
	rec_count_mode(r, s.mode, r->cur_w);
	return k.origin != PROF_NONE && k.nhops >= 2 && r->wall ?
	       wall_served(r, &k, 1, r->cur_w) : EOK;
}

/*
 * PROF_REC_CALL: keep the origin's stack under its id for the walk by
 * origin (the first record of an id wins). EOK, EINVAL, ENOMEM.
 */
static errno_t rec_call(prof_report_t *r, const unsigned char *rec, size_t len)
{
	prof_rec_call_t c;
	prof_sitekey_t key;
	bool created;

	if (rec_get(&c, sizeof(c), rec, len) != EOK)
		return rec_bad(r, "a CALL record of %zu bytes", len);
	if ((len - sizeof(c)) / 8 < c.nchain || c.nchain > PROF_IPC_STACK_MAX || !c.stack)
		return rec_bad(r, "CALL %llu: %u chain words in %zu bytes (at most %u)",
			       (unsigned long long)c.stack, c.nchain, len, PROF_IPC_STACK_MAX);
	if (!r->calls.ksize) {
		prof_map_init(&r->calls, sizeof(uint64_t), sizeof(uint64_t));
		prof_map_init(&r->sites, sizeof(prof_sitekey_t), sizeof(uint64_t));
	}
	uint64_t *idx = prof_map_get(&r->env, &r->calls, &c.stack, &created);
	if (!idx)
		return ENOMEM;
	if (!created)
		return EOK;
	*idx = PROF_NONE;
	memset(&key, 0, sizeof(key));
	key.slot = rep_task(r, c.task);
	key.n = c.nchain;
	memcpy(key.w, rec + sizeof(c), 8 * (size_t)c.nchain);
	uint64_t *site = key.slot == PROF_NONE ? NULL : prof_map_get(&r->env, &r->sites, &key, &created);
	if (!site)
		return ENOMEM;
	if (created && rec_site_add(r, &key, site) != EOK)
		return ENOMEM;
	*idx = *site;
	return EOK;
}

/* ---------------------------------------------------------------- off-CPU */

/*
 * The weight of an off-CPU record in samples: cycles * hz / tsc_hz, the
 * remainder carried to the next record (the total stays exact).
 */
static uint64_t off_weight(prof_report_t *r, uint64_t cycles)
{
	uint64_t tsc_hz = r->header.tsc_hz, hz = r->header.hz;

	if (!tsc_hz || !hz)
		return 0;
	uint64_t w = cycles / tsc_hz * hz;
	r->off_acc += cycles % tsc_hz * hz;
	w += r->off_acc / tsc_hz;
	r->off_acc %= tsc_hz;
	return w;
}

/* The sample the keys and the filter see for off-CPU record o: user, pc 0. */
static void off_sample(const prof_rec_offcpu_t *o, uint16_t nchain, prof_rec_sample_t *s)
{
	memset(s, 0, sizeof(*s));
	s->h = o->h;
	s->task = o->task;
	s->thread = o->thread;
	s->mode = PROF_MODE_USER;
	s->nchain = nchain;
}

/* Mark stack key k off-CPU for record o (an IPC wait: its callee and method). */
static errno_t off_mark(prof_report_t *r, const prof_rec_offcpu_t *o, prof_stack_t *k)
{
	k->off = (o->why < WAIT_WHY_COUNT ? o->why : WAIT_WHY_COUNT) + 1;
	k->wtask = PROF_NONE;
	if (o->why != WAIT_WHY_IPC)
		return EOK;
	k->wmethod = prof_method_code(o->wait_method);
	k->wtask = rep_task(r, o->wait_task);
	return k->wtask == PROF_NONE ? ENOMEM : EOK;
}

/* Add w samples of record o (its whole chain, kernel frames first) to the whole stacks. */
static errno_t off_xstack(prof_report_t *r, const prof_rec_offcpu_t *o,
			  const unsigned char *chain, uint32_t slot, const prof_stack_t *sk,
			  uint64_t w)
{
	uint64_t kbuf[PROF_XKEY_MAX / 8];
	prof_xkey_t *k = (prof_xkey_t *)kbuf;
	prof_rec_sample_t s;

	off_sample(o, o->nchain, &s);
	rec_xkey(r, &s, chain, slot, sk, k);
	k->nkern = (uint8_t)(o->nkernel < k->nframes - 1 ? o->nkernel : k->nframes - 1);
	k->off = (uint8_t)sk->off;
	k->wtask = sk->wtask;
	k->wmethod = sk->wmethod;
	return rec_xadd(r, k, w, o->cycles);
}

/*
 * Add w samples of record o (serving a call: its origin block ipc, else
 * NULL) to the report's stacks (user frames only: the tree's callers).
 */
static errno_t off_stack(prof_report_t *r, const prof_rec_offcpu_t *o,
			 const unsigned char *chain, const prof_ipc_t *ipc, uint32_t slot,
			 uint64_t w)
{
	prof_rec_sample_t s;
	prof_stack_t k;
	bool created;

	off_sample(o, (uint16_t)(o->nchain - o->nkernel), &s);
	rec_stack_key(r, &s, chain + 8 * (size_t)o->nkernel, slot, &k);
	if (off_mark(r, o, &k) != EOK || (ipc && rec_ipc_key(r, ipc, &k) != EOK))
		return ENOMEM;
	if (ipc && wall_served(r, &k, w, o->cycles) != EOK)
		return ENOMEM;
	if (r->xon && off_xstack(r, o, chain, slot, &k, w) != EOK)
		return ENOMEM;
	prof_val_t *v = prof_map_get(&r->env, &r->stacks, &k, &created);
	if (!v)
		return ENOMEM;
	val_add(v, w, o->cycles);
	r->tasks[slot].samples += w;
	r->tasks[slot].time += o->cycles;
	r->c.offcpu_weight += w;
	r->c.offcpu_wcycles += o->cycles;
	return EOK;
}

/*
 * The origin block after record o's chain into ipc (nhops 0: none),
 * checked like a sample's: EOK or EINVAL (reason).
 */
static errno_t off_ipc(prof_report_t *r, const prof_rec_offcpu_t *o, const unsigned char *rec,
		       size_t len, prof_ipc_t *ipc)
{
	size_t used = sizeof(*o) + 8 * (size_t)o->nchain;
	unsigned long long n = (unsigned long long)r->c.offcpu + 1;

	memset(ipc, 0, sizeof(*ipc));
	if (len == used)
		return EOK;
	if (len - used < sizeof(*ipc))
		return rec_bad(r, "off-CPU record %llu: ipc block cut short", n);
	memcpy(ipc, rec + used, sizeof(*ipc));
	return rec_ipc_path(r, "off-CPU record", n, ipc, o->task);
}

/*
 * PROF_REC_OFFCPU (v4): counted (records, cycles); with the wall clock
 * (prof_report_set_wall) also a weight of samples on its stack under a
 * leaf "[off-cpu: REASON]". EOK, EINVAL, ENOMEM.
 */
static errno_t rec_offcpu(prof_report_t *r, const unsigned char *rec, size_t len)
{
	prof_rec_offcpu_t o;
	prof_rec_sample_t s;
	prof_ipc_t ipc;

	if (rec_get(&o, sizeof(o), rec, len) != EOK || (len - sizeof(o)) / 8 < o.nchain ||
	    o.nkernel > o.nchain)
		return rec_bad(r, "off-CPU record %llu: %zu bytes, chain out of range",
			       (unsigned long long)r->c.offcpu + 1, len);
	errno_t err = off_ipc(r, &o, rec, len, &ipc);
	if (err != EOK)
		return err;
	uint32_t slot = rep_task(r, o.task);
	if (slot == PROF_NONE)
		return ENOMEM;
	off_sample(&o, 0, &s);
	if (!rec_keep(r, &s, slot))
		return EOK;
	r->c.offcpu++;
	r->c.offcpu_cycles += o.cycles;
	uint64_t w = r->wall ? off_weight(r, o.cycles) : 0;
	return r->wall && o.cycles ? off_stack(r, &o, rec + sizeof(o), ipc.nhops ? &ipc : NULL, slot, w)
				     : EOK;
}

/* PROF_REC_MISSED (v5): a CPU's count; its first is the session's base. */
static errno_t rec_missed(prof_report_t *r, const void *rec, size_t len)
{
	prof_rec_missed_t m;

	if (rec_get(&m, sizeof(m), rec, len) != EOK)
		return rec_bad(r, "a MISSED record of %zu bytes", len);
	if (m.h.cpu >= PROF_MAX_CPUS)
		return EOK;
	prof_rec_cpu_t *c = &r->cpu[m.h.cpu];
	if (!c->missed_seen)
		c->missed_first = m.missed;
	c->missed_seen = true;
	c->missed_last = m.missed;
	return EOK;
}

static errno_t rec_other(prof_report_t *r, unsigned type, const void *rec,
			 size_t len)
{
	prof_rec_lost_t lost;
	prof_rec_throttle_t th;
	prof_rec_end_t end;

	switch (type) {
	case PROF_REC_LOST:
		if (rec_get(&lost, sizeof(lost), rec, len) != EOK)
			return rec_bad(r, "a LOST record of %zu bytes", len);
		r->lost_recs += lost.count;
		if (lost.h.cpu < PROF_MAX_CPUS)
			r->cpu[lost.h.cpu].lost += lost.count;
		break;
	case PROF_REC_MISSED:
		return rec_missed(r, rec, len);
	case PROF_REC_THROTTLE:
		if (rec_get(&th, sizeof(th), rec, len) != EOK)
			return EINVAL;
		if (th.h.cpu < PROF_MAX_CPUS)
			r->cpu_skipped[th.h.cpu] = th.skipped;
		break;
	case PROF_REC_END:
		if (rec_get(&end, sizeof(end), rec, len) != EOK)
			return EINVAL;
		r->end_lost += end.lost;
		r->end_throttled = end.throttled;
		r->c.ended = true;
		break;
	case PROF_REC_EXIT:
		return len < sizeof(prof_rec_exit_t) ? EINVAL : EOK;
	case PROF_REC_CALL:
		return rec_call(r, rec, len);
	case PROF_REC_OFFCPU:
		return rec_offcpu(r, rec, len);
	}
	return EOK;
}

/* Process one whole record (rec may be unaligned). */
static errno_t rec_process(prof_report_t *r, const unsigned char *rec, size_t len)
{
	prof_rec_t h;

	memcpy(&h, rec, sizeof(h));
	if (!r->c.have_header && h.type != PROF_REC_HEADER)
		return rec_bad(r, "the stream does not start with a header");
	if (h.tsc > r->tsc_last)
		r->tsc_last = h.tsc;
	switch (h.type) {
	case PROF_REC_HEADER:
		return rec_header(r, rec, len);
	case PROF_REC_SAMPLE:
		return rec_sample(r, rec, len);
	case PROF_REC_TASK:
		return rec_task(r, rec, len);
	case PROF_REC_LOAD:
		return rec_load(r, rec, len);
	default:
		return rec_other(r, h.type, rec, len);
	}
}

/*
 * The size of the record whose header is at p; 0 when malformed (also a
 * first record that cannot be a HEADER, found before its end arrives).
 */
static size_t rec_size(const prof_report_t *r, const unsigned char *p)
{
	prof_rec_t h;

	memcpy(&h, p, sizeof(h));
	if (h.size < sizeof(prof_rec_t) || h.size % 8 != 0)
		return 0;
	if (!r->c.have_header && (h.type != PROF_REC_HEADER ||
				  h.size < sizeof(prof_rec_header_t)))
		return 0;
	return h.size;
}

/* Move up to want - pend_len bytes from *p into the pending record. */
static void feed_take(prof_report_t *r, const unsigned char **p, size_t *len,
		      size_t want)
{
	size_t take = want - r->pend_len < *len ? want - r->pend_len : *len;

	memcpy((unsigned char *)r->pend + r->pend_len, *p, take);
	r->pend_len += take;
	*p += take;
	*len -= take;
}

/*
 * Take bytes into the pending record; true once it is whole (its size in
 * *size), false when more bytes are needed or it is malformed (*err).
 */
static bool feed_pending(prof_report_t *r, const unsigned char **p, size_t *len,
			 size_t *size, errno_t *err)
{
	if (r->pend_len < sizeof(prof_rec_t)) {
		feed_take(r, p, len, sizeof(prof_rec_t));
		if (r->pend_len < sizeof(prof_rec_t))
			return false;
	}
	*size = rec_size(r, (unsigned char *)r->pend);
	if (*size == 0) {
		*err = rec_bad(r, r->c.have_header ? "a record size below 16 or not a multiple of 8" :
			       "no profiler stream header");
		return false;
	}
	feed_take(r, p, len, *size);
	return r->pend_len == *size;
}

errno_t prof_report_feed(prof_report_t *r, const void *data, size_t len)
{
	const unsigned char *p = data;
	errno_t err = EOK;

	while (r->error == EOK && len > 0) {
		size_t size = 0;
		if (r->pend_len == 0 && len >= sizeof(prof_rec_t) &&
		    (size = rec_size(r, p)) != 0 && size <= len) {
			err = rec_process(r, p, size);
			p += size;
			len -= size;
		} else if (feed_pending(r, &p, &len, &size, &err)) {
			r->pend_len = 0;
			err = rec_process(r, (unsigned char *)r->pend, size);
		}
		if (err == EINVAL || err == ENOTSUP)
			r->error = err;
		if (err != EOK)
			return err;
	}
	return r->error;
}

/* ---------------------------------------------------------------- life */

errno_t prof_report_new(const prof_env_t *env, prof_report_t **out)
{
	prof_report_t *r = env->alloc(env->ctx, sizeof(*r));

	if (!r)
		return ENOMEM;
	memset(r, 0, sizeof(*r));
	r->env = *env;
	prof_map_init(&r->stacks, sizeof(prof_stack_t), sizeof(prof_val_t));
	prof_map_init(&r->served, sizeof(prof_wkey_t), sizeof(prof_val_t));
	*out = r;
	return EOK;
}

/* The counts with the lost and throttled totals. */
static void rep_totals(const prof_report_t *r, prof_counts_t *c)
{
	uint64_t skipped = 0;

	for (size_t i = 0; i < PROF_MAX_CPUS; i++)
		skipped += r->cpu_skipped[i];
	*c = r->c;
	c->duration_ns = 0;
	if (r->header.tsc_hz >= 1000 && r->tsc_last > r->header.h.tsc)
		c->duration_ns = (r->tsc_last - r->header.h.tsc) /
				 (r->header.tsc_hz / 1000) * 1000000;
	/* END's lost is the session's total: the LOST records before it are part of it */
	c->lost = r->lost_recs > r->end_lost ? r->lost_recs : r->end_lost;
	c->throttled = skipped > r->end_throttled ? skipped : r->end_throttled;
	c->missed = 0;
	for (size_t i = 0; i < PROF_MAX_CPUS; i++)
		c->missed += r->cpu[i].missed_last - r->cpu[i].missed_first;
}

const char *prof_report_error(const prof_report_t *r)
{
	if (r->error == EOK)
		return NULL;
	return r->why[0] ? r->why : "a malformed stream";
}

size_t prof_report_pending(const prof_report_t *r)
{
	return r->pend_len;
}

void prof_report_counts(const prof_report_t *r, prof_counts_t *c)
{
	rep_totals(r, c);
}

void prof_report_free(prof_report_t *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nbins; i++)
		profbin_free(&r->env, &r->bins[i]);
	prof_release(&r->env, r->bins);
	prof_release(&r->env, r->tasks);
	prof_map_free(&r->env, &r->stacks);
	prof_map_free(&r->env, &r->xstacks);
	prof_map_free(&r->env, &r->served);
	prof_map_free(&r->env, &r->calls);
	prof_map_free(&r->env, &r->sites);
	prof_release(&r->env, r->cstk);
	prof_release(&r->env, r->cwords);
	r->env.release(r->env.ctx, r);
}

/* ---------------------------------------------------------------- output */

static __attribute__((format(printf, 2, 3)))
void rep_printf(prof_report_t *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fmt_vformat(r->env.out, r->env.ctx, fmt, ap);
	va_end(ap);
}

/* n/total in hundredths of a percent, rounded. */
static uint64_t rep_centi(uint64_t n, uint64_t total)
{
	return total ? (n * 10000 + total / 2) / total : 0;
}

/* Print n/total as "ddd.dd%". */
static void rep_pct(prof_report_t *r, uint64_t n, uint64_t total)
{
	uint64_t c = rep_centi(n, total);

	rep_printf(r, "%3llu.%02u%%", (unsigned long long)(c / 100),
		   (unsigned)(c % 100));
}

/* TSC cycles as ns at the stream's tsc_hz (no overflow: split at a second). */
static uint64_t rep_ns(const prof_report_t *r, uint64_t cycles)
{
	uint64_t hz = r->header.tsc_hz;

	if (!hz)
		return 0;
	return cycles / hz * 1000000000ull + cycles % hz * 1000000000ull / hz;
}

/* " SAMPLES NS" columns of a row: its samples, then its time in ns. */
static void rep_counts(prof_report_t *r, uint64_t n, uint64_t cycles)
{
	rep_printf(r, " %8llu %12llu", (unsigned long long)n,
		   (unsigned long long)rep_ns(r, cycles));
}

static const char *pr_fname(const prof_print_t *pp, uint32_t f)
{
	return pp->funcs[f].name ? pp->funcs[f].name : pp->funcs[f].hex;
}

static void rep_func_name(prof_print_t *pp, uint32_t f)
{
	rep_printf(pp->r, "%s%s", pr_fname(pp, f), pp->funcs[f].kernel ? " [k]" : "");
}

/*
 * "ID NAME" of a task slot (or "[idle]") into buf: the name of its TASK
 * record, else of its program, else "kernel" for task 0 and "?".
 */
static void rep_task_label(prof_report_t *r, uint32_t slot, char *buf, size_t size)
{
	if (slot == PROF_SLOT_IDLE) {
		fmt_snprintf(buf, size, "[idle]");
		return;
	}
	fmt_snprintf(buf, size, "%llu %s", (unsigned long long)r->tasks[slot].id,
		     rep_task_name(r, slot));
}

/* ---------------------------------------------------------------- symbolizing */

typedef struct prof_fkey {
	uint32_t bin, known;
	uint64_t addr;
} prof_fkey_t;

/* A new function entry; its index, or PROF_NONE without memory. */
static uint32_t pr_func_add(prof_print_t *pp, const prof_fkey_t *k,
			    const char *name, bool kernel)
{
	if (prof_vec_reserve(&pp->r->env, (void **)&pp->funcs, &pp->cap_funcs, pp->nfuncs,
			sizeof(prof_func_t)) != EOK)
		return PROF_NONE;
	prof_func_t *f = &pp->funcs[pp->nfuncs];
	f->addr = k->addr;
	f->bin = k->bin;
	f->kernel = kernel;
	fmt_snprintf(f->hex, sizeof(f->hex), kernel && !k->addr ? "[kernel]" : "0x%llx",
		     (unsigned long long)k->addr);
	f->name = name;         /* NULL: the hex (the array may move) */
	return (uint32_t)pp->nfuncs++;
}

/*
 * The function of addr in binary bin (NONE: unknown); ret: addr is a
 * return address (looked up at addr - 1). PROF_NONE without memory.
 */
static uint32_t pr_func(prof_print_t *pp, uint32_t bin, uint64_t addr, bool ret,
			bool kernel)
{
	prof_report_t *r = pp->r;
	uint64_t look = ret && addr ? addr - 1 : addr, off = 0;
	const char *name = NULL;
	prof_fkey_t k = { bin, 0, addr };
	bool created;

	if (bin != PROF_NONE) {
		name = profbin_lookup(&r->env, &r->bins[bin], look, &off);
	}
	if (name) {
		k.known = 1;
		k.addr = look - off;
	}
	uint32_t *idx = prof_map_get(&r->env, &pp->fmap, &k, &created);
	if (!idx)
		return PROF_NONE;
	if (created)
		*idx = pr_func_add(pp, &k, name, kernel);
	return *idx;
}

/* ---------------------------------------------------------------- ipc methods */

/* A method number's name in a protocol. */
typedef struct prof_mname {
	uint32_t method;                /* as prof_method_code() gives it */
	const char *name;
} prof_mname_t;

/*
 * Known protocols by server task name. fs: uspace/lib/c/include/
 * fs_proto.h (FS_M_BASE is IPC_M_LIBC + 0x100); console: console.h; ns:
 * ipc.h (NS_M_WATCH is IPC_M_LIBC + 1, NS_M_RELEASE + 2, registrations
 * come as CONNECT_TO_ME); ipcload: uspace/app/ipcload/ipcload.h. Any
 * server: abi/ipc.h's IPC_M_*.
 */
#define PROF_M_FS(n) (PROF_M_LIBC_CODE | (0x100 + (n)))
static const prof_mname_t prof_m_fs[] = {
	{ PROF_M_FS(1), "OPEN" }, { PROF_M_FS(2), "CLOSE" }, { PROF_M_FS(3), "MKDIR" },
	{ PROF_M_FS(4), "UNLINK" }, { PROF_M_FS(5), "RMDIR" }, { PROF_M_FS(6), "RENAME" },
	{ PROF_M_FS(7), "TRUNCATE" }, { PROF_M_FS(8), "INFO" }, { PROF_M_FS(9), "MKPIPE" },
	{ 0, NULL },
};
static const prof_mname_t prof_m_console[] = {
	{ IPC_M_USER + 1, "WRITE" }, { IPC_M_USER + 2, "SET_MODE" },
	{ IPC_M_USER + 3, "GET_SIZE" }, { IPC_M_USER + 4, "SET_FG" }, { 0, NULL },
};
static const prof_mname_t prof_m_ns[] = {
	{ PROF_M_LIBC_CODE | 1, "WATCH" }, { PROF_M_LIBC_CODE | 2, "RELEASE" },
	{ IPC_M_CONNECT_TO_ME, "REGISTER" },
	{ IPC_M_CONNECT_ME_TO, "CONNECT" }, { 0, NULL },
};
static const prof_mname_t prof_m_ipcload[] = {
	{ IPC_M_USER + 1, "WORK" }, { IPC_M_USER + 2, "WORK_B" },
	{ IPC_M_USER + 3, "STOP" }, { 0, NULL },
};
static const prof_mname_t prof_m_generic[] = {
	{ IPC_M_PHONE_HUNGUP, "HUNGUP" }, { IPC_M_CONNECT_TO_ME, "CONNECT_TO_ME" },
	{ IPC_M_CONNECT_ME_TO, "CONNECT_ME_TO" }, { IPC_M_DATA_WRITE, "WRITE" },
	{ IPC_M_DATA_READ, "READ" }, { IPC_M_IRQ, "IRQ" }, { 0, NULL },
};

static const struct {
	const char *server;
	const prof_mname_t *methods;
} prof_protocols[] = {
	{ "fs", prof_m_fs },
	{ "console", prof_m_console },
	{ "ns", prof_m_ns },
	{ "ipcload", prof_m_ipcload },
};

static const char *prof_mname_find(const prof_mname_t *t, uint32_t method)
{
	for (; t->name; t++) {
		if (t->method == method)
			return t->name;
	}
	return NULL;
}

/* prof_ipc_label of a method code (prof_method_code). */
static void prof_ipc_label_code(const char *server, uint32_t method, char *buf, size_t size)
{
	const char *name = NULL;

	for (size_t i = 0; i < sizeof(prof_protocols) / sizeof(prof_protocols[0]); i++) {
		if (strcmp(server, prof_protocols[i].server) == 0)
			name = prof_mname_find(prof_protocols[i].methods, method);
	}
	if (!name)
		name = prof_mname_find(prof_m_generic, method);
	if (name)
		fmt_snprintf(buf, size, "%s.%s", server, name);
	else if (method & PROF_M_LIBC_CODE)
		fmt_snprintf(buf, size, "%s.libc+%u", server, method & ~PROF_M_LIBC_CODE);
	else
		fmt_snprintf(buf, size, "%s.%u", server, method);
}

void prof_ipc_label(const char *server, uint64_t method, char *buf, size_t size)
{
	prof_ipc_label_code(server, prof_method_code(method), buf, size);
}

/*
 * The function of key k named full (n bytes): a name of its own, known,
 * no binary; made once per key. PROF_NONE without memory.
 */
static uint32_t pr_named_func(prof_print_t *pp, const prof_fkey_t *k, const char *full, int n)
{
	prof_report_t *r = pp->r;
	bool created;

	uint32_t *idx = prof_map_get(&r->env, &pp->fmap, k, &created);
	if (!idx || !created)
		return idx ? *idx : PROF_NONE;
	*idx = PROF_NONE;
	char *name = rep_strdup(r, full, (size_t)n);
	if (!name || prof_vec_reserve(&r->env, (void **)&pp->names, &pp->cap_names, pp->nnames,
				 sizeof(char *)) != EOK) {
		prof_release(&r->env, name);
		return PROF_NONE;
	}
	pp->names[pp->nnames++] = name;
	*idx = pr_func_add(pp, k, name, false);
	if (*idx != PROF_NONE)
		pp->funcs[*idx].addr = 0;       /* no address (the task style's column) */
	return *idx;
}

/*
 * The function "[ipc SERVER.METHOD]" of task slot server serving method
 * (a name of its own, known, no binary); PROF_NONE without memory.
 */
static uint32_t pr_ipc_func(prof_print_t *pp, uint32_t server, uint32_t method)
{
	prof_fkey_t k = { PROF_NONE, 2, ((uint64_t)server << 32) | method };
	char label[80], full[96];

	prof_ipc_label_code(rep_task_name(pp->r, server), method, label, sizeof(label) - 8);
	return pr_named_func(pp, &k, full, fmt_snprintf(full, sizeof(full), "[ipc %s]", label));
}

/*
 * The leaf of an off-CPU stack (off: WAIT_WHY_* + 1): "[off-cpu: REASON]",
 * for an IPC wait "[off-cpu: wait SERVER.METHOD]" (the callee wtask's
 * name); PROF_NONE without memory.
 */
static uint32_t pr_off_func(prof_print_t *pp, uint32_t off, uint32_t wtask, uint32_t wmethod)
{
	static const char *const why[] = WAIT_WHY_NAMES;
	bool ipc = off == WAIT_WHY_IPC + 1 && wtask != PROF_NONE;
	prof_fkey_t k = { PROF_NONE, ipc ? 4 : 3, ipc ? ((uint64_t)wtask << 32) | wmethod : off };
	char label[80], full[96];

	if (!ipc)
		return pr_named_func(pp, &k, full, fmt_snprintf(full, sizeof(full),
			"[off-cpu: %s]", why[off - 1 < WAIT_WHY_COUNT ? off - 1 : WAIT_WHY_COUNT]));
	prof_ipc_label_code(rep_task_name(pp->r, wtask), wmethod, label, sizeof(label) - 8);
	return pr_named_func(pp, &k, full, fmt_snprintf(full, sizeof(full),
							 "[off-cpu: wait %s]", label));
}

/* A redacted sample's key: serving a call, pc 0, no chain. */
static bool pr_redacted(const prof_stack_t *k)
{
	return k->origin != PROF_NONE && k->frame[0] == 0 && k->nframes == 1;
}

/*
 * The caller of a sample at pc (in the kernel, or in binary ubin) whose
 * function had not set up its frame, from the top words; 0 if none.
 */
static uint64_t pr_leaf_caller(prof_print_t *pp, bool kernel, uint32_t ubin, uint64_t pc,
			       const uint64_t *top)
{
	uint32_t bin = kernel ? pp->kbin : ubin;
	uint64_t off;

	if (bin == PROF_NONE || (!top[0] && !top[1]))
		return 0;
	profbin_t *b = &pp->r->bins[bin];
	if (!profbin_lookup(&pp->r->env, b, pc, &off) || !b->data)
		return 0;
	return profleaf_caller(b->data, b->size, pc - off, pc, top, PROF_TOP_WORDS);
}

/*
 * A sample in a function that had not set up its frame: put its caller
 * (from the top words) in front of the return addresses of the walk.
 */
static void pr_leaf_fix(prof_print_t *pp, prof_stack_t *k)
{
	bool kernel = k->kmask & 1;
	uint64_t caller = pr_leaf_caller(pp, kernel, k->bin, k->frame[0], k->top);

	if (!caller)
		return;
	memmove(&k->frame[2], &k->frame[1], (PROF_TREE_DEPTH - 1) * sizeof(k->frame[0]));
	k->frame[1] = caller;
	k->kmask = (uint16_t)(((k->kmask & ~1u) << 1) | (kernel ? 3u : 0u));
	if (k->nframes < 1 + PROF_TREE_DEPTH)
		k->nframes++;
	k->kmask &= (uint16_t)((1u << k->nframes) - 1);
	pp->leaf_fixed++;
}

/* Map the frames of the stack in map slot i to functions (pp->sfunc). */
static errno_t pr_stack_funcs(prof_print_t *pp, size_t i)
{
	const unsigned char *e = prof_map_entry(&pp->r->stacks, i);
	prof_stack_t k;
	uint32_t *out = &pp->sfunc[i * (1 + PROF_TREE_DEPTH)];

	memcpy(&k, e + 8, sizeof(k));
	if (pr_redacted(&k)) {
		pp->nframes[i] = 1;
		out[0] = pr_ipc_func(pp, k.slot, k.method);
		return out[0] == PROF_NONE ? ENOMEM : EOK;
	}
	if (!k.off)
		pr_leaf_fix(pp, &k);
	pp->nframes[i] = k.nframes;
	for (size_t j = 0; j < k.nframes; j++) {
		bool kernel = k.kmask & (1u << j);
		out[j] = j == 0 && k.off ? pr_off_func(pp, k.off, k.wtask, k.wmethod) :
			 pr_func(pp, kernel ? pp->kbin : k.bin, k.frame[j], j > 0, kernel);
		if (out[j] == PROF_NONE)
			return ENOMEM;
	}
	return EOK;
}

static const prof_stack_t *pr_stack(const prof_print_t *pp, size_t i, prof_val_t *v)
{
	const unsigned char *e = prof_map_entry(&pp->r->stacks, i);

	memcpy(v, e + 8 + sizeof(prof_stack_t), sizeof(*v));
	return (const prof_stack_t *)(e + 8);
}

/* The row slot of a stack: its task, [idle], or 0 for the task style. */
static uint32_t pr_slot(const prof_print_t *pp, const prof_stack_t *s)
{
	if (pp->o->style == PROF_STYLE_TASK)
		return 0;
	return s->mode == PROF_MODE_IDLE ? PROF_SLOT_IDLE : s->slot;
}

/* Sum the stacks into rows (slot, function) in pp->rows. */
static errno_t pr_rows(prof_print_t *pp)
{
	prof_report_t *r = pp->r;
	prof_map_t rmap;
	bool created;
	errno_t err = EOK;

	prof_map_init(&rmap, 8, sizeof(prof_val_t));
	for (size_t i = 0; i < r->stacks.cap && err == EOK; i++) {
		prof_val_t c;
		if (!prof_map_entry(&r->stacks, i)[0])
			continue;
		const prof_stack_t *s = pr_stack(pp, i, &c);
		uint32_t key[2] = { pr_slot(pp, s), pp->sfunc[i * (1 + PROF_TREE_DEPTH)] };
		prof_val_t *v = prof_map_get(&r->env, &rmap, key, &created);
		if (!v)
			err = ENOMEM;
		else
			val_add(v, c.n, c.t);
		pp->total += c.n;
		pp->ttotal += c.t;
	}
	if (err == EOK)
		pp->rows = prof_alloc(&r->env, rmap.count * sizeof(prof_row_t));
	if (err == EOK && !pp->rows)
		err = ENOMEM;
	for (size_t i = 0; i < rmap.cap && err == EOK; i++) {
		const unsigned char *e = prof_map_entry(&rmap, i);
		if (!e[0])
			continue;
		prof_row_t *row = &pp->rows[pp->nrows++];
		memcpy(&row->slot, e + 8, 4);
		memcpy(&row->func, e + 12, 4);
		memcpy(&row->count, e + 16, 8);
		memcpy(&row->time, e + 24, 8);
	}
	prof_map_free(&r->env, &rmap);
	return err;
}

/* Rows: most time first, then most samples, by name and task for a stable order. */
static int pr_row_cmp(const void *a, const void *b, void *ctx)
{
	const prof_row_t *x = a, *y = b;
	const prof_print_t *pp = ctx;

	if (x->time != y->time)
		return x->time > y->time ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	int c = strcmp(pr_fname(pp, x->func), pr_fname(pp, y->func));
	if (c != 0)
		return c;
	return x->slot < y->slot ? -1 : x->slot > y->slot;
}

/* ---------------------------------------------------------------- tables */

/* Is a row of time t (TSC cycles) below the threshold share? */
static bool pr_hidden(const prof_print_t *pp, uint64_t t)
{
	return rep_centi(t, pp->ttotal) < pp->o->threshold_centi;
}

static void pr_hidden_line(prof_print_t *pp, size_t hidden)
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
	rep_printf(r, "source: %s at %u Hz on %u CPU%s", prof_source_name(h->source),
		   h->hz, h->ncpus, h->ncpus == 1 ? "" : "s");
	if (h->tsc_hz >= 10 && r->tsc_last > h->h.tsc) {
		uint64_t tenths = (r->tsc_last - h->h.tsc) / (h->tsc_hz / 10);
		rep_printf(r, ", %llu.%u s", (unsigned long long)(tenths / 10),
			   (unsigned)(tenths % 10));
	}
	rep_printf(r, "\n");
	pr_cpus(pp);
	pr_offcpu(pp);
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
static errno_t pr_by_origin(prof_print_t *pp)
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

/* ---------------------------------------------------------------- print */

static void pr_free(prof_print_t *pp);

static errno_t pr_prepare(prof_print_t *pp)
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
 * Say when the samples are biased (QEMU TCG without -icount, or -icount
 * on SMP) and which
 * binaries' files differ from the ones profiled (after loading).
 */
static void pr_warnings(prof_print_t *pp)
{
	prof_report_t *r = pp->r;

	if (r->c.have_header && (r->header.flags & PROF_F_TB_BIASED))
		rep_printf(r, "warning: QEMU TCG without -icount: weights keep each CPU's "
			   "time, but positions in code are biased to translation-block "
			   "boundaries (functions up to 15 points off against callgrind; "
			   "boot with -icount for exact profiles)\n");
	if (r->c.have_header && (r->header.flags & PROF_F_ICOUNT_SMP))
		rep_printf(r, "warning: QEMU -icount on %u CPUs: vCPUs run in turns, so "
			   "samples due while a CPU waits land where its turn ended (profile "
			   "on 1 CPU for exact shares)\n", (unsigned)r->header.ncpus);

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
}

static errno_t pr_body(prof_print_t *pp)
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

/* ------------------------------------------------------- wall: counted once */

/* The wait key of stacks entry e (an IPC wait), false for any other stack. */
static bool wall_stack_key(const unsigned char *e, prof_wkey_t *w)
{
	const prof_stack_t *k = (const void *)(e + 8);

	*w = (prof_wkey_t){ k->origin != PROF_NONE ? k->origin : k->slot, k->slot, k->wtask, 0 };
	return k->off == WAIT_WHY_IPC + 1;
}

/* The same for an xstacks entry. */
static bool wall_xkey(const unsigned char *e, prof_wkey_t *w)
{
	const prof_xkey_t *k = (const void *)(e + 8);

	*w = (prof_wkey_t){ k->origin != PROF_NONE ? k->origin : k->slot, k->slot, k->wtask, 0 };
	return k->off == WAIT_WHY_IPC + 1;
}

/* The weight of every IPC wait in m, summed by wait key into sums. */
static errno_t wall_sums(prof_report_t *r, const prof_map_t *m,
			 bool (*key)(const unsigned char *, prof_wkey_t *), prof_map_t *sums)
{
	prof_wkey_t w;
	bool created;

	for (size_t i = 0; i < m->cap; i++) {
		const unsigned char *e = prof_map_entry(m, i);
		if (!e[0] || !key(e, &w))
			continue;
		prof_val_t *sum = prof_map_get(&r->env, sums, &w, &created);
		if (!sum)
			return ENOMEM;
		val_add(sum, prof_map_word(e + 8 + m->ksize), prof_map_word(e + 16 + m->ksize));
	}
	return EOK;
}

/* The value of key in m, zero when absent (m may be empty). */
static prof_val_t wall_value(const prof_map_t *m, const prof_wkey_t *key)
{
	const unsigned char *e = m->cap ? prof_map_find(m, key) : NULL;
	prof_val_t v = { 0, 0 };

	if (e && e[0])
		memcpy(&v, e + 8 + m->ksize, sizeof(v));
	return v;
}

/* What the waits of key w give up: the served samples and time, at most the waits'. */
static prof_val_t wall_take(const prof_report_t *r, const prof_map_t *sums, const prof_wkey_t *w)
{
	prof_val_t sum = wall_value(sums, w), pool = wall_value(&r->served, w);

	return (prof_val_t){ pool.n < sum.n ? pool.n : sum.n, pool.t < sum.t ? pool.t : sum.t };
}

/* part * n / sum without overflow; 0 when sum is. */
static uint64_t wall_share(uint64_t part, uint64_t n, uint64_t sum)
{
	return sum ? (uint64_t)((unsigned __int128)part * n / sum) : 0;
}

/*
 * Take from each IPC wait of m its share of what its key gives up (in
 * proportion to its weight); with counts, also from its task's total and
 * the off-CPU weight. Returns what was taken.
 */
static uint64_t wall_apply(prof_report_t *r, prof_map_t *m,
			   bool (*key)(const unsigned char *, prof_wkey_t *),
			   const prof_map_t *sums, bool counts)
{
	prof_wkey_t w;
	uint64_t taken = 0;

	for (size_t i = 0; i < m->cap; i++) {
		unsigned char *e = prof_map_entry(m, i);
		prof_val_t v;
		if (!e[0] || !key(e, &w))
			continue;
		memcpy(&v, e + 8 + m->ksize, sizeof(v));
		prof_val_t sum = wall_value(sums, &w), take = wall_take(r, sums, &w);
		prof_val_t sub = { wall_share(take.n, v.n, sum.n), wall_share(take.t, v.t, sum.t) };
		v = (prof_val_t){ v.n - sub.n, v.t - sub.t };
		memcpy(e + 8 + m->ksize, &v, sizeof(v));
		taken += sub.n;
		if (!counts)
			continue;
		r->tasks[w.waiter].samples -= sub.n;
		r->tasks[w.waiter].time -= sub.t;
		r->c.offcpu_wcycles -= sub.t;
	}
	return taken;
}

/* Empty the served pools the waits took from (their rest stays for later waits). */
static void wall_drain(prof_report_t *r, const prof_map_t *sums)
{
	for (size_t i = 0; i < r->served.cap; i++) {
		unsigned char *e = prof_map_entry(&r->served, i);
		if (!e[0])
			continue;
		prof_val_t take = wall_take(r, sums, (const prof_wkey_t *)(e + 8)), v;
		memcpy(&v, e + 8 + r->served.ksize, sizeof(v));
		v = (prof_val_t){ v.n - take.n, v.t - take.t };
		memcpy(e + 8 + r->served.ksize, &v, sizeof(v));
	}
}

/*
 * A wall-clock report that gives each caller the work done for it (a
 * task session, or by origin) counts a moment once: while a thread waits
 * for a call, what the server did for it (its samples, and its own
 * waits while serving: for the next server of a chain, which are settled
 * the same way, or for the CPU) stands for that time, so it is taken out
 * of the wait's weight (by origin, waiter and server, in proportion over
 * the wait's stacks); what remains is time nobody worked for the call.
 * Idempotent; later data is settled later.
 */
static errno_t wall_settle(prof_report_t *r, bool by_origin)
{
	prof_map_t sums;

	if (!r->wall || !r->served.count || (!by_origin && !r->header.target))
		return EOK;
	prof_map_init(&sums, sizeof(prof_wkey_t), sizeof(prof_val_t));
	errno_t err = wall_sums(r, &r->stacks, wall_stack_key, &sums);
	if (err == EOK) {
		uint64_t taken = wall_apply(r, &r->stacks, wall_stack_key, &sums, true);
		r->c.offcpu_weight -= taken;
		r->c.offcpu_served += taken;
		if (r->xon)
			wall_apply(r, &r->xstacks, wall_xkey, &sums, false);
		wall_drain(r, &sums);
	}
	prof_map_free(&r->env, &sums);
	return err;
}

errno_t prof_report_print(prof_report_t *r, const prof_report_opts_t *o)
{
	prof_print_t pp;

	memset(&pp, 0, sizeof(pp));
	pp.r = r;
	pp.o = o;
	errno_t err = wall_settle(r, o->by_origin);
	if (err != EOK)
		return err;
	rep_totals(r, &r->c);
	err = pr_body(&pp);
	pr_free(&pp);
	return err;
}

/* ---------------------------------------------------------------- export */

errno_t prof_report_setup(prof_report_t *r, const prof_filter_t *f, bool stacks)
{
	if (r->c.have_header)
		return EINVAL;
	r->filter = *f;
	if (f->task_name) {
		fmt_snprintf(r->filter_name, sizeof(r->filter_name), "%s", f->task_name);
		r->filter.task_name = r->filter_name;
	}
	r->xon = stacks;
	return EOK;
}

void prof_report_set_origin(prof_report_t *r, bool by_origin, uint64_t origin)
{
	r->x_by_origin = by_origin;
	r->x_origin = origin;
}

void prof_report_set_wall(prof_report_t *r, bool wall)
{
	r->wall = wall;
}

/* The leaf fix of lib/profleaf.h on a whole-stack key (copied in k). */
static void px_leaf_fix(prof_print_t *pp, prof_xkey_t *k, uint32_t xdepth)
{
	bool kernel = k->nkern > 0;
	uint64_t caller = pr_leaf_caller(pp, kernel, k->bin, k->frame[0], k->top);

	if (!caller)
		return;
	memmove(&k->frame[2], &k->frame[1], (size_t)(xdepth - 1) * 8);
	k->frame[1] = caller;
	if (k->nframes < 1 + xdepth)
		k->nframes++;
	if (kernel && k->nkern < k->nframes)
		k->nkern++;
}

/*
 * The origin's stack of a serving sample (its PROF_REC_CALL, when the
 * stream has it) into fr[0..*n), root first: the origin's user frames
 * down to the call.
 */
static errno_t px_origin_frames(prof_print_t *pp, const prof_xkey_t *k, prof_frame_t *fr,
				size_t *n)
{
	prof_report_t *r = pp->r;

	*n = 0;
	if (!k->site || k->site > r->ncstk)
		return EOK;
	const prof_callstk_t *c = &r->cstk[k->site - 1];
	uint32_t bin = r->tasks[c->slot].bin;
	for (uint32_t j = 0; j < c->n; j++) {
		uint64_t a = r->cwords[c->off + j];
		uint32_t f = pr_func(pp, bin, a, j > 0, false);
		if (f == PROF_NONE)
			return ENOMEM;
		fr[c->n - 1 - j] = (prof_frame_t){ .func = f,
			.bin = bin == PROF_NONE ? PROF_BIN_NONE : bin,
			.path = bin == PROF_NONE ? NULL : r->bins[bin].path,
			.addr = j > 0 && a ? a - 1 : a };
	}
	*n = c->n;
	return EOK;
}

/* Frame o: function f at addr, in binary bin (PROF_NONE: none). */
static void px_frame(const prof_report_t *r, prof_frame_t *o, uint32_t f, uint32_t bin,
		     uint64_t addr, bool kernel)
{
	o->func = f;
	o->bin = bin == PROF_NONE ? PROF_BIN_NONE : bin;
	o->path = bin == PROF_NONE ? NULL : r->bins[bin].path;
	o->addr = addr;
	o->kernel = kernel;
}

/* An off-CPU stack into frames: its chain (root first), then "[off-cpu: ...]". */
static errno_t px_resolve_off(prof_print_t *pp, const prof_xkey_t *k, prof_frame_t *fr,
			      size_t *n)
{
	uint32_t f = pr_off_func(pp, k->off, k->wtask, k->wmethod);

	if (f == PROF_NONE)
		return ENOMEM;
	px_frame(pp->r, &fr[k->nframes - 1], f, PROF_NONE, 0, false);
	for (size_t j = 1; j < k->nframes; j++) {
		bool kernel = j <= k->nkern;
		uint32_t bin = kernel ? pp->kbin : k->bin;
		if ((f = pr_func(pp, bin, k->frame[j], true, kernel)) == PROF_NONE)
			return ENOMEM;
		px_frame(pp->r, &fr[k->nframes - 1 - j], f, bin,
			 k->frame[j] ? k->frame[j] - 1 : 0, kernel);
	}
	*n = k->nframes;
	return EOK;
}

/* Resolve the stack in xstacks slot i into frames (root first). */
static errno_t px_resolve(prof_print_t *pp, size_t i, prof_frame_t *fr, size_t *n)
{
	prof_report_t *r = pp->r;
	uint64_t kbuf[PROF_XKEY_MAX / 8];
	prof_xkey_t *k = (prof_xkey_t *)kbuf;

	memcpy(k, prof_map_entry(&r->xstacks, i) + 8, r->xstacks.ksize);
	bool ipc = k->origin != PROF_NONE;
	bool redacted = ipc && !k->off && k->frame[0] == 0 && k->nframes == 1;
	size_t at = 0;
	if (ipc && r->x_by_origin) {
		errno_t err = px_origin_frames(pp, k, fr, &at);
		if (err != EOK)
			return err;
	}
	if (redacted || (ipc && r->x_by_origin)) {
		uint32_t f = pr_ipc_func(pp, k->slot, k->method);
		if (f == PROF_NONE)
			return ENOMEM;
		fr[at++] = (prof_frame_t){ .func = f, .bin = PROF_BIN_NONE };
	}
	*n = at;
	if (k->off) {
		errno_t err = px_resolve_off(pp, k, fr + at, n);
		*n += at;
		return err;
	}
	if (redacted)
		return EOK;
	px_leaf_fix(pp, k, r->xdepth);
	*n = at + k->nframes;
	for (size_t j = 0; j < k->nframes; j++) {
		bool kernel = j < k->nkern;
		uint32_t bin = kernel ? pp->kbin : k->bin;
		uint32_t f = pr_func(pp, bin, k->frame[j], j > 0, kernel);
		if (f == PROF_NONE)
			return ENOMEM;
		prof_frame_t *o = &fr[at + k->nframes - 1 - j];
		o->func = f;
		o->bin = bin == PROF_NONE ? PROF_BIN_NONE : bin;
		o->path = bin == PROF_NONE ? NULL : r->bins[bin].path;
		o->addr = j > 0 && k->frame[j] ? k->frame[j] - 1 : k->frame[j];
		o->kernel = kernel;
	}
	return EOK;
}

/* Names and starts of the frames (once every function exists). */
static void px_names(const prof_print_t *pp, prof_frame_t *fr, size_t n)
{
	for (size_t j = 0; j < n; j++) {
		const prof_func_t *f = &pp->funcs[fr[j].func];
		fr[j].name = pr_fname(pp, fr[j].func);
		fr[j].func_addr = f->addr;
		fr[j].known = f->name != NULL;
	}
}

static uint64_t px_count(const prof_report_t *r, size_t i)
{
	return prof_map_word(prof_map_entry(&r->xstacks, i) + 8 + r->xstacks.ksize);
}

/* The time of the stack in xstacks slot i, TSC cycles. */
static uint64_t px_time(const prof_report_t *r, size_t i)
{
	return prof_map_word(prof_map_entry(&r->xstacks, i) + 16 + r->xstacks.ksize);
}

/* Walk order: task id, then most time first, then map slot. */
static int px_cmp(const void *a, const void *b, void *ctx)
{
	const prof_report_t *r = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	const prof_xkey_t *kx = (const void *)(prof_map_entry(&r->xstacks, x) + 8);
	const prof_xkey_t *ky = (const void *)(prof_map_entry(&r->xstacks, y) + 8);
	uint64_t tx = r->tasks[kx->slot].id, ty = r->tasks[ky->slot].id;
	uint64_t cx = px_time(r, x), cy = px_time(r, y);

	if (tx != ty)
		return tx < ty ? -1 : 1;
	if (cx != cy)
		return cx > cy ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* The task a stack is walked as: its origin's when by origin, else its own. */
static uint32_t px_slot(const prof_report_t *r, const prof_xkey_t *k)
{
	return r->x_by_origin && k->origin != PROF_NONE ? k->origin : k->slot;
}

/* Is the stack in map slot i left out by prof_report_set_origin's origin? */
static bool px_skip(const prof_report_t *r, size_t i)
{
	const prof_xkey_t *k = (const void *)(prof_map_entry(&r->xstacks, i) + 8);

	return (r->x_origin && r->tasks[px_slot(r, k)].id != r->x_origin) || !px_count(r, i);
}

/* The map slots walked, sorted (from env.alloc), *n of them; NULL without memory. */
static size_t *px_order(prof_report_t *r, prof_walk_info_t *info, size_t *n)
{
	size_t *ord = prof_alloc(&r->env, r->xstacks.count * sizeof(size_t));

	*n = 0;
	if (!ord)
		return NULL;
	for (size_t i = 0; i < r->xstacks.cap; i++) {
		if (prof_map_entry(&r->xstacks, i)[0] && !px_skip(r, i)) {
			ord[(*n)++] = i;
			info->total += px_count(r, i);
			info->total_ns += rep_ns(r, px_time(r, i));
		}
	}
	prof_sort(ord, *n, sizeof(size_t), px_cmp, r);
	return ord;
}

/* Call fn on each stack in order (every function already resolved). */
static errno_t px_calls(prof_print_t *pp, const size_t *ord, size_t n, prof_frame_t *fr,
			prof_walk_info_t *info, prof_walk_fn_t fn, void *ctx)
{
	prof_report_t *r = pp->r;
	errno_t err = EOK;

	info->nfuncs = (uint32_t)pp->nfuncs;
	info->nbins = (uint32_t)r->nbins;
	for (size_t i = 0; i < n && err == EOK; i++) {
		const prof_xkey_t *k = (const void *)(prof_map_entry(&r->xstacks, ord[i]) + 8);
		uint32_t slot = px_slot(r, k);
		bool ipc = k->origin != PROF_NONE;
		prof_xstack_t s = { r->tasks[slot].id, k->thread,
				    k->mode == PROF_MODE_IDLE ? "[idle]" : rep_task_name(r, slot),
				    k->cpu, k->mode, px_count(r, ord[i]),
				    rep_ns(r, px_time(r, ord[i])), 0, fr,
				    ipc ? r->tasks[k->slot].id : 0,
				    ipc ? r->tasks[k->origin].id : 0, ipc ? k->method : 0 };
		err = px_resolve(pp, ord[i], fr, &s.nframes);
		px_names(pp, fr, s.nframes);
		if (err == EOK)
			err = fn(ctx, info, &s);
	}
	return err;
}

errno_t prof_report_walk(prof_report_t *r, const char *kernel_path, prof_walk_fn_t fn,
			 void *ctx)
{
	prof_report_opts_t o = { PROF_STYLE_SYSTEM, 0, false, kernel_path, false, 0 };
	prof_walk_info_t info;
	prof_print_t pp;
	size_t n;

	if (!r->xon)
		return EINVAL;
	if (wall_settle(r, r->x_by_origin) != EOK)
		return ENOMEM;
	memset(&pp, 0, sizeof(pp));
	memset(&info, 0, sizeof(info));
	pp.r = r;
	pp.o = &o;
	rep_totals(r, &info.c);
	info.kernel_path = kernel_path ? kernel_path : "/boot/kernel";
	pp.kbin = rep_bin(r, info.kernel_path, strlen(info.kernel_path));
	prof_map_init(&pp.fmap, sizeof(prof_fkey_t), sizeof(uint32_t));
	prof_frame_t *fr = prof_alloc(&r->env, (3 + r->xdepth + PROF_IPC_STACK_MAX) *
				     sizeof(prof_frame_t));
	size_t nord = 0;
	size_t *ord = pp.kbin == PROF_NONE || !fr ? NULL : px_order(r, &info, &nord);
	errno_t err = ord ? EOK : ENOMEM;
	for (size_t i = 0; i < nord && err == EOK; i++)
		err = px_resolve(&pp, ord[i], fr, &n);
	if (err == EOK)
		err = px_calls(&pp, ord, nord, fr, &info, fn, ctx);
	prof_map_free(&r->env, &pp.fmap);
	for (size_t i = 0; i < pp.nnames; i++)
		prof_release(&r->env, pp.names[i]);
	prof_release(&r->env, pp.names);
	prof_release(&r->env, pp.funcs);
	prof_release(&r->env, fr);
	prof_release(&r->env, ord);
	return err;
}

/* ---------------------------------------------------------------- rows out */

static void pr_free(prof_print_t *pp)
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

/* The public form of a row (strings point into r and pp). */
static void pr_row_info(const prof_print_t *pp, const prof_row_t *row,
			prof_row_info_t *info)
{
	const prof_report_t *r = pp->r;
	const prof_func_t *f = &pp->funcs[row->func];
	bool idle = row->slot == PROF_SLOT_IDLE;

	info->task_id = idle ? PROF_ROW_IDLE : r->tasks[row->slot].id;
	info->task = idle ? "[idle]" : rep_task_name(r, row->slot);
	info->binary = f->bin == PROF_NONE ? "" : r->bins[f->bin].path;
	info->hash = f->bin == PROF_NONE || f->kernel ? 0 : r->bins[f->bin].hash;
	info->function = pr_fname(pp, row->func);
	info->kernel = f->kernel;
	info->count = row->count;
	info->ns = rep_ns(r, row->time);
}

errno_t prof_report_rows(prof_report_t *r, const prof_report_opts_t *o,
			 errno_t (*fn)(void *ctx, const prof_row_info_t *row), void *ctx)
{
	prof_report_opts_t so = *o;
	prof_print_t pp;
	prof_row_info_t info;

	so.style = PROF_STYLE_SYSTEM;
	memset(&pp, 0, sizeof(pp));
	pp.r = r;
	pp.o = &so;
	rep_totals(r, &r->c);
	errno_t err = pr_prepare(&pp);
	for (size_t i = 0; i < pp.nrows && err == EOK; i++) {
		pr_row_info(&pp, &pp.rows[i], &info);
		err = fn(ctx, &info);
	}
	pr_free(&pp);
	return err;
}
