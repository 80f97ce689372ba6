/*
 * Console on the EGA/VGA text buffer: 16-bit cells (character in the low
 * byte, attribute 0x07, light grey on black, in the high byte), line wrap,
 * scrolling, and the hardware cursor through the CRT controller.
 */
#include <arch/io.h>
#include <arch/pc/vga.h>
#include <kernel/console.h>
#include <kernel/types.h>
#include <lib/string.h>

#define VGA_CRTC_INDEX 0x3D4
#define VGA_CRTC_DATA 0x3D5
#define VGA_CRTC_CURSOR_START 0x0A
#define VGA_CRTC_CURSOR_END 0x0B
#define VGA_CRTC_CURSOR_HIGH 0x0E
#define VGA_CRTC_CURSOR_LOW 0x0F

#define VGA_BLANK ((uint16_t)(0x07 << 8 | ' '))

static struct {
	console_t con;
	uint16_t *buf;          /* rows * cols cells */
	uint32_t cols, rows;
	uint32_t col, row;      /* cursor; col == cols means wrap pending */
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

static void vga_cursor_update(void)
{
	uint32_t pos = vga.row * vga.cols + MIN(vga.col, vga.cols - 1);

	vga_crtc_write(VGA_CRTC_CURSOR_LOW, (uint8_t)pos);
	vga_crtc_write(VGA_CRTC_CURSOR_HIGH, (uint8_t)(pos >> 8));
}

static void vga_clear_cells(uint16_t *cell, size_t n)
{
	while (n-- > 0)
		*cell++ = VGA_BLANK;
}

static void vga_scroll(void)
{
	size_t row_cells = vga.cols;

	memmove(vga.buf, vga.buf + row_cells,
	    (vga.rows - 1) * row_cells * sizeof(uint16_t));
	vga_clear_cells(vga.buf + (vga.rows - 1) * row_cells, row_cells);
}

static void vga_newline(void)
{
	vga.col = 0;
	if (vga.row + 1 < vga.rows)
		vga.row++;
	else
		vga_scroll();
}

static void vga_tab(void)
{
	if (vga.col >= vga.cols)
		vga_newline();
	vga.col = MIN(ALIGN_DOWN(vga.col + 8, 8), vga.cols);
}

static void vga_putc(unsigned char c)
{
	switch (c) {
	case '\n':
		vga_newline();
		return;
	case '\r':
		vga.col = 0;
		return;
	case '\t':
		vga_tab();
		return;
	case '\b':
		if (vga.col > 0)
			vga.col--;
		return;
	}
	if (c < 0x20 || c == 0x7f)
		return;
	if (vga.col >= vga.cols)
		vga_newline();
	vga.buf[vga.row * vga.cols + vga.col++] = (uint16_t)(0x07 << 8 | c);
}

static void vga_write(console_t *con, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		vga_putc((unsigned char)s[i]);
	vga_cursor_update();
}

/* Start the text console at vaddr, clear the screen and register it. */
void vga_text_init(void *vaddr, uint32_t cols, uint32_t rows)
{
	if (cols == 0 || rows == 0)
		return;
	vga.buf = vaddr;
	vga.cols = cols;
	vga.rows = rows;
	vga.col = vga.row = 0;
	vga_clear_cells(vga.buf, (size_t)cols * rows);
	vga_cursor_enable();
	vga_cursor_update();
	vga.con.name = "vga";
	vga.con.write = vga_write;
	console_register(&vga.con);
}
