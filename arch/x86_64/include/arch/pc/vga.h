/* EGA/VGA text-mode console (BIOS boot). */
#ifndef ARCH_PC_VGA_H
#define ARCH_PC_VGA_H

#include <stdint.h>

/* Physical address of the colour text buffer. */
#define VGA_TEXT_PADDR 0xB8000

/*
 * Start a console on the text buffer (cols x rows 16-bit cells) mapped at
 * vaddr: clear it, put the hardware cursor at the top left and register it.
 */
void vga_text_init(void *vaddr, uint32_t cols, uint32_t rows);

#endif
