/*
 * binmiss.h - the binaries a profile names that a tool could not
 * find under its root, for the warning vprof and cprofalyze print (exit
 * status 3). A binary found after all as PATH.nm is taken off the list.
 * Header-only because each tool is one source file (cprofalyze is built
 * for the guest too: plain C, no host calls).
 */
#ifndef PROF_BINMISS_H
#define PROF_BINMISS_H

#include <abi/errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define BINMISS_MAX 8                   /* missing binaries named in the warning */

typedef struct binmiss {
	unsigned n;                     /* binaries not found (nor PATH.nm) */
	char path[BINMISS_MAX][256];
} binmiss_t;

/* The missing binary named path (len bytes): its slot, or -1. */
static inline int binmiss_slot(const binmiss_t *m, const char *path, size_t len)
{
	unsigned n = m->n < BINMISS_MAX ? m->n : BINMISS_MAX;

	for (unsigned i = 0; i < n; i++)
		if (strlen(m->path[i]) == len && !strncmp(m->path[i], path, len))
			return (int)i;
	return -1;
}

/* Note a load's outcome: a binary not found, or found after all as PATH.nm. */
static inline void binmiss_note(binmiss_t *m, const char *path, errno_t err)
{
	size_t len = strlen(path);
	bool nm = len > 3 && !strcmp(path + len - 3, ".nm");
	int slot = binmiss_slot(m, path, nm ? len - 3 : len);

	if (nm && err == EOK && slot >= 0) {
		m->n--;
		memmove(m->path[slot], m->path[m->n], sizeof(m->path[0]));
	} else if (!nm && err == ENOENT && slot < 0) {
		if (m->n < BINMISS_MAX)
			snprintf(m->path[m->n], sizeof(m->path[0]), "%s", path);
		m->n++;
	}
}

/*
 * The warning, on stderr: "TOOL: warning: N binaries named in WHERE not
 * found under ROOT (HINT): paths". Returns 3, or 0 when none is missing.
 */
static inline int binmiss_warn(const binmiss_t *m, const char *tool, const char *where,
			       const char *root, const char *hint)
{
	if (!m->n)
		return 0;
	fprintf(stderr, "%s: warning: %u binar%s named in %s not found under %s (%s):", tool,
		m->n, m->n == 1 ? "y" : "ies", where, root, hint);
	for (unsigned i = 0; i < m->n && i < BINMISS_MAX; i++)
		fprintf(stderr, " %s", m->path[i]);
	fprintf(stderr, "%s\n", m->n > BINMISS_MAX ? " ..." : "");
	return 3;
}

#endif
