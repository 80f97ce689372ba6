/*
 * A number typed in a full-screen tool (lib/numentry.c): the task id that
 * top's T and the live view's t ask for. Digits append (at most
 * NUM_ENTRY_MAX - 1), Backspace or DEL erases one, Enter ends it, Esc
 * gives up; other keys do nothing.
 */
#ifndef LIB_NUMENTRY_H
#define LIB_NUMENTRY_H

#include <stdbool.h>
#include <stdint.h>

#define NUM_ENTRY_MAX 20

typedef struct num_entry {
	bool active;                    /* being typed */
	char text[NUM_ENTRY_MAX];       /* the digits so far, NUL-terminated */
	unsigned len;
} num_entry_t;

/* What a key did to the entry. */
typedef enum num_entry_res {
	NUM_ENTRY_TYPING,               /* still being typed */
	NUM_ENTRY_DONE,                 /* Enter: the number (0 digits: none) */
	NUM_ENTRY_CANCEL,               /* Esc */
} num_entry_res_t;

/* Start typing a number: empty and active. */
void num_entry_start(num_entry_t *e);

/*
 * Apply key c to an active entry. On NUM_ENTRY_DONE *value is the number
 * and *given whether any digit was typed; the entry is no longer active
 * after DONE or CANCEL.
 */
num_entry_res_t num_entry_key(num_entry_t *e, char c, uint64_t *value, bool *given);

#endif
