/*
 * tester touch-protnone: map a page PROT_NONE (no protection bits) and
 * read it: that must kill the task. tester thread-guard: no mapping can be
 * placed in the MAP_GUARD_SIZE bytes below a thread's stack, nor is any
 * of it accessible (exit 0, or 1 naming what was found). tester thread-overflow: a thread
 * recurses off its stack, which must kill the task rather than write into
 * whatever lies below.
 */
#include <stdio.h>
#include <thread.h>
#include <vernier.h>

#include "tester.h"

#define PAGE 4096ul
#define GUARD_STACK (64 * 1024ul)
#define OVERFLOW_FRAME 1024
#define FAULT_FN __attribute__((noinline, noipa))

/* A depth the recursion never reaches (keeps -Winfinite-recursion quiet). */
static volatile unsigned long overflow_limit = ~0ul;

static volatile uintptr_t stack_bottom;
static volatile int probe_done;

FAULT_FN void touch_protnone(volatile unsigned char *p)
{
	(void)p[100];
}

int cmd_touch_protnone(int argc, char **argv)
{
	void *addr;

	if (argc != 1) {
		usage(0);
		return 2;
	}
	if (sys_map(NULL, PAGE, 0, &addr) != EOK) {
		printf("tester: PROT_NONE map failed\n");
		return 1;
	}
	touch_protnone(addr);
	printf("tester: PROT_NONE memory at %p is readable\n", addr);
	return 1;
}

/* In the thread: publish the stack's bottom (its top page holds this frame), wait. */
static long guard_thread(void *arg)
{
	volatile char local = 0;
	uintptr_t top = ((uintptr_t)&local + PAGE - 1) & ~(PAGE - 1);

	(void)arg;
	stack_bottom = top - GUARD_STACK;
	while (!probe_done)
		sys_yield();
	return local;
}

/* True if the kernel can read at p (a path lookup copies it: EFAULT if not). */
static int readable(uintptr_t p)
{
	unsigned type;
	return sys_sysinfo_type((const char *)p, &type) != EFAULT;
}

/*
 * 1 if a page of the guard below bottom is accessible (some other region
 * reaches up to it) or can be mapped with a hint.
 */
static int guard_probe(uintptr_t bottom)
{
	int bad = 0;

	for (uintptr_t p = bottom - MAP_GUARD_SIZE; p < bottom; p += PAGE) {
		void *addr;
		if (readable(p)) {
			printf("tester: memory %lu bytes below a thread stack is accessible\n",
			       (unsigned long)(bottom - p));
			bad = 1;
		}
		if (sys_map((void *)p, PAGE, PROT_READ | PROT_WRITE, &addr) != EOK)
			continue;
		uintptr_t a = (uintptr_t)addr;
		if (a >= bottom - MAP_GUARD_SIZE && a < bottom) {
			printf("tester: a page was mapped at %p, %lu bytes below a thread stack\n",
			       addr, (unsigned long)(bottom - a));
			bad = 1;
		}
		sys_unmap(addr, PAGE);
	}
	return bad;
}

int cmd_thread_guard(int argc, char **argv)
{
	thread_id_t tid;

	if (argc != 1) {
		usage(0);
		return 2;
	}
	if (thread_start_stack(guard_thread, NULL, GUARD_STACK, &tid) != EOK) {
		printf("tester: thread_start failed\n");
		return 1;
	}
	while (!stack_bottom)
		sys_yield();
	int bad = guard_probe(stack_bottom);
	probe_done = 1;
	thread_join(tid, NULL);
	return bad;
}

/* Runaway recursion, OVERFLOW_FRAME bytes a level, each frame touched. */
FAULT_FN unsigned long overflow_stack(unsigned long depth)
{
	volatile char buf[OVERFLOW_FRAME];

	buf[0] = (char)depth;
	buf[sizeof(buf) - 1] = (char)depth;
	if (depth >= overflow_limit)
		return buf[0];
	return overflow_stack(depth + 1) + buf[0] + buf[sizeof(buf) - 1];
}

static long overflow_thread(void *arg)
{
	(void)arg;
	return (long)overflow_stack(0);
}

int cmd_thread_overflow(int argc, char **argv)
{
	thread_id_t tid;
	long value = 0;

	if (argc != 1) {
		usage(0);
		return 2;
	}
	if (thread_start_stack(overflow_thread, NULL, GUARD_STACK, &tid) != EOK) {
		printf("tester: thread_start failed\n");
		return 1;
	}
	thread_join(tid, &value);
	printf("tester: a thread ran off its stack and lived (%ld)\n", value);
	return 1;
}
