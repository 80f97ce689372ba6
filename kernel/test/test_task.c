/*
 * ktest: task_kill's answer for a task that is already dead
 * (kernel/proc/task.c).
 */
#include <kernel/ktest.h>
#include <kernel/task.h>

static task_t kt_zombie;     /* a task whose threads are all gone, not reaped */

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
