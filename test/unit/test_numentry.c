/*
 * Unit tests for the typed number of top's T and the live view's t
 * (lib/numentry.c): digits append up to the limit, Backspace and DEL
 * erase, other keys do nothing, Enter gives the number (and whether any
 * digit was typed), Esc gives up; both end the entry.
 */
#include "tap.h"

#include <lib/numentry.h>

int main(void)
{
	num_entry_t e;
	uint64_t v = 99;
	bool given = true;

	num_entry_start(&e);
	ok(e.active && e.len == 0 && e.text[0] == '\0', "start: active and empty");
	const char keys[] = "1x2\x08" "3\x7f" "45";
	for (const char *k = keys; *k; k++)
		is_int(num_entry_key(&e, *k, &v, &given), NUM_ENTRY_TYPING, "key %#x: typing", *k);
	is_str(e.text, "145", "digits kept, x ignored, BS and DEL erase");
	is_int(num_entry_key(&e, '\r', &v, &given), NUM_ENTRY_DONE, "Enter: done");
	ok(v == 145 && given && !e.active, "Enter: 145, given, no longer active");
	num_entry_start(&e);
	is_int(num_entry_key(&e, '\n', &v, &given), NUM_ENTRY_DONE, "newline: done");
	ok(v == 0 && !given, "nothing typed: not given");
	num_entry_start(&e);
	num_entry_key(&e, '7', &v, &given);
	is_int(num_entry_key(&e, 0x1b, &v, &given), NUM_ENTRY_CANCEL, "Esc: cancelled");
	ok(!e.active, "Esc: no longer active");
	num_entry_start(&e);
	for (int i = 0; i < 30; i++)
		num_entry_key(&e, '9', &v, &given);
	is_int(e.len, NUM_ENTRY_MAX - 1, "at most %d digits", NUM_ENTRY_MAX - 1);
	num_entry_key(&e, '\x08', &v, &given);
	is_int(e.len, NUM_ENTRY_MAX - 2, "erase after the limit");
	return done_testing();
}
