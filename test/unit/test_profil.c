/*
 * Unit tests for the classic profiler's bin arithmetic
 * (kernel/profil/calc.c): the examples of the MINIX assignment
 * (README "profil"), range defaults and checks, bin lookup and the
 * overflow stop.
 */
#include "tap.h"

#include <string.h>

#include <kernel/profil.h>

static struct profil_data d;

/* Geometry of a range of len bytes from 0x1000 with interval. */
static errno_t geom(uint64_t len, uint64_t interval)
{
	memset(&d, 0, sizeof(d));
	return profil_geometry(0x1000, 0x1000 + len, interval, &d);
}

static void test_document_examples(void)
{
	is_int(geom(40008, 0), EOK, "40008 bytes: accepted");
	is_uint(d.bin_sz, 40, "40008 bytes: bin size 40 (39 rounded up)");
	is_uint(d.nr_bins, 1001, "40008 bytes: 1001 bins used");
	is_uint(d.end_addr - d.start_addr - (d.nr_bins - 1) * d.bin_sz, 8,
		"40008 bytes: the last bin covers 8 bytes");
	is_int(geom(1025, 0), EOK, "1025 bytes: accepted");
	is_uint(d.bin_sz, 2, "1025 bytes: 2 bytes a bin");
	is_uint(d.nr_bins, 513, "1025 bytes: 513 bins used");
	is_int(geom(400, 64), EOK, "0..400 by 64: accepted");
	is_uint(d.nr_bins, 7, "0..400 by 64: bins 0..6");
	is_int(profil_bin_of(&d, 0x1000 + 399), 6, "address 399 is in bin 6");
	is_int(profil_bin_of(&d, 0x1000 + 64), 1, "address 64 is in bin 1");
	is_int(profil_bin_of(&d, 0x1000 + 63), 0, "address 63 is in bin 0");
}

static void test_sample_runs(void)
{
	/* profil -s 0x50 -e 0x300 -i 128 / -i 0x49 / -i 0x1a -e 0x247 */
	is_int(profil_geometry(0x50, 0x300, 128, &d), EOK, "0x50..0x300 by 128");
	is_uint(d.bin_sz, 128, "... bin size 128");
	is_uint(d.nr_bins, 6, "... 6 bins");
	is_int(profil_geometry(0x50, 0x300, 0x49, &d), EOK, "0x50..0x300 by 0x49");
	is_uint(d.nr_bins, 10, "... 10 bins");
	is_int(profil_bin_of(&d, 0x206), 6, "0x206 starts bin 6 (0206-024e)");
	is_int(profil_bin_of(&d, 0x205), 5, "0x205 ends bin 5 (01bd-0205)");
	is_int(profil_geometry(0x50, 0x247, 0x1a, &d), EOK, "0x50..0x247 by 0x1a");
	is_uint(d.nr_bins, 20, "... 20 bins");
	is_int(profil_geometry(0x50, 0x300, 0, &d), EOK, "0x50..0x300 by default");
	is_uint(d.bin_sz, 1, "... 1 byte a bin (688 <= 1024)");
	is_uint(d.nr_bins, 688, "... 688 bins");
}

static void test_interval(void)
{
	is_int(geom(4096, 3), EFAULT, "interval 3 for 4096 bytes needs 1366 bins: EFAULT");
	is_int(geom(4096, 4), EOK, "interval 4 for 4096 bytes: exactly 1024 bins");
	is_uint(d.nr_bins, 1024, "... 1024 bins");
	is_int(geom(4097, 0), EOK, "4097 bytes by default");
	is_uint(d.bin_sz, 5, "... 5 bytes a bin");
	is_uint(d.nr_bins, 820, "... 820 bins");
	is_int(geom(100, 0x8000), EOK, "an interval larger than the range");
	is_uint(d.nr_bins, 1, "... one bin");
	is_int(profil_bin_of(&d, 0x1000 + 100), -1, "the end address is outside");
	is_int(profil_bin_of(&d, 0xfff), -1, "below the start is outside");
}

static void test_range(void)
{
	uint64_t s = 0, e = 0;

	is_int(profil_range(0x400000, 0x409000, &s, &e), EOK, "0, 0: the whole text");
	ok(s == 0x400000 && e == 0x409000, "... resolved to the text segment");
	s = 0x400200, e = 0;
	is_int(profil_range(0x400000, 0x409000, &s, &e), EOK, "end 0: to the end of text");
	is_uint(e, 0x409000, "... end is the text end");
	s = 0x400300, e = 0x400020;
	is_int(profil_range(0x400000, 0x409000, &s, &e), EFAULT, "start > end: EFAULT");
	s = 0x400300, e = 0x400300;
	is_int(profil_range(0x400000, 0x409000, &s, &e), EFAULT, "empty range: EFAULT");
	s = 0x400000, e = 0x409001;
	is_int(profil_range(0x400000, 0x409000, &s, &e), EFAULT, "past the text: EFAULT");
	s = 0x3fffff, e = 0x400100;
	is_int(profil_range(0x400000, 0x409000, &s, &e), EFAULT, "below the text: EFAULT");
}

static void test_overflow(void)
{
	uint64_t bin = 41;

	ok(profil_bin_inc(&bin) && bin == 42, "a bin counts up");
	bin = UINT64_MAX - 1;
	ok(profil_bin_inc(&bin) && bin == UINT64_MAX, "up to its maximum");
	ok(!profil_bin_inc(&bin) && bin == UINT64_MAX, "then refuses (overflow) and keeps it");
}

int main(void)
{
	test_document_examples();
	test_sample_runs();
	test_interval();
	test_range();
	test_overflow();
	return done_testing();
}
