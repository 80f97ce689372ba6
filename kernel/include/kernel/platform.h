/*
 * Hooks the platform (arch/x86_64/pc on a PC) provides to the generic
 * kernel: reset, power and the test machine's exit port.
 */
#ifndef KERNEL_PLATFORM_H
#define KERNEL_PLATFORM_H

#include <kernel/types.h>

/* Generic kernel entry, called by the arch boot code on the boot stack. */
void kmain(void) __noreturn;

/* Boot CPU's first steps: per-CPU data, descriptor tables, serial console, boot info. */
void arch_early_init(void);

/* Firmware tables and interrupt controllers (ACPI, PIC masked, IOAPIC). */
void platform_init(void);

/* Screen console: VGA text or framebuffer, whichever the loader set up. */
void platform_console_init(void);

/* Wall clock from the battery-backed clock (after time_init). */
void platform_wall_clock_init(void);

/* Local interrupt controller of the boot CPU. */
void platform_cpu_irq_init(void);

/* Route ISA IRQ irq to vector on the boot CPU, unmasked. EOK or ENOENT. */
errno_t platform_irq_route(unsigned irq, unsigned vector);
/* Mask / unmask the line of ISA IRQ irq. Any context. */
void platform_irq_mask(unsigned irq);
void platform_irq_unmask(unsigned irq);

/*
 * End a self-test run: report pass/fail through QEMU's isa-debug-exit when
 * present, otherwise halt. Never returns.
 */
void platform_test_exit(bool pass) __noreturn;

/*
 * Whether user tasks may ever be given ports [port, port + count): serial
 * ports, the PS/2 controller and VGA on a PC; never the timers, interrupt
 * controllers, clock, PCI or ACPI. All lie below IOPORT_USER_LIMIT.
 */
bool platform_ioport_grantable(unsigned port, unsigned count);

/* Stop every CPU. Never returns. */
void platform_halt(void) __noreturn;
/* Turn the machine off (ACPI S5); halts if that fails. */
void platform_poweroff(void) __noreturn;
/* Restart the machine. */
void platform_reboot(void) __noreturn;

/*
 * Write len raw bytes to the platform's dump port (COM2 on a PC), polled,
 * no lock: the panic's dump of the flight recorder. Interrupts off.
 */
void platform_dump_write(const void *buf, size_t len);

/*
 * Final stop after a panic: under ktest report failure to the test
 * machine, otherwise halt this CPU forever.
 */
void platform_fail_stop(void) __noreturn;

/*
 * Find out whether an emulator that biases samples runs us (after
 * time_init, boot CPU, before the other CPUs start); logs what it found.
 */
void platform_sampling_init(void);
/* PLATFORM_NATIVE, PLATFORM_TCG_ICOUNT or PLATFORM_TCG (<abi/platform.h>). */
unsigned platform_sampling(void);
/*
 * Under PLATFORM_TCG_ICOUNT: do the vCPUs take uneven turns, so that SMP
 * shares are off (a QEMU before 8.1)? False elsewhere. Any context.
 */
bool platform_icount_uneven(void);
/*
 * Under PLATFORM_TCG_ICOUNT: shift=auto (guest time follows the host's
 * emulation speed, so samples follow it, not instructions), as the
 * machine's launcher told (QEMU fw_cfg opt/vernier/icount)? False
 * elsewhere and when not told. Any context.
 */
bool platform_icount_auto(void);
/* Does a hypervisor or an emulator run us (CPUID's hypervisor bit)? Any context. */
bool platform_virtual(void);

#endif
