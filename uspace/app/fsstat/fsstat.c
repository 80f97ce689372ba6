/*
 * fsstat: the file service's usage (FS_DR_USAGE, <fs_proto.h>): the
 * tmpfs, connections and handles in all against their limits, then one
 * line per task tree holding connections (tree 0: the orphans'):
 *
 *   tmpfs: 4224 of 8388608 bytes; pipes: 0 alive, 32 per tree
 *   connections: 3 of 256 (8 per task, 24 per tree)
 *   handles: 1 of 1024 (128 per task, 192 per tree)
 *   TREE  TASKS  CONNS  HANDLES  PIPES  REFUSED
 *   2     1      1      0        0      0
 *
 *   fsstat [-h]
 */
#include <fs_proto.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <vernier.h>

static void usage(FILE *out)
{
	fprintf(out, "usage: fsstat [-h]\n"
		"  print the file service's usage per task tree and its limits\n");
}

/* FS_DR_USAGE from the first'th tree on into u; the server's answer. */
static errno_t read_usage(int phone, uint32_t first, fs_usage_t *u)
{
	memset(u, 0, sizeof(*u));
	return ipc_call_sync(phone, IPC_M_DATA_READ, (uintptr_t)u, sizeof(*u),
			     FS_DR_USAGE, 0, first, NULL);
}

static void print_totals(const fs_usage_t *u)
{
	printf("tmpfs: %lu of %lu bytes; pipes: %u alive, %u per tree\n",
	       (unsigned long)u->tmp_used, (unsigned long)u->tmp_limit,
	       u->pipes, u->tree_pipes_max);
	printf("connections: %u of %u (%u per task, %u per tree)\n", u->conns,
	       u->conns_max, u->task_conns_max, u->tree_conns_max);
	printf("handles: %u of %u (%u per task, %u per tree)\n", u->handles,
	       u->handles_max, u->task_handles_max, u->tree_handles_max);
	printf("TREE  TASKS  CONNS  HANDLES  PIPES  REFUSED\n");
}

static void print_trees(const fs_usage_t *u)
{
	for (uint32_t i = 0; i < u->count; i++) {
		const fs_usage_tree_t *t = &u->tree[i];
		printf("%-5lu %-6u %-6u %-8u %-6u %u\n", (unsigned long)t->root,
		       t->tasks, t->conns, t->handles, t->pipes, t->refused);
	}
}

/* Print everything, FS_USAGE_TREES trees per call; 0, or 1 after a message. */
static int fsstat_print(void)
{
	static fs_usage_t u;
	int phone;
	errno_t rc = service_connect(FS_SERVICE, &phone);
	uint32_t first = 0;

	do {
		if (rc == EOK)
			rc = read_usage(phone, first, &u);
		if (rc != EOK) {
			fprintf(stderr, "fsstat: %s\n", strerror(rc));
			return 1;
		}
		if (first == 0)
			print_totals(&u);
		print_trees(&u);
		first += u.count;
	} while (u.count > 0 && first < u.trees);
	return 0;
}

int main(int argc, char **argv)
{
	int status = getopt_help_only(argc, argv, usage, 0, 0);

	if (status >= 0)
		return status;
	return fsstat_print();
}
