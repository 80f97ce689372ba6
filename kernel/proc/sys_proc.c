/* System calls for tasks and threads (see abi/syscall.h for the contract). */
#include <abi/syscall.h>
#include <abi/task.h>
#include <kernel/cpu.h>
#include <kernel/sched.h>
#include <kernel/sysimpl.h>
#include <kernel/task.h>
#include <kernel/time.h>
#include <kernel/vm.h>
#include <kernel/vm_space.h>
#include <lib/string.h>

#define PATH_MAX_LEN 128

/* Copied-in spawn arguments: path, argv and envp pointers, their strings. */
typedef struct spawn_buf {
	char path[PATH_MAX_LEN];
	const char *argv[SPAWN_MAX_ARGS + 1];
	const char *envp[SPAWN_MAX_ARGS + 1];
	char strings[SPAWN_MAX_ARGLEN];
	size_t used;                 /* bytes of strings taken */
	void *image;                 /* kernel copy of the image, or NULL */
} spawn_buf_t;

/* Copy the NULL-terminated user vector uvec into out (strings in b). */
static errno_t spawn_copy_vec(spawn_buf_t *b, const char *const *uvec,
			      const char **out)
{
	for (size_t i = 0;; i++) {
		const char *uarg;
		if (i > SPAWN_MAX_ARGS)
			return E2BIG;
		if (copy_from_user(&uarg, &uvec[i], sizeof(uarg)) != EOK)
			return EFAULT;
		out[i] = NULL;
		if (!uarg)
			return EOK;
		if (b->used >= sizeof(b->strings))
			return E2BIG;
		errno_t rc = copy_string_from_user(b->strings + b->used, uarg,
						   sizeof(b->strings) - b->used);
		if (rc != EOK)
			return rc;
		out[i] = b->strings + b->used;
		b->used += strlen(out[i]) + 1;
	}
}

/* Copy the program image the caller passed (if any) into the kernel. */
static errno_t spawn_copy_image(spawn_buf_t *b, const spawn_args_t *args)
{
	if (!args->image)
		return args->image_size ? EINVAL : EOK;
	if (args->image_size == 0 || args->image_size > SPAWN_MAX_IMAGE)
		return args->image_size ? E2BIG : ENOEXEC;
	b->image = kmalloc(args->image_size);
	if (!b->image)
		return ENOMEM;
	return copy_from_user(b->image, args->image, args->image_size);
}

/* Copy everything args points to into b. */
static errno_t spawn_copy_in(spawn_buf_t *b, const spawn_args_t *args)
{
	errno_t rc = (args->flags & ~SPAWN_F_STOPPED) || !args->argv ? EINVAL : EOK;

	if (rc == EOK)
		rc = copy_string_from_user(b->path, args->path, sizeof(b->path));
	if (rc == EOK && str_has_ctrl(b->path))
		rc = EINVAL;                 /* it names the task: no forged log lines */
	if (rc == EOK)
		rc = spawn_copy_vec(b, args->argv, b->argv);
	if (rc == EOK && args->envp)
		rc = spawn_copy_vec(b, args->envp, b->envp);
	if (rc == EOK)
		rc = spawn_copy_image(b, args);
	return rc;
}

int64_t sys_spawn(SYSCALL_ARGS)
{
	spawn_args_t args;
	task_id_t id;

	if (copy_from_user(&args, (const void *)a0, sizeof(args)) != EOK)
		return -EFAULT;
	spawn_buf_t *b = kzalloc(sizeof(*b));
	if (!b)
		return -ENOMEM;
	errno_t rc = spawn_copy_in(b, &args);
	if (rc == EOK) {
		task_spawn_req_t req = {
			.path = b->path, .argv = b->argv, .envp = b->envp,
			.image = b->image, .image_size = args.image_size,
			.perms = args.perms, .flags = args.flags,
		};
		rc = task_spawn(&req, task_current(), &id);
	}
	kfree(b->image);
	kfree(b);
	return rc == EOK ? (int64_t)id : -rc;
}

/* Check an output buffer is writable before anything is consumed for it. */
static errno_t probe_out(uint64_t uaddr, size_t len)
{
	uint8_t zero[16] = { 0 };
	return len <= sizeof(zero) ? copy_to_user((void *)uaddr, zero, len) : EINVAL;
}

int64_t sys_wait(SYSCALL_ARGS)
{
	task_id_t id;
	int status;

	if (a2 & ~WAIT_NOHANG)
		return -EINVAL;
	if (a1 && probe_out(a1, sizeof(int)) != EOK)
		return -EFAULT;
	errno_t rc = task_wait(task_current(), a0, (unsigned)a2, &id, &status);
	if (rc != EOK)
		return -rc;
	if (a1 && copy_to_user((void *)a1, &status, sizeof(status)) != EOK)
		return -EFAULT;
	return (int64_t)id;
}

int64_t sys_kill(SYSCALL_ARGS)
{
	task_t *me = task_current();
	task_t *t = task_get(a0);

	if (!t)
		return -ESRCH;
	errno_t rc = EPERM;
	if (t->parent == me || (me->perms & PERM_KILL) || t == me)
		rc = task_kill(t, TASK_STATUS_KILLED | KILL_REASON_SIGNAL);
	task_unref(t);
	return -rc;
}

int64_t sys_thread_create(SYSCALL_ARGS)
{
	thread_t *t;

	if (!user_range_ok(a0, 1) || !user_range_ok(a2 - 16, 16) || (a2 & 15))
		return -EINVAL;
	errno_t rc = thread_create_user(task_current(), a0, a2 - 8, a1, &t);
	return rc == EOK ? (int64_t)t->id : -rc;
}

int64_t sys_thread_exit(SYSCALL_ARGS)
{
	thread_exit((long)a0);
}

int64_t sys_thread_join(SYSCALL_ARGS)
{
	task_t *me = task_current();
	long value;

	if (a1 && probe_out(a1, sizeof(long)) != EOK)
		return -EFAULT;
	uint64_t f = spin_lock_irqsave(&me->lock);
	thread_t *t = thread_find(me, a0);
	bool ok = t && !t->join_claimed && t != thread_current();
	if (ok) {
		t->join_claimed = true;
		thread_ref(t);   /* held while waiting */
	}
	spin_unlock_irqrestore(&me->lock, f);
	if (!ok)
		return t == thread_current() ? -EINVAL : -ESRCH;
	errno_t rc = thread_join(t, &value);
	thread_unref(t);
	if (rc != EOK)
		return -rc;
	if (a1 && copy_to_user((void *)a1, &value, sizeof(value)) != EOK)
		return -EFAULT;
	return 0;
}

int64_t sys_task_info(SYSCALL_ARGS)
{
	task_info_t info;
	task_t *t = a0 ? task_get(a0) : task_current();

	if (!t)
		return -ESRCH;
	memset(&info, 0, sizeof(info));
	info.id = t->id;
	info.parent = task_parent_id(t);
	strlcpy(info.name, t->name, sizeof(info.name));
	info.perms = t->perms;
	info.threads = t->nthreads;
	if (a0)
		task_unref(t);
	return copy_to_user((void *)a1, &info, sizeof(info)) == EOK ? 0 : -EFAULT;
}

int64_t sys_set_affinity(SYSCALL_ARGS)
{
	task_t *me = task_current();
	uint64_t valid = cpu_count >= 64 ? ~0ull : (1ull << cpu_count) - 1;

	if (!(a1 & valid))
		return -EINVAL;
	uint64_t f = spin_lock_irqsave(&me->lock);
	thread_t *t = a0 ? thread_find(me, a0) : thread_current();
	if (t && !t->exited)
		sched_set_params(t, -1, a1 & valid);
	spin_unlock_irqrestore(&me->lock, f);
	if (!t)
		return -ESRCH;
	if (t == thread_current() && !(t->affinity & (1ull << cpu_id())))
		sched_yield();          /* move now */
	return 0;
}

int64_t sys_thread_stats(SYSCALL_ARGS)
{
	task_t *me = task_current();
	thread_stats_t st;

	memset(&st, 0, sizeof(st));
	uint64_t f = spin_lock_irqsave(&me->lock);
	thread_t *t = a0 ? thread_find(me, a0) : thread_current();
	if (t) {
		st.id = t->id;
		st.cpu = t->cpu;
		st.priority = t->priority;
		st.user_ns = time_cycles_to_ns(t->acct.user_cycles);
		st.kernel_ns = time_cycles_to_ns(t->acct.kernel_cycles);
		st.switches = t->acct.switches;
	}
	spin_unlock_irqrestore(&me->lock, f);
	if (!t)
		return -ESRCH;
	return copy_to_user((void *)a1, &st, sizeof(st)) == EOK ? 0 : -EFAULT;
}

int64_t sys_system_stats(SYSCALL_ARGS)
{
	system_stats_t st;
	frame_stats_t fs = frame_stats();

	memset(&st, 0, sizeof(st));
	st.frames_total = fs.total;
	st.frames_free = fs.free;
	st.cpus_online = cpus_online;
	st.tasks = (uint32_t)task_count();
	st.tsc_hz = time_cycles_per_sec();
	return copy_to_user((void *)a0, &st, sizeof(st)) == EOK ? 0 : -EFAULT;
}
