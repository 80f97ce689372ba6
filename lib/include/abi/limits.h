/*
 * Per-task limits on what a task can make the kernel (and the naming
 * service) hold. Beyond one the call fails with ELIMIT; nothing panics and
 * nothing is dropped silently. sysinfo "system.limits.<task id>" shows a
 * task's usage against them (sysinfo_limits_t).
 */
#ifndef ABI_LIMITS_H
#define ABI_LIMITS_H

#include <stdint.h>
#include <abi/record.h>

#define LIMIT_BOX_CALLS 4096      /* calls queued or held unanswered per answerbox */
#define LIMIT_BOX_ANSWERS 4096    /* calls sent whose answers are not read yet, per task */
#define LIMIT_THREADS 256         /* thread structures per task (unjoined ones too) */
#define LIMIT_TASK_TREE 1024      /* tasks per tree, zombies and stopped ones too */
#define LIMIT_REGIONS 4096        /* memory regions per task */
#define LIMIT_PROF_SESSIONS 4     /* profiling sessions per task without PERM_PROFILE */
#define LIMIT_NS_NAMES 8          /* names registered per task with the naming service */
/*
 * Names (held ones too) per task tree (<tasktree.h>) outside the system
 * trees, the trees of init's children; such trees together leave
 * LIMIT_NS_RESERVED of the naming service's slots to the system trees.
 */
#define LIMIT_NS_TREE_NAMES 16
#define LIMIT_NS_RESERVED 8
/*
 * SYS_CONSOLE_WRITE from a task without PERM_IO or PERM_SYSTEM: at most
 * LIMIT_CONSOLE_BYTES a second per task (a burst of as many; more:
 * ELIMIT), in lines of at most LIMIT_CONSOLE_LINE bytes besides the '\n'
 * (a longer one is refused whole with EINVAL, never cut).
 */
#define LIMIT_CONSOLE_BYTES 4096
#define LIMIT_CONSOLE_LINE 1024
/*
 * Bytes of the kernel's program cache (an entry and its symbol copies)
 * that images passed to SYS_SPAWN by one quota tree may hold: the tree of
 * the spawning task, which a task joins at spawn when its parent has its
 * permissions and was not started by the kernel (as libc's
 * task_quota_root). An entry is charged to the tree that loaded it until
 * it leaves the cache; a spawn beyond the bound, once the tree's unused
 * entries have gone, gets ELIMIT. Programs of the initrd are not charged.
 */
#define LIMIT_TREE_BIN_BYTES (4u << 20)

/*
 * sysinfo_limits_t (an abi/record.h row table): limit[] holds the LIMIT_*
 * above in the order of the usage fields, each listed after its field as
 * NAME_max.
 */
#define SYSINFO_LIMITS_ROWS(X, T) \
	X(T, FIELD, uint64_t, task, U64)                /* task id */ \
	X(T, FIELD, uint64_t, tree, U64)                /* id of its tree's root task */ \
	X(T, FIELD, uint32_t, box_calls, U32)           /* its answerbox: queued + held calls */ \
	X(T, SHOW, box_calls_max, limit[0], U32) \
	X(T, FIELD, uint32_t, box_answers, U32)         /* its calls whose answers are unread */ \
	X(T, SHOW, box_answers_max, limit[1], U32) \
	X(T, FIELD, uint32_t, threads, U32) \
	X(T, SHOW, threads_max, limit[2], U32) \
	X(T, FIELD, uint32_t, tree_tasks, U32)          /* tasks in its tree */ \
	X(T, SHOW, tree_tasks_max, limit[3], U32) \
	X(T, FIELD, uint32_t, regions, U32) \
	X(T, SHOW, regions_max, limit[4], U32) \
	X(T, FIELD, uint32_t, prof_sessions, U32) \
	X(T, SHOW, prof_sessions_max, limit[5], U32) \
	X(T, FIELD, uint32_t, bin_bytes, U32)           /* program cache bytes charged to its quota tree */ \
	X(T, SHOW, bin_bytes_max, limit[6], U32) \
	X(T, MEMBER, uint32_t, limit, [7])              /* the LIMIT_* above, in the order of the fields */ \
	X(T, FIELD, uint64_t, bin_tree, U64)            /* id of its quota tree's root (0: none, a kernel task) */ \
	X(T, FIELD, uint64_t, bin_denied, U64)          /* spawns its quota tree was refused (ELIMIT) */
RECORD_STRUCT(sysinfo_limits, SYSINFO_LIMITS_ROWS);

#endif
