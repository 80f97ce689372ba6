/*
 * Unit tests for libc's system call layer (the <vernier.h> wrappers pass
 * the right numbers and arguments, convert -errno results and fill their
 * out-parameters), thread_start's stack handling, setjmp/longjmp and
 * assert's failure path, all over the fake kernel.
 */
#include "tap.h"

#include <stdint.h>
#include <string.h>

#include "libc_host.h"

/* The arguments the fake kernel saw last: number then a1..a3. */
static bool last_call(long n, long a1, long a2, long a3)
{
	return fake.last[0] == n && fake.last[1] == a1 && fake.last[2] == a2 &&
		fake.last[3] == a3;
}

static void test_simple_calls(void)
{
	fake_reset();
	is_int(vl_sys_null(), EOK, "sys_null");
	ok(last_call(SYS_NULL, 0, 0, 0), "SYS_NULL issued");
	is_uint(vl_sys_task_id(), 7, "sys_task_id");
	is_uint(vl_sys_thread_id(), 70, "sys_thread_id");
	vl_sys_yield();
	is_int((int)fake.calls[SYS_YIELD], 1, "sys_yield");
	is_int(vl_sys_sleep_ns(12345), EOK, "sys_sleep_ns");
	is_uint(fake.slept_ns, 12345, "sleep length passed");
	fake_force(SYS_SLEEP, -EINTR);
	is_int(vl_sys_sleep_ns(1), EINTR, "-errno becomes a positive errno_t");
	is_int(vl_sys_console_write("hey", 3), EOK, "sys_console_write");
	is_str(fake_console(), "hey", "console got the bytes");
	fake_force(SYS_CONSOLE_WRITE, -EFAULT);
	is_int(vl_sys_console_write("x", 1), EFAULT, "console write error");
	fake_force(SYS_CONSOLE_WRITE, 0);
	is_int(vl_sys_console_write("x", 1), EIO, "a console that accepts nothing: EIO");
}

static void test_task_calls(void)
{
	task_id_t id = 0, waited = 0;
	int status = -1;
	const char *argv[] = { "/bin/x", "-v", NULL };

	fake_reset();
	fake_force(SYS_SPAWN, 12);
	is_int(vl_sys_spawn("/bin/x", argv, PERM_IO, &id), EOK, "sys_spawn");
	is_uint(id, 12, "spawned id returned");
	fake_force(SYS_SPAWN, -ENOENT);
	id = 99;
	is_int(vl_sys_spawn("/bin/none", NULL, 0, &id), ENOENT, "spawn failure");
	is_uint(id, 99, "id untouched on failure");

	fake_force(SYS_WAIT, 12);
	is_int(vl_sys_wait(WAIT_ANY, &status, WAIT_NOHANG, &waited), EOK, "sys_wait");
	ok(fake.last[1] == WAIT_ANY && fake.last[3] == WAIT_NOHANG, "wait arguments");
	is_uint(waited, 12, "waited id");
	is_int(status, 0, "status from the kernel's int");
	fake_force(SYS_WAIT, -ESRCH);
	is_int(vl_sys_wait(5, NULL, 0, NULL), ESRCH, "wait with NULL outputs");

	fake_force(SYS_KILL, 0);
	is_int(vl_sys_kill(12), EOK, "sys_kill");
	ok(last_call(SYS_KILL, 12, 0, 0), "kill argument");
	task_info_t info;
	fake_force(SYS_TASK_INFO, -EPERM);
	is_int(vl_sys_task_info(3, &info), EPERM, "sys_task_info error");
	ok(fake.last[1] == 3 && fake.last[2] == (long)&info, "task_info arguments");
	fake_force(SYS_SET_AFFINITY, 0);
	is_int(vl_sys_set_affinity(0, 0x3), EOK, "sys_set_affinity");
	ok(last_call(SYS_SET_AFFINITY, 0, 3, 0), "affinity arguments");
	fake_force(SYS_POWEROFF, -EPERM);
	is_int(vl_sys_poweroff(POWEROFF_TEST_PASS), EPERM, "sys_poweroff without rights");
	ok(last_call(SYS_POWEROFF, POWEROFF_TEST_PASS, 0, 0), "poweroff mode");
}

/* A spawn that checks its spawn_args_t while it is still alive. */
static void test_spawn_args(void)
{
	const char *argv[] = { "/bin/y", NULL };
	spawn_args_t a = { .path = "/bin/y", .argv = argv, .perms = PERM_KILL };
	task_id_t id;

	fake_reset();
	fake_force(SYS_SPAWN, 4);
	is_int(vl_sys_spawn("/bin/z", NULL, 0, &id), EOK, "spawn with argv NULL");
	fake_force(SYS_SPAWN, 5);
	is_int(vl_sys_spawn_args(&a, &id), EOK, "sys_spawn_args");
	ok(fake.last[1] == (long)&a && id == 5, "passes the caller's spawn_args_t");
}

static void test_memory_calls(void)
{
	void *addr = NULL;

	fake_reset();
	is_int(vl_sys_map(NULL, 8192, PROT_READ | PROT_WRITE, &addr), EOK, "sys_map");
	ok(addr != NULL && fake.last[2] == 8192 &&
	   fake.last[3] == (PROT_READ | PROT_WRITE), "map arguments and address");
	memset(addr, 1, 8192);
	is_int(vl_sys_unmap(addr, 8192), EOK, "sys_unmap");
	fake.maps_left = 0;
	is_int(vl_sys_map(NULL, 4096, PROT_READ, &addr), ENOMEM, "map failure");
	fake.maps_left = -1;
}

/* ---------------------------------------------------------------- threads */

static long thread_body(void *arg)
{
	return (long)(intptr_t)arg;
}

static void test_thread_start(void)
{
	thread_id_t tid = 0;

	fake_reset();
	vl_free(vl_malloc(1));   /* the heap's arena is mapped for good */
	size_t live = fake.live_maps;
	fake_force(SYS_THREAD_CREATE, 33);
	is_int(vl_thread_start(thread_body, (void *)5, &tid), EOK, "thread_start");
	is_uint(tid, 33, "thread id");
	is_uint(fake.live_maps, live + 1, "a stack was mapped");
	/* The stack top holds { fn, arg } for the entry trampoline. */
	long *boot = (long *)fake.last[2];
	ok(fake.last[2] == fake.last[3], "arg and stack top are the boot record");
	ok(boot[0] == (long)thread_body && boot[1] == 5, "boot record holds fn and arg");
	ok(((uintptr_t)boot + 16) % 4096 == 0, "at the very top of the stack");
	fake_force(SYS_THREAD_JOIN, 0);
	long value = -1;
	is_int(vl_thread_join(33, &value), EOK, "thread_join");
	is_uint(fake.live_maps, live, "join unmapped the stack");
	is_int(vl_thread_join(34, NULL), EOK, "joining an unknown thread is the kernel's call");

	fake_reset();
	fake_force(SYS_THREAD_CREATE, -ELIMIT);
	is_int(vl_thread_start(thread_body, NULL, &tid), ELIMIT, "creation failure");
	is_uint(fake.live_maps, live, "stack released on failure");
	fake_force(SYS_THREAD_JOIN, -ESRCH);
	is_int(vl_thread_join(1, NULL), ESRCH, "join failure");
}

/* ---------------------------------------------------------------- setjmp */

static vl_jmp_buf jb;
static volatile int depth_reached;

/* Recurses until it longjmps out: "infinite" by design. */
#pragma GCC diagnostic ignored "-Winfinite-recursion"
static __attribute__((noinline)) void dive(int depth)
{
	volatile char pad[64];

	pad[0] = (char)depth;
	depth_reached = depth + pad[0] - depth;
	if (depth == 20)
		vl_longjmp(jb, 0);
	dive(depth + 1);
}

static void test_setjmp(void)
{
	volatile int count = 0;
	int r = vl_setjmp(jb);

	count++;
	if (r == 0)
		vl_longjmp(jb, 42);
	is_int(r, 42, "longjmp value arrives");
	is_int(count, 2, "setjmp returned twice");
	r = vl_setjmp(jb);
	if (r == 0)
		dive(0);
	is_int(r, 1, "longjmp(0) makes setjmp return 1");
	is_int(depth_reached, 20, "jumped out of 20 frames");
}

/* ---------------------------------------------------------------- assert */

static void test_assert(void)
{
	jmp_buf exit_jb;

	fake_reset();
	fake.exit_jmp = &exit_jb;
	if (setjmp(exit_jb) == 0)
		vl___assert_fail("x > 0", "file.c", 12, "func");
	is_str(fake_console(), "?: file.c:12: func: Assertion `x > 0' failed.\n",
	       "assert message");
	is_int(fake.exit_status, 134, "assert aborts");
	fake.exit_jmp = NULL;
}

int main(void)
{
	test_simple_calls();
	test_task_calls();
	test_spawn_args();
	test_memory_calls();
	test_thread_start();
	test_setjmp();
	test_assert();
	return done_testing();
}
