/*
 * tester: shared declarations of the subcommand files. Each subcommand
 * takes the arguments after its name (argv[0] is the subcommand) and
 * returns the exit status; 2 means bad arguments (usage already printed).
 */
#ifndef TESTER_H
#define TESTER_H

#include <abi/task.h>

/* Print the usage text to stdout (ok) or stderr (!ok). */
void usage(int ok);

/* fault.c: `fault KIND` and the fault functions the kernel report names. */
int cmd_fault(int argc, char **argv);
void fault_null(void);
void fault_div0(void);
void fault_priv(void);
unsigned long fault_stack(unsigned long depth);
void fault_kernel(void);
void fault_umip(void);
int cmd_touch_unmapped(int argc, char **argv);
void touch_unmapped(volatile unsigned char *p);

/* guard.c: `touch-protnone`, `thread-guard`, `thread-overflow`. */
int cmd_touch_protnone(int argc, char **argv);
int cmd_thread_guard(int argc, char **argv);
int cmd_thread_overflow(int argc, char **argv);
void touch_protnone(volatile unsigned char *p);
unsigned long overflow_stack(unsigned long depth);

/* harden.c: `smash` (a smashed canary must end the task), `canary`. */
int cmd_smash(int argc, char **argv);
int cmd_canary(int argc, char **argv);
int cmd_io(int argc, char **argv);
int cmd_io_deny(int argc, char **argv);
int cmd_io_revoke(int argc, char **argv);
int cmd_io_revoke_spin(int argc, char **argv);

/* spin.c: `spin SECONDS [THREADS]` and `threads [N]`. */
int cmd_spin(int argc, char **argv);
int cmd_threads(int argc, char **argv);

/* perms.c: probes that must be refused without permissions. */
int cmd_profil_peek(int argc, char **argv);
int cmd_klog_peek(int argc, char **argv);
int cmd_console_forge(int argc, char **argv);
int cmd_console_long(int argc, char **argv);
int cmd_raw(int argc, char **argv);
int cmd_prof_self(int argc, char **argv);
int cmd_ipc_short(int argc, char **argv);

/* restart.c: helpers of test/restart.t. */
int cmd_fsstale(int argc, char **argv);
int cmd_klog(int argc, char **argv);
/* kholes.c: probes of kernel holes (names, symbols, program cache, its charge per tree). */
int cmd_kholes(int argc, char **argv);
int cmd_kholes_fault(int argc, char **argv);
int cmd_kholes_flood(int argc, char **argv);
int cmd_kholes_hog(int argc, char **argv);
int cmd_kholes_victim(int argc, char **argv);

/* Parse a decimal number in [min, max]; 0 on success, -1 if bad. */
int parse_ulong(const char *s, unsigned long min, unsigned long max,
		unsigned long *out);

/* SYS_THREAD_STATS through the raw system call (0 or -errno). */
long get_thread_stats(thread_id_t id, thread_stats_t *st);

#endif
