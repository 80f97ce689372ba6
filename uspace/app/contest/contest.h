/* contest's modules: the driver (contest.c) and the attacker (probe.c). */
#ifndef CONTEST_H
#define CONTEST_H

#include <abi/task.h>

#define CONTEST_TASK_SCAN 256        /* task ids looked at by name */

/* A running task named name (ids below CONTEST_TASK_SCAN), or 0. */
task_id_t contest_find_task(const char *name);
/* `contest probe KIND`: the unprivileged probes; the exit status. */
int contest_probe(int argc, char **argv);

#endif
