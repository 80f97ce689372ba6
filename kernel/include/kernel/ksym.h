/* Kernel symbols (from the ELF .symtab the boot loader loaded) and backtraces. */
#ifndef KERNEL_KSYM_H
#define KERNEL_KSYM_H

#include <kernel/types.h>

/* Prepare the kernel symbol table; before this, lookups return NULL. */
void ksym_init(void);

/* Name of the function containing addr and *off into it, or NULL. */
const char *ksym_lookup(uintptr_t addr, uint64_t *off);

/*
 * Like ksym_lookup() for a backtrace entry: a return address (is_return)
 * is looked up one byte back, since a call to a noreturn function can be
 * the last instruction of its caller.
 */
const char *ksym_lookup_pc(uintptr_t pc, bool is_return, uint64_t *off);

/* Address of a kernel symbol, 0 if unknown. */
uintptr_t ksym_address(const char *name);

/* Number of symbols known. */
size_t ksym_count(void);

/*
 * Walk the frame-pointer chain starting at (pc, fp) into out[0..max);
 * out[0] = pc. Stops at a null, unreadable or non-ascending frame
 * (arch_unwind with UNWIND_ANY). Returns the number of addresses stored.
 */
size_t backtrace_walk(uintptr_t pc, uintptr_t fp, uintptr_t *out, size_t max);

/* Backtrace of the caller of this function. */
size_t backtrace_here(uintptr_t *out, size_t max);

/* Print a symbolized backtrace, one "  #n addr symbol+off" line each. */
void backtrace_print(const uintptr_t *pcs, size_t n, bool locked);

#endif
