/*
 * Tasks: creation from the initrd, the task table, kill, exit and wait.
 *
 * A task's last thread records the end (thread_exit); once that thread has
 * been switched away for good, the reaper thread (reaper.c) calls
 * task_release_space(), which frees the address space with interrupts
 * on, then makes the task a zombie and tells the parent. Tasks whose parent
 * is the kernel are reaped at once. The table holds one reference; lookups
 * take more (task_get/task_unref).
 *
 * A task spawned by the kernel is the root of a task tree; every task
 * spawned by a task joins its parent's tree and counts there until its
 * task_t is freed (zombies and stopped tasks count): at most
 * LIMIT_TASK_TREE per tree, ELIMIT beyond. A task's quota tree, fixed at
 * spawn, is its parent's when the parent has its permissions and was not
 * spawned by the kernel (as libc's task_quota_root), else one of its own;
 * images a task passes to SYS_SPAWN are charged to its quota tree in the
 * program cache (binquota.h, LIMIT_TREE_BIN_BYTES).
 *
 * Lock order: task_table_lock → task->lock → thread->lock.
 */
#include <abi/limits.h>
#include <abi/syscall.h>
#include <arch/interrupt.h>
#include <arch/smp.h>
#include <kernel/acct.h>
#include <kernel/binary.h>
#include <kernel/binquota.h>
#include <kernel/console.h>
#include <kernel/ipc.h>
#include <kernel/printk.h>
#include <kernel/cprof.h>
#include <kernel/prof.h>
#include <kernel/profil.h>
#include <kernel/sched.h>
#include <kernel/task.h>
#include <kernel/vm.h>
#include <kernel/vm_space.h>
#include <lib/string.h>

#include "internal.h"

#define LOG_PREFIX "task"

task_t kernel_task;
static list_t task_table = LIST_INIT(task_table);
static spinlock_t task_table_lock = SPINLOCK_INIT("task_table");
static volatile task_id_t task_next_id = 1;
static size_t task_live;

static void task_fields_init(task_t *t, const char *name, uint32_t perms)
{
	strlcpy(t->name, name, sizeof(t->name));
	t->lock = (spinlock_t)SPINLOCK_INIT("task");
	t->perms = perms;
	list_init(&t->children);
	list_init(&t->threads);
	list_init(&t->child_node);
	waitq_init(&t->child_exit);
	t->refs = 1;                       /* the table's */
}

void task_init(void)
{
	task_fields_init(&kernel_task, "kernel", PERM_ALL);
	ipc_task_init(&kernel_task);
	kernel_task.id = 0;
	list_append(&task_table, &kernel_task.all_node);
	task_live = 1;
}

static const char *task_basename(const char *path)
{
	const char *base = path;
	for (const char *p = path; *p; p++)
		if (*p == '/')
			base = p + 1;
	return base;
}

static errno_t task_load_image(task_t *t, const binary_t *b, const void *image)
{
	for (size_t i = 0; i < b->plan.nsegs; i++) {
		const elf_segment_t *s = &b->plan.segs[i];
		uintptr_t start = ALIGN_DOWN(s->vaddr, PAGE_SIZE);
		uintptr_t end = ALIGN_UP(s->vaddr + s->memsz, PAGE_SIZE);
		errno_t rc = vm_space_add_region(t->space, start, end - start, s->prot, REGION_IMAGE);
		if (rc == EOK && s->filesz)
			rc = vm_space_write(t->space, s->vaddr,
					    (const char *)image + s->offset, s->filesz);
		if (rc != EOK)
			return rc == EFAULT ? ENOMEM : rc;
	}
	return EOK;
}

/* Count the strings of vec (NULL: none) into *n and their bytes into *len. */
static errno_t task_vec_size(const char *const *vec, size_t *n, size_t *len)
{
	for (*n = 0; vec && vec[*n]; (*n)++) {
		if (*n == SPAWN_MAX_ARGS)
			return E2BIG;
		*len += strlen(vec[*n]) + 1;
	}
	return *len > SPAWN_MAX_ARGLEN ? E2BIG : EOK;
}

/* Copy the strings of vec to *str_at in t, their addresses to ptrs. */
static errno_t task_put_strings(task_t *t, const char *const *vec, size_t n,
				uintptr_t *str_at, uint64_t *ptrs)
{
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(vec[i]) + 1;
		ptrs[i] = *str_at;
		errno_t rc = vm_space_write(t->space, *str_at, vec[i], len);
		if (rc != EOK)
			return rc;
		*str_at += len;
	}
	return EOK;
}

/*
 * Lay out the SysV start block at the stack top: argc, argv[], NULL,
 * envp[], NULL, then the strings; *sp gets rsp.
 */
static errno_t task_setup_stack(task_t *t, const char *const *argv,
				const char *const *envp, uintptr_t *sp)
{
	size_t argc, envc, slen = 0;
	errno_t rc = task_vec_size(argv, &argc, &slen);
	if (rc == EOK)
		rc = task_vec_size(envp, &envc, &slen);
	if (rc == EOK)
		rc = vm_space_add_region(t->space, USER_STACK_TOP - USER_STACK_SIZE,
					 USER_STACK_SIZE, PROT_READ | PROT_WRITE, REGION_STACK);
	if (rc != EOK)
		return rc;
	uintptr_t str_at = USER_STACK_TOP - slen;
	size_t blen = 8 * (argc + envc + 3);
	uintptr_t base = ALIGN_DOWN(str_at - blen, 16);
	uint64_t *block = kzalloc(blen);
	if (!block)
		return ENOMEM;
	block[0] = argc;
	rc = task_put_strings(t, argv, argc, &str_at, &block[1]);
	if (rc == EOK)
		rc = task_put_strings(t, envp, envc, &str_at, &block[argc + 2]);
	if (rc == EOK)
		rc = vm_space_write(t->space, base, block, blen);
	kfree(block);
	*sp = base;
	return rc == EFAULT ? ENOMEM : rc;
}

static task_t *task_alloc(const char *path, uint32_t perms, task_t *parent)
{
	task_t *t = kzalloc(sizeof(*t));

	if (!t)
		return NULL;
	task_fields_init(t, task_basename(path), perms);
	t->parent = parent ? parent : &kernel_task;
	ipc_task_init(t);
	t->space = vm_space_create();
	if (!t->space) {
		kfree(t);
		return NULL;
	}
	return t;
}

/*
 * Join parent's task tree (or start one: parent NULL or the kernel).
 * EOK, or ELIMIT when the tree has LIMIT_TASK_TREE tasks already.
 */
static errno_t task_tree_join(task_t *t, task_t *parent)
{
	task_t *root = parent && parent != &kernel_task ? parent->tree : t;

	if (__atomic_add_fetch(&root->tree_tasks, 1, __ATOMIC_ACQ_REL) > LIMIT_TASK_TREE) {
		__atomic_sub_fetch(&root->tree_tasks, 1, __ATOMIC_ACQ_REL);
		return ELIMIT;
	}
	if (root != t)
		task_ref(root);
	t->tree = root;
	return EOK;
}

/* Leave t's tree (t is being freed). */
static void task_tree_leave(task_t *t)
{
	task_t *root = t->tree;

	if (!root || root == t)
		return;
	__atomic_sub_fetch(&root->tree_tasks, 1, __ATOMIC_ACQ_REL);
	task_unref(root);
}

void task_tree_usage(task_t *t, uint64_t *root_id, uint32_t *tasks)
{
	task_t *root = t->tree;

	*root_id = root ? root->id : 0;
	*tasks = root ? __atomic_load_n(&root->tree_tasks, __ATOMIC_RELAXED) : 0;
}

/*
 * Join parent's quota tree (it has t's permissions and its parent is not
 * the kernel) or start one. EOK, or ENOMEM.
 */
static errno_t task_quota_join(task_t *t, task_t *parent)
{
	bool same = parent && parent != &kernel_task && parent->binq &&
		    parent->parent != &kernel_task && parent->perms == t->perms;

	if (same)
		binquota_ref(parent->binq);
	t->binq = same ? parent->binq : binary_quota_new();
	return t->binq ? EOK : ENOMEM;
}

/* Undo task_alloc() for a task that never ran. */
static void task_discard(task_t *t)
{
	ipc_task_cleanup(t);
	vm_space_put(t->space);
	task_tree_leave(t);
	binary_quota_put(t->binq);
	binary_put(t->binary);
	kfree(t);
}

static void task_publish(task_t *t)
{
	uint64_t f = spin_lock_irqsave(&task_table_lock);
	t->id = task_next_id++;
	binary_quota_publish(t->binq, t->id);   /* a new tree's root: its id */
	list_append(&task_table, &t->all_node);
	list_append(&t->parent->children, &t->child_node);
	task_live++;
	spin_unlock_irqrestore(&task_table_lock, f);
}

static void task_unpublish(task_t *t)
{
	uint64_t f = spin_lock_irqsave(&task_table_lock);
	list_remove(&t->all_node);
	list_remove(&t->child_node);
	task_live--;
	spin_unlock_irqrestore(&task_table_lock, f);
}

/* The checked program of req: its image (charged to parent's quota tree), or the initrd's. */
static errno_t task_binary(const task_spawn_req_t *req, task_t *parent, binary_t **b,
			   const void **image)
{
	errno_t rc = req->image
		? binary_get_image(req->path, req->image, req->image_size,
				   parent ? parent->binq : NULL, b)
		: binary_get(req->path, b);
	*image = req->image ? req->image : (rc == EOK ? (*b)->image : NULL);
	return rc;
}

errno_t task_spawn(const task_spawn_req_t *req, task_t *parent, task_id_t *id)
{
	binary_t *b;
	const void *image;
	uintptr_t sp;
	thread_t *th;

	if (parent && (req->perms & ~parent->perms))
		return EPERM;
	errno_t rc = task_binary(req, parent, &b, &image);
	if (rc != EOK)
		return rc;
	task_t *t = task_alloc(req->path, req->perms, parent);
	if (!t) {
		binary_put(b);
		return ENOMEM;
	}
	t->binary = b;                   /* task_discard puts it */
	rc = task_tree_join(t, parent);
	if (rc == EOK)
		rc = task_quota_join(t, parent);
	if (rc != EOK) {
		task_discard(t);
		return rc;
	}
	rc = task_load_image(t, b, image);
	if (rc == EOK)
		rc = task_setup_stack(t, req->argv, req->envp, &sp);
	if (rc != EOK) {
		task_discard(t);
		return rc;
	}
	task_publish(t);
	*id = t->id;
	prof_task_created(t);
	prof_task_loaded(t);
	rc = thread_prepare_user(t, b->plan.entry, sp, 0, &th);
	if (rc != EOK) {
		task_unpublish(t);
		task_discard(t);
		return rc;
	}
	thread_detach(th);               /* the main thread is not joinable */
	if (req->flags & SPAWN_F_STOPPED)
		__atomic_store_n(&t->stopped, th, __ATOMIC_RELEASE);
	else
		sched_wakeup(th);
	return EOK;
}

errno_t task_start(task_t *t)
{
	thread_t *th = __atomic_exchange_n(&t->stopped, NULL, __ATOMIC_ACQ_REL);

	if (!th)
		return EINVAL;
	sched_wakeup(th);
	return EOK;
}

task_t *task_get(task_id_t id)
{
	task_t *found = NULL;
	uint64_t f = spin_lock_irqsave(&task_table_lock);

	list_foreach(&task_table, it) {
		task_t *t = list_entry(it, task_t, all_node);
		if (t->id == id) {
			found = t;
			task_ref(found);
			break;
		}
	}
	spin_unlock_irqrestore(&task_table_lock, f);
	return found;
}

/* Free a reaped task: its never-joined thread structures, then itself. */
static void task_free(task_t *t)
{
	list_foreach_safe(&t->threads, it, tmp) {
		thread_t *th = list_entry(it, thread_t, task_node);
		if (!th->join_claimed)
			thread_detach(th);
	}
	task_tree_leave(t);
	binary_quota_put(t->binq);
	binary_put(t->binary);
	kfree(t);
}

void task_unref(task_t *t)
{
	if (t != &kernel_task && __atomic_sub_fetch(&t->refs, 1, __ATOMIC_ACQ_REL) == 0)
		task_free(t);
}

/* Make every thread of t notice the kill: wake sleepers, poke CPUs. */
static void task_poke_threads(task_t *t)
{
	uint64_t f = spin_lock_irqsave(&t->lock);
	list_foreach(&t->threads, it) {
		thread_t *th = list_entry(it, thread_t, task_node);
		if (th->state == THREAD_SLEEPING)
			waitq_interrupt(th);
		else if (th->state == THREAD_RUNNING && th->cpu != cpu_id())
			arch_send_resched(cpus[th->cpu]);
	}
	spin_unlock_irqrestore(&t->lock, f);
}

errno_t task_kill(task_t *t, int status)
{
	if (t == &kernel_task)
		return EPERM;
	/* Alive or not is read before killed is set: once it is, the
	 * threads may die and the task turn zombie before this returns. */
	uint64_t f = spin_lock_irqsave(&t->lock);
	bool alive = __atomic_load_n(&t->state, __ATOMIC_ACQUIRE) == TASK_ALIVE;
	if (alive && !t->killed) {
		t->killed = true;
		t->status = status;
	}
	spin_unlock_irqrestore(&t->lock, f);
	if (!alive)
		return ESRCH;            /* a zombie's status stays its own */
	task_start(t);                   /* a stopped task runs to its death */
	task_poke_threads(t);
	return EOK;
}

/* Hand the orphans of t to the kernel (which reaps them). Table lock held. */
static void task_reparent_children(task_t *t, list_t *reap)
{
	list_foreach_safe(&t->children, it, tmp) {
		task_t *c = list_entry(it, task_t, child_node);
		list_remove(it);
		c->parent = &kernel_task;
		if (c->state == TASK_ZOMBIE) {
			list_remove(&c->all_node);
			task_live--;
			list_append(reap, &c->child_node);
		} else {
			list_append(&kernel_task.children, &c->child_node);
		}
	}
}

task_id_t task_parent_id(task_t *t)
{
	uint64_t f = spin_lock_irqsave(&task_table_lock);
	task_id_t id = t->parent ? t->parent->id : 0;
	spin_unlock_irqrestore(&task_table_lock, f);
	return id;
}

/* Take a reference to t's address space, or NULL if it is gone. */
vm_space_t *task_space_get(task_t *t)
{
	uint64_t f = spin_lock_irqsave(&t->lock);
	vm_space_t *s = t->space;
	if (s)
		vm_space_get(s);
	spin_unlock_irqrestore(&t->lock, f);
	return s;
}

task_t *task_turn_zombie(task_t *t, list_t *reap)
{
	t->state = TASK_ZOMBIE;
	task_reparent_children(t, reap);
	if (t->parent != &kernel_task) {
		task_ref(t->parent);
		return t->parent;
	}
	list_remove(&t->all_node);
	list_remove(&t->child_node);
	task_live--;
	return NULL;
}

void task_release_space(task_t *t)
{
	list_t reap = LIST_INIT(reap);

	prof_task_exited(t);
	profil_task_exited(t);
	cprof_task_exited(t);
	ipc_task_cleanup(t);
	irq_task_cleanup(t);
	console_release(t);
	uint64_t fl = spin_lock_irqsave(&t->lock);
	vm_space_t *space = t->space;
	t->space = NULL;
	spin_unlock_irqrestore(&t->lock, fl);
	vm_space_put(space);
	uint64_t f = spin_lock_irqsave(&task_table_lock);
	task_t *parent = task_turn_zombie(t, &reap);
	spin_unlock_irqrestore(&task_table_lock, f);
	list_foreach_safe(&reap, it, tmp)
		task_unref(list_entry(it, task_t, child_node));
	if (!parent) {
		task_unref(t);
		return;
	}
	waitq_wake_all(&parent->child_exit);    /* t may be reaped and gone */
	task_unref(parent);
}

/* A matching zombie child (removed from the table), or NULL; *any set if a match lives. */
static task_t *task_take_zombie(task_t *parent, task_id_t id, bool *any)
{
	*any = false;
	list_foreach(&parent->children, it) {
		task_t *c = list_entry(it, task_t, child_node);
		if (id != WAIT_ANY && c->id != id)
			continue;
		*any = true;
		if (c->state != TASK_ZOMBIE)
			continue;
		list_remove(&c->child_node);
		list_remove(&c->all_node);
		task_live--;
		return c;
	}
	return NULL;
}

errno_t task_wait(task_t *parent, task_id_t id, unsigned flags,
		  task_id_t *out_id, int *status)
{
	uint64_t f = spin_lock_irqsave(&parent->child_exit.lock);
	errno_t rc = EOK;
	task_t *c = NULL;

	for (;;) {
		bool any;
		spin_lock(&task_table_lock);
		c = task_take_zombie(parent, id, &any);
		spin_unlock(&task_table_lock);
		if (c || !any)
			break;
		if (flags & WAIT_NOHANG) {
			rc = EAGAIN;
			break;
		}
		if ((rc = waitq_sleep_why(&parent->child_exit, &f, 0, WAIT_WHY_CHILD)) != EOK)
			break;
	}
	spin_unlock_irqrestore(&parent->child_exit.lock, f);
	if (!c)
		return rc == EOK ? ESRCH : rc;
	*out_id = c->id;
	*status = c->status;
	task_unref(c);
	return EOK;
}

size_t task_count(void)
{
	return task_live;
}

/* End the calling task with status: other threads follow at once. */
void task_exit(int status)
{
	task_t *t = task_current();
	uint64_t f = spin_lock_irqsave(&t->lock);
	if (!t->killed) {
		t->killed = true;
		t->status = status;
	}
	spin_unlock_irqrestore(&t->lock, f);
	task_poke_threads(t);
	thread_exit(0);
}

void task_foreach(void (*fn)(task_t *t, void *ctx), void *ctx)
{
	uint64_t f = spin_lock_irqsave(&task_table_lock);

	list_foreach(&task_table, it)
		fn(list_entry(it, task_t, all_node), ctx);
	spin_unlock_irqrestore(&task_table_lock, f);
}

void task_cycles(task_t *t, uint64_t *user, uint64_t *kernel)
{
	uint64_t f = spin_lock_irqsave(&t->lock);

	*user = t->acct.user_cycles;
	*kernel = t->acct.kernel_cycles;
	list_foreach(&t->threads, it) {
		thread_t *th = list_entry(it, thread_t, task_node);
		uint64_t u, k;
		bool idle = th->cpu < cpu_count && cpus[th->cpu] &&
			    cpus[th->cpu]->idle == th;
		if (!th->exited && !idle) {  /* exited ones are folded in */
			acct_thread_now(th, &u, &k);
			*user += u;
			*kernel += k;
		}
	}
	spin_unlock_irqrestore(&t->lock, f);
}
