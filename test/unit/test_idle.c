/* Unit tests for the idle poll limit's adaptation (kernel/sched/idle_adjust.c). */
#include "tap.h"

#include <kernel/idle.h>

#define MAX 200
#define START 50

int main(void)
{
	uint64_t l = 0;

	ok(idle_poll_adjust(0, 500, MAX, START) == 0, "a long halt leaves polling off");
	l = idle_poll_adjust(0, 30, MAX, START);
	ok(l == START, "a short halt starts polling at the start value (%lu)", (unsigned long)l);
	l = idle_poll_adjust(l, 60, MAX, START);
	ok(l == 2 * START, "a halt a longer poll had caught doubles it (%lu)", (unsigned long)l);
	l = idle_poll_adjust(l, 150, MAX, START);
	ok(l == MAX, "and again, up to the maximum (%lu)", (unsigned long)l);
	ok(idle_poll_adjust(l, 199, MAX, START) == MAX, "never beyond it");
	ok(idle_poll_adjust(l, 120, MAX, START) == MAX,
	   "work found within the poll keeps the limit");
	ok(idle_poll_adjust(l, MAX, MAX, START) == MAX, "a spell of exactly the limit keeps it");
	l = idle_poll_adjust(l, 10000, MAX, START);
	ok(l == MAX / 2, "a halt beyond the maximum halves it (%lu)", (unsigned long)l);
	l = idle_poll_adjust(l, 10000, MAX, START);
	ok(l == START, "again (%lu)", (unsigned long)l);
	l = idle_poll_adjust(l, 10000, MAX, START);
	ok(l == 0, "below the start value polling stops (%lu)", (unsigned long)l);
	ok(idle_poll_adjust(0, 10, 0, START) == 0 && idle_poll_adjust(MAX, 10, 0, START) == 0,
	   "a maximum of 0 never polls, and stops a poll going on");
	ok(idle_poll_adjust(0, 5, 20, START) == 20,
	   "a maximum below the start value is the limit");
	return done_testing();
}
