/*
 * Stack-protector canaries: mixing raw entropy (hardware random numbers
 * or timestamp readings) into a canary value. Pure; shared by the kernel
 * and libc, tested on the host.
 */
#ifndef LIB_CANARY_H
#define LIB_CANARY_H

#include <stdint.h>

/* Fold word into the running hash h; returns the new hash (a 64-bit mixer). */
uint64_t canary_mix(uint64_t h, uint64_t word);

/*
 * The canary made from a random 64-bit value: its lowest byte is zero (a
 * string copy running over a buffer stops at it, so it can never write
 * the canary back), the rest never all zero.
 */
uint64_t canary_from(uint64_t r);

#endif
