/*
 * ipctest: shared declarations. main.c has the TAP output, the helpers
 * and the driver; server.c the helper servers ipctest spawns as children
 * (`ipctest server KIND NAME ...`); test_*.c the test groups.
 */
#ifndef IPCTEST_H
#define IPCTEST_H

#include <abi/limits.h>
#include <tap.h>
#include <ipc.h>
#include <stdint.h>
#include <vernier.h>

#define NS_PER_MS 1000000ull
#define NS_PER_SEC 1000000000ull
/* Every wait in the tests is bounded: a lost answer fails, never hangs. */
#define ANSWER_TIMEOUT_NS (10 * NS_PER_SEC)
#define CONNECT_TIMEOUT_NS (10 * NS_PER_SEC)
#define START_POLL_NS (2 * NS_PER_MS)   /* start_server: connect retry period */
/* A user address with nothing mapped (below the program image at 4 MiB). */
#define BAD_ADDR ((void *)0x10000)

/* ------------------------------------------------ the helper servers' protocol */
/*
 * echo server (`ipctest server echo NAME [THREADS]`): accepts every
 * connection and answers:
 */
#define ECHO_PING (IPC_M_USER + 1)     /* a0..a4 -> a0+1 .. a4+5 */
#define ECHO_SEQ (IPC_M_USER + 2)      /* a0, a1 -> a0, ~a0, a1, server thread */
#define ECHO_WHO (IPC_M_USER + 3)      /* -> sender, conn, server task, a0 seen, method seen */
#define ECHO_HUNGUPS (IPC_M_USER + 4)  /* conn, task -> seen that hang-up?, hang-ups seen */
#define ECHO_STATS (IPC_M_USER + 5)    /* -> SEQ calls, data len, checksum, bad-buffer rc, last data rc */
#define ECHO_EXIT (IPC_M_USER + 6)     /* answer EOK, then exit 0 */
#define ECHO_FAIL (IPC_M_USER + 7)     /* answer with retval a0 */
/*
 * IPC_M_DATA_WRITE (stored, up to 64 KiB) and IPC_M_DATA_READ (served
 * from what was stored); args[2] = DATA_BAD_SERVER makes the server first
 * answer with a bad buffer (expecting EFAULT), then with the good one.
 */
#define DATA_BAD_SERVER 1
/* forward server (`ipctest server forward NAME TARGET`): passes each call on. */
/*
 * The answerwait server (raw SYS_IPC_ANSWER_WAIT): a0 n, a1 nonzero: its
 * wait after the answer is non-blocking -> the previous answer-and-wait's
 * result, whether that answer went, n + 1. ECHO_EXIT ends it.
 */
#define AW_STEP (IPC_M_USER + 30)
#define FWD_REWRITE (IPC_M_USER + 20)  /* forwarded as ECHO_WHO with arg0 FWD_ARG0 */
#define FWD_ARG0 0x77
/* (kbugs) forwarded as IPC_M_DATA_READ with arg0 = &kbug_victim */
#define FWD_EVIL (IPC_M_USER + 21)
/* sink server (`ipctest server sink NAME`): accepts connections, never answers. */
/*
 * lossy server (`ipctest server lossy NAME`, kbugs): the echo protocol,
 * but after accepting the first connection it waits once with a bad
 * event buffer.
 */
/*
 * handoff server (`ipctest server handoff NAME`): its main thread takes
 * every call. HANDOFF_WORK: it spins a0 ns of its own CPU time, then
 * answers. HANDOFF_SPIN: a helper thread answers the call, then the main
 * thread spins a0 ns. ECHO_PING and ECHO_EXIT as the echo server.
 */
#define HANDOFF_WORK (IPC_M_USER + 40)
#define HANDOFF_SPIN (IPC_M_USER + 41)
/* A variable at the same address in every ipctest task (kbugs). */
extern volatile uint64_t kbug_victim;

/* ------------------------------------------------ TAP and helpers (main.c) */
extern task_id_t my_id;
extern unsigned ncpus;

/* CLOCK_MONOTONIC in ns. */
uint64_t now_ns(void);
/* A service name unique to this run: "ipct<task id>.<what>". */
void make_name(char *buf, size_t size, const char *what);
/*
 * Spawn `ipctest server KIND NAME [ARG]` (no permissions) and connect to
 * it once it has registered; its task id and our phone come back. ESRCH
 * if it ended first (a set-up failure: it is reaped), ETIMEOUT if it
 * did not register within CONNECT_TIMEOUT_NS (it is killed).
 */
errno_t start_server(const char *kind, const char *name, const char *arg,
		     task_id_t *id, int *phone);
/* Ask a server to exit (ECHO_EXIT) and wait for it; its status comes back. */
errno_t stop_server(task_id_t id, int phone, int *status);
/* Kill a child task and reap it; its status comes back. */
errno_t kill_wait(task_id_t id, int *status);
/* ipc_call_sync with every wait bounded by ANSWER_TIMEOUT_NS. */
errno_t call(int phone, uint64_t method, uint64_t a0, uint64_t a1, uint64_t a2,
	     ipc_msg_t *answer);
/* The phone to the shared echo server (started on first use; -1 if it failed). */
int echo_phone(void);
/* Task id's usage record from sysinfo "system.limits.<id>" (zero if unread). */
sysinfo_limits_t limits_of(task_id_t id);
/* Its task id. */
task_id_t echo_task(void);
/* Its service name. */
const char *echo_name(void);
/* Run /bin/ipctest with argv without permissions and wait; its status or -1. */
int run_unprivileged(const char **argv);
/* A readable name for an errno_t (static buffer for unknown ones). */
const char *err_str(errno_t e);
/* FNV-1a over len bytes. */
uint64_t checksum(const void *buf, size_t len);

/* ------------------------------------------------ entry points */
int server_main(int argc, char **argv);
int kbox_probe_main(int argc, char **argv);
int limit_helper_main(int argc, char **argv);
int nsq_helper_main(int argc, char **argv);

/* ------------------------------------------------ test groups */
void test_ping(void);
void test_nsquota(void);
void test_forward(void);
void test_data(void);
void test_badbuf(void);
void test_limit_kill(void);
void test_stress(void);
void test_kbox(void);
void test_ns(void);
void test_hangup(void);
void test_kbugs(void);
void test_limits(void);
void test_answer_wait(void);
void test_short(void);
void test_killrace(void);
void test_handoff(void);

#endif
