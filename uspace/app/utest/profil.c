/*
 * utest profil: the classic profiler's system calls (SYS_PROFILE,
 * SYS_GETPROFILE through libc's <profil.h>): pid 0 never fails, ESRCH,
 * EFAULT for every bad range, EBUSY while a profile runs, counts that grow
 * while this task spins in its own text and stop growing after
 * profile(0), and a profile that the kernel ends when its task exits.
 */
#include <errno.h>
#include <profil.h>
#include <prof.h>
#include <spawn.h>
#include <string.h>

#include "utest.h"

extern char __text_start[], __text_end[];

static struct profil_data pd;

/* profile() as 0 or the errno it set. */
static int prof_rc(task_id_t pid, uintptr_t s, uintptr_t e, size_t i)
{
	return profile(pid, s, e, i) == 0 ? 0 : errno;
}

/* The sum of the bins in use of the last getprofile. */
static uint64_t prof_sum(void)
{
	uint64_t sum = 0;

	for (uint64_t i = 0; i < pd.nr_bins && i < PROFIL_MAX_BINS; i++)
		sum += pd.bin[i];
	return sum;
}

static void test_profil_errors(void)
{
	task_id_t me = sys_task_id();
	uintptr_t ts = (uintptr_t)__text_start, te = (uintptr_t)__text_end;

	tap_ok(prof_rc(0, 1, 2, 3) == 0 && prof_rc(0, 0, 0, 0) == 0,
	       "profil: pid 0 stops and never fails for the owner");
	tap_ok(prof_rc((task_id_t)1 << 40, 0, 0, 0) == ESRCH, "profil: no such task: ESRCH");
	tap_ok(prof_rc(me, ts + 0x300, ts + 0x20, 0) == EFAULT &&
	       prof_rc(me, ts + 0x20, ts + 0x20, 0) == EFAULT &&
	       prof_rc(me, 0x1000, 0, 0) == EFAULT && prof_rc(me, 0, te + 1, 0) == EFAULT &&
	       prof_rc(me, 0, 0, 1) == (te - ts > PROFIL_MAX_BINS ? EFAULT : 0),
	       "profil: start > end, empty, outside the text, interval too small: EFAULT");
	profile(0, 0, 0, 0);
}

/*
 * A task without the profile permission that is neither the profiled
 * task, its parent nor the starter (here utest's child) can neither stop
 * nor read the profile; it still runs afterwards.
 */
static void test_profil_others(void)
{
	const char *const argv[] = { "tester", "profil-peek", NULL };
	int status = -1;
	int rc = prof_rc(sys_task_id(), 0, 0, 0);
	errno_t wrc = run_wait(argv, 0, &status);
	int still = prof_rc(sys_task_id(), 0, 0, 0);

	profile(0, 0, 0, 0);
	tap_ok(rc == 0 && wrc == EOK && status == 0 && still == EBUSY,
	       "profil: an unprivileged stranger can neither stop nor read a profile "
	       "(start %d, tester %s, then %d)", rc, status_str(status), still);
}

static void test_profil_self(void)
{
	task_id_t me = sys_task_id();

	int rc = prof_rc(me, 0, 0, 0);
	int busy = prof_rc(me, 0, 0, 0);
	spin_until(now_ns() + 300 * NS_PER_MS);
	int got = getprofile(&pd);
	uint64_t running = prof_sum();
	tap_ok(rc == 0 && busy == EBUSY && got == 0 && running > 0 &&
	       pd.start_addr == (uintptr_t)__text_start && pd.end_addr == (uintptr_t)__text_end,
	       "profil: own text profiled (%d, again %d), %llu ticks in 300 ms",
	       rc, busy, (unsigned long long)running);
	profile(0, 0, 0, 0);
	getprofile(&pd);
	uint64_t stopped = prof_sum();
	spin_until(now_ns() + 100 * NS_PER_MS);
	getprofile(&pd);
	tap_ok(prof_sum() == stopped && stopped >= running,
	       "profil: after profile(0) the counts stay (%llu)", (unsigned long long)stopped);
	tap_ok(raw3(SYS_GETPROFILE, (long)KERNEL_ADDR, 0, 0) == -EFAULT &&
	       getprofile(NULL) == -1 && errno == EFAULT, "profil: getprofile of a bad pointer: EFAULT");
}

/* A profile of a child stopped by the kernel when it exits. */
static void test_profil_exit(void)
{
	spawn_opts_t o = { .stdio = { "n:", "n:", "n:" }, .stopped = true };
	const char *argv[] = { "hello", NULL };
	task_id_t child = 0;
	int phone = -1;
	errno_t rc = spawn("/bin/hello", (char *const *)argv, &o, &child);
	int prc = rc == EOK ? prof_rc(child, 0, 0, 0) : -1;

	if (rc == EOK)
		rc = prof_connect(child, &phone);
	if (rc == EOK)
		rc = prof_task_start(phone);
	if (phone >= 0)
		prof_disconnect(phone);
	sys_wait(child, NULL, 0, NULL);
	int after = prof_rc(sys_task_id(), 0, 0, 0);
	profile(0, 0, 0, 0);
	tap_ok(rc == EOK && prc == 0 && after == 0,
	       "profil: a child's profile ends when it exits (rc %d, profile %d, then %d)",
	       rc, prc, after);
}

void test_profil(void)
{
	test_profil_errors();
	test_profil_self();
	test_profil_others();
	test_profil_exit();
}
