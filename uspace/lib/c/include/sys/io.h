/*
 * x86 port I/O from user space. A task may use only the ports it opened
 * with sys_ioport_allow() (<vernier.h>; needs PERM_IO): any other port
 * faults (#GP), with or without PERM_IO.
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
