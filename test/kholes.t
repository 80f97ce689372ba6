#!/usr/bin/env python3
"""test/kholes.t - three kernel holes probed by an unprivileged task.

An ISO with the kernel command line "-- restrict tester kholes" (init runs
`tester kholes` without permissions and powers QEMU off with its verdict)
is booted under BIOS with 2 CPUs. Its TAP (uspace/app/tester/kholes.c:
spawn paths with control characters refused, a symbol with a newline,
the program cache's byte bound and free memory after a flood of crafted
images) becomes tests here, prefixed with the boot. Then the log:

- no line starts with "smp: FAKE" (a task or symbol name with a newline
  printed such a line before the fix);
- the report of the patched image's fault shows its symbol escaped:
  "task: N (tester): ... <k\\x0asmp: FAKE LINE symbol+0x...>; killed";
- no panic, and no task but that one was killed for a fault.

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


def check_log(tap, name, lines):
    """No forged line; the escaped report; no panic, no other fault."""
    forged = [l for l in lines if FORGED_RE.match(l)]
    ok = tap.ok(not forged, "%s no forged kernel line" % name)
    if forged:
        bt.show_lines(tap, "%s forged lines:" % name, forged)
    escaped = [l for l in lines if ESCAPED_RE.match(l)]
    ok &= tap.ok(len(escaped) == 1,
                 "%s the fault report escapes the symbol's newline" % name)
    faults = [l for l in lines if suite.FAULT_RE.match(l) and l not in escaped]
    ok &= tap.ok(not faults, "%s no other task killed for a fault" % name)
    if faults:
        bt.show_lines(tap, "%s other fault reports:" % name, faults)
    ok &= suite.check_clean_log(tap, name, lines, faults_allowed=True)
    return ok


def main():
    """Boot "-- restrict tester kholes"; re-emit; check the log."""
    tap = Tap()
    suite.run(tap, "restrict tester kholes", CONFIGS, TIMEOUT, check_log)
    tap.done()


if __name__ == "__main__":
    main()
