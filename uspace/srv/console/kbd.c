/*
 * The PS/2 keyboard (i8042, IRQ 1), scancode set 1 (the controller's
 * translation of the keyboard's set 2): shift, ctrl and caps lock; the
 * arrows, Home, End and Delete become ANSI escape sequences, the same
 * bytes a serial terminal sends.
 */
#include <vernier.h>

#include "console.h"

#define KBD_DATA 0x60
#define KBD_STATUS 0x64
#define STATUS_OUT 0x01
#define STATUS_AUX 0x20          /* the byte is from the mouse */
#define SC_RELEASE 0x80
#define SC_EXTENDED 0xe0
#define SC_LSHIFT 0x2a
#define SC_RSHIFT 0x36
#define SC_CTRL 0x1d
#define SC_CAPS 0x3a

static const char keymap[128] = {
	0, 27, '1', '2', '3', '4', '5', '6', '7', '8', '9', '0', '-', '=', 127,
	'\t', 'q', 'w', 'e', 'r', 't', 'y', 'u', 'i', 'o', 'p', '[', ']', '\r',
	0, 'a', 's', 'd', 'f', 'g', 'h', 'j', 'k', 'l', ';', '\'', '`',
	0, '\\', 'z', 'x', 'c', 'v', 'b', 'n', 'm', ',', '.', '/', 0,
	'*', 0, ' ',
};
static const char keymap_shift[128] = {
	0, 27, '!', '@', '#', '$', '%', '^', '&', '*', '(', ')', '_', '+', 127,
	'\t', 'Q', 'W', 'E', 'R', 'T', 'Y', 'U', 'I', 'O', 'P', '{', '}', '\r',
	0, 'A', 'S', 'D', 'F', 'G', 'H', 'J', 'K', 'L', ':', '"', '~',
	0, '|', 'Z', 'X', 'C', 'V', 'B', 'N', 'M', '<', '>', '?', 0,
	'*', 0, ' ',
};

static bool shift_l, shift_r, ctrl, caps, extended;

bool kbd_init(void)
{
	if (__vernier_syscall(SYS_IRQ_SUBSCRIBE, IRQ_KBD, CON_M_IRQ_KBD,
			      0, 0, 0, 0) < 0)
		return false;
	if (sys_ioport_allow(KBD_DATA, 1) != EOK || sys_ioport_allow(KBD_STATUS, 1) != EOK)
		return false;
	for (int i = 0; i < 64 && (inb(KBD_STATUS) & STATUS_OUT); i++)
		(void)inb(KBD_DATA);
	return true;
}

static void feed(const char *s)
{
	while (*s)
		tty_input((unsigned char)*s++);
}

/* An extended (E0-prefixed) key press. */
static void key_extended(uint8_t sc)
{
	switch (sc) {
	case 0x48: feed("\x1b[A"); break;   /* up */
	case 0x50: feed("\x1b[B"); break;   /* down */
	case 0x4d: feed("\x1b[C"); break;   /* right */
	case 0x4b: feed("\x1b[D"); break;   /* left */
	case 0x47: feed("\x1b[H"); break;   /* home */
	case 0x4f: feed("\x1b[F"); break;   /* end */
	case 0x53: feed("\x1b[3~"); break;  /* delete */
	case 0x1c: tty_input('\r'); break;  /* keypad enter */
	default: break;
	}
}

/* Modifier keys; returns whether sc was one. */
static bool key_modifier(uint8_t sc, bool down)
{
	switch (sc & ~SC_RELEASE) {
	case SC_LSHIFT: shift_l = down; return true;
	case SC_RSHIFT: shift_r = down; return true;
	case SC_CTRL: ctrl = down; return true;
	case SC_CAPS:
		if (down)
			caps = !caps;
		return true;
	default:
		return false;
	}
}

/* A plain key press: its byte with shift, caps lock and ctrl applied. */
static void key_plain(uint8_t sc)
{
	bool shift = shift_l || shift_r;
	char c = shift ? keymap_shift[sc] : keymap[sc];

	if (!c)
		return;
	if (caps && c >= 'a' && c <= 'z')
		c = (char)(c - 'a' + 'A');
	else if (caps && c >= 'A' && c <= 'Z')
		c = (char)(c - 'A' + 'a');
	if (ctrl && ((c | 0x20) >= 'a' && (c | 0x20) <= 'z'))
		c = (char)((c | 0x20) - 'a' + 1);
	tty_input((unsigned char)c);
}

static void kbd_scancode(uint8_t sc)
{
	bool down = !(sc & SC_RELEASE);

	if (sc == SC_EXTENDED) {
		extended = true;
		return;
	}
	if (extended) {
		extended = false;
		if ((sc & ~SC_RELEASE) == SC_CTRL)
			ctrl = down;
		else if (down)
			key_extended(sc);
		return;
	}
	if (!key_modifier(sc, down) && down)
		key_plain(sc);
}

void kbd_irq(void)
{
	uint8_t st;

	while ((st = inb(KBD_STATUS)) & STATUS_OUT) {
		uint8_t sc = inb(KBD_DATA);
		if (!(st & STATUS_AUX))
			kbd_scancode(sc);
	}
	__vernier_syscall(SYS_IRQ_ACK, IRQ_KBD, 0, 0, 0, 0, 0);
}
