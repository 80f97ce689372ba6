/* profil's parts: running the program (main.c) and the report (report.c). */
#ifndef PROFIL_H
#define PROFIL_H

#include <stdbool.h>
#include <profil.h>
#include <lib/profsym.h>

/* What the report needs besides the profile: the text base and symbols. */
typedef struct profil_prog {
	uint64_t text_base;         /* offsets on the command line start here */
	profsym_t syms;
	bool have_syms;
} profil_prog_t;

/* Print the "Profile Statistics" report of d to stdout. */
void profil_report(const struct profil_data *d, const profil_prog_t *p);

#endif
