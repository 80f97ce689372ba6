/*
 * utest map: SYS_MAP gives zeroed memory that keeps what is written,
 * SYS_UNMAP gives its frames back and makes it inaccessible (a child that
 * touches unmapped memory is killed), and W+X mappings are refused.
 * PROT_NONE memory and a libc thread stack's guard fault (tester
 * touch-protnone, thread-overflow), and no mapping lands in the guard
 * (tester thread-guard). SYS_UNMAP removes any region: the initrd mapped
 * with SYS_INITRD_MAP goes, and its frames (the kernel's) stay in use.
 */
#include "utest.h"

#define MAP_SIZE (1u << 20)
#define PAGE 4096
#define USER_SPACE_END 0x0000800000000000ul

/* Map, fill, check, unmap 1 MiB; 0 if all went well. */
static int map_cycle(void)
{
	void *addr;

	if (sys_map(NULL, MAP_SIZE, PROT_READ | PROT_WRITE, &addr) != EOK)
		return -1;
	volatile uint32_t *p = addr;
	size_t n = MAP_SIZE / sizeof(*p);
	int bad = 0;
	for (size_t i = 0; i < n; i++)
		bad |= p[i] != 0;                   /* fresh memory is zero */
	for (size_t i = 0; i < n; i++)
		p[i] = (uint32_t)(i * 2654435761u);
	for (size_t i = 0; i < n; i++)
		bad |= p[i] != (uint32_t)(i * 2654435761u);
	if (sys_unmap(addr, MAP_SIZE) != EOK)
		return -1;
	return bad ? -1 : 0;
}

/* A hint in kernel space must not give kernel-space memory. */
static void check_kernel_hint(void)
{
	void *addr = NULL;
	errno_t rc = sys_map((void *)KERNEL_ADDR, PAGE, PROT_READ | PROT_WRITE,
			     &addr);

	if (rc == EOK)
		sys_unmap(addr, PAGE);
	tap_ok(rc != EOK || (uintptr_t)addr < USER_SPACE_END,
	       "map: a kernel-space hint never maps kernel space (error %d, "
	       "address %p)", rc, addr);
}

/*
 * Map the initrd, unmap it: the kernel's copy reads of it work before and
 * fault after (a path there: ENOENT, then EFAULT), and no frame comes back
 * to the allocator (only page tables might move: a few frames at most).
 */
static void check_initrd_unmap(void)
{
	const char *base = NULL;
	size_t size = 0;
	system_stats_t before, after;
	long mapped = raw3(SYS_INITRD_MAP, (long)&base, (long)&size, 0);
	uintptr_t at = (uintptr_t)base & ~(uintptr_t)(PAGE - 1);
	size_t len = size + ((uintptr_t)base - at);
	long seen = mapped == 0 ? raw3(SYS_SYSINFO_TYPE, (long)base, 0, 0) : 0;

	get_system_stats(&before);
	errno_t rc = mapped == 0 ? sys_unmap((void *)at, len) : EINVAL;
	get_system_stats(&after);
	long gone = raw3(SYS_SYSINFO_TYPE, (long)base, 0, 0);
	long moved = (long)after.frames_free - (long)before.frames_free;
	tap_ok(mapped == 0 && size > 64 * PAGE && rc == EOK && seen == -ENOENT &&
	       gone == -EFAULT && moved >= -4 && moved <= 4,
	       "map: the initrd (%zu KiB) unmaps (%d); reads of it then fault (%ld, "
	       "before %ld); its frames are not freed (%ld free frames moved)",
	       size >> 10, rc, gone, seen, moved);
}

/* Run `tester CMD` without permissions; its exit status (or -1). */
static int tester_status(const char *cmd)
{
	const char *const argv[] = { "tester", cmd, NULL };
	int status = -1;

	return run_wait(argv, 0, &status) == EOK ? status : -1;
}

/* PROT_NONE memory and thread-stack guards fault; nothing maps in a guard. */
static void check_guards(void)
{
	int killed = TASK_STATUS_KILLED | KILL_REASON_FAULT;
	int s = tester_status("touch-protnone");

	tap_ok(s == killed, "map: a child reading PROT_NONE memory is killed (%s)",
	       status_str(s));
	s = tester_status("thread-overflow");
	tap_ok(s == killed, "map: a child whose thread runs off its stack is killed (%s)",
	       status_str(s));
	s = tester_status("thread-guard");
	tap_ok(s == 0, "map: the 16 KiB below a thread stack is unreachable and unmappable (%s)",
	       status_str(s));
}

void test_map(void)
{
	system_stats_t before, after;
	void *addr = NULL;

	int first = map_cycle();
	get_system_stats(&before);
	int second = map_cycle();
	get_system_stats(&after);
	tap_ok(first == 0 && second == 0,
	       "map: 1 MiB mapped reads zero, keeps what is written, unmaps");
	tap_ok(after.frames_free == before.frames_free,
	       "map: unmap gives every frame back (%llu free before, %llu after)",
	       (unsigned long long)before.frames_free,
	       (unsigned long long)after.frames_free);
	errno_t rc = sys_map(NULL, PAGE, PROT_READ | PROT_WRITE | PROT_EXEC, &addr);
	if (rc == EOK)
		sys_unmap(addr, PAGE);
	tap_ok(rc == EINVAL, "map: PROT_WRITE|PROT_EXEC gives EINVAL (%d)", rc);
	rc = sys_map(NULL, 0, PROT_READ, &addr);
	tap_ok(rc == EINVAL, "map: zero length gives EINVAL (%d)", rc);
	check_kernel_hint();
	check_initrd_unmap();

	const char *const argv[] = { "tester", "touch-unmapped", NULL };
	int status = -1;
	rc = run_wait(argv, 0, &status);
	tap_ok(rc == EOK && status == (TASK_STATUS_KILLED | KILL_REASON_FAULT),
	       "map: a child touching memory it unmapped is killed (%s)",
	       rc == EOK ? status_str(status) : "spawn failed");
	check_guards();
}
