/*
 * The callgrind format's lines, the one encoder (lib/prof/export/
 * cgfile.c) the sample profile's export and the call profile's
 * (cprofreport_export) both write with: the header, a function's block
 * (fn= and its self cost) and a call (cfn=, calls=, the inclusive cost).
 * Costs are n numbers, one per event of the header.
 */
#ifndef LIB_PROFCALLGRIND_H
#define LIB_PROFCALLGRIND_H

#include <lib/fmt.h>
#include <stddef.h>
#include <stdint.h>

/* The header: creator, cmd (NULL: no line), the events and the summary costs. */
void prof_callgrind_head(const fmt_out_t *o, const char *creator, const char *cmd,
			 const char *events, const uint64_t *costs, size_t n);

/* A function's block: "ob=", "fl=???", "fn=NAMESUFFIX" and its self costs. */
void prof_callgrind_fn(const fmt_out_t *o, const char *ob, const char *name,
		       const char *suffix, const uint64_t *costs, size_t n);

/* A call of the block above: "cob=" (cob NULL: none), "cfn=", calls and costs. */
void prof_callgrind_call(const fmt_out_t *o, const char *cob, const char *name,
			 const char *suffix, uint64_t calls, const uint64_t *costs, size_t n);

#endif
