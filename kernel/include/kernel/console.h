/*
 * Kernel console sinks. printk() writes every line to each registered
 * console: COM1 always, plus VGA text (BIOS) or the framebuffer (UEFI).
 */
#ifndef KERNEL_CONSOLE_H
#define KERNEL_CONSOLE_H

#include <kernel/types.h>

typedef struct console {
	const char *name;
	/* Write len bytes; '\n' starts a new line. Called with the console lock held. */
	void (*write)(struct console *con, const char *s, size_t len);
	struct console *next;
} console_t;

/* Write raw bytes to every console (user output). */
void console_write(const char *s, size_t len);

/*
 * Write an unprivileged task's text: it starts on a line of its own and
 * every line of it begins with prefix (which no kernel line begins with),
 * so it cannot pass for a kernel line; the last line is ended.
 */
void console_write_user(const char *prefix, const char *s, size_t len);

/*
 * A user console server takes the devices over (owner non-NULL) or gives
 * them back (NULL, only by the owner): while owned, kernel output only
 * goes to the log, which the owner reads with klog_read(). A panic takes
 * the devices back. Returns EOK, EBUSY or EPERM.
 */
errno_t console_claim(void *owner, void *caller);
/* The kernel takes the devices back (power off, reboot, halt). */
void console_reclaim(void);
/* Give the devices back if owner has them (the owner died). */
void console_release(void *owner);

/*
 * Copy kernel log bytes from offset *pos (advanced; set to the oldest kept
 * byte if older ones were overwritten). Waits up to timeout_ns (0: not at
 * all) for new bytes. Returns the number copied.
 */
size_t klog_read(char *buf, size_t len, uint64_t *pos, uint64_t timeout_ns);
/* Make klog_read() able to sleep (once threads exist). */
void klog_init(void);

/* Add a console; output from now on goes to it too. */
void console_register(console_t *con);

/* Pixel framebuffer description, as the boot loader reported it. */
typedef struct boot_fb {
	paddr_t addr;
	uint32_t pitch;     /* bytes per scan line */
	uint32_t width;     /* pixels, or columns for EGA text */
	uint32_t height;    /* pixels, or rows for EGA text */
	uint8_t bpp;        /* bits per pixel (16 for EGA text) */
	uint8_t type;       /* BOOT_FB_RGB or BOOT_FB_EGA_TEXT */
	uint8_t red_pos, red_size;
	uint8_t green_pos, green_size;
	uint8_t blue_pos, blue_size;
} boot_fb_t;

#define BOOT_FB_NONE 0
#define BOOT_FB_RGB 1
#define BOOT_FB_EGA_TEXT 2

/*
 * The kernel's one screen console (kernel/textcon.c): bytes go through a
 * lib/term.h grid and each write is flushed to the device through dev
 * (its ctx), then cursor (may be NULL) is told where the cursor is. The
 * device shows rows x cols cells, already cleared. Registers the console
 * as name; call once (VGA text or a framebuffer, never both). Returns the
 * rows the grid uses (fewer beyond lib/term.h's limits, and then also
 * fewer columns): the ones the device scrolls.
 */
struct term_dev;
unsigned textcon_start(const char *name, unsigned rows, unsigned cols, const struct term_dev *dev,
		       void (*cursor)(unsigned row, unsigned col), void *ctx);

/*
 * Start a text console on a linear RGB framebuffer (8x16 built-in font,
 * 32 or 24 bpp) mapped at vaddr. Registers the console and returns EOK, or
 * ENOTSUP for a pixel format it cannot draw.
 */
errno_t fbcon_init(const boot_fb_t *fb, void *vaddr);

#endif
