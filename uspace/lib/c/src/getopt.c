/* POSIX getopt (see <getopt.h>). */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

char *optarg;
int optind = 1;
int opterr = 1;
int optopt;

/* Position inside argv[optind] of the next option character of a group. */
static int optpos = 1;
/* optind as getopt last left it: a caller's change restarts the scan. */
static int last_optind = 1;

static void advance(void)
{
	optind++;
	optpos = 1;
}

/* Print a message unless opterr is 0 or optstring starts with ':'. */
static void complain(const char *msg, char *const argv[], const char *opts,
		     int c)
{
	if (opterr && opts[0] != ':')
		fprintf(stderr, "%s: %s -- '%c'\n", argv[0], msg, c);
}

/* Whether argv[optind] ends the options (without consuming it). */
static bool at_end(int argc, char *const argv[])
{
	const char *arg = optind < argc ? argv[optind] : NULL;

	return !arg || arg[0] != '-' || arg[1] == '\0';
}

/* Take the argument of option c (spec points past c in optstring). */
static int take_arg(int argc, char *const argv[], const char *opts,
		    const char *spec, int c)
{
	const char *rest = argv[optind] + optpos + 1;
	bool optional = spec[2] == ':';

	advance();
	if (*rest != '\0') {
		optarg = (char *)rest;
	} else if (optional) {
		optarg = NULL;
	} else if (optind < argc) {
		optarg = argv[optind];
		advance();
	} else {
		optopt = c;
		complain("option requires an argument", argv, opts, c);
		return opts[0] == ':' ? ':' : '?';
	}
	return c;
}

static void restart_if_reset(void)
{
	if (optind == 0 || optind != last_optind) {
		if (optind == 0)
			optind = 1;
		optpos = 1;
	}
}

/* Handle the option character at argv[optind][optpos]. */
static int one_option(int argc, char *const argv[], const char *opts)
{
	int c = (unsigned char)argv[optind][optpos];
	const char *spec = c != ':' ? strchr(opts, c) : NULL;

	if (spec && spec[1] == ':')
		return take_arg(argc, argv, opts, spec, c);
	if (argv[optind][++optpos] == '\0')
		advance();
	if (spec)
		return c;
	optopt = c;
	complain("invalid option", argv, opts, c);
	return '?';
}

int getopt(int argc, char *const argv[], const char *optstring)
{
	const char *opts = optstring[0] == '+' ? optstring + 1 : optstring;
	int r;

	restart_if_reset();
	optarg = NULL;
	if (optpos == 1 && at_end(argc, argv)) {
		r = -1;
	} else if (optpos == 1 && strcmp(argv[optind], "--") == 0) {
		advance();
		r = -1;
	} else {
		r = one_option(argc, argv, opts);
	}
	last_optind = optind;
	return r;
}

int getopt_help_only(int argc, char *const argv[], void (*usage)(FILE *out), int min,
		     int max)
{
	int opt = getopt(argc, argv, "h");

	if (opt == 'h') {
		usage(stdout);
		return 0;
	}
	if (opt != -1 || argc - optind < min || argc - optind > max) {
		usage(stderr);
		return 2;
	}
	return -1;
}
