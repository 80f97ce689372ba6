/*
 * Drawing 8x16 glyphs into a linear RGB framebuffer of 24 or 32 bits
 * per pixel (lib/glyph.c): the one glyph drawer of the kernel's
 * framebuffer console (kernel/fbcon.c) and the console server's
 * (uspace/srv/console/screen.c).
 */
#ifndef LIB_GLYPH_H
#define LIB_GLYPH_H

#include <stddef.h>
#include <stdint.h>

#define GLYPH_W 8               /* pixels; a row of a glyph is one byte, bit 7 leftmost */
#define GLYPH_H 16

/* A framebuffer to draw text cells into. */
typedef struct glyph_fb {
	uint8_t *mem;           /* its first pixel */
	size_t pitch;           /* bytes per scan line */
	unsigned bytes_pp;      /* 4 or 3 */
	uint32_t fg, bg;        /* pixel values */
} glyph_fb_t;

/* Draw glyph (GLYPH_H rows) into text cell (col, row), background included. */
void glyph_draw(const glyph_fb_t *fb, unsigned col, unsigned row,
		const unsigned char *glyph);

#endif
