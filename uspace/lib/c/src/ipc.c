/*
 * IPC for user programs (see <ipc.h>): system call wrappers, synchronous
 * calls, data transfer, the naming-service protocol and the server loop.
 */
#include <ipc.h>
#include <string.h>
#include <vernier.h>

#define CONNECT_RETRY_NS 2000000ull     /* service_connect_wait poll period */
/*
 * Tries of a wait or an answer that failed with EFAULT on a buffer of
 * ours (on our stack: the fault passes, e.g. an injected failcopy). The
 * kernel keeps the event queued and the call ours to answer, so trying
 * again loses nothing; giving up at once would lose an answer (and what
 * the server holds for it) or leave a caller waiting for ever.
 */
#define IPC_TRIES 8

/* errno_t of a raw result: EOK for values >= 0. */
static errno_t ipc_err(long r)
{
	return r < 0 ? (errno_t)-r : EOK;
}

/* ------------------------------------------------------ system calls */

errno_t sys_ipc_call(int phone, const ipc_msg_t *msg, ipc_callid_t *id)
{
	long r = __vernier_syscall(SYS_IPC_CALL, phone, (long)msg, 0, 0, 0, 0);

	if (id)
		*id = r >= 0 ? (ipc_callid_t)r : 0;
	return ipc_err(r);
}

errno_t sys_ipc_call_sync(int phone, const ipc_msg_t *msg, ipc_event_t *ev,
			  uint64_t timeout_ns, ipc_callid_t *id)
{
	long r = __vernier_syscall(SYS_IPC_CALL_SYNC, phone, (long)msg, (long)ev,
				   (long)timeout_ns, 0, 0);

	*id = r > 0 ? (ipc_callid_t)r : 0;
	return ipc_err(r);
}

errno_t sys_ipc_call_short(int phone, const ipc_msg_t *msg, ipc_msg_t *answer,
			   uint64_t timeout_ns, ipc_callid_t *id)
{
	unsigned long *w = (unsigned long *)answer;   /* the words in, the answer out */
	long r;

	_Static_assert(sizeof(*answer) == 6 * sizeof(*w), "an answer is the six words");
	w[5] = timeout_ns;                            /* msg may be answer: its words first */
	w[4] = msg->args[2];
	w[3] = msg->args[1];
	w[2] = msg->args[0];
	w[1] = msg->method;
	w[0] = (unsigned long)phone;
	r = __vernier_syscall_words(SYS_IPC_CALL_SHORT, w);
	*id = r > 0 ? (ipc_callid_t)r : 0;
	return ipc_err(r);
}

errno_t sys_ipc_wait(ipc_event_t *ev, uint64_t timeout_ns, unsigned flags,
		     ipc_callid_t callid)
{
	return ipc_err(__vernier_syscall(SYS_IPC_WAIT, (long)ev, (long)timeout_ns,
					 flags, (long)callid, 0, 0));
}

/* sys_ipc_wait into libc's own ev, tried again after EFAULT (IPC_TRIES). */
static errno_t wait_own(ipc_event_t *ev, uint64_t timeout_ns, unsigned flags,
			ipc_callid_t callid)
{
	errno_t rc = EFAULT;

	for (int i = 0; i < IPC_TRIES && rc == EFAULT; i++)
		rc = sys_ipc_wait(ev, timeout_ns, flags, callid);
	return rc;
}

errno_t sys_ipc_answer(ipc_callid_t callid, const ipc_msg_t *answer, int *phone)
{
	long r = __vernier_syscall(SYS_IPC_ANSWER, (long)callid, (long)answer,
				   0, 0, 0, 0);

	if (phone)
		*phone = r >= 0 ? (int)r : -1;
	return ipc_err(r);
}

/* sys_ipc_answer of libc's own answer, tried again after EFAULT (IPC_TRIES). */
static errno_t answer_own(ipc_callid_t callid, const ipc_msg_t *answer)
{
	errno_t rc = EFAULT;

	for (int i = 0; i < IPC_TRIES && rc == EFAULT; i++)
		rc = sys_ipc_answer(callid, answer, NULL);
	return rc;
}

errno_t sys_ipc_answer_wait(ipc_callid_t callid, const ipc_msg_t *answer, ipc_event_t *ev,
			    uint64_t timeout_ns, unsigned flags, bool *answered)
{
	long r = __vernier_syscall(SYS_IPC_ANSWER_WAIT, (long)callid, (long)answer, (long)ev,
				   (long)timeout_ns, flags, 0);

	if (answered)
		*answered = r >= 0;
	return r < 0 ? (errno_t)-r : (errno_t)r;
}

errno_t sys_ipc_forward(ipc_callid_t callid, int phone, uint64_t method,
			uint64_t arg0)
{
	return ipc_err(__vernier_syscall(SYS_IPC_FORWARD, (long)callid, phone,
					 (long)method, (long)arg0, 0, 0));
}

errno_t sys_ipc_caller_perms(ipc_callid_t callid, uint32_t *perms)
{
	long r = __vernier_syscall(SYS_IPC_CALLER_PERMS, (long)callid, 0, 0, 0, 0, 0);

	if (r >= 0)
		*perms = (uint32_t)r;
	return ipc_err(r);
}

errno_t sys_ipc_hangup(int phone)
{
	return ipc_err(__vernier_syscall(SYS_IPC_HANGUP, phone, 0, 0, 0, 0, 0));
}

errno_t sys_ipc_connect_kbox(task_id_t task, int *phone)
{
	long r = __vernier_syscall(SYS_IPC_CONNECT_KBOX, (long)task, 0, 0, 0, 0, 0);

	if (r >= 0 && phone)
		*phone = (int)r;
	return ipc_err(r);
}

/* ------------------------------------------------------ calls */

errno_t ipc_call_async(int phone, uint64_t method, uint64_t a0, uint64_t a1,
		       uint64_t a2, uint64_t a3, uint64_t a4, ipc_callid_t *id)
{
	ipc_msg_t m = { .method = method, .args = { a0, a1, a2, a3, a4 } };

	return sys_ipc_call(phone, &m, id);
}

errno_t ipc_wait_answer(ipc_callid_t id, uint64_t timeout_ns, ipc_msg_t *answer)
{
	ipc_event_t ev;
	errno_t rc = wait_own(&ev, timeout_ns, IPC_WAIT_ANSWER, id);

	if (rc != EOK)
		return rc;
	if (answer)
		*answer = ev.msg;
	return (errno_t)ev.msg.method;
}

/*
 * Send m on phone and wait for its answer (into *answer if not NULL): one
 * SYS_IPC_CALL_SHORT (args 3 and 4 are 0: the message fits the
 * registers) or SYS_IPC_CALL_SYNC, then a wait by id (wait_own) if its
 * own wait failed. As ipc_call_sync.
 */
static errno_t call_msg_sync(int phone, const ipc_msg_t *m, ipc_msg_t *answer)
{
	ipc_event_t ev;
	ipc_callid_t id;
	errno_t rc = m->args[3] || m->args[4] ? sys_ipc_call_sync(phone, m, &ev, 0, &id)
					      : sys_ipc_call_short(phone, m, &ev.msg, 0, &id);

	if (rc == EOK && id)
		rc = wait_own(&ev, 0, IPC_WAIT_ANSWER, id);
	if (rc != EOK)
		return rc;
	if (answer)
		*answer = ev.msg;
	return (errno_t)ev.msg.method;
}

errno_t ipc_call_sync(int phone, uint64_t method, uint64_t a0, uint64_t a1,
		      uint64_t a2, uint64_t a3, uint64_t a4, ipc_msg_t *answer)
{
	ipc_msg_t m = { .method = method, .args = { a0, a1, a2, a3, a4 } };

	return call_msg_sync(phone, &m, answer);
}

/*
 * An answer ipc_server_loop sends with its next wait (SYS_IPC_ANSWER_WAIT,
 * one kernel entry for both). While a loop's handler runs, `open` is the
 * id of the call it handles (a user method: its answer is words only); an
 * ipc_answer_last() of that id, from any thread, claims it (LATER_BUSY), stores
 * the answer and marks it LATER_SET; the loop closes it after the handler
 * (waiting out a claim in progress), so an answer is either stored and
 * sent by the loop or sent at once, never lost. Slots are static (no
 * thread's stack is written by another); a loop without one answers at
 * once.
 */
#define IPC_LATER_SLOTS 8
#define LATER_BUSY UINT64_MAX
#define LATER_SET (UINT64_MAX - 1)

typedef struct ipc_later {
	bool taken;                 /* a loop's */
	uint64_t open;              /* call id, LATER_BUSY, LATER_SET or 0 */
	ipc_callid_t id;            /* the call answered (LATER_SET) */
	ipc_msg_t msg;
} ipc_later_t;

static ipc_later_t ipc_later[IPC_LATER_SLOTS];
static unsigned ipc_later_loops;            /* slots taken: 0 skips the search */

/* A free slot for a loop, or NULL. */
static ipc_later_t *later_claim(void)
{
	for (int i = 0; i < IPC_LATER_SLOTS; i++) {
		bool no = false;
		if (__atomic_compare_exchange_n(&ipc_later[i].taken, &no, true, false,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
			__atomic_add_fetch(&ipc_later_loops, 1, __ATOMIC_RELAXED);
			return &ipc_later[i];
		}
	}
	return NULL;
}

/* Give a loop's slot back. */
static void later_release(ipc_later_t *l)
{
	if (!l)
		return;
	__atomic_sub_fetch(&ipc_later_loops, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&l->taken, false, __ATOMIC_RELEASE);
}

/* Store m as the answer to callid if a loop handles that call now. */
static bool later_take(ipc_callid_t callid, const ipc_msg_t *m)
{
	if (!__atomic_load_n(&ipc_later_loops, __ATOMIC_RELAXED))
		return false;
	for (int i = 0; i < IPC_LATER_SLOTS; i++) {
		ipc_later_t *l = &ipc_later[i];
		uint64_t want = callid;
		if (!__atomic_compare_exchange_n(&l->open, &want, LATER_BUSY, false,
						 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			continue;
		l->id = callid;
		l->msg = *m;
		__atomic_store_n(&l->open, LATER_SET, __ATOMIC_RELEASE);
		return true;
	}
	return false;
}

/* Close l after its handler: whether an answer was stored. */
static bool later_close(ipc_later_t *l)
{
	uint64_t v;

	do {
		while ((v = __atomic_load_n(&l->open, __ATOMIC_ACQUIRE)) == LATER_BUSY)
			;
	} while (!__atomic_compare_exchange_n(&l->open, &v, 0, false, __ATOMIC_ACQ_REL,
					      __ATOMIC_RELAXED));
	return v == LATER_SET;
}

errno_t ipc_answer(ipc_callid_t callid, errno_t retval, uint64_t a0,
		   uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4)
{
	ipc_msg_t m = { .method = (uint64_t)retval, .args = { a0, a1, a2, a3, a4 } };

	return answer_own(callid, &m);
}

errno_t ipc_answer_last(ipc_callid_t callid, errno_t retval, uint64_t a0,
			uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4)
{
	ipc_msg_t m = { .method = (uint64_t)retval, .args = { a0, a1, a2, a3, a4 } };

	if (later_take(callid, &m))
		return EOK;
	return answer_own(callid, &m);
}

errno_t ipc_answer_0(ipc_callid_t callid, errno_t retval)
{
	return ipc_answer(callid, retval, 0, 0, 0, 0, 0);
}

/* ------------------------------------------------------ data transfer */

errno_t ipc_data_write_n(int phone, const void *buf, size_t len, size_t *done)
{
	ipc_msg_t m = { .method = IPC_M_DATA_WRITE,
			.args = { (uint64_t)(uintptr_t)buf, len } };

	if (len > IPC_DATA_MAX)
		return E2BIG;
	errno_t rc = call_msg_sync(phone, &m, &m);
	if (rc == EOK && done)
		*done = (size_t)m.args[1];
	return rc;
}

errno_t ipc_data_write(int phone, const void *buf, size_t len)
{
	return ipc_data_write_n(phone, buf, len, NULL);
}

errno_t ipc_data_read(int phone, void *buf, size_t len, size_t *got)
{
	ipc_msg_t m = { .method = IPC_M_DATA_READ,
			.args = { (uint64_t)(uintptr_t)buf, len } };

	if (len > IPC_DATA_MAX)
		return E2BIG;
	errno_t rc = call_msg_sync(phone, &m, &m);
	if (rc == EOK && got)
		*got = (size_t)m.args[1];
	return rc;
}

/* Answer the data call ev with EOK and (buf, len); *len gets what moves. */
static errno_t data_answer(const ipc_event_t *ev, uint64_t method,
			   const void *buf, size_t len, size_t *moved)
{
	if (ev->type != IPC_EV_CALL || ev->msg.method != method)
		return EINVAL;
	if (len > IPC_DATA_MAX)
		len = IPC_DATA_MAX;
	ipc_msg_t m = { .method = EOK, .args = { (uint64_t)(uintptr_t)buf, len } };
	errno_t rc = answer_own(ev->callid, &m);
	if (rc == EOK && moved)
		*moved = len < ev->msg.args[1] ? len : (size_t)ev->msg.args[1];
	return rc;
}

errno_t ipc_data_write_accept(const ipc_event_t *ev, void *dst, size_t maxlen,
			      size_t *len)
{
	return data_answer(ev, IPC_M_DATA_WRITE, dst, maxlen, len);
}

errno_t ipc_data_read_answer(const ipc_event_t *ev, const void *src, size_t len)
{
	return data_answer(ev, IPC_M_DATA_READ, src, len, NULL);
}

/* ------------------------------------------------------ naming service */

errno_t ipc_name_pack(const char *name, uint64_t args[IPC_ARGS])
{
	size_t n = strlen(name);

	if (n == 0 || n > IPC_NAME_MAX)
		return EINVAL;
	memset(args, 0, IPC_ARGS * sizeof(args[0]));
	for (size_t i = 0; i < n; i++)
		args[i / 8] |= (uint64_t)(uint8_t)name[i] << (8 * (i % 8));
	return EOK;
}

errno_t ipc_name_unpack(const uint64_t args[IPC_ARGS], char *out)
{
	size_t n = 0;
	bool ended = false;

	for (size_t i = 0; i < 8 * IPC_ARGS; i++) {
		char c = (char)(args[i / 8] >> (8 * (i % 8)));
		if (c == '\0')
			ended = true;
		else if (ended)
			return EINVAL;          /* bytes after the end */
		else
			n++;
	}
	if (n == 0 || n > IPC_NAME_MAX)
		return EINVAL;
	for (size_t i = 0; i < n; i++)
		out[i] = (char)(args[i / 8] >> (8 * (i % 8)));
	out[n] = '\0';
	return EOK;
}

/*
 * Send a naming-service request about name and wait for the answer.
 * *sent tells whether the call reached the naming service at all.
 */
static errno_t ns_request(uint64_t method, const char *name, ipc_msg_t *answer,
			  bool *sent)
{
	ipc_msg_t m = { .method = method };
	ipc_callid_t id;

	*sent = false;
	errno_t rc = ipc_name_pack(name, m.args);
	if (rc == EOK)
		rc = sys_ipc_call(IPC_NS_PHONE, &m, &id);
	if (rc != EOK)
		return rc;
	*sent = true;
	return ipc_wait_answer(id, 0, answer);
}

errno_t service_register(const char *name)
{
	bool sent;

	return ns_request(IPC_M_CONNECT_TO_ME, name, NULL, &sent);
}

errno_t service_release(const char *name)
{
	bool sent;

	return ns_request(NS_M_RELEASE, name, NULL, &sent);
}

errno_t ns_status(task_id_t task, ns_status_t *st)
{
	ipc_msg_t a;
	errno_t rc = ipc_call_sync(IPC_NS_PHONE, NS_M_STATUS, task, 0, 0, 0, 0, &a);

	if (rc != EOK)
		return rc;
	*st = (ns_status_t){ (unsigned)a.args[0], (unsigned)a.args[1],
		(unsigned)a.args[2], a.args[3], (unsigned)a.args[4] };
	return EOK;
}

/* service_connect that says whether the naming service was reached. */
static errno_t connect_once(const char *name, int *phone, bool *sent)
{
	ipc_msg_t a;
	errno_t rc = ns_request(IPC_M_CONNECT_ME_TO, name, &a, sent);

	if (rc == EOK && phone)
		*phone = (int)a.args[4];
	return rc;
}

errno_t service_connect(const char *name, int *phone)
{
	bool sent;

	return connect_once(name, phone, &sent);
}

errno_t service_connect_wait(const char *name, uint64_t timeout_ns, int *phone)
{
	uint64_t now = sys_clock_ns(CLOCK_MONOTONIC);
	uint64_t deadline = timeout_ns > UINT64_MAX - now ? UINT64_MAX : now + timeout_ns;

	for (;;) {
		bool sent;
		errno_t rc = connect_once(name, phone, &sent);
		/* Not registered yet, or its server just died: try again. */
		if (!sent || (rc != ENOENT && rc != EHANGUP))
			return rc;
		if (timeout_ns && sys_clock_ns(CLOCK_MONOTONIC) >= deadline)
			return ETIMEOUT;
		if ((rc = sys_sleep_ns(CONNECT_RETRY_NS)) != EOK)
			return rc;
	}
}

/* ------------------------------------------------------ servers */

/*
 * handler(ctx, ev); an answer to a user method's call left in l (if l):
 * *have then says l holds it, to go with the next wait. Its result.
 */
static int later_handle(ipc_later_t *l, ipc_handler_t handler, void *ctx,
			const ipc_event_t *ev, bool *have)
{
	bool open = l && ev->type == IPC_EV_CALL && ev->msg.method >= IPC_M_USER;

	if (open)
		__atomic_store_n(&l->open, ev->callid, __ATOMIC_RELEASE);
	int stop = handler(ctx, ev);
	*have = open && later_close(l);
	if (*have && stop)
		answer_own(l->id, &l->msg);     /* no next wait to send it with */
	return stop;
}

/* Send l's answer (if its handler left one) and wait for the next call into ev. */
static errno_t later_answer_wait(ipc_later_t *l, bool have, ipc_event_t *ev)
{
	bool answered;

	if (!have)
		return wait_own(ev, 0, IPC_WAIT_CALLS, 0);
	errno_t rc = sys_ipc_answer_wait(l->id, &l->msg, ev, 0, IPC_WAIT_CALLS, &answered);
	if (!answered)                          /* e.g. EFAULT on ev: answer, then wait */
		answer_own(l->id, &l->msg);
	if (!answered || rc == EFAULT)
		rc = wait_own(ev, 0, IPC_WAIT_CALLS, 0);
	return rc;
}

errno_t ipc_server_loop(ipc_handler_t handler, void *ctx)
{
	ipc_event_t ev;
	ipc_later_t *l = later_claim();
	errno_t rc = wait_own(&ev, 0, IPC_WAIT_CALLS, 0);

	while (rc == EOK) {
		bool have = false;
		bool watch = ev.type == IPC_EV_CALL && ev.msg.method == NS_M_WATCH;
		if (!watch && later_handle(l, handler, ctx, &ev, &have) != 0)
			break;                      /* WATCH: left unanswered on purpose */
		rc = later_answer_wait(l, have, &ev);
	}
	later_release(l);
	return rc;
}
