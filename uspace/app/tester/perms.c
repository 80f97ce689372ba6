/*
 * tester: probes run with no permissions by utest's permission tests.
 * Each checks that something another task owns is refused and exits 0 if
 * it was, else the number of the check that went wrong.
 */
#include <errno.h>
#include <stdbool.h>
#include <prof.h>
#include <profil.h>
#include <stdio.h>
#include <string.h>
#include <vernier.h>

#include "tester.h"

static struct prof_data peek_data;

/*
 * `profil-peek`: another task's classic profile runs. Stopping it
 * (profile(0)) and reading it (getprofile) must both fail with EGENERIC.
 */
int cmd_profil_peek(int argc, char **argv)
{
	(void)argv;
	if (argc != 1) {
		usage(0);
		return 2;
	}
	if (profile(0, 0, 0, 0) == 0 || errno != EGENERIC) {
		printf("tester: profile(0) of another's profile was not refused\n");
		return 3;
	}
	if (getprofile(&peek_data) == 0 || errno != EGENERIC) {
		printf("tester: getprofile of another's profile was not refused\n");
		return 4;
	}
	return 0;
}

static char peek_buf[256];

/* `klog-peek`: reading the kernel log must fail with EPERM. */
int cmd_klog_peek(int argc, char **argv)
{
	uint64_t pos = 0;

	(void)argv;
	if (argc != 1) {
		usage(0);
		return 2;
	}
	long r = __vernier_syscall(SYS_KLOG_READ, (long)peek_buf, sizeof(peek_buf),
				   (long)&pos, 0, 0, 0);
	if (r != -EPERM) {
		printf("tester: klog read gave %ld, not EPERM\n", r);
		return 3;
	}
	return 0;
}

/*
 * `console-forge LINE`: write LINE (and a newline) to the kernel log
 * with SYS_CONSOLE_WRITE, then 64 KiB more; exit 0 if the flood was cut
 * short with ELIMIT (the caller checks how LINE was logged).
 */
int cmd_console_forge(int argc, char **argv)
{
	static char flood[64 * 1024];
	long total = 0, r = 0;

	if (argc != 2) {
		usage(0);
		return 2;
	}
	__vernier_syscall(SYS_CONSOLE_WRITE, (long)argv[1], (long)strlen(argv[1]), 0, 0, 0, 0);
	__vernier_syscall(SYS_CONSOLE_WRITE, (long)"\n", 1, 0, 0, 0, 0);
	memset(flood, '.', sizeof(flood));
	for (int i = 0; i < 16 && r >= 0; i++) {
		r = __vernier_syscall(SYS_CONSOLE_WRITE, (long)flood, sizeof(flood), 0, 0, 0, 0);
		total += r > 0 ? r : 0;
	}
	if (r != -ELIMIT || total > 8192) {
		printf("tester: the flood wrote %ld bytes, last %ld\n", total, r);
		return 3;
	}
	return 0;
}

/* ------------------------------------------------- prof-self */

typedef struct self_stats {
	bool header, ktext_hidden;
	unsigned long user, kernel, leaked;   /* samples; kernel addresses seen */
} self_stats_t;

static uint8_t self_buf[64 * 1024];

static bool is_kernel_addr(uint64_t a)
{
	return a >= 0xffff800000000000ull;
}

/* Check one record of our own session. */
static void self_record(const prof_rec_t *h, self_stats_t *st)
{
	if (h->type == PROF_REC_HEADER) {
		const prof_rec_header_t *hd = (const void *)h;
		st->header = true;
		st->ktext_hidden = !hd->ktext_start && !hd->ktext_end;
		return;
	}
	if (h->type != PROF_REC_SAMPLE)
		return;
	const prof_rec_sample_t *s = (const void *)h;
	bool leak = is_kernel_addr(s->pc) || s->nkernel;
	for (unsigned i = 0; i < s->nchain; i++)
		leak |= is_kernel_addr(s->chain[i]);
	st->leaked += leak;
	if (s->mode == PROF_MODE_USER)
		st->user++;
	else
		st->kernel += s->pc == 0;
}

/* Read the session on phone until it has ended. */
static errno_t self_read_all(int phone, self_stats_t *st)
{
	unsigned state = PROF_STATE_RUNNING;
	size_t got;
	errno_t rc;

	while ((rc = prof_read(phone, self_buf, sizeof(self_buf), &got, &state)) == EOK) {
		for (size_t at = 0; at + sizeof(prof_rec_t) <= got;) {
			const prof_rec_t *h = (const void *)(self_buf + at);
			if (h->size < sizeof(*h) || at + h->size > got)
				return EINVAL;
			self_record(h, st);
			at += h->size;
		}
		if (!got && state == PROF_STATE_ENDED)
			break;
	}
	return rc;
}

/*
 * `prof-self`: with no permissions, profile ourselves with call chains
 * while making system calls. A rate above the unprivileged cap is
 * ELIMIT; the stream's header has no kernel text range; kernel samples
 * come with pc 0 and no kernel call chain; no kernel address at all.
 */
int cmd_prof_self(int argc, char **argv)
{
	prof_params_t p = { .source = PROF_SRC_DEFAULT, .hz = PROF_UNPRIV_HZ_MAX + 1,
			    .flags = PROF_F_CALLCHAIN, .depth = 32 };
	self_stats_t st = { 0 };
	unsigned src, hz;
	int phone;

	(void)argv;
	if (argc != 1) {
		usage(0);
		return 2;
	}
	if (prof_connect(sys_task_id(), &phone) != EOK)
		return 3;
	errno_t rc = prof_task_begin(phone, &p, &src, &hz);
	if (rc != ELIMIT) {
		printf("tester: %u Hz without permission gave %d, not ELIMIT\n", p.hz, rc);
		return 4;
	}
	p.hz = 1000;
	if ((rc = prof_task_begin(phone, &p, &src, &hz)) != EOK) {
		printf("tester: begin at 1000 Hz: error %d\n", rc);
		return 5;
	}
	uint64_t end = sys_clock_ns(CLOCK_MONOTONIC) + 500000000ull;
	while (sys_clock_ns(CLOCK_MONOTONIC) < end)
		for (int i = 0; i < 100; i++)
			__vernier_syscall(SYS_NULL, 0, 0, 0, 0, 0, 0);
	prof_end(phone);
	rc = self_read_all(phone, &st);
	prof_disconnect(phone);
	printf("tester: %lu user, %lu kernel samples, %lu with kernel addresses\n",
	       st.user, st.kernel, st.leaked);
	if (rc != EOK || !st.header || !st.ktext_hidden || st.leaked || !st.kernel)
		return 6;
	return 0;
}
