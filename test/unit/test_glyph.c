/*
 * Unit tests for the glyph drawer (lib/glyph.c), the one the kernel's
 * framebuffer console and the console server draw with: a glyph of
 * known rows into cell (2, 1) of a small framebuffer of 4 and of 3 bytes
 * a pixel, with padding at the end of each scan line; every pixel of the
 * cell is fg or bg as the glyph's bits say (bit 7 leftmost), and no byte
 * outside the cell changes.
 */
#include "tap.h"

#include <string.h>

#include <lib/glyph.h>

#define COLS 4
#define ROWS 3
#define PAD 8                           /* bytes past each scan line's pixels (a pitch of whole words) */

static uint8_t fb[ROWS * GLYPH_H][COLS * GLYPH_W * 4 + PAD] __attribute__((aligned(8)));

/* Pixel (x, y) of a bytes_pp framebuffer. */
static uint32_t pixel(unsigned bytes_pp, unsigned x, unsigned y)
{
	const uint8_t *p = &fb[y][x * bytes_pp];

	return bytes_pp == 4 ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
		(uint32_t)p[3] << 24 : (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
}

/* Whether each pixel is what the glyph and the colours say, and the rest 0xee. */
static void check(unsigned bytes_pp, const unsigned char *g, uint32_t fg, uint32_t bg)
{
	unsigned wrong = 0, outside = 0, c0 = 2 * GLYPH_W, r0 = 1 * GLYPH_H;

	for (unsigned y = 0; y < ROWS * GLYPH_H; y++)
		for (unsigned x = 0; x < COLS * GLYPH_W; x++) {
			bool in = x >= c0 && x < c0 + GLYPH_W && y >= r0 && y < r0 + GLYPH_H;
			uint32_t want = !in ? (bytes_pp == 4 ? 0xeeeeeeeeu : 0xeeeeeeu) :
				g[y - r0] & (0x80 >> (x - c0)) ? fg : bg;
			if (pixel(bytes_pp, x, y) != want)
				in ? wrong++ : outside++;
		}
	for (unsigned y = 0; y < ROWS * GLYPH_H; y++)
		for (unsigned i = COLS * GLYPH_W * bytes_pp; i < sizeof(fb[0]); i++)
			outside += fb[y][i] != 0xee;
	is_int(wrong, 0, "%u bytes a pixel: every pixel of the cell as the glyph says", bytes_pp);
	is_int(outside, 0, "%u bytes a pixel: nothing outside the cell written", bytes_pp);
}

int main(void)
{
	unsigned char g[GLYPH_H];

	for (unsigned i = 0; i < GLYPH_H; i++)
		g[i] = (unsigned char)(0x81u ^ (i * 37u));
	for (unsigned bpp = 3; bpp <= 4; bpp++) {
		uint32_t fg = bpp == 4 ? 0x00aabbccu : 0xaabbccu, bg = bpp == 4 ? 0x11223344u : 0x223344u;
		glyph_fb_t f = { &fb[0][0], sizeof(fb[0]), bpp, fg, bg };
		memset(fb, 0xee, sizeof(fb));
		glyph_draw(&f, 2, 1, g);
		check(bpp, g, fg, bg);
	}
	return done_testing();
}
