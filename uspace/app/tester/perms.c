/*
 * tester: probes run with no permissions by utest's permission tests.
 * Each checks that something another task owns is refused and exits 0 if
 * it was, else the number of the check that went wrong.
 */
#include <console.h>
#include <errno.h>
#include <stdbool.h>
#include <prof.h>
#include <profil.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vernier.h>

#include "tester.h"

static struct profil_data peek_data;

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
 * `console-forge LINE [MS]`: write LINE (and a newline) to the kernel log
 * with SYS_CONSOLE_WRITE, then flood it with 64 KiB writes of 64-byte
 * lines (for MS milliseconds: again after each ELIMIT); exit 0 if the
 * flood was cut short with ELIMIT, to about the task's budget (the
 * caller checks how LINE was logged).
 */
int cmd_console_forge(int argc, char **argv)
{
	static char flood[64 * 1024];
	long total = 0, r = 0, limited = 0;

	if (argc != 2 && argc != 3) {
		usage(0);
		return 2;
	}
	uint64_t ms = argc == 3 ? strtoul(argv[2], NULL, 10) : 0;
	uint64_t end = sys_clock_ns(CLOCK_MONOTONIC) + ms * 1000000ull;
	__vernier_syscall(SYS_CONSOLE_WRITE, (long)argv[1], (long)strlen(argv[1]), 0, 0, 0, 0);
	__vernier_syscall(SYS_CONSOLE_WRITE, (long)"\n", 1, 0, 0, 0, 0);
	memset(flood, '.', sizeof(flood));
	for (size_t i = 63; i < sizeof(flood); i += 64)
		flood[i] = '\n';
	do {
		r = 0;
		for (int i = 0; i < 16 && r >= 0; i++) {
			r = __vernier_syscall(SYS_CONSOLE_WRITE, (long)flood, sizeof(flood), 0, 0, 0, 0);
			total += r > 0 ? r : 0;
		}
		limited += r == -ELIMIT;
		if (ms)
			sys_sleep_ns(1000000ull);
	} while (r == -ELIMIT && sys_clock_ns(CLOCK_MONOTONIC) < end);
	if (r != -ELIMIT || total > (long)(ms / 1000 + 2) * 4096) {
		printf("tester: the flood wrote %ld bytes, last %ld\n", total, r);
		return 3;
	}
	return 0;
}

/*
 * `console-long`: a line of 1024 'L' (and '\n') is written whole; lines
 * of 1025 'M', with a '\n' or without, are refused with EINVAL: exit 0
 * if so (the caller checks the log).
 */
int cmd_console_long(int argc, char **argv)
{
	static char line[1027];

	if (argc != 1) {
		usage(0);
		return 2;
	}
	memset(line, 'L', 1024);
	line[1024] = '\n';
	long ok = __vernier_syscall(SYS_CONSOLE_WRITE, (long)line, 1025, 0, 0, 0, 0);
	memset(line, 'M', 1025);
	line[1025] = '\n';
	long nl = __vernier_syscall(SYS_CONSOLE_WRITE, (long)line, 1026, 0, 0, 0, 0);
	long bare = __vernier_syscall(SYS_CONSOLE_WRITE, (long)line, 1025, 0, 0, 0, 0);
	if (ok != 1025 || nl != -EINVAL || bare != -EINVAL) {
		printf("tester: console lines of 1024, 1025+newline, 1025 bytes gave "
		       "%ld, %ld, %ld\n", ok, nl, bare);
		return 3;
	}
	return 0;
}

/* ------------------------------------------------- prof-self */

typedef struct self_stats {
	bool header, ktext_hidden;
	unsigned long user, kernel, leaked;   /* samples; kernel addresses seen */
	unsigned long off;                    /* off-CPU records (PROF_F_OFFCPU) */
} self_stats_t;

static uint8_t self_buf[64 * 1024];

static bool is_kernel_addr(uint64_t a)
{
	return a >= 0xffff800000000000ull;
}

/* An off-CPU record of our own session: user frames only. */
static void self_offcpu(const prof_rec_offcpu_t *r, self_stats_t *st)
{
	bool leak = r->nkernel != 0;

	for (unsigned i = 0; i < r->nchain; i++)
		leak |= is_kernel_addr(r->chain[i]);
	st->leaked += leak;
	st->off++;
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
	if (h->type == PROF_REC_OFFCPU) {
		self_offcpu((const prof_rec_offcpu_t *)h, st);
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
 * A kbox command's start: no arguments (usage, 2), then a phone to our own
 * kbox (3 if refused). 0 and *phone, or the exit code.
 */
static int self_kbox(int argc, char **argv, int *phone)
{
	(void)argv;
	if (argc != 1) {
		usage(0);
		return 2;
	}
	return prof_connect(sys_task_id(), phone) == EOK ? 0 : 3;
}

/*
 * `prof-self`: with no permissions, profile ourselves with call chains
 * while making system calls. A rate above the unprivileged cap is
 * ELIMIT; the stream's header has no kernel text range; kernel samples
 * come with pc 0 and no kernel call chain; off-CPU records (it sleeps
 * too) come with user frames only; no kernel address at all.
 */
int cmd_prof_self(int argc, char **argv)
{
	prof_params_t p = { .source = PROF_SRC_DEFAULT, .hz = PROF_UNPRIV_HZ_MAX + 1,
			    .flags = PROF_F_CALLCHAIN | PROF_F_OFFCPU, .depth = 32 };
	self_stats_t st = { 0 };
	unsigned src, hz;
	int phone;

	int rc0 = self_kbox(argc, argv, &phone);

	if (rc0)
		return rc0;
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
	for (int i = 0; i < 5; i++)
		sys_sleep_ns(2000000);          /* off-CPU records too */
	prof_end(phone);
	rc = self_read_all(phone, &st);
	prof_disconnect(phone);
	printf("tester: %lu user, %lu kernel samples, %lu off-CPU records, %lu with kernel "
	       "addresses\n", st.user, st.kernel, st.off, st.leaked);
	if (rc != EOK || !st.header || !st.ktext_hidden || st.leaked || !st.kernel || !st.off)
		return 6;
	return 0;
}

/* SYS_IPC_CALL_SHORT on phone with method and three words; the answer's method in *ret. */
static long short_call(unsigned long phone, unsigned long method, unsigned long a0,
		       unsigned long a1, unsigned long a2, unsigned long *ret)
{
	unsigned long w[6] = { phone, method, a0, a1, a2, 0 };
	long r = __vernier_syscall_words(SYS_IPC_CALL_SHORT, w);

	*ret = w[0];
	return r;
}

/*
 * `ipc-short`: with no permissions, SYS_IPC_CALL_SHORT carries no right
 * we lack: a system session begun with it through our own kbox is refused
 * EPERM (plain and with the flight recorder's flag), and a phone we do
 * not hold is ENOENT. Exit 0 if so, else the number of the check.
 */
int cmd_ipc_short(int argc, char **argv)
{
	static const unsigned long flags[] = { 0, PROF_F_RECORDER };
	unsigned long ret = 0;
	int phone;

	int rc0 = self_kbox(argc, argv, &phone);

	if (rc0)
		return rc0;
	for (int i = 0; i < 2; i++) {
		long r = short_call((unsigned long)phone, KBOX_PROF_SYSTEM_BEGIN, PROF_SRC_DEFAULT,
				    100, flags[i], &ret);
		if (r != 0 || ret != EPERM) {
			printf("tester: a system session (flags %#lx) gave %ld, answer %lu, not EPERM\n",
			       flags[i], r, ret);
			prof_disconnect(phone);
			return 4 + i;
		}
	}
	prof_disconnect(phone);
	long r = short_call(IPC_MAX_PHONES - 1, IPC_M_USER, 0, 0, 0, &ret);
	if (r != -ENOENT) {
		printf("tester: a phone we do not hold gave %ld, not ENOENT\n", r);
		return 6;
	}
	return 0;
}

/*
 * `raw`: a foreground command's first console call, raw mode, must be
 * allowed (the shell makes it the foreground before it runs). Exit 0, or
 * 3 with the error.
 */
int cmd_raw(int argc, char **argv)
{
	unsigned old = 0;
	int phone = console_stdio_phone();
	errno_t rc = phone < 0 ? ENOTTY : console_set_mode(phone, CONSOLE_MODE_RAW, &old);

	(void)argv;
	if (argc != 1) {
		usage(0);
		return 2;
	}
	if (rc != EOK) {
		printf("tester: raw mode refused: %s\n", strerror(rc));
		return 3;
	}
	console_set_mode(phone, old, NULL);
	return 0;
}
