/*
 * Leaf callers for the profiler report: whether a sampled function had
 * set up its frame yet, and if not, which of the words at the top of the
 * stack (the sample's top words, abi/profile.h) is its return address.
 *
 * The frame-pointer walk names [rbp + 8] as the caller. That is right once
 * the function has run `push %rbp; mov %rsp,%rbp` (GCC may schedule other
 * register moves between the two); before that (PC at the push, or up to
 * the mov), after `pop %rbp`/`leave` (PC at the ret), and in a
 * function built with no frame at all (GCC's leaves that need no stack)
 * rbp is still the caller's, so the walk skips the real caller. Then the
 * return address is at [rsp] (word 0), or at [rsp + 8] (word 1) between
 * the push and the mov. A function whose first byte is not the push has
 * no frame, or a shrink-wrapped one (set up around a call only): there the
 * return address is at [rsp], or at [rsp + 8] with PC at the mov. A word is taken only if the bytes before it are a
 * call: a direct call to this very function, or an indirect one.
 * Freestanding; reads ELF files already in memory.
 */
#ifndef LIB_PROFLEAF_H
#define LIB_PROFLEAF_H

#include <stddef.h>
#include <stdint.h>

/*
 * Up to want bytes of the ELF image (size bytes) at virtual address va
 * from its PT_LOAD file contents into buf; how many were there (0 if va
 * is in none).
 */
size_t profleaf_read(const void *elf, size_t size, uint64_t va, void *buf, size_t want);

/*
 * The caller's return address for a sample at pc in the function that
 * starts at fstart (in the ELF image elf, size bytes), given the ntop
 * words at the top of the stack; 0 when the frame was set up (the walk is
 * right) or no word passes the call check.
 */
uint64_t profleaf_caller(const void *elf, size_t size, uint64_t fstart, uint64_t pc,
			 const uint64_t *top, size_t ntop);

#endif
