/*
 * Where a profiler tool's raw bytes go with -o: a file, or "com2", the
 * second serial port (the host reads it through QEMU's -serial file:...;
 * needs the io permission). Shared by profile, sprofile (through ptool.c)
 * and cprof, which link uspace/lib/prof (libprof.a).
 */
#ifndef PSINK_H
#define PSINK_H

#include <serial.h>
#include <stdbool.h>
#include <stdio.h>

#define PSINK_COM2 "com2"               /* -o com2: the second serial port */
#define PSINK_CHAIN_FRAMES 8            /* a typical -g chain, for the figures */

typedef struct psink {
	const char *prog;               /* for messages */
	const char *out;                /* FILE or "com2"; NULL: nowhere */
	FILE *file;
	serial_t com;
	bool com_on;
	bool com_told;                  /* the com2 figure was printed */
	uint64_t com_bytes, com_ns;     /* written to com2, time it took */
	uint64_t need_rate;             /* samples a second the session asks; 0: unknown */
	uint64_t need_size;             /* bytes a sample takes */
} psink_t;

/*
 * Open out (NULL: a sink that drops everything) into *s. Prints what
 * fails (prog: out: why) and returns false.
 */
bool psink_open(psink_t *s, const char *prog, const char *out);
/*
 * Write len bytes of data; false (printed) on a file write error. To com2,
 * once PSINK_FIGURE_BYTES went (or at close, if fewer), it prints what the
 * line carried: KiB/s and samples a second with and without -g.
 */
bool psink_write(psink_t *s, const void *data, size_t len);
/*
 * What the session will ask of the line: rate samples a second of size
 * bytes each. The com2 figure then compares it with what the line carries
 * and says how much will be lost.
 */
void psink_need(psink_t *s, uint64_t rate, uint64_t size);
/*
 * Bytes of one sample record in the stream: without a chain, or (chain)
 * with a typical -g chain of PSINK_CHAIN_FRAMES frames and the stack-top
 * words. The com2 figures use it for what the line carries and what the
 * session asks.
 */
uint64_t psink_sample_bytes(bool chain);
/* Close the sink; false (printed) if the file could not be completed. */
bool psink_close(psink_t *s);

#endif
