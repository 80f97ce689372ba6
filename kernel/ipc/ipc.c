/*
 * IPC core: calls, answers, forwarding, hang-up and task death.
 * See kernel/ipc.h; the kernel's own answerbox is kbox.c. Lock order: task table lock → phones_lock → box lock
 * (the table lock only to slam the phones of a dead task); never two box
 * locks at once (a call is taken out of one box before entering another).
 *
 * Bounds: a box holds at most LIMIT_BOX_CALLS calls queued or taken and
 * not answered (the shared kbox server's is bounded by its callers'
 * limits instead; hang-up notifications always pass: each ends a
 * connection the box's owner accepted); a call counts against its
 * phone (IPC_PHONE_LIMIT) and its task (LIMIT_BOX_ANSWERS) until its
 * answer has been read, so unread answers are bounded too.
 */
#include <abi/limits.h>
#include <kernel/failinj.h>
#include <kernel/ipc.h>
#include <kernel/origin_ipc.h>
#include <kernel/printk.h>
#include <kernel/task.h>
#include <kernel/trace.h>
#include <kernel/vm.h>
#include <kernel/vm_space.h>
#include <lib/string.h>
#include "internal.h"


static volatile uint64_t ipc_next_id = 1;
static volatile uint64_t ipc_next_conn = 1;
static task_t *naming_service;

/* An empty, open box owned by owner. */
void box_init(answerbox_t *b, task_t *owner)
{
	waitq_init(&b->wq);
	b->task = owner;
	list_init(&b->calls);
	list_init(&b->answers);
	list_init(&b->dispatched);
	b->closed = false;
}

/*
 * Calls come from a static pool first, then from the heap. The pool
 * costs no kmalloc, kfree or poison fill, and a pool call freed on any
 * CPU goes back with one atomic OR (a bit per call: set = free). What the
 * heap holds does not depend on where calls were freed, as it did with
 * per-CPU caches of heap calls: a leak check compares heap pages.
 */
#define CALL_POOL 64
static call_t call_pool[CALL_POOL];
static uint64_t call_pool_free = ~0ull;

/* A call from the pool, else from the heap; NULL: no memory. */
static call_t *call_alloc(void)
{
	if (failinj_hit(FAILINJ_SLAB))       /* injected as if it were a kmalloc */
		return NULL;
	uint64_t m = __atomic_load_n(&call_pool_free, __ATOMIC_RELAXED);
	while (m) {
		unsigned i = (unsigned)__builtin_ctzll(m);
		if (__atomic_compare_exchange_n(&call_pool_free, &m, m & ~(1ull << i), false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			return &call_pool[i];
	}
	return kmalloc(sizeof(call_t));
}

/* Give c back to the pool or the heap. */
static void call_release(call_t *c)
{
	if (c >= call_pool && c < call_pool + CALL_POOL)
		__atomic_or_fetch(&call_pool_free, 1ull << (c - call_pool), __ATOMIC_RELEASE);
	else
		kfree(c);
}

/* Free c and drop its task references. */
void call_free(call_t *c)
{
	if (c->caller)
		task_unref(c->caller);
	if (c->kbox_of)
		task_unref(c->kbox_of);
	origin_put(&c->origin);
	call_release(c);
}

/*
 * The direct transfer (L4's): a call or an answer that a thread asleep in
 * box_wait on b wants goes straight to it (t->ipc_handed), not into a
 * list of b's, and only that thread is woken. A call needs the first
 * waiter that takes calls and no call queued before it; an answer its
 * caller thread, waiting for it by id or for anything with no answer
 * queued before it. The kbox server's box has no box_wait sleepers.
 * Box locked.
 */
static thread_t *box_receiver(answerbox_t *b)
{
	if (b == &kbox_server || !list_empty(&b->calls))
		return NULL;
	list_foreach(&b->wq.waiters, it) {
		thread_t *t = list_entry(it, thread_t, wait_node);
		if (t->ipc_wait_mode != IPC_WAIT_ANSWER)
			return t;
	}
	return NULL;
}

/* c's caller thread by, if it sleeps on b for c's answer (box_receiver). */
static thread_t *box_answer_waiter(answerbox_t *b, const call_t *c, const thread_t *by)
{
	if (b == &kbox_server)
		return NULL;
	list_foreach(&b->wq.waiters, it) {
		thread_t *t = list_entry(it, thread_t, wait_node);
		if (t != by)                 /* by may have exited: compared, never read */
			continue;
		return (t->ipc_wait_mode == IPC_WAIT_ANSWER && t->ipc_wait_only == c->id) ||
		       (t->ipc_wait_mode == IPC_WAIT_ALL && list_empty(&b->answers)) ? t : NULL;
	}
	return NULL;
}

/* Hand c to t (box_receiver's or box_answer_waiter's) and wake t alone. Box locked. */
static void box_hand(answerbox_t *b, thread_t *t, call_t *c, bool answer, const thread_t *to)
{
	if (!answer) {                       /* dispatched and claimed, as box_take does */
		c->taking = true;
		list_append(&b->dispatched, &c->node);
		b->ncalls++;
	}
	t->ipc_handed = c;
	t->ipc_handed_answer = answer;
	waitq_wake_thread_locked(t, to);
}

/*
 * Hand c to a thread waiting for it on b (box_hand), else append it to
 * one of b's lists and wake its waiters; to (if not NULL; or WAITQ_FIRST)
 * with a hand-off (waitq_wake_all_locked_to): its waker is about to
 * block. EOK, EHANGUP (the box is closed) or ELIMIT (limited, c is a call
 * and the box is full).
 */
errno_t box_put(answerbox_t *b, list_t *which_of_box, call_t *c, bool limited,
		const thread_t *to)
{
	bool call = which_of_box == &b->calls;
	uint64_t f = spin_lock_irqsave(&b->wq.lock);
	errno_t rc = b->closed ? EHANGUP
		     : call && limited && b->ncalls >= LIMIT_BOX_CALLS ? ELIMIT : EOK;
	thread_t *t = rc != EOK ? NULL
		      : call ? (c->type == IPC_EV_CALL ? box_receiver(b) : NULL)
			     : box_answer_waiter(b, c, to);
	if (t) {
		box_hand(b, t, c, !call, to);
	} else if (rc == EOK) {
		list_append(which_of_box, &c->node);
		b->ncalls += call;
		if (to)
			waitq_wake_all_locked_to(&b->wq, to);
		else
			waitq_wake_all_locked(&b->wq);
	}
	spin_unlock_irqrestore(&b->wq.lock, f);
	return rc;
}

/* One call fewer held by b (box locked). */
void box_uncount(answerbox_t *b)
{
	if (b->ncalls)
		b->ncalls--;
}

/*
 * c's answer was read, or never will be: it no longer counts against
 * its phone (the connection's, not the slot's) and its task.
 */
static void call_answer_done(call_t *c)
{
	task_t *caller = c->caller;
	phone_t *p = &caller->ipc.phones[c->phone];

	uint64_t f = spin_lock_irqsave(&caller->ipc.phones_lock);
	if (p->conn == c->conn && p->outstanding)
		p->outstanding--;
	if (caller->ipc.unread)
		caller->ipc.unread--;
	spin_unlock_irqrestore(&caller->ipc.phones_lock, f);
}

/* Give c's answer to its caller (or drop it if the caller is gone). */
void call_deliver_answer(call_t *c)
{
	task_t *caller = c->caller;

	if (box_put(&caller->ipc.box, &caller->ipc.box.answers, c, false, c->by) == EOK) {
		__atomic_add_fetch(&caller->ipc.counters.answers_received, 1, __ATOMIC_RELAXED);
	} else {
		call_answer_done(c);
		call_free(c);
	}
}

static __attribute__((noinline, cold)) void call_answer_with(call_t *c, errno_t rc)
{
	memset(&c->answer, 0, sizeof(c->answer));
	c->answer.method = (uint64_t)rc;
	call_deliver_answer(c);
}

static answerbox_t *call_box(call_t *c, task_t *target)
{
	return c->kbox_of ? &kbox_server : &target->ipc.box;
}

/*
 * Queue a call in target's box (handing off to a waiting server when
 * waits: the sender blocks for the answer next); a closed box answers
 * EHANGUP at once. EOK, or ELIMIT (the box is full: c is still the
 * sender's).
 */
static errno_t call_send(call_t *c, task_t *target, bool waits)
{
	answerbox_t *b = call_box(c, target);
	errno_t rc = box_put(b, &b->calls, c, b != &kbox_server, waits ? WAITQ_FIRST : NULL);

	if (rc == EOK)
		__atomic_add_fetch(&target->ipc.counters.calls_received, 1, __ATOMIC_RELAXED);
	else if (rc == EHANGUP)
		call_answer_with(c, EHANGUP);
	return rc == ELIMIT ? ELIMIT : EOK;
}

void ipc_set_naming_service(task_t *t)
{
	naming_service = t;
}

/*
 * Connect a free phone of t to target (referenced by the caller). Returns
 * the phone, -ELIMIT (none free) or -EHANGUP (t or target is dying: a
 * target's death slams every phone to it, ipc_slam_phones_to, and a phone
 * added after that would pin it). A kbox phone's target is the kernel,
 * and it keeps bye, its hang-up notice (the phone's on success).
 */
static int phone_connect(task_t *t, task_t *target, task_t *kbox_of, call_t *bye)
{
	uint64_t f = spin_lock_irqsave(&t->ipc.phones_lock);
	bool dead = t->ipc.dead || (target != &kernel_task &&
				    __atomic_load_n(&target->ipc.dead, __ATOMIC_SEQ_CST));
	int found = dead ? -EHANGUP : -ELIMIT;
	for (int i = 0; i < IPC_MAX_PHONES && !dead; i++) {
		phone_t *p = &t->ipc.phones[i];
		if (p->target || p->slammed)
			continue;
		p->target = target;
		p->kbox_of = kbox_of;
		p->bye = bye;
		p->outstanding = 0;
		p->conn = __atomic_fetch_add(&ipc_next_conn, 1, __ATOMIC_RELAXED);
		found = i;
		break;
	}
	spin_unlock_irqrestore(&t->ipc.phones_lock, f);
	return found;
}

void ipc_task_init(task_t *t)
{
	box_init(&t->ipc.box, t);
	t->ipc.phones_lock = (spinlock_t)SPINLOCK_INIT("phones");
	task_t *ns = naming_service;
	if (ns && ns != t && ns->state == TASK_ALIVE) {
		task_ref(ns);
		if (phone_connect(t, ns, NULL, NULL) < 0)
			task_unref(ns);
	}
}

/* A new call from caller's phone (a notification if caller is NULL); NULL: no memory. */
call_t *call_new(task_t *caller, int phone, const ipc_msg_t *msg)
{
	call_t *c = call_alloc();
	if (!c)
		return NULL;
	/* Every field but the origin's hops, read only when its task is set (origin.h). */
	c->id = __atomic_fetch_add(&ipc_next_id, 1, __ATOMIC_RELAXED);
	c->type = caller ? IPC_EV_CALL : IPC_EV_NOTIFY;
	c->caller = caller;
	if (caller)
		task_ref(caller);
	c->phone = phone;
	c->taking = false;
	c->by = NULL;
	c->kbox_of = NULL;
	c->conn = 0;
	c->sender = caller ? caller->id : 0;
	c->msg = *msg;                      /* c->answer: set before it is delivered */
	c->origin.task = NULL;
	c->origin.thread = 0;
	c->origin.stack = NULL;
	c->origin.nhops = c->origin.depth = 0;
	return c;
}

static bool ipc_method_allowed(const ipc_msg_t *m)
{
	if (m->method == IPC_M_PHONE_HUNGUP || m->method == IPC_M_IRQ)
		return false;
	if (m->method == IPC_M_DATA_WRITE || m->method == IPC_M_DATA_READ)
		return m->args[1] <= IPC_DATA_MAX;
	return true;
}

int64_t ipc_call(int phone, const ipc_msg_t *msg, bool waits)
{
	task_t *me = task_current();

	if (phone < 0 || phone >= IPC_MAX_PHONES || !ipc_method_allowed(msg))
		return -EINVAL;
	uint64_t f = spin_lock_irqsave(&me->ipc.phones_lock);
	phone_t *p = &me->ipc.phones[phone];
	task_t *target = p->target;
	errno_t rc = !target && !p->slammed ? ENOENT
		     : p->outstanding >= IPC_PHONE_LIMIT ? ELIMIT
		     : me->ipc.unread >= LIMIT_BOX_ANSWERS ? ELIMIT : EOK;
	call_t *c = rc == EOK ? call_new(me, phone, msg) : NULL;
	if (rc == EOK && !c)
		rc = ENOMEM;
	if (rc == EOK) {
		p->outstanding++;
		me->ipc.unread++;
		c->conn = p->conn;
		if ((c->kbox_of = p->kbox_of))
			task_ref(c->kbox_of);
		if (target)
			task_ref(target);  /* held while sending */
	}
	spin_unlock_irqrestore(&me->ipc.phones_lock, f);
	if (rc != EOK)
		return -rc;
	thread_t *th = thread_current();         /* c is still ours alone: */
	origin_of_caller(&c->origin, c->id, th->id, &th->serve);
	ipc_callid_t id = c->id;
	th->call_id = id;                        /* for its wait (ipc_wait_why) */
	th->call_task = target ? target->id : 0;
	th->call_method = msg->method;
	c->by = th;
	if (trace_wants(PROF_F_TRACE_IPC))
		trace_ipc(PROF_TR_CALL, id, msg->method, target ? target->id : 0, 0);
	if (!target) {                       /* slammed: its callee died */
		call_answer_with(c, EHANGUP);
		return (int64_t)id;
	}
	rc = call_send(c, target, waits);
	task_unref(target);
	if (rc != EOK) {                     /* its box is full: undo */
		call_answer_done(c);
		call_free(c);
		return -rc;
	}
	__atomic_add_fetch(&me->ipc.counters.calls_sent, 1, __ATOMIC_RELAXED);
	return (int64_t)id;
}

/*
 * The event wanted by the filter, removed from the box; *answer tells an
 * answer from a call. A call goes to the dispatched list at once, claimed
 * (taking: no answer, forward or permission look-up finds it until its
 * waiter is done, ipc_wait); a notification no longer counts in ncalls.
 * Box locked.
 */
static inline __attribute__((always_inline)) call_t *box_take(answerbox_t *b, unsigned flags, ipc_callid_t only, bool *answer)
{
	unsigned mode = flags & 0xff;
	*answer = false;
	if (mode != IPC_WAIT_CALLS) {
		list_foreach(&b->answers, it) {
			call_t *c = list_entry(it, call_t, node);
			if (mode == IPC_WAIT_ANSWER && c->id != only)
				continue;
			list_remove(it);
			*answer = true;
			return c;
		}
	}
	if (mode == IPC_WAIT_ANSWER || list_empty(&b->calls))
		return NULL;
	call_t *c = list_entry(list_first(&b->calls), call_t, node);
	list_remove(&c->node);
	if (c->type == IPC_EV_CALL) {
		c->taking = true;
		list_append(&b->dispatched, &c->node);
	} else {
		box_uncount(b);
	}
	return c;
}

static void event_fill(ipc_event_t *ev, const call_t *c, bool answer)
{
	ev->reserved = 0;
	ev->type = answer ? IPC_EV_ANSWER : c->type;
	ev->callid = c->id;
	ev->sender = c->sender;
	ev->conn = c->conn;
	ev->msg = answer ? c->answer : c->msg;
}

/*
 * Why the current thread waits in box_wait (abi/wait.h): for the answer
 * to its call only (the callee and method it called, when that call was
 * its last), else for events in its box.
 */
static unsigned ipc_wait_why(unsigned flags, ipc_callid_t only)
{
	thread_t *t = thread_current();

	t->ipc_wait_mode = (uint8_t)(flags & 0xff);  /* for a direct transfer (box_hand) */
	t->ipc_wait_only = only;
	if ((flags & 0xff) != IPC_WAIT_ANSWER)
		return WAIT_WHY_RECV;
	t->wait_task = only == t->call_id ? t->call_task : 0;
	t->wait_method = only == t->call_id ? t->call_method : 0;
	return WAIT_WHY_IPC;
}

/* What a direct transfer handed the current thread asleep (box_hand), taken; NULL: none. Box locked. */
static inline call_t *box_handed(bool *answer)
{
	thread_t *t = thread_current();
	call_t *c = t->ipc_handed;

	t->ipc_handed = NULL;
	*answer = t->ipc_handed_answer;
	return c;
}

/*
 * Wait for the event the filter wants and take it (box_take, or handed
 * to this thread asleep: box_hand) into *out.
 */
static inline __attribute__((always_inline)) errno_t box_wait(answerbox_t *b, uint64_t timeout_ns, unsigned flags,
			ipc_callid_t only, call_t **out, bool *answer)
{
	uint64_t f = spin_lock_irqsave(&b->wq.lock);
	errno_t rc = EOK;

	while (!(*out = box_take(b, flags, only, answer))) {
		if (flags & IPC_WAIT_NONBLOCK) {
			rc = EAGAIN;
			break;
		}
		rc = waitq_sleep_why(&b->wq, &f, timeout_ns, ipc_wait_why(flags, only));
		if ((*out = box_handed(answer)))     /* woken for it: rc is EOK */
			break;
		if (rc != EOK)
			break;
	}
	spin_unlock_irqrestore(&b->wq.lock, f);
	return rc;
}

/*
 * Drop an event read or nobody can receive any more (its box closed
 * meanwhile); in one interrupts-off section for the locks it takes.
 */
static void event_drop(call_t *c, bool answer)
{
	uint64_t f = irq_save();

	if (answer)
		call_answer_done(c);
	if (!answer && c->type == IPC_EV_CALL)
		call_answer_with(c, EHANGUP);
	else
		call_free(c);
	irq_restore(f);
}

/*
 * The copy-out of c (taken by box_take; call: a call, so dispatched and
 * claimed) failed: back at the head of its list, counted again, its
 * waiters woken; or dropped if b closed meanwhile (a call: the closing
 * answered it). A box closes when its task's last thread has exited
 * (ipc_task_cleanup), so not while one of them is in ipc_wait: that case
 * is kept for safety.
 */
static __attribute__((noinline, cold)) void box_untake(answerbox_t *b, call_t *c, bool answer, bool call)
{
	uint64_t f = spin_lock_irqsave(&b->wq.lock);
	bool closed = b->closed;

	if (!closed) {
		if (call) {
			c->taking = false;
			list_remove(&c->node);
		}
		list_prepend(answer ? &b->answers : &b->calls, &c->node);
		b->ncalls += !answer && !call;
		waitq_wake_all_locked(&b->wq);
	}
	spin_unlock_irqrestore(&b->wq.lock, f);
	if (closed && !call)
		event_drop(c, answer);
}

/* Take the event the filter wants from my box into *c (box_wait), holding no served origin. */
static inline __attribute__((always_inline)) errno_t ipc_wait_take(uint64_t timeout_ns, unsigned flags, ipc_callid_t only,
			     call_t **c, bool *answer)
{
	origin_serve_wait();                 /* no served origin held while waiting */
	return box_wait(&task_current()->ipc.box, timeout_ns, flags, only, c, answer);
}

/* Answer c, taken by ipc_wait_take, was read: its trace event, then it is freed. */
static inline __attribute__((always_inline)) void ipc_answer_read(call_t *c)
{
	if (trace_wants(PROF_F_TRACE_IPC))
		trace_ipc(PROF_TR_ANSWERED, c->id, c->msg.method, 0, (uint32_t)c->answer.method);
	event_drop(c, true);
}

/* Copy the event c taken by ipc_wait_take to uev: as ipc_wait's end. */
static inline __attribute__((always_inline)) errno_t ipc_wait_give(void *uev, call_t *c, bool answer)
{
	bool call = !answer && c->type == IPC_EV_CALL;
	ipc_event_t ev;

	event_fill(&ev, c, answer);
	if (copy_to_user(uev, &ev, sizeof(ev)) != EOK) {
		box_untake(&task_current()->ipc.box, c, answer, call);
		return EFAULT;
	}
	if (answer) {
		ipc_answer_read(c);
		return EOK;
	}
	if (!call) {
		event_drop(c, false);            /* a notification read: freed */
		return EOK;
	}
	/* c is claimed (taking), still ours alone: serving starts */
	origin_serve_call(c->id, c->msg.method, &c->origin, c->caller, c->sender);
	if (trace_wants(PROF_F_TRACE_IPC))
		trace_ipc(PROF_TR_RECEIVE, c->id, c->msg.method, c->sender, 0);
	__atomic_store_n(&c->taking, false, __ATOMIC_RELEASE);
	return EOK;
}

errno_t ipc_wait(void *uev, uint64_t timeout_ns, unsigned flags, ipc_callid_t only)
{
	bool answer;
	call_t *c;
	errno_t rc = ipc_wait_take(timeout_ns, flags, only, &c, &answer);

	return rc != EOK ? rc : ipc_wait_give(uev, c, answer);
}

/*
 * The kernel halves of ipc_call_wait and ipc_answer_wait run in one
 * interrupts-off section (their locks nest in it): each outermost
 * section costs two cycle-counter reads for the interrupts-off
 * measurement (irqlat). The user copies stay outside.
 *
 * ipc_call_take is the call's half of ipc_call_wait and ipc_call_short:
 * ipc_call(phone, msg, waits) and the take of its answer (into *c; *rc
 * the take's result), in that one section. The call id, or -errno: no
 * call made, nothing taken.
 */
static inline __attribute__((always_inline)) int64_t ipc_call_take(int phone, const ipc_msg_t *msg,
								    uint64_t timeout_ns, call_t **c,
								    errno_t *rc)
{
	bool answer;
	uint64_t f = irq_save();
	int64_t id = ipc_call(phone, msg, true);

	*rc = EOK;
	if (id > 0)
		*rc = ipc_wait_take(timeout_ns, IPC_WAIT_ANSWER, (ipc_callid_t)id, c, &answer);
	irq_restore(f);
	return id;
}

__attribute__((flatten))
int64_t ipc_call_wait(int phone, const ipc_msg_t *msg, void *uev, uint64_t timeout_ns)
{
	call_t *c = NULL;
	errno_t rc;
	int64_t id = ipc_call_take(phone, msg, timeout_ns, &c, &rc);

	if (id <= 0)
		return id;
	if (rc == EOK)
		rc = ipc_wait_give(uev, c, true);
	return rc == EOK ? 0 : id;
}

__attribute__((flatten))
int64_t ipc_call_short(int phone, const ipc_msg_t *msg, uint64_t timeout_ns, ipc_msg_t *ans)
{
	call_t *c = NULL;
	errno_t rc;
	int64_t id = ipc_call_take(phone, msg, timeout_ns, &c, &rc);

	if (id <= 0 || rc != EOK)
		return id;
	*ans = c->answer;
	ipc_answer_read(c);
	return 0;
}

__attribute__((flatten))
int64_t ipc_answer_wait(ipc_callid_t id, const ipc_msg_t *ans, void *uev, uint64_t timeout_ns,
			unsigned flags)
{
	bool answer = false;
	call_t *c = NULL;
	int64_t result;
	errno_t wrc = EOK;
	uint64_t f = irq_save();
	errno_t rc = ipc_answer_call(id, ans, true, &result);  /* words only: no user copy */

	if (rc == EOK)
		wrc = ipc_wait_take(timeout_ns, flags, 0, &c, &answer);
	irq_restore(f);
	if (rc != EOK)
		return -(int64_t)rc;
	return wrc == EOK ? ipc_wait_give(uev, c, answer) : wrc;
}

/* Take call id out of my dispatched list. */
static call_t *box_take_dispatched(answerbox_t *b, ipc_callid_t id)
{
	call_t *found = NULL;
	uint64_t f = spin_lock_irqsave(&b->wq.lock);
	list_foreach(&b->dispatched, it) {
		call_t *c = list_entry(it, call_t, node);
		if (c->id == id && !c->taking) {
			list_remove(it);
			box_uncount(b);
			found = c;
			break;
		}
	}
	spin_unlock_irqrestore(&b->wq.lock, f);
	return found;
}

static __attribute__((noinline, cold)) void box_return_dispatched(answerbox_t *b, call_t *c)
{
	uint64_t f = spin_lock_irqsave(&b->wq.lock);
	list_prepend(&b->dispatched, &c->node);
	b->ncalls++;
	spin_unlock_irqrestore(&b->wq.lock, f);
}

/*
 * DATA_WRITE (caller → me) or DATA_READ (me → caller), accepted by an EOK
 * answer that names my buffer and a size no larger than the caller's.
 * Returns EOK, EFAULT (my buffer is bad: the call stays unanswered) or
 * EIO (the caller's buffer is bad: the caller gets EFAULT).
 */
static errno_t ipc_data_transfer(call_t *c, ipc_msg_t *ans)
{
	bool write = c->msg.method == IPC_M_DATA_WRITE;
	uintptr_t theirs = c->msg.args[0], mine = ans->args[0];
	size_t len = MIN(ans->args[1], c->msg.args[1]);
	vm_space_t *space = task_space_get(c->caller);

	if (!space)
		return EIO;
	errno_t rc = write ? vm_space_copy_to_current(mine, space, theirs, len)
			   : vm_space_copy_from_current(space, theirs, mine, len);
	vm_space_put(space);
	ans->args[1] = len;
	if (rc == EIO)
		ans->method = EFAULT;
	return rc;
}

/* System-method side effects of an EOK answer; returns the answer syscall's result. */
static __attribute__((noinline, cold)) int64_t ipc_answer_effects(task_t *me, call_t *c, ipc_msg_t *ans)
{
	if (ans->method != EOK)
		return 0;
	switch (c->msg.method) {
	case IPC_M_DATA_WRITE:
	case IPC_M_DATA_READ: {
		errno_t rc = ipc_data_transfer(c, ans);
		return rc == EOK ? 0 : -rc;
	}
	case IPC_M_CONNECT_ME_TO: {
		task_ref(me);
		int ph = phone_connect(c->caller, me, NULL, NULL);
		if (ph < 0) {
			task_unref(me);
			ans->method = (uint64_t)-ph;
		}
		ans->args[4] = (uint64_t)ph;
		return 0;
	}
	case IPC_M_CONNECT_TO_ME: {
		task_ref(c->caller);
		int ph = phone_connect(me, c->caller, NULL, NULL);
		if (ph < 0) {
			task_unref(c->caller);
			ans->method = (uint64_t)-ph;
		}
		return ph;
	}
	}
	return 0;
}

errno_t ipc_answer_call(ipc_callid_t id, const ipc_msg_t *answer, bool words_only,
			int64_t *result)
{
	task_t *me = task_current();
	call_t *c = box_take_dispatched(&me->ipc.box, id);

	if (!c)
		return ENOENT;
	if (words_only && c->msg.method < IPC_M_USER) {
		box_return_dispatched(&me->ipc.box, c);
		return EINVAL;
	}
	ipc_msg_t ans = *answer;
	*result = c->msg.method < IPC_M_USER ? ipc_answer_effects(me, c, &ans) : 0;
	if (*result == -EFAULT) {            /* my buffer: let me answer again */
		box_return_dispatched(&me->ipc.box, c);
		return EOK;
	}
	c->answer = ans;
	if (trace_wants(PROF_F_TRACE_IPC))
		trace_ipc(PROF_TR_ANSWER, id, c->msg.method, c->sender, (uint32_t)ans.method);
	__atomic_add_fetch(&me->ipc.counters.answers_sent, 1, __ATOMIC_RELAXED);
	origin_serve_done(&thread_current()->serve, id);
	call_deliver_answer(c);
	return EOK;
}

errno_t ipc_caller_perms(ipc_callid_t id, uint32_t *perms)
{
	answerbox_t *b = &task_current()->ipc.box;
	errno_t rc = ENOENT;
	uint64_t f = spin_lock_irqsave(&b->wq.lock);

	list_foreach(&b->dispatched, it) {
		call_t *c = list_entry(it, call_t, node);
		if (c->id != id || !c->caller || c->taking)
			continue;
		*perms = c->caller->perms;
		rc = EOK;
		break;
	}
	spin_unlock_irqrestore(&b->wq.lock, f);
	return rc;
}

errno_t ipc_forward(ipc_callid_t id, int phone, uint64_t method, uint64_t arg0)
{
	task_t *me = task_current();

	if (phone < 0 || phone >= IPC_MAX_PHONES)
		return EINVAL;
	uint64_t f = spin_lock_irqsave(&me->ipc.phones_lock);
	task_t *target = me->ipc.phones[phone].target;
	bool kbox = me->ipc.phones[phone].kbox_of != NULL;
	bool slammed = me->ipc.phones[phone].slammed;
	if (target)
		task_ref(target);
	spin_unlock_irqrestore(&me->ipc.phones_lock, f);
	if (!target || kbox) {
		if (target)
			task_unref(target);
		return target ? EINVAL : slammed ? EHANGUP : ENOENT;
	}
	call_t *c = box_take_dispatched(&me->ipc.box, id);
	if (!c) {
		task_unref(target);
		return ENOENT;
	}
	if (method && (method < IPC_M_USER || c->msg.method < IPC_M_USER)) {
		/* A system method's meaning (data, connections) is the caller's. */
		box_return_dispatched(&me->ipc.box, c);
		task_unref(target);
		return EPERM;
	}
	if (method) {
		c->msg.method = method;
		c->msg.args[0] = arg0;
	}
	if (trace_wants(PROF_F_TRACE_IPC))
		trace_ipc(PROF_TR_FORWARD, id, c->msg.method, target->id, 0);
	errno_t rc = call_send(c, target, false);
	task_unref(target);
	if (rc != EOK) {                     /* its box is full: still mine */
		box_return_dispatched(&me->ipc.box, c);
		return rc;
	}
	origin_serve_done(&thread_current()->serve, id);
	__atomic_add_fetch(&me->ipc.counters.forwarded, 1, __ATOMIC_RELAXED);
	return EOK;
}

/* Queue a notification on t's box; limited: refused when the box is full. */
static errno_t ipc_notify_box(task_t *t, uint64_t method, uint64_t a0, uint64_t a1,
			      bool limited)
{
	ipc_msg_t m = { .method = method, .args = { a0, a1 } };
	call_t *c = call_new(NULL, -1, &m);

	if (!c)
		return ENOMEM;
	errno_t rc = box_put(&t->ipc.box, &t->ipc.box.calls, c, limited, NULL);
	if (rc != EOK)
		call_free(c);
	return rc;
}

errno_t ipc_notify(task_t *t, uint64_t method, uint64_t a0, uint64_t a1)
{
	return ipc_notify_box(t, method, a0, a1, true);
}

/* Drop phone i of t, telling the other side. */
static errno_t phone_hangup(task_t *t, int i)
{
	uint64_t f = spin_lock_irqsave(&t->ipc.phones_lock);
	phone_t *p = &t->ipc.phones[i];
	task_t *target = p->target, *kbox_of = p->kbox_of;
	call_t *bye = p->bye;
	uint64_t conn = p->conn;
	bool slammed = p->slammed;
	p->target = p->kbox_of = NULL;
	p->bye = NULL;
	p->slammed = false;
	spin_unlock_irqrestore(&t->ipc.phones_lock, f);
	if (!target)
		return slammed ? EOK : ENOENT;
	if (trace_wants(PROF_F_TRACE_IPC) && t == task_current())
		trace_ipc(PROF_TR_HANGUP, 0, 0, target->id, (uint32_t)i);
	if (!kbox_of) {
		ipc_notify_box(target, IPC_M_PHONE_HUNGUP, conn, t->id, false);
	} else {
		kbox_hangup(bye, conn, t->id);
		task_unref(kbox_of);
	}
	task_unref(target);
	return EOK;
}

errno_t ipc_hangup(int phone)
{
	if (phone < 0 || phone >= IPC_MAX_PHONES)
		return EINVAL;
	return phone_hangup(task_current(), phone);
}

int64_t ipc_connect_kbox(uint64_t task_id)
{
	task_t *me = task_current();
	task_t *t = task_get(task_id);

	if (!t)
		return -ESRCH;
	if (t == &kernel_task ||
	    (t != me && t->parent != me && !(me->perms & PERM_PROFILE))) {
		task_unref(t);
		return -EPERM;
	}
	call_t *bye = kbox_bye_new();            /* hanging up needs no memory */
	int ph = bye ? phone_connect(me, &kernel_task, t, bye) : -ENOMEM;
	if (ph < 0) {
		if (bye)
			call_free(bye);
		task_unref(t);
	}
	return ph;
}

/*
 * task_foreach: slam holder's phones to dead (its box closed): each keeps
 * its slot, so the holder's numbering stays, and drops its reference, so
 * a dead task's task_t is freed without waiting for every holder (a
 * server that never hangs up) to hang up. Kbox phones are left alone: a
 * profiler drains its session through the kbox after the task ended, and
 * only the task's parent or a PERM_PROFILE holder can have one. Task
 * table lock held; dead is still in the table, so these puts never free it.
 */
static void ipc_slam_phones_to(task_t *holder, void *dead)
{
	uint64_t f = spin_lock_irqsave(&holder->ipc.phones_lock);

	for (int i = 0; i < IPC_MAX_PHONES; i++) {
		phone_t *p = &holder->ipc.phones[i];
		if (p->target != dead || p->kbox_of)
			continue;
		p->slammed = true;
		p->target = NULL;
		task_unref(dead);
	}
	spin_unlock_irqrestore(&holder->ipc.phones_lock, f);
}

void ipc_task_cleanup(task_t *t)
{
	answerbox_t *b = &t->ipc.box;
	list_t pending = LIST_INIT(pending), answers = LIST_INIT(answers);

	uint64_t f = spin_lock_irqsave(&t->ipc.phones_lock);
	__atomic_store_n(&t->ipc.dead, true, __ATOMIC_SEQ_CST);  /* no phone to or from t from now on */
	spin_unlock_irqrestore(&t->ipc.phones_lock, f);
	f = spin_lock_irqsave(&b->wq.lock);
	b->closed = true;
	b->ncalls = 0;
	list_foreach_safe(&b->calls, it, tmp) {
		list_remove(it);
		list_append(&pending, it);
	}
	list_foreach_safe(&b->dispatched, it, tmp) {
		list_remove(it);
		list_append(&pending, it);
	}
	list_foreach_safe(&b->answers, it, tmp) {
		list_remove(it);
		list_append(&answers, it);
	}
	spin_unlock_irqrestore(&b->wq.lock, f);
	list_foreach_safe(&pending, it, tmp) {
		call_t *c = list_entry(it, call_t, node);
		list_remove(it);
		if (c->type == IPC_EV_CALL)
			call_answer_with(c, EHANGUP);
		else
			call_free(c);
	}
	list_foreach_safe(&answers, it, tmp) {
		list_remove(it);
		call_answer_done(list_entry(it, call_t, node));
		call_free(list_entry(it, call_t, node));
	}
	for (int i = 0; i < IPC_MAX_PHONES; i++)
		phone_hangup(t, i);
	task_foreach(ipc_slam_phones_to, t);
}

void ipc_task_usage(task_t *t, uint32_t *box_calls, uint32_t *unread)
{
	*box_calls = __atomic_load_n(&t->ipc.box.ncalls, __ATOMIC_RELAXED);
	*unread = __atomic_load_n(&t->ipc.unread, __ATOMIC_RELAXED);
}
