/*
 * The console registry and printk(). Output goes to every registered
 * console and into a log ring that later tools can read.
 *
 * Lock order: klog_wq.lock -> console_lock (klog_read); the console
 * drivers take no lock of their own.
 */
#include <kernel/console.h>
#include <kernel/cpu.h>
#include <kernel/printk.h>
#include <kernel/spinlock.h>
#include <kernel/waitq.h>
#include <lib/fmt.h>
#include <lib/string.h>
#include <stdarg.h>

#define LOG_RING_SIZE 16384

static console_t *consoles;
static void *console_owner;       /* a user console server, or NULL */
static waitq_t klog_wq;
static bool klog_wq_ready;
static spinlock_t console_lock = SPINLOCK_INIT("console");
static char log_ring[LOG_RING_SIZE];
static size_t log_head;      /* total bytes ever logged */

/* Replay what was logged before con existed (at most the ring's size). */
static void console_replay(console_t *con)
{
	size_t start = log_head > LOG_RING_SIZE ? log_head - LOG_RING_SIZE : 0;

	for (size_t i = start; i < log_head; i++)
		con->write(con, &log_ring[i % LOG_RING_SIZE], 1);
}

void console_register(console_t *con)
{
	uint64_t f = spin_lock_irqsave(&console_lock);
	console_replay(con);
	con->next = consoles;
	consoles = con;
	spin_unlock_irqrestore(&console_lock, f);
}

static void console_write_devices(const char *s, size_t len)
{
	for (console_t *c = consoles; c; c = c->next)
		c->write(c, s, len);
}

/* Log the bytes; show them unless a console server owns the screen. */
static void console_write_all(const char *s, size_t len)
{
	if (!console_owner)
		console_write_devices(s, len);
	for (size_t i = 0; i < len; i++)
		log_ring[(log_head + i) % LOG_RING_SIZE] = s[i];
	log_head += len;
}

/* Wake klog readers; console lock not held. */
static void klog_wake(void)
{
	if (klog_wq_ready)
		waitq_wake_all(&klog_wq);
}

/*
 * Format into buf; a message cut to fit keeps its final newline, so the
 * next one still starts a line of its own.
 */
static size_t printk_format(char *buf, size_t size, const char *fmt, va_list ap)
{
	int n = fmt_vsnprintf(buf, size, fmt, ap);

	if (n < 0)
		return 0;
	if ((size_t)n < size)
		return (size_t)n;
	size_t len = strlen(fmt);           /* only for a message that was cut */
	if (len && fmt[len - 1] == '\n')
		buf[size - 2] = '\n';
	return size - 1;
}

void printk(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	size_t n = printk_format(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	console_write(buf, n);
}

/*
 * Write without taking the lock: the panic path, after the other CPUs were
 * stopped (one of them may have died holding it).
 */
void console_write_unlocked(const char *s, size_t len)
{
	console_owner = NULL;           /* panic: the kernel speaks again */
	console_write_all(s, len);
}

/* Formatting counterpart of console_write_unlocked(). */
void printk_unlocked(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	size_t n = printk_format(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	console_write_unlocked(buf, n);
}

void console_write_user(const char *prefix, const char *s, size_t len)
{
	size_t plen = strlen(prefix);
	uint64_t f = spin_lock_irqsave(&console_lock);

	if (log_head && log_ring[(log_head - 1) % LOG_RING_SIZE] != '\n')
		console_write_all("\n", 1);
	while (len) {
		size_t n = 0;
		while (n < len && s[n++] != '\n')
			;
		console_write_all(prefix, plen);
		console_write_all(s, n);
		s += n;
		len -= n;
	}
	if (log_ring[(log_head - 1) % LOG_RING_SIZE] != '\n')
		console_write_all("\n", 1);
	spin_unlock_irqrestore(&console_lock, f);
	klog_wake();
}

void console_write(const char *s, size_t len)
{
	uint64_t f = spin_lock_irqsave(&console_lock);
	console_write_all(s, len);
	spin_unlock_irqrestore(&console_lock, f);
	klog_wake();
}

errno_t console_claim(void *owner, void *caller)
{
	uint64_t f = spin_lock_irqsave(&console_lock);
	errno_t rc;

	if (owner) {
		rc = console_owner && console_owner != owner ? EBUSY : EOK;
		if (rc == EOK)
			console_owner = owner;
	} else {
		rc = console_owner == caller ? EOK : EPERM;
		if (rc == EOK)
			console_owner = NULL;
	}
	spin_unlock_irqrestore(&console_lock, f);
	return rc;
}

void console_reclaim(void)
{
	uint64_t f = spin_lock_irqsave(&console_lock);
	console_owner = NULL;
	spin_unlock_irqrestore(&console_lock, f);
}

void console_release(void *owner)
{
	uint64_t f = spin_lock_irqsave(&console_lock);
	if (console_owner == owner)
		console_owner = NULL;
	spin_unlock_irqrestore(&console_lock, f);
}

/* Copy log bytes from *pos on; skips what the ring no longer holds. */
static size_t klog_copy(char *buf, size_t len, uint64_t *pos)
{
	size_t oldest = log_head > LOG_RING_SIZE ? log_head - LOG_RING_SIZE : 0;
	size_t n = 0;

	if (*pos < oldest || *pos > log_head)
		*pos = *pos > log_head ? log_head : oldest;
	while (n < len && *pos < log_head)
		buf[n++] = log_ring[(*pos)++ % LOG_RING_SIZE];
	return n;
}

size_t klog_read(char *buf, size_t len, uint64_t *pos, uint64_t timeout_ns)
{
	uint64_t f = spin_lock_irqsave(&klog_wq.lock);
	size_t n = 0;
	for (;;) {
		spin_lock(&console_lock);
		n = klog_copy(buf, len, pos);
		spin_unlock(&console_lock);
		if (n || !timeout_ns || !len)
			break;
		if (waitq_sleep_locked(&klog_wq, &f, timeout_ns) != EOK)
			break;
	}
	spin_unlock_irqrestore(&klog_wq.lock, f);
	return n;
}

void klog_init(void)
{
	waitq_init(&klog_wq);
	klog_wq_ready = true;
}
