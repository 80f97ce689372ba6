#!/usr/bin/env python3
"""test/gtcallgrind.t - the profiler against callgrind on different code.

/bin/gtbench (uspace/app/gtbench) runs a state machine, a list walk, a
bitwise CRC, a matrix multiply, their set-up and two frameless leaves
(gt_mix, called from gt_fsm and gt_walk; gt_rand, from gt_init). Its
work.c calls nothing outside itself, so the host build of the same file
with the same code-generation flags runs the same instructions:
- the host object's code equals the guest's (objdump), and its checksum
  equals the guest's for the same rounds;
- callgrind's self instruction counts per function are the reference;
- in the guest under -icount (guest time = instructions) with
  -rtc clock=vm on 1 CPU (the kernel command line runs the profiler:
  no shell, no GRUB menu), `profile -s timer -g gtbench` takes at least
  50,000 samples and every function with >= 0.5% of gtbench's samples is
  within +-0.5 percentage points of callgrind's share;
- with -g the immediate caller of each frameless leaf is one of its real
  callers (callgrind's call graph) in >= 99% of its samples, and the split
  between its callers is callgrind's within 2 points;
- the same run under plain TCG (no -icount) prints its errors as TAP
  diagnostics, not checked: TCG takes interrupts at translation-block
  boundaries only, so its samples are biased (README "Profiling").

TAP on stdout, for prove.
"""

import os
import re
import shutil
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in test/lib
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))

import boottest as bt  # noqa: E402
import gtref  # noqa: E402
import suite  # noqa: E402
import vm  # noqa: E402
from tap import Tap  # noqa: E402

HOST_ROUNDS = 20
GUEST_ROUNDS = 2600     # ~1.2e9 instructions: 1.2 s of -icount time
HZ = 50000
MIN_SAMPLES = 50000
TOLERANCE = 0.5         # percentage points
LEAF_RIGHT = 99.0       # percent of a leaf's samples with a real caller
SPLIT_TOLERANCE = 2.0   # points, the split between a leaf's callers


def frameless(obj):
    """Functions of obj whose code does not start with push %rbp."""
    out = gtref.run(["objdump", "-d", obj]).stdout
    names, cur, first = set(), None, []
    for line in out.splitlines() + ["0 <end>:"]:
        m = re.match(r"^[0-9a-f]+ <(\w+)>:", line)
        if m:
            if cur and first[:1] != ["55"]:
                names.add(cur)
            cur, first = m.group(1), []
        elif cur and len(first) < 4:
            m = re.match(r"^\s*[0-9a-f]+:\t((?:[0-9a-f]{2} )+)", line)
            if m:
                first += m.group(1).split()
    return names


def reference(tap, exe, work):
    """Callgrind's shares, callers and the leaves; also the host checksum
    of GUEST_ROUNDS."""
    self_ir, callers = gtref.callgrind(exe, [HOST_ROUNDS]) if exe else (None, None)
    tap.ok(self_ir and "gt_mix" in self_ir,
           "callgrind on the host build (%d functions)" % len(self_ir or {}))
    shares = gtref.shares(self_ir)
    for f, s in sorted(shares.items(), key=lambda x: -x[1]):
        tap.diag("callgrind %-10s %6.2f%%" % (f, s))
    leaves = sorted(f for f in frameless(work) if f in shares and shares[f] >= gtref.MIN_SHARE) \
        if exe else []
    tap.ok("gt_mix" in leaves, "frameless leaves: %s" % leaves)
    out = gtref.run([exe, str(GUEST_ROUNDS)]).stdout.strip() if exe else None
    return shares, callers or {}, leaves, out


def leaf_callers(tap, label, leaves, callers, tree, assert_it):
    """The direct callers of each leaf against callgrind's call graph."""
    for leaf in leaves:
        real = callers.get(leaf, {})
        got = tree.get(leaf, {})
        n = sum(got.values())
        right = sum(c for f, c in got.items() if f in real)
        pct = 100.0 * right / n if n else 0.0
        text = "%s %s: a real caller (%s) in %.2f%% of %d samples (%r)" % (
            label, leaf, "/".join(sorted(real)), pct, n, got)
        if assert_it:
            tap.ok(n > 0 and pct >= LEAF_RIGHT, text)
        else:
            tap.diag(text)
        rsum = sum(real.values()) or 1
        for f in sorted(real):
            want, have = 100.0 * real[f] / rsum, 100.0 * got.get(f, 0) / (n or 1)
            text = "%s %s <- %s: %.2f%% of its samples (callgrind %.2f%%)" % (
                label, leaf, f, have, want)
            if assert_it:
                tap.ok(abs(have - want) <= SPLIT_TOLERANCE, text)
            else:
                tap.diag(text)


def check_guest(tap, iso, ref, label, extra, assert_it):
    """Boot iso (init runs profile on gtbench) on 1 CPU with extra QEMU
    arguments and compare its report with the reference."""
    shares, callers, leaves, host_line = ref
    r = vm.boot(iso, cpus=1, extra=extra, timeout=900)
    rows, tree, total, line = gtref.guest_profile(r.lines)
    ended = r.exit_code == suite.PASS_EXIT and not r.timed_out
    if assert_it:
        tap.ok(ended and total and total >= MIN_SAMPLES,
               "%s: %s samples (want >= %d), QEMU exit %s in %.0f s" %
               (label, total, MIN_SAMPLES, r.exit_code, r.elapsed))
        tap.ok(line and line == host_line,
               "%s: the guest's checksum is the host's (%r, %r)" %
               (label, line, host_line))
    else:
        tap.diag("%s: %s samples, QEMU exit %s in %.0f s" %
                 (label, total, r.exit_code, r.elapsed))
    gtref.compare(tap, label, shares, rows, TOLERANCE, assert_it)
    leaf_callers(tap, label, leaves, callers, tree, assert_it)


def main():
    tap = Tap()
    tmp = tempfile.mkdtemp(prefix="gtcallgrind.")
    try:
        exe, objs = gtref.host_build(tap, tmp)
        ref = reference(tap, exe, objs["work"])
        # init runs the profiler and powers off (no shell, no GRUB menu).
        iso = suite.make_iso(tmp, "-- profile -s timer -f %d -g /bin/gtbench %d"
                             % (HZ, GUEST_ROUNDS))
        check_guest(tap, iso, ref, "icount", gtref.ICOUNT, True)
        check_guest(tap, iso, ref, "tcg", None, False)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    tap.done()


if __name__ == "__main__":
    main()
