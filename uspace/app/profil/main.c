/*
 * profil: the classic profiler of the MINIX assignment (README "profil").
 *
 *   profil [-h] [-s START] [-e END] [-i INTERVAL] [-f HZ] PROGRAM [ARGS...]
 *
 * Checks that PROGRAM is an executable, starts it stopped, starts the
 * kernel profile (SYS_PROFILE) of its text from START to END (offsets from
 * the start of its text segment, decimal or 0x hex; END 0 or absent: the
 * end of the text) in bins of INTERVAL bytes (default: the smallest that
 * fits 1024 bins), lets it run, waits for it and prints the report from
 * SYS_GETPROFILE. The kernel counts one PC per scheduler tick; -f HZ also
 * opens a statistical profiler session on PROGRAM at HZ samples a second
 * (its stream is discarded) and each of its samples counts too.
 *
 * Exit status: 0 after the report; 1 for a profil error (printed as
 * "Profil Error: ..."); 2 for usage errors.
 */
#include <errno.h>
#include <getopt.h>
#include <prof.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <vernier.h>
#include <lib/elfload.h>

#include "profil.h"

#define PATH_MAX_LEN 256
#define READ_BUF (16 * 1024)
#define HZ_MAX 100000
#define USER_SPAN (1ull << 47)

typedef struct profil_opts {
	uint64_t start, end, interval;
	unsigned hz;               /* 0: no statistical profiler session */
	char **argv;               /* PROGRAM and ARGS */
	char path[PATH_MAX_LEN];
} profil_opts_t;

static void usage(FILE *out)
{
	fprintf(out, "usage: profil [-h] [-s START] [-e END] [-i INTERVAL] [-f HZ] "
		"PROGRAM [ARGS...]\n"
		"  run PROGRAM, count where it spends its time, print the bins\n"
		"  -s START     first text offset profiled (default 0)\n"
		"  -e END       end text offset (default 0: the end of the text)\n"
		"  -i INTERVAL  bytes a bin (default: the smallest for 1024 bins)\n"
		"  -f HZ        also sample at HZ a second (statistical profiler)\n"
		"  numbers are decimal or 0x hex\n");
}

/* A number in decimal or 0x hex into *v; false if it is not one. */
static bool parse_num(const char *s, uint64_t *v)
{
	bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	const char *digits = hex ? s + 2 : s;
	char *end;

	if (*digits < '0' || *digits > (hex ? 'f' : '9'))
		return false;
	*v = strtoull(digits, &end, hex ? 16 : 10);
	return end != digits && !*end;
}

/* One option into o; false (printed) if its value is bad. */
static bool parse_opt(profil_opts_t *o, int c, const char *arg)
{
	uint64_t v;

	if (!parse_num(arg, &v) || (c == 'f' && (v == 0 || v > HZ_MAX))) {
		fprintf(stderr, "profil: bad value '%s' for -%c\n", arg, c);
		return false;
	}
	if (c == 's')
		o->start = v;
	else if (c == 'e')
		o->end = v;
	else if (c == 'i')
		o->interval = v;
	else
		o->hz = (unsigned)v;
	return true;
}

/* Options into o: -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, profil_opts_t *o)
{
	int c;

	memset(o, 0, sizeof(*o));
	while ((c = getopt(argc, argv, "+hs:e:i:f:")) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 0;
		}
		if (c == '?' || !parse_opt(o, c, optarg)) {
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	o->argv = argv + optind;
	return -1;
}


/* PROGRAM's path: name itself if that file exists (as MINIX's profil
 * reads the file named), else as spawn() finds commands (/bin/name). */
static errno_t find_program(const char *name, char *path, size_t size)
{
	FILE *f = fopen(name, "r");

	if (!f || strlen(name) >= size) {
		if (f)
			fclose(f);
		return spawn_find(name, path, size);
	}
	fclose(f);
	strcpy(path, name);
	return EOK;
}

/* Check PROGRAM is an executable; its text base and symbols into p. 0 or 1. */
static int load_program(profil_opts_t *o, profil_prog_t *p)
{
	void *image = NULL;
	size_t size = 0;
	elf_plan_t plan;
	errno_t rc = find_program(o->argv[0], o->path, sizeof(o->path));

	if (rc == EOK)
		rc = file_read_all(o->path, SIZE_MAX, &image, &size);
	if (rc == EOK && elf_load_plan(image, size, 0, USER_SPAN, &plan) != EOK)
		rc = ENOEXEC;
	if (rc != EOK) {
		fprintf(stderr, "Profil Error: cannot execute '%s': %s\n", o->argv[0],
			rc == ENOEXEC ? "not an executable" : strerror(rc));
		free(image);
		return 1;
	}
	p->text_base = plan.text_start;
	p->have_syms = profsym_from_elf(&p->syms, image, size) == EOK;
	return 0;                  /* image stays: the symbols point into it */
}

/* The assignment's message for a failed profile(). */
static void profile_error(int err)
{
	const char *what = "Generic error";

	if (err == ESRCH)
		what = "No process for profiled program";
	else if (err == EFAULT)
		what = "Address range invalid";
	else if (err == EBUSY)
		what = "Already profiling another process";
	fprintf(stderr, "Profil Error: %s\n", what);
}

/* Start the kernel profile of task id as o asks. 0, or 1 (printed). */
static int start_profile(const profil_opts_t *o, const profil_prog_t *p, task_id_t id)
{
	uint64_t start = p->text_base + o->start;
	uint64_t end = o->end ? p->text_base + o->end : 0;

	if (profile(id, start, end, o->interval) == 0)
		return 0;
	profile_error(errno);
	return 1;
}

/* Read and discard the session's stream until it ends. */
static void drain_session(int phone)
{
	static char buf[READ_BUF];
	size_t got;
	unsigned state = PROF_STATE_RUNNING;

	while (prof_read(phone, buf, sizeof(buf), &got, &state) == EOK &&
	       !(state == PROF_STATE_ENDED && got == 0))
		;
}

/* Let the stopped task id run (with a -f session), wait for it. 0 or 1. */
static int run_task(const profil_opts_t *o, task_id_t id)
{
	prof_params_t pp = { .source = PROF_SRC_DEFAULT, .hz = o->hz };
	int phone;
	errno_t rc = prof_connect(id, &phone);
	bool connected = rc == EOK;

	if (rc == EOK && o->hz)
		rc = prof_task_begin(phone, &pp, NULL, NULL);
	if (rc == EOK)
		rc = prof_task_start(phone);
	if (rc == EOK && o->hz)
		drain_session(phone);
	if (rc == EOK)
		sys_wait(id, NULL, 0, NULL);
	if (rc != EOK)
		fprintf(stderr, "Profil Error: cannot start '%s': %s\n", o->argv[0],
			strerror(rc));
	if (connected)
		prof_disconnect(phone);
	return rc == EOK ? 0 : 1;
}

/* Spawn PROGRAM stopped, profile it, run it. 0, or 1 (printed). */
static int profile_program(const profil_opts_t *o, const profil_prog_t *p)
{
	spawn_opts_t so = { .stopped = true };
	task_id_t id;
	errno_t rc;

	printf("%s Output of '%s' %s\n", "*************************", o->argv[0],
	       "****************************");
	fflush(stdout);
	if ((rc = spawn(o->path, o->argv, &so, &id)) != EOK) {
		fprintf(stderr, "Profil Error: cannot execute '%s': %s\n", o->argv[0],
			strerror(rc));
		return 1;
	}
	if (start_profile(o, p, id) != 0 || run_task(o, id) != 0) {
		sys_kill(id);
		sys_wait(id, NULL, 0, NULL);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static profil_opts_t o;
	static struct profil_data d;
	profil_prog_t p;
	int status = parse_args(argc, argv, &o);

	if (status >= 0)
		return status;
	if (load_program(&o, &p) != 0 || profile_program(&o, &p) != 0)
		return 1;
	if (getprofile(&d) != 0) {
		fprintf(stderr, "Profil Error: %s\n", strerror(errno));
		return 1;
	}
	profil_report(&d, &p);
	return 0;
}
