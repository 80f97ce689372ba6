/* Stack-protector canaries: see <lib/canary.h>. */
#include <lib/canary.h>

/* The 64-bit finalizer of MurmurHash3: every input bit reaches every output bit. */
static uint64_t canary_avalanche(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

uint64_t canary_mix(uint64_t h, uint64_t word)
{
	return canary_avalanche(h ^ canary_avalanche(word + 0x9e3779b97f4a7c15ull));
}

uint64_t canary_from(uint64_t r)
{
	uint64_t c = r & ~0xffull;
	return c ? c : 0x5a17c0de5eed0000ull;
}
