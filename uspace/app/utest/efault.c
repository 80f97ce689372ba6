/*
 * utest efault: every system call that takes a pointer refuses bad ones
 * with the exact error (EFAULT; EINVAL where the kernel checks a code or
 * stack address rather than copying through it) instead of crashing:
 * NULL, a kernel address, an unmapped user page, a non-canonical address
 * and, for pointers the kernel writes through, read-only memory. Raw
 * system calls, so libc cannot hide anything. Afterwards the system must
 * still work. Also: unknown system call numbers give ENOSYS.
 */
#include <stdio.h>
#include <string.h>
#include <thread.h>
#include <abi/ipc.h>
#include <ipc.h>

#include "utest.h"

#define NONCANONICAL 0x0000800000000000ul
#define UNMAPPED_ADDR 0x0000700000000000ul
#define PAGE 4096

typedef struct bad_addr {
	const char *name;
	long addr;
} bad_addr_t;

static const char rodata_page[PAGE] __attribute__((aligned(PAGE))) = "ro";
static bad_addr_t bad[5];
static int nbad;

/*
 * The bad addresses. The unmapped one lies between the SYS_MAP area and
 * the stack, where nothing is mapped unless asked for by address (a page
 * unmapped here would soon be reused by thread stacks and malloc).
 */
static void bad_init(void)
{
	(void)*(volatile const char *)rodata_page;   /* make it present */
	bad[0] = (bad_addr_t){ "NULL", 0 };
	bad[1] = (bad_addr_t){ "kernel", (long)KERNEL_ADDR };
	bad[2] = (bad_addr_t){ "unmapped", (long)UNMAPPED_ADDR };
	bad[3] = (bad_addr_t){ "non-canonical", (long)NONCANONICAL };
	bad[4] = (bad_addr_t){ "read-only", (long)rodata_page };
	nbad = 5;
}

/*
 * What a probe must return for each bad address, in bad[] order: NULL,
 * kernel, unmapped, non-canonical, read-only. SKIP: not tried.
 */
#define SKIP 1
typedef struct expect {
	long r[5];
} expect_t;

#define ALL(e) { { e, e, e, e, SKIP } }                 /* in pointers */
#define ALL_OUT(e) { { e, e, e, e, e } }                /* out pointers */

typedef long (*probe_fn_t)(long addr, int *cleanup_ok);

/* One pointer parameter: every bad address, one TAP result. */
static void check_param(const char *what, probe_fn_t call, expect_t want)
{
	char wrong[200] = "";
	int fails = 0;

	for (int i = 0; i < nbad; i++) {
		if (want.r[i] == SKIP)
			continue;
		int cleanup_ok = 1;
		long r = call(bad[i].addr, &cleanup_ok);
		if (r != want.r[i] || !cleanup_ok) {
			size_t len = strlen(wrong);
			snprintf(wrong + len, sizeof(wrong) - len, " %s: %ld (want %ld)%s;",
				 bad[i].name, r, want.r[i],
				 cleanup_ok ? "" : " cleanup failed");
			fails++;
		}
	}
	tap_ok(fails == 0, "efault: %s", what);
	if (fails)
		tap_diag("%s:%s", what, wrong);
}

/* ------------------------------------------------------------ probes */

static long p_console_write(long a, int *c)
{
	return raw3(SYS_CONSOLE_WRITE, a, 16, 0);
}

static const char *const hello_argv[] = { "hello", NULL };

static long p_spawn_args(long a, int *c)
{
	return raw3(SYS_SPAWN, a, 0, 0);
}

static long spawn_with(const char *path, const char *const *argv)
{
	spawn_args_t args = { .path = path, .argv = argv, .perms = 0 };
	long r = raw3(SYS_SPAWN, (long)&args, 0, 0);

	if (r >= 0)                 /* should not happen: reap it */
		sys_wait((task_id_t)r, NULL, 0, NULL);
	return r;
}

static long p_spawn_path(long a, int *c)
{
	return spawn_with((const char *)a, hello_argv);
}

static long p_spawn_argv(long a, int *c)
{
	return spawn_with("/bin/hello", (const char *const *)a);
}

static long p_spawn_argv1(long a, int *c)
{
	const char *argv[] = { "hello", (const char *)a, NULL };

	return spawn_with("/bin/hello", argv);
}

static long spawn_full(const spawn_args_t *args)
{
	long r = raw3(SYS_SPAWN, (long)args, 0, 0);

	if (r >= 0)
		sys_wait((task_id_t)r, NULL, 0, NULL);
	return r;
}

static long p_spawn_envp(long a, int *c)
{
	spawn_args_t args = { .path = "/bin/hello", .argv = hello_argv,
			      .envp = (const char *const *)a };
	return spawn_full(&args);
}

static long p_spawn_envp1(long a, int *c)
{
	const char *envp[] = { "A=1", (const char *)a, NULL };
	spawn_args_t args = { .path = "/bin/hello", .argv = hello_argv,
			      .envp = envp };
	return spawn_full(&args);
}

static long p_spawn_image(long a, int *c)
{
	spawn_args_t args = { .path = "/bin/hello", .argv = hello_argv,
			      .image = (const void *)a, .image_size = 4096 };
	return spawn_full(&args);
}

/* Images and fields the kernel must refuse without starting anything. */
static void check_spawn_image(void)
{
	static char junk[4096] = "\177ELF but not really";
	spawn_args_t a = { .path = "/bin/junk", .argv = hello_argv,
			   .image = junk, .image_size = sizeof(junk) };
	long r1 = spawn_full(&a);
	a.image_size = SPAWN_MAX_IMAGE + 1;
	long r2 = spawn_full(&a);
	a.image_size = 0;
	long r3 = spawn_full(&a);
	a = (spawn_args_t){ .path = "/bin/hello", .argv = hello_argv,
			    .image_size = 10 };
	long r4 = spawn_full(&a);
	a = (spawn_args_t){ .path = "/bin/hello", .argv = hello_argv,
			    .flags = 0x80 };
	long r5 = spawn_full(&a);
	tap_ok(r1 == -ENOEXEC && r2 == -E2BIG && r3 == -ENOEXEC && r4 == -EINVAL &&
	       r5 == -EINVAL, "efault: spawn refuses a junk image (%ld), a too big "
	       "one (%ld), size 0 (%ld), a size without image (%ld), reserved "
	       "bits (%ld)", r1, r2, r3, r4, r5);
}

/*
 * Wait for a fresh child with a bad status pointer: the kernel checks the
 * pointer before reaping, so the child stays collectable with its status.
 */
static long p_wait_status(long a, int *c)
{
	const char *const argv[] = { "tester", "noop", NULL };
	task_id_t id;
	int status = -1;

	if (sys_spawn("/bin/tester", argv, 0, &id) != EOK)
		return 1;
	long r = raw3(SYS_WAIT, (long)id, a, 0);
	if (r == (long)id)
		return 0;               /* NULL: "status not wanted" */
	errno_t rc = sys_wait(id, &status, 0, NULL);
	*c = rc == EOK && status == 0;
	if (!*c)
		tap_diag("wait with status pointer %#lx gave %ld and then the "
			 "child could not be collected (%d, status %d)", a, r, rc, status);
	return r;
}

static long quick_thread(void *arg)
{
	return 42;
}

/* Join a fresh thread with a bad value pointer: it stays joinable. */
static long p_join_value(long a, int *c)
{
	thread_id_t tid;
	long v = 0;

	if (thread_start(quick_thread, NULL, &tid) != EOK)
		return 1;
	long r = raw3(SYS_THREAD_JOIN, (long)tid, a, 0);
	errno_t rc = thread_join(tid, &v);   /* also frees the stack */
	if (r == 0)
		return rc == ESRCH ? 0 : 1;    /* NULL: "value not wanted" */
	*c = rc == EOK && v == 42;
	if (!*c)
		tap_diag("join with value pointer %#lx gave %ld and then the "
			 "thread could not be joined (%d, value %ld)", a, r, rc, v);
	return r;
}

static long p_getprofile(long a, int *c)
{
	return raw3(SYS_GETPROFILE, a, 0, 0);
}

static long p_task_info(long a, int *c)
{
	return raw3(SYS_TASK_INFO, (long)sys_task_id(), a, 0);
}

static long p_thread_stats(long a, int *c)
{
	return raw3(SYS_THREAD_STATS, 0, a, 0);
}

static long p_system_stats(long a, int *c)
{
	return raw3(SYS_SYSTEM_STATS, a, 0, 0);
}

static long p_fb_info(long a, int *c)
{
	return raw3(SYS_FB_INFO, a, 0, 0);
}

static long p_klog_buf(long a, int *c)
{
	uint64_t pos = 0;               /* the log is never empty by now */

	return __vernier_syscall(SYS_KLOG_READ, a, 64, (long)&pos, 0, 0, 0);
}

static long p_klog_pos(long a, int *c)
{
	char buf[64];

	return __vernier_syscall(SYS_KLOG_READ, (long)buf, sizeof(buf), a, 0, 0,
				 0);
}

/* Phone 0 (the naming service): the message is copied in first. */
static long p_ipc_call(long a, int *c)
{
	return raw3(SYS_IPC_CALL, IPC_NS_PHONE, a, 0);
}

static long p_ipc_call_sync(long a, int *c)
{
	ipc_event_t ev;

	return __vernier_syscall(SYS_IPC_CALL_SYNC, IPC_NS_PHONE, a, (long)&ev, 0, 0, 0);
}

/*
 * SYS_IPC_CALL_SYNC into a bad event buffer: the call is made (the naming
 * service answers an unknown method), the wait fails and the call id
 * comes back, and the answer is still there to be waited for by id.
 */
static void check_call_sync_event(void)
{
	char wrong[200] = "";
	int fails = 0;

	for (int i = 0; i < nbad; i++) {
		ipc_msg_t m = { .method = IPC_M_USER + 77 };
		ipc_event_t ev;
		long r = __vernier_syscall(SYS_IPC_CALL_SYNC, IPC_NS_PHONE, (long)&m,
					   bad[i].addr, 0, 0, 0);
		errno_t w = r > 0 ? sys_ipc_wait(&ev, 0, IPC_WAIT_ANSWER, (ipc_callid_t)r) : EINVAL;
		if (r <= 0 || w != EOK || ev.type != IPC_EV_ANSWER || ev.callid != (ipc_callid_t)r) {
			size_t len = strlen(wrong);
			snprintf(wrong + len, sizeof(wrong) - len, " %s: %ld, wait %d;",
				 bad[i].name, r, w);
			fails++;
		}
	}
	tap_ok(fails == 0, "efault: ipc_call_sync event out: the call id back, "
	       "its answer kept%s", wrong);
}

static long p_ipc_answer(long a, int *c)
{
	return raw3(SYS_IPC_ANSWER, 1, a, 0);
}

/* SYS_IPC_ANSWER_WAIT's answer in: checked before the call is looked up. */
static long p_ipc_answer_wait_msg(long a, int *c)
{
	ipc_event_t ev;

	return __vernier_syscall(SYS_IPC_ANSWER_WAIT, 1, a, (long)&ev, 0, IPC_WAIT_CALLS, 0);
}

/* Its event out: checked before the call is looked up, nothing answered. */
static long p_ipc_answer_wait_ev(long a, int *c)
{
	ipc_msg_t m = { .method = EOK };

	return __vernier_syscall(SYS_IPC_ANSWER_WAIT, 1, (long)&m, a, 0, IPC_WAIT_CALLS, 0);
}

static long p_ipc_wait(long a, int *c)
{
	return __vernier_syscall(SYS_IPC_WAIT, a, 0,
				 IPC_WAIT_ALL | IPC_WAIT_NONBLOCK, 0, 0, 0);
}

static void never_runs(void *arg)
{
	sys_thread_exit(1);
}

static long aligned_stack_top(void)
{
	static char stack[PAGE] __attribute__((aligned(16)));

	return (long)(stack + sizeof(stack));
}

static long create_and_join(long entry, long stack)
{
	long r = raw3(SYS_THREAD_CREATE, entry, 0, stack);

	if (r >= 0)                 /* should not happen */
		sys_thread_join((thread_id_t)r, NULL);
	return r;
}

/* Entry and stack are checked, not copied: EINVAL. The unmapped user
 * page is skipped for them: the kernel cannot know it will fault. */
static long p_thread_entry(long a, int *c)
{
	if (a == bad[2].addr)
		return -EINVAL;
	return create_and_join(a, aligned_stack_top());
}

static long p_thread_stack(long a, int *c)
{
	if (a == bad[2].addr)
		return -EINVAL;
	return create_and_join((long)never_runs, a);
}

/* Out pointers the kernel may write only after doing the work. */
static const expect_t wait_expect = { { 0, -EFAULT, -EFAULT, -EFAULT, -EFAULT } };

static void check_out_params(void)
{
	check_param("wait status out (NULL: not wanted)", p_wait_status,
		    wait_expect);
	check_param("thread_join value out (NULL: not wanted)", p_join_value,
		    wait_expect);
	check_param("task_info out", p_task_info, (expect_t)ALL_OUT(-EFAULT));
	check_param("getprofile out", p_getprofile, (expect_t)ALL_OUT(-EFAULT));
	check_param("thread_stats out", p_thread_stats,
		    (expect_t)ALL_OUT(-EFAULT));
	check_param("system_stats out", p_system_stats,
		    (expect_t)ALL_OUT(-EFAULT));
	/* Without a screen the call fails before it looks at the pointer. */
	fb_info_t fb;
	long e = raw3(SYS_FB_INFO, (long)&fb, 0, 0) == -ENOENT ? -ENOENT : -EFAULT;
	check_param("fb_info out", p_fb_info, (expect_t)ALL_OUT(e));
	check_param("klog_read buf", p_klog_buf, (expect_t)ALL_OUT(-EFAULT));
	check_param("klog_read pos (in and out)", p_klog_pos,
		    (expect_t)ALL_OUT(-EFAULT));
}

static void check_ipc_params(void)
{
	check_param("ipc_call msg", p_ipc_call, (expect_t)ALL(-EFAULT));
	check_param("ipc_call_sync msg", p_ipc_call_sync, (expect_t)ALL(-EFAULT));
	check_call_sync_event();
	check_param("ipc_answer msg", p_ipc_answer, (expect_t)ALL(-EFAULT));
	check_param("ipc_answer_wait msg", p_ipc_answer_wait_msg, (expect_t)ALL(-EFAULT));
	check_param("ipc_answer_wait event out", p_ipc_answer_wait_ev,
		    (expect_t)ALL_OUT(-EFAULT));
	/* The event buffer is checked before an event is taken. */
	check_param("ipc_wait event out", p_ipc_wait, (expect_t)ALL_OUT(-EFAULT));
}

static void check_thread_create(void)
{
	/* Entry and stack are checked, not copied through: EINVAL. The
	 * unmapped user page is not tried: the kernel cannot know it. */
	expect_t inval = { { -EINVAL, -EINVAL, SKIP, -EINVAL, SKIP } };

	check_param("thread_create entry (EINVAL)", p_thread_entry, inval);
	check_param("thread_create stack (EINVAL)", p_thread_stack, inval);
	long r = raw3(SYS_THREAD_CREATE, (long)never_runs, 0,
		      aligned_stack_top() - 8);
	if (r >= 0)
		sys_thread_join((thread_id_t)r, NULL);
	tap_ok(r == -EINVAL, "efault: thread_create with a misaligned stack "
	       "gives EINVAL (%ld)", r);
}

void test_efault(void)
{
	bad_init();
	check_param("console_write buf", p_console_write, (expect_t)ALL(-EFAULT));
	check_param("spawn args struct", p_spawn_args, (expect_t)ALL(-EFAULT));
	check_param("spawn path", p_spawn_path, (expect_t)ALL(-EFAULT));
	check_param("spawn argv (NULL: EINVAL)", p_spawn_argv,
		    (expect_t){ { -EINVAL, -EFAULT, -EFAULT, -EFAULT, SKIP } });
	/* argv[1] = NULL just ends argv. */
	check_param("spawn argv[1]", p_spawn_argv1,
		    (expect_t){ { SKIP, -EFAULT, -EFAULT, -EFAULT, SKIP } });
	check_param("spawn envp", p_spawn_envp,
		    (expect_t){ { SKIP, -EFAULT, -EFAULT, -EFAULT, SKIP } });
	check_param("spawn envp[1]", p_spawn_envp1,
		    (expect_t){ { SKIP, -EFAULT, -EFAULT, -EFAULT, SKIP } });
	check_param("spawn image", p_spawn_image,
		    (expect_t){ { SKIP, -EFAULT, -EFAULT, -EFAULT, SKIP } });
	check_spawn_image();
	check_out_params();
	check_ipc_params();
	check_thread_create();
	long r = raw3(SYS_UNMAP, (long)KERNEL_ADDR, PAGE, 0);
	tap_ok(r == -EINVAL, "efault: unmap of a kernel address gives EINVAL (%ld)",
	       r);
	r = spawn_with("/bin/no-such-program", hello_argv);
	tap_ok(r == -ENOENT, "efault: spawn of a missing program gives ENOENT (%ld)",
	       r);
	check_hello("after bad pointers");
}

void test_enosys(void)
{
	static const long numbers[] = { SYS_COUNT, 999, -1, 1l << 32 };
	int fails = 0;

	for (size_t i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++) {
		long r = raw3(numbers[i], 0, 0, 0);
		if (r != -ENOSYS) {
			tap_diag("syscall %#lx gave %ld, want %d", numbers[i], r, -ENOSYS);
			fails++;
		}
	}
	tap_ok(fails == 0, "efault: unknown syscall numbers (SYS_COUNT, 999, -1, "
	       "2^32) give ENOSYS");
}
