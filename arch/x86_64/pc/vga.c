/*
 * The kernel console's device on the EGA/VGA text buffer: 16-bit cells
 * (character in the low byte, attribute 0x07, light grey on black, in the
 * high byte) drawn and scrolled for kernel/textcon.c's grid, and the
 * hardware cursor through the CRT controller.
 */
#include <arch/io.h>
#include <arch/pc/vga.h>
#include <kernel/console.h>
#include <kernel/types.h>
#include <lib/term.h>
#include <lib/string.h>

#define VGA_CRTC_INDEX 0x3D4
#define VGA_CRTC_DATA 0x3D5
#define VGA_CRTC_CURSOR_START 0x0A
#define VGA_CRTC_CURSOR_END 0x0B
#define VGA_CRTC_CURSOR_HIGH 0x0E
#define VGA_CRTC_CURSOR_LOW 0x0F

static struct {
	volatile uint16_t *buf;         /* rows * cols cells */
	uint32_t cols;                  /* the mode's: a row's cells in buf */
	uint32_t rows;                  /* the grid's (textcon_start): the ones scrolled */
} vga;

static void vga_crtc_write(uint8_t reg, uint8_t v)
{
	outb(VGA_CRTC_INDEX, reg);
	outb(VGA_CRTC_DATA, v);
}

static uint8_t vga_crtc_read(uint8_t reg)
{
	outb(VGA_CRTC_INDEX, reg);
	return inb(VGA_CRTC_DATA);
}

/* Show an underline cursor on scan lines 14-15 of the cell. */
static void vga_cursor_enable(void)
{
	vga_crtc_write(VGA_CRTC_CURSOR_START,
	    (vga_crtc_read(VGA_CRTC_CURSOR_START) & 0xC0) | 14);
	vga_crtc_write(VGA_CRTC_CURSOR_END,
	    (vga_crtc_read(VGA_CRTC_CURSOR_END) & 0xE0) | 15);
}

/* The hardware cursor to (row, col); col == cols (wrap pending): the last. */
static void vga_cursor(unsigned row, unsigned col)
{
	uint32_t pos = row * vga.cols + MIN(col, vga.cols - 1);

	vga_crtc_write(VGA_CRTC_CURSOR_LOW, (uint8_t)pos);
	vga_crtc_write(VGA_CRTC_CURSOR_HIGH, (uint8_t)(pos >> 8));
}

/* term_dev_t: the lines up by n. */
static void vga_scroll(void *ctx, unsigned n)
{
	(void)ctx;
	memmove((void *)vga.buf, (const void *)(vga.buf + n * vga.cols),
		(vga.rows - n) * vga.cols * sizeof(uint16_t));
}

/* term_dev_t: cells [c0, c1) of row (the grid's cells are VGA's). */
static void vga_draw(void *ctx, unsigned row, unsigned c0, unsigned c1, const uint16_t *cells)
{
	(void)ctx;
	for (unsigned c = c0; c < c1; c++)
		vga.buf[row * vga.cols + c] = cells[c - c0];
}

static const term_dev_t vga_dev = { vga_scroll, vga_draw };

/* Start the text console at vaddr, clear the screen and register it. */
void vga_text_init(void *vaddr, uint32_t cols, uint32_t rows)
{
	if (cols == 0 || rows == 0)
		return;
	vga.buf = vaddr;
	vga.cols = cols;
	for (size_t i = 0; i < (size_t)cols * rows; i++)
		vga.buf[i] = TERM_BLANK;
	vga_cursor_enable();
	vga.rows = textcon_start("vga", rows, cols, &vga_dev, vga_cursor, NULL);
}
