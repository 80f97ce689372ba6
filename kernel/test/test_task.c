/*
 * ktest: task_kill's answer for a task that is already dead, and the
 * parent a dying task wakes (kernel/proc/task.c).
 */
#include <kernel/ktest.h>
#include <kernel/task.h>

#include "../proc/internal.h"

static task_t kt_zombie;     /* a task whose threads are all gone, not reaped */
static task_t kt_parent, kt_child;

/*
 * A zombie's kill is refused and changes nothing: before, task_kill set
 * killed and the kill's status on it first, so wait reported the kill
 * instead of the task's own exit (and the state was read only after
 * killed was set, when a live task's threads could already be dying).
 */
KTEST(task_kill_zombie, "task: killing a zombie gives ESRCH and leaves its status")
{
	kt_zombie = (task_t){ .lock = SPINLOCK_INIT("kt_zombie") };
	kt_zombie.state = TASK_ZOMBIE;
	kt_zombie.status = 7;
	errno_t rc = task_kill(&kt_zombie, 0x100);
	KT_CHECK(rc == ESRCH && kt_zombie.status == 7 && !kt_zombie.killed,
		 "task_kill gave %d, status %d, killed %d; want ESRCH, 7, 0", rc,
		 kt_zombie.status, kt_zombie.killed);
	return true;
}

/*
 * The dying task's parent is taken, with a reference, while the table is
 * locked. Before, task_release_space read t->parent after the unlock, when
 * the parent (polling with WAIT_NOHANG on another CPU) could already have
 * reaped and freed t: a CI run's #GP in waitq_wake_all on the poisoned
 * pointer (utest `reap` reproduces that race; this checks the contract).
 */
KTEST(task_zombie_parent_held, "task: a dying task's parent is held for its wake-up")
{
	list_t reap = LIST_INIT(reap);

	kt_parent = (task_t){ .lock = SPINLOCK_INIT("kt_parent"), .refs = 1 };
	kt_child = (task_t){ .lock = SPINLOCK_INIT("kt_child"), .parent = &kt_parent };
	list_init(&kt_child.children);
	task_t *p = task_turn_zombie(&kt_child, &reap);
	KT_CHECK(p == &kt_parent && kt_parent.refs == 2 && kt_child.state == TASK_ZOMBIE &&
		 list_empty(&reap), "got %p (want %p), parent refs %u (want 2), "
		 "state %d", (void *)p, (void *)&kt_parent, kt_parent.refs, kt_child.state);
	return true;
}
