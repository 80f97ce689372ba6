/* The profiler tools' -o sink: a file or the second serial port (psink.h). */
#include <abi/profile.h>
#include <errno.h>
#include <string.h>

#include "psink.h"

#define PSINK_FRAMES 8                  /* a typical -g chain, for the figure */

/* Before the stream starts: what com2 can carry, in bytes and in samples. */
static void psink_com2_figure(const psink_t *s)
{
	uint64_t io, line;
	uint64_t plain = sizeof(prof_rec_sample_t);
	uint64_t chain = plain + PSINK_FRAMES * sizeof(uint64_t);

	serial_capacity(&s->com, &io, &line);
	fprintf(stderr, "%s: com2 carries about %llu KiB/s here (its I/O timed; a real UART "
		"at 115200 baud: %llu KiB/s): about %llu samples/s, %llu/s with -g and %d "
		"frames; beyond that samples are lost (counted)\n", s->prog,
		(unsigned long long)(io / 1024), (unsigned long long)(line / 1024),
		(unsigned long long)(io / plain), (unsigned long long)(io / chain),
		PSINK_FRAMES);
}

bool psink_open(psink_t *s, const char *prog, const char *out)
{
	memset(s, 0, sizeof(*s));
	s->prog = prog;
	s->out = out;
	if (!out)
		return true;
	if (!strcmp(out, PSINK_COM2)) {
		errno_t rc = serial_open(SERIAL_COM2, &s->com);
		if (rc == EPERM)
			fprintf(stderr, "%s: com2: permission denied (needs the io "
				"permission)\n", prog);
		else if (rc != EOK)
			fprintf(stderr, "%s: com2: no serial port at 0x2f8\n", prog);
		s->com_on = rc == EOK;
		if (s->com_on)
			psink_com2_figure(s);
		return s->com_on;
	}
	s->file = fopen(out, "w");
	if (!s->file)
		fprintf(stderr, "%s: %s: %s\n", prog, out, strerror(errno));
	return s->file != NULL;
}

bool psink_write(psink_t *s, const void *data, size_t len)
{
	if (s->com_on)
		serial_write(&s->com, data, len);
	if (s->file && fwrite(data, 1, len, s->file) != len) {
		fprintf(stderr, "%s: %s: %s\n", s->prog, s->out, strerror(errno));
		return false;
	}
	return true;
}

bool psink_close(psink_t *s)
{
	bool ok = true;

	if (s->file && fclose(s->file) != 0) {
		fprintf(stderr, "%s: %s: %s\n", s->prog, s->out, strerror(errno));
		ok = false;
	}
	s->file = NULL;
	s->com_on = false;
	return ok;
}
