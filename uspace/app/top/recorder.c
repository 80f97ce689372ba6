/*
 * top: the R key, the flight recorder dumped to a file (what sprofile -r
 * -o FILE writes: a header, the tasks alive, the recorder's samples and
 * trace events, an END; vprof and sprofdiff read it).
 */
#include <prof.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vernier.h>

#include "top.h"

#define DUMP_BUF 65536

/* Read the session on phone to its end into f; its bytes to *bytes. */
static errno_t dump_stream(int phone, FILE *f, uint64_t *bytes)
{
	char *buf = malloc(DUMP_BUF);
	unsigned state = 0;
	size_t got = 0;
	errno_t rc = buf ? EOK : ENOMEM;

	*bytes = 0;
	while (rc == EOK && !(state == PROF_STATE_ENDED && got == 0)) {
		rc = prof_read(phone, buf, DUMP_BUF, &got, &state);
		if (rc == EOK && got && fwrite(buf, 1, got, f) != got)
			rc = EIO;
		*bytes += rc == EOK ? got : 0;
	}
	free(buf);
	return rc;
}

/* Begin the recorder's session and dump it into f. */
static errno_t dump_to(FILE *f, uint64_t *bytes)
{
	prof_params_t p = { .flags = PROF_F_RECORDER };
	int phone;
	errno_t rc = prof_connect(sys_task_id(), &phone);

	if (rc != EOK)
		return rc;
	rc = prof_system_begin(phone, &p, NULL, NULL);
	if (rc == EOK)
		rc = dump_stream(phone, f, bytes);
	prof_disconnect(phone);
	return rc;
}

/* Why a dump failed, for the status line. */
static const char *dump_why(errno_t rc)
{
	if (rc == ENOTSUP)
		return "the flight recorder is off (recorder=0)";
	if (rc == EPERM)
		return "permission denied (needs the profile permission)";
	return strerror(rc);
}

void top_recorder_dump(const char *path, char *note, size_t n)
{
	uint64_t bytes = 0;
	FILE *f = fopen(path, "w");
	errno_t rc = f ? dump_to(f, &bytes) : EIO;

	if (f && fclose(f) != 0 && rc == EOK)
		rc = EIO;
	if (rc != EOK) {
		if (f)
			remove(path);
		snprintf(note, n, "recorder: %s: %s", path, dump_why(rc));
		return;
	}
	snprintf(note, n, "recorder: %llu KiB to %s", (unsigned long long)(bytes + 1023) / 1024,
		 path);
}
