/*
 * fs: the file service. Serves the initrd read-only at "/" and a tmpfs
 * at "/tmp", pipes at "/pipe" and the kprof device at "/dev" (kprof.c)
 * under the name "fs" (protocol: <fs_proto.h>); init starts it.
 *
 *   fs [-h] [-v] [-l KIB]
 *     -v      log connections that hang up
 *     -l KIB  tmpfs limit in KiB (default 8192)
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "serve.h"

#define DEFAULT_LIMIT_KIB 8192

static void usage(FILE *out)
{
	fprintf(out, "usage: fs [-h] [-v] [-l KIB]\n"
		"  the file service: the initrd at /, a tmpfs at /tmp\n"
		"  -v      log connections that hang up\n"
		"  -l KIB  tmpfs limit in KiB (default %d)\n",
		DEFAULT_LIMIT_KIB);
}

/* Parse the options into *limit_kib; 0 to go on, else the exit status. */
static int parse_args(int argc, char **argv, long *limit_kib)
{
	int opt;

	while ((opt = getopt(argc, argv, "hvl:")) != -1) {
		switch (opt) {
		case 'h':
			usage(stdout);
			return 2;
		case 'v':
			fs_verbose = true;
			break;
		case 'l':
			*limit_kib = strtol(optarg, NULL, 10);
			if (*limit_kib > 0 && *limit_kib <= 1024 * 1024)
				break;
			/* fall through */
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	return 0;
}

int main(int argc, char **argv)
{
	long limit_kib = DEFAULT_LIMIT_KIB;
	int r = parse_args(argc, argv, &limit_kib);

	if (r != 0)
		return r;
	if (fs_tree_init((size_t)limit_kib * 1024) != EOK) {
		fprintf(stderr, "fs: out of memory\n");
		return 1;
	}
	errno_t rc = fs_initrd_load();
	fs_have_initrd = rc == EOK;
	if (rc != EOK)
		printf("fs: no initrd (error %d): only /tmp\n", rc);
	rc = service_register(FS_SERVICE);
	if (rc != EOK) {
		fprintf(stderr, "fs: cannot register as \"%s\" (error %d)\n",
			FS_SERVICE, rc);
		return 1;
	}
	rc = ipc_server_loop(fs_handle_event, NULL);
	return rc == EOK || rc == EINTR ? 0 : 1;
}
