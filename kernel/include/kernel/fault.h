/*
 * Recovering from expected faults in kernel code. fault_catch_run() runs a
 * function; if it faults, the exception handler reports the fault (as a
 * panic would, but marked caught), fills the fault_catch_t and resumes
 * after the call. Used by ktest and the performance-counter probe; user
 * copies have their own fixup (arch_copy_user, the exception handler).
 */
#ifndef KERNEL_FAULT_H
#define KERNEL_FAULT_H

#include <arch/kjmp.h>
#include <kernel/types.h>

#define FAULT_BT_MAX 16

struct fault_catch {
	kjmp_buf_t jb;
	struct fault_catch *prev;
	bool quiet;             /* set by the caller: do not print the report */
	unsigned vector;
	uint64_t error;
	uint64_t addr;          /* faulting address for page faults */
	uintptr_t pc;           /* where it faulted */
	bool handler_uaccess;   /* the handler ran with user access open (SMAP: never) */
	uintptr_t bt[FAULT_BT_MAX];
	size_t nbt;
};

typedef struct fault_catch fault_catch_t;

/*
 * Call fn(arg) with faults caught on this CPU. Returns true if fn faulted
 * (details in *fc), false if it returned normally. Preemption is off while
 * fn runs (the catch belongs to this CPU). Set fc->quiet
 * first to skip printing the fault report.
 */
bool fault_catch_run(fault_catch_t *fc, void (*fn)(void *), void *arg);

#endif
