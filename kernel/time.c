/* The kernel clock: see kernel/time.h. */
#include <kernel/printk.h>
#include <kernel/time.h>

#define LOG_PREFIX "time"

static uint64_t cycles_hz;
static uint64_t ns_mult;        /* ns per cycle, 32.32 fixed point */
static uint64_t boot_cycles;
static int64_t wall_offset_ns;     /* wall clock = time_ns() + offset */

void time_mark_boot(void)
{
	boot_cycles = arch_cycles();
}

uint64_t time_boot_cycles(void)
{
	return boot_cycles;
}

void time_init(void)
{
	cycles_hz = arch_cycles_calibrate();
	if (cycles_hz < 1000000)
		panic("time: implausible cycle counter frequency %lu Hz", cycles_hz);
	ns_mult = (NSEC_PER_SEC << 32) / cycles_hz;
	pr_info("cycle counter at %lu.%03lu MHz", cycles_hz / 1000000,
		cycles_hz / 1000 % 1000);
}

uint64_t time_cycles_per_sec(void)
{
	return cycles_hz;
}

uint64_t time_cycles_to_ns(uint64_t cycles)
{
	return (uint64_t)(((unsigned __int128)cycles * ns_mult) >> 32);
}

uint64_t time_ns(void)
{
	return time_cycles_to_ns(arch_cycles() - boot_cycles);
}

void time_delay_us(uint64_t us)
{
	uint64_t start = arch_cycles();
	/* Whole MHz, then the rest: 49.999 MHz must not wait as if 49 (Bochs). */
	uint64_t wait = cycles_hz / 1000000 * us + cycles_hz % 1000000 * us / 1000000;
	while (arch_cycles() - start < wait)
		cpu_relax();
}

void time_set_wall(int64_t unix_seconds)
{
	wall_offset_ns = unix_seconds * (int64_t)NSEC_PER_SEC - (int64_t)time_ns();
}

uint64_t time_wall_ns(void)
{
	return (uint64_t)((int64_t)time_ns() + wall_offset_ns);
}
