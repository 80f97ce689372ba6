/*
 * SYS_CPROF: the kernel side of the call profiler's processes
 * (abi/cprof.h, kernel/cprof.h).
 *
 * A process registers its control block once (the thesis's "announce").
 * Its threads ask for clocks: entries of a page the kernel allocates and
 * maps read-only into the process, and writes at every switch-in of the
 * thread (cprof_switch_in, from acct_switch: interrupts off, no locks).
 * GET plans first (every table's and part's header, read from the
 * processes' memory, with each part's fill level snapshot) so that it
 * knows the exact size, then copies; slots added meanwhile are left out.
 * RESET bumps each table's generation; its writers clear at their next hook.
 * A process that exits leaves its table behind (serialized, up to
 * CPROF_KEEP_BYTES in all) for GETs until the next RESET.
 *
 * Lock order: cprof_lock → task table lock (task_foreach) → a task's
 * lock. cprof_lock (interrupts off) guards registrations and clocks; it
 * is never held while user memory is read or written.
 */
#include <kernel/binary.h>
#include <kernel/cprof.h>
#include <kernel/sched.h>
#include <kernel/smp.h>
#include <kernel/spinlock.h>
#include <kernel/sysimpl.h>
#include <kernel/task.h>
#include <kernel/thread.h>
#include <kernel/time.h>
#include <kernel/vm.h>
#include <kernel/vm_space.h>
#include <lib/string.h>

#define CPROF_GET_TABLES 64        /* registered processes GET reports */
#define CPROF_GET_PARTS 1024       /* parts in all */

extern char __text_start[], __text_end[];

/* A registered process. */
typedef struct cprof_task {
	uintptr_t ctl;             /* its cprof_ctl_t */
	uint32_t gen;              /* resets asked */
	uint32_t nclocks;          /* clocks handed out */
	paddr_t clock_pa;          /* the clock page, 0 until the first THREAD */
	uintptr_t clock_va;        /* where it is mapped in the process */
	bool clock_making;         /* a thread is making the clock page */
} cprof_task_t;

typedef struct cprof_plan_part {
	cprof_part_hdr_t h;        /* used: the snapshot copied */
	uintptr_t uaddr;           /* a process's part, or 0 */
	const cprof_part_t *kpart; /* a kernel part, or NULL */
} cprof_plan_part_t;

typedef struct cprof_plan_table {
	task_t *task;              /* referenced; NULL for the kernel */
	vm_space_t *space;         /* referenced; NULL for the kernel */
	cprof_table_hdr_t h;
	uint32_t first;            /* its parts in plan->parts */
} cprof_plan_table_t;

typedef struct cprof_plan {
	cprof_plan_table_t table[CPROF_GET_TABLES + 1];
	cprof_plan_part_t part[CPROF_GET_PARTS];
	uint32_t ntables, nparts;
	uint64_t bytes;
} cprof_plan_t;

static spinlock_t cprof_lock = SPINLOCK_INIT("cprof");

/* ------------------------------------------------------------ register */

static int64_t cprof_register(uintptr_t uctl)
{
	cprof_ctl_t ctl;
	task_t *me = task_current();

	if (copy_from_user(&ctl, (void *)uctl, sizeof(ctl)) != EOK)
		return -EFAULT;
	if (ctl.magic != CPROF_CTL_MAGIC || ctl.version != CPROF_VERSION)
		return -EINVAL;
	cprof_task_t *ct = kzalloc(sizeof(*ct));
	if (!ct)
		return -ENOMEM;
	ct->ctl = uctl;
	uint64_t f = spin_lock_irqsave(&cprof_lock);
	bool busy = me->cprof != NULL;
	if (!busy)
		me->cprof = ct;
	spin_unlock_irqrestore(&cprof_lock, f);
	if (busy)
		kfree(ct);
	return busy ? -EBUSY : 0;
}

/* Map a fresh zeroed frame read-only into t's space: EOK with *pa, *va. */
static errno_t cprof_map_page(task_t *t, paddr_t *pa, uintptr_t *va)
{
	if (frame_alloc(pa) != EOK)
		return ENOMEM;
	memset(phys_to_virt(*pa), 0, PAGE_SIZE);
	errno_t rc = vm_space_map_readonly_ram(t->space, *pa, PAGE_SIZE, va);
	if (rc != EOK)
		frame_free(*pa, 1);
	return rc;
}

/*
 * Become the thread that makes ct's clock page: true, or false once
 * another thread of the task made it (the others yield meanwhile).
 */
static bool cprof_clock_claim(cprof_task_t *ct)
{
	for (;;) {
		if (__atomic_load_n(&ct->clock_pa, __ATOMIC_ACQUIRE))
			return false;
		if (!__atomic_test_and_set(&ct->clock_making, __ATOMIC_ACQUIRE))
			break;
		sched_yield();
	}
	if (!__atomic_load_n(&ct->clock_pa, __ATOMIC_ACQUIRE))
		return true;
	__atomic_clear(&ct->clock_making, __ATOMIC_RELEASE);
	return false;
}

/*
 * The calling task's clock page, made on first use by one thread only:
 * no copy is ever mapped and then taken back, which SYS_UNMAP (the task
 * may unmap any region) could race with. EOK or an error.
 */
static errno_t cprof_clock_page(task_t *me, cprof_task_t *ct)
{
	paddr_t pa;
	uintptr_t va;

	if (!cprof_clock_claim(ct))
		return EOK;
	errno_t rc = cprof_map_page(me, &pa, &va);
	if (rc == EOK) {
		ct->clock_va = va;
		__atomic_store_n(&ct->clock_pa, pa, __ATOMIC_RELEASE);
	}
	__atomic_clear(&ct->clock_making, __ATOMIC_RELEASE);
	if (rc != EOK)
		return rc;
	uint64_t at = va;
	return vm_space_write(me->space, ct->ctl + offsetof(cprof_ctl_t, clock), &at, sizeof(at));
}

/* CPROF_OP_THREAD: the calling thread's clock index. */
static int64_t cprof_thread_clock(void)
{
	task_t *me = task_current();
	thread_t *t = thread_current();
	cprof_task_t *ct = me->cprof;

	if (!ct)
		return -ENOENT;
	if (t->cprof_clock)
		return t->cprof_clock - (cprof_clock_t *)phys_to_virt(ct->clock_pa);
	errno_t rc = cprof_clock_page(me, ct);
	if (rc != EOK)
		return -(int64_t)rc;
	uint64_t f = spin_lock_irqsave(&cprof_lock);
	int64_t i = ct->nclocks < CPROF_CLOCKS ? (int64_t)ct->nclocks++ : -(int64_t)ENOSPC;
	spin_unlock_irqrestore(&cprof_lock, f);
	if (i < 0)
		return i;
	cprof_clock_t *c = (cprof_clock_t *)phys_to_virt(ct->clock_pa) + i;
	f = irq_save();                 /* no switch-in may write it half-made */
	c->thread = (uint32_t)t->id;
	c->off = t->acct.off_cycles;
	t->cprof_clock = c;
	irq_restore(f);
	return i;
}

void cprof_switch_in(thread_t *next)
{
	cprof_clock_t *c = next->cprof_clock;

	if (!c)
		return;
	c->seq++;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	c->off = next->acct.off_cycles;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	c->seq++;
}


/* ------------------------------------------------------------ plan */

/* Add a part to the plan (its used count clamped to what it can hold). */
static errno_t cprof_plan_part(cprof_plan_t *p, const cprof_part_hdr_t *h,
			       uintptr_t uaddr, const cprof_part_t *kpart)
{
	if (p->nparts == CPROF_GET_PARTS)
		return ELIMIT;
	cprof_plan_part_t *pp = &p->part[p->nparts++];
	pp->h = *h;
	pp->h.used = MIN(MIN(h->used, h->nslots), CPROF_INDEX_MASK + 1);
	pp->uaddr = uaddr;
	pp->kpart = kpart;
	p->bytes += sizeof(cprof_part_hdr_t) + (uint64_t)pp->h.used * sizeof(cprof_slot_t);
	return EOK;
}

static cprof_plan_table_t *cprof_plan_table(cprof_plan_t *p)
{
	cprof_plan_table_t *pt = &p->table[p->ntables++];

	memset(pt, 0, sizeof(*pt));
	pt->first = p->nparts;
	p->bytes += sizeof(cprof_table_hdr_t);
	return pt;
}

/* The kernel's table (one part per CPU), if the kernel is instrumented. */
static void cprof_plan_kernel(cprof_plan_t *p)
{
	if (!cprof_kernel_on())
		return;
	cprof_plan_table_t *pt = cprof_plan_table(p);
	uint32_t gen = cprof_kernel_gen();
	strlcpy(pt->h.name, "kernel", sizeof(pt->h.name));
	strlcpy(pt->h.path, "/boot/kernel", sizeof(pt->h.path));
	pt->h.text_start = (uint64_t)__text_start;
	pt->h.text_end = (uint64_t)__text_end;
	pt->h.reset_gen = gen;
	for (uint32_t i = 0; i < MAX_CPUS; i++) {
		const cprof_part_t *kp = cprof_kernel_part(i);
		if (!kp)
			continue;
		cprof_part_hdr_t h = kp->h;
		if (h.gen != gen)
			h.used = 0;          /* a reset it has not done yet */
		if (cprof_plan_part(p, &h, 0, kp) == EOK)
			pt->h.nparts++;
	}
}

/* Read a process's part headers into the plan. */
static void cprof_plan_parts(cprof_plan_t *p, cprof_plan_table_t *pt, const cprof_ctl_t *ctl)
{
	for (uint32_t i = 0; i < MIN(ctl->nparts, CPROF_PARTS_MAX); i++) {
		cprof_part_hdr_t h;
		if (vm_space_read(pt->space, ctl->parts[i], &h, sizeof(h)) != EOK ||
		    h.magic != CPROF_PART_MAGIC)
			continue;
		if (h.gen != ctl->reset_gen)
			h.used = 0;
		if (cprof_plan_part(p, &h, ctl->parts[i] + offsetof(cprof_part_t, slot), NULL) == EOK)
			pt->h.nparts++;
	}
}

/*
 * Add t's table (control block at uctl in space s, reset generation gen)
 * to the plan. The plan keeps no references; false if the block cannot
 * be read.
 */
static bool cprof_plan_fill(cprof_plan_t *p, task_t *t, vm_space_t *s, uintptr_t uctl,
			    uint32_t gen)
{
	cprof_ctl_t ctl;

	if (vm_space_read(s, uctl, &ctl, sizeof(ctl)) != EOK || p->ntables > CPROF_GET_TABLES)
		return false;
	cprof_plan_table_t *pt = cprof_plan_table(p);
	pt->space = s;
	pt->h.task = t->id;
	pt->h.reset_gen = gen;
	strlcpy(pt->h.name, t->name, sizeof(pt->h.name));
	if (t->binary) {
		strlcpy(pt->h.path, t->binary->path, sizeof(pt->h.path));
		pt->h.text_start = t->binary->plan.text_start;
		pt->h.text_end = t->binary->plan.text_end;
		pt->h.hash = t->binary->hash;
	}
	cprof_plan_parts(p, pt, &ctl);
	return true;
}

/* A registered process's table, by id; the plan holds references. */
static void cprof_plan_task(cprof_plan_t *p, task_id_t id)
{
	task_t *t = task_get(id);

	if (!t)
		return;
	uint64_t f = spin_lock_irqsave(&cprof_lock);
	uintptr_t uctl = t->cprof ? t->cprof->ctl : 0;
	uint32_t gen = t->cprof ? t->cprof->gen : 0;
	spin_unlock_irqrestore(&cprof_lock, f);
	vm_space_t *s = uctl ? task_space_get(t) : NULL;
	if (s && cprof_plan_fill(p, t, s, uctl, gen)) {
		p->table[p->ntables - 1].task = t;
		return;
	}
	if (s)
		vm_space_put(s);
	task_unref(t);
}

typedef struct cprof_ids {
	task_id_t id[CPROF_GET_TABLES];
	uint32_t n;
} cprof_ids_t;

static void cprof_collect(task_t *t, void *ctx)
{
	cprof_ids_t *ids = ctx;

	if (t->cprof && ids->n < CPROF_GET_TABLES)
		ids->id[ids->n++] = t->id;
}

/* Registered tasks' ids (at most CPROF_GET_TABLES). */
static void cprof_registered(cprof_ids_t *ids)
{
	uint64_t f = spin_lock_irqsave(&cprof_lock);
	ids->n = 0;
	task_foreach(cprof_collect, ids);
	spin_unlock_irqrestore(&cprof_lock, f);
}

static void cprof_plan_make(cprof_plan_t *p)
{
	cprof_ids_t ids;

	p->ntables = p->nparts = 0;
	p->bytes = sizeof(cprof_file_hdr_t);
	cprof_plan_kernel(p);
	cprof_registered(&ids);
	for (uint32_t i = 0; i < ids.n; i++)
		cprof_plan_task(p, ids.id[i]);
}

static void cprof_plan_drop(cprof_plan_t *p)
{
	for (uint32_t i = 0; i < p->ntables; i++) {
		if (p->table[i].space)
			vm_space_put(p->table[i].space);
		if (p->table[i].task)
			task_unref(p->table[i].task);
	}
}

/* Where a file is written: the caller's memory, or a kernel buffer. */
typedef struct cprof_sink {
	bool user;
	uintptr_t at;
} cprof_sink_t;

static errno_t cprof_emit(cprof_sink_t *k, const void *src, size_t n)
{
	if (k->user && copy_to_user((void *)k->at, src, n) != EOK)
		return EFAULT;
	if (!k->user)
		memcpy((void *)k->at, src, n);
	k->at += n;
	return EOK;
}

/* Emit one planned part: its header, then its slots. */
static errno_t cprof_emit_part(cprof_sink_t *k, const cprof_plan_table_t *pt,
			       const cprof_plan_part_t *pp)
{
	size_t n = (size_t)pp->h.used * sizeof(cprof_slot_t);
	errno_t rc = cprof_emit(k, &pp->h, sizeof(pp->h));

	if (rc != EOK || pp->kpart)
		return rc == EOK ? cprof_emit(k, pp->kpart->slot, n) : rc;
	if (k->user)           /* a process that unmapped its part: EFAULT */
		rc = n && vm_space_copy_to_current(k->at, pt->space, pp->uaddr, n) != EOK ? EFAULT : EOK;
	else
		rc = vm_space_read(pt->space, pp->uaddr, (void *)k->at, n);
	k->at += n;
	return rc;
}

/* Emit the planned tables. */
static errno_t cprof_emit_tables(cprof_sink_t *k, const cprof_plan_t *p)
{
	for (uint32_t i = 0; i < p->ntables; i++) {
		const cprof_plan_table_t *pt = &p->table[i];
		errno_t rc = cprof_emit(k, &pt->h, sizeof(pt->h));
		for (uint32_t j = 0; rc == EOK && j < pt->h.nparts; j++)
			rc = cprof_emit_part(k, pt, &p->part[pt->first + j]);
		if (rc != EOK)
			return rc;
	}
	return EOK;
}

/* ------------------------------------------------------------ exited */

/*
 * Tables of processes that exited, kept (as file bytes) until a RESET so
 * that `cprof get` after a program ended still has its table; at most
 * CPROF_KEEP_BYTES, the oldest dropped first (counted). cprof_lock.
 */
#define CPROF_KEEP_BYTES (4u << 20)

typedef struct cprof_kept {
	struct cprof_kept *next;
	size_t len;
	uint8_t data[];
} cprof_kept_t;

static cprof_kept_t *cprof_kept;       /* newest first */
static size_t cprof_kept_bytes;
static size_t cprof_kept_heap;         /* heap bytes they take (kmalloc_size) */
static uint32_t cprof_kept_count;
static uint32_t cprof_kept_gen;        /* bumped by RESET */
static uint64_t cprof_kept_dropped;

/* Drop the oldest kept tables until n more bytes fit. cprof_lock held. */
static void cprof_keep_room(size_t n, cprof_kept_t **freed)
{
	while (cprof_kept && cprof_kept_bytes + n > CPROF_KEEP_BYTES) {
		cprof_kept_t **pp = &cprof_kept;
		while ((*pp)->next)
			pp = &(*pp)->next;
		cprof_kept_t *old = *pp;
		*pp = NULL;
		cprof_kept_bytes -= old->len;
		cprof_kept_heap -= kmalloc_size(old);
		cprof_kept_count--;
		cprof_kept_dropped++;
		old->next = *freed;
		*freed = old;
	}
}

static void cprof_kept_free(cprof_kept_t *list)
{
	while (list) {
		cprof_kept_t *next = list->next;
		kfree(list);
		list = next;
	}
}

/* Serialize t's table (its space still there) and keep it. */
static void cprof_keep(task_t *t, const cprof_task_t *ct)
{
	cprof_plan_t *p = kmalloc(sizeof(*p));
	cprof_kept_t *k = NULL, *freed = NULL;

	if (!p)
		return;
	p->ntables = p->nparts = 0;
	p->bytes = 0;
	if (t->space && cprof_plan_fill(p, t, t->space, ct->ctl, ct->gen) &&
	    p->bytes <= CPROF_KEEP_BYTES && (k = kmalloc(sizeof(*k) + p->bytes))) {
		cprof_sink_t sink = { false, (uintptr_t)k->data };
		k->len = p->bytes;
		if (cprof_emit_tables(&sink, p) != EOK) {
			kfree(k);
			k = NULL;
		}
	}
	kfree(p);
	if (!k)
		return;
	uint64_t f = spin_lock_irqsave(&cprof_lock);
	cprof_keep_room(k->len, &freed);
	k->next = cprof_kept;
	cprof_kept = k;
	cprof_kept_bytes += k->len;
	cprof_kept_heap += kmalloc_size(k);
	cprof_kept_count++;
	spin_unlock_irqrestore(&cprof_lock, f);
	cprof_kept_free(freed);
}

/* Heap bytes held by the kept tables of exited processes (sysinfo). */
size_t cprof_kept_heap_bytes(void)
{
	return __atomic_load_n(&cprof_kept_heap, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------ get */

/* Take the kept tables for a GET (they go back with cprof_kept_return). */
static cprof_kept_t *cprof_kept_take(uint32_t *gen)
{
	uint64_t f = spin_lock_irqsave(&cprof_lock);
	cprof_kept_t *list = cprof_kept;
	cprof_kept = NULL;
	*gen = cprof_kept_gen;
	spin_unlock_irqrestore(&cprof_lock, f);
	return list;
}

/* Put taken tables back behind newer ones, unless a RESET came meanwhile. */
static void cprof_kept_return(cprof_kept_t *list, uint32_t gen)
{
	cprof_kept_t *freed = NULL;
	uint64_t f = spin_lock_irqsave(&cprof_lock);
	if (gen == cprof_kept_gen) {
		cprof_kept_t **pp = &cprof_kept;
		while (*pp)
			pp = &(*pp)->next;
		*pp = list;
	} else {
		freed = list;
	}
	spin_unlock_irqrestore(&cprof_lock, f);
	cprof_kept_free(freed);
}

/* Write the planned file and the kept tables to the caller's buf. */
static errno_t cprof_put(const cprof_plan_t *p, const cprof_kept_t *kept, uintptr_t buf)
{
	cprof_file_hdr_t fh = { .version = CPROF_VERSION, .ntables = p->ntables };
	cprof_sink_t sink = { true, buf };

	for (const cprof_kept_t *k = kept; k; k = k->next)
		fh.ntables++;
	memcpy(fh.magic, CPROF_FILE_MAGIC, sizeof(fh.magic));
	fh.tsc_hz = time_cycles_per_sec();
	fh.taken = time_cycles();
	fh.cpus = cpu_count;
	fh.dropped = (uint32_t)MIN(cprof_kept_dropped, UINT32_MAX);
	errno_t rc = cprof_emit(&sink, &fh, sizeof(fh));
	if (rc == EOK)
		rc = cprof_emit_tables(&sink, p);
	for (const cprof_kept_t *k = kept; k && rc == EOK; k = k->next)
		rc = cprof_emit(&sink, k->data, k->len);
	return rc;
}

/*
 * CPROF_OP_GET (buf, size, size_t *needed) -> bytes. A buffer that does
 * not start in user space is EFAULT whatever the size (before: ENOMEM
 * when the tables outgrew size, EFAULT only when they fitted).
 */
static int64_t cprof_sys_get(uintptr_t buf, uint64_t size, uintptr_t uneeded)
{
	if (size && !user_range_ok(buf, 1))
		return -EFAULT;
	cprof_plan_t *p = kmalloc(sizeof(*p));
	uint32_t gen;

	if (!p)
		return -ENOMEM;
	cprof_plan_make(p);
	cprof_kept_t *kept = cprof_kept_take(&gen);
	for (const cprof_kept_t *k = kept; k; k = k->next)
		p->bytes += k->len;
	int64_t rc = p->bytes;
	if (p->bytes > size) {
		uint64_t needed = p->bytes;
		rc = copy_to_user((void *)uneeded, &needed, sizeof(needed)) == EOK ? -ENOMEM : -EFAULT;
	} else if (!user_range_ok(buf, p->bytes)) {
		rc = -EFAULT;
	} else {
		errno_t e = cprof_put(p, kept, buf);
		rc = e == EOK ? (int64_t)p->bytes : -(int64_t)e;
	}
	cprof_kept_return(kept, gen);
	cprof_plan_drop(p);
	kfree(p);
	return rc;
}

void cprof_task_exited(task_t *t)
{
	uint64_t f = spin_lock_irqsave(&cprof_lock);
	cprof_task_t *ct = t->cprof;
	t->cprof = NULL;
	spin_unlock_irqrestore(&cprof_lock, f);
	if (!ct)
		return;
	cprof_keep(t, ct);
	if (ct->clock_pa)           /* no thread of t runs again: nobody writes it */
		frame_free(ct->clock_pa, 1);
	kfree(ct);
}

/* ------------------------------------------------------------ reset */

static void cprof_reset_one(task_id_t id)
{
	task_t *t = task_get(id);

	if (!t)
		return;
	uint64_t f = spin_lock_irqsave(&cprof_lock);
	uintptr_t uctl = t->cprof ? t->cprof->ctl : 0;
	uint32_t gen = t->cprof ? ++t->cprof->gen : 0;
	spin_unlock_irqrestore(&cprof_lock, f);
	vm_space_t *s = uctl ? task_space_get(t) : NULL;
	if (s) {
		vm_space_write(s, uctl + offsetof(cprof_ctl_t, reset_gen), &gen, sizeof(gen));
		vm_space_put(s);
	}
	task_unref(t);
}

/* CPROF_OP_RESET -> tables told to clear. */
static int64_t cprof_sys_reset(void)
{
	cprof_ids_t ids;
	int64_t n = 0;

	if (cprof_kernel_on()) {
		cprof_kernel_reset();
		n++;
	}
	uint64_t f = spin_lock_irqsave(&cprof_lock);
	cprof_kept_t *kept = cprof_kept;
	cprof_kept = NULL;
	n += cprof_kept_count;
	cprof_kept_bytes = 0;
	cprof_kept_heap = 0;
	cprof_kept_count = 0;
	cprof_kept_dropped = 0;
	cprof_kept_gen++;
	spin_unlock_irqrestore(&cprof_lock, f);
	cprof_kept_free(kept);
	cprof_registered(&ids);
	for (uint32_t i = 0; i < ids.n; i++)
		cprof_reset_one(ids.id[i]);
	return n + ids.n;
}

/* SYS_CPROF (op, a1, a2, a3): see abi/cprof.h. */
int64_t sys_cprof(SYSCALL_ARGS)
{
	bool may = task_current()->perms & PERM_PROFILE;

	switch (a0) {
	case CPROF_OP_REGISTER:
		return cprof_register(a1);
	case CPROF_OP_THREAD:
		return cprof_thread_clock();
	case CPROF_OP_GET:
		return may ? cprof_sys_get(a1, a2, a3) : -EPERM;
	case CPROF_OP_RESET:
		return may ? cprof_sys_reset() : -EPERM;
	default:
		return -EINVAL;
	}
}
