/*
 * The console registry and printk(). Output goes to every registered
 * console and into a log ring that later tools can read.
 */
#include <kernel/console.h>
#include <kernel/cpu.h>
#include <kernel/printk.h>
#include <kernel/spinlock.h>
#include <lib/fmt.h>
#include <lib/string.h>
#include <stdarg.h>

#define LOG_RING_SIZE 16384

static console_t *consoles;
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

static void console_write_all(const char *s, size_t len)
{
	for (console_t *c = consoles; c; c = c->next)
		c->write(c, s, len);
	for (size_t i = 0; i < len; i++)
		log_ring[(log_head + i) % LOG_RING_SIZE] = s[i];
	log_head += len;
}

static size_t printk_format(char *buf, size_t size, const char *fmt, va_list ap)
{
	int n = fmt_vsnprintf(buf, size, fmt, ap);
	if (n < 0)
		return 0;
	return (size_t)n < size ? (size_t)n : size - 1;
}

void printk(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	size_t n = printk_format(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	uint64_t f = spin_lock_irqsave(&console_lock);
	console_write_all(buf, n);
	spin_unlock_irqrestore(&console_lock, f);
}

/*
 * Write without taking the lock: the panic path, after the other CPUs were
 * stopped (one of them may have died holding it).
 */
void console_write_unlocked(const char *s, size_t len)
{
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
	console_write_all(buf, n);
}

void console_write(const char *s, size_t len)
{
	uint64_t f = spin_lock_irqsave(&console_lock);
	console_write_all(s, len);
	spin_unlock_irqrestore(&console_lock, f);
}
