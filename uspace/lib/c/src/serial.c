/* A polled 16550 serial port (see <serial.h>). */
#include <serial.h>
#include <stdbool.h>
#include <sys/io.h>
#include <vernier.h>

#define UART_DATA 0                /* THR; with DLAB: divisor low */
#define UART_IER 1                 /* with DLAB: divisor high */
#define UART_FCR 2
#define UART_LCR 3
#define UART_MCR 4
#define UART_IIR 2                 /* read: FIFO state in bits 6-7 */
#define UART_LSR 5
#define IIR_FIFO 0xc0
#define FIFO_BYTES 16
#define LCR_DLAB 0x80
#define LCR_8N1 0x03
#define LSR_THRE 0x20
#define DIVISOR_115200 1
#define UART_PORTS 8

errno_t serial_open(uint16_t base, serial_t *s)
{
	errno_t rc = sys_ioport_allow(base, UART_PORTS);

	if (rc != EOK)
		return rc == EINVAL ? ENOENT : EPERM;
	if (inb(base + UART_LSR) == 0xff)
		return ENOENT;
	outb(base + UART_IER, 0);
	outb(base + UART_LCR, LCR_DLAB);
	outb(base + UART_DATA, DIVISOR_115200);
	outb(base + UART_IER, 0);
	outb(base + UART_LCR, LCR_8N1);
	outb(base + UART_FCR, 0x07);          /* FIFO on, both cleared */
	outb(base + UART_MCR, 0x03);          /* DTR, RTS; OUT2 off: no IRQ */
	s->base = base;
	s->burst = (inb(base + UART_IIR) & IIR_FIFO) == IIR_FIFO ? FIFO_BYTES : 1;
	return EOK;
}

void serial_write(const serial_t *s, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	size_t burst = s->burst ? s->burst : 1;

	for (size_t i = 0; i < len;) {
		while (!(inb(s->base + UART_LSR) & LSR_THRE))
			;
		for (size_t end = i + burst; i < len && i < end; i++)
			outb(s->base + UART_DATA, p[i]);
	}
}

