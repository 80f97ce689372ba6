/*
 * /bin/fs: /dev/kpctl and /dev/kpdata, Inferno's kprof device (see
 * <lib/kprof.h> for kpdata's layout). `start` opens a whole-system
 * session of the statistical profiler on our own kbox (init gives fs
 * PERM_PROFILE) and starts a reader thread that counts every sample's PC
 * into the histogram: every tick counts in the total, ticks outside the
 * kernel text (user mode) in word 1, kernel and idle-thread PCs in their
 * buckets, laid out over the text range of the stream's header. `stop`
 * ends the session and joins the thread (the histogram stays, and the
 * server waits for the stream to drain: a few hundred ms at most);
 * `startclr` zeroes the counts and starts. kpdata is empty until the
 * first session's header has come.
 *
 * Threads: the server thread owns the session state; the reader thread
 * alone writes the counts (kprof_hist_count's relaxed atomics), and
 * publishes the layout once (kp_ready, release). Clearing and laying out
 * happen only while no reader thread runs.
 *
 * Writes to kpctl: an IPC data write can only be refused before its bytes
 * are seen, so all bytes but the last are taken first (the client's write
 * loop sends the last in a second call). The bytes so far decide: that
 * call is refused with ENOTSUP when they cannot begin a command, else the
 * command runs and the call is answered with its result (taking the last
 * byte). So errors of start (EBUSY: another system session runs) reach
 * the writer; only the last byte is taken on trust (a write of "stoq"
 * stops, "stop\n" and "start\n" from echo are checked in full).
 *
 * fs holds PERM_PROFILE for this device only: every write to kpctl and
 * every read of kpdata is refused with EPERM unless the calling task
 * (asked of the kernel with sys_ipc_caller_perms on the call) has the
 * profile permission too.
 */
#include <fcntl.h>
#include <prof.h>
#include <string.h>
#include <thread.h>
#include <vernier.h>
#include <lib/kprof.h>

#include "serve.h"

static uint32_t kp_words[KPROF_BUCKETS_MAX];
static kprof_hist_t kp_hist = { .words = kp_words };
static bool kp_ready;                   /* kp_hist laid out (reader: release) */
static int kp_phone = -1;               /* the session's phone, -1: none */
static thread_id_t kp_tid;
static volatile bool kp_failed;         /* the reader saw an error */
static uint8_t kp_stream[2 * PROF_READ_MIN];
static uint8_t kp_out[IPC_DATA_MAX];

#define KP_START 0
#define KP_STOP 1
#define KP_STARTCLR 2
static const char *const kp_cmds[] = { "start", "stop", "startclr" };

/* ------------------------------------------------------ the reader thread */

static void kp_header(const prof_rec_header_t *h)
{
	if (__atomic_load_n(&kp_ready, __ATOMIC_ACQUIRE))
		return;
	uint32_t uspt = h->hz ? 1000000 / h->hz : 0;
	if (kprof_hist_init(&kp_hist, h->ktext_start, h->ktext_end, uspt) == EOK)
		__atomic_store_n(&kp_ready, true, __ATOMIC_RELEASE);
}

/* Count the samples among the got bytes of records in kp_stream. */
static void kp_records(size_t got)
{
	for (size_t at = 0; at + sizeof(prof_rec_t) <= got;) {
		const prof_rec_t *r = (const void *)(kp_stream + at);
		if (r->size < sizeof(prof_rec_t) || at + r->size > got)
			return;
		if (r->type == PROF_REC_HEADER && r->size >= sizeof(prof_rec_header_t))
			kp_header((const void *)r);
		else if (r->type == PROF_REC_SAMPLE && kp_ready &&
			 r->size >= sizeof(prof_rec_sample_t))
			kprof_hist_count(&kp_hist, ((const prof_rec_sample_t *)r)->pc);
		at += r->size;
	}
}

/* Read the session's stream until it has ended and is drained. */
static long kp_reader(void *arg)
{
	int phone = (int)(intptr_t)arg;
	size_t got = 0;
	unsigned state = PROF_STATE_RUNNING;

	while (state != PROF_STATE_ENDED || got > 0) {
		if (prof_read(phone, kp_stream, sizeof(kp_stream), &got, &state) != EOK) {
			kp_failed = true;
			return 1;
		}
		kp_records(got);
	}
	return 0;
}

/* ------------------------------------------------------ control */

static void kp_stop(void)
{
	if (kp_phone < 0)
		return;
	prof_end(kp_phone);
	thread_join(kp_tid, NULL);
	prof_disconnect(kp_phone);
	kp_phone = -1;
}

static errno_t kp_start(void)
{
	prof_params_t p = { .source = PROF_SRC_DEFAULT, .hz = PROF_HZ_DEFAULT };
	int phone;

	if (kp_phone >= 0 && kp_failed)
		kp_stop();                 /* its reader gave up: begin again */
	if (kp_phone >= 0)
		return EOK;                /* running already */
	errno_t rc = prof_connect(sys_task_id(), &phone);
	if (rc != EOK)
		return rc;
	rc = prof_system_begin(phone, &p, NULL, NULL);
	kp_failed = false;
	if (rc == EOK)
		rc = thread_start(kp_reader, (void *)(intptr_t)phone, &kp_tid);
	if (rc != EOK) {
		prof_disconnect(phone);
		return rc;
	}
	kp_phone = phone;
	return EOK;
}

/* Run kp_cmds[cmd]. */
static errno_t kp_run(int cmd)
{
	if (cmd == KP_STOP) {
		kp_stop();
		return EOK;
	}
	if (cmd == KP_STARTCLR) {
		kp_stop();
		if (kp_ready)
			kprof_hist_clear(&kp_hist);
	}
	return kp_start();
}

/*
 * The command (KP_*) that the len bytes at s and one more byte can be:
 * the command's name without its last letter, or the name (and '\n');
 * -1 for none.
 */
static int kp_prefix_cmd(const char *s, size_t len)
{
	for (int i = 0; i < (int)(sizeof(kp_cmds) / sizeof(kp_cmds[0])); i++) {
		size_t n = strlen(kp_cmds[i]);
		if ((len + 1 == n || len == n) && !memcmp(s, kp_cmds[i], len))
			return i;
	}
	return -1;
}

/* ------------------------------------------------------ the files */

/* Has the task that made call ev the profile permission? Else answer EPERM. */
static bool kp_caller_may(const ipc_event_t *ev)
{
	uint32_t perms = 0;

	if (sys_ipc_caller_perms(ev->callid, &perms) == EOK && (perms & PERM_PROFILE))
		return true;
	ipc_answer_0(ev->callid, EPERM);
	return false;
}

void fs_kprof_write(handle_t *h, const ipc_event_t *ev)
{
	size_t len = (size_t)ev->msg.args[1], got = 0;

	if (!kp_caller_may(ev)) {
		h->ctl_len = 0;
		return;
	}
	if (len == 0) {
		ipc_data_write_accept(ev, h->ctl, 0, NULL);
		return;
	}
	if (h->ctl_len + len > sizeof(h->ctl)) {
		h->ctl_len = 0;
		ipc_answer_0(ev->callid, ENOTSUP);
		return;
	}
	if (len > 1) {                     /* the last byte comes in the next call */
		if (ipc_data_write_accept(ev, h->ctl + h->ctl_len, len - 1, &got) == EOK)
			h->ctl_len += got;
		return;
	}
	int cmd = kp_prefix_cmd(h->ctl, h->ctl_len);
	errno_t rc = cmd < 0 ? ENOTSUP : kp_run(cmd);
	h->ctl_len = 0;
	if (rc == EOK)
		ipc_data_write_accept(ev, h->ctl, 1, NULL);
	else
		ipc_answer_0(ev->callid, rc);
}

size_t fs_kprof_size(void)
{
	if (!__atomic_load_n(&kp_ready, __ATOMIC_ACQUIRE))
		return 0;
	return (size_t)kp_hist.nbuckets * KPROF_WORD;
}

void fs_kprof_read(const ipc_event_t *ev)
{
	size_t len = (size_t)ev->msg.args[1];
	size_t n = 0;

	if (!kp_caller_may(ev))
		return;
	if (len > sizeof(kp_out))
		len = sizeof(kp_out);
	if (fs_kprof_size() > 0)
		n = kprof_hist_encode(&kp_hist, ev->msg.args[4], kp_out, len);
	ipc_data_read_answer(ev, kp_out, n);
}

errno_t fs_kprof_open(client_t *c, node_t *n, uint32_t flags, uint64_t *h)
{
	uint32_t mode = flags & O_ACCMODE;

	if (flags & O_DIRECTORY)
		return ENOTDIR;
	if (n->dev == FS_DEV_KPCTL ? mode != O_WRONLY : mode != O_RDONLY)
		return EPERM;
	return fs_handle_new(c, n, flags, h);
}
