/*
 * top: the keys of the full-screen mode and what they do to the view
 * state. Pure: also built on the host.
 *
 *   t i e c   tasks, IPC, interrupts and exceptions, CPUs
 *   T         threads: type a task id and Enter (Enter alone: all
 *             threads; Esc: never mind)
 *   < >       sort by the column to the left / right
 *   r         reverse the order
 *   R         dump the flight recorder to /tmp/recorder.N.prof
 *   h ?       help (any key leaves it)
 *   q Ctrl-C  quit
 */
#include <string.h>

#include "top.h"

#define KEY_CTRL_C 0x03

void top_ui_init(top_ui_t *ui, top_view_t v, uint64_t task)
{
	memset(ui, 0, sizeof(*ui));
	ui->view = v < TOP_VIEW_COUNT ? v : TOP_VIEW_TASKS;
	ui->task = task;
	for (unsigned i = 0; i < TOP_VIEW_COUNT; i++)
		ui->sort[i] = top_view((top_view_t)i)->sort;
}

bool top_key_quits(char c)
{
	return c == 'q' || c == KEY_CTRL_C;
}

top_view_t top_view_of_key(char c)
{
	for (unsigned v = 0; v < TOP_VIEW_COUNT; v++)
		if (top_view((top_view_t)v)->key == c)
			return (top_view_t)v;
	return TOP_VIEW_COUNT;
}

/* A key while a task id is typed; Enter: the threads of that task (none typed: of every task). */
static void entry_key(top_ui_t *ui, char c)
{
	uint64_t id;
	bool given;

	if (num_entry_key(&ui->entry, c, &id, &given) != NUM_ENTRY_DONE)
		return;
	ui->task = id;                  /* 0 when none was typed */
	ui->view = TOP_VIEW_THREADS;
}

/* < or >: the sort column one to the left or right (wrapping). */
static void sort_move(top_ui_t *ui, int step)
{
	unsigned n = top_view(ui->view)->ncols;
	unsigned *col = &ui->sort[ui->view];

	*col = step < 0 ? (*col + n - 1) % n : (*col + 1) % n;
}

/* A key in a view; false if it means nothing. */
static bool view_key(top_ui_t *ui, char c)
{
	top_view_t v = top_view_of_key(c);

	if (v == TOP_VIEW_THREADS)
		num_entry_start(&ui->entry);
	else if (v != TOP_VIEW_COUNT)
		ui->view = v;
	else if (c == '<' || c == '>')
		sort_move(ui, c == '<' ? -1 : 1);
	else if (c == 'r')
		ui->reverse[ui->view] = !ui->reverse[ui->view];
	else if (c == 'R')
		ui->dump = true;
	else if (c == 'h' || c == '?')
		ui->help = true;
	else
		return false;
	return true;
}

bool top_ui_key(top_ui_t *ui, char c)
{
	ui->note[0] = '\0';
	if (top_key_quits(c)) {
		ui->quit = true;
		return false;
	}
	if (ui->help) {
		ui->help = false;
		return true;
	}
	if (ui->entry.active) {
		entry_key(ui, c);
		return true;
	}
	return view_key(ui, c);
}
