/*
 * Text console on a linear RGB framebuffer (32 or 24 bits per pixel),
 * drawn with the built-in 8x16 font: light grey on black, line wrap,
 * scrolling by moving the framebuffer lines up.
 */
#include <kernel/console.h>
#include <kernel/font.h>
#include <kernel/types.h>
#include <lib/glyph.h>
#include <lib/string.h>

static struct {
	console_t con;
	glyph_fb_t gfb;         /* the framebuffer; foreground light grey, background 0 */
	uint32_t cols, rows;    /* text cells */
	uint32_t col, row;      /* cursor; col == cols means wrap pending */
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

/* Draw glyph c (background included) into text cell (col, row). */
static void fbcon_draw(uint32_t col, uint32_t row, unsigned char c)
{
	glyph_draw(&fbcon.gfb, col, row, font_glyphs[c]);
}

/* Clear text rows [first, first + n) to the background. */
static void fbcon_clear_rows(uint32_t first, uint32_t n)
{
	size_t row_bytes = (size_t)GLYPH_H * fbcon.gfb.pitch;

	memset(fbcon.gfb.mem + first * row_bytes, 0, n * row_bytes);
}

static void fbcon_scroll(void)
{
	size_t row_bytes = (size_t)GLYPH_H * fbcon.gfb.pitch;

	memmove(fbcon.gfb.mem, fbcon.gfb.mem + row_bytes, (fbcon.rows - 1) * row_bytes);
	fbcon_clear_rows(fbcon.rows - 1, 1);
}

static void fbcon_newline(void)
{
	fbcon.col = 0;
	if (fbcon.row + 1 < fbcon.rows)
		fbcon.row++;
	else
		fbcon_scroll();
}

static void fbcon_tab(void)
{
	if (fbcon.col >= fbcon.cols)
		fbcon_newline();
	fbcon.col = MIN(ALIGN_DOWN(fbcon.col + 8, 8), fbcon.cols);
}

static void fbcon_putc(unsigned char c)
{
	switch (c) {
	case '\n':
		fbcon_newline();
		return;
	case '\r':
		fbcon.col = 0;
		return;
	case '\t':
		fbcon_tab();
		return;
	case '\b':
		if (fbcon.col > 0)
			fbcon.col--;
		return;
	}
	if (c < 0x20 || c == 0x7f)
		return;
	if (fbcon.col >= fbcon.cols)
		fbcon_newline();
	fbcon_draw(fbcon.col++, fbcon.row, c);
}

static void fbcon_write(console_t *con, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		fbcon_putc((unsigned char)s[i]);
}

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
	fbcon.cols = fb->width / GLYPH_W;
	fbcon.rows = fb->height / GLYPH_H;
	fbcon.col = fbcon.row = 0;
	memset(fbcon.gfb.mem, 0, (size_t)fb->pitch * fb->height);
	fbcon.con.name = "fbcon";
	fbcon.con.write = fbcon_write;
	console_register(&fbcon.con);
	return EOK;
}
