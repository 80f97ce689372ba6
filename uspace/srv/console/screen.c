/*
 * The screen: VGA text mode (cells of character + attribute, hardware
 * cursor) or a linear RGB framebuffer drawn with the 8x16 font, whichever
 * SYS_FB_INFO describes. Understands \r \n \b \t and the CSI sequences
 * A B C D (cursor moves), H (home / position), J (2J clears) and K (erase
 * to end of line); others (colours) are ignored.
 */
#include <stdio.h>
#include <string.h>
#include <vernier.h>

#include "console.h"

#define FB_RGB 1
#define FB_EGA_TEXT 2
#define VGA_BLANK ((uint16_t)(0x07 << 8 | ' '))
#define GLYPH_W 8
#define VGA_CRTC 0x3d4          /* CRT controller index; data at +1 */
#define GLYPH_H 16
#define CSI_PARAMS 4

/* The font (build/gen/font.c, linked in when the build provides it). */
extern const unsigned char font_glyphs[256][16] __attribute__((weak));

static struct {
	int type;                 /* 0: no screen */
	uint8_t *mem;
	unsigned pitch, bytes_pp, rows, cols, row, col;
	uint32_t fg;
} scr;

static struct {
	int state;                /* 0 plain, 1 after ESC, 2 in CSI */
	unsigned param[CSI_PARAMS], nparam;
} esc;

static void *map_device(uint64_t paddr, size_t len)
{
	long r = __vernier_syscall(SYS_MAP_DEVICE, (long)paddr, (long)len,
				  0, 0, 0, 0);
	return r < 0 ? NULL : (void *)r;
}

/* Where the kernel's VGA driver left its hardware cursor. */
static unsigned vga_cursor_get(void)
{
	outb(VGA_CRTC, 0x0e);
	unsigned pos = (unsigned)inb(VGA_CRTC + 1) << 8;
	outb(VGA_CRTC, 0x0f);
	return pos | inb(VGA_CRTC + 1);
}

static void vga_cursor_set(void)
{
	unsigned pos = scr.row * scr.cols + (scr.col < scr.cols ? scr.col : scr.cols - 1);

	outb(VGA_CRTC, 0x0f);
	outb(VGA_CRTC + 1, (uint8_t)pos);
	outb(VGA_CRTC, 0x0e);
	outb(VGA_CRTC + 1, (uint8_t)(pos >> 8));
}

static uint32_t channel_max(unsigned pos, unsigned size)
{
	return ((1u << size) - 1) << pos;
}

static bool screen_init_rgb(const fb_info_t *fb)
{
	if ((fb->bpp != 32 && fb->bpp != 24) || !font_glyphs)
		return false;
	scr.mem = map_device(fb->addr, (size_t)fb->pitch * fb->height);
	if (!scr.mem)
		return false;
	scr.bytes_pp = fb->bpp / 8;
	scr.cols = fb->width / GLYPH_W;
	scr.rows = fb->height / GLYPH_H;
	scr.fg = (channel_max(fb->red_pos, fb->red_size) |
		  channel_max(fb->green_pos, fb->green_size) |
		  channel_max(fb->blue_pos, fb->blue_size)) & 0xc0c0c0c0u;
	scr.fg |= scr.fg >> 2;           /* light grey */
	scr.row = scr.rows - 1;
	return true;
}

static bool screen_init_text(const fb_info_t *fb)
{
	if (sys_ioport_allow(VGA_CRTC, 2) != EOK)     /* the cursor's index/data pair */
		return false;
	scr.mem = map_device(fb->addr, (size_t)fb->pitch * fb->height);
	if (!scr.mem)
		return false;
	scr.cols = fb->width;
	scr.rows = fb->height;
	unsigned pos = vga_cursor_get();
	if (pos < scr.rows * scr.cols) {
		scr.row = pos / scr.cols;
		scr.col = pos % scr.cols;
	}
	return true;
}

bool screen_init(char *desc, size_t size)
{
	fb_info_t fb;

	if (__vernier_syscall(SYS_FB_INFO, (long)&fb, 0, 0, 0, 0, 0) < 0)
		return false;
	scr.pitch = fb.pitch;
	if (fb.type == FB_EGA_TEXT && screen_init_text(&fb)) {
		scr.type = FB_EGA_TEXT;
		snprintf(desc, size, "VGA text %ux%u", scr.cols, scr.rows);
	} else if (fb.type == FB_RGB && screen_init_rgb(&fb)) {
		scr.type = FB_RGB;
		snprintf(desc, size, "%ux%ux%u framebuffer", fb.width,
			 fb.height, fb.bpp);
	}
	return scr.type != 0;
}

void screen_size(unsigned *rows, unsigned *cols)
{
	*rows = scr.type ? scr.rows : 25;
	*cols = scr.type ? scr.cols : 80;
}

/* ---------------------------------------------------------------- cells */

static void put_pixel(uint8_t *p, uint32_t v)
{
	if (scr.bytes_pp == 4) {
		*(volatile uint32_t *)p = v;
	} else {
		p[0] = (uint8_t)v;
		p[1] = (uint8_t)(v >> 8);
		p[2] = (uint8_t)(v >> 16);
	}
}

static void draw_glyph(unsigned col, unsigned row, unsigned char c)
{
	const unsigned char *g = font_glyphs[c];
	uint8_t *line = scr.mem + (size_t)row * GLYPH_H * scr.pitch +
		(size_t)col * GLYPH_W * scr.bytes_pp;

	for (unsigned y = 0; y < GLYPH_H; y++, line += scr.pitch)
		for (unsigned x = 0; x < GLYPH_W; x++)
			put_pixel(line + x * scr.bytes_pp,
				  g[y] & (0x80 >> x) ? scr.fg : 0);
}

static void put_cell(unsigned col, unsigned row, unsigned char c)
{
	if (scr.type == FB_EGA_TEXT)
		((volatile uint16_t *)scr.mem)[row * scr.cols + col] =
			(uint16_t)(0x07 << 8 | c);
	else
		draw_glyph(col, row, c);
}

static void clear_cells(unsigned row, unsigned from, unsigned to)
{
	for (unsigned c = from; c < to; c++)
		put_cell(c, row, ' ');
}

static void scroll(void)
{
	size_t line = scr.type == FB_EGA_TEXT ? scr.cols * 2u :
		(size_t)GLYPH_H * scr.pitch;

	memmove(scr.mem, scr.mem + line, (scr.rows - 1) * line);
	if (scr.type == FB_EGA_TEXT)
		clear_cells(scr.rows - 1, 0, scr.cols);
	else
		memset(scr.mem + (scr.rows - 1) * line, 0, line);
}

static void newline(void)
{
	scr.col = 0;
	if (scr.row + 1 < scr.rows)
		scr.row++;
	else
		scroll();
}

static void put_char(unsigned char c)
{
	if (scr.col >= scr.cols)
		newline();
	put_cell(scr.col++, scr.row, c);
}

/* ---------------------------------------------------------------- ANSI */

static unsigned param(unsigned i, unsigned dflt)
{
	return i < esc.nparam && esc.param[i] ? esc.param[i] : dflt;
}

static unsigned clamp(unsigned v, unsigned lo, unsigned hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static void csi_final(char f)
{
	unsigned n = param(0, 1);

	switch (f) {
	case 'A': scr.row -= n > scr.row ? scr.row : n; break;
	case 'B': scr.row = clamp(scr.row + n, 0, scr.rows - 1); break;
	case 'C': scr.col = clamp(scr.col + n, 0, scr.cols - 1); break;
	case 'D': scr.col -= n > scr.col ? scr.col : n; break;
	case 'H':
		scr.row = clamp(param(0, 1), 1, scr.rows) - 1;
		scr.col = clamp(param(1, 1), 1, scr.cols) - 1;
		break;
	case 'J':
		if (param(0, 0) == 2)
			for (unsigned r = 0; r < scr.rows; r++)
				clear_cells(r, 0, scr.cols);
		break;
	case 'K':
		if (scr.col < scr.cols)
			clear_cells(scr.row, scr.col, scr.cols);
		break;
	default:
		break;
	}
}

/* A byte inside an escape sequence. */
static void esc_byte(unsigned char c)
{
	if (esc.state == 1) {
		esc.state = c == '[' ? 2 : 0;
		esc.nparam = 0;
		memset(esc.param, 0, sizeof(esc.param));
		return;
	}
	if (c >= '0' && c <= '9') {
		if (esc.nparam == 0)
			esc.nparam = 1;
		if (esc.nparam <= CSI_PARAMS)
			esc.param[esc.nparam - 1] = esc.param[esc.nparam - 1] * 10 + (c - '0');
	} else if (c == ';') {
		esc.nparam++;
	} else if (c >= 0x40 && c <= 0x7e) {
		esc.state = 0;
		csi_final((char)c);
	}
}

static void screen_byte(unsigned char c)
{
	if (esc.state) {
		esc_byte(c);
		return;
	}
	switch (c) {
	case 0x1b: esc.state = 1; break;
	case '\n': newline(); break;
	case '\r': scr.col = 0; break;
	case '\b': if (scr.col > 0) scr.col--; break;
	case '\t':
		do
			put_char(' ');
		while (scr.col % 8 && scr.col < scr.cols);
		break;
	default:
		if (c >= 0x20)
			put_char(c);
		break;
	}
}

void screen_write(const char *s, size_t n)
{
	if (!scr.type)
		return;
	for (size_t i = 0; i < n; i++)
		screen_byte((unsigned char)s[i]);
	if (scr.type == FB_EGA_TEXT)
		vga_cursor_set();
}
