/*
 * What the libc host unit tests (test/unit/test_libc_*.c) see of libc: the
 * real code, compiled for the host with every symbol renamed vl_<name>
 * (see uspace/lib/c/host.mk), declared here with host-compatible types, and
 * the fake kernel standing in for the system calls (host_sys.c).
 *
 * Include after the host's own headers.
 */
#ifndef LIBC_HOST_H
#define LIBC_HOST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Vernier's values replace the host's (PROT_* happen to agree). */
#undef CLOCK_MONOTONIC
#undef CLOCK_REALTIME
#undef CLOCK_PROCESS_CPUTIME_ID
#undef CLOCK_THREAD_CPUTIME_ID
#undef PROT_READ
#undef PROT_WRITE
#undef PROT_EXEC
#undef ENOTSUP     /* glibc: EOPNOTSUPP, the same 95 */
#include <abi/errno.h>
#include <abi/syscall.h>
#include <abi/sysinfo.h>
#include <abi/task.h>

/* ---------------------------------------------------------------- fake kernel */

#define FAKE_CONSOLE_MAX (1 << 20)

typedef struct fake_kernel {
	char console[FAKE_CONSOLE_MAX];   /* SYS_CONSOLE_WRITE output */
	size_t console_len;
	unsigned long console_writes;     /* SYS_CONSOLE_WRITE calls */
	size_t console_chunk;             /* >0: accept at most this per call */
	unsigned long calls[SYS_COUNT];   /* calls per number */
	long last[7];                     /* last call: number, six arguments */
	bool forced[SYS_COUNT];           /* return result[n] for number n */
	long result[SYS_COUNT];
	long maps_left;                   /* SYS_MAP fails once this hits 0 (<0: never) */
	size_t live_maps;                 /* mappings not yet unmapped */
	size_t live_bytes;
	uint64_t slept_ns;                /* total SYS_SLEEP */
	uint64_t clock[4];                /* SYS_CLOCK values if clock_set */
	bool clock_set;
	int exit_status;                  /* last SYS_EXIT / SYS_THREAD_EXIT value */
	jmp_buf *exit_jmp;                /* where SYS_EXIT longjmps (else _exit) */
	/* SYS_SYSINFO_* (number, path, buf, size, needed) if set, else ENOSYS */
	long (*sysinfo)(long n, const char *path, void *buf, size_t size,
			size_t *needed);
} fake_kernel_t;

extern fake_kernel_t fake;

/* Clear the record: no forced results, no map limit, empty console. */
void fake_reset(void);
/* The console output so far, NUL-terminated. */
const char *fake_console(void);
/* Forget the console output. */
void fake_console_clear(void);
/* Make system call n return r (until fake_reset). */
void fake_force(int n, long r);

/* ---------------------------------------------------------------- libc */

typedef struct vl_file vl_FILE;
extern vl_FILE *vl_stdin, *vl_stdout, *vl_stderr;

typedef struct {
	ssize_t (*read)(void *cookie, char *buf, size_t size);
	ssize_t (*write)(void *cookie, const char *buf, size_t size);
	int (*seek)(void *cookie, off_t *offset, int whence);
	int (*close)(void *cookie);
} vl_cookie_io_t;

/* libc's own error codes (<errno.h>), beyond abi/errno.h. */
#define VL_EBADF 9
#define VL_EDOM 33
#define VL_EILSEQ 84

#define VL_EOF (-1)
#define VL_IOFBF 0
#define VL_IOLBF 1
#define VL_IONBF 2
#define VL_BUFSIZ 1024

int vl_printf(const char *fmt, ...);
int vl_fprintf(vl_FILE *f, const char *fmt, ...);
int vl_sprintf(char *buf, const char *fmt, ...);
int vl_snprintf(char *buf, size_t size, const char *fmt, ...);
int vl_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int vl_vfprintf(vl_FILE *f, const char *fmt, va_list ap);
int vl_asprintf(char **out, const char *fmt, ...);
int vl_puts(const char *s);
int vl_putchar(int c);
int vl_fputs(const char *s, vl_FILE *f);
int vl_fputc(int c, vl_FILE *f);
size_t vl_fwrite(const void *p, size_t size, size_t n, vl_FILE *f);
int vl_fflush(vl_FILE *f);
int vl_fgetc(vl_FILE *f);
int vl_getchar(void);
int vl_ungetc(int c, vl_FILE *f);
char *vl_fgets(char *s, int size, vl_FILE *f);
size_t vl_fread(void *p, size_t size, size_t n, vl_FILE *f);
int vl_feof(vl_FILE *f);
int vl_ferror(vl_FILE *f);
void vl_clearerr(vl_FILE *f);
vl_FILE *vl_fopencookie(void *cookie, const char *mode, vl_cookie_io_t io);
int vl_fsetcookie(vl_FILE *f, void *cookie, vl_cookie_io_t io);
vl_FILE *vl_fopen(const char *path, const char *mode);
int vl_fclose(vl_FILE *f);
int vl_setvbuf(vl_FILE *f, char *buf, int mode, size_t size);
void vl_perror(const char *s);

void *vl_malloc(size_t n);
void vl_free(void *p);
void *vl_calloc(size_t n, size_t size);
void *vl_realloc(void *p, size_t n);
void *vl_reallocarray(void *p, size_t n, size_t size);
void *vl_aligned_alloc(size_t align, size_t size);
int vl_posix_memalign(void **out, size_t align, size_t size);
size_t vl_malloc_usable_size(void *p);

long vl_strtol(const char *s, char **end, int base);
long long vl_strtoll(const char *s, char **end, int base);
unsigned long vl_strtoul(const char *s, char **end, int base);
unsigned long long vl_strtoull(const char *s, char **end, int base);
int vl_atoi(const char *s);
double vl_strtod(const char *s, char **end);
float vl_strtof(const char *s, char **end);
long double vl_strtold(const char *s, char **end);
double vl_atof(const char *s);
long vl_atol(const char *s);
int vl_abs(int v);
long vl_labs(long v);
void vl_qsort(void *base, size_t n, size_t size,
	      int (*cmp)(const void *, const void *));
void vl_qsort_r(void *base, size_t n, size_t size,
		int (*cmp)(const void *, const void *, void *), void *ctx);
void *vl_bsearch(const void *key, const void *base, size_t n, size_t size,
		 int (*cmp)(const void *, const void *));
int vl_rand(void);
void vl_srand(unsigned seed);
int vl_atexit(void (*fn)(void));
__attribute__((noreturn)) void vl_exit(int status);
__attribute__((noreturn)) void vl__Exit(int status);
__attribute__((noreturn)) void vl_abort(void);
char *vl_getenv(const char *name);

typedef void (*vl_sighandler_t)(int);
vl_sighandler_t vl_signal(int sig, vl_sighandler_t handler);
int vl_raise(int sig);
char *vl_setlocale(int category, const char *locale);
struct lconv *vl_localeconv(void);   /* the same layout as glibc's */

int *vl___errno_location(void);
#define vl_errno (*vl___errno_location())
const char *vl_strerror(int err);
int vl_strerror_r(int err, char *buf, size_t size);

void *vl_memchr(const void *s, int c, size_t n);
void *vl_memrchr(const void *s, int c, size_t n);
void *vl_memccpy(void *d, const void *s, int c, size_t n);
void *vl_mempcpy(void *d, const void *s, size_t n);
char *vl_strcpy(char *d, const char *s);
char *vl_stpcpy(char *d, const char *s);
char *vl_strncpy(char *d, const char *s, size_t n);
char *vl_strcat(char *d, const char *s);
char *vl_strncat(char *d, const char *s, size_t n);
size_t vl_strlcat(char *d, const char *s, size_t size);
char *vl_strrchr(const char *s, int c);
size_t vl_strspn(const char *s, const char *accept);
size_t vl_strcspn(const char *s, const char *reject);
char *vl_strpbrk(const char *s, const char *accept);
char *vl_strdup(const char *s);
char *vl_strndup(const char *s, size_t n);
char *vl_strtok(char *s, const char *delim);
char *vl_strtok_r(char *s, const char *delim, char **save);
char *vl_strsep(char **sp, const char *delim);
int vl_strcasecmp(const char *a, const char *b);
int vl_strncasecmp(const char *a, const char *b, size_t n);
int vl_ffs(int v);

int vl_isalnum(int c);
int vl_isalpha(int c);
int vl_isblank(int c);
int vl_iscntrl(int c);
int vl_isdigit(int c);
int vl_isgraph(int c);
int vl_islower(int c);
int vl_isprint(int c);
int vl_ispunct(int c);
int vl_isspace(int c);
int vl_isupper(int c);
int vl_isxdigit(int c);
int vl_tolower(int c);
int vl_toupper(int c);

typedef long vl_jmp_buf[8];
__attribute__((returns_twice)) int vl_setjmp(vl_jmp_buf env);
__attribute__((noreturn)) void vl_longjmp(vl_jmp_buf env, int val);
__attribute__((noreturn)) void vl___assert_fail(const char *expr,
						const char *file, int line,
						const char *func);

extern char *vl_optarg;
extern int vl_optind, vl_opterr, vl_optopt;
int vl_getopt(int argc, char *const argv[], const char *optstring);
int vl_getopt_help_only(int argc, char *const argv[], void (*usage)(vl_FILE *out),
			int min, int max);

struct vl_timespec {
	long tv_sec;
	long tv_nsec;
};

struct vl_tm {
	int tm_sec, tm_min, tm_hour, tm_mday, tm_mon, tm_year;
	int tm_wday, tm_yday, tm_isdst;
};

long vl_time(long *t);
long vl_clock(void);
int vl_clock_getres(int id, struct vl_timespec *res);
int vl_clock_gettime(int id, struct vl_timespec *ts);
int vl_nanosleep(const struct vl_timespec *req, struct vl_timespec *rem);
struct vl_tm *vl_gmtime_r(const long *t, struct vl_tm *out);
long vl_timegm(struct vl_tm *tm);
long vl_mktime(struct vl_tm *tm);
size_t vl_strftime(char *s, size_t max, const char *fmt,
		   const struct vl_tm *tm);
char *vl_asctime_r(const struct vl_tm *tm, char *buf);

double vl_sqrt(double x);
double vl_fabs(double x);
double vl_floor(double x);
double vl_ceil(double x);
double vl_trunc(double x);
double vl_round(double x);
long vl_lround(double x);
double vl_fmod(double x, double y);
double vl_modf(double x, double *ip);
double vl_frexp(double x, int *e);
double vl_ldexp(double x, int e);
double vl_fmin(double a, double b);
double vl_fmax(double a, double b);
double vl_exp(double x);
double vl_log(double x);
double vl_log2(double x);
double vl_log10(double x);
double vl_pow(double x, double y);
double vl_sin(double x);
double vl_cos(double x);
double vl_tan(double x);
double vl_asin(double x);
double vl_acos(double x);
double vl_atan(double x);
double vl_sinh(double x);
double vl_cosh(double x);
double vl_tanh(double x);
double vl_exp2(double x);
double vl_expm1(double x);
double vl_log1p(double x);
double vl_cbrt(double x);
double vl_rint(double x);
double vl_nearbyint(double x);
double vl_logb(double x);
double vl_atan2(double x, double y);
double vl_hypot(double x, double y);
double vl_remainder(double x, double y);
double vl_copysign(double x, double y);
double vl_nextafter(double x, double y);
double vl_fdim(double x, double y);
long vl_lrint(double x);
long long vl_llrint(double x);
long long vl_llround(double x);
int vl_ilogb(double x);
double vl_nan(const char *tag);
float vl_sinf(float x);
float vl_cosf(float x);
float vl_tanf(float x);
float vl_asinf(float x);
float vl_acosf(float x);
float vl_atanf(float x);
float vl_sinhf(float x);
float vl_coshf(float x);
float vl_tanhf(float x);
float vl_expf(float x);
float vl_exp2f(float x);
float vl_expm1f(float x);
float vl_logf(float x);
float vl_log2f(float x);
float vl_log10f(float x);
float vl_log1pf(float x);
float vl_cbrtf(float x);
float vl_floorf(float x);
float vl_ceilf(float x);
float vl_roundf(float x);
float vl_truncf(float x);
float vl_rintf(float x);
float vl_sqrtf(float x);
float vl_atan2f(float x, float y);
float vl_powf(float x, float y);
float vl_hypotf(float x, float y);
float vl_fmodf(float x, float y);
float vl_remainderf(float x, float y);
float vl_fminf(float x, float y);
float vl_fmaxf(float x, float y);
float vl_copysignf(float x, float y);
float vl_fdimf(float x, float y);
float vl_nextafterf(float x, float y);

ssize_t vl_write(int fd, const void *buf, size_t n);
ssize_t vl_read(int fd, void *buf, size_t n);
int vl_usleep(unsigned us);
unsigned vl_sleep(unsigned s);

errno_t vl_sys_null(void);
errno_t vl_sys_console_write(const char *buf, size_t len);
task_id_t vl_sys_task_id(void);
thread_id_t vl_sys_thread_id(void);
errno_t vl_sys_spawn(const char *path, const char *const *argv,
		     uint32_t perms, task_id_t *id);
errno_t vl_sys_spawn_args(const spawn_args_t *args, task_id_t *id);
errno_t vl_sys_wait(task_id_t id, int *status, unsigned flags,
		    task_id_t *waited);
errno_t vl_sys_kill(task_id_t id);
errno_t vl_sys_thread_create(void (*entry)(void *), void *arg,
			     void *stack_top, thread_id_t *id);
errno_t vl_sys_thread_join(thread_id_t id, long *value);
void vl_sys_yield(void);
errno_t vl_sys_sleep_ns(uint64_t ns);
uint64_t vl_sys_clock_ns(unsigned clock);
errno_t vl_sys_map(void *hint, size_t len, unsigned prot, void **addr);
errno_t vl_sys_unmap(void *addr, size_t len);
errno_t vl_sys_task_info(task_id_t id, task_info_t *info);
errno_t vl_sys_set_affinity(thread_id_t thread, uint64_t mask);
errno_t vl_sys_poweroff(unsigned how);

errno_t vl_thread_start(long (*fn)(void *), void *arg, thread_id_t *tid);
errno_t vl_thread_join(thread_id_t tid, long *value);

/* The allocator engine (src/malloc_core.h) under its renamed symbols. */
#define __libc_heap_init vl___libc_heap_init
#define __libc_heap_alloc vl___libc_heap_alloc
#define __libc_heap_memalign vl___libc_heap_memalign
#define __libc_heap_free vl___libc_heap_free
#define __libc_heap_realloc vl___libc_heap_realloc
#define __libc_heap_usable vl___libc_heap_usable
#define __libc_heap_stats vl___libc_heap_stats
#define __libc_heap_check vl___libc_heap_check
#define __libc_heap_corrupt vl___libc_heap_corrupt
#define __libc_lock vl___libc_lock
#define __libc_trylock vl___libc_trylock
#define __libc_unlock vl___libc_unlock
#define __libc_syscall0 vl___libc_syscall0
#define __libc_syscall1 vl___libc_syscall1
#define __libc_syscall2 vl___libc_syscall2
#define __libc_syscall3 vl___libc_syscall3
#define __libc_stdio_flush_all vl___libc_stdio_flush_all
#define __libc_start vl___libc_start
#define __libc_environ vl___libc_environ
#define __libc_progname vl___libc_progname
#include "../src/malloc_core.h"

#endif
