/*
 * The kernel console's device on a linear RGB framebuffer (32 or 24 bits
 * per pixel): kernel/textcon.c's cells drawn with the built-in 8x16 font,
 * light grey on black, and scrolled by moving the framebuffer lines up.
 */
#include <kernel/console.h>
#include <kernel/font.h>
#include <kernel/types.h>
#include <lib/glyph.h>
#include <lib/term.h>
#include <lib/string.h>

static struct {
	glyph_fb_t gfb;         /* the framebuffer; foreground light grey, background 0 */
	uint32_t rows;          /* text rows the grid uses (textcon_start) */
} fbcon;

/* Scale an 8-bit channel to size bits and shift it to pos. */
static uint32_t fbcon_channel(uint8_t v, uint8_t pos, uint8_t size)
{
	uint32_t c = v;

	if (size < 8)
		c >>= 8 - size;
	else if (size > 8)
		c = (c << (size - 8)) | (c >> (16 - size));
	return c << pos;
}

static uint32_t fbcon_rgb(const boot_fb_t *fb, uint8_t r, uint8_t g, uint8_t b)
{
	return fbcon_channel(r, fb->red_pos, fb->red_size) |
	    fbcon_channel(g, fb->green_pos, fb->green_size) |
	    fbcon_channel(b, fb->blue_pos, fb->blue_size);
}

static bool fbcon_channel_ok(uint8_t pos, uint8_t size, uint8_t bpp)
{
	return size > 0 && size <= 16 && pos + size <= bpp;
}

static bool fbcon_format_ok(const boot_fb_t *fb)
{
	if (fb->type != BOOT_FB_RGB || (fb->bpp != 32 && fb->bpp != 24))
		return false;
	return fbcon_channel_ok(fb->red_pos, fb->red_size, fb->bpp) &&
	    fbcon_channel_ok(fb->green_pos, fb->green_size, fb->bpp) &&
	    fbcon_channel_ok(fb->blue_pos, fb->blue_size, fb->bpp);
}

/* term_dev_t: the text lines up by n. */
static void fbcon_scroll(void *ctx, unsigned n)
{
	size_t row_bytes = (size_t)GLYPH_H * fbcon.gfb.pitch;

	(void)ctx;
	memmove(fbcon.gfb.mem, fbcon.gfb.mem + n * row_bytes, (fbcon.rows - n) * row_bytes);
}

/* term_dev_t: cells [c0, c1) of row, each glyph with its background. */
static void fbcon_draw(void *ctx, unsigned row, unsigned c0, unsigned c1, const uint16_t *cells)
{
	(void)ctx;
	for (unsigned c = c0; c < c1; c++)
		glyph_draw(&fbcon.gfb, c, row, font_glyphs[(unsigned char)cells[c - c0]]);
}

static const term_dev_t fbcon_dev = { fbcon_scroll, fbcon_draw };

/*
 * Start the framebuffer console on fb, mapped at vaddr: clear the screen
 * and register it (call once). ENOTSUP for a pixel format other than 32/24-bit RGB,
 * EINVAL for a framebuffer too small for one text cell.
 */
errno_t fbcon_init(const boot_fb_t *fb, void *vaddr)
{
	if (!fbcon_format_ok(fb))
		return ENOTSUP;
	fbcon.gfb.bytes_pp = fb->bpp / 8;
	if (fb->width < GLYPH_W || fb->height < GLYPH_H ||
	    fb->pitch < (uint64_t)fb->width * fbcon.gfb.bytes_pp)
		return EINVAL;
	fbcon.gfb.mem = vaddr;
	fbcon.gfb.pitch = fb->pitch;
	fbcon.gfb.fg = fbcon_rgb(fb, 0xaa, 0xaa, 0xaa);
	fbcon.gfb.bg = 0;
	memset(fbcon.gfb.mem, 0, (size_t)fb->pitch * fb->height);
	fbcon.rows = textcon_start("fbcon", fb->height / GLYPH_H, fb->width / GLYPH_W, &fbcon_dev,
				   NULL, NULL);
	return EOK;
}
