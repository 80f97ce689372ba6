#!/usr/bin/env python3
"""test/gtloop.t - sampling without aliasing: the profiler on a tight loop
against callgrind.

`gtbench -l ROUNDS 0` (uspace/app/gtbench/loop.c) turns a loop of three
calls of different lengths (gt_tiny, gt_small, gt_big without inner
turns) 25 instructions long: 10,000 Hz at -icount shift=3 (8 ns an
instruction) is a period of 12,500 instructions, 500 turns of it exactly.
Under -icount every sampling period is the same number of instructions,
so a sampler at an exact period keeps landing on the same few
instructions of such a loop (Mytkowicz et al., PLDI 2010): whole
functions read 0% or twice their share. Each timer period carries a small
random jitter (kernel/prof/jitter.c) and each sample its weight, so the
points are spread over the loop. Random points make each share's error
binomial (sd = sqrt(p(1-p)/n): 0.12 points for 36% of 150,000 samples),
so each run takes at least MIN_SAMPLES; a fixed shift of 3 keeps that to
about 2e9 instructions a run. The check, on 1 CPU under -icount shift=3
(guest time follows instructions) in one boot (runall):
- the host build of loop.c is the guest's code (objdump) and callgrind's
  self instruction counts give the true shares;
- `profile -s timer -f HZ /bin/gtbench -l ROUNDS 0` at 10,000 Hz and at
  9,973 Hz (a prime), each with and without -g: at least MIN_SAMPLES
  samples, the guest's checksum is the host's, and every function with
  >= 0.5% is within +-0.5 points of callgrind's share. Before the jitter
  two runs of the same profile at 10,000 Hz read gt_loop -0.05 and -1.10
  points off (gt_small +0.34, +0.72): where the samples fall depended on
  the phase the run started in.
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
GUEST_ROUNDS = 800      # 100,000 turns of 25 instructions: 16 s at shift=3
TURNS = 0               # gt_big's inner turns: a loop of 25 instructions
RUNS = ((10000, ""), (9973, ""), (10000, "-g"), (9973, "-g"))
MIN_SAMPLES = 150000
ICOUNT = "-icount shift=3,sleep=off -rtc clock=vm"
TOLERANCE = 0.5         # percentage points

RUN_RE = re.compile(r"^runall: \$ profile ")


def command(hz, opt):
    """runall's operand for one profile run."""
    words = ["profile", "-s", "timer", "-f", str(hz)] + ([opt] if opt else []) + \
        ["/bin/gtbench", "-l", str(GUEST_ROUNDS), str(TURNS)]
    return ",".join(words)



def main():
    tap = Tap()
    tmp = tempfile.mkdtemp(prefix="gtloop.")
    try:
        exe, _ = gtref.host_build(tap, tmp)
        self_ir, _ = gtref.callgrind(exe, ["-l", HOST_ROUNDS, TURNS]) if exe else (None, None)
        tap.ok(self_ir and {"gt_tiny", "gt_small", "gt_big", "gt_loop"} <= set(self_ir),
               "callgrind on the host build of the loop (%d functions)" % len(self_ir or {}))
        want = gtref.shares(self_ir)
        for f, s in sorted(want.items(), key=lambda x: -x[1]):
            tap.diag("callgrind %-10s %6.2f%%" % (f, s))
        host_line = gtref.run([exe, "-l", str(GUEST_ROUNDS), str(TURNS)]).stdout.strip() if exe else None
        iso = suite.make_iso(tmp, "-- runall " + " ".join(command(hz, o) for hz, o in RUNS))
        r = vm.boot(iso, cpus=1, extra=ICOUNT, timeout=900)
        tap.ok(r.exit_code == suite.PASS_EXIT and not r.timed_out,
               "the boot ran every profile and powered off (QEMU exit %s in %.0f s)"
               % (r.exit_code, r.elapsed))
        runs = gtref.split_runs(r.lines, RUN_RE)
        for i, (hz, opt) in enumerate(RUNS):
            label = "%d Hz%s" % (hz, " " + opt if opt else "")
            rows, _, total, line = gtref.guest_profile(runs[i] if i < len(runs) else [])
            tap.ok(total and total >= MIN_SAMPLES and line == host_line,
                   "%s: %s samples (want >= %d), checksum %r (host %r)"
                   % (label, total, MIN_SAMPLES, line, host_line))
            gtref.compare(tap, label, want, rows, TOLERANCE, True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    tap.done()


if __name__ == "__main__":
    main()
