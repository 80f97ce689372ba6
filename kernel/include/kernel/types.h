/* Basic kernel types. */
#ifndef KERNEL_TYPES_H
#define KERNEL_TYPES_H

#include <abi/errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint64_t paddr_t;   /* physical address */
typedef uintptr_t vaddr_t;  /* kernel virtual address */

#define KiB(x) ((uint64_t)(x) << 10)
#define MiB(x) ((uint64_t)(x) << 20)
#define GiB(x) ((uint64_t)(x) << 30)

#define ALIGN_DOWN(x, a) ((x) & ~((__typeof__(x))(a) - 1))
#define ALIGN_UP(x, a) ALIGN_DOWN((x) + (a) - 1, (a))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

#define __noreturn __attribute__((noreturn))
#define __noinline __attribute__((noinline))
#define __packed __attribute__((packed))
#define __aligned(x) __attribute__((aligned(x)))
#define __unused __attribute__((unused))

#endif
