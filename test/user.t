#!/usr/bin/env python3
"""test/user.t - the user-space test suite (/bin/utest) booted in QEMU.

An ISO with the kernel command line "loadavg.fast -- utest" (the load
average sampled ten times as often, so its test takes seconds; init runs /bin/utest,
waits for it and powers QEMU off: exit code 1 if utest exited 0, 3 if not)
is booted under BIOS with 1, 2 and 4 CPUs (TCG unless VERNIER_ACCEL says
otherwise; -cpu max, except QEMU's default model qemu64 on 1 CPU: no UMIP,
SMAP or RDRAND there, the fallbacks). For each boot:

- every TAP line utest printed becomes a test here, prefixed with the boot
  ("ok 7 - [bios cpus=2] sched: ..."); its diagnostics are passed on;
- utest ran the tests it planned (its "1..N" comes first, the sum of the
  counts its groups declare, so a test silently not run fails);
- QEMU exited with code 1 within the timeout, and the kernel did not panic;
- the kernel reported each deliberate fault: utest prints
  "# expect report: tester fault KIND" before it spawns `tester fault KIND`,
  and a later "task: N (tester): WHAT at ADDR, rip RIP <fault_KIND+OFF>;
  killed" line must name the right exception and function (kernel lines
  may arrive late: they reach the serial port through the console server);
  `tester fault umip` is expected exactly when the kernel logged "UMIP on";
- no task other than tester was killed for a fault.

A failing boot's last 40 log lines are printed as diagnostics. TAP on
stdout, for prove.
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

CONFIGS = (("bios", 1, "qemu64"), ("bios", 2), ("bios", 4))
TIMEOUT = 300       # seconds per boot (a whole run takes 10-30 s under TCG)

FAULT_WHAT = {
    "null": "#PF page fault",
    "div0": "#DE divide error",
    "priv": "#GP general protection",
    "stack": "#PF page fault",
    "kernel": "#PF page fault",
    "umip": "#GP general protection",   # only where UMIP is on
}
# "harden: SMEP on, SMAP on, UMIP on; stack canary from RDRAND"
UMIP_RE = re.compile(r"^harden: .*UMIP (on|absent)")
EXPECT_RE = re.compile(r"^# expect report: tester fault (\S+)$")
# "task: 11 (tester): #PF page fault at 0, rip 0x400027 <fault_null+0x7>; killed"
REPORT_RE = re.compile(r"^task: (\d+) \(([^)]*)\): (.+) at (\S+), "
                       r"rip (\S+) <([^>+]*)\+?[^>]*>; killed$")


def fault_pairs(lines):
    """[(kind, report match or None)] for each expected fault, in order.

    With a console server the kernel's lines reach the serial port through
    its log copy, possibly after utest's next lines: each expectation takes
    the first unused tester report after it that names its function (or,
    failing that, the first unused one after it, to show what was said)."""
    expects, reports = [], []
    for i, line in enumerate(lines):
        m = EXPECT_RE.match(line)
        if m:
            expects.append((i, m.group(1)))
            continue
        m = REPORT_RE.match(line)
        if m and m.group(2) == "tester":
            reports.append((i, m))
    used = set()
    pairs = []
    for at, kind in expects:
        after = [(j, m) for j, m in reports if j > at and j not in used]
        named = [(j, m) for j, m in after if m.group(6) == "fault_" + kind]
        pick = (named or after or [(None, None)])[0]
        if pick[0] is not None:
            used.add(pick[0])
        pairs.append([kind, pick[1]])
    return pairs


def fault_kinds(lines):
    """The fault kinds utest must announce: umip only if UMIP is on."""
    umip = any(m and m.group(1) == "on" for m in map(UMIP_RE.match, lines))
    return sorted(k for k in FAULT_WHAT if k != "umip" or umip)


def check_faults(tap, name, lines):
    """Each expected fault was reported with the right exception and
    function; every fault kind was tried; only tester tasks were killed."""
    passed = True
    pairs = fault_pairs(lines)
    for kind, m in pairs:
        what = FAULT_WHAT.get(kind, "?")
        func = "fault_" + kind
        ok = m is not None and m.group(3) == what and m.group(6) == func
        passed &= tap.ok(ok, "%s kernel reported `tester fault %s` as a %s "
                         "in %s" % (name, kind, what.split(" ", 1)[-1], func))
        if not ok:
            tap.diag("%s report: %s" % (name, m.group(0) if m else "none"))
    kinds = sorted(kind for kind, _ in pairs)
    passed &= tap.ok(kinds == fault_kinds(lines),
                     "%s utest announced every fault kind (%s)"
                     % (name, " ".join(kinds) or "none"))
    others = [l for l in lines
              if REPORT_RE.match(l) and REPORT_RE.match(l).group(2) != "tester"]
    passed &= tap.ok(not others, "%s no task but tester was killed for a fault"
                     % name)
    if others:
        bt.show_lines(tap, "%s unexpected fault reports:" % name, others)
    return passed


def check_log(tap, name, lines):
    """Fault reports pair with their expectations; no panic."""
    ok = check_faults(tap, name, lines)
    ok &= suite.check_clean_log(tap, name, lines, faults_allowed=True)
    return ok


def main():
    """Boot "-- utest" on 1, 2 and 4 CPUs; re-emit; check the fault reports."""
    tap = Tap()
    suite.run(tap, "utest", CONFIGS, TIMEOUT, check_log,
              kernel_args="loadavg.fast")
    tap.done()


if __name__ == "__main__":
    main()
