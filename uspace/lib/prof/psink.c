/* The profiler tools' -o sink: a file or the second serial port (psink.h). */
#include <abi/profile.h>
#include <errno.h>
#include <vernier.h>
#include <string.h>

#include <psink.h>

#define PSINK_FIGURE_BYTES (16 * 1024)  /* written before the figure is printed */

static uint64_t psink_now(void)
{
	return sys_clock_ns(CLOCK_MONOTONIC);
}

uint64_t psink_sample_bytes(bool chain)
{
	uint64_t words = chain ? PSINK_CHAIN_FRAMES + PROF_TOP_WORDS : 0;

	return sizeof(prof_rec_sample_t) + words * sizeof(uint64_t);
}

void psink_need(psink_t *s, uint64_t rate, uint64_t size)
{
	s->need_rate = rate;
	s->need_size = size;
}

/* The session's need against the line's rate (bytes a second). */
static void psink_com2_need(const psink_t *s, uint64_t rate)
{
	uint64_t need = s->need_rate * s->need_size;

	if (!need)
		return;
	fprintf(stderr, "%s: com2: this session asks about %llu KiB/s (%llu samples/s of "
		"%llu bytes): ", s->prog, (unsigned long long)(need / 1024),
		(unsigned long long)s->need_rate, (unsigned long long)s->need_size);
	if (need <= rate)
		fprintf(stderr, "the line carries it\n");
	else
		fprintf(stderr, "expect about %llu%% of the samples lost (counted); lower "
			"-f, drop -g or write to a file\n",
			(unsigned long long)((need - rate) * 100 / need));
}

/* What com2 carried so far, in bytes and in samples (a real UART: 115200 baud). */
static void psink_com2_figure(psink_t *s)
{
	uint64_t rate = s->com_ns ? s->com_bytes * 1000000000ull / s->com_ns : 0;
	uint64_t plain = psink_sample_bytes(false), chain = psink_sample_bytes(true);

	s->com_told = true;
	fprintf(stderr, "%s: com2 carries about %llu KiB/s here (%llu bytes timed; a real "
		"UART at 115200 baud: %u KiB/s): about %llu samples/s, %llu/s with -g and %d "
		"frames; beyond that samples are lost (counted)\n", s->prog,
		(unsigned long long)(rate / 1024), (unsigned long long)s->com_bytes,
		SERIAL_LINE_BYTES_S / 1024, (unsigned long long)(rate / plain),
		(unsigned long long)(rate / chain), PSINK_CHAIN_FRAMES);
	psink_com2_need(s, rate);
}

/* Send len bytes to com2, timing it; the figure once enough went. */
static void psink_com2_write(psink_t *s, const void *data, size_t len)
{
	uint64_t t0 = psink_now();

	serial_write(&s->com, data, len);
	s->com_ns += psink_now() - t0;
	s->com_bytes += len;
	if (!s->com_told && s->com_bytes >= PSINK_FIGURE_BYTES)
		psink_com2_figure(s);
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
		psink_com2_write(s, data, len);
	if (s->file && fwrite(data, 1, len, s->file) != len) {
		fprintf(stderr, "%s: %s: %s\n", s->prog, s->out, strerror(errno));
		return false;
	}
	return true;
}

bool psink_close(psink_t *s)
{
	bool ok = true;

	if (s->com_on && !s->com_told && s->com_bytes)
		psink_com2_figure(s);
	if (s->file && fclose(s->file) != 0) {
		fprintf(stderr, "%s: %s: %s\n", s->prog, s->out, strerror(errno));
		ok = false;
	}
	s->file = NULL;
	s->com_on = false;
	return ok;
}
