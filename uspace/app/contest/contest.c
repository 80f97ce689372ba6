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
 *   quit    exit 0
 * End of file (Ctrl-D) prints "contest: eof".
 */
#include <console.h>
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <vernier.h>

#define LINE_LEN 256

static void usage(FILE *out)
{
	fprintf(out, "usage: contest [-h]\n"
		"  read lines from the console (commands: raw spin fault size quit)\n");
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

	if (argc > 1) {
		usage(strcmp(argv[1], "-h") ? stderr : stdout);
		return 2;
	}
	if (phone < 0) {
		printf("contest: no console server\n");
		return 1;
	}
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
