/* Task trees: ancestry through SYS_TASK_INFO (see <tasktree.h>). */
#include <tasktree.h>
#include <vernier.h>

bool task_in_tree(task_id_t t, task_id_t root)
{
	task_info_t info;

	for (int i = 0; i < TASK_TREE_DEPTH; i++) {
		if (t == root)
			return true;
		if (t == 0 || sys_task_info(t, &info) != EOK)
			return false;
		t = info.parent;
	}
	return false;
}

task_id_t task_quota_root(task_id_t t)
{
	task_info_t info, up;
	task_id_t root = t;

	if (t == 0 || sys_task_info(t, &info) != EOK)
		return t;                   /* 0 would be the caller itself */
	for (int i = 0; i < TASK_TREE_DEPTH; i++) {
		task_id_t p = info.parent;
		if (p == 0 || sys_task_info(p, &up) != EOK || up.parent == 0 ||
		    up.perms != info.perms)
			break;
		root = p;
		info = up;
	}
	return root;
}
