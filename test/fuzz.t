#!/usr/bin/env python3
"""test/fuzz.t - the system call fuzzer (/bin/vfuzz) booted in QEMU.

Each run boots "KERNEL_ARGS -- restrict vfuzz -s SEED -n CALLS" (vfuzz
without any permission; init powers QEMU off with its verdict) and checks:

- vfuzz printed its seed and its worker finished all CALLS calls;
- no result broke the ABI (no "UNEXPECTED" line: every return is >= 0 or
  an abi/errno.h code, privileged calls fail, unknown numbers ENOSYS);
- the heartbeat held: vfuzz reports a STALL when no call finished for 5 s
  of guest time, and the serial log never went silent for SILENCE_S s of
  host time (a hung guest);
- no panic and no task killed for a fault;
- the leak check passed: after the worker and everything it started were
  reaped, the kernel's free frames (with heap, stack, page-table and task
  frames), live heap bytes, kernel stacks, tasks and threads were back at
  their baseline exactly (vfuzz compares sysinfo system.memory, taken
  after a warm-up run);
- QEMU exited with the pass code.

Runs (make check): seed 1 on 4 CPUs with SLICE_CALLS calls, and seeds 2-4
on 1 CPU with SMALL_CALLS. `make fuzz` sets FUZZ_SEED, FUZZ_CALLS and
FUZZ_CPUS for one run of any length and FUZZ_BAR=1 for a progress bar on
stderr; FUZZ_ARGS adds vfuzz options (e.g. -x).
TAP on stdout, for prove.
"""

import os
import re
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in test/lib
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))

import boottest as bt  # noqa: E402
import suite  # noqa: E402
import vm  # noqa: E402
from tap import Tap  # noqa: E402

SLICE_CALLS = 300000    # ~1 min on 4 CPUs under TCG, alone (about 6,000 calls/s); make fuzz: 1,000,000
SMALL_CALLS = 3000
SILENCE_S = 60          # host seconds without a serial line: the guest hung
RATE_FLOOR = 1000       # calls per second assumed for the timeout (TCG, loaded host: ~5,000)

PROGRESS_RE = re.compile(r"^vfuzz: progress (\d+)/(\d+) calls$")
DONE_RE = re.compile(r"^vfuzz: worker done: (\d+) calls, (\d+) unexpected results$")
SEED_RE = re.compile(r"^vfuzz: seed (\d+), (\d+) calls")
BAD_RE = re.compile(r"^vfuzz: (UNEXPECTED|STALL)")


def runs():
    """[(seed, calls, cpus)] from the environment or the make check slice."""
    if os.environ.get("FUZZ_CALLS") or os.environ.get("FUZZ_SEED"):
        return [(int(os.environ.get("FUZZ_SEED") or 1),
                 int(os.environ.get("FUZZ_CALLS") or 1000000),
                 int(os.environ.get("FUZZ_CPUS") or 4))]
    return [(1, SLICE_CALLS, 4), (2, SMALL_CALLS, 1), (3, SMALL_CALLS, 1),
            (4, SMALL_CALLS, 1)]


class Watch:
    """Follows the serial log: the longest silence and a progress bar."""

    def __init__(self, bar):
        self.bar = bar
        self.last = 0.0
        self.longest = 0.0
        self.main_worker = False

    def line(self, t, line):
        self.longest = max(self.longest, t - self.last)
        self.last = t
        m = PROGRESS_RE.match(line)
        if m and self.bar:
            done, total = int(m.group(1)), int(m.group(2))
            width = 40
            fill = width * done // max(total, 1)
            sys.stderr.write("\r[%s%s] %d/%d calls, %.0f s "
                             % ("#" * fill, "." * (width - fill), done, total, t))
            sys.stderr.flush()


def check(tap, name, r, seed, calls, watch):
    """The checks of one boot; whether all passed."""
    lines = r.lines
    ok = tap.ok(any(SEED_RE.match(l) and int(SEED_RE.match(l).group(1)) == seed
                    for l in lines), "%s vfuzz printed seed %d" % (name, seed))
    done = [DONE_RE.match(l) for l in lines if DONE_RE.match(l)]
    ok &= tap.ok(bool(done) and int(done[-1].group(1)) == calls,
                 "%s the worker made all %d calls" % (name, calls))
    bad = [l for l in lines if BAD_RE.match(l)]
    ok &= tap.ok(not bad, "%s every result allowed, no stall" % name)
    if bad:
        bt.show_lines(tap, "%s offending lines:" % name, bad, limit=20)
    ok &= tap.ok(watch.longest < SILENCE_S, "%s the log never went silent for %d s "
                 "(longest %.1f s)" % (name, SILENCE_S, watch.longest))
    ok &= suite.check_clean_log(tap, name, lines)
    ok &= suite.check_vfuzz_end(
        tap, name, r, "frames, heap, kernel stacks, tasks and threads back at baseline")
    return ok


def main():
    """Boot each run; report."""
    tap = Tap()
    bt.need_file(tap, suite.KERNEL, "kernel")
    bt.need_file(tap, suite.INITRD, "initrd")
    extra = os.environ.get("FUZZ_ARGS", "")
    bar = os.environ.get("FUZZ_BAR") == "1"
    kargs = os.environ.get("FUZZ_KERNEL_ARGS", "")
    with tempfile.TemporaryDirectory(prefix="vernier-fuzz.") as tmp:
        for seed, calls, cpus in runs():
            cmd = "%s -- restrict vfuzz -s %d -n %d -t %d %s" % (kargs, seed, calls, cpus, extra)
            iso = suite.make_iso(tmp, cmd.strip())
            watch = Watch(bar)
            timeout = 120 + (calls + 2000) // RATE_FLOOR
            # Alone above 2 CPUs: the fuzzer's spinning vCPUs beside
            # another guest slow both (README "Testing", the host lock).
            r = vm.boot(iso, cpus=cpus, accel=bt.accel(), timeout=timeout,
                        on_line=watch.line, alone=cpus > 2)
            if bar:
                sys.stderr.write("\n")
            name = "[seed %d cpus=%d calls=%d]" % (seed, cpus, calls)
            if not check(tap, name, r, seed, calls, watch):
                bt.show_tail(tap, r)
            tap.diag("%s %.1f s" % (name, r.elapsed))
            for l in r.lines:
                if l.startswith("vfuzz: ") and not PROGRESS_RE.match(l):
                    if bar or os.environ.get("FUZZ_VERBOSE") == "1":
                        tap.diag(l)
    tap.done()


if __name__ == "__main__":
    main()
