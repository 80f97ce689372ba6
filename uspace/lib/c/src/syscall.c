/* Short forms of the raw system call. */
#include <vernier.h>

#include "libc.h"

long __libc_syscall0(long n)
{
	return __vernier_syscall(n, 0, 0, 0, 0, 0, 0);
}

long __libc_syscall1(long n, long a1)
{
	return __vernier_syscall(n, a1, 0, 0, 0, 0, 0);
}

long __libc_syscall2(long n, long a1, long a2)
{
	return __vernier_syscall(n, a1, a2, 0, 0, 0, 0);
}

long __libc_syscall3(long n, long a1, long a2, long a3)
{
	return __vernier_syscall(n, a1, a2, a3, 0, 0, 0);
}
