#!/usr/bin/env python3
"""test/workload.t - workload (/bin/workload) from the shell on a 2-CPU guest.

Boots the default ISO to the shell prompt once and checks:
- `workload -d 1 alpha:2 beta:1 gamma:1` prints a line per name and a
  total, and the names' ms are 50/25/25% of the total within 3 points;
- `workload -t 2 -d 1 alpha:1 ksyscall:1 kcopy:1` (two threads, a system
  call and IPC data writes to kcopy's server threads) reports all three
  with iterations and exits 0;
- usage errors (no share, unknown name, weight 0, -t 0, a name twice)
  print the usage and give status 2; `workload -h` gives 0.

TAP on stdout, for prove.
"""

import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in test/lib
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))

import boottest as bt  # noqa: E402
from guest import shell_session  # noqa: E402
from tap import Tap  # noqa: E402

BOOT_WAIT = 120
LINE_RE = re.compile(r"^workload: (\S+) (\d+) iterations in (\d+) ms$")
TOLERANCE = 3.0         # percentage points
BAD = ("workload", "workload zeta:1", "workload alpha:0",
       "workload -t 0 alpha:1", "workload alpha:1 alpha:2")


def parse(out):
    """{name: (iterations, ms)} of workload's lines, in order."""
    found = {}
    for line in out or []:
        m = LINE_RE.match(line)
        if m:
            found[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    return found


def check_shares(tap, con):
    out = con.run("workload -d 1 alpha:2 beta:1 gamma:1")
    got = parse(out)
    tap.ok(list(got) == ["alpha", "beta", "gamma", "total"] and
           con.status() == 0, "alpha:2 beta:1 gamma:1: four lines (%r)" % out)
    total = got.get("total", (0, 0))[1]
    want = {"alpha": 50.0, "beta": 25.0, "gamma": 25.0}
    for name, pct in want.items():
        share = 100.0 * got.get(name, (0, 0))[1] / total if total else 0
        tap.ok(abs(share - pct) <= TOLERANCE,
               "%s: %.1f%% of %d ms (want %.0f +- %.0f)" %
               (name, share, total, pct, TOLERANCE))
    tap.ok(total >= 900, "the total is about 1 s (%d ms)" % total)


def check_kernel(tap, con):
    out = con.run("workload -t 2 -d 1 alpha:1 ksyscall:1 kcopy:1")
    got = parse(out)
    tap.ok(list(got) == ["alpha", "ksyscall", "kcopy", "total"] and
           con.status() == 0, "-t 2 alpha ksyscall kcopy: reported (%r)" % out)
    tap.ok(all(got.get(n, (0, 0))[0] > 0 for n in ("ksyscall", "kcopy")),
           "ksyscall and kcopy iterated (%r)" % got)
    total = got.get("total", (0, 0))[1]
    tap.ok(1800 <= total <= 2600, "two threads: about 2 s in all (%d ms)" % total)


def check_usage(tap, con):
    for cmd in BAD:
        out = con.run(cmd)
        tap.ok(out and any(l.startswith("usage: workload") for l in out) and
               con.status() == 2, "%s: usage, status 2 (%r)" % (cmd, out))
    out = con.run("workload -h")
    tap.ok(out and out[0].startswith("usage: workload") and
           con.status() == 0, "workload -h: usage, status 0")


def main():
    tap = Tap()
    bt.need_file(tap, bt.ISO, "ISO")
    shell_session(tap, (check_shares, check_kernel, check_usage), cpus=2,
                  boot_wait=BOOT_WAIT, icount=bt.PROFILE_ICOUNT)
    tap.done()


if __name__ == "__main__":
    main()
