/* Host tests for lib/ustar.c: reading the initrd format, hostile input. */
#include "tap.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <lib/ustar.h>

#define BLK 512

/* Append one USTAR member (header + padded data) at a->size. */
typedef struct { unsigned char *buf; size_t size, cap; } arch_t;

static void put_octal(char *f, size_t len, unsigned long v)
{
	snprintf(f, len, "%0*lo", (int)len - 1, v);
}

static void checksum(unsigned char *h)
{
	unsigned sum = 0;
	memset(h + 148, ' ', 8);
	for (int i = 0; i < BLK; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
	h[155] = ' ';
}

static unsigned char *add(arch_t *a, const char *name, char type, const char *data, size_t len)
{
	size_t need = BLK + (len + BLK - 1) / BLK * BLK;
	a->buf = realloc(a->buf, a->size + need + 2 * BLK);
	unsigned char *h = a->buf + a->size;
	memset(h, 0, need + 2 * BLK);
	strncpy((char *)h, name, 100);
	put_octal((char *)h + 100, 8, 0755);
	put_octal((char *)h + 124, 12, len);
	h[156] = (unsigned char)type;
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	checksum(h);
	memcpy(h + BLK, data, len);
	a->size += need;
	return h;
}

static arch_t sample(void)
{
	arch_t a = { 0 };
	add(&a, "bin/", '5', "", 0);
	add(&a, "bin/init", '0', "INIT-ELF", 8);
	add(&a, "./etc/motd", '0', "hello\n", 6);
	char big[1500];
	memset(big, 'x', sizeof(big));
	add(&a, "bin/big", '0', big, sizeof(big));
	return a;
}

static void test_find(void)
{
	arch_t a = sample();
	size_t total = a.size + 2 * BLK;
	ustar_entry_t e;

	is_int(ustar_find(a.buf, total, "/bin/init", &e), EOK, "find /bin/init");
	ok(e.size == 8 && !memcmp(e.data, "INIT-ELF", 8), "init data and size");
	is_int(ustar_find(a.buf, total, "etc/motd", &e), EOK, "find etc/motd (stored as ./etc/motd)");
	ok(e.size == 6 && !memcmp(e.data, "hello\n", 6), "motd data");
	is_int(ustar_find(a.buf, total, "bin/big", &e), EOK, "find a file after a padded one");
	is_uint(e.size, 1500, "big size");
	is_int(ustar_find(a.buf, total, "bin", &e), ENOENT, "a directory is not a file");
	is_int(ustar_find(a.buf, total, "bin/nope", &e), ENOENT, "missing file");
	is_uint(e.mode, 0755, "mode parsed");
	size_t off = 0, n = 0;
	while (ustar_next(a.buf, total, &off, &e) == EOK)
		n++;
	is_uint(n, 4, "iteration sees 4 members");
	free(a.buf);
}

static void test_hostile(void)
{
	arch_t a = sample();
	size_t total = a.size + 2 * BLK;
	ustar_entry_t e;

	/* Every truncation: never reads past the end (ASan), never crashes. */
	int bad = 0;
	for (size_t len = 0; len <= total; len++) {
		unsigned char *copy = malloc(len ? len : 1);
		memcpy(copy, a.buf, len);
		size_t off = 0;
		errno_t rc;
		while ((rc = ustar_next(copy, len, &off, &e)) == EOK)
			bad += (const unsigned char *)e.data + e.size > copy + len;
		free(copy);
	}
	is_int(bad, 0, "no entry reaches past a truncated archive");

	unsigned char *h = a.buf + BLK;        /* bin/init header */
	h[0] ^= 1;
	is_int(ustar_find(a.buf, total, "bin/init", &e), EINVAL, "bad checksum is EINVAL");
	h[0] ^= 1;
	put_octal((char *)h + 124, 12, 077777777);
	checksum(h);
	is_int(ustar_find(a.buf, total, "bin/init", &e), EINVAL, "size past the end is EINVAL");
	memcpy(h + 124, "12x4", 4);
	checksum(h);
	is_int(ustar_find(a.buf, total, "bin/init", &e), EINVAL, "non-octal size is EINVAL");

	srand(7);
	int crashes = 0;
	for (int round = 0; round < 20000; round++) {
		arch_t b = sample();
		size_t t = b.size + 2 * BLK;
		b.buf[rand() % t] = (unsigned char)rand();
		size_t off = 0;
		while (ustar_next(b.buf, t, &off, &e) == EOK)
			crashes += (const unsigned char *)e.data + e.size > b.buf + t;
		free(b.buf);
	}
	is_int(crashes, 0, "20000 corrupted archives stay in bounds");
	free(a.buf);
}

int main(void)
{
	test_find();
	test_hostile();
	return done_testing();
}
