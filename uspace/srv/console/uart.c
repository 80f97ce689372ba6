/*
 * COM1 (16550 at 0x3f8), interrupt driven both ways: received bytes go to
 * the line discipline, output waits in a TX ring that THR-empty interrupts
 * drain (the interrupt is enabled only while the ring holds bytes).
 */
#include <vernier.h>

#include "console.h"

#define COM1 0x3f8
#define UART_DATA 0
#define UART_IER 1
#define UART_IIR 2
#define UART_FCR 2
#define UART_LCR 3
#define UART_MCR 4
#define UART_LSR 5
#define IER_RDI 0x01
#define IER_THRI 0x02
#define IIR_NONE 0x01
#define LSR_DR 0x01
#define LSR_THRE 0x20
#define UART_FIFO 16
#define TX_RING (32 * 1024)
#define RX_BATCH 64

static char tx_ring[TX_RING];
static uint64_t tx_head, tx_tail;   /* bytes queued / sent, ever */
static uint8_t ier;
static bool present;

bool uart_init(void)
{
	if (sys_ioport_allow(COM1, 8) != EOK || inb(COM1 + UART_LSR) == 0xff)
		return false;
	outb(COM1 + UART_IER, 0);
	outb(COM1 + UART_FCR, 0x07);        /* FIFO on, both cleared */
	outb(COM1 + UART_MCR, 0x0b);        /* DTR, RTS, OUT2 (IRQ gate) */
	if (__vernier_syscall(SYS_IRQ_SUBSCRIBE, IRQ_UART, CON_M_IRQ_UART,
			      0, 0, 0, 0) < 0)
		return false;
	present = true;
	ier = IER_RDI;
	outb(COM1 + UART_IER, ier);
	(void)inb(COM1 + UART_IIR);
	return true;
}

static void set_ier(uint8_t v)
{
	if (v != ier) {
		ier = v;
		outb(COM1 + UART_IER, v);
	}
}

size_t uart_room(void)
{
	return (TX_RING - (size_t)(tx_head - tx_tail)) / 2;
}

size_t uart_queue(const char *s, size_t n)
{
	size_t i = 0;

	if (!present) {
		tx_head = tx_tail = tx_head + n;
		return n;
	}
	for (; i < n && TX_RING - (tx_head - tx_tail) >= 2; i++) {
		if (s[i] == '\n')
			tx_ring[tx_head++ % TX_RING] = '\r';
		tx_ring[tx_head++ % TX_RING] = s[i];
	}
	if (tx_head != tx_tail)
		set_ier(ier | IER_THRI);
	return i;
}

/* Fill the FIFO from the ring if the UART is empty. Output lock held. */
static void tx_fill(void)
{
	if (!(inb(COM1 + UART_LSR) & LSR_THRE))
		return;
	for (int k = 0; k < UART_FIFO && tx_tail != tx_head; k++)
		outb(COM1 + UART_DATA, (uint8_t)tx_ring[tx_tail++ % TX_RING]);
	if (tx_tail == tx_head)
		set_ier(ier & ~IER_THRI);
}

/* Read what has arrived into buf; returns the count. */
static size_t rx_drain(unsigned char *buf, size_t size)
{
	size_t n = 0;

	while (n < size && (inb(COM1 + UART_LSR) & LSR_DR))
		buf[n++] = inb(COM1 + UART_DATA);
	return n;
}

/* Serve the UART until it has nothing pending (its IRQ line is low). */
static void uart_serve(void)
{
	unsigned char rx[RX_BATCH];
	size_t n;

	bool pending;

	do {
		pthread_mutex_lock(&out_lock);
		tx_fill();
		n = rx_drain(rx, sizeof(rx));
		pending = !(inb(COM1 + UART_IIR) & IIR_NONE);
		pthread_mutex_unlock(&out_lock);
		for (size_t i = 0; i < n; i++)
			tty_input(rx[i]);
	} while (n > 0 || pending);
}

void uart_irq(void)
{
	uart_serve();
	__vernier_syscall(SYS_IRQ_ACK, IRQ_UART, 0, 0, 0, 0, 0);
}

void uart_kick(void)
{
	if (!present)
		return;
	pthread_mutex_lock(&out_lock);
	tx_fill();
	pthread_mutex_unlock(&out_lock);
}

void uart_poll(void)
{
	if (present)
		uart_serve();
}

uint64_t uart_queued(void)
{
	return __atomic_load_n(&tx_head, __ATOMIC_RELAXED);
}

uint64_t uart_sent(void)
{
	return __atomic_load_n(&tx_tail, __ATOMIC_RELAXED);
}
