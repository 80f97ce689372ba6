/* Kernel command line lookups over boot_info.cmdline. */
#define LOG_PREFIX "cmdline"
#include <kernel/bootinfo.h>
#include <kernel/cmdline.h>
#include <kernel/printk.h>
#include <lib/string.h>

#define CMDLINE_UINT_CHARS 24        /* a value's bytes looked at (2^64 has 20 digits);
					   one that fills them may be cut: refused */

/* Start of the word named key (followed by '=', ' ' or NUL), or NULL. */
static const char *cmdline_find(const char *key)
{
	size_t klen = strlen(key);
	const char *p = boot_info.cmdline;

	while (*p) {
		while (*p == ' ')
			p++;
		const char *w = p;
		while (*p && *p != ' ')
			p++;
		if ((size_t)(p - w) >= klen && !strncmp(w, key, klen) &&
		    (w[klen] == ' ' || w[klen] == '=' || w[klen] == '\0'))
			return w;
	}
	return NULL;
}

bool cmdline_has(const char *word)
{
	return cmdline_find(word) != NULL;
}

bool cmdline_get(const char *key, char *buf, size_t size)
{
	const char *w = cmdline_find(key);
	size_t n = 0;

	if (!w)
		return false;
	w += strlen(key);
	if (*w == '=')
		w++;
	while (w[n] && w[n] != ' ')
		n++;
	if (size) {
		size_t c = MIN(n, size - 1);
		memcpy(buf, w, c);
		buf[c] = '\0';
	}
	return true;
}

uint64_t cmdline_uint(const char *key, uint64_t min, uint64_t max, uint64_t def)
{
	char buf[CMDLINE_UINT_CHARS];
	uint64_t v;

	if (!cmdline_get(key, buf, sizeof(buf)))
		return def;
	bool whole = strlen(buf) < sizeof(buf) - 1;     /* not cut by cmdline_get */
	if (whole && str_to_u64(buf, max, &v) && v >= min)
		return v;
	pr_warn("%s=%s: not a number in %lu..%lu; %lu used", key, buf, min, max, def);
	return def;
}
