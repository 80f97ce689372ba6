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

/* TSC cycles for ms of PIT channel 2 (at most ~55 ms), or 0 if it never ran out. */
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
	/*
	 * The TSC is read before the gate opens: a vCPU descheduled between
	 * the two can then only lengthen the window (the caller keeps the
	 * shortest), never cut it short. Read after, an overloaded host gave
	 * windows of almost nothing and a boot panicked on a 0.3 MHz TSC.
	 */
	uint64_t t0 = rdtsc();
	outb(PIT_GATE, (inb(PIT_GATE) & ~SPEAKER) | GATE_ON);
	while (!(inb(PIT_GATE) & OUT2)) {
		if (++spins > 100000000)
			return 0;
	}
	return rdtsc() - t0;
}
