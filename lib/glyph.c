/*
 * Glyphs into a framebuffer (lib/glyph.h): a cell is GLYPH_W x GLYPH_H
 * pixels, each written whole (volatile: device memory), 3 or 4 bytes.
 */
#include <lib/glyph.h>

/* One pixel of value v at p. */
static void glyph_pixel(const glyph_fb_t *fb, uint8_t *p, uint32_t v)
{
	if (fb->bytes_pp == 4) {
		*(volatile uint32_t *)p = v;
		return;
	}
	((volatile uint8_t *)p)[0] = (uint8_t)v;
	((volatile uint8_t *)p)[1] = (uint8_t)(v >> 8);
	((volatile uint8_t *)p)[2] = (uint8_t)(v >> 16);
}

void glyph_draw(const glyph_fb_t *fb, unsigned col, unsigned row,
		const unsigned char *glyph)
{
	uint8_t *line = fb->mem + (size_t)row * GLYPH_H * fb->pitch +
		(size_t)col * GLYPH_W * fb->bytes_pp;

	for (unsigned y = 0; y < GLYPH_H; y++, line += fb->pitch)
		for (unsigned x = 0; x < GLYPH_W; x++)
			glyph_pixel(fb, line + x * fb->bytes_pp,
				    glyph[y] & (0x80 >> x) ? fb->fg : fb->bg);
}
