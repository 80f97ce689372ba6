/*
 * contest's attacker side (issue 27), run by contest as
 * `restrict contest probe KIND` with no permissions and not in the
 * console's foreground (its standard input is not the console):
 *
 *   probe fg      SET_FG of the file service, SET_FG of itself and
 *                 SET_MODE raw; prints "probe: NAME: RESULT" for each
 *   probe read    two more tasks of its tree (`probe reader`), then
 *                 PROBE_READERS reads of the console at once in each
 *                 task; prints "probe: read refused (ELIMIT)" for each
 *                 refused read, "probe: read got 'TEXT'" if one is ever
 *                 served; waits until contest kills it
 */
#include <console.h>
#include <stdio.h>
#include <string.h>
#include <thread.h>
#include <vernier.h>

#include "contest.h"

#define PROBE_READERS 6
#define PROBE_HELPERS 2
#define PROBE_SLEEP_NS (3600 * 1000000000ull)

static const char *probe_err(errno_t rc)
{
	return rc == EOK ? "EOK" : rc == EPERM ? "EPERM" : rc == ELIMIT ? "ELIMIT" :
		strerror(rc);
}

task_id_t contest_find_task(const char *name)
{
	task_info_t info;

	for (task_id_t id = 1; id < CONTEST_TASK_SCAN; id++)
		if (sys_task_info(id, &info) == EOK && !strcmp(info.name, name) &&
		    info.threads > 0)
			return id;
	return 0;
}

static int probe_fg(int phone)
{
	task_id_t fs = contest_find_task("fs");

	printf("probe: set_fg fs (task %lu): %s\n", (unsigned long)fs,
	       probe_err(console_set_foreground(phone, fs)));
	printf("probe: set_fg self: %s\n",
	       probe_err(console_set_foreground(phone, sys_task_id())));
	printf("probe: set_mode raw: %s\n",
	       probe_err(console_set_mode(phone, CONSOLE_MODE_RAW, NULL)));
	return 0;
}

/* One read of the console (on a phone of its own); reports what it got. */
static long probe_reader(void *arg)
{
	char buf[128];
	size_t got = 0;
	int phone;
	errno_t rc = console_connect(&phone);

	if (rc == EOK)
		rc = console_read(phone, buf, sizeof(buf) - 1, &got);
	buf[got] = '\0';
	if (rc == ELIMIT)
		printf("probe: read refused (ELIMIT)\n");
	else if (rc == EOK)
		printf("probe: read got '%s'\n", buf);
	else
		printf("probe: read error %s\n", probe_err(rc));
	return 0;
}

/* PROBE_READERS reads at once, then wait to be killed. */
static int probe_readers(void)
{
	thread_id_t tid;

	for (int i = 0; i < PROBE_READERS; i++)
		if (thread_start(probe_reader, NULL, &tid) != EOK)
			printf("probe: no thread\n");
	for (;;)
		sys_sleep_ns(PROBE_SLEEP_NS);
	return 0;
}

static int probe_read(void)
{
	const char *argv[] = { "contest", "probe", "reader", NULL };
	task_id_t id;

	for (int i = 0; i < PROBE_HELPERS; i++)
		if (sys_spawn("/bin/contest", argv, 0, &id) != EOK)
			printf("probe: cannot start a reader\n");
	return probe_readers();
}

int contest_probe(int argc, char **argv)
{
	int phone = console_stdio_phone();

	if (argc < 1 || phone < 0)
		return 2;
	if (!strcmp(argv[0], "fg"))
		return probe_fg(phone);
	if (!strcmp(argv[0], "read"))
		return probe_read();
	if (!strcmp(argv[0], "reader"))
		return probe_readers();
	return 2;
}
