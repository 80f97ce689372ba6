/*
 * reboot: restart the machine.
 *
 *   reboot [-h]
 *
 * Takes the system permission (PERM_SYSTEM); returns only on failure,
 * with status 1.
 */
#include <vernier.h>

#include "../poweroff/power.h"

int main(int argc, char **argv)
{
	return power_main(argc, argv, "reboot", "restart the machine", POWEROFF_REBOOT);
}
