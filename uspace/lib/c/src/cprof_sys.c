/* cprof_get and cprof_reset: SYS_CPROF's GET and RESET (see <cprof.h>). */
#include <cprof.h>
#include <vernier.h>

#include "libc.h"

errno_t cprof_get(void *buf, size_t size, size_t *needed)
{
	size_t want = 0;
	long r = __vernier_syscall(SYS_CPROF, CPROF_OP_GET, (long)buf, (long)size,
				   (long)&want, 0, 0);

	if (needed)
		*needed = r >= 0 ? (size_t)r : want;
	return r < 0 ? (errno_t)-r : EOK;
}

errno_t cprof_reset(int *ntables)
{
	long r = __libc_syscall1(SYS_CPROF, CPROF_OP_RESET);

	if (r >= 0 && ntables)
		*ntables = (int)r;
	return r < 0 ? (errno_t)-r : EOK;
}
