/*
 * poweroff: turn the machine off.
 *
 *   poweroff [-h]
 *
 * Takes the system permission (PERM_SYSTEM); returns only on failure,
 * with status 1.
 */
#include <vernier.h>

#include "power.h"

int main(int argc, char **argv)
{
	return power_main(argc, argv, "poweroff", "turn the machine off", POWEROFF_OFF);
}
