#!/usr/bin/env python3
"""test/fs.t - the file service tests (/bin/fstest) booted in QEMU.

An ISO with the kernel command line "-- fstest" (init runs /bin/fstest,
waits for it and powers QEMU off: exit code 1 if fstest exited 0, 3 if
not) is booted under BIOS with 1 and 2 CPUs (TCG unless VERNIER_ACCEL
says otherwise). init starts /bin/fs and waits for it to register as "fs"
before it runs fstest. For each boot:

- every TAP line fstest printed becomes a test here, prefixed with the
  boot ("ok 7 - [bios cpus=2] ping: ..."); its diagnostics are passed on;
- fstest ran the tests it planned (its "1..N" comes at the end);
- the kernel started the naming service (/bin/ns), which fstest needs,
  and init did not complain that /bin/fs failed to register;
- QEMU exited with code 1 within the timeout, the kernel did not panic and
  no task was killed for a fault (fstest's child helpers exit normally).

A failing boot's last 40 log lines are printed as diagnostics. TAP on
stdout, for prove.
"""

import os
import re
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in test/lib
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))

import boottest as bt  # noqa: E402
import vm  # noqa: E402
from tap import Tap  # noqa: E402

KERNEL = os.path.join(bt.BUILD, "kernel.elf")
INITRD = os.path.join(bt.BUILD, "initrd.tar")
MKISO = os.path.join(bt.TOP, "tools", "mkiso.sh")
CMDLINE = "-- fstest"
CONFIGS = (("bios", 1), ("bios", 2))
TIMEOUT = 300       # seconds per boot (a run takes a few seconds under TCG)
PASS_EXIT = 1       # isa-debug-exit value 0
FAIL_EXIT = 3       # isa-debug-exit value 1

NS_RE = re.compile(r"^kinit: naming service is task \d+$")
# "task: 11 (tester): #PF page fault at 0, rip 0x400027 <f+0x7>; killed"
FAULT_RE = re.compile(r"^task: \d+ \([^)]*\): .* killed$")
PANIC_RE = re.compile(r"^panic: ")
# "init: fs (task 5) did not register (error 110)"
FS_FAIL_RE = re.compile(r"^init: fs \(task \d+\) did not register")


def make_iso(tmp):
    """The "-- fstest" ISO in tmp; returns its path."""
    path = os.path.join(tmp, "fstest.iso")
    subprocess.run([MKISO, "--initrd", INITRD, path, KERNEL, CMDLINE],
                   check=True)
    return path


def boot_one(iso, cpus, firmware):
    """Boot the fstest ISO once; returns the vm.Result."""
    return vm.boot(iso, cpus=cpus, firmware=firmware, accel=bt.accel(),
                   timeout=TIMEOUT)


def reemit(tap, name, lines):
    """Pass fstest's TAP on as tests of our own; returns (ok, plan, numbers)."""
    plan, items = bt.parse_tap(lines)
    passed = True
    numbers = []
    for item in items:
        if item[0] == "diag":
            tap.diag("%s %s" % (name, item[1]))
            continue
        _, ok, num, desc, directive = item
        numbers.append(num)
        passed &= tap.ok(ok, "%s %s" % (name, desc or "test %s" % num),
                         directive=directive)
    return passed, plan, numbers


def check_plan(tap, name, plan, numbers):
    """fstest ran exactly the tests it planned, numbered 1..N."""
    seen = len(numbers)
    in_order = numbers == list(range(1, seen + 1))
    ok = tap.ok(plan is not None and plan == seen and seen > 0 and in_order,
                "%s fstest ran the %s tests it planned"
                % (name, plan if plan is not None else "?"))
    if plan is None:
        tap.diag("%s no TAP plan (1..N) in the log" % name)
    elif not ok:
        tap.diag("%s plan 1..%d, saw %d tests numbered %s"
                 % (name, plan, seen, numbers))
    return ok


def check_log(tap, name, lines):
    """ns ran, fs registered; no panic; no task killed for a fault."""
    passed = tap.ok(any(NS_RE.match(l) for l in lines),
                    "%s the kernel started the naming service" % name)
    passed &= tap.ok(not any(FS_FAIL_RE.match(l) for l in lines),
                     "%s the file service registered" % name)
    bad = [l for l in lines if PANIC_RE.match(l) or FAULT_RE.match(l)]
    passed &= tap.ok(not bad, "%s no panic and no task killed for a fault"
                     % name)
    if bad:
        bt.show_lines(tap, "%s offending lines:" % name, bad)
    return passed


def check(tap, firmware, cpus, r):
    """Re-emit one boot's fstest results and check how the boot ended."""
    name = bt.label(firmware, cpus)
    passed, plan, numbers = reemit(tap, name, r.lines)
    passed &= check_plan(tap, name, plan, numbers)
    passed &= check_log(tap, name, r.lines)
    passed &= tap.ok(not r.timed_out, "%s finished within %d s"
                     % (name, TIMEOUT))
    passed &= tap.ok(r.exit_code == PASS_EXIT,
                     "%s QEMU exit code %d (fstest exited 0)"
                     % (name, PASS_EXIT))
    if r.exit_code == FAIL_EXIT:
        tap.diag("%s fstest failed (exit code %d)" % (name, FAIL_EXIT))
    elif r.exit_code != PASS_EXIT and not r.timed_out:
        tap.diag("%s QEMU exit code %s" % (name, r.exit_code))
    tap.diag("%s %d fstest tests, %.1f s" % (name, len(numbers), r.elapsed))
    if not passed:
        bt.show_tail(tap, r)


def main():
    """Build the ISO, boot it (two at a time), report in a fixed order."""
    tap = Tap()
    bt.need_file(tap, KERNEL, "kernel")
    bt.need_file(tap, INITRD, "initrd")
    with tempfile.TemporaryDirectory(prefix="vernier-fs.") as tmp:
        iso = make_iso(tmp)
        jobs = [(bt.weight(n, bt.accel()),
                 (lambda fw=fw, n=n: boot_one(iso, n, fw)))
                for fw, n in CONFIGS]
        results = list(bt.run_parallel(jobs))
    for (fw, n), r in zip(CONFIGS, results):
        check(tap, fw, n, r)
    tap.done()


if __name__ == "__main__":
    main()
