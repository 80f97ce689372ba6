/*
 * A 16550 serial port written by polling, for a program that holds
 * PERM_IO (e.g. a profiler sending its raw stream out of COM2 while COM1
 * is the console). 115200 baud, 8N1, no interrupts, no flow control:
 * each burst waits for the transmitter to be empty, then fills its FIFO
 * (16 bytes on a 16550A, 1 without a working FIFO).
 */
#ifndef _SERIAL_H
#define _SERIAL_H

#include <stddef.h>
#include <stdint.h>
#include <abi/errno.h>

#define SERIAL_COM1 0x3f8
#define SERIAL_COM2 0x2f8

typedef struct serial {
	uint16_t base;             /* I/O port of the UART's first register */
	uint16_t burst;            /* bytes written per wait: the FIFO's depth */
} serial_t;

/*
 * Set up the UART at base (115200 8N1, interrupts off, FIFO on) into *s.
 * It first opens the UART's 8 ports to the task (sys_ioport_allow). EPERM:
 * the caller lacks PERM_IO, or base is not a port the kernel gives out;
 * ENOENT: nothing answers at base.
 */
errno_t serial_open(uint16_t base, serial_t *s);
/* Send len bytes of buf, polling for THR empty before each burst. */
void serial_write(const serial_t *s, const void *buf, size_t len);
/* Bytes a second a real UART carries at serial_open's 115200 8N1. */
#define SERIAL_LINE_BYTES_S (115200 / 10)

#endif
