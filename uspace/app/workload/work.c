/*
 * The work functions. alpha..epsilon have identical loop bodies in user
 * code; an asm marker with the name keeps the compiler from merging them
 * and noinline/noclone keeps each a function of its own, so a profiler
 * sees five distinct symbols. ksyscall spends its time in the kernel
 * through SYS_NULL; kcopy in the kernel copying 64 KiB IPC data writes.
 */
#include <string.h>
#include <vernier.h>

#include "workload.h"

#define WL_INNER 256   /* steps of arithmetic per user iteration */

/* A user-code work function called NAME (identical bodies). */
#define WL_USER_FN(NAME)						\
	static __attribute__((noinline, noclone))			\
	uint64_t work_##NAME(uint64_t deadline, int phone)		\
	{								\
		uint64_t n = 0, x = 1;					\
									\
		(void)phone;						\
		__asm__ volatile("# workload " #NAME ::: "memory");	\
		do {							\
			for (int i = 0; i < WL_INNER; i++) {		\
				x = x * 6364136223846793005ull + 1;	\
				__asm__ volatile("" : "+r"(x));		\
			}						\
			n++;						\
		} while (tsc_read() < deadline);			\
		return n;						\
	}

WL_USER_FN(alpha)
WL_USER_FN(beta)
WL_USER_FN(gamma)
WL_USER_FN(delta)
WL_USER_FN(epsilon)

static __attribute__((noinline, noclone))
uint64_t work_ksyscall(uint64_t deadline, int phone)
{
	uint64_t n = 0;

	(void)phone;
	do {
		sys_null();
		n++;
	} while (tsc_read() < deadline);
	return n;
}

static __attribute__((noinline, noclone))
uint64_t work_kcopy(uint64_t deadline, int phone)
{
	uint64_t n = 0;

	do {
		if (kcopy_once(phone) != EOK)
			break;
		n++;
	} while (tsc_read() < deadline);
	return n;
}

static const struct {
	const char *name;
	wl_fn_t fn;
} work_table[] = {
	{ "alpha", work_alpha },
	{ "beta", work_beta },
	{ "gamma", work_gamma },
	{ "delta", work_delta },
	{ "epsilon", work_epsilon },
	{ "ksyscall", work_ksyscall },
	{ "kcopy", work_kcopy },
};

wl_fn_t work_find(const char *name)
{
	for (size_t i = 0; i < sizeof(work_table) / sizeof(work_table[0]); i++)
		if (!strcmp(work_table[i].name, name))
			return work_table[i].fn;
	return NULL;
}

bool work_needs_kcopy(wl_fn_t fn)
{
	return fn == work_kcopy;
}
