/*
 * The screen: VGA text mode (cells of character + attribute, hardware
 * cursor) or a linear RGB framebuffer drawn with the 8x16 font, whichever
 * SYS_FB_INFO describes. The bytes go through the terminal grid (lib/term.c:
 * \r \n \b \t and the CSI sequences A B C D, H, 2J, K); after each write
 * the device gets one scroll and the cells that changed.
 */
#include <stdio.h>
#include <string.h>
#include <vernier.h>
#include <lib/glyph.h>

#include "console.h"
#include <lib/term.h>

#define FB_RGB 1
#define FB_EGA_TEXT 2
#define VGA_CRTC 0x3d4          /* CRT controller index; data at +1 */

/* The font (build/gen/font.c, linked in when the build provides it). */
extern const unsigned char font_glyphs[256][16] __attribute__((weak));

static struct {
	int type;                 /* 0: no screen */
	uint8_t *mem;
	unsigned pitch, rows, cols, row, col;
	glyph_fb_t gfb;           /* FB_RGB: the framebuffer and its colours */
} scr;

static term_t term;          /* the cells; bytes go through it */

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
	scr.cols = fb->width / GLYPH_W;
	scr.rows = fb->height / GLYPH_H;
	uint32_t fg = (channel_max(fb->red_pos, fb->red_size) |
		       channel_max(fb->green_pos, fb->green_size) |
		       channel_max(fb->blue_pos, fb->blue_size)) & 0xc0c0c0c0u;
	scr.gfb = (glyph_fb_t){ scr.mem, fb->pitch, fb->bpp / 8u, fg | fg >> 2, 0 };  /* light grey */
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
	term_init(&term, scr.rows, scr.cols, scr.row, scr.col);
	scr.rows = term.rows;
	scr.cols = term.cols;
	return scr.type != 0;
}

void screen_size(unsigned *rows, unsigned *cols)
{
	*rows = scr.type ? scr.rows : 25;
	*cols = scr.type ? scr.cols : 80;
}

/* ---------------------------------------------------------------- cells */

static void put_cell(unsigned col, unsigned row, uint16_t v)
{
	if (scr.type == FB_EGA_TEXT)
		((volatile uint16_t *)scr.mem)[row * scr.cols + col] = v;
	else
		glyph_draw(&scr.gfb, col, row, font_glyphs[(unsigned char)v]);
}

/* term_dev_t: the device's lines up by n text lines (one memmove). */
static void dev_scroll(void *ctx, unsigned n)
{
	size_t line = scr.type == FB_EGA_TEXT ? scr.cols * 2u :
		(size_t)GLYPH_H * scr.pitch;

	(void)ctx;
	memmove(scr.mem, scr.mem + n * line, (scr.rows - n) * line);
}

/* term_dev_t: cells [c0, c1) of row. */
static void dev_draw(void *ctx, unsigned row, unsigned c0, unsigned c1, const uint16_t *cells)
{
	(void)ctx;
	for (unsigned c = c0; c < c1; c++)
		put_cell(c, row, cells[c - c0]);
}

static const term_dev_t screen_dev = { dev_scroll, dev_draw };

void screen_write(const char *s, size_t n)
{
	if (!scr.type)
		return;
	term_write(&term, s, n);
	term_flush(&term, &screen_dev, NULL);
	scr.row = term.row;
	scr.col = term.col;
	if (scr.type == FB_EGA_TEXT)
		vga_cursor_set();
}
