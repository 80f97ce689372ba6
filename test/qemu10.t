#!/usr/bin/env python3
"""test/qemu10.t - the default set-up on QEMU 10: -icount with x2APIC.

QEMU 10 gives TCG guests x2APIC, and under -icount a RDMSR of the x2APIC
timer's current count made QEMU abort ("Bad icount read") right after
`idle:` at boot. The kernel now times the timer's one-shot expiry there
instead (arch/x86_64/apic.c). This boots QEMU 10 (tools/qemu.sh --qemu
10: on Debian 12 the bookworm-backports build tools/setup.sh unpacks)
with --icount auto on 1, 2 and 4 CPUs: each must come up in x2APIC mode,
measure its timer by the expiry at QEMU's rate (its APIC timer counts
the 1 GHz virtual clock, divided by 16 here: 62.5 MHz, within 0.5%), get
every CPU online and leave nothing on QEMU's stderr about icount; then
the ktest suite must pass there on 2 CPUs. Skips (with the reason) only
where no QEMU 10 could be had. TAP on stdout, for prove.
"""

import os
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in test/lib
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))

import boottest as bt  # noqa: E402
import vm  # noqa: E402
from tap import Tap  # noqa: E402

FETCH = os.path.join(vm.TOP, "tools", "qemu-fetch.sh")
QEMU_APIC_HZ = 1000000000 // 16     # QEMU's APIC timer at divide-by-16
RATE_SLACK = 0.005
BOOT_TIMEOUT = 180
KTEST_TIMEOUT = 400


def qemu10():
    """The QEMU 10 binary, or None and why not."""
    p = subprocess.run([FETCH, "--print"], capture_output=True, text=True)
    if p.returncode != 0:
        return None, p.stderr.strip() or "tools/qemu-fetch.sh --print failed"
    return p.stdout.strip(), None


def timer_rate(r):
    """The rate the boot log gives for the timer measured by its expiry."""
    for line in r.grep(r"apic: timer at \d+ Hz \(measured by its one-shot expiry\)"):
        return int(line.split("timer at ")[1].split()[0])
    return None


def check_boot(tap, cpus):
    r = vm.boot(bt.ISO, cpus=cpus, accel="tcg", icount="auto",
                until=r"smp: \d+ CPUs online", timeout=BOOT_TIMEOUT, linger=0.5)
    name = "[qemu10 icount cpus=%d]" % cpus
    tap.ok("Bad icount read" not in r.stderr,
           "%s QEMU does not abort (%s)" % (name, r.summary()))
    tap.ok(r.grep(r"apic: local APIC in x2APIC mode"), "%s x2APIC mode" % name)
    rate = timer_rate(r)
    tap.ok(rate is not None and abs(rate - QEMU_APIC_HZ) <= QEMU_APIC_HZ * RATE_SLACK,
           "%s timer measured by its expiry at %s Hz (QEMU's is %d)" %
           (name, rate, QEMU_APIC_HZ))
    tap.ok(r.grep(r"smp: %d CPUs online" % cpus), "%s %d CPUs online (%r)" %
           (name, cpus, r.grep(r"^smp: ")))
    if not (r.grep(r"smp: %d CPUs online" % cpus) and "Bad icount read" not in r.stderr):
        bt.show_tail(tap, r)


def check_ktest(tap):
    r = vm.boot(bt.KTEST_ISO, cpus=2, accel="tcg", icount="auto",
                timeout=KTEST_TIMEOUT)
    failed = r.grep(r"^not ok ")
    passed = r.grep(r"^ok ")
    tap.ok(r.exit_code == 1 and passed and not failed,
           "[qemu10 icount cpus=2] ktest passes: %d ok, %d not ok (%s)" %
           (len(passed), len(failed), r.summary()))
    for line in failed:
        tap.diag(line)
    if r.exit_code != 1:
        bt.show_tail(tap, r)


def main():
    tap = Tap()
    binary, why = qemu10()
    if binary is None:
        tap.skip("QEMU 10 boots", "no QEMU 10 could be installed: %s" % why)
        tap.done()
    os.environ["VERNIER_QEMU"] = "10"
    tap.diag("QEMU 10: %s" % binary)
    bt.need_file(tap, bt.ISO, "ISO")
    bt.need_file(tap, bt.KTEST_ISO, "ktest ISO")
    for cpus in (1, 2, 4):
        check_boot(tap, cpus)
    check_ktest(tap)
    tap.done()


if __name__ == "__main__":
    main()
