/*
 * The symbols of a profiled binary, loaded once through a prof_env_t
 * (lib/profreport.h) and kept: its ELF .symtab, else, if the loader finds
 * PATH.nm, that nm text (lib/profsym.h). Shared by the profiler reports
 * (lib/prof/profreport.c, lib/prof/cprofreport.c). Freestanding.
 */
#ifndef LIB_PROFBIN_H
#define LIB_PROFBIN_H

#include <lib/profreport.h>
#include <lib/profsym.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A binary: set path (from env->alloc) and hash, the rest zero. */
typedef struct profbin {
	char *path;
	uint64_t hash;                  /* FNV-1a 64 of the file profiled, 0 unknown */
	bool tried, ok;                 /* loading was tried; symbols found */
	bool stale;                     /* its file is not the one profiled */
	void *data;                     /* the ELF file's contents (ELF symbols) */
	size_t size;                    /* ... and its size */
	profsym_t sym;
} profbin_t;

/* FNV-1a 64 of len bytes (how the profilers hash ELF files). */
uint64_t profbin_fnv(const void *data, size_t len);

/*
 * Load b's symbols through env once (later calls do nothing; a failure is
 * remembered too): b->ok says whether there are any, b->stale whether the
 * file's hash differs from b->hash.
 */
void profbin_load(const prof_env_t *env, profbin_t *b);

/*
 * The name of the function at addr in b (loaded first if it was not),
 * and in *off (may be NULL) how far addr is into it; NULL if none.
 */
const char *profbin_lookup(const prof_env_t *env, profbin_t *b, uint64_t addr,
			   uint64_t *off);

/* Release what b holds (its path too). */
void profbin_free(const prof_env_t *env, profbin_t *b);

#endif
