/*
 * Program start (called by crt0's _start) and the constructor table. Not
 * part of the host unit-test build: the host's own start-up code and
 * linker-provided init array are used there.
 */
#include <console.h>
#include <stdlib.h>

#include "libc.h"

/* Bounds of .init_array, from uspace/link.ld. */
extern void (*const __init_array_start[])(void);
extern void (*const __init_array_end[])(void);

/* Programs define main with zero, two or three parameters. */
int main(int argc, char **argv, char **envp);

static void run_constructors(void)
{
	for (void (*const *fn)(void) = __init_array_start;
	     fn < __init_array_end; fn++)
		(*fn)();
}

/* Not protected itself: it changes the canary and must not check it on return. */
__attribute__((no_stack_protector)) void __libc_start(int argc, char **argv, char **envp)
{
	__libc_stack_guard_init();
	__libc_environ = envp;
	if (argc > 0 && argv[0])
		__libc_progname = argv[0];
	__libc_console_stdio_init();
	__libc_cwd_init();
	__libc_stdfd_init();
	run_constructors();
	exit(main(argc, argv, envp));
}
