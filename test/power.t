#!/usr/bin/env python3
"""test/power.t - power off and reboot through the kernel (ACPI S5, the
FADT reset register / keyboard controller). Boots "-- tester power off"
under BIOS and UEFI and "-- tester power reboot" (QEMU runs with
-no-reboot, so a reset ends it): each must end QEMU by itself with status 0
(no isa-debug-exit involved) and log its "power:" line. TAP for prove.
"""

import os
import re
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))

import boottest as bt  # noqa: E402
import vm  # noqa: E402
from tap import Tap  # noqa: E402

KERNEL = os.path.join(bt.BUILD, "kernel.elf")
INITRD = os.path.join(bt.BUILD, "initrd.tar")
MKISO = os.path.join(bt.TOP, "tools", "mkiso.sh")
TIMEOUT = 120
CASES = (("off", "bios"), ("off", "uefi"), ("reboot", "bios"))


def make_iso(tmp, how):
    """An ISO whose init runs `tester power HOW`."""
    path = os.path.join(tmp, "power-%s.iso" % how)
    subprocess.run([MKISO, "--initrd", INITRD, path, KERNEL,
                    "-- tester power %s" % how], check=True)
    return path


def check(tap, how, firmware, r):
    """QEMU ended by itself, cleanly, after the kernel's power line."""
    name = "[%s cpus=2 power %s]" % (firmware, how)
    line = r"^power: off \(ACPI S5\)$" if how == "off" else r"^power: reboot$"
    ok = tap.ok(not r.timed_out, "%s QEMU ended by itself" % name)
    ok &= tap.ok(r.exit_code == 0, "%s QEMU exit status 0 (got %s)"
                 % (name, r.exit_code))
    ok &= tap.ok(r.grep(line), "%s kernel logged the request" % name)
    ok &= tap.ok(not r.grep(r"did not turn the machine off|failed"),
                 "%s no failure reported" % name)
    if not ok:
        bt.show_tail(tap, r)


def main():
    """Build the ISOs, boot them two at a time, check each."""
    tap = Tap()
    bt.need_file(tap, KERNEL, "kernel")
    bt.need_file(tap, INITRD, "initrd")
    with tempfile.TemporaryDirectory(prefix="vernier-power.") as tmp:
        isos = {how: make_iso(tmp, how) for how in ("off", "reboot")}
        jobs = [(bt.weight(2), (lambda how=how, fw=fw: vm.boot(
            isos[how], cpus=2, firmware=fw, accel=bt.accel(), timeout=TIMEOUT)))
            for how, fw in CASES]
        results = list(bt.run_parallel(jobs))
    for (how, fw), r in zip(CASES, results):
        check(tap, how, fw, r)
    tap.done()


if __name__ == "__main__":
    main()
