/*
 * Matching text against a subset of POSIX basic regular expressions (what
 * grep needs), shared by the kernel, user space and host tools: no
 * allocation, no C library.
 *
 * The subset: ordinary characters match themselves; "." matches any
 * character; "[abc]", "[a-z]" and "[^...]" match one character of a set
 * ("]" first and "-" first or last are literal; "[:", "[." and "[=" are
 * refused); "*" after a character, "." or set repeats it zero or more
 * times (first in the pattern it is literal; "**" is "*"); "^" first
 * anchors at the start of the text and "$" last at its end (elsewhere both
 * are literal); "\" makes the next character literal. There are no
 * groups, intervals or alternatives. With MATCH_ICASE a character matches
 * a set when it or its other case is in the set (as POSIX says).
 *
 * A compiled pattern is matched by simulating its automaton over the text,
 * so the time is O(text length * pattern length), never exponential.
 */
#ifndef LIB_MATCH_H
#define LIB_MATCH_H

#include <abi/errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MATCH_MAX_ITEMS 255     /* characters, dots and sets in a pattern */
#define MATCH_MAX_SETS 32       /* bracket expressions in a pattern */

/* match_compile flags. */
#define MATCH_ICASE 1u          /* ASCII letters match either case */

/* One element of a compiled pattern (the fields are private). */
typedef struct match_item {
	uint8_t kind;           /* a character, any character or a set */
	uint8_t arg;            /* the character, or the set's index */
	bool star;              /* repeated zero or more times */
} match_item_t;

/* A compiled pattern (about 1.8 KiB; the fields are private). */
typedef struct match {
	match_item_t items[MATCH_MAX_ITEMS];
	uint8_t sets[MATCH_MAX_SETS][32];   /* 256-bit sets of bytes */
	uint16_t count;                     /* items used */
	uint16_t nsets;                     /* sets used */
	bool anchor_start;
	bool anchor_end;
	bool icase;
	const char *error;      /* why match_compile failed (static text) */
} match_t;

/*
 * Compile the NUL-terminated pattern into *m with flags (MATCH_ICASE).
 * Returns EOK; EINVAL for a malformed pattern (unterminated "[", reversed
 * range, "[:" class, trailing "\"), ELIMIT when it has too many items or
 * sets; then m->error says why.
 */
errno_t match_compile(match_t *m, const char *pattern, unsigned flags);

/*
 * Whether the compiled pattern m matches somewhere in the len bytes at
 * text (which may hold any bytes, NUL included; a line without its
 * newline, for grep).
 */
bool match_find(const match_t *m, const char *text, size_t len);

#endif
