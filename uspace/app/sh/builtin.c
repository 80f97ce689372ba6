/* sh: the builtins (cd, pwd, exit, help) and the command list of help. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sh.h"

typedef struct sh_help {
	const char *name;
	const char *synopsis;           /* a builtin's; NULL: the program's usage text's */
	const char *text;               /* what it is for */
} sh_help_t;

/* Each program's synopsis, as its usage text prints it (generated). */
typedef struct sh_usage {
	const char *name;
	const char *synopsis;
} sh_usage_t;

static const sh_usage_t usages[] = {
#define HELP_USAGE(name, synopsis) { name, synopsis },
#include <help_usage.h>
#undef HELP_USAGE
};

/* What every command we ship is for; programs not listed show their synopsis alone. */
static const sh_help_t help_lines[] = {
	{ "cd", "cd [DIR]", "change the working directory (default /)" },
	{ "exit", "exit [STATUS]", "leave the shell" },
	{ "help", "help", "this list" },
	{ "pwd", "pwd", "print the working directory" },
	{ "calc", NULL, "a small calculator language (libc demo)" },
	{ "cat", NULL, "print files or standard input" },
	{ "cpdemo", NULL, "the call profiler's a b c d experiment" },
	{ "cprof", NULL, "copy out or reset the call profiles" },
	{ "cprofalyze", NULL, "report call profiles" },
	{ "date", NULL, "print the date and time (UTC)" },
	{ "echo", NULL, "print the arguments" },
	{ "fib", NULL, "profil's test program (fib, loop, overflow)" },
	{ "grep", NULL, "print lines that match" },
	{ "head", NULL, "print the first lines" },
	{ "kill", NULL, "end tasks" },
	{ "kprof", NULL, "the kernel PC histogram of /dev/kpdata" },
	{ "ls", NULL, "list directories" },
	{ "mkdir", NULL, "make directories" },
	{ "poweroff", NULL, "turn the machine off (ACPI S5)" },
	{ "profil", NULL, "the classic bin profiler" },
	{ "profile", NULL, "profile one task" },
	{ "reboot", NULL, "restart the machine" },
	{ "restrict", NULL, "run with fewer permissions" },
	{ "rm", NULL, "remove files and directories" },
	{ "sh", NULL, "the shell" },
	{ "sleep", NULL, "wait" },
	{ "sprofdiff", NULL, "compare two profiler streams" },
	{ "sprofile", NULL, "profile the whole system" },
	{ "stats", NULL, "time, uptime and load averages" },
	{ "sysinfo", NULL, "list the kernel's sysinfo keys or print a value" },
	{ "tasks", NULL, "tasks, threads, load and CPUs" },
	{ "top", NULL, "tasks, CPUs, memory, refreshed" },
	{ "wc", NULL, "count lines, words and bytes" },
	{ "workload", NULL, "spend time in named functions by weight" },
	{ "console", NULL, "the console server (started by init)" },
	{ "fs", NULL, "the file service (started by init)" },
	{ "init", NULL, "the first task (starts the servers and the shell)" },
	{ "ns", NULL, "the naming service (started by the kernel)" },
	{ "bench", NULL, "benchmarks (name value unit)" },
	{ "callbench", NULL, "a call-heavy benchmark" },
	{ "callbench-cp", NULL, "callbench with the call profiler's hooks" },
	{ "gtbench", NULL, "the profiler's ground-truth workload" },
	{ "ipcload", NULL, "IPC load with known costs (IPC-aware profiling's ground truth)" },
	{ "hello", NULL, "greet from user space" },
	{ "runall", NULL, "run commands in turn (tests without a shell)" },
	{ "soak", NULL, "the profiler under a mixed load, then its invariants" },
	{ "tester", NULL, "test helpers (faults, spinning, threads...)" },
	{ "utest", NULL, "the user-space test suite (TAP)" },
	{ "ipctest", NULL, "the IPC test suite (TAP)" },
	{ "fstest", NULL, "the file service test suite (TAP)" },
	{ "fsstat", NULL, "the file service's usage per task tree and its limits" },
	{ "irqprobe", NULL, "attacks on interrupts-off time (test/irqoff.t)" },
	{ "contest", NULL, "a console test client" },
	{ "vfuzz", NULL, "fuzz the system calls; vfuzz -S fs,console,ns: the servers" },
};

static const sh_help_t *help_find(const char *name)
{
	for (size_t i = 0; i < sizeof(help_lines) / sizeof(help_lines[0]); i++)
		if (!strcmp(help_lines[i].name, name))
			return &help_lines[i];
	return NULL;
}

/* name's synopsis: a builtin's own, or its usage text's; NULL if neither. */
static const char *help_synopsis(const char *name, const sh_help_t *h)
{
	if (h && h->synopsis)
		return h->synopsis;
	for (size_t i = 0; i < sizeof(usages) / sizeof(usages[0]); i++)
		if (!strcmp(usages[i].name, name))
			return usages[i].synopsis;
	return NULL;
}

/* One line of help for name: "SYNOPSIS: WHAT IT IS FOR". */
static void help_line(FILE *out, const char *name)
{
	const sh_help_t *h = help_find(name);
	const char *syn = help_synopsis(name, h);

	fprintf(out, "  %s%s%s\n", syn ? syn : name, h ? ": " : "", h ? h->text : "");
}

static int bi_cd(sh_t *sh, int argc, char **argv, FILE *out)
{
	if (argc > 2) {
		fprintf(stderr, "usage: cd [DIR]\n");
		return 2;
	}
	const char *dir = argc == 2 ? argv[1] : "/";
	if (chdir(dir) != 0) {
		fprintf(stderr, "sh: cd: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	return 0;
}

static int bi_pwd(sh_t *sh, int argc, char **argv, FILE *out)
{
	char cwd[256];

	if (!getcwd(cwd, sizeof(cwd))) {
		fprintf(stderr, "sh: pwd: %s\n", strerror(errno));
		return 1;
	}
	fprintf(out, "%s\n", cwd);
	return 0;
}

static int bi_exit(sh_t *sh, int argc, char **argv, FILE *out)
{
	char *end = NULL;
	long st = argc == 2 ? strtol(argv[1], &end, 10) : sh->last_status;

	if (argc > 2 || (end && (*end || end == argv[1]))) {
		fprintf(stderr, "usage: exit [STATUS]\n");
		return 2;
	}
	sh->exit_requested = true;
	sh->exit_status = (int)(st & 0xff);
	return sh->exit_status;
}

/* The builtins, then every program in /bin, one line each. */
static int bi_help(sh_t *sh, int argc, char **argv, FILE *out)
{
	static const char *const builtins[] = { "cd", "exit", "help", "pwd" };
	DIR *d = opendir("/bin");
	struct dirent *e;

	fprintf(out, "builtins:\n");
	for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
		help_line(out, builtins[i]);
	fprintf(out, "programs in /bin (each takes -h):\n");
	while (d && (e = readdir(d)) != NULL)
		help_line(out, e->d_name);
	if (d)
		closedir(d);
	fprintf(out, "syntax: CMD ARGS [< IN] [> OUT | >> OUT] [| CMD...] [&] [; ...]; "
		"'...' and \"...\" quote, $? is the last status\n");
	return 0;
}

/* "NAME -h": the builtin's help line; true if that is what was asked. */
bool sh_builtin_help(int argc, char **argv, FILE *out)
{
	const sh_help_t *h = help_find(argv[0]);

	if (argc < 2 || strcmp(argv[1], "-h") || !h || !h->synopsis)
		return false;
	fprintf(out, "usage: %s\n  %s\n", h->synopsis, h->text);
	return true;
}

sh_builtin_fn_t sh_builtin(const char *name)
{
	if (!strcmp(name, "cd"))
		return bi_cd;
	if (!strcmp(name, "pwd"))
		return bi_pwd;
	if (!strcmp(name, "exit"))
		return bi_exit;
	if (!strcmp(name, "help"))
		return bi_help;
	return NULL;
}
