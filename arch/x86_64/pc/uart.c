/*
 * The 16550 UARTs: COM1 (0x3f8), 115200 8N1, polled output, is the
 * console; COM2 (0x2f8) the panic's dump port (raw bytes, set up on
 * first use; user space with the io permission writes it otherwise).
 */
#include <arch/io.h>
#include <arch/pc/uart.h>
#include <kernel/console.h>
#include <kernel/platform.h>

#define COM1 0x3f8
#define COM2 0x2f8
#define UART_THR 0
#define UART_IER 1
#define UART_FCR 2
#define UART_LCR 3
#define UART_MCR 4
#define UART_LSR 5
#define LSR_THRE 0x20

static bool uart_present;

/* Send byte c on the UART at port base (a bounded wait for room). */
static void uart_send(unsigned base, uint8_t c)
{
	for (int spin = 0; spin < 100000; spin++) {
		if (inb(base + UART_LSR) & LSR_THRE)
			break;
	}
	outb(base + UART_THR, c);
}

static void uart_putc(char c)
{
	uart_send(COM1, (uint8_t)c);
}

static void uart_write(console_t *con, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\n')
			uart_putc('\r');
		uart_putc(s[i]);
	}
}

static console_t uart_console = { .name = "com1", .write = uart_write };

/* 115200 8N1, FIFOs on, no interrupts, for the UART at port base. */
static void uart_setup(unsigned base)
{
	outb(base + UART_IER, 0x00);
	outb(base + UART_LCR, 0x80);      /* DLAB: divisor follows */
	outb(base + 0, 1);                /* 115200 baud */
	outb(base + 1, 0);
	outb(base + UART_LCR, 0x03);      /* 8N1 */
	outb(base + UART_FCR, 0xc7);      /* FIFO on, cleared, 14-byte threshold */
	outb(base + UART_MCR, 0x03);      /* DTR, RTS */
}

void platform_dump_write(const void *buf, size_t len)
{
	static bool ready, present;
	const uint8_t *p = buf;

	if (!ready) {
		uart_setup(COM2);
		present = inb(COM2 + UART_LSR) != 0xff;   /* else no UART there */
		ready = true;
	}
	for (size_t i = 0; present && i < len; i++)
		uart_send(COM2, p[i]);
}

void uart_init(void)
{
	uart_setup(COM1);
	uart_present = inb(COM1 + UART_LSR) != 0xff;
	if (uart_present)
		console_register(&uart_console);
}
