/*
 * contest: drives the console server for test/console.t.
 *
 * Cooked mode: prints the prompt "contest> ", reads a line and answers
 * "contest: line 'TEXT'" (TEXT uppercased), or runs a command:
 *   raw     switch to raw mode: each byte typed is reported as
 *           "contest: byte 0xNN" until "quit" is typed, then cooked again
 *   spin    run "tester spin 100" as the foreground task (Ctrl-C kills it)
 *   fault   run "tester fault null" (the kernel logs the kill)
 *   size    print the terminal size
 *   alive NAME   "contest: NAME alive" or "contest: NAME gone"
 *   probe fg     run `restrict contest probe fg` in the background (not in
 *                the foreground: its input is not the console) and wait
 *   probe read   start `restrict contest probe read` in the background
 *   probe status the console's status for the probe's tree
 *   probe kill   kill the probe's tree and wait for restrict
 *   quit    exit 0
 * End of file (Ctrl-D) prints "contest: eof". `contest probe KIND` is the
 * probe itself (probe.c).
 */
#include <console.h>
#include <ctype.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <tasktree.h>
#include <vernier.h>

#include "contest.h"

#define LINE_LEN 256

static void usage(FILE *out)
{
	fprintf(out, "usage: contest [-h]\n"
		"  read lines from the console (commands: raw spin fault size alive\n"
		"  probe quit); contest probe fg|read|reader: the unprivileged probes\n");
}

/* Run /bin/tester with args, optionally as the foreground task. */
static void run_tester(int phone, const char *a1, const char *a2, bool fg)
{
	const char *argv[] = { "tester", a1, a2, NULL };
	task_id_t id, waited;
	int status = -1;

	if (sys_spawn("/bin/tester", argv, 0, &id) != EOK) {
		printf("contest: cannot run tester\n");
		return;
	}
	if (fg)
		console_set_foreground(phone, id);
	printf("contest: started task %lu (tester %s %s)\n", (unsigned long)id, a1, a2);
	sys_wait(id, &status, 0, &waited);
	if (fg)
		console_set_foreground(phone, 0);
	printf("contest: task %lu ended with status 0x%x\n", (unsigned long)id, status);
}

static task_id_t probe_restrict;     /* the running probe's restrict, or 0 */

/* Start `restrict contest probe KIND` with no console input; its id or 0. */
static task_id_t probe_start(const char *kind)
{
	char *argv[] = { "restrict", "/bin/contest", "probe", (char *)kind, NULL };
	spawn_opts_t o = { .stdio = { "n:" } };
	task_id_t id;

	if (spawn("/bin/restrict", argv, &o, &id) != EOK) {
		printf("contest: cannot run restrict\n");
		return 0;
	}
	return id;
}

/* The first task of restrict's tree after restrict (the probe), or 0. */
static task_id_t probe_root(void)
{
	task_info_t info;

	for (task_id_t t = probe_restrict + 1; t < probe_restrict + CONTEST_TASK_SCAN; t++)
		if (sys_task_info(t, &info) == EOK && info.parent == probe_restrict)
			return t;
	return 0;
}

static void probe_status(int phone)
{
	console_status_t st;
	task_id_t root = probe_root();
	errno_t rc = root ? console_status(phone, root, &st) : ESRCH;

	if (rc != EOK)
		printf("contest: probe status error %d\n", rc);
	else
		printf("contest: probe reads all %u task %u tree %u (tree of %lu) holder %lu\n",
		       st.reads, st.task_reads, st.tree_reads, (unsigned long)st.tree,
		       (unsigned long)st.holder);
}

/*
 * Kill every task of the probe's tree, then reap restrict. The tree is
 * listed first and killed from its newest task back, children before
 * their parents: a dead parent's children go to the kernel, so a walk
 * that killed the parent first no longer saw them in restrict's tree
 * (console.t once read a count other than 3).
 */
static void probe_kill(void)
{
	task_id_t tree[CONTEST_TASK_SCAN];
	int n = 0, killed = 0, status;
	task_id_t waited;

	for (task_id_t t = probe_restrict + 1; t < probe_restrict + CONTEST_TASK_SCAN; t++)
		if (task_in_tree(t, probe_restrict))
			tree[n++] = t;
	while (n > 0)
		killed += sys_kill(tree[--n]) == EOK;
	sys_wait(probe_restrict, &status, 0, &waited);
	printf("contest: probes ended (%d killed)\n", killed);
	probe_restrict = 0;
}

static void probe_command(int phone, const char *what)
{
	int status;
	task_id_t waited;

	if (!strcmp(what, "fg") && (probe_restrict = probe_start("fg"))) {
		sys_wait(probe_restrict, &status, 0, &waited);
		printf("contest: probe ended with status 0x%x\n", status);
		probe_restrict = 0;
	} else if (!strcmp(what, "read") && !probe_restrict) {
		probe_restrict = probe_start("read");
		printf("contest: probe started\n");
	} else if (!strcmp(what, "status") && probe_restrict) {
		probe_status(phone);
	} else if (!strcmp(what, "kill") && probe_restrict) {
		probe_kill();
	} else {
		printf("contest: probe what?\n");
	}
}

/* Raw mode until "quit" is typed. */
static void raw_phase(int phone)
{
	char last[5] = "";
	int c;

	console_set_mode(phone, CONSOLE_MODE_RAW, NULL);
	printf("contest: raw mode\n");
	while ((c = getchar()) != EOF) {
		printf("contest: byte 0x%02x\n", c);
		memmove(last, last + 1, 3);
		last[3] = (char)c;
		if (!strcmp(last, "quit"))
			break;
	}
	console_set_mode(phone, CONSOLE_MODE_COOKED, NULL);
	printf("contest: cooked mode\n");
}

static void print_upper(const char *s)
{
	char up[LINE_LEN];
	size_t i = 0;

	for (; s[i] && i < sizeof(up) - 1; i++)
		up[i] = (char)toupper((unsigned char)s[i]);
	up[i] = '\0';
	printf("contest: line '%s'\n", up);
}

/* One command or line; returns false on "quit". */
static bool handle(int phone, char *line)
{
	line[strcspn(line, "\n")] = '\0';
	if (!strcmp(line, "quit"))
		return false;
	if (!strcmp(line, "raw")) {
		raw_phase(phone);
	} else if (!strcmp(line, "spin")) {
		run_tester(phone, "spin", "100", true);
	} else if (!strcmp(line, "fault")) {
		run_tester(phone, "fault", "null", false);
	} else if (!strncmp(line, "probe ", 6)) {
		probe_command(phone, line + 6);
	} else if (!strncmp(line, "alive ", 6)) {
		printf("contest: %s %s\n", line + 6, contest_find_task(line + 6) ? "alive" : "gone");
	} else if (!strcmp(line, "size")) {
		unsigned rows = 0, cols = 0;
		console_size(phone, &rows, &cols);
		printf("contest: size %ux%u\n", cols, rows);
	} else {
		print_upper(line);
	}
	return true;
}

int main(int argc, char **argv)
{
	char line[LINE_LEN];
	int phone = console_stdio_phone();

	if (argc > 2 && !strcmp(argv[1], "probe"))
		return contest_probe(argc - 2, argv + 2);
	if (argc > 1) {
		usage(strcmp(argv[1], "-h") ? stderr : stdout);
		return 2;
	}
	if (phone < 0) {
		printf("contest: no console server\n");
		return 1;
	}
	/* Hold the terminal alone, as the shell does: the probes it starts are background. */
	console_set_foreground(phone, 0);
	printf("contest: ready\n");
	for (;;) {
		printf("contest> ");
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin)) {
			printf("contest: eof\n");
			clearerr(stdin);
			continue;
		}
		if (!handle(phone, line))
			break;
	}
	printf("contest: bye\n");
	return 0;
}
