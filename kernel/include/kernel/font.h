/*
 * Built-in 8x16 console font, generated at build time by tools/psf2c.py
 * into build/gen/font.c. Glyph i is code point i (ASCII, Latin-1 above
 * 0xa0); each row is one byte with the leftmost pixel in bit 7.
 */
#ifndef KERNEL_FONT_H
#define KERNEL_FONT_H

#define FONT_WIDTH 8
#define FONT_HEIGHT 16

extern const unsigned char font_glyphs[256][FONT_HEIGHT];
extern const unsigned int font_width, font_height;

#endif
