/*
 * fmt_float for the kernel, which is built without floating point
 * (-mgeneral-regs-only): a double cannot even be passed to a kernel printf.
 * Should a floating-point conversion appear in a format anyway, its
 * specification is printed as text ("%-8.3f", with '*' values already
 * substituted) and no argument is consumed.
 */
#include <lib/fmt.h>

static const char *len_text(fmt_len_t len)
{
	switch (len) {
	case FMT_LEN_HH: return "hh";
	case FMT_LEN_H: return "h";
	case FMT_LEN_L: return "l";
	case FMT_LEN_LL: return "ll";
	case FMT_LEN_Z: return "z";
	case FMT_LEN_T: return "t";
	case FMT_LEN_J: return "j";
	case FMT_LEN_BIG_L: return "L";
	default: return "";
	}
}

static void put_flags(char *buf, size_t *n, unsigned flags)
{
	static const struct {
		unsigned bit;
		char c;
	} table[] = {
		{ FMT_LEFT, '-' }, { FMT_PLUS, '+' }, { FMT_SPACE, ' ' },
		{ FMT_ALT, '#' }, { FMT_ZERO, '0' },
	};

	for (unsigned i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		if (flags & table[i].bit)
			buf[(*n)++] = table[i].c;
	}
}

/* Rebuild the specification into buf (room for 48 bytes); its length. */
static size_t spec_text(char *buf, const fmt_spec_t *spec)
{
	size_t n = 0;

	buf[n++] = '%';
	put_flags(buf, &n, spec->flags);
	if (spec->width > 0)
		n += (size_t)fmt_snprintf(buf + n, 12, "%d", spec->width);
	if (spec->prec >= 0)
		n += (size_t)fmt_snprintf(buf + n, 13, ".%d", spec->prec);
	for (const char *l = len_text(spec->len); *l != '\0'; l++)
		buf[n++] = *l;
	buf[n++] = spec->conv;
	return n;
}

int fmt_float(fmt_sink_t sink, void *ctx, const fmt_spec_t *spec,
	      va_list *ap)
{
	char buf[48];
	size_t n = spec_text(buf, spec);

	if (sink)
		sink(ctx, buf, n);
	return (int)n;
}
