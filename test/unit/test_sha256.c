/*
 * Unit tests for lib/sha256.c: the FIPS 180-4 example vectors (one and two
 * blocks), the empty message, one million 'a', runs of 'a' whose length
 * sits at the padding boundaries (55/56, 63/64, 119/120 bytes: digests
 * from Python's hashlib), and one flipped bit changing the digest.
 */
#include "tap.h"

#include <string.h>

#include <lib/sha256.h>

static char hex[65];

static const char *digest_hex(const void *data, size_t size)
{
	uint8_t d[SHA256_BYTES];

	sha256(data, size, d);
	for (int i = 0; i < SHA256_BYTES; i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
	return hex;
}

static char million[1000000];

int main(void)
{
	const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";

	is_str(digest_hex("abc", 3),
	       "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "\"abc\"");
	is_str(digest_hex("", 0),
	       "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "empty");
	is_str(digest_hex(two, strlen(two)),
	       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
	       "two-block message (448 bits)");
	memset(million, 'a', sizeof(million));
	is_str(digest_hex(million, sizeof(million)),
	       "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
	       "one million 'a'");
	static const struct { size_t n; const char *want; } runs[] = {
		{ 55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318" },
		{ 56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a" },
		{ 63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34" },
		{ 64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb" },
		{ 119, "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb" },
		{ 120, "2f3d335432c70b580af0e8e1b3674a7c020d683aa5f73aaaedfdc55af904c21c" },
	};
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++)
		is_str(digest_hex(million, runs[i].n), runs[i].want, "%zu times 'a'", runs[i].n);
	uint8_t a[SHA256_BYTES], b[SHA256_BYTES];
	int differ = 0;
	for (size_t n = 50; n < 200; n++) {
		sha256(million, n, a);
		million[n / 2] ^= 1;
		sha256(million, n, b);
		million[n / 2] ^= 1;
		differ += memcmp(a, b, sizeof(a)) != 0;
	}
	is_int(differ, 150, "a flipped bit changes the digest at every length 50..199");
	return done_testing();
}
