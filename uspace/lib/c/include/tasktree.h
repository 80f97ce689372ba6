/*
 * Task trees, as servers see their clients (issue 27's quotas and
 * foreground rule). Both walk parents with SYS_TASK_INFO; a task that
 * has ended ends the walk. Orphans belong to the kernel task (id 0).
 *
 * - task_in_tree(t, root): t is root or one of root's descendants. The
 *   console lets a client set the foreground only to a task of its own
 *   tree in this sense.
 * - task_quota_root(t): the task whose tree t's usage is charged to: the
 *   highest ancestor of t (t itself at most) reached by walking parents
 *   that have the same permissions as t, stopping below the tasks the
 *   kernel starts itself (ns and init, whose parent is the kernel task).
 *   The servers and the shell init starts are thus roots of their own
 *   trees, and a program run under `restrict` forms a tree of its
 *   own, apart from the shell that started it; the shell and the
 *   programs it runs with its own permissions share the shell's tree.
 */
#ifndef _TASKTREE_H
#define _TASKTREE_H

#include <stdbool.h>
#include <abi/task.h>

#define TASK_TREE_DEPTH 64         /* parents walked at most */

/* Is t root or a descendant of root? false if t is not known. */
bool task_in_tree(task_id_t t, task_id_t root);
/* The task t's usage is charged to (see above); t if it is not known. */
task_id_t task_quota_root(task_id_t t);

#endif
