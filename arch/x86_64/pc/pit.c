/* PIT channel 2 as a stopwatch for TSC calibration (gate via port 0x61). */
#include <arch/cpu.h>
#include <arch/io.h>
#include <arch/pc/pit.h>

#define PIT_CH2 0x42
#define PIT_CMD 0x43
#define PIT_GATE 0x61
#define GATE_ON 0x01
#define SPEAKER 0x02
#define OUT2 0x20

uint64_t pit_measure_cycles(unsigned ms)
{
	uint32_t count = PIT_HZ * ms / 1000;
	uint64_t spins = 0;

	if (count > 0xffff)
		count = 0xffff;
	outb(PIT_GATE, (inb(PIT_GATE) & ~SPEAKER) & ~GATE_ON);
	outb(PIT_CMD, 0xb0);                  /* ch2, lo/hi, mode 0, binary */
	outb(PIT_CH2, count & 0xff);
	outb(PIT_CH2, count >> 8);
	outb(PIT_GATE, (inb(PIT_GATE) & ~SPEAKER) | GATE_ON);
	uint64_t t0 = rdtsc();
	while (!(inb(PIT_GATE) & OUT2)) {
		if (++spins > 100000000)
			return 0;
	}
	return rdtsc() - t0;
}
