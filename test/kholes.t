#!/usr/bin/env python3
"""test/kholes.t - kernel holes probed by unprivileged tasks.

An ISO with the kernel command line "-- restrict -p kill tester kholes"
(init runs `tester kholes` with no permission but PERM_KILL and powers
QEMU off with its verdict) is booted under BIOS with 2 CPUs. kholes
spawns its attackers with no permissions, so each forms a quota tree of
its own; the kill permission only lets it end the attacker's stopped
grandchildren. Its TAP (uspace/app/tester/kholes.c: spawn paths with
control characters refused, a symbol with a newline, the program cache's
byte bound and free memory after a flood of crafted images, one tree's
images stopped at LIMIT_TREE_BIN_BYTES while another tree's keep their
symbols) becomes tests here, prefixed with the boot. Then the log:

- no line starts with "smp: FAKE" (a task or symbol name with a newline
  printed such a line before the fix);
- the report of the patched image's fault shows its symbol escaped:
  "task: N (tester): ... <k\\x0asmp: FAKE LINE symbol+0x...>; killed";
- the victim tree's image, run while the attacker tree holds its bound,
  faults with its symbol: "task: N (kholes-victim): ... <fault_null+0x...>;
  killed" (before, the attacker's pinned images took the whole cache
  budget and the victim's ran without symbols);
- no panic, and no task but those two was killed for a fault.

TAP on stdout, for prove.
"""

import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in test/lib
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))

import boottest as bt  # noqa: E402,F401
import suite  # noqa: E402
from tap import Tap  # noqa: E402

CONFIGS = (("bios", 2),)
TIMEOUT = 300       # seconds per boot (about 20 s under TCG)
FORGED_RE = re.compile(r"^smp: FAKE")
ESCAPED_RE = re.compile(r"^task: \d+ \(tester\): .* <k\\x0asmp: FAKE LINE "
                        r"symbol\+0x[0-9a-f]+>; killed$")
VICTIM_RE = re.compile(r"^task: \d+ \(kholes-victim\): .* <fault_null\+0x[0-9a-f]+>; "
                       r"killed$")


def check_log(tap, name, lines):
    """No forged line; the escaped report; no panic, no other fault."""
    forged = [l for l in lines if FORGED_RE.match(l)]
    ok = tap.ok(not forged, "%s no forged kernel line" % name)
    if forged:
        bt.show_lines(tap, "%s forged lines:" % name, forged)
    escaped = [l for l in lines if ESCAPED_RE.match(l)]
    ok &= tap.ok(len(escaped) == 1,
                 "%s the fault report escapes the symbol's newline" % name)
    victim = [l for l in lines if VICTIM_RE.match(l)]
    ok &= tap.ok(len(victim) == 1, "%s the victim tree's fault report names its "
                 "symbol (fault_null)" % name)
    if not victim:
        bt.show_lines(tap, "%s kholes-victim lines:" % name,
                      [l for l in lines if "kholes-victim" in l])
    faults = [l for l in lines if suite.FAULT_RE.match(l) and l not in escaped
              and l not in victim]
    ok &= tap.ok(not faults, "%s no other task killed for a fault" % name)
    if faults:
        bt.show_lines(tap, "%s other fault reports:" % name, faults)
    ok &= suite.check_clean_log(tap, name, lines, faults_allowed=True)
    return ok


def main():
    """Boot "-- restrict -p kill tester kholes"; re-emit; check the log."""
    tap = Tap()
    suite.run(tap, "restrict -p kill tester kholes", CONFIGS, TIMEOUT, check_log)
    tap.done()


if __name__ == "__main__":
    main()
