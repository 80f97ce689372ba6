/*
 * vfuzz: a seeded system call fuzzer (README "Fuzzing"). Shared types of
 * the generators (gen.c), the syscall templates (table.c), the worker
 * (worker.c) and the leak checker (main.c).
 */
#ifndef VFUZZ_H
#define VFUZZ_H

#include <abi/errno.h>
#include <abi/ipc.h>
#include <abi/task.h>
#include <stdbool.h>
#include <stdint.h>

#define FZ_MAX_THREADS 16
#define FZ_HANDLES 16            /* remembered handles per kind (a ring) */
#define FZ_REGIONS 16            /* live SYS_MAP regions per thread */
#define FZ_KIDS 4                /* live child tasks per thread */
#define FZ_MINIS 4               /* live short-lived threads per thread */
#define FZ_MINI_STACK 8192
#define FZ_OUT (512 * 1024)      /* a thread's output buffer */
#define FZ_NERR 28               /* result classes: ok, the errno.h codes, other */

/* The buffer pool: fixed addresses (SYS_MAP hints) far above the heap. */
#define FZ_POOL 0x0000500000000000ul
#define FZ_POOL_RW FZ_POOL                     /* 64 KiB read-write */
#define FZ_POOL_RO (FZ_POOL + 0x10000)         /* 16 KiB read-only */
#define FZ_POOL_HOLE (FZ_POOL + 0x14000)       /* 16 KiB never mapped */
#define FZ_POOL_EDGE (FZ_POOL + 0x18000)       /* 1 RW page, then a hole */
#define FZ_POOL_END (FZ_POOL + 0x20000)

/* Handle kinds fed back as arguments. */
enum { FZ_H_PHONE, FZ_H_CALLID, FZ_H_THREAD, FZ_H_TASK, FZ_H_KINDS };

typedef struct fz_call {
	long nr;
	uint64_t a[6];
} fz_call_t;

typedef struct fz_region {
	uint64_t addr, len;
} fz_region_t;

typedef struct fz_mini {
	volatile uint32_t busy;  /* its stack is in use */
	volatile uint32_t done;  /* the thread is about to exit */
	thread_id_t tid;
	uint64_t rng, value;
	uint8_t *stack;
} fz_mini_t;

/* One fuzzing thread's state (children use one too). */
typedef struct fz {
	uint64_t rng;
	unsigned idx;                 /* thread index */
	bool child;                   /* a child task: SYS_EXIT allowed */
	volatile uint64_t ncalls;
	volatile fz_call_t cur;       /* the call in progress (stall reports) */
	volatile unsigned cur_tpl;
	volatile unsigned phase;      /* 1 shaping, 2 in the call, 3 after it */
	uint64_t unexpected;
	uint64_t handles[FZ_H_KINDS][FZ_HANDLES];
	unsigned hcount[FZ_H_KINDS];
	fz_region_t regions[FZ_REGIONS];
	unsigned nregions;
	task_id_t kids[FZ_KIDS];
	unsigned nkids;
	fz_mini_t minis[FZ_MINIS];
	/* Typed argument storage (private: the kernel gets pointers to it). */
	uint64_t scratch[640];
	ipc_event_t ev;
	uint32_t counts[64][FZ_NERR]; /* per template, per result class */
	uint64_t cycles[64];          /* per template: TSC cycles in the call */
	uint8_t *out;                 /* FZ_OUT bytes for the kernel to write */
} fz_t;

typedef void (*fz_shape_t)(fz_t *f, fz_call_t *c);
typedef void (*fz_after_t)(fz_t *f, const fz_call_t *c, long r);

/* A syscall template: how to shape the arguments of one call. */
typedef struct fz_tpl {
	const char *name;
	long nr;                 /* FZ_NR_BAD: an out-of-range number */
	unsigned weight;         /* relative frequency in a worker */
	fz_shape_t shape;        /* adjusts the generic arguments, or NULL */
	fz_after_t after;        /* harvests handles from the result, or NULL */
	unsigned flags;          /* FZ_F_* */
} fz_tpl_t;

#define FZ_NR_BAD (-1000)
#define FZ_F_FAILS 1u        /* unprivileged: must fail */
#define FZ_F_ENOSYS 2u       /* must fail with ENOSYS */
#define FZ_F_NOCHILD 4u      /* not in child tasks */
#define FZ_F_CHILDONLY 8u    /* only in child tasks (it ends the task) */

extern const fz_tpl_t fz_tpls[];
extern const unsigned fz_ntpls;
extern uint64_t fz_self_task;
extern bool fz_extended;       /* -x: also the calls that stall today */
extern int fz_self_phone;
extern thread_id_t fz_workers[FZ_MAX_THREADS + 1];
extern unsigned fz_nworkers;

/* gen.c */
uint64_t fz_rand(fz_t *f);
uint64_t fz_below(fz_t *f, uint64_t n);
bool fz_chance(fz_t *f, unsigned percent);
uint64_t fz_boundary(fz_t *f);
uint64_t fz_bad_ptr(fz_t *f);
uint64_t fz_pool_ptr(fz_t *f);
uint64_t fz_arg(fz_t *f);
uint64_t fz_size(fz_t *f);
void fz_handle_add(fz_t *f, unsigned kind, uint64_t v);
uint64_t fz_handle(fz_t *f, unsigned kind);
errno_t fz_pool_init(void);
void *fz_scratch(fz_t *f, unsigned slot, unsigned words);

/* worker.c */
int fz_worker(uint64_t seed, uint64_t calls, unsigned nthreads);
int fz_child(uint64_t seed);

/* srv.c: the server fuzzer (-S). */
enum { SF_FS, SF_CON, SF_NS, SF_SERVERS };
/* The worker task of -S: calls requests to the servers in mask; its exit status. */
int sf_worker(uint64_t seed, uint64_t calls, unsigned mask);
/* "fs,console,ns" (any of them) into a mask of SF_* bits; EINVAL if bad. */
errno_t sf_parse_servers(const char *list, unsigned *mask);
/* The service name of server i. */
const char *sf_server_name(unsigned i);

/* table.c */
unsigned fz_pick(fz_t *f);
long fz_run(fz_t *f, unsigned tpl, fz_call_t *c);
bool fz_check(const fz_tpl_t *t, const fz_call_t *c, long r);
unsigned fz_err_class(long r);
const char *fz_err_name(unsigned cls);
void fz_cleanup(fz_t *f);

#endif
