/*
 * The reaper: one kernel thread that frees the address space (page
 * tables, frames, regions) and the IPC, profiler and console state of
 * tasks whose last thread was switched out for good, with interrupts on.
 * Only then is the task a zombie and its parent woken (task_release_space),
 * so a parent's wait returns with the memory back.
 */
#ifndef KERNEL_REAPER_H
#define KERNEL_REAPER_H

#include <kernel/types.h>

struct task;

/* Start the reaper thread (kmain, before any user task); panics if it cannot. */
void reaper_init(void);

/*
 * Queue t, whose last thread was just reaped, for task_release_space in
 * the reaper thread. Any context but NMI (the switch path, interrupts
 * off); takes only the reaper's lock.
 */
void reaper_queue(struct task *t);

/* Tasks queued and not yet released, and tasks released since boot (tests). */
void reaper_stats(uint64_t *queued, uint64_t *released);

#endif
