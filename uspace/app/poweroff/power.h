/* poweroff and reboot (power.c). */
#ifndef POWER_H
#define POWER_H

/*
 * The whole program called name: options (-h: usage with the line what,
 * exit 0; anything else: usage, exit 2), then sys_poweroff(how). Returns the exit status: 1 if the call failed.
 */
int power_main(int argc, char **argv, const char *name, const char *what, unsigned how);

#endif
