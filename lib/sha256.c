/* SHA-256 (FIPS 180-4) over a buffer in memory; see lib/sha256.h. */
#include <lib/sha256.h>
#include <lib/string.h>

/* The first 32 bits of the fractional parts of the cube roots of the first 64 primes. */
static const uint32_t sha256_k[64] = {
	0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u,
	0x3956c25bu, 0x59f111f1u, 0x923f82a4u, 0xab1c5ed5u,
	0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u,
	0x72be5d74u, 0x80deb1feu, 0x9bdc06a7u, 0xc19bf174u,
	0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu,
	0x2de92c6fu, 0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau,
	0x983e5152u, 0xa831c66du, 0xb00327c8u, 0xbf597fc7u,
	0xc6e00bf3u, 0xd5a79147u, 0x06ca6351u, 0x14292967u,
	0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu, 0x53380d13u,
	0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u,
	0xa2bfe8a1u, 0xa81a664bu, 0xc24b8b70u, 0xc76c51a3u,
	0xd192e819u, 0xd6990624u, 0xf40e3585u, 0x106aa070u,
	0x19a4c116u, 0x1e376c08u, 0x2748774cu, 0x34b0bcb5u,
	0x391c0cb3u, 0x4ed8aa4au, 0x5b9cca4fu, 0x682e6ff3u,
	0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u,
	0x90befffau, 0xa4506cebu, 0xbef9a3f7u, 0xc67178f2u,
};

/*
 * Not instrumented (make CPROFILE=1): 576 calls a block would each go
 * through the call profiler's hooks, and every spawn hashes its image
 * (kernel/proc/binary.c). With these and a memmove a round hooked, the
 * call-profiled 4-CPU ktest boot ran past its 180 s; without, 45 s.
 */
static inline __attribute__((no_instrument_function)) uint32_t sha256_ror(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

/* The message schedule of one 64-byte block. */
static void sha256_schedule(const uint8_t *blk, uint32_t w[64])
{
	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)blk[4 * i] << 24 | (uint32_t)blk[4 * i + 1] << 16 |
		       (uint32_t)blk[4 * i + 2] << 8 | blk[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = sha256_ror(w[i - 15], 7) ^ sha256_ror(w[i - 15], 18) ^
			      (w[i - 15] >> 3);
		uint32_t s1 = sha256_ror(w[i - 2], 17) ^ sha256_ror(w[i - 2], 19) ^
			      (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
}

/* Fold one 64-byte block into the state h. */
static void sha256_block(uint32_t h[8], const uint8_t *blk)
{
	uint32_t w[64];
	uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];

	sha256_schedule(blk, w);
	for (int i = 0; i < 64; i++) {
		uint32_t s1 = sha256_ror(e, 6) ^ sha256_ror(e, 11) ^ sha256_ror(e, 25);
		uint32_t ch = (e & f) ^ (~e & g);
		uint32_t t1 = k + s1 + ch + sha256_k[i] + w[i];
		uint32_t s0 = sha256_ror(a, 2) ^ sha256_ror(a, 13) ^ sha256_ror(a, 22);
		uint32_t maj = (a & b) ^ (a & c) ^ (b & c);

		k = g;
		g = f;
		f = e;
		e = d + t1;
		d = c;
		c = b;
		b = a;
		a = t1 + s0 + maj;
	}
	h[0] += a, h[1] += b, h[2] += c, h[3] += d;
	h[4] += e, h[5] += f, h[6] += g, h[7] += k;
}

void sha256(const void *data, size_t size, uint8_t out[SHA256_BYTES])
{
	uint32_t h[8] = { 0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au,
			  0x510e527fu, 0x9b05688cu, 0x1f83d9abu, 0x5be0cd19u };
	const uint8_t *p = data;
	uint8_t tail[128] = { 0 };
	size_t full = size & ~(size_t)63, rest = size - full;
	size_t tail_len = rest < 56 ? 64 : 128;
	uint64_t bits = (uint64_t)size * 8;

	for (size_t off = 0; off < full; off += 64)
		sha256_block(h, p + off);
	memcpy(tail, p + full, rest);
	tail[rest] = 0x80;
	for (int i = 0; i < 8; i++)
		tail[tail_len - 1 - i] = (uint8_t)(bits >> (8 * i));
	for (size_t off = 0; off < tail_len; off += 64)
		sha256_block(h, tail + off);
	for (int i = 0; i < 32; i++)
		out[i] = (uint8_t)(h[i / 4] >> (24 - 8 * (i % 4)));
}
