/*
 * x86 port I/O from user space. Only a task holding PERM_IO may use the
 * ports (the kernel opens the TSS I/O bitmap for it); anyone else faults.
 */
#ifndef _SYS_IO_H
#define _SYS_IO_H

#include <stdint.h>

static inline void outb(uint16_t port, uint8_t v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint8_t inb(uint16_t port)
{
	uint8_t v;

	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

#endif
