/* USTAR reading: see lib/ustar.h. */
#include <lib/string.h>
#include <lib/ustar.h>

#define BLOCK 512

typedef struct {
	char name[100], mode[8], uid[8], gid[8], size[12], mtime[12];
	char chksum[8], typeflag, linkname[100], magic[6], version[2];
	char uname[32], gname[32], devmajor[8], devminor[8], prefix[155];
	char pad[12];
} ustar_hdr_t;

_Static_assert(sizeof(ustar_hdr_t) == BLOCK, "ustar header size");

/* Parse an octal field (NUL/space terminated); false on a bad digit. */
static bool ustar_octal(const char *f, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;

	while (i < len && f[i] == ' ')
		i++;
	for (; i < len && f[i] >= '0' && f[i] <= '7'; i++) {
		if (v >> 60)
			return false;
		v = v * 8 + (uint64_t)(f[i] - '0');
	}
	if (i < len && f[i] != '\0' && f[i] != ' ')
		return false;
	*out = v;
	return true;
}

static bool ustar_checksum_ok(const ustar_hdr_t *h)
{
	const unsigned char *b = (const unsigned char *)h;
	uint64_t want, sum = 0;

	if (!ustar_octal(h->chksum, sizeof(h->chksum), &want))
		return false;
	for (size_t i = 0; i < BLOCK; i++)
		sum += (i >= 148 && i < 156) ? ' ' : b[i];
	return sum == want;
}

static bool ustar_zero_block(const unsigned char *b)
{
	for (size_t i = 0; i < BLOCK; i++)
		if (b[i])
			return false;
	return true;
}

/* prefix + "/" + name, without a leading "./" or "/". */
static void ustar_full_name(const ustar_hdr_t *h, char *out)
{
	size_t n = 0;
	size_t plen = strnlen(h->prefix, sizeof(h->prefix));
	size_t nlen = strnlen(h->name, sizeof(h->name));

	if (plen) {
		memcpy(out, h->prefix, plen);
		out[plen] = '/';
		n = plen + 1;
	}
	memcpy(out + n, h->name, nlen);
	out[n + nlen] = '\0';
	char *s = out;
	while (s[0] == '.' && s[1] == '/')
		s += 2;
	while (s[0] == '/')
		s++;
	memmove(out, s, strlen(s) + 1);
}

errno_t ustar_next(const void *archive, size_t size, size_t *offset,
		   ustar_entry_t *e)
{
	const unsigned char *a = archive;
	uint64_t fsize, mode;

	if (*offset > size || size - *offset < BLOCK || ustar_zero_block(a + *offset))
		return ENOENT;
	const ustar_hdr_t *h = (const ustar_hdr_t *)(a + *offset);
	if (memcmp(h->magic, "ustar", 5) || !ustar_checksum_ok(h) ||
	    !ustar_octal(h->size, sizeof(h->size), &fsize) ||
	    !ustar_octal(h->mode, sizeof(h->mode), &mode))
		return EINVAL;
	size_t data_off = *offset + BLOCK;
	if (fsize > size - data_off)
		return EINVAL;
	ustar_full_name(h, e->name);
	e->type = h->typeflag ? h->typeflag : '0';
	e->data = a + data_off;
	e->size = (size_t)fsize;
	e->mode = (uint32_t)mode;
	size_t padded = ((size_t)fsize + BLOCK - 1) / BLOCK * BLOCK;
	*offset = padded > size - data_off ? size : data_off + padded;
	return EOK;
}

errno_t ustar_find(const void *archive, size_t size, const char *path,
		   ustar_entry_t *e)
{
	size_t off = 0;
	errno_t rc;

	while (path[0] == '/')
		path++;
	while ((rc = ustar_next(archive, size, &off, e)) == EOK)
		if (e->type == '0' && !strcmp(e->name, path))
			return EOK;
	return rc;
}
