/*
 * What the machine is, as far as profile exactness goes: the value of the
 * sysinfo node system.platform (kernel: platform_sampling()).
 */
#ifndef ABI_PLATFORM_H
#define ABI_PLATFORM_H

/* Hardware or a hypervisor: interrupts land on any instruction. */
#define PLATFORM_NATIVE 0
/* QEMU TCG with -icount: interrupts on exact instruction counts. */
#define PLATFORM_TCG_ICOUNT 1
/*
 * QEMU TCG without -icount: interrupts are taken only at translation-block
 * starts and timers follow host time, so samples pile up on block heads.
 */
#define PLATFORM_TCG 2

#endif
