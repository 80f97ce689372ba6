/*
 * bench: what the figure files share. A figure's run function returns its
 * value for one run, or -1 on failure; its set-up returns 0 (go), 1 (skip
 * the figure: the set-up printed a "# ..." line saying why) or -1 (fail).
 */
#ifndef BENCH_H
#define BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <tsc.h>

/* The hidden first argument that makes bench the IPC figures' server. */
#define BENCH_IPC_SERVER "--ipc-server"

/* IPC figures (bench_ipc.c). */
int ipc_rt_same_setup(void);
int ipc_rt_cross_setup(void);
int ipc_rt_thread_setup(void);
int ipc_datawrite_setup(void);
void ipc_teardown(void);
/* Have the server (set up by ipc_rt_thread_setup) spin n iterations in a call. */
void ipc_serve_spin(unsigned long n);
/* Cycles per call + answer round trip (runs of IPC_RT_CALLS). */
long run_ipc_roundtrip(void);
/* MB/s of 64 KiB IPC_M_DATA_WRITEs (runs of IPC_DW_CALLS). */
long run_ipc_datawrite(void);
/*
 * A whole-system session with off-CPU records (PROF_F_OFFCPU, timer at
 * 100 Hz), drained by a thread (bench_prof.c): 0, or 1 (skip, said why).
 */
int bench_offcpu_begin(void);
/* End it (says if records were lost). */
void bench_offcpu_end(void);
/*
 * A whole-system session tracing sched and ipc events (timer at 100 Hz),
 * drained by a thread, for figure: 0, or 1 (skip, said why); its end
 * (says if trace records were lost).
 */
int bench_traced_begin(const char *figure);
void bench_traced_end(const char *figure);
/* Cycles per IPC_M_DATA_WRITE round trip of 64 bytes / 64 KiB. */
long run_ipc_write64(void);
long run_ipc_write64k(void);
/* The profiler figures (bench_prof.c): prints its own lines; 0 or -1. */
int bench_prof(void);
/* The timer's figures only, at 1, 10 and 100 kHz: the throttle (bench_prof.c). */
int bench_prof_throttle(void);
/* The sample path's figures only: timer at 10 kHz, rtc-nmi at 8192 Hz (bench_prof.c). */
int bench_prof_path(void);
/* The same with call chains (bench_prof.c). */
int bench_prof_path_chain(void);
/* Samples a second through the in-guest report (bench_report.c); 0 or -1. */
int bench_prof_report(void);
/* The call profiler's figures (bench_cprof.c): prints its own lines; 0 or -1. */
int bench_cprof(void);
/* `bench --ipc-server NAME CPU`: serve the IPC figures' calls. */
int bench_ipc_server(int argc, char **argv);

#endif
