/* profile() and getprofile(): SYS_PROFILE and SYS_GETPROFILE with errno. */
#include <errno.h>
#include <profil.h>
#include <vernier.h>

#include "libc.h"

/* A raw result as 0, or -1 with errno set. */
static int profile_result(long r)
{
	if (r >= 0)
		return 0;
	errno = (int)-r;
	return -1;
}

int profile(task_id_t pid, uintptr_t startaddr, uintptr_t endaddr, size_t interval)
{
	return profile_result(__vernier_syscall(SYS_PROFILE, (long)pid, (long)startaddr,
					      (long)endaddr, (long)interval, 0, 0));
}

int getprofile(struct profil_data *p)
{
	return profile_result(__libc_syscall1(SYS_GETPROFILE, (long)p));
}
