/*
 * SHA-256 (FIPS 180-4), freestanding: the binary cache's content key (a
 * collision-resistant digest where FNV-1a could be forged).
 */
#ifndef LIB_SHA256_H
#define LIB_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_BYTES 32

/* The SHA-256 digest of data[0, size) into out. */
void sha256(const void *data, size_t size, uint8_t out[SHA256_BYTES]);

#endif
