/*
 * sh: the Vernier shell.
 *
 *   sh              interactive on the console: prompt "CWD # ", line
 *                   editing and history (stdin not the console: read
 *                   commands from it without a prompt)
 *   sh -c LINE      run LINE and exit with its status
 *   sh FILE         run the commands in FILE
 *
 * See help (the builtin) for the syntax.
 */
#include <console.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sh.h"

static void usage(FILE *out)
{
	fprintf(out, "usage: sh [-h] [-c LINE | FILE]\n"
		"  the shell: interactive on the console, or runs LINE or the\n"
		"  commands of FILE; type help for the commands and syntax\n");
}

/* Commands from f, one line each, until its end. */
static void sh_read_loop(sh_t *sh, FILE *f)
{
	char line[SH_LINE_MAX];

	while (!sh->exit_requested && fgets(line, sizeof(line), f)) {
		sh_run_line(sh, line);
		sh_reap_jobs(sh);
	}
}

/* The interactive loop: prompt, edit, run. */
static void sh_interactive(sh_t *sh)
{
	char line[SH_LINE_MAX], prompt[264];
	char cwd[256];

	while (!sh->exit_requested) {
		sh_reap_jobs(sh);
		fflush(stdout);
		snprintf(prompt, sizeof(prompt), "%s # ",
			 getcwd(cwd, sizeof(cwd)) ? cwd : "?");
		if (sh_edit_line(sh, prompt, line, sizeof(line)) < 0)
			break;
		sh_run_line(sh, line);
	}
	if (sh->console_phone >= 0)
		console_set_mode(sh->console_phone, CONSOLE_MODE_COOKED, NULL);
}

/* Run the commands of file path; false if it cannot be opened. */
static bool sh_script_file(sh_t *sh, const char *path)
{
	FILE *f = fopen(path, "r");

	if (!f) {
		fprintf(stderr, "sh: %s: %s\n", path, strerror(errno));
		return false;
	}
	sh_read_loop(sh, f);
	fclose(f);
	return true;
}

int main(int argc, char **argv)
{
	sh_t sh = { .fs_phone = -1, .console_phone = -1 };
	const char *line = NULL;
	int opt;

	while ((opt = getopt(argc, argv, "hc:")) != -1) {
		switch (opt) {
		case 'h': usage(stdout); return 0;
		case 'c': line = optarg; break;
		default: usage(stderr); return 2;
		}
	}
	if (argc - optind > 1 || (line && optind < argc)) {
		usage(stderr);
		return 2;
	}
	if (line) {
		sh_run_line(&sh, line);
	} else if (optind < argc) {
		if (!sh_script_file(&sh, argv[optind]))
			return 127;
	} else if (isatty(STDIN_FILENO) && (sh.console_phone = console_stdio_phone()) >= 0) {
		sh.interactive = true;
		sh_fg_console(&sh, NULL);     /* init handed us the whole tree */
		sh_interactive(&sh);
	} else {
		sh_read_loop(&sh, stdin);
	}
	return sh.exit_requested ? sh.exit_status : sh.last_status;
}
