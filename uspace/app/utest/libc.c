/*
 * utest libc: the hosted-C additions in the guest. Files: remove, rename,
 * tmpnam, tmpfile, freopen; system() through /bin/sh; POSIX threads:
 * create/join/detach/self/equal, mutexes (contended counter, trylock,
 * recursive, error-checking), condition variables (a producer/consumer
 * queue, broadcast, a timed wait that times out), pthread_once and
 * thread-specific data with destructors; strtod and the trig functions
 * give the same bits as on the host; /bin/calc, a small interpreter of
 * ours using all of these, runs a script with the expected output.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <spawn.h>
#include <thread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "utest.h"

#define WORKERS 4
#define ROUNDS 20000
#define QUEUE_ITEMS 200

static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* The whole (short) content of path, or "" on error. */
static const char *slurp(const char *path)
{
	static char buf[128];
	FILE *f = fopen(path, "r");
	size_t n = 0;

	buf[0] = '\0';
	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

void test_libc_files(void)
{
	FILE *f = fopen("/tmp/libc-a", "w");
	tap_ok(f && fputs("moved", f) >= 0 && fclose(f) == 0,
	       "libc: wrote /tmp/libc-a");
	tap_ok(rename("/tmp/libc-a", "/tmp/libc-b") == 0 &&
	       !exists("/tmp/libc-a") && !strcmp(slurp("/tmp/libc-b"), "moved"),
	       "libc: rename moves the file and its content");
	tap_ok(remove("/tmp/libc-b") == 0 && !exists("/tmp/libc-b"),
	       "libc: remove deletes a file");
	tap_ok(mkdir("/tmp/libc-d", 0755) == 0 && remove("/tmp/libc-d") == 0 &&
	       !exists("/tmp/libc-d"), "libc: remove deletes an empty directory");
	errno = 0;
	tap_ok(remove("/tmp/libc-none") == -1 && errno == ENOENT,
	       "libc: remove of a missing file: ENOENT");

	char n1[L_tmpnam], n2[L_tmpnam];
	tap_ok(tmpnam(n1) && tmpnam(n2) && strcmp(n1, n2) != 0 &&
	       !strncmp(n1, "/tmp/", 5) && !exists(n1),
	       "libc: tmpnam gives distinct unused names (%s)", n1);
	FILE *t = tmpfile();
	char back[16] = "";
	bool io = t && fputs("scratch", t) >= 0 && fseek(t, 0, SEEK_SET) == 0 &&
		fgets(back, sizeof(back), t) && !strcmp(back, "scratch");
	tap_ok(io, "libc: tmpfile is a read-write stream (read back \"%s\")",
	       back);
	if (t)
		fclose(t);

	f = fopen("/tmp/libc-r1", "w");
	FILE *g = f ? freopen("/tmp/libc-r2", "w", f) : NULL;
	bool re = g == f && fputs("second", g) >= 0 && fclose(g) == 0;
	tap_ok(re && !strcmp(slurp("/tmp/libc-r2"), "second") &&
	       !strcmp(slurp("/tmp/libc-r1"), ""),
	       "libc: freopen moves a stream to another file");
	remove("/tmp/libc-r1");
	remove("/tmp/libc-r2");
}

void test_libc_system(void)
{
	tap_ok(system(NULL) == 1, "libc: system(NULL): a shell exists");
	int rc = system("echo via-shell > /tmp/libc-sys");
	tap_ok(rc == 0 && !strcmp(slurp("/tmp/libc-sys"), "via-shell\n"),
	       "libc: system runs a command line with a redirection (%d)", rc);
	remove("/tmp/libc-sys");
	rc = system("exit 7");
	tap_ok(rc == 7, "libc: system returns the exit status (%d)", rc);
}

/* ---------------------------------------------------------------- threads */

static pthread_mutex_t counter_lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;

static void *add_rounds(void *arg)
{
	for (int i = 0; i < ROUNDS; i++) {
		pthread_mutex_lock(&counter_lock);
		long v = counter;
		if ((i & 255) == 0)
			sys_yield();
		counter = v + 1;
		pthread_mutex_unlock(&counter_lock);
	}
	return arg;
}

static void *return_self(void *arg)
{
	(void)arg;
	return (void *)pthread_self();
}

static void test_create_join(void)
{
	pthread_t t[WORKERS];
	int made = 0, joined = 0;

	counter = 0;
	for (int i = 0; i < WORKERS; i++)
		made += pthread_create(&t[i], NULL, add_rounds,
				       (void *)(long)(i + 1)) == 0;
	for (int i = 0; i < WORKERS; i++) {
		void *v = NULL;
		joined += pthread_join(t[i], &v) == 0 && v == (void *)(long)(i + 1);
	}
	tap_ok(made == WORKERS && joined == WORKERS,
	       "pthread: %d threads created and joined with their values",
	       WORKERS);
	tap_ok(counter == (long)WORKERS * ROUNDS,
	       "pthread: a mutex keeps a contended counter exact (%ld)", counter);

	pthread_t s;
	void *v = NULL;
	tap_ok(pthread_create(&s, NULL, return_self, NULL) == 0 &&
	       pthread_join(s, &v) == 0 && pthread_equal((pthread_t)v, s) &&
	       !pthread_equal(s, pthread_self()),
	       "pthread: pthread_self in a thread is what create returned");
	tap_ok(pthread_join(s, NULL) == ESRCH &&
	       pthread_join(pthread_self(), NULL) == EDEADLK,
	       "pthread: joining twice: ESRCH; joining oneself: EDEADLK");

	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	int ok = 0;
	for (int i = 0; i < 20; i++) {
		pthread_t d;
		ok += pthread_create(&d, &a, return_self, NULL) == 0;
	}
	pthread_t d2;
	bool det = pthread_create(&d2, NULL, return_self, NULL) == 0 &&
		pthread_detach(d2) == 0;
	/* EINVAL while it runs, ESRCH once it was reaped */
	int again = pthread_detach(d2), join = pthread_join(d2, NULL);
	tap_ok(ok == 20 && det && (again == EINVAL || again == ESRCH) &&
	       (join == EINVAL || join == ESRCH),
	       "pthread: detached threads (by attribute and by pthread_detach; "
	       "then detach %d, join %d)", again, join);
	/* a finished detached thread is joined by the next pthread_create */
	pthread_t d3, d4;
	task_info_t ti = { 0 };
	bool started = pthread_create(&d3, &a, return_self, NULL) == 0;
	uint64_t deadline = now_ns() + 5 * NS_PER_SEC;
	while (sys_task_info(sys_task_id(), &ti) == EOK && ti.threads > 1 &&
	       now_ns() < deadline)
		sys_sleep_ns(NS_PER_MS);
	started = started && pthread_create(&d4, &a, return_self, NULL) == 0;
	errno_t rejoin = thread_join(d3, NULL);
	tap_ok(started && ti.threads == 1 && rejoin == ESRCH,
	       "pthread: a finished detached thread was reaped (join: %d)",
	       rejoin);
}

static void test_mutex_kinds(void)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	pthread_mutexattr_t a;

	tap_ok(pthread_mutex_trylock(&m) == 0 &&
	       pthread_mutex_trylock(&m) == EBUSY &&
	       pthread_mutex_unlock(&m) == 0 && pthread_mutex_trylock(&m) == 0 &&
	       pthread_mutex_unlock(&m) == 0,
	       "pthread: trylock takes a free mutex, EBUSY on a held one");
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&m, &a);
	tap_ok(pthread_mutex_lock(&m) == 0 && pthread_mutex_lock(&m) == 0 &&
	       pthread_mutex_trylock(&m) == 0 && pthread_mutex_unlock(&m) == 0 &&
	       pthread_mutex_unlock(&m) == 0 && pthread_mutex_destroy(&m) == EBUSY &&
	       pthread_mutex_unlock(&m) == 0 && pthread_mutex_unlock(&m) == EPERM,
	       "pthread: a recursive mutex counts its locks");
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
	pthread_mutex_init(&m, &a);
	tap_ok(pthread_mutex_unlock(&m) == EPERM && pthread_mutex_lock(&m) == 0 &&
	       pthread_mutex_lock(&m) == EDEADLK && pthread_mutex_unlock(&m) == 0,
	       "pthread: an error-checking mutex refuses relock and foreign unlock");
}

/* A bounded queue: producer and consumer meet through two conditions. */
typedef struct queue {
	pthread_mutex_t lock;
	pthread_cond_t nonempty, nonfull;
	int items[8];
	int head, count;
	long sum;
} queue_t;

static void *consume(void *arg)
{
	queue_t *q = arg;

	for (int i = 0; i < QUEUE_ITEMS; i++) {
		pthread_mutex_lock(&q->lock);
		while (q->count == 0)
			pthread_cond_wait(&q->nonempty, &q->lock);
		q->sum += q->items[q->head];
		q->head = (q->head + 1) % 8;
		q->count--;
		pthread_cond_signal(&q->nonfull);
		pthread_mutex_unlock(&q->lock);
	}
	return NULL;
}

static void test_cond(void)
{
	static queue_t q = {
		PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
		PTHREAD_COND_INITIALIZER, { 0 }, 0, 0, 0,
	};
	pthread_t c;
	long want = 0;

	bool started = pthread_create(&c, NULL, consume, &q) == 0;
	for (int i = 1; started && i <= QUEUE_ITEMS; i++) {
		pthread_mutex_lock(&q.lock);
		while (q.count == 8)
			pthread_cond_wait(&q.nonfull, &q.lock);
		q.items[(q.head + q.count) % 8] = i;
		q.count++;
		want += i;
		pthread_cond_signal(&q.nonempty);
		pthread_mutex_unlock(&q.lock);
	}
	tap_ok(started && pthread_join(c, NULL) == 0 && q.sum == want,
	       "pthread: producer/consumer over two condition variables "
	       "(sum %ld of %ld)", q.sum, want);

	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t cv;
	pthread_condattr_t ca;
	struct timespec ts;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&cv, &ca);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t t0 = now_ns();
	ts.tv_nsec += 50 * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&m);
	int rc = pthread_cond_timedwait(&cv, &m, &ts);
	uint64_t waited = now_ns() - t0;
	bool relocked = pthread_mutex_trylock(&m) == EBUSY;
	pthread_mutex_unlock(&m);
	tap_ok(rc == ETIMEDOUT && waited >= 50 * NS_PER_MS && relocked,
	       "pthread: a timed wait times out after %llu ms (50 asked), "
	       "mutex held again", (unsigned long long)(waited / NS_PER_MS));
}

static int once_runs;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_key_t key;
static int dtor_runs;
static long dtor_sum;

static void once_fn(void)
{
	once_runs++;
}

static void key_dtor(void *v)
{
	__atomic_fetch_add(&dtor_runs, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&dtor_sum, (long)v, __ATOMIC_RELAXED);
}

static void *use_key(void *arg)
{
	pthread_once(&once, once_fn);
	bool fresh = pthread_getspecific(key) == NULL;
	pthread_setspecific(key, arg);
	sys_yield();
	return (void *)(long)(fresh && pthread_getspecific(key) == arg);
}

static void test_once_keys(void)
{
	pthread_t t[WORKERS];
	int good = 0;

	tap_ok(pthread_key_create(&key, key_dtor) == 0, "pthread: key created");
	pthread_setspecific(key, (void *)1000L);
	for (int i = 0; i < WORKERS; i++)
		pthread_create(&t[i], NULL, use_key, (void *)(long)(i + 1));
	for (int i = 0; i < WORKERS; i++) {
		void *v = NULL;
		good += pthread_join(t[i], &v) == 0 && v == (void *)1L;
	}
	tap_ok(once_runs == 1, "pthread: pthread_once ran its function once");
	tap_ok(good == WORKERS && pthread_getspecific(key) == (void *)1000L,
	       "pthread: each thread sees only its own value (%d of %d)", good,
	       WORKERS);
	tap_ok(dtor_runs == WORKERS && dtor_sum == 1 + 2 + 3 + 4,
	       "pthread: destructors ran for each exiting thread's value");
	tap_ok(pthread_key_delete(key) == 0 && pthread_key_delete(key) == EINVAL &&
	       pthread_setspecific(key, NULL) == EINVAL,
	       "pthread: a deleted key is refused");
}

void test_pthreads(void)
{
	test_create_join();
	test_mutex_kinds();
	test_cond();
	test_once_keys();
}

/* ---------------------------------------------------------------- numbers */

void test_libc_numbers(void)
{
	double d = strtod("0.1", NULL);
	uint64_t b;
	memcpy(&b, &d, sizeof(b));
	tap_ok(b == 0x3fb999999999999aull && strtod("0x1.8p1", NULL) == 3.0 &&
	       strtof("3.4028236e38", NULL) == INFINITY,
	       "libc: strtod/strtof round as on the host");
	tap_ok(sin(6381956970095103.0 * 0x1p797) == 1.0 &&
	       cos(6381956970095103.0 * 0x1p797) == -0x1.14ae72e6ba22fp-61 &&
	       atan2(1, -1) == 0x1.2d97c7f3321d2p+1 && exp2(10) == 1024,
	       "libc: sin/cos/atan2/exp2 in the guest give the host's bits");
}

/* ---------------------------------------------------------------- calc */

static const char calc_script[] =
	"# a script\n"
	"let x = 0.1 + 0.2\n"
	"print x\n"
	"digits 12\n"
	"print sin(1), cos(1), atan2(1, -1) * 4 / 3\n"
	"print 2 ^ 3 ^ 2, -2 ^ 2, 7 % 3, 0x1.8p1 + 1e-1\n"
	"let r = sqrt(2)\n"
	"print r * r, hypot(3, 4), cbrt(27), log10(1e300)\n"
	"sum i = 1 to 1000 of i * i\n"
	"sum k = 0 to 99999 of 4 * (-1) ^ k / (2 * k + 1)\n"
	"print 1 / 0\n"
	"print 5 % 0\n"
	"print nosuch\n"
	"print sin(\n"
	"sum j = 1 to 10 of 1 / (j - 5)\n"
	"raise 10\n"
	"print 1e400\n"
	"system \"exit 3\"\n"
	"cpu\n"
	"print 1.5e-5, 1e21, 123456789012\n"
	"abort\n"
	"print 0\n";

static const char calc_expected[] =
	"0.30000000000000004\n"
	"0.841470984808 0.540302305868 3.14159265359\n"
	"512 4 1 3.1\n"
	"2 5 3 300\n"
	"333833500\n"
	"3.14158265359\n"
	"line 11: error: arithmetic error (signal 8)\n"
	"line 12: error: arithmetic error (signal 8)\n"
	"line 13: error: unknown variable nosuch\n"
	"line 14: error: expected a value at \"\"\n"
	"line 15: error: in sum: arithmetic error (signal 8)\n"
	"caught signal 10\n"
	"line 17: error: number out of range\n"
	"status 3\n"
	"cpu clock advances\n"
	"1.5e-05 1e+21 123456789012\n";

/* The first difference of got from want, for the diagnostics. */
static void diag_diff(const char *got, const char *want)
{
	size_t i = 0;

	while (got[i] && got[i] == want[i])
		i++;
	size_t line = i;
	while (line > 0 && want[line - 1] != '\n')
		line--;
	tap_diag("calc output differs at byte %zu: got \"%.60s\", want \"%.60s\"",
		 i, got + line, want + line);
}

void test_calc(void)
{
	static char out[2048];
	FILE *f = fopen("/tmp/calc.in", "w");
	bool wrote = f && fputs(calc_script, f) >= 0 && fclose(f) == 0;
	f = fopen("/tmp/calc.out", "w");     /* "w:" specs do not create */
	wrote = wrote && f && fclose(f) == 0;
	char *const argv[] = { "calc", "/tmp/calc.in", NULL };
	spawn_opts_t opts = { .stdio = { NULL, "w:/tmp/calc.out", NULL } };
	task_id_t id;
	int status = -1;

	errno_t rc = wrote ? spawn("/bin/calc", argv, &opts, &id) : EIO;
	if (rc == EOK)
		rc = sys_wait(id, &status, 0, NULL);
	size_t n = 0;
	f = fopen("/tmp/calc.out", "r");
	if (f) {
		n = fread(out, 1, sizeof(out) - 1, f);
		fclose(f);
	}
	out[n] = '\0';
	tap_ok(rc == EOK && status == 134,
	       "calc: the script ran and ended in abort() (%s)", status_str(status));
	bool same = !strcmp(out, calc_expected);
	if (!same)
		diag_diff(out, calc_expected);
	tap_ok(same, "calc: strtod, math, SIGFPE via raise+longjmp, threads "
	       "with TSD/mutex/cond, system and clocks gave the expected output");
	remove("/tmp/calc.in");
	remove("/tmp/calc.out");
}
