/* The load average (kernel/sched/load.c). */
#ifndef KERNEL_LOAD_H
#define KERNEL_LOAD_H

#include <abi/sysinfo.h>

/* Start the thread that samples the load every 5 s. */
void load_init(void);
/* The averages and the last count. */
void load_get(sysinfo_load_t *out);
/* One sample: fold n runnable threads into avg (pure; unit-tested). */
void load_fold(uint64_t avg[3], uint32_t n);

#endif
