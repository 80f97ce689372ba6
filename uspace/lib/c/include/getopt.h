/*
 * POSIX getopt: short options only, no argument permutation (parsing stops
 * at the first non-option, at "-" and after "--").
 */
#ifndef _GETOPT_H
#define _GETOPT_H

#include <stdio.h>

extern char *optarg;   /* argument of the option just returned */
extern int optind;     /* index of the next argv element (starts at 1) */
extern int opterr;     /* nonzero (the default): print errors on stderr */
extern int optopt;     /* the option character of the last error */

/*
 * Next option character of argv per optstring: letters, each followed by
 * ':' when it takes an argument (in the same or the next argv element)
 * or "::" when the argument is optional (same element only). Returns -1
 * at the end of the options, '?' for an unknown option or a missing
 * argument, or ':' for a missing argument when optstring starts with ':'
 * (which also silences the messages). A leading '+' is accepted and
 * ignored. Setting optind to 0 (or back to 1) restarts the scan.
 */
int getopt(int argc, char *const argv[], const char *optstring);

/*
 * Vernier's option check for a program whose only option is -h (getopt
 * with "h"): -h prints usage(stdout) and gives 0; another option, or
 * fewer than min or more than max operands, prints usage(stderr) and
 * gives 2 (the exit status); else -1: go on, the operands are
 * argv[optind..argc-1].
 */
int getopt_help_only(int argc, char *const argv[], void (*usage)(FILE *out), int min,
		     int max);

#endif
