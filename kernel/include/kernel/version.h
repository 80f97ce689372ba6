/* Kernel version string. */
#ifndef KERNEL_VERSION_H
#define KERNEL_VERSION_H

#define VERNIER_VERSION "Vernier 0.1"

#endif
