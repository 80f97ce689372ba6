/*
 * tester fault KIND: commit one fault on purpose so the kernel kills the
 * task and reports it, naming the function (fault_null, fault_div0, ...).
 * The fault functions are global, noinline and noipa so that they keep
 * their names in the symbol table and the faulting instruction lies inside
 * them (umip faults only where the CPU has UMIP). tester touch-unmapped:
 * a read of memory that was just unmapped.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <vernier.h>

#include "tester.h"

#define FAULT_FN __attribute__((noinline, noipa))
#define KERNEL_ADDR 0xffffffff80200000ul
#define STACK_FRAME 4096
#define TOUCH_SIZE (1u << 20)

/* Through a volatile pointer: GCC turns a literal NULL store into ud2. */
static int *volatile null_ptr;
static volatile unsigned int zero;
/* A depth the stack never reaches (keeps -Winfinite-recursion quiet). */
static volatile unsigned long stack_limit = ~0ul;

FAULT_FN void fault_null(void)
{
	*null_ptr = 1;
}

/* C division by zero is undefined; divl by a zero register is #DE. */
FAULT_FN void fault_div0(void)
{
	unsigned int n = 1, d = zero;

	__asm__ volatile("xor %%edx, %%edx\n\tdivl %1"
			 : "+a"(n) : "r"(d) : "rdx");
}

/* hlt is privileged: #GP in user mode. */
FAULT_FN void fault_priv(void)
{
	__asm__ volatile("hlt");
}

/* Runaway, non-tail recursion: runs off the 8 MiB stack into its guard. */
FAULT_FN unsigned long fault_stack(unsigned long depth)
{
	volatile char buf[STACK_FRAME];

	buf[0] = (char)depth;
	buf[sizeof(buf) - 1] = (char)depth;
	if (depth >= stack_limit)
		return buf[0];
	return fault_stack(depth + 1) + buf[0] + buf[sizeof(buf) - 1];
}

/* SIDT reveals the kernel's IDT address: with UMIP it is #GP in user mode. */
FAULT_FN void fault_umip(void)
{
	struct __attribute__((packed)) { uint16_t limit; uint64_t base; } idtr;

	__asm__ volatile("sidt %0" : "=m"(idtr));
	printf("tester: sidt ran (no UMIP)\n");
}

FAULT_FN void fault_kernel(void)
{
	volatile int *p = (volatile int *)KERNEL_ADDR;

	*p = 1;
}

typedef struct fault_kind {
	const char *name;
	void (*fn)(void);
} fault_kind_t;

static void fault_stack_start(void)
{
	fault_stack(0);
}

static const fault_kind_t kinds[] = {
	{ "null", fault_null },
	{ "div0", fault_div0 },
	{ "priv", fault_priv },
	{ "stack", fault_stack_start },
	{ "kernel", fault_kernel },
	{ "umip", fault_umip },
};

int cmd_fault(int argc, char **argv)
{
	if (argc != 2) {
		usage(0);
		return 2;
	}
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (strcmp(argv[1], kinds[i].name))
			continue;
		printf("tester: committing fault '%s'\n", kinds[i].name);
		fflush(stdout);
		kinds[i].fn();
		printf("tester: fault '%s' did not kill me\n", kinds[i].name);
		return 1;
	}
	fprintf(stderr, "tester: unknown fault kind '%s'\n", argv[1]);
	usage(0);
	return 2;
}

FAULT_FN void touch_unmapped(volatile unsigned char *p)
{
	(void)p[TOUCH_SIZE / 2];
}

/*
 * Map 1 MiB, check it reads back what was written, unmap it and read it
 * again: that must kill the task. Exit 1 if it did not (or the mapping
 * misbehaved).
 */
int cmd_touch_unmapped(int argc, char **argv)
{
	void *addr;

	if (argc != 1) {
		usage(0);
		return 2;
	}
	if (sys_map(NULL, TOUCH_SIZE, PROT_READ | PROT_WRITE, &addr) != EOK) {
		printf("tester: map failed\n");
		return 1;
	}
	volatile unsigned char *p = addr;
	for (size_t i = 0; i < TOUCH_SIZE; i += 4096)
		p[i] = (unsigned char)(i >> 12);
	for (size_t i = 0; i < TOUCH_SIZE; i += 4096) {
		if (p[i] != (unsigned char)(i >> 12)) {
			printf("tester: mapped memory lost a write at +%#zx\n", i);
			return 1;
		}
	}
	if (sys_unmap(addr, TOUCH_SIZE) != EOK) {
		printf("tester: unmap failed\n");
		return 1;
	}
	touch_unmapped(p);
	printf("tester: unmapped memory at %p is still readable\n", addr);
	return 1;
}
