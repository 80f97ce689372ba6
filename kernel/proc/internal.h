/*
 * Inside kernel/proc: the task table steps that task.c's exit path and
 * their ktests share.
 */
#ifndef KERNEL_PROC_INTERNAL_H
#define KERNEL_PROC_INTERNAL_H

#include <kernel/task.h>
#include <lib/list.h>

/*
 * Make t a zombie: its children go to the kernel, the zombies among them
 * onto reap (the caller drops them). Table lock held. Returns t's parent
 * with a reference taken, to be woken and dropped after the lock (t itself
 * may be reaped and freed as soon as the lock goes); or NULL if t's parent
 * is the kernel: t is then off the table and the caller drops it.
 */
task_t *task_turn_zombie(task_t *t, list_t *reap);

#endif
