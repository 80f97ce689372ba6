/*
 * The kernel's screen console: printk's bytes are written into a terminal
 * grid (lib/term.c) and flushed to the device, which draws only the cells
 * that changed and moves its lines once per write. The devices are VGA
 * text (arch/x86_64/pc/vga.c) and an RGB framebuffer (kernel/fbcon.c);
 * the user console server (uspace/srv/console/screen.c) does the same
 * with its own grid once it owns the screen.
 */
#include <kernel/console.h>
#include <lib/term.h>

static struct {
	console_t con;
	term_t term;                     /* the cells: the console lock guards them */
	const term_dev_t *dev;
	void (*cursor)(unsigned row, unsigned col);
	void *ctx;
} textcon;

static void textcon_write(console_t *con, const char *s, size_t len)
{
	(void)con;
	term_write(&textcon.term, s, len);
	term_flush(&textcon.term, textcon.dev, textcon.ctx);
	if (textcon.cursor)
		textcon.cursor(textcon.term.row, textcon.term.col);
}

unsigned textcon_start(const char *name, unsigned rows, unsigned cols, const term_dev_t *dev,
		       void (*cursor)(unsigned row, unsigned col), void *ctx)
{
	term_init(&textcon.term, rows, cols, 0, 0);
	textcon.dev = dev;
	textcon.cursor = cursor;
	textcon.ctx = ctx;
	if (cursor)
		cursor(0, 0);
	textcon.con.name = name;
	textcon.con.write = textcon_write;
	console_register(&textcon.con);
	return textcon.term.rows;
}
