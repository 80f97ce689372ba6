#!/usr/bin/env python3
"""test/boot.t - boot build/vernier.iso in QEMU (BIOS and UEFI, 1/2/4/8
CPUs) and check the boot log. TAP on stdout, for prove.

For each boot: the kernel reaches "smp: N CPUs online" with N = CPUs, says
it once (the log is read for 1 s more), prints nothing about a panic,
exception or fault, and every kernel line has a "subsys: " prefix. The TSC
rate comes from a quick source, not the PIT's 150 ms (issue 18): under TCG
from one HPET window (QEMU's CPUID has neither leaf 15h/16h nor 0x40000010),
under KVM from any source but the PIT. The kernel's "boot: N ms" figure
is the line right after the smp line. The host
time to the smp line and the kernel's own "boot: N ms ..." and
"mm: kernel footprint: ..." lines are reported as diagnostics.
"""

import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in test/lib
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))

import boottest as bt  # noqa: E402
import vm  # noqa: E402
from tap import Tap  # noqa: E402

FIRMWARES = ("bios", "uefi")
CPU_COUNTS = (1, 2, 4, 8)
TIMEOUT = 120       # seconds per boot (TCG boots take 2-6 s here)
LINGER = 1.0        # keep reading after the smp line, to catch a repeat


def boot_one(firmware, cpus):
    """Boot once; returns the vm.Result."""
    return vm.boot(bt.ISO, cpus=cpus, firmware=firmware, accel=bt.accel(),
                   timeout=TIMEOUT, until=bt.SMP_UNTIL, linger=LINGER)


def check(tap, firmware, cpus, r):
    """Report one boot as TAP tests."""
    name = bt.label(firmware, cpus)
    passed = True
    smp = [l for l in r.lines if bt.SMP_RE.search(l)]
    passed &= tap.ok(r.matched and not r.timed_out,
                     "%s reaches 'smp: N CPUs online'" % name)
    passed &= tap.ok(len(smp) == 1, "%s smp line appears once" % name)
    if len(smp) != 1:
        bt.show_lines(tap, "smp lines seen: %d" % len(smp), smp)
    counts = [int(bt.SMP_RE.search(l).group(1)) for l in smp]
    passed &= tap.ok(counts and all(n == cpus for n in counts),
                     "%s %d CPUs online" % (name, cpus))
    if counts and any(n != cpus for n in counts):
        tap.diag("kernel said: %s" % "; ".join(smp))
    passed &= check_console(tap, name, firmware, r)
    passed &= check_tsc_source(tap, name, r)
    passed &= check_boot_line(tap, name, r)
    bad = bt.trouble(r.lines)
    passed &= tap.ok(not bad, "%s no panic, exception or fault" % name)
    if bad:
        bt.show_lines(tap, "offending lines:", bad)
    klines = bt.kernel_lines(r.lines)
    loose = bt.unprefixed(r.lines)
    passed &= tap.ok(klines and not loose,
                     "%s every kernel line is 'subsys: text'" % name)
    if not klines:
        tap.diag("no kernel line (none matches %s)"
                 % bt.KERNEL_FIRST_RE.pattern)
    if loose:
        bt.show_lines(tap, "lines without a subsystem prefix:", loose)
    report(tap, name, r)
    if not passed:
        bt.show_tail(tap, r)


def check_console(tap, name, firmware, r):
    """The kernel knows its firmware and drives the right screen console."""
    kind = "UEFI" if firmware == "uefi" else "BIOS"
    ok = tap.ok(r.grep(r"^vernier: .* booted by GRUB .*\(%s\)$" % kind),
                "%s kernel says it was booted under %s" % (name, kind))
    screen = (r"^console: text on the \d+x\d+x(24|32) framebuffer at 0x[0-9a-f]+$"
              if firmware == "uefi" else r"^console: VGA text 80x25$")
    what = "the GOP framebuffer" if firmware == "uefi" else "VGA text mode"
    ok &= tap.ok(r.grep(screen), "%s screen console on %s" % (name, what))
    return ok


def check_boot_line(tap, name, r):
    """The kernel's boot figure is taken right at the smp line: the line
    after it (it used to come after prof_init and five more steps)."""
    lines = r.lines
    at = [i for i, l in enumerate(lines) if bt.SMP_RE.search(l)]
    ok = tap.ok(at and at[0] + 1 < len(lines)
                and bt.BOOT_MS_RE.search(lines[at[0] + 1]),
                "%s 'boot: N ms ...' is the line after the smp line" % name)
    if not ok and at:
        bt.show_lines(tap, "lines after the smp line:", lines[at[0] + 1:at[0] + 4])
    return ok


def check_tsc_source(tap, name, r):
    """The TSC rate came from the HPET (TCG) or at least not the PIT."""
    found = [m.group(1) for m in map(bt.TSC_SOURCE_RE.search, r.lines) if m]
    if bt.accel() == "tcg":
        ok = found == ["one HPET window"]
        want = "one HPET window"
    else:
        ok = len(found) == 1 and found[0] != "PIT"
        want = "a source other than the PIT"
    ok = tap.ok(ok, "%s TSC frequency from %s" % (name, want))
    if not ok:
        tap.diag("kernel said: %s" % (found or "nothing"))
    return ok


def report(tap, name, r):
    """Boot time and footprint diagnostics."""
    t = r.time_to(bt.SMP_UNTIL)
    ms = [bt.BOOT_MS_RE.search(l).group(1) for l in r.lines
          if bt.BOOT_MS_RE.search(l)]
    parts = []
    if t is not None:
        parts.append("host %.2f s from QEMU start to smp online" % t)
    if ms:
        parts.append("kernel %s ms from entry to smp online" % ms[0])
    if parts:
        tap.diag("%s %s" % (name, ", ".join(parts)))
    for line in r.lines:
        if bt.FOOTPRINT_RE.search(line):
            tap.diag("%s %s" % (name, line))
            break


def main():
    """Run every boot, two at a time, and report in a fixed order."""
    tap = Tap()
    bt.need_file(tap, bt.ISO, "ISO")
    configs = [(fw, n) for fw in FIRMWARES for n in CPU_COUNTS]
    jobs = [(bt.weight(n, bt.accel()),
             (lambda fw=fw, n=n: boot_one(fw, n))) for fw, n in configs]
    for (fw, n), r in zip(configs, bt.run_parallel(jobs)):
        check(tap, fw, n, r)
    tap.done()


if __name__ == "__main__":
    main()
