/* Basic POSIX types. */
#ifndef _SYS_TYPES_H
#define _SYS_TYPES_H

#include <stddef.h>
#include <stdint.h>

typedef long ssize_t;
typedef long off_t;
typedef int pid_t;
typedef long time_t;
typedef long suseconds_t;
typedef unsigned int useconds_t;
typedef int clockid_t;
typedef long clock_t;

#endif
