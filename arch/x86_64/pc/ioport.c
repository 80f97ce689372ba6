/*
 * The PC's ports user tasks may be given (SYS_IOPORT_ALLOW): the serial
 * ports, the PS/2 controller's data and status/command ports, and VGA's
 * registers. The kernel keeps the rest: PIC, PIT, CMOS clock (a profiling
 * source), PCI configuration, ACPI, QEMU's debug exit.
 */
#include <kernel/platform.h>
#include <kernel/task.h>

typedef struct ioport_range {
	uint16_t first, count;
} ioport_range_t;

static const ioport_range_t ioport_user[] = {
	{ 0x3f8, 8 },   /* COM1 */
	{ 0x2f8, 8 },   /* COM2 */
	{ 0x3e8, 8 },   /* COM3 */
	{ 0x2e8, 8 },   /* COM4 */
	{ 0x60, 1 },    /* PS/2 data */
	{ 0x64, 1 },    /* PS/2 status / command */
	{ 0x3b0, 48 },  /* VGA 0x3b0-0x3df */
};

_Static_assert(0x3b0 + 48 <= IOPORT_USER_LIMIT, "every range lies below the limit");

bool platform_ioport_grantable(unsigned port, unsigned count)
{
	for (size_t i = 0; i < sizeof(ioport_user) / sizeof(ioport_user[0]); i++) {
		const ioport_range_t *r = &ioport_user[i];
		if (port >= r->first && count <= r->count && port - r->first <= r->count - count)
			return true;
	}
	return false;
}
