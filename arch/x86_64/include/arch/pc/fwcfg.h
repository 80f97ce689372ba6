/*
 * QEMU's firmware configuration device (fw_cfg, arch/x86_64/pc/fwcfg.c):
 * what tools/qemu.sh tells the guest that it cannot find out itself.
 */
#ifndef ARCH_PC_FWCFG_H
#define ARCH_PC_FWCFG_H

#include <abi/errno.h>
#include <stddef.h>

/* The -icount setting tools/qemu.sh passes ("auto" or a shift). */
#define FWCFG_ICOUNT_FILE "opt/vernier/icount"

/*
 * Read fw_cfg file name into buf (NUL-terminated, at most size - 1 bytes;
 * *len: how many). ENOTSUP without the device, ENOENT without the file.
 * Only under QEMU (another machine's port 0x510 may be anything); boot
 * CPU, before the other CPUs start (the selector is global).
 */
errno_t fwcfg_file(const char *name, char *buf, size_t size, size_t *len);

#endif
