/*
 * Hardening features the kernel found and turned on (sysinfo
 * system.hardening, an integer of these bits).
 */
#ifndef ABI_HARDEN_H
#define ABI_HARDEN_H

#define HARDEN_SMEP (1u << 0)    /* kernel never executes user pages */
#define HARDEN_SMAP (1u << 1)    /* kernel reads user pages only in its copy routine */
#define HARDEN_UMIP (1u << 2)    /* SGDT/SIDT/SLDT/SMSW/STR fault in user mode */
#define HARDEN_RDRAND (1u << 3)  /* the CPU has RDRAND */
#define HARDEN_RDSEED (1u << 4)  /* the CPU has RDSEED */
#define HARDEN_CANARY_HW (1u << 5) /* the kernel's canary came from RDSEED/RDRAND */

#endif
