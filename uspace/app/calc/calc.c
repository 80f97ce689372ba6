/*
 * calc: a tiny calculator language, written to carry the hosted libc
 * (strtod, <math.h>, <signal.h>, setjmp, POSIX threads, clock, system,
 * <locale.h>) the way a small interpreter does.
 *
 *   calc [-h] [FILE]     run FILE (or standard input) line by line
 *
 * Statements, one per line ('#' starts a comment):
 *   let NAME = EXPR              set a variable
 *   print EXPR [, EXPR...]       print values (%.*g with the digits below)
 *   digits N                     print with N significant digits (1..17)
 *   sum NAME = A to B of EXPR    sum EXPR for NAME = A..B (integers) in
 *                                4 POSIX threads, NAME thread-local
 *   raise SIG                    raise(SIG) (a number); SIGUSR1 is caught
 *   abort                        abort() (the task ends with status 134)
 *   system "COMMAND"             run COMMAND with the shell, print status
 *   cpu                          print whether the CPU clocks advanced
 * Expressions: numbers (anything strtod reads that starts with a digit or
 * '.', hex floats included), variables, + - * / % ^ (power, right
 * associative), unary -, parentheses, and the functions of <math.h> by
 * name with one or two arguments (sin, atan2, pow, hypot...). Division or
 * remainder by zero raises SIGFPE, whose handler reports the error; any
 * error abandons the line (longjmp to the line's start, per thread) and
 * calc goes on; the exit status is 1 if a line failed, else 0.
 */
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_VARS 64
#define NAME_MAX_LEN 16
#define LINE_MAX_LEN 512
#define SUM_THREADS 4

typedef struct var {
	char name[NAME_MAX_LEN + 1];
	double value;
} var_t;

/* Per-thread state (thread-specific data): where errors go, a local var. */
typedef struct calc_thread {
	jmp_buf *on_error;
	const char *local_name;
	double local_value;
	char message[96];
} calc_thread_t;

typedef struct parser {
	const char *p;
} parser_t;

static var_t vars[MAX_VARS];
static int nvars;
static int digits = 17;
static pthread_key_t thread_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

/* ---------------------------------------------------------------- errors */

static void make_key(void)
{
	pthread_key_create(&thread_key, NULL);
}

static calc_thread_t *me(void)
{
	pthread_once(&key_once, make_key);
	return pthread_getspecific(thread_key);
}

static __attribute__((noreturn, format(printf, 1, 2)))
void fail(const char *fmt, ...)
{
	calc_thread_t *t = me();
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->message, sizeof(t->message), fmt, ap);
	va_end(ap);
	longjmp(*t->on_error, 1);
}

static void on_sigfpe(int sig)
{
	fail("arithmetic error (signal %d)", sig);
}

static void on_sigusr1(int sig)
{
	printf("caught signal %d\n", sig);
}

/* ---------------------------------------------------------------- variables */

static double *lookup(const char *name, bool create)
{
	calc_thread_t *t = me();

	if (t->local_name && !strcmp(t->local_name, name))
		return &t->local_value;
	for (int i = 0; i < nvars; i++) {
		if (!strcmp(vars[i].name, name))
			return &vars[i].value;
	}
	if (!create)
		fail("unknown variable %s", name);
	if (nvars == MAX_VARS)
		fail("too many variables");
	strcpy(vars[nvars].name, name);
	return &vars[nvars++].value;
}

/* ---------------------------------------------------------------- parsing */

static void skip(parser_t *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t')
		ps->p++;
}

static bool accept(parser_t *ps, char c)
{
	skip(ps);
	if (*ps->p != c)
		return false;
	ps->p++;
	return true;
}

static void expect(parser_t *ps, char c)
{
	if (!accept(ps, c))
		fail("expected '%c' at \"%.10s\"", c, ps->p);
}

static bool name_char(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
		(!first && c >= '0' && c <= '9');
}

/* A name into out (NAME_MAX_LEN + 1 bytes); false if none is here. */
static bool name(parser_t *ps, char *out)
{
	size_t n = 0;

	skip(ps);
	if (!name_char(*ps->p, true))
		return false;
	while (name_char(*ps->p, false)) {
		if (n == NAME_MAX_LEN)
			fail("name too long");
		out[n++] = *ps->p++;
	}
	out[n] = '\0';
	return true;
}

typedef struct func {
	const char *name;
	double (*f1)(double);
	double (*f2)(double, double);
} func_t;

static const func_t funcs[] = {
	{ "sin", sin, NULL }, { "cos", cos, NULL }, { "tan", tan, NULL },
	{ "asin", asin, NULL }, { "acos", acos, NULL }, { "atan", atan, NULL },
	{ "sinh", sinh, NULL }, { "cosh", cosh, NULL }, { "tanh", tanh, NULL },
	{ "exp", exp, NULL }, { "exp2", exp2, NULL }, { "expm1", expm1, NULL },
	{ "log", log, NULL }, { "log2", log2, NULL }, { "log10", log10, NULL },
	{ "log1p", log1p, NULL }, { "sqrt", sqrt, NULL }, { "cbrt", cbrt, NULL },
	{ "fabs", fabs, NULL }, { "floor", floor, NULL }, { "ceil", ceil, NULL },
	{ "round", round, NULL }, { "trunc", trunc, NULL },
	{ "atan2", NULL, atan2 }, { "pow", NULL, pow }, { "hypot", NULL, hypot },
	{ "fmod", NULL, fmod }, { "remainder", NULL, remainder },
	{ "fmin", NULL, fmin }, { "fmax", NULL, fmax },
	{ "copysign", NULL, copysign },
};

static double expr(parser_t *ps);

static double call(parser_t *ps, const char *fname)
{
	for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++) {
		if (strcmp(funcs[i].name, fname))
			continue;
		double a = expr(ps), b = 0;
		if (funcs[i].f2) {
			expect(ps, ',');
			b = expr(ps);
		}
		expect(ps, ')');
		return funcs[i].f2 ? funcs[i].f2(a, b) : funcs[i].f1(a);
	}
	fail("unknown function %s", fname);
}

static double number(parser_t *ps)
{
	char *end;

	errno = 0;
	double v = strtod(ps->p, &end);
	if (end == ps->p)
		fail("bad number at \"%.10s\"", ps->p);
	if (errno == ERANGE && isinf(v))
		fail("number out of range");
	ps->p = end;
	return v;
}

static double primary(parser_t *ps)
{
	char id[NAME_MAX_LEN + 1];

	skip(ps);
	if (accept(ps, '(')) {
		double v = expr(ps);
		expect(ps, ')');
		return v;
	}
	if (accept(ps, '-'))
		return -primary(ps);
	if ((*ps->p >= '0' && *ps->p <= '9') || *ps->p == '.')
		return number(ps);
	if (!name(ps, id))
		fail("expected a value at \"%.10s\"", ps->p);
	if (accept(ps, '('))
		return call(ps, id);
	if (!strcmp(id, "clock"))
		return (double)clock() / CLOCKS_PER_SEC;
	return *lookup(id, false);
}

static double power(parser_t *ps)
{
	double base = primary(ps);

	if (accept(ps, '^'))
		return pow(base, power(ps));
	return base;
}

static double divide(double a, double b, char op)
{
	if (b == 0)
		raise(SIGFPE);               /* the handler leaves the line */
	return op == '/' ? a / b : fmod(a, b);
}

static double term(parser_t *ps)
{
	double v = power(ps);

	for (;;) {
		if (accept(ps, '*'))
			v *= power(ps);
		else if (accept(ps, '/'))
			v = divide(v, power(ps), '/');
		else if (accept(ps, '%'))
			v = divide(v, power(ps), '%');
		else
			return v;
	}
}

static double expr(parser_t *ps)
{
	double v = term(ps);

	for (;;) {
		if (accept(ps, '+'))
			v += term(ps);
		else if (accept(ps, '-'))
			v -= term(ps);
		else
			return v;
	}
}

/* ---------------------------------------------------------------- sum */

typedef struct sum_job {
	const char *var;
	const char *body;             /* the expression's text */
	long from, to;                /* inclusive */
	pthread_mutex_t lock;
	pthread_cond_t done_cv;
	int done;
	double total;
	bool failed;
	char message[96];
} sum_job_t;

typedef struct sum_part {
	sum_job_t *job;
	long from, to;
} sum_part_t;

static void *sum_worker(void *arg)
{
	sum_part_t *part = arg;
	sum_job_t *job = part->job;
	calc_thread_t t = { 0 };
	jmp_buf on_error;
	volatile double acc = 0;

	t.on_error = &on_error;
	t.local_name = job->var;
	pthread_setspecific(thread_key, &t);
	bool ok = setjmp(on_error) == 0;
	if (ok) {
		for (long i = part->from; i <= part->to; i++) {
			parser_t ps = { job->body };
			t.local_value = (double)i;
			acc += expr(&ps);
		}
	}
	pthread_mutex_lock(&job->lock);
	job->total += acc;
	if (!ok && !job->failed) {
		job->failed = true;
		strcpy(job->message, t.message);
	}
	job->done++;
	pthread_cond_signal(&job->done_cv);
	pthread_mutex_unlock(&job->lock);
	return NULL;
}

/* Split [from, to] over SUM_THREADS threads; wait on a condition. */
static double run_sum(sum_job_t *job)
{
	pthread_t th[SUM_THREADS];
	sum_part_t parts[SUM_THREADS];
	long n = job->to - job->from + 1, started = 0;

	for (int i = 0; i < SUM_THREADS; i++) {
		parts[i].job = job;
		parts[i].from = job->from + n * i / SUM_THREADS;
		parts[i].to = job->from + n * (i + 1) / SUM_THREADS - 1;
		if (pthread_create(&th[i], NULL, sum_worker, &parts[i]) == 0)
			started++;
	}
	pthread_mutex_lock(&job->lock);
	while (job->done < started)
		pthread_cond_wait(&job->done_cv, &job->lock);
	pthread_mutex_unlock(&job->lock);
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	if (started < SUM_THREADS)
		fail("could not start the threads");
	if (job->failed)
		fail("in sum: %s", job->message);
	return job->total;
}

/* "sum NAME = A to B of EXPR" after the keyword. */
static void stmt_sum(parser_t *ps)
{
	char var[NAME_MAX_LEN + 1], kw[NAME_MAX_LEN + 1];
	sum_job_t job = { .lock = PTHREAD_MUTEX_INITIALIZER,
			  .done_cv = PTHREAD_COND_INITIALIZER };

	if (!name(ps, var))
		fail("sum: expected a name");
	expect(ps, '=');
	job.var = var;
	job.from = (long)expr(ps);
	if (!name(ps, kw) || strcmp(kw, "to"))
		fail("sum: expected 'to'");
	job.to = (long)expr(ps);
	if (!name(ps, kw) || strcmp(kw, "of"))
		fail("sum: expected 'of'");
	skip(ps);
	job.body = ps->p;
	if (job.to < job.from)
		fail("sum: empty range");
	parser_t check = { job.body };      /* syntax check, var = from */
	me()->local_name = var;
	me()->local_value = (double)job.from;
	expr(&check);
	me()->local_name = NULL;
	double total = run_sum(&job);
	printf("%.*g\n", digits, total);
	ps->p = "";
}

/* ---------------------------------------------------------------- statements */

static void stmt_print(parser_t *ps)
{
	const char *sep = "";

	do {
		double v = expr(ps);
		printf("%s%.*g", sep, digits, v);
		sep = " ";
	} while (accept(ps, ','));
	putchar('\n');
}

static void stmt_system(parser_t *ps)
{
	char cmd[LINE_MAX_LEN];
	size_t n = 0;

	expect(ps, '"');
	while (*ps->p && *ps->p != '"' && n < sizeof(cmd) - 1)
		cmd[n++] = *ps->p++;
	cmd[n] = '\0';
	expect(ps, '"');
	fflush(stdout);
	printf("status %d\n", system(cmd));
}

static void stmt_cpu(void)
{
	struct timespec a, b;
	volatile double x = 0;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	for (int i = 0; i < 2000000; i++)
		x += sqrt((double)i);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	bool moved = b.tv_sec > a.tv_sec ||
		(b.tv_sec == a.tv_sec && b.tv_nsec > a.tv_nsec);
	printf("cpu clock %s\n", moved ? "advances" : "stuck");
}

static void statement(parser_t *ps)
{
	char kw[NAME_MAX_LEN + 1];
	const char *start = ps->p;

	if (!name(ps, kw)) {
		ps->p = start;
		stmt_print(ps);
	} else if (!strcmp(kw, "let")) {
		char var[NAME_MAX_LEN + 1];
		if (!name(ps, var))
			fail("let: expected a name");
		expect(ps, '=');
		double v = expr(ps);
		*lookup(var, true) = v;
	} else if (!strcmp(kw, "print")) {
		stmt_print(ps);
	} else if (!strcmp(kw, "digits")) {
		int d = (int)expr(ps);
		if (d < 1 || d > 17)
			fail("digits: 1..17");
		digits = d;
	} else if (!strcmp(kw, "sum")) {
		stmt_sum(ps);
	} else if (!strcmp(kw, "raise")) {
		raise((int)expr(ps));
	} else if (!strcmp(kw, "abort")) {
		fflush(stdout);
		abort();
	} else if (!strcmp(kw, "system")) {
		stmt_system(ps);
	} else if (!strcmp(kw, "cpu")) {
		stmt_cpu();
	} else {
		ps->p = start;
		stmt_print(ps);
	}
	skip(ps);
	if (*ps->p)
		fail("unexpected \"%.10s\"", ps->p);
}

/* Run one line; false if it failed (the message is printed). */
static bool run_line(char *line, int lineno)
{
	calc_thread_t *t = me();
	jmp_buf on_error;
	char *hash = strchr(line, '#');

	if (hash)
		*hash = '\0';
	line[strcspn(line, "\r\n")] = '\0';
	parser_t ps = { line };
	skip(&ps);
	if (!*ps.p)
		return true;
	t->on_error = &on_error;
	t->local_name = NULL;
	if (setjmp(on_error)) {
		printf("line %d: error: %s\n", lineno, t->message);
		return false;
	}
	statement(&ps);
	return true;
}

static int usage(FILE *out, int status)
{
	fprintf(out, "usage: calc [-h] [FILE]\n"
		"  run a calculator script (standard input without FILE)\n");
	return status;
}

int main(int argc, char **argv)
{
	static calc_thread_t main_thread;
	char line[LINE_MAX_LEN];
	FILE *in = stdin;
	bool all_ok = true;

	if (argc > 2 || (argc == 2 && argv[1][0] == '-'))
		return usage(argc == 2 && !strcmp(argv[1], "-h") ? stdout : stderr,
			     argc == 2 && !strcmp(argv[1], "-h") ? 0 : 2);
	if (argc == 2 && !(in = fopen(argv[1], "r"))) {
		perror(argv[1]);
		return 1;
	}
	if (!setlocale(LC_ALL, "") || strcmp(localeconv()->decimal_point, "."))
		return 1;
	pthread_once(&key_once, make_key);
	pthread_setspecific(thread_key, &main_thread);
	signal(SIGFPE, on_sigfpe);
	signal(SIGUSR1, on_sigusr1);
	for (int n = 1; fgets(line, sizeof(line), in); n++)
		all_ok &= run_line(line, n);
	return all_ok ? 0 : 1;
}
