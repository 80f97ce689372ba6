/*
 * IRQ subscription: a driver task with PERM_IRQ asks for an ISA IRQ; each
 * interrupt masks the line and queues an IPC_M_IRQ notification on the
 * task's answerbox; the driver unmasks it with SYS_IRQ_ACK once served.
 */
#include <arch/interrupt.h>
#include <kernel/ipc.h>
#include <kernel/platform.h>
#include <kernel/spinlock.h>
#include <kernel/sysimpl.h>
#include <kernel/task.h>

#define IRQ_LINES 16

typedef struct irq_sub {
	task_t *task;               /* referenced */
	uint64_t method;
	uint64_t count;
	uint64_t dropped;           /* notifications lost (no memory) */
} irq_sub_t;

static irq_sub_t irq_subs[IRQ_LINES];
static spinlock_t irq_lock = SPINLOCK_INIT("irq_subs");

static void irq_notify_handler(int_frame_t *f)
{
	unsigned irq = arch_irq_line(f);
	irq_sub_t *s = &irq_subs[irq];

	platform_irq_mask(irq);
	spin_lock(&irq_lock);
	task_t *t = s->task;
	uint64_t n = ++s->count;
	if (t && ipc_notify(t, s->method, irq, n) == EOK)
		__atomic_add_fetch(&t->ipc.counters.irq_notifications, 1, __ATOMIC_RELAXED);
	else
		s->dropped++;
	spin_unlock(&irq_lock);
}

int64_t sys_irq_subscribe(SYSCALL_ARGS)
{
	task_t *me = task_current();
	unsigned irq = (unsigned)a0;

	if (!(me->perms & PERM_IRQ))
		return -EPERM;
	if (irq >= IRQ_LINES || a1 < IPC_M_USER)
		return -EINVAL;
	uint64_t f = spin_lock_irqsave(&irq_lock);
	errno_t rc = irq_subs[irq].task ? EBUSY : EOK;
	if (rc == EOK) {
		task_ref(me);
		irq_subs[irq] = (irq_sub_t){ .task = me, .method = a1 };
		irq_set_handler(arch_irq_vector(irq), irq_notify_handler);
	}
	spin_unlock_irqrestore(&irq_lock, f);
	if (rc == EOK)
		rc = platform_irq_route(irq, arch_irq_vector(irq));
	return -rc;
}

int64_t sys_irq_ack(SYSCALL_ARGS)
{
	unsigned irq = (unsigned)a0;

	if (irq >= IRQ_LINES || irq_subs[irq].task != task_current())
		return -EPERM;
	platform_irq_unmask(irq);
	return 0;
}

void irq_task_cleanup(task_t *t)
{
	for (unsigned irq = 0; irq < IRQ_LINES; irq++) {
		uint64_t f = spin_lock_irqsave(&irq_lock);
		bool mine = irq_subs[irq].task == t;
		if (mine) {
			platform_irq_mask(irq);
			irq_subs[irq].task = NULL;
		}
		spin_unlock_irqrestore(&irq_lock, f);
		if (mine)
			task_unref(t);
	}
}
