/* A typed number's keys (lib/numentry.h). */
#include <lib/numentry.h>

#define KEY_BS 0x08
#define KEY_DEL 0x7f
#define KEY_ESC 0x1b

void num_entry_start(num_entry_t *e)
{
	e->active = true;
	e->len = 0;
	e->text[0] = '\0';
}

/* The digits typed, as a number. */
static uint64_t num_entry_value(const num_entry_t *e)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < e->len; i++)
		v = v * 10 + (uint64_t)(e->text[i] - '0');
	return v;
}

num_entry_res_t num_entry_key(num_entry_t *e, char c, uint64_t *value, bool *given)
{
	if (c >= '0' && c <= '9' && e->len + 1 < NUM_ENTRY_MAX) {
		e->text[e->len++] = c;
		e->text[e->len] = '\0';
	} else if ((c == KEY_BS || c == KEY_DEL) && e->len > 0) {
		e->text[--e->len] = '\0';
	} else if (c == '\r' || c == '\n') {
		*value = num_entry_value(e);
		*given = e->len > 0;
		e->active = false;
		return NUM_ENTRY_DONE;
	} else if (c == KEY_ESC) {
		e->active = false;
		return NUM_ENTRY_CANCEL;
	}
	return NUM_ENTRY_TYPING;
}
