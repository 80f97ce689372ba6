/*
 * cprof: the call profiler's control program (README "Call profiling";
 * the MINIX thesis's `profile get` and `profile reset`, 3.7.1).
 *
 *   cprof [-h] get [-o FILE]    every announced table into FILE
 *                               (default /tmp/cprof.out; com2: the second
 *                               serial port), then a summary
 *   cprof [-h] reset            ask every table to start over
 *
 * get copies the live processes' tables and those of processes that
 * exited since the last reset. It asks SYS_CPROF with a small buffer
 * and, on ENOMEM, again with the size the kernel needs plus slack
 * (tables grow between the two calls), a few times; nothing is written until the whole file
 * is in memory, and a file that could not be completed is removed. The
 * summary names the tables, counts their call paths and warns (stderr)
 * about tables that lost calls (error flags) and exited processes'
 * tables the kernel had to drop. Both need the profile permission.
 *
 * Exit status: 0; 1 for an error (printed); 2 for usage errors.
 */
#include <cprof.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <psink.h>

#define FIRST_SIZE 4096
#define GET_TRIES 6
#define DEFAULT_OUT "/tmp/cprof.out"   /* / is the read-only initrd */
#define NAMES_MAX 512

static void usage(FILE *out)
{
	fprintf(out, "usage: cprof [-h] get [-o FILE]\n"
		"       cprof [-h] reset\n"
		"  get    copy every call-profiled table into FILE (default %s;\n"
		"         com2: the second serial port) and print a summary\n"
		"  reset  ask every table to start counting over\n", DEFAULT_OUT);
}

/* Print the message for a SYS_CPROF error; returns the exit status 1. */
static int cprof_error(const char *what, errno_t rc)
{
	if (rc == EPERM)
		fprintf(stderr, "cprof: %s: permission denied (needs the profile permission)\n",
			what);
	else if (rc == ENOSYS)
		fprintf(stderr, "cprof: %s: this kernel has no call profiler\n", what);
	else
		fprintf(stderr, "cprof: %s: %s\n", what, strerror(rc));
	return 1;
}

/* The whole file into *buf (malloc'd) and its size; EOK or the error. */
static errno_t get_all(uint8_t **buf, size_t *len)
{
	size_t size = FIRST_SIZE, needed = 0;
	errno_t rc = ENOMEM;

	for (int i = 0; i < GET_TRIES && rc == ENOMEM; i++) {
		*buf = malloc(size);
		if (!*buf)
			return ENOMEM;
		rc = cprof_get(*buf, size, &needed);
		if (rc == EOK) {
			*len = needed;
			return EOK;
		}
		free(*buf);
		*buf = NULL;
		size = needed + needed / 4 + FIRST_SIZE;
	}
	return rc;
}

/* What the summary says about a file. */
typedef struct summary {
	unsigned tables;
	unsigned dropped;               /* exited processes' tables the kernel dropped */
	uint64_t paths;
	char names[NAMES_MAX];
	bool bad;                       /* not a well-formed file */
} summary_t;

/* Warn (stderr) about part p of table name if it lost calls. */
static void warn_part(const char *name, const cprof_part_hdr_t *p)
{
	unsigned long long stack = p->lost_stack, table = p->lost_table, path = p->mismatch;

	if (p->err & CPROF_ERR_STACK)
		fprintf(stderr, "cprof: warning: %s: call stack full, %llu calls not "
			"recorded\n", name, stack);
	if (p->err & CPROF_ERR_TABLE)
		fprintf(stderr, "cprof: warning: %s: table full, %llu calls not recorded\n",
			name, table);
	if (p->err & CPROF_ERR_PATH)
		fprintf(stderr, "cprof: warning: %s: %llu exits without their entry\n", name,
			path);
}

/* One table at buf[*off]: count it, warn, move *off past it; false if cut short. */
static bool walk_table(const uint8_t *buf, size_t len, size_t *off, summary_t *s)
{
	cprof_table_hdr_t t;

	if (len - *off < sizeof(t))
		return false;
	memcpy(&t, buf + *off, sizeof(t));
	*off += sizeof(t);
	t.name[CPROF_NAME_MAX - 1] = '\0';
	size_t n = strlen(s->names);
	if (n + strlen(t.name) + 3 < sizeof(s->names))
		snprintf(s->names + n, sizeof(s->names) - n, "%s%s", n ? ", " : "", t.name);
	for (uint32_t i = 0; i < t.nparts; i++) {
		cprof_part_hdr_t p;
		if (len - *off < sizeof(p))
			return false;
		memcpy(&p, buf + *off, sizeof(p));
		*off += sizeof(p);
		if (p.magic != CPROF_PART_MAGIC || (len - *off) / sizeof(cprof_slot_t) < p.used)
			return false;
		*off += (size_t)p.used * sizeof(cprof_slot_t);
		s->paths += p.used;
		warn_part(t.name, &p);
	}
	s->tables++;
	return true;
}

/* Summarize the file buf[0, len) into *s. */
static void summarize(const uint8_t *buf, size_t len, summary_t *s)
{
	cprof_file_hdr_t h;
	size_t off = sizeof(h);

	memset(s, 0, sizeof(*s));
	if (len < sizeof(h)) {
		s->bad = true;
		return;
	}
	memcpy(&h, buf, sizeof(h));
	s->bad = memcmp(h.magic, CPROF_FILE_MAGIC, sizeof(h.magic)) != 0;
	s->dropped = h.dropped;
	for (uint32_t i = 0; i < h.ntables && !s->bad; i++)
		s->bad = !walk_table(buf, len, &off, s);
}

/* Write buf to out whole; a file cut short is removed. False: printed. */
static bool write_out(const char *out, const uint8_t *buf, size_t len)
{
	psink_t sink;

	if (!psink_open(&sink, "cprof", out))
		return false;
	bool ok = psink_write(&sink, buf, len);
	ok = psink_close(&sink) && ok;
	if (!ok && strcmp(out, PSINK_COM2))
		unlink(out);
	return ok;
}

static int cmd_get(const char *out)
{
	uint8_t *buf;
	size_t len;
	summary_t s;
	errno_t rc = get_all(&buf, &len);

	if (rc == ENOMEM)
		fprintf(stderr, "cprof: get: the tables kept growing or memory ran out\n");
	if (rc != EOK)
		return rc == ENOMEM ? 1 : cprof_error("get", rc);
	summarize(buf, len, &s);
	bool ok = write_out(out, buf, len);
	free(buf);
	if (!ok)
		return 1;
	if (s.bad)
		fprintf(stderr, "cprof: warning: the kernel's file is malformed\n");
	if (s.dropped)
		fprintf(stderr, "cprof: warning: %u exited processes' tables were dropped "
			"(reset to make room)\n", s.dropped);
	printf("cprof: %u table%s (%s), %llu call paths, %zu bytes to %s\n", s.tables,
	       s.tables == 1 ? "" : "s", s.names, (unsigned long long)s.paths, len, out);
	return 0;
}

static int cmd_reset(void)
{
	int n = 0;
	errno_t rc = cprof_reset(&n);

	if (rc != EOK)
		return cprof_error("reset", rc);
	printf("cprof: reset asked of %d table%s\n", n, n == 1 ? "" : "s");
	return 0;
}

/* `get`'s options (after the command word); -1 on bad usage. */
static int get_main(int argc, char **argv)
{
	const char *out = DEFAULT_OUT;
	int c;

	optind = 1;
	opterr = 0;                     /* its messages would name "get" */
	while ((c = getopt(argc, argv, "ho:")) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 0;
		}
		if (c != 'o') {
			fprintf(stderr, "cprof: get: bad option or missing argument '-%c'\n",
				optopt);
			return -1;
		}
		out = optarg;
	}
	return optind == argc ? cmd_get(out) : -1;
}

/* The command in argv[0] and its arguments; -1 on bad usage. */
static int run(int argc, char **argv)
{
	if (!strcmp(argv[0], "get"))
		return get_main(argc, argv);
	if (!strcmp(argv[0], "reset") && argc == 1)
		return cmd_reset();
	return -1;
}

int main(int argc, char **argv)
{
	int rc = getopt_help_only(argc, argv, usage, 0, INT_MAX);

	if (rc >= 0)
		return rc;
	int cmd = optind;
	int st = cmd < argc ? run(argc - cmd, argv + cmd) : -1;
	if (st < 0) {
		if (cmd < argc)
			fprintf(stderr, "cprof: bad usage of '%s'\n", argv[cmd]);
		usage(stderr);
		return 2;
	}
	return st;
}
