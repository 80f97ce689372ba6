#!/usr/bin/env python3
"""test/offcpu.t - wall-clock (off-CPU) profiling against ground truth (issue 17).

/bin/ipcload's wall mode is one client (ipcload's own task) and a server:
each round the client computes 4 * US of CPU time (local_work), sleeps
3 * US (do_sleep) and waits for a WORK call of 3 * US (do_calls; the
server spins in serve_a): 40 / 30 / 30 of the rounds' wall time as
asked. The client measures what each phase really took (CLOCK_MONOTONIC
around each; the profiler's own cost lengthens the phases under -icount)
and prints it: that is the ground truth. `profile -w -g -o com2` of it
(1 CPU, -icount) streams to a host file; `vprof -W -F folded` of it,
with each of the client's stacks put in the phase whose function it
passes through (local_work, do_sleep, do_calls), must give:
- at least 10,000 weighted samples in the three phases;
- each phase's share within 2 points of the client's measured share
  (and the measured shares within 5 points of the asked 40/30/30, so
  the workload did what it says);
- the calls' waits named `[off-cpu: wait ipcload.WORK]`, under do_calls
  (folded, and the guest's own -g tree); the sleeps `[off-cpu: sleep]`
  under do_sleep.
Without -w the same stream's report has no [off-cpu ...] row and says
"off-cpu: N records" (vprof without -W). Usage: profile -w -h (0),
sprofile -w with a stray argument (2), ipcload with a bad mode (2).

TAP on stdout, for prove.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in test/lib
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))

import boottest as bt  # noqa: E402
from guest import shell_session  # noqa: E402
from tap import Tap  # noqa: E402

TOLERANCE = 2.0               # percentage points: profile against measured
ASKED_TOL = 5.0               # measured against the asked 40/30/30
MIN_SAMPLES = 10000
RATE = 1000
SOURCE = "timer"           # one sample per tick: no RTC rounding of the rate
ARGS = "-n 100 -u 10000"      # 100 rounds of 100 ms asked: 10 s
ASKED = (40.0, 30.0, 30.0)
PHASES = ("compute", "sleep", "wait")
FUNCS = (";local_work", ";do_sleep", ";do_calls")

CLIENT_RE = re.compile(r"ipcload: wall client task (\d+): (\d+) rounds, (\d+) calls, "
                       r"wall us: compute (\d+), sleep (\d+), wait (\d+); cpu us (\d+)")

COM2 = os.path.join(tempfile.mkdtemp(prefix="vernier-offcpu-"), "com2.bin")
VPROF = os.path.join(bt.BUILD, "host", "vprof")
STATE = {}


def check_usage(tap, sh):
    for cmd, status in (("profile -w -h", 0), ("sprofile -w x", 2),
                        ("ipcload -n 1 walls", 2), ("profile -w", 2)):
        out = sh.run(cmd) or []
        got = sh.status()
        usage = any(l.startswith("usage: ") for l in out)
        tap.ok(got == status and usage, "%s: usage, status %s (%r)" % (cmd, got, out[:1]))
    out = sh.run("profile -h") or []
    tap.ok(any(l.strip().startswith("-w ") for l in out), "profile -h lists -w")


def check_run(tap, sh):
    cmd = "profile -w -g -s %s -f %d -o com2 ipcload %s wall > /tmp/w.txt" % (SOURCE, RATE,
                                                                              ARGS)
    sh.run(cmd, timeout=400)
    out = sh.run("cat /tmp/w.txt", timeout=120) or []
    m = [CLIENT_RE.search(l) for l in out]
    m = [x for x in m if x]
    tap.ok(m and int(m[0].group(3)) == int(m[0].group(2)),
           "ipcload wall ran under profile -w -g (%r)" % (m[0].group(0) if m else out[-3:]))
    if m:
        STATE["client"] = int(m[0].group(1))
        STATE["measured"] = [int(m[0].group(i)) for i in (4, 5, 6)]
    wait = [i for i, l in enumerate(out)
            if re.match(r"^\s+[\d.]+%\s+\d+\s+\[off-cpu: wait ipcload\.WORK\]$", l)]
    below = out[wait[0] + 1:wait[0] + 6] if wait else []
    tap.ok(wait and any("<- do_calls" in l for l in below),
           "guest -g tree: [off-cpu: wait ipcload.WORK] called from do_calls (%r)"
           % below[:4])
    tap.ok(any(l.startswith("off-cpu: ") and "wall clock:" in l for l in out),
           "guest report: the off-cpu summary line (%r)"
           % [l for l in out if l.startswith("off-cpu")][:1])


def phases(folded):
    """Weighted samples per phase of the folded stacks (the client's
    only: vprof -T), and those of none."""
    got = dict.fromkeys(PHASES + ("other",), 0)
    for line in folded.splitlines():
        stack, _, n = line.rpartition(" ")
        phase = [p for p, f in zip(PHASES, FUNCS) if f + ";" in stack + ";"]
        got[phase[0] if phase else "other"] += int(n)
    return got


def check_shares(tap):
    if "measured" not in STATE:
        tap.ok(False, "no run to check")
        return
    r = subprocess.run([VPROF, "-W", "-F", "folded", "-T", str(STATE["client"]), COM2],
                       capture_output=True, text=True, timeout=300)
    tap.ok(r.returncode == 0, "vprof -W -F folded -T CLIENT reads the stream (%s)"
           % r.stderr[:200])
    got = phases(r.stdout)
    total = sum(got[p] for p in PHASES)
    tap.ok(total >= MIN_SAMPLES, "%d weighted samples in the rounds (want >= %d; %d "
           "elsewhere in the client)" % (total, MIN_SAMPLES, got["other"]))
    meas = STATE["measured"]
    for i, p in enumerate(PHASES):
        share = 100.0 * got[p] / total if total else 0.0
        want = 100.0 * meas[i] / sum(meas)
        tap.ok(abs(share - want) <= TOLERANCE,
               "%s: %.2f%% of the rounds' wall samples (%d), measured %.2f%% (+- %.1f)"
               % (p, share, got[p], want, TOLERANCE))
        tap.ok(abs(want - ASKED[i]) <= ASKED_TOL,
               "%s: measured %.2f%% of the rounds, asked %.0f%% (+- %.0f)"
               % (p, want, ASKED[i], ASKED_TOL))
    lines = r.stdout.splitlines()
    waits = [l for l in lines if l.rpartition(" ")[0].endswith(";[off-cpu: wait ipcload.WORK]")]
    tap.ok(waits and all(";do_calls;" in l for l in waits),
           "folded: every [off-cpu: wait ipcload.WORK] under do_calls (%d stacks, e.g. %r)"
           % (len(waits), waits[0][-160:] if waits else None))
    sleeps = [l for l in lines if l.rpartition(" ")[0].endswith(";[off-cpu: sleep]")]
    tap.ok(sleeps and sum(int(l.rpartition(" ")[2]) for l in sleeps if ";do_sleep;" in l) * 10
           >= sum(int(l.rpartition(" ")[2]) for l in sleeps) * 9,
           "folded: [off-cpu: sleep] under do_sleep (%d stacks)" % len(sleeps))


def check_plain(tap):
    r = subprocess.run([VPROF, "-p", "0", COM2], capture_output=True, text=True,
                       timeout=300)
    tap.ok(r.returncode == 0 and re.search(r"^off-cpu: \d+ records, [\d.]+ s$", r.stdout,
                                           re.M) and "[off-cpu" not in r.stdout,
           "vprof without -W: the summary line, no [off-cpu ...] row")


def main():
    tap = Tap()
    shell_session(tap, [check_usage, check_run], cpus=1, icount=bt.PROFILE_ICOUNT,
                  extra="-serial file:" + COM2)
    check_shares(tap)
    check_plain(tap)
    shutil.rmtree(os.path.dirname(COM2), ignore_errors=True)
    tap.done()


if __name__ == "__main__":
    main()
