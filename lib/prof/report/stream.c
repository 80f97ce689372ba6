/*
 * The profiler report's stream reader (lib/profreport.h): records in any
 * pieces (a pending record is kept), checked and aggregated at once into
 * the maps of stacks, whole stacks and call sites; off-CPU records with
 * their chains and IPC waits.
 */
#include "rep.h"

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

	memset(&h, 0, sizeof(h));
	if (rec_get(&h, len < sizeof(h) ? len : sizeof(h), rec, len) != EOK || len < PROF_REC_HEADER_V5_SIZE ||
	    h.magic != PROF_MAGIC)
		return rec_bad(r, "no profiler stream header (magic)");
	if (h.version >= 6 && len < sizeof(h))
		return rec_bad(r, "a v%u header of %zu bytes (%zu expected)", h.version, len,
			       sizeof(h));
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
	prof_source_name_copy(r->c.source_name, &h);
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
	const unsigned char *v = stack ? prof_map_lookup(&r->calls, &stack) : NULL;

	return v ? (uint32_t)prof_map_word(v) : PROF_NONE;
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

/* Keep a sample (v5 layout, len bytes) with its weight set (nominal for older ones). */
static errno_t rec_log_sample(prof_report_t *r, const unsigned char *rec, size_t len)
{
	size_t at;

	if (!r->keep || rep_log(r, rec, len, &at) != EOK)
		return r->keep ? ENOMEM : EOK;
	memcpy(r->log.p + at + offsetof(prof_rec_sample_t, weight), &r->cur_w, 8);
	return EOK;
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
	if (rec_log_sample(r, rec, len) != EOK)
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
	if (rep_log(r, rec, len, NULL) != EOK)
		return ENOMEM;
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

/*
 * PROF_REC_TRACE (v7): counted and kept (prof_report_keep_records); an
 * unknown kind is counted apart and skipped. EOK, EINVAL, ENOMEM.
 */
static errno_t rec_trace(prof_report_t *r, const void *rec, size_t len)
{
	prof_rec_trace_t t;

	if (rec_get(&t, sizeof(t), rec, len) != EOK)
		return rec_bad(r, "a TRACE record of %zu bytes (%zu expected)", len, sizeof(t));
	if (t.kind == 0 || t.kind >= PROF_TR_COUNT) {
		r->c.trace_unknown++;
		return EOK;
	}
	r->c.trace++;
	return rep_log(r, rec, len, NULL);
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
	case PROF_REC_TRACE:
		return rec_trace(r, rec, len);
	}
	return EOK;
}

/* A HEADER, TASK or LOAD record read with err: kept when EOK. */
static errno_t rec_logged(prof_report_t *r, errno_t err, const unsigned char *rec, size_t len)
{
	return err == EOK ? rep_log(r, rec, len, NULL) : err;
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
		return rec_logged(r, rec_header(r, rec, len), rec, len);
	case PROF_REC_SAMPLE:
		return rec_sample(r, rec, len);
	case PROF_REC_TASK:
		return rec_logged(r, rec_task(r, rec, len), rec, len);
	case PROF_REC_LOAD:
		return rec_logged(r, rec_load(r, rec, len), rec, len);
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
				  h.size < PROF_REC_HEADER_V5_SIZE))
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
