/*
 * Threads with libc-managed stacks (see <thread.h>). Each stack is mapped
 * with SYS_MAP above a guard (PROT_GUARD: MAP_GUARD_SIZE bytes at the
 * bottom of the same region that never map, so an overflow faults and no
 * other mapping can be placed there); a thread_boot_t at its top tells __libc_thread_entry
 * (arch/x86_64/thread_entry.asm) what to call. Started threads are
 * remembered (id, stack) in a list so that thread_join can unmap the
 * stack once the thread has ended.
 */
#include <stdlib.h>
#include <thread.h>
#include <vernier.h>

#include "libc.h"

#define PAGE 4096

typedef struct thread_boot {
	thread_fn_t fn;
	void *arg;
} thread_boot_t;

typedef struct thread_rec {
	struct thread_rec *next;
	thread_id_t tid;
	void *stack;                /* the whole region, guard included */
	size_t size;
} thread_rec_t;

/* The entry point in assembly: calls boot->fn(boot->arg), then thread_exit. */
void __libc_thread_entry(void *boot);

static thread_rec_t *threads;
static libc_lock_t threads_lock = LIBC_LOCK_INIT;

static void remember(thread_rec_t *rec)
{
	__libc_lock(&threads_lock);
	rec->next = threads;
	threads = rec;
	__libc_unlock(&threads_lock);
}

/* Remove and return the record of tid, or NULL. */
static thread_rec_t *forget(thread_id_t tid)
{
	thread_rec_t *found = NULL;

	__libc_lock(&threads_lock);
	for (thread_rec_t **pp = &threads; *pp; pp = &(*pp)->next) {
		if ((*pp)->tid == tid) {
			found = *pp;
			*pp = found->next;
			break;
		}
	}
	__libc_unlock(&threads_lock);
	return found;
}

errno_t thread_start_stack(thread_fn_t fn, void *arg, size_t stack_size,
			   thread_id_t *tid)
{
	size_t size = (stack_size + PAGE - 1) & ~(size_t)(PAGE - 1);
	thread_rec_t *rec = malloc(sizeof(*rec));
	void *stack;

	if (size < PAGE)
		size = PAGE;
	if (!rec)
		return ENOMEM;
	void *region;
	errno_t e = sys_map(NULL, MAP_GUARD_SIZE + size,
			    PROT_READ | PROT_WRITE | PROT_GUARD, &region);
	if (e != EOK) {
		free(rec);
		return e;
	}
	stack = (char *)region + MAP_GUARD_SIZE;
	thread_boot_t *boot = (thread_boot_t *)((char *)stack + size) - 1;
	boot->fn = fn;
	boot->arg = arg;
	rec->stack = region;
	rec->size = MAP_GUARD_SIZE + size;
	__libc_cprof_stack(stack, size);
	e = sys_thread_create(__libc_thread_entry, boot, boot, &rec->tid);
	if (e != EOK) {
		sys_unmap(region, rec->size);
		free(rec);
		return e;
	}
	remember(rec);
	if (tid)
		*tid = rec->tid;
	return EOK;
}

errno_t thread_start(thread_fn_t fn, void *arg, thread_id_t *tid)
{
	return thread_start_stack(fn, arg, THREAD_STACK_DEFAULT, tid);
}

errno_t thread_join(thread_id_t tid, long *value)
{
	errno_t e = sys_thread_join(tid, value);

	if (e != EOK)
		return e;
	thread_rec_t *rec = forget(tid);
	if (rec) {
		sys_unmap(rec->stack, rec->size);
		free(rec);
	}
	return EOK;
}

void thread_exit(long value)
{
	sys_thread_exit(value);
}

thread_id_t thread_self(void)
{
	return sys_thread_id();
}
