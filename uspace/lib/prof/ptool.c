/*
 * The profilers' shared part (see ptool.h): options, the -o sink, the
 * report's environment and the loop of a running session.
 *
 * The loop: DATA_READ (answered within PROF_READ_TIMEOUT_MS) into a
 * 64 KiB buffer, the bytes to the report and the sink; then the keys
 * typed meanwhile, the -d deadline, and about twice a second the status
 * line on stderr ("\r" rewritten: samples, lost, missed ticks, rate, elapsed). After
 * END (q, -d, e) or the target's exit the kernel answers with what is
 * left, then 0 bytes and PROF_STATE_ENDED: the stream is drained.
 * Under -l, ptool_run hands the session to the live view (plive.c),
 * which reads with the same ptool_read_once.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <vernier.h>

#include <ptool.h>

#define NS_PER_S 1000000000ull
#define NS_PER_MS 1000000ull
#define STATUS_PERIOD_NS (500 * NS_PER_MS)
#define IDLE_POLL_NS (100 * NS_PER_MS)
#define MAX_SECONDS 1000000ull
#define THRESHOLD_DEFAULT 50            /* 0.5 % */
#define STATUS_MAX 160
#define REFRESH_MIN_NS (100 * NS_PER_MS)   /* -i */
#define KEY_CTRL_C 0x03
#define KEYS_MAX 32
#define PATH_MAX_LEN 256

typedef unsigned long long ull;

void ptool_opts_init(ptool_opts_t *o, const char *prog, unsigned style,
		     const char *keys)
{
	memset(o, 0, sizeof(*o));
	o->prog = prog;
	o->params.source = PROF_SRC_DEFAULT;
	o->params.hz = PROF_HZ_DEFAULT;
	o->params.depth = PROF_DEPTH_DEFAULT;
	o->threshold_centi = THRESHOLD_DEFAULT;
	o->style = style;
	o->keys = keys;
}

/* Digits of s into *v (no overflow past max); the rest to *end. */
static bool parse_digits(const char *s, uint64_t max, uint64_t *v,
			 const char **end)
{
	const char *p = s;

	for (*v = 0; *p >= '0' && *p <= '9'; p++) {
		*v = *v * 10 + (uint64_t)(*p - '0');
		if (*v > max)
			return false;
	}
	*end = p;
	return p != s;
}

/* A whole number in [min, max]. */
static bool parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	const char *end;

	return parse_digits(s, max, v, &end) && !*end && *v >= min;
}

/*
 * "N", "N.F" or ".F" (whole part at most max_whole) in units of 1/scale
 * (scale a power of ten; further decimals are dropped) into *v.
 */
static bool parse_fixed(const char *s, uint64_t max_whole, uint64_t scale,
			uint64_t *v)
{
	uint64_t whole = 0, frac = 0, unit = scale;
	const char *p = s;
	bool digits = false;

	for (; *p >= '0' && *p <= '9'; p++, digits = true) {
		whole = whole * 10 + (uint64_t)(*p - '0');
		if (whole > max_whole)
			return false;
	}
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++, digits = true) {
			unit /= 10;
			frac += (uint64_t)(*p - '0') * unit;
		}
	}
	*v = whole * scale + frac;
	return digits && !*p;
}

/* Print "PROG: what 'arg'" for a bad option value; 0 (a usage error). */
static int bad_value(const ptool_opts_t *o, const char *what, const char *arg)
{
	fprintf(stderr, "%s: %s '%s'\n", o->prog, what, arg);
	return 0;
}

/* The kernel's sources (system.profiler.sources, its order) into v[PROF_SRC_COUNT]; how many. */
static unsigned kernel_sources(prof_source_desc_t *v)
{
	size_t got = 0;

	if (sys_sysinfo_data("system.profiler.sources", v, PROF_SRC_COUNT * sizeof(*v),
			     &got) != EOK)
		return 0;
	return (unsigned)(got / sizeof(*v));
}

/* The PROF_SRC_* the kernel calls name ("default" too), or -1. */
static int source_parse(const char *name)
{
	prof_source_desc_t v[PROF_SRC_COUNT];
	unsigned n = kernel_sources(v);

	if (strcmp(name, "default") == 0)
		return PROF_SRC_DEFAULT;
	for (unsigned i = 0; i < n; i++)
		if (strncmp(name, v[i].name, sizeof(v[i].name)) == 0)
			return (int)v[i].id;
	return -1;
}

const char *ptool_source_name(unsigned source, char *buf)
{
	prof_source_desc_t v[PROF_SRC_COUNT];
	unsigned n = kernel_sources(v);

	strcpy(buf, source == PROF_SRC_DEFAULT ? "default" : "?");
	for (unsigned i = 0; i < n; i++)
		if (v[i].id == source)
			snprintf(buf, PROF_SRC_NAME_MAX, "%.*s", PROF_SRC_NAME_MAX - 1, v[i].name);
	return buf;
}

/* The PROF_F_TRACE_* class named name (len bytes), 0 if none. */
static uint32_t trace_class(const char *name, size_t len)
{
	static const struct { const char *name; uint32_t cls; } classes[] = {
		{ "sched", PROF_F_TRACE_SCHED }, { "ipc", PROF_F_TRACE_IPC },
		{ "irq", PROF_F_TRACE_IRQ }, { "syscall", PROF_F_TRACE_SYSCALL },
		{ "all", PROF_F_TRACE },
	};

	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (strlen(classes[i].name) == len && strncmp(name, classes[i].name, len) == 0)
			return classes[i].cls;
	return 0;
}

/* -e's comma-separated class list into *flags; false if a name is unknown. */
static bool trace_parse(const char *arg, uint32_t *flags)
{
	uint32_t all = 0;

	for (const char *p = arg;; p++) {
		size_t len = strcspn(p, ",");
		uint32_t cls = trace_class(p, len);
		if (!cls)
			return false;
		all |= cls;
		p += len;
		if (!*p)
			break;
	}
	*flags |= all;
	return true;
}

int ptool_option(ptool_opts_t *o, int c, const char *arg)
{
	uint64_t v;
	int src;

	switch (c) {
	case 'f':
		if (!parse_uint(arg, 1, PROF_HZ_MAX, &v))
			return bad_value(o, "-f wants a rate of 1..100000 Hz, not", arg);
		o->params.hz = (unsigned)v;
		return 1;
	case 's':
		src = source_parse(arg);
		if (src < 0)
			return bad_value(o, "unknown source", arg);
		o->params.source = (unsigned)src;
		return 1;
	case 'd':
		if (!parse_fixed(arg, MAX_SECONDS, NS_PER_S, &v) || v == 0)
			return bad_value(o, "-d wants seconds (like 5 or 0.5), not", arg);
		o->duration_ns = v;
		return 1;
	case 'p':
		if (!parse_fixed(arg, 100, 100, &v) || v > 100 * 100)
			return bad_value(o, "-p wants a percentage of 0..100, not", arg);
		o->threshold_centi = (unsigned)v;
		return 1;
	case 'g':
		o->tree = true;
		o->params.flags |= PROF_F_CALLCHAIN;
		return 1;
	case 'o':
		o->out = arg;
		return 1;
	case 'c':
		o->by_origin = true;
		return 1;
	case 'w':
		o->wall = true;
		o->params.flags |= PROF_F_OFFCPU;
		return 1;
	case 'l':
		o->live = true;
		return 1;
	case 'e':
		if (!trace_parse(arg, &o->params.flags))
			return bad_value(o, "-e wants event classes sched,ipc,irq,syscall "
					 "(or all), not", arg);
		return 1;
	case 'i':
		if (!parse_fixed(arg, MAX_SECONDS, NS_PER_S, &v) || v < REFRESH_MIN_NS)
			return bad_value(o, "-i wants seconds of at least 0.1 (like 1 or 0.5), not",
					 arg);
		o->refresh_ns = v;
		return 1;
	default:
		return -1;
	}
}

bool ptool_opts_check(ptool_opts_t *o)
{
	if (o->live && o->by_origin) {
		fprintf(stderr, "%s: -l and -c do not go together\n", o->prog);
		return false;
	}
	if (o->refresh_ns && !o->live) {
		fprintf(stderr, "%s: -i needs -l\n", o->prog);
		return false;
	}
	if (!o->refresh_ns)
		o->refresh_ns = NS_PER_S;
	return true;
}

/* ------------------------------------------------------------ errors */

/*
 * Why a source is missing, as far as user space can tell: the sources
 * system.profiler.sources says this machine has, into buf.
 */
static const char *source_why(char *buf, size_t n)
{
	prof_source_desc_t v[PROF_SRC_COUNT];
	unsigned k = kernel_sources(v);
	size_t at = (size_t)snprintf(buf, n, "this machine has");
	bool any = false;

	for (unsigned i = 0; i < k && at < n; i++)
		if (v[i].flags & PROF_SRCF_AVAILABLE) {
			at += (size_t)snprintf(buf + at, n - at, " %.*s",
					       PROF_SRC_NAME_MAX - 1, v[i].name);
			any = true;
		}
	if (!any)
		snprintf(buf, n, "this machine has no profiling source");
	return buf;
}

int ptool_begin_error(const ptool_opts_t *o, errno_t rc, uint64_t task)
{
	char why[128], name[PROF_SRC_NAME_MAX];

	if (rc == EPERM)
		fprintf(stderr, "%s: permission denied (needs the profile permission)\n",
			o->prog);
	else if (rc == EBUSY && task == 0)
		fprintf(stderr, "%s: a system profiling session is already running\n",
			o->prog);
	else if (rc == EBUSY)
		fprintf(stderr, "%s: task %llu is already being profiled\n", o->prog,
			(ull)task);
	else if (rc == ENOTSUP)
		fprintf(stderr, "%s: source %s not available: %s\n", o->prog,
			ptool_source_name(o->params.source, name), source_why(why, sizeof(why)));
	else if (rc == ESRCH)
		fprintf(stderr, "%s: no task %llu\n", o->prog, (ull)task);
	else
		fprintf(stderr, "%s: cannot begin the session: %s\n", o->prog,
			strerror(rc));
	return 1;
}

/* ------------------------------------------------------------ report env */

/* malloc, free, whole-file reads, standard output (<profenv.h>). */
static const prof_stdio_t ptool_stdio = { NULL, NULL, NULL };

/* ------------------------------------------------------------ session */

static uint64_t now_ns(void)
{
	return sys_clock_ns(CLOCK_MONOTONIC);
}

/*
 * Tell the sink what the session asks: hz on every CPU (a task session: on
 * one), each sample with PSINK_CHAIN_FRAMES frames and the stack-top words
 * under -g.
 */
static void ptool_need(ptool_t *t, uint64_t target)
{
	const ptool_opts_t *o = t->o;
	uint64_t cpus = target ? 1 : sys_cpus_online();
	psink_need(&t->sink, (uint64_t)o->params.hz * cpus,
		   psink_sample_bytes(o->params.flags & PROF_F_CALLCHAIN));
}

int ptool_open(ptool_t *t, const ptool_opts_t *o, int phone, uint64_t target)
{
	prof_env_t env = prof_env_stdio(&ptool_stdio);

	memset(t, 0, sizeof(*t));
	t->o = o;
	t->phone = phone;
	t->target = target;
	t->buf = malloc(PTOOL_BUF_SIZE);
	if (!t->buf || prof_report_new(&env, &t->report) != EOK) {
		fprintf(stderr, "%s: out of memory\n", o->prog);
		return 1;
	}
	prof_report_set_wall(t->report, o->wall);
	if (!psink_open(&t->sink, o->prog, o->out))
		return 1;
	ptool_need(t, target);
	if (o->live && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
		fprintf(stderr, "%s: -l needs a terminal (stdin and stdout)\n", o->prog);
		return 1;
	}
	if (isatty(STDIN_FILENO) && console_keys_open("q\x03", &t->keys) != EOK)
		t->keys = NULL;
	if (o->live && !t->keys) {
		fprintf(stderr, "%s: -l cannot read the keys\n", o->prog);
		return 1;
	}
	/* Only at the terminal: a background job's stdin is not (sh gives it "n:") */
	t->status_line = isatty(STDERR_FILENO) && isatty(STDIN_FILENO) && !o->live;
	t->start_ns = now_ns();
	t->next_status_ns = t->start_ns + STATUS_PERIOD_NS;
	return 0;
}

/* Note the target's PROF_REC_EXIT among the whole records of buf. */
static void scan_exit(ptool_t *t, const uint8_t *buf, size_t len)
{
	for (size_t at = 0; at + sizeof(prof_rec_t) <= len;) {
		prof_rec_t h;
		memcpy(&h, buf + at, sizeof(h));
		if (h.size < sizeof(prof_rec_t) || at + h.size > len)
			return;
		if (h.type == PROF_REC_EXIT && h.size >= sizeof(prof_rec_exit_t)) {
			prof_rec_exit_t e;
			memcpy(&e, buf + at, sizeof(e));
			if (e.task == t->target && t->target) {
				t->target_exited = true;
				t->exit_status = e.status;
			}
		}
		at += h.size;
	}
}

/* Clear the status line (before other output). */
static void status_clear(ptool_t *t)
{
	if (t->status_line) {
		fputs("\r\x1b[K", stderr);
		fflush(stderr);
	}
}

bool ptool_status_text(ptool_t *t, prof_status_t *st, char *buf, size_t n)
{
	uint64_t el = now_ns() - t->start_ns;

	if (prof_status(t->phone, st) != EOK)
		return false;
	uint64_t rate = el ? st->samples * NS_PER_S / el : 0;
	snprintf(buf, n, "%s: %llu samples, %llu lost, %llu missed, %llu/s, %llu.%llu s%s",
		 t->o->prog, (ull)st->samples, (ull)st->lost, (ull)st->missed, (ull)rate,
		 (ull)(el / NS_PER_S), (ull)(el / (NS_PER_S / 10) % 10),
		 t->paused ? " (paused)" : "");
	return true;
}

/* Rewrite the status line from the session's counters. */
static void status_show(ptool_t *t)
{
	prof_status_t st;
	char line[STATUS_MAX];

	if (!ptool_status_text(t, &st, line, sizeof(line)))
		return;
	fprintf(stderr, "\r\x1b[K%s", line);
	fflush(stderr);
}

/* Print the report of everything read so far. */
static void print_report(ptool_t *t)
{
	prof_report_opts_t ro = { .style = t->o->style,
				  .threshold_centi = t->o->threshold_centi,
				  .tree = t->o->tree,
				  .by_origin = t->o->by_origin,
				  .origin = t->o->origin };

	status_clear(t);
	if (prof_report_print(t->report, &ro) != EOK)
		fprintf(stderr, "%s: out of memory for the report\n", t->o->prog);
	fflush(stdout);
}

void ptool_end(ptool_t *t)
{
	if (!t->end_sent && t->on_end)
		t->on_end(t->on_end_arg);
	if (!t->end_sent)
		prof_end(t->phone);
	t->end_sent = true;
}

/* What key c asks for (only the tool's keys count). */
static ptool_key_t key_of(const ptool_t *t, char c)
{
	if (c == KEY_CTRL_C)
		c = 'q';
	if (!c || !strchr(t->o->keys, c))
		return PTOOL_KEY_NONE;
	switch (c) {
	case 'q': return PTOOL_KEY_QUIT;
	case 'a': return PTOOL_KEY_PAUSE;
	case 'e': return PTOOL_KEY_END;
	case 'p': return PTOOL_KEY_PRINT;
	default: return PTOOL_KEY_NONE;
	}
}

void ptool_pause(ptool_t *t)
{
	if (t->end_sent)
		return;
	if ((t->paused ? prof_resume(t->phone) : prof_pause(t->phone)) == EOK)
		t->paused = !t->paused;
}

/* Do what key k asks while the session runs. */
static void key_running(ptool_t *t, ptool_key_t k)
{
	switch (k) {
	case PTOOL_KEY_QUIT:
		t->quit = true;
		ptool_end(t);
		break;
	case PTOOL_KEY_END:
		t->end_key = true;
		ptool_end(t);
		break;
	case PTOOL_KEY_PAUSE:
		if (t->end_sent)
			break;
		ptool_pause(t);
		if (t->status_line)
			status_show(t);
		else
			fprintf(stderr, "%s: %s\n", t->o->prog,
				t->paused ? "paused" : "resumed");
		break;
	case PTOOL_KEY_PRINT:
		print_report(t);
		break;
	default:
		break;
	}
}

/* The keys typed since the last look. */
static void take_keys(ptool_t *t, void (*apply)(ptool_t *, ptool_key_t))
{
	char keys[KEYS_MAX];
	size_t n = t->keys ? console_keys_take(t->keys, keys, sizeof(keys)) : 0;

	for (size_t i = 0; i < n; i++)
		apply(t, key_of(t, keys[i]));
}

errno_t ptool_read_once(ptool_t *t)
{
	size_t got = 0;
	unsigned state = 0;
	errno_t rc = prof_read(t->phone, t->buf, PTOOL_BUF_SIZE, &got, &state);

	if (rc != EOK) {
		status_clear(t);
		fprintf(stderr, "%s: reading the samples: %s\n", t->o->prog, strerror(rc));
		return rc;
	}
	if (got) {
		scan_exit(t, t->buf, got);
		if (!psink_write(&t->sink, t->buf, got))
			return EIO;
		rc = prof_report_feed(t->report, t->buf, got);
		if (rc != EOK) {
			const char *why = prof_report_error(t->report);
			status_clear(t);
			fprintf(stderr, "%s: a malformed stream: %s\n", t->o->prog,
				why ? why : strerror(rc));
			return rc;
		}
	}
	t->drained = state == PROF_STATE_ENDED && got == 0;
	return EOK;
}

void ptool_check_end(ptool_t *t, uint64_t now)
{
	if (t->o->duration_ns && now - t->start_ns >= t->o->duration_ns)
		ptool_end(t);
	if (t->end_on_exit && t->target_exited)
		ptool_end(t);
}

/* Read until drained, with keys, the deadline and the status line. */
static errno_t read_loop(ptool_t *t)
{
	while (!t->drained) {
		errno_t rc = ptool_read_once(t);
		if (rc != EOK)
			return rc;
		uint64_t now = now_ns();
		ptool_check_end(t, now);
		take_keys(t, key_running);
		if (t->status_line && now >= t->next_status_ns && !t->drained) {
			status_show(t);
			t->next_status_ns = now + STATUS_PERIOD_NS;
		}
	}
	status_clear(t);
	return EOK;
}

/* After e: p prints again, q quits. */
static void key_ended(ptool_t *t, ptool_key_t k)
{
	if (k == PTOOL_KEY_QUIT)
		t->quit = true;
	else if (k == PTOOL_KEY_PRINT)
		print_report(t);
}

int ptool_run(ptool_t *t)
{
	if (t->o->live)
		return ptool_live_run(t);
	if (read_loop(t) != EOK)
		return 1;
	print_report(t);
	if (!t->end_key || t->quit || !t->keys || t->target_exited)
		return 0;
	fprintf(stderr, "%s: session ended; p prints the table again, q quits\n",
		t->o->prog);
	while (!t->quit) {
		sys_sleep_ns(IDLE_POLL_NS);
		take_keys(t, key_ended);
	}
	return 0;
}

void ptool_watch(ptool_t *t, uint64_t task)
{
	t->target = task;
	t->end_on_exit = true;
}

void ptool_on_end(ptool_t *t, void (*fn)(void *arg), void *arg)
{
	t->on_end = fn;
	t->on_end_arg = arg;
}

const char *ptool_live_out(const char *prog)
{
	static char path[64];

	snprintf(path, sizeof(path), "/tmp/%s-live.out", prog);
	return path;
}

/* Empty out and make the spec that appends to it; EOK or open's error. */
static errno_t ptool_out_spec(const char *out, char *spec, size_t size)
{
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		return errno;
	close(fd);
	snprintf(spec, size, "a:%s", out);
	return EOK;
}

int ptool_spawn(const char *prog, char *const argv[], bool stopped, const char *out,
		uint64_t *id)
{
	char path[PATH_MAX_LEN], spec[PATH_MAX_LEN + 3];
	spawn_opts_t so = { .stopped = stopped };
	task_id_t tid = 0;
	errno_t rc = out ? ptool_out_spec(out, spec, sizeof(spec)) : EOK;

	if (rc != EOK) {
		fprintf(stderr, "%s: %s: %s\n", prog, out, strerror(rc));
		return 1;
	}
	if (out) {
		so.stdio[0] = "n:";
		so.stdio[1] = so.stdio[2] = spec;
	}
	rc = spawn_find(argv[0], path, sizeof(path));
	if (rc == EOK)
		rc = spawn(path, argv, &so, &tid);
	if (rc != EOK) {
		fprintf(stderr, "%s: %s: %s\n", prog, argv[0], strerror(rc));
		return 1;
	}
	*id = tid;
	return 0;
}

void ptool_print_exit(const char *prog, uint64_t id, uint64_t st)
{
	if (st & TASK_STATUS_KILLED)
		printf("%s: task %llu was killed (status %d)\n", prog, (ull)id,
		       spawn_status_code((int)st));
	else
		printf("%s: task %llu exited with status %llu\n", prog, (ull)id,
		       (ull)st);
}

void ptool_close(ptool_t *t)
{
	if (t->keys)
		console_keys_close(t->keys);
	psink_close(&t->sink);
	if (t->report)
		prof_report_free(t->report);
	free(t->buf);
}
