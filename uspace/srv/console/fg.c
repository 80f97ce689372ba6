/*
 * The foreground: who the terminal belongs to (issue 27). Runs on the IPC
 * thread only.
 *
 * - The holder is the task that has the terminal: init (the console's
 *   parent) at boot, then the task init hands it to (CONSOLE_FG_HAND: the
 *   holder's whole tree is served), or the caller of a SET_FG (the shell:
 *   then the holder alone, its other descendants are background). The holder's ancestors are
 *   recorded with it (FG_CHAIN_MAX of them), so that they keep their
 *   rights after a dead task's parent link is gone; should the holder
 *   die, its nearest live ancestor holds the terminal alone.
 * - The group is the foreground job (SET_FG of a task, CONSOLE_FG_ADD for
 *   more members, FG_GROUP_MAX at most): their trees are served too, and
 *   Ctrl-C in cooked mode kills every member.
 *
 * A task may change the foreground or the mode when it is in the
 * foreground (the holder, one of its recorded ancestors, a live group
 * member or a descendant of one), and may name only tasks of its own tree;
 * a caller with PERM_KILL may set any foreground (Ctrl-C then kills with
 * the console's PERM_KILL what the caller could kill itself).
 */
#include <console.h>
#include <string.h>
#include <tasktree.h>
#include <vernier.h>

#include "console.h"

#define FG_CHAIN_MAX 16
#define FG_GROUP_MAX 8

static task_id_t fg_chain[FG_CHAIN_MAX];
static unsigned fg_nchain;
static bool fg_alone;                /* only the holder, not its tree */
static task_id_t fg_group[FG_GROUP_MAX];
static unsigned fg_ngroup;

static bool fg_alive(task_id_t t)
{
	task_info_t info;

	return t != 0 && sys_task_info(t, &info) == EOK && info.threads > 0;
}

/* The holder: t and its ancestors are recorded; alone: t only is served. */
static void fg_hold(task_id_t t, bool alone)
{
	task_info_t info;

	fg_nchain = 0;
	fg_alone = alone;
	while (t != 0 && fg_nchain < FG_CHAIN_MAX) {
		fg_chain[fg_nchain++] = t;
		if (sys_task_info(t, &info) != EOK)
			break;
		t = info.parent;
	}
}

/* The live holder (its nearest live ancestor if it died); *alone set. */
static task_id_t fg_holder(bool *alone)
{
	for (unsigned i = 0; i < fg_nchain; i++) {
		if (fg_alive(fg_chain[i])) {
			*alone = fg_alone || i > 0;
			return fg_chain[i];
		}
	}
	*alone = true;
	return 0;
}

/* Is t in a live group member's tree? */
static bool fg_in_group(task_id_t t)
{
	for (unsigned i = 0; i < fg_ngroup; i++)
		if (fg_alive(fg_group[i]) && task_in_tree(t, fg_group[i]))
			return true;
	return false;
}

/* Is t the holder or one of its recorded ancestors? */
static bool fg_in_chain(task_id_t t)
{
	for (unsigned i = 0; i < fg_nchain; i++)
		if (fg_chain[i] == t)
			return true;
	return false;
}

void fg_init(void)
{
	task_info_t me;

	if (sys_task_info(0, &me) == EOK)
		fg_hold(me.parent, false);
}

bool fg_controls(task_id_t caller)
{
	return caller != 0 && (fg_in_chain(caller) || fg_in_group(caller));
}

bool fg_serves(task_id_t reader)
{
	bool alone;
	task_id_t h = fg_holder(&alone);

	if (reader == 0)
		return false;
	if (h && (reader == h || (!alone && task_in_tree(reader, h))))
		return true;
	return fg_in_group(reader);
}

/* May caller (with perms) make target the foreground? EOK or EPERM. */
static errno_t fg_may_set(task_id_t caller, uint32_t perms, task_id_t target)
{
	if (perms & PERM_KILL)
		return EOK;
	if (!fg_controls(caller))
		return EPERM;
	return target == 0 || task_in_tree(target, caller) ? EOK : EPERM;
}

errno_t fg_set(task_id_t caller, uint32_t perms, task_id_t target,
	       unsigned how, task_id_t *old)
{
	*old = fg_ngroup ? fg_group[0] : 0;
	if (how > CONSOLE_FG_HAND || (how != CONSOLE_FG_SET && target == 0))
		return EINVAL;
	errno_t rc = fg_may_set(caller, perms, target);
	if (rc != EOK)
		return rc;
	if (target != 0 && !fg_alive(target))
		return ESRCH;
	if (how == CONSOLE_FG_ADD) {
		if (fg_ngroup >= FG_GROUP_MAX)
			return ELIMIT;
		fg_group[fg_ngroup++] = target;
		return EOK;
	}
	fg_ngroup = 0;
	if (how == CONSOLE_FG_HAND) {
		fg_hold(target, false);
		return EOK;
	}
	fg_hold(caller, true);
	if (target != 0)
		fg_group[fg_ngroup++] = target;
	return EOK;
}

void fg_interrupt(void)
{
	for (unsigned i = 0; i < fg_ngroup; i++)
		sys_kill(fg_group[i]);
	fg_ngroup = 0;
}

task_id_t fg_status(task_id_t *member)
{
	bool alone;

	*member = fg_ngroup ? fg_group[0] : 0;
	return fg_holder(&alone);
}
