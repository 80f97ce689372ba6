/* The 16550 UART on COM1 (0x3f8), 115200 8N1, polled output: the console. */
#include <arch/io.h>
#include <arch/pc/uart.h>
#include <kernel/console.h>

#define COM1 0x3f8
#define UART_THR 0
#define UART_IER 1
#define UART_FCR 2
#define UART_LCR 3
#define UART_MCR 4
#define UART_LSR 5
#define LSR_THRE 0x20

static bool uart_present;

static void uart_putc(char c)
{
	for (int spin = 0; spin < 100000; spin++) {
		if (inb(COM1 + UART_LSR) & LSR_THRE)
			break;
	}
	outb(COM1 + UART_THR, (uint8_t)c);
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

void uart_init(void)
{
	outb(COM1 + UART_IER, 0x00);
	outb(COM1 + UART_LCR, 0x80);      /* DLAB: divisor follows */
	outb(COM1 + 0, 1);                /* 115200 baud */
	outb(COM1 + 1, 0);
	outb(COM1 + UART_LCR, 0x03);      /* 8N1 */
	outb(COM1 + UART_FCR, 0xc7);      /* FIFO on, cleared, 14-byte threshold */
	outb(COM1 + UART_MCR, 0x03);      /* DTR, RTS */
	uart_present = inb(COM1 + UART_LSR) != 0xff;
	if (uart_present)
		console_register(&uart_console);
}
