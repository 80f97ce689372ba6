/*
 * The queue of reads (IPC_M_DATA_READ calls) waiting for input. Input is
 * served only to the foreground (fg.c): a read from another task waits,
 * as a Unix background job stops on SIGTTIN, and gets nothing the user
 * typed for the foreground. A task queues at most CONSOLE_READS_TASK
 * reads, a task tree (task_quota_root) CONSOLE_READS_TREE, and reads from
 * outside the foreground leave CONSOLE_READS_TREE slots free, so the
 * foreground's reads always find room; beyond, ELIMIT for that read.
 * Runs on the IPC thread only.
 */
#include <console.h>
#include <string.h>
#include <tasktree.h>
#include <vernier.h>

#include "console.h"

#define IN_BUF_MAX 4096

typedef struct read_wait {
	ipc_event_t ev;
	task_id_t tree;             /* task_quota_root of its sender */
} read_wait_t;

static read_wait_t reads[CONSOLE_READS_MAX];
static unsigned nreads;

/* Queued reads from task (tree false) or from tree root (tree true). */
static unsigned readq_count(task_id_t id, bool tree)
{
	unsigned n = 0;

	for (unsigned i = 0; i < nreads; i++)
		n += (tree ? reads[i].tree : reads[i].ev.sender) == id;
	return n;
}

errno_t readq_push(const ipc_event_t *ev)
{
	task_id_t tree = task_quota_root(ev->sender);
	unsigned room = fg_serves(ev->sender) ? CONSOLE_READS_MAX :
		CONSOLE_READS_MAX - CONSOLE_READS_TREE;

	if (nreads >= room || readq_count(ev->sender, false) >= CONSOLE_READS_TASK ||
	    readq_count(tree, true) >= CONSOLE_READS_TREE)
		return ELIMIT;
	reads[nreads++] = (read_wait_t){ *ev, tree };
	return EOK;
}

static void readq_remove(unsigned i)
{
	memmove(reads + i, reads + i + 1, (--nreads - i) * sizeof(reads[0]));
}

/* The oldest read from the foreground, or -1. */
static int readq_next(void)
{
	for (unsigned i = 0; i < nreads; i++)
		if (fg_serves(reads[i].ev.sender))
			return (int)i;
	return -1;
}

/* Answer read i with what the line discipline has. */
static void readq_answer(unsigned i)
{
	char buf[IN_BUF_MAX];
	bool eof;
	const ipc_event_t *ev = &reads[i].ev;
	size_t want = ev->msg.args[1] < sizeof(buf) ? ev->msg.args[1] : sizeof(buf);
	size_t n = tty_peek(buf, want, &eof);

	if (ipc_data_read_answer(ev, buf, eof ? 0 : n) == EOK)
		tty_consume(eof ? 0 : n, eof);
	readq_remove(i);
}

void readq_serve(void)
{
	int i;

	while (tty_readable() && (i = readq_next()) >= 0)
		readq_answer((unsigned)i);
}

void readq_drop_conn(uint64_t conn)
{
	unsigned k = 0;

	for (unsigned i = 0; i < nreads; i++) {
		if (reads[i].ev.conn == conn)
			ipc_answer_0(reads[i].ev.callid, EHANGUP);
		else
			reads[k++] = reads[i];
	}
	nreads = k;
}

void readq_usage(task_id_t task, unsigned *all, unsigned *mine, unsigned *tree,
		 task_id_t *root)
{
	*root = task_quota_root(task);
	*all = nreads;
	*mine = readq_count(task, false);
	*tree = readq_count(*root, true);
}
