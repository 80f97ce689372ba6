/*
 * The stack protector's runtime (every program is built with
 * -fstack-protector-strong -mstack-protector-guard=global): the canary
 * every protected function copies into its frame, chosen once at start
 * (RDSEED or RDRAND when the CPU has them, else a mix of TSC readings),
 * and the function a protected function calls when the copy changed.
 */
#include <stdint.h>
#include <string.h>
#include <tsc.h>
#include <unistd.h>
#include <vernier.h>
#include <stdlib.h>
#include <lib/canary.h>

#include "libc.h"

#define RANDOM_TRIES 10
#define TSC_MIX_ROUNDS 16

/* Read by every protected function. Never 0 after start; lowest byte 0. */
uintptr_t __stack_chk_guard;

static bool stackprot_hw(uint64_t *v)
{
	uint32_t a, b, c, d;
	bool ok = false;

	__asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(1), "c"(0));
	for (int i = 0; (c & (1u << 30)) && !ok && i < RANDOM_TRIES; i++)
		__asm__ volatile("rdrand %0; setc %1" : "=r"(*v), "=qm"(ok) : : "cc");
	return ok;
}

static uint64_t stackprot_tsc(void)
{
	uint64_t h = 0;

	for (int i = 0; i < TSC_MIX_ROUNDS; i++) {
		uint32_t a = 0, b, c = 0, d;
		h = canary_mix(h, tsc_read_fast());
		__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	}
	return canary_mix(h, (uint64_t)(uintptr_t)&h);
}

__attribute__((no_stack_protector)) void __libc_stack_guard_init(void)
{
	uint64_t r;

	if (!stackprot_hw(&r))
		r = stackprot_tsc();
	__stack_chk_guard = canary_from(r);
}

__attribute__((noreturn)) void __stack_chk_fail(void);

/*
 * Called by a protected function whose canary copy changed: end at once,
 * with one console line and without running anything of the program's.
 */
__attribute__((no_stack_protector)) void __stack_chk_fail(void)
{
	static const char what[] = "*** stack smashing detected ***: ";
	const char *prog = __libc_progname ? __libc_progname : "?";
	char line[128];
	size_t n = sizeof(what) - 1, p = strnlen(prog, sizeof(line) - n - 12);

	memcpy(line, what, n);
	memcpy(line + n, prog, p);
	memcpy(line + n + p, " terminated\n", 12);
	sys_console_write(line, n + p + 12);
	sys_exit(EXIT_ABORT);
}
