/* sh: the builtins (cd, pwd, exit, help) and the command list of help. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sh.h"

typedef struct sh_help {
	const char *name;
	const char *text;
} sh_help_t;

/* One line for every command we ship; programs not listed show "(program)". */
static const sh_help_t help_lines[] = {
	{ "cd", "cd [DIR]: change the working directory (default /)" },
	{ "exit", "exit [STATUS]: leave the shell" },
	{ "help", "help: this list" },
	{ "pwd", "pwd: print the working directory" },
	{ "calc", "calc [FILE]: a small calculator language (libc demo)" },
	{ "cat", "cat [FILE...]: print files or standard input" },
	{ "cpdemo", "cpdemo [-n N] [-i IT] [-s MS] [-t THREADS] [-w MS]: the call profiler's "
	  "a b c d experiment" },
	{ "cprof", "cprof get [-o FILE] | cprof reset: copy out or reset the call profiles" },
	{ "cprofalyze", "cprofalyze [-f] [-a|-o|-c|-t] [-i] [-n N] [-r ROOT] FILE...: "
	  "report call profiles" },
	{ "date", "date [-u] [+FORMAT]: print the date and time (UTC)" },
	{ "echo", "echo [-n] [ARGS...]: print the arguments" },
	{ "fib", "fib [DEPTH [LOOP [BITS]]]: profil's test program (fib, loop, overflow)" },
	{ "grep", "grep [-vcin] PATTERN [FILE...]: print lines that match" },
	{ "head", "head [-n N] [FILE...]: print the first lines" },
	{ "kill", "kill TASKID...: end tasks" },
	{ "kprof", "kprof [-F report|gmon] [-o FILE] [KERNEL [KPDATA]]: the kernel PC "
	  "histogram of /dev/kpdata" },
	{ "ls", "ls [-la] [PATH...]: list directories" },
	{ "mkdir", "mkdir [-p] DIR...: make directories" },
	{ "poweroff", "poweroff: turn the machine off (ACPI S5)" },
	{ "profil", "profil [-s START] [-e END] [-i INTERVAL] [-f HZ] PROGRAM ...: "
	  "the classic bin profiler" },
	{ "profile", "profile [-g] [-f HZ] [-s SRC] [-d SEC] [-o FILE] (-t ID | PROGRAM ...): "
	  "profile one task" },
	{ "reboot", "reboot: restart the machine" },
	{ "restrict", "restrict [-p PERM,...] PROGRAM [ARGS...]: run with fewer permissions" },
	{ "rm", "rm [-rf] PATH...: remove files and directories" },
	{ "sh", "sh [-c LINE | FILE]: the shell" },
	{ "sleep", "sleep SECONDS: wait" },
	{ "sprofdiff", "sprofdiff [-m] [-p PERCENT] [-T TASK] A B: compare two profiler "
	  "streams" },
	{ "sprofile", "sprofile [-g] [-f HZ] [-s SRC] [-d SEC] [-p PCT] [-o FILE]: "
	  "profile the whole system" },
	{ "stats", "stats: time, uptime and load averages" },
	{ "sysinfo", "sysinfo [PATH]: list the kernel's sysinfo keys or print a value" },
	{ "tasks", "tasks [-t ID] [-a] [-l] [-c]: tasks, threads, load and CPUs" },
	{ "top", "top [-bs] [-n N] [-d SEC] [-t TASK] [-v VIEW]: tasks, CPUs, memory, refreshed" },
	{ "wc", "wc [-lwc] [FILE...]: count lines, words and bytes" },
	{ "workload", "workload [-t THREADS] [-d SEC] NAME:WEIGHT...: spend time in named functions by weight" },
	{ "console", "console: the console server (started by init)" },
	{ "fs", "fs: the file service (started by init)" },
	{ "init", "init: the first task (starts the servers and the shell)" },
	{ "ns", "ns: the naming service (started by the kernel)" },
	{ "bench", "bench: benchmarks (name value unit)" },
	{ "callbench", "callbench [-q] [-r ROUNDS]: a call-heavy benchmark" },
	{ "callbench-cp", "callbench-cp [-q] [-r ROUNDS]: callbench with the call "
	  "profiler's hooks" },
	{ "gtbench", "gtbench [ROUNDS]: the profiler's ground-truth workload" },
	{ "ipcload", "ipcload [-n ROUNDS] [-u US] [-l US] ratio|chain: IPC load with known "
	  "costs (IPC-aware profiling's ground truth)" },
	{ "hello", "hello: greet from user space" },
	{ "runall", "runall CMD[,ARG...]...: run commands in turn (tests without a shell)" },
	{ "soak", "soak [-d SECONDS] [-f HZ] [-o FILE] [-s SEED] [-x PART,...]: the "
	  "profiler under a mixed load, then its invariants" },
	{ "tester", "tester MODE ...: test helpers (faults, spinning, threads...)" },
	{ "utest", "utest: the user-space test suite (TAP)" },
	{ "ipctest", "ipctest: the IPC test suite (TAP)" },
	{ "fstest", "fstest: the file service test suite (TAP)" },
	{ "fsstat", "fsstat: the file service's usage per task tree and its limits" },
	{ "irqprobe", "irqprobe [CHILDREN]: attacks on interrupts-off time (test/irqoff.t)" },
	{ "contest", "contest: a console test client" },
	{ "vfuzz", "vfuzz [-x] [-s SEED] [-n CALLS] [-t THREADS] [-W CALLS]: fuzz the "
	  "system calls; vfuzz -S fs,console,ns: the servers" },
};

static const sh_help_t *help_find(const char *name)
{
	for (size_t i = 0; i < sizeof(help_lines) / sizeof(help_lines[0]); i++)
		if (!strcmp(help_lines[i].name, name))
			return &help_lines[i];
	return NULL;
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
		fprintf(out, "  %s\n", help_find(builtins[i])->text);
	fprintf(out, "programs in /bin (each takes -h):\n");
	while (d && (e = readdir(d)) != NULL) {
		const sh_help_t *h = help_find(e->d_name);
		fprintf(out, "  %s\n", h ? h->text : e->d_name);
	}
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

	if (argc < 2 || strcmp(argv[1], "-h") || !h)
		return false;
	fprintf(out, "usage: %s\n", h->text);
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
