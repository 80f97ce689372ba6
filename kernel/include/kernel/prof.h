/*
 * The statistical profiler, generic part (kernel/prof/): sessions opened
 * through the kbox (abi/profile.h), per-CPU sample rings filled from the
 * sources' NMI or interrupt handlers, a drain thread that moves records
 * to the sessions and answers their DATA_READ calls, and the one-line
 * hooks the rest of the kernel calls for task events.
 *
 * The sources themselves are arch code behind <arch/prof.h>.
 */
#ifndef KERNEL_PROF_H
#define KERNEL_PROF_H

#include <abi/profile.h>
#include <kernel/cpu.h>
#include <kernel/types.h>

struct int_frame;
struct task;
struct call;

/* Boot: probe the sources (arch), start the drain thread. */
void prof_init(void);

/*
 * At a panic (other CPUs stopped, interrupts off): write the flight
 * recorder's contents as a stream to the platform's dump port (COM2),
 * if the recorder is on. No lock, no allocation.
 */
void prof_panic_dump(void);

/*
 * One sample of the context interrupted by f on this CPU, from source
 * (PROF_SRC_*). Called by the arch sources from NMI or interrupt context
 * with interrupts off. NMI-safe: no locks, no allocation, bounded time;
 * a full ring drops and counts. Does nothing when no session runs.
 */
void prof_hit(const struct int_frame *f, unsigned source);

/*
 * prof_hit for a sample that was due inside an interrupts-off section and
 * came only when it ended: charged to late, the kernel PC where the
 * section began (leaf only: the chain at delivery is not the section's;
 * a user-mode frame's sample counts as kernel; profil does not count it).
 * late 0: as prof_hit. Same context rules as prof_hit.
 */
void prof_hit_at(const struct int_frame *f, unsigned source, uint64_t late);

/*
 * Calls of prof_hit per CPU and source since boot, and the PC of each
 * CPU's last one (written by prof_hit whether or not a session runs;
 * for tests and sysinfo).
 */
extern volatile uint64_t prof_hits[MAX_CPUS][PROF_SRC_COUNT];
extern volatile uint64_t prof_last_pc[MAX_CPUS];

/* Hooks (thread context): a task was created / loaded a program / exited. */
void prof_task_created(struct task *t);
void prof_task_loaded(struct task *t);
void prof_task_exited(struct task *t);

extern volatile bool prof_offcpu_on;    /* a session with PROF_F_OFFCPU runs */

struct thread;
/*
 * t, the current thread, runs again after being off its CPU: a
 * PROF_REC_OFFCPU if a session with PROF_F_OFFCPU covers it (offcpu.c).
 * The scheduler calls it right after a switch when prof_offcpu_on is set;
 * interrupts off.
 */
void prof_offcpu_resume(struct thread *t);
/*
 * A consumer of the samples sessions take: called from the sampling path
 * (interrupt or NMI context: lock-free, no allocation) with the frame
 * each sample interrupted, for every sample a session takes on time (a
 * tick held back by an interrupts-off section is not), while at least one
 * consumer wants samples (prof_consumers_want). MINIX's profil is one
 * (kernel/profil/). At most PROF_CONSUMERS, added at boot before any
 * session starts; EOK or ELIMIT.
 */
typedef void (*prof_consumer_t)(const struct int_frame *f);
#define PROF_CONSUMERS 4
errno_t prof_consumer_add(prof_consumer_t fn);

/*
 * A consumer starts wanting samples (on) or stops (each on matched by one
 * off): while none wants any, the sampling path skips them all with one
 * load. Thread context.
 */
void prof_consumers_want(bool on);

/* Is any profiling session open (live or not yet freed)? Any context. */
bool prof_sessions_open(void);

/* Open sessions of task task_id counted against LIMIT_PROF_SESSIONS. */
uint32_t prof_task_sessions(uint64_t task_id);

#endif
