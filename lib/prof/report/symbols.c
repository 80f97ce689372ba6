/*
 * The profiler report's names: numbers as shares and nanoseconds, the
 * functions of stack frames (the binaries' symbol tables, lib/profbin.h)
 * and the IPC method names of the system's protocols.
 */
#include "rep.h"

/* ---------------------------------------------------------------- output */

/* n/total in hundredths of a percent, rounded. */
uint64_t rep_centi(uint64_t n, uint64_t total)
{
	return total ? (n * 10000 + total / 2) / total : 0;
}

/* Print n/total as "ddd.dd%". */
void rep_pct(prof_report_t *r, uint64_t n, uint64_t total)
{
	uint64_t c = rep_centi(n, total);

	rep_printf(r, "%3llu.%02u%%", (unsigned long long)(c / 100),
		   (unsigned)(c % 100));
}

/* TSC cycles as ns at the stream's tsc_hz (no overflow: split at a second). */
uint64_t rep_ns(const prof_report_t *r, uint64_t cycles)
{
	uint64_t hz = r->header.tsc_hz;

	if (!hz)
		return 0;
	return cycles / hz * 1000000000ull + cycles % hz * 1000000000ull / hz;
}

/* " SAMPLES NS" columns of a row: its samples, then its time in ns. */
void rep_counts(prof_report_t *r, uint64_t n, uint64_t cycles)
{
	rep_printf(r, " %8llu %12llu", (unsigned long long)n,
		   (unsigned long long)rep_ns(r, cycles));
}

/* Function f's name, or its address in hex when it has none. */
const char *pr_fname(const prof_print_t *pp, uint32_t f)
{
	return pp->funcs[f].name ? pp->funcs[f].name : pp->funcs[f].hex;
}

/* Print function f's name, " [k]" after a kernel function. */
void rep_func_name(prof_print_t *pp, uint32_t f)
{
	rep_printf(pp->r, "%s%s", pr_fname(pp, f), pp->funcs[f].kernel ? " [k]" : "");
}

/*
 * "ID NAME" of a task slot (or "[idle]") into buf: the name of its TASK
 * record, else of its program, else "kernel" for task 0 and "?".
 */
void rep_task_label(prof_report_t *r, uint32_t slot, char *buf, size_t size)
{
	if (slot == PROF_SLOT_IDLE) {
		fmt_snprintf(buf, size, "[idle]");
		return;
	}
	fmt_snprintf(buf, size, "%llu %s", (unsigned long long)r->tasks[slot].id,
		     rep_task_name(r, slot));
}

/* ---------------------------------------------------------------- symbolizing */

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
uint32_t pr_func(prof_print_t *pp, uint32_t bin, uint64_t addr, bool ret,
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
uint32_t pr_ipc_func(prof_print_t *pp, uint32_t server, uint32_t method)
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
uint32_t pr_off_func(prof_print_t *pp, uint32_t off, uint32_t wtask, uint32_t wmethod)
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
uint64_t pr_leaf_caller(prof_print_t *pp, bool kernel, uint32_t ubin, uint64_t pc,
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
errno_t pr_stack_funcs(prof_print_t *pp, size_t i)
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

/* The key of the stack in map slot i (in use); its value in *v. */
const prof_stack_t *pr_stack(const prof_print_t *pp, size_t i, prof_val_t *v)
{
	const unsigned char *e = prof_map_entry(&pp->r->stacks, i);

	memcpy(v, e + 8 + sizeof(prof_stack_t), sizeof(*v));
	return (const prof_stack_t *)(e + 8);
}

/* The row slot of a stack: its task, [idle], or 0 for the task style. */
uint32_t pr_slot(const prof_print_t *pp, const prof_stack_t *s)
{
	if (pp->o->style == PROF_STYLE_TASK)
		return 0;
	return s->mode == PROF_MODE_IDLE ? PROF_SLOT_IDLE : s->slot;
}

/* Sum the stacks into rows (slot, function) in pp->rows. */
errno_t pr_rows(prof_print_t *pp)
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
int pr_row_cmp(const void *a, const void *b, void *ctx)
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
