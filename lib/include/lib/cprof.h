/*
 * The call profiler's bookkeeping (see abi/cprof.h), shared by the
 * kernel's hooks and user space's: a call stack per thread and call-path
 * tables made of parts. Pure: no locks, no allocation, no clock reads.
 * The hooks read the TSC and the thread's off-CPU cycles themselves and
 * pass them in, twice per hook, so that the hook's own cost is left out:
 *
 *   enter(fn):  t1 = tsc; off = off_cpu();
 *               f = cprof_enter(stack, table, fn, t1, off);
 *               if (f) f->t2 = tsc;
 *   exit(fn):   stop = tsc; off = off_cpu();
 *               f = cprof_exit_begin(stack, table, fn, stop, off);
 *               if (f) cprof_exit_end(stack, f, tsc, off_cpu());
 *
 * A function's self time is (exit's first read - entry's last read)
 * minus what its callees took from their entry's first read to their
 * exit's last read: the thesis's "small" and "big" differences.
 *
 * One writer per part and per stack, and no hook may run inside another
 * on the same CPU (the kernel turns interrupts off and guards against
 * NMIs; user space has one part and one stack per thread). Only a slot's
 * counts may be updated from a part's non-owner (a kernel thread that
 * moved CPUs), with atomic adds. This file must be built without
 * -finstrument-functions.
 */
#ifndef LIB_CPROF_H
#define LIB_CPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <abi/cprof.h>

/* A call in progress. */
typedef struct cprof_frame {
	uint64_t fn;
	uint32_t slot;          /* slot id, or CPROF_NONE */
	uint32_t reserved;
	uint64_t t1;            /* TSC at the start of the entry hook */
	uint64_t t2;            /* TSC at its end (the caller stores it) */
	uint64_t off;           /* the thread's off-CPU cycles at entry */
	uint64_t deeper_wall;   /* callees' time, hooks included */
	uint64_t deeper_oncpu;
	cprof_slot_t *own_slot; /* slot's entry, in the writer's part at entry; NULL: none */
	uint64_t reserved2;
} cprof_frame_t;

/* A thread's call stack; depth may exceed cap (those calls not recorded). */
typedef struct cprof_stack {
	uint32_t depth;
	uint32_t cap;
	uint32_t gen;           /* the reset generation its slots belong to */
	uint32_t reserved;
	cprof_frame_t frame[];
} cprof_stack_t;

/* Bytes of a stack with room for n frames. */
#define CPROF_STACK_SIZE(n) (sizeof(cprof_stack_t) + (size_t)(n) * sizeof(cprof_frame_t))

/* The parts slot ids refer to, and the one this writer inserts into. */
typedef struct cprof_table {
	cprof_part_t *const *parts;   /* by part id; NULL for none */
	uint32_t nparts;
	uint32_t own;                 /* the writer's part id */
	uint32_t gen;                 /* current reset generation */
	uint64_t root_fn;             /* calls of it are top-level paths (0: none) */
} cprof_table_t;

/* Make mem (CPROF_PART_SIZE(nslots) bytes) an empty part with id. */
void cprof_part_init(cprof_part_t *p, uint32_t id, uint32_t nslots);

/* Empty p for reset generation gen (its counters and flags too). */
void cprof_part_clear(cprof_part_t *p, uint32_t gen);

/* Make mem (CPROF_STACK_SIZE(cap) bytes) an empty stack. */
void cprof_stack_init(cprof_stack_t *s, uint32_t cap, uint32_t gen);

/*
 * Bring the writer up to tab->gen: clear its own part if it is older,
 * and re-enter the stack's live calls into the tables (0 calls) if the
 * stack is older. Cheap when nothing changed; call first in every hook.
 */
void cprof_sync(cprof_stack_t *s, const cprof_table_t *tab);

/* The slot with id in tab, or NULL if it does not exist. */
cprof_slot_t *cprof_slot(const cprof_table_t *tab, uint32_t id);

/*
 * Find the slot of path (parent, fn) in part p, or add it with 0 counts.
 * Returns its id, or CPROF_NONE when p is full (flagged).
 */
uint32_t cprof_lookup(cprof_part_t *p, uint32_t parent, uint64_t fn);

/* ------------------------------------------------------------------
 * The hot path, inline in the hooks (their cost is the profiler's
 * overhead); the rare cases are the out-of-line functions below.
 */

/* The path of a call of fn under parent in the writer's part (lookup or add), or CPROF_NONE (counted). */
uint32_t cprof_path(const cprof_table_t *tab, uint32_t parent, uint64_t fn);
/* Add cycles to a slot of another part (atomically). */
void cprof_charge_far(const cprof_table_t *tab, uint32_t id, uint64_t wall, uint64_t oncpu);
/* A call beyond the stack's cap: counted, flagged. */
void cprof_overrun(const cprof_table_t *tab);
/*
 * An exit of fn that is not on top: find fn's frame below, drop the
 * frames above it (longjmp); false if there is none. Counted, flagged.
 */
bool cprof_resync(cprof_stack_t *s, const cprof_table_t *tab, uint64_t fn);

/* The bucket of path (parent, fn) in a part's hash table (lib/cprof.c's too). */
static inline uint32_t cprof_hash(uint32_t parent, uint64_t fn)
{
	uint64_t x = fn * 0x9e3779b97f4a7c15ull ^ (uint64_t)parent * 0xc2b2ae3d27d4eb4full;

	return (uint32_t)(x >> 40) % CPROF_HASH_SIZE;
}

/*
 * The index + 1 of path (parent, fn) in part p if it heads its hash chain
 * (the common case: chains are short), else 0 (a longer chain, a new path
 * or CPROF_NONE: cprof_path's work, out of line).
 */
static inline uint32_t cprof_probe(const cprof_part_t *p, uint32_t parent, uint64_t fn)
{
	uint32_t i = p->hash[cprof_hash(parent, fn)];

	if (i && p->slot[i - 1].fn == fn && p->slot[i - 1].parent == parent)
		return i;
	return 0;
}

/*
 * fn was entered at t1 with the thread off-CPU for off cycles so far.
 * Pushes a frame and counts the call on its path. Returns the frame (the
 * caller stores t2 in it) or NULL if it could not be recorded (stack
 * full: counted, flagged).
 */
static inline cprof_frame_t *cprof_enter(cprof_stack_t *s, const cprof_table_t *tab,
					 uint64_t fn, uint64_t t1, uint64_t off)
{
	uint32_t d = s->depth++;

	if (d >= s->cap) {
		cprof_overrun(tab);
		return NULL;
	}
	cprof_frame_t *f = &s->frame[d];
	f->fn = fn;
	f->t1 = f->t2 = t1;
	f->off = off;
	f->deeper_wall = f->deeper_oncpu = 0;
	uint32_t parent = d && fn != tab->root_fn ? s->frame[d - 1].slot : CPROF_ROOT;
	cprof_part_t *own = tab->parts[tab->own];
	uint32_t i = cprof_probe(own, parent, fn);
	if (i) {
		f->slot = own->h.id << CPROF_ID_SHIFT | (i - 1);
	} else {
		f->slot = cprof_path(tab, parent, fn);
		if (f->slot == CPROF_NONE) {
			f->own_slot = NULL;
			return f;
		}
		i = (f->slot & CPROF_INDEX_MASK) + 1;
	}
	f->own_slot = &own->slot[i - 1];
	f->own_slot->calls++;
	return f;
}

/*
 * Add wall and on-CPU cycles to f's path: in place if its slot is in the
 * writer's part (it came from there at the current generation: cprof_sync
 * re-enters older ones), atomically if not (a kernel thread that moved
 * CPUs since its entry).
 */
static inline void cprof_charge(const cprof_table_t *tab, const cprof_frame_t *f, uint64_t wall,
				uint64_t oncpu)
{
	if (f->own_slot && f->slot >> CPROF_ID_SHIFT == tab->own) {
		f->own_slot->wall += wall;
		f->own_slot->oncpu += oncpu;
	} else {
		cprof_charge_far(tab, f->slot, wall, oncpu);
	}
}

/*
 * fn exits; stop and off read first thing in the hook. Attributes the
 * self time of the call on top to its path and returns its frame (still
 * on the stack; finish with cprof_exit_end), or NULL if there is nothing
 * to finish (a call beyond the stack's cap, or an exit without an entry:
 * counted, flagged). Frames above fn's are dropped (longjmp), flagged.
 */
static inline cprof_frame_t *cprof_exit_begin(cprof_stack_t *s, const cprof_table_t *tab,
					      uint64_t fn, uint64_t stop, uint64_t off)
{
	if (s->depth > s->cap) {             /* not recorded: just leave it */
		s->depth--;
		return NULL;
	}
	if ((s->depth == 0 || s->frame[s->depth - 1].fn != fn) && !cprof_resync(s, tab, fn))
		return NULL;
	cprof_frame_t *f = &s->frame[s->depth - 1];
	uint64_t small = stop - f->t2;               /* modular: sums stay exact */
	uint64_t small_on = small - (off - f->off);
	cprof_charge(tab, f, small - f->deeper_wall, small_on - f->deeper_oncpu);
	return f;
}

/* Pop f (from cprof_exit_begin); end and off read last in the hook. */
static inline void cprof_exit_end(cprof_stack_t *s, cprof_frame_t *f, uint64_t end, uint64_t off)
{
	uint64_t big = end - f->t1;
	uint64_t big_on = big - (off - f->off);

	s->depth--;
	if (s->depth == 0)
		return;
	cprof_frame_t *caller = &s->frame[s->depth - 1];
	caller->deeper_wall += big;
	caller->deeper_oncpu += big_on;
}

#endif
