#!/usr/bin/env python3
"""tools/boottime.py - boot time as benchmark figures (issue 18).

    tools/boottime.py [--iso ISO] [--cpus N[,N...]] [--runs R] [--accel A]

Boots ISO (default build/vernier.iso) R times (default 5) per CPU count
(default 1,4) through test/lib/guest.py, powers each guest off at the
shell prompt, and prints the medians as "name value unit" lines:

    boot.smp.cpus4 21 ms      kernel entry -> "smp: N CPUs online" (the
                              kernel's own "boot: N ms ..." line, TSC time)
    boot.prompt.cpus4 2.41 s  host time from QEMU start to the shell
                              prompt (firmware and GRUB's 1 s menu included)

and, with -v, every run's values as "# " notes. A benchmark, not a test:
it prints numbers and judges nothing (exit status 1 only if a boot fails).
"""

import argparse
import os
import statistics
import sys
import time

sys.dont_write_bytecode = True
TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(TOP, "test", "lib"))

import boottest as bt  # noqa: E402
from guest import Guest, Shell  # noqa: E402

BOOT_WAIT = 120


def boot_once(iso, cpus, accel):
    """One boot to the prompt: (kernel ms to smp, host s to prompt) or None."""
    g = Guest(iso, cpus=cpus, accel=accel)
    got = Shell(g).prompt(timeout=BOOT_WAIT)
    prompt_s = time.monotonic() - g.start
    ms = [int(m.group(1)) for m in map(bt.BOOT_MS_RE.search, g.lines()) if m]
    g.send("poweroff\r")
    g.finish(timeout=30)
    if not got or not ms:
        return None
    return ms[0], prompt_s


def main():
    """Parse the options, boot, print the medians."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iso", default=bt.ISO)
    ap.add_argument("--cpus", default="1,4", help="CPU counts, comma-separated")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--accel", default=bt.accel(), choices=("tcg", "kvm"))
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    failed = False
    for cpus in [int(c) for c in a.cpus.split(",")]:
        runs = []
        for _ in range(a.runs):
            r = boot_once(a.iso, cpus, a.accel)
            if r is None:
                print("# boottime: a %d-CPU boot did not reach the prompt" % cpus)
                failed = True
                continue
            runs.append(r)
            if a.verbose:
                print("# cpus %d: %d ms to smp, %.2f s to the prompt" % (cpus, *r))
        if runs:
            print("boot.smp.cpus%d %d ms" % (cpus, statistics.median(r[0] for r in runs)))
            print("boot.prompt.cpus%d %.2f s" % (cpus, statistics.median(r[1] for r in runs)))
        sys.stdout.flush()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
