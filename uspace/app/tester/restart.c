/* tester: helpers of test/restart.t (servers that come back). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <vernier.h>

#include "tester.h"

#define STALE_TRIES 300            /* x 100 ms */
#define MS 1000000ull

/* Read from fd's start; 0, or the errno of the failed read. */
static int stale_read(int fd)
{
	char c;

	if (lseek(fd, 0, SEEK_SET) < 0 || read(fd, &c, 1) < 0)
		return errno;
	return 0;
}

/*
 * `fsstale PATH`: open PATH, then read it every 100 ms until a read fails
 * other than with the hang-up of the server dying: that is the old
 * descriptor after the file service came back (EBADF expected). Then open
 * PATH anew and say how that went. Exit 0 if the old descriptor gave
 * EBADF, 1 otherwise.
 */
int cmd_fsstale(int argc, char **argv)
{
	if (argc != 2) {
		usage(0);
		return 2;
	}
	int fd = open(argv[1], O_RDONLY), rc = 0;
	if (fd < 0) {
		printf("fsstale: cannot open %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	printf("fsstale: opened %s as %d\n", argv[1], fd);
	for (int i = 0; i < STALE_TRIES && (rc == 0 || rc == EHANGUP ||
					    rc == ETIMEOUT); i++) {
		sys_sleep_ns(100 * MS);
		rc = stale_read(fd);
	}
	printf("fsstale: old descriptor: %s\n", rc ? strerror(rc) : "still works");
	int fd2 = open(argv[1], O_RDONLY);
	if (fd2 >= 0)
		printf("fsstale: new open: descriptor %d\n", fd2);
	else
		printf("fsstale: new open: %s\n", strerror(errno));
	return rc == EBADF ? 0 : 1;
}

/* `klog TEXT`: write TEXT as a kernel log line (SYS_CONSOLE_WRITE). */
int cmd_klog(int argc, char **argv)
{
	char line[128];

	if (argc != 2) {
		usage(0);
		return 2;
	}
	int n = snprintf(line, sizeof(line), "%s\n", argv[1]);
	if (n < 0 || (size_t)n >= sizeof(line))
		return 2;
	return sys_console_write(line, (size_t)n) == EOK ? 0 : 1;
}
