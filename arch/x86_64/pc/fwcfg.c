/*
 * QEMU's fw_cfg device through its x86 I/O ports: a 16-bit selector at
 * 0x510, the selected item's bytes one at a time at 0x511 (QEMU's
 * docs/specs/fw_cfg.rst). Item 0 is the signature "QEMU"; item 0x19 the
 * file directory: a big-endian count, then per file its size (BE32), its
 * selector (BE16), two reserved bytes and a 56-byte name.
 */
#include <arch/io.h>
#include <arch/pc/fwcfg.h>
#include <kernel/types.h>
#include <lib/string.h>

#define FWCFG_SEL 0x510
#define FWCFG_DATA 0x511
#define FWCFG_SIGNATURE 0x0000
#define FWCFG_FILE_DIR 0x0019
#define FWCFG_DIR_MAX 512              /* entries looked at */

typedef struct fwcfg_entry {
	uint8_t size[4], select[2], reserved[2];
	char name[56];
} fwcfg_entry_t;

static void fwcfg_read(void *buf, size_t n)
{
	uint8_t *p = buf;

	for (size_t i = 0; i < n; i++)
		p[i] = inb(FWCFG_DATA);
}

static uint32_t fwcfg_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Select item sel and read its first n bytes into buf. */
static void fwcfg_item(uint16_t sel, void *buf, size_t n)
{
	outw(FWCFG_SEL, sel);
	fwcfg_read(buf, n);
}

errno_t fwcfg_file(const char *name, char *buf, size_t size, size_t *len)
{
	uint8_t word[4];
	fwcfg_entry_t e;

	fwcfg_item(FWCFG_SIGNATURE, word, sizeof(word));
	if (memcmp(word, "QEMU", 4) || !size)
		return ENOTSUP;
	fwcfg_item(FWCFG_FILE_DIR, word, sizeof(word));
	uint32_t n = fwcfg_be32(word);
	for (uint32_t i = 0; i < n && i < FWCFG_DIR_MAX; i++) {
		fwcfg_read(&e, sizeof(e));
		if (strncmp(e.name, name, sizeof(e.name)))
			continue;
		size_t k = MIN((size_t)fwcfg_be32(e.size), size - 1);
		fwcfg_item((uint16_t)(e.select[0] << 8 | e.select[1]), buf, k);
		buf[k] = 0;
		*len = k;
		return EOK;
	}
	return ENOENT;
}
