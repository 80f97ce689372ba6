#!/usr/bin/env python3
"""test/bochs.t - boot build/vernier.iso in Bochs with 2 CPUs (a second,
stricter emulator: x2APIC, a different BIOS and ACPI tables) through
tools/bochs.sh, until COM1 says "smp: 2 CPUs online". TAP on stdout.

It takes about 10 s here (GRUB's 1 s menu included); the timeout is
generous since Bochs runs one emulated CPU after the other on one host
thread.
"""

import os
import re
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in test/lib
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))

import boottest as bt  # noqa: E402
import vm  # noqa: E402
from tap import Tap  # noqa: E402

CPUS = 2
TIMEOUT = 300
BOCHS_SH = os.path.join(bt.TOP, "tools", "bochs.sh")
MATCHED_RE = re.compile(r"matched .* after ([0-9.]+) s")


def run_bochs(log):
    """Run tools/bochs.sh; returns (exit status, its stderr, seconds)."""
    start = time.monotonic()
    proc = subprocess.run(
        [BOCHS_SH, bt.ISO, str(CPUS), "--log", log,
         "--until", r"smp: %d CPUs online" % CPUS,
         "--timeout", str(TIMEOUT)],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, timeout=TIMEOUT + 60)
    return (proc.returncode, (proc.stdout + proc.stderr).decode(
        "utf-8", "replace"), time.monotonic() - start)


def main():
    """Boot once in Bochs and check the COM1 log."""
    tap = Tap()
    bt.need_file(tap, bt.ISO, "ISO")
    name = "[bochs cpus=%d]" % CPUS
    with tempfile.TemporaryDirectory(prefix="vernier-bochs-t.") as tmp:
        log = os.path.join(tmp, "com1.log")
        status, said, elapsed = run_bochs(log)
        with open(log, "rb") as f:
            r = vm.Result.from_text(f.read().decode("utf-8", "replace"))
    smp = [l for l in r.lines if bt.SMP_RE.search(l)]
    passed = tap.ok(status == 0, "%s reaches 'smp: %d CPUs online'"
                    % (name, CPUS))
    passed &= tap.ok(len(smp) == 1 and
                     bt.SMP_RE.search(smp[0]).group(1) == str(CPUS),
                     "%s smp line appears once and says %d" % (name, CPUS))
    bad = bt.trouble(r.lines)
    passed &= tap.ok(not bad, "%s no panic, exception or fault" % name)
    if bad:
        bt.show_lines(tap, "offending lines:", bad)
    loose = bt.unprefixed(r.lines)
    passed &= tap.ok(bt.kernel_lines(r.lines) and not loose,
                     "%s every kernel line is 'subsys: text'" % name)
    if loose:
        bt.show_lines(tap, "lines without a subsystem prefix:", loose)
    m = MATCHED_RE.search(said)
    tap.diag("%s host %s s from Bochs start to smp online (%.1f s in all)"
             % (name, m.group(1) if m else "?", elapsed))
    for line in r.lines:
        if bt.BOOT_MS_RE.search(line) or bt.FOOTPRINT_RE.search(line):
            tap.diag("%s %s" % (name, line))
    if not passed:
        tap.diag("tools/bochs.sh said:")
        tap.diag(said.strip())
        tap.diag("last 40 lines of COM1:")
        for line in r.lines[-40:]:
            tap.diag("  | " + bt.clip(line))
    tap.done()


if __name__ == "__main__":
    main()
