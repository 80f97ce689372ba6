/*
 * Kernel log. Every line starts with a subsystem prefix ("mm: ", "smp: "):
 * define LOG_PREFIX before including this header and use pr_info() and
 * friends, or call printk() with the prefix written out.
 */
#ifndef KERNEL_PRINTK_H
#define KERNEL_PRINTK_H

#include <kernel/types.h>

/*
 * Format and write to every console and the log buffer. Takes the console
 * lock with interrupts disabled: not for NMI context (panic excepted).
 */
void printk(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Print a message, stop every other CPU and halt. Safe from any context. */
void panic(const char *fmt, ...) __attribute__((format(printf, 1, 2))) __noreturn;

#define pr_info(fmt, ...) printk(LOG_PREFIX ": " fmt "\n", ##__VA_ARGS__)
#define pr_warn(fmt, ...) printk(LOG_PREFIX ": warning: " fmt "\n", ##__VA_ARGS__)
#define pr_err(fmt, ...) printk(LOG_PREFIX ": error: " fmt "\n", ##__VA_ARGS__)

#define assert(cond)                                                        \
	do {                                                                \
		if (!(cond))                                                \
			panic("assert: %s failed at %s:%d", #cond, __FILE__, \
			      __LINE__);                                    \
	} while (0)

/* Lock-free printk for the panic path only. */
void printk_unlocked(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void console_write_unlocked(const char *s, size_t len);

#endif
