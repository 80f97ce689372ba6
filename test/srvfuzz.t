#!/usr/bin/env python3
"""test/srvfuzz.t - the server fuzzer (vfuzz -S) against the live servers.

Each run boots "-- restrict vfuzz -S fs,console,ns -s SEED -n CALLS"
(unprivileged, as an attacker would be; init powers QEMU off with its
verdict) and checks:

- vfuzz printed its seed, and its workers made all CALLS requests (their
  "servers: N calls" lines), most of them answered;
- no server died: vfuzz saw the same task ids for fs, console and ns
  after the run as before it, and init never had to start a server again
  (a server that died would be back under a new id, with init's message);
- no panic and no task killed for a fault (a server's fault is one);
- the leak check passed: after the worker ended (its connections closed,
  what it made in /tmp removed) the kernel's memory counters, the tasks'
  resident frames included, were back at the baseline taken after a
  warm-up run;
- QEMU exited with the pass code.

Runs (make check): seed 1 on 2 CPUs and seed 2 on 1 CPU, SLICE_CALLS
calls each, one worker task per CPU (their counts of the main run, the
lines after the baseline, are summed). SRVFUZZ_SEED, SRVFUZZ_CALLS and
SRVFUZZ_CPUS ask for one run of any length (`make srvfuzz`), and
SRVFUZZ_ARGS adds vfuzz options (`make srvfuzz WORKERS=N`: "-t N").
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

SLICE_CALLS = 20000     # about a minute under TCG on a loaded host
RATE_FLOOR = 100        # requests per second assumed for the timeout

SEED_RE = re.compile(r"^vfuzz: seed (\d+), (\d+) calls.*servers fs,console,ns$")
CALLS_RE = re.compile(r"vfuzz: servers: (\d+) calls .*: (\d+) answered")
SERVER_RE = re.compile(r"^vfuzz: server (\w+): task (\d+) before, (\d+) after(: DIED)?$")
RATE_RE = re.compile(r"vfuzz: (\d+ server workers|worker \d+): .*calls")
BASELINE_RE = re.compile(r"^vfuzz: baseline: ")
RESTART_RE = re.compile(r"^init: \w+ \(task \d+\) ended")


def runs():
    """[(seed, calls, cpus)] from the environment or the make check slice."""
    if os.environ.get("SRVFUZZ_CALLS") or os.environ.get("SRVFUZZ_SEED"):
        return [(int(os.environ.get("SRVFUZZ_SEED") or 1),
                 int(os.environ.get("SRVFUZZ_CALLS") or 1000000),
                 int(os.environ.get("SRVFUZZ_CPUS") or 2))]
    return [(1, SLICE_CALLS, 2), (2, SLICE_CALLS, 1)]


def main_run_counts(lines):
    """The workers' count lines of the main run (after the baseline line:
    the warm-up's come before it)."""
    start = max((i for i, l in enumerate(lines) if BASELINE_RE.match(l)),
                default=len(lines))
    return [m for m in map(CALLS_RE.search, lines[start:]) if m]


def check(tap, name, r, seed, calls):
    """The checks of one boot; whether all passed."""
    lines = r.lines
    ok = tap.ok(any(SEED_RE.match(l) and int(SEED_RE.match(l).group(1)) == seed
                    for l in lines), "%s vfuzz printed seed %d" % (name, seed))
    done = main_run_counts(lines)
    made = sum(int(m.group(1)) for m in done)
    answered = sum(int(m.group(2)) for m in done)
    ok &= tap.ok(made >= calls, "%s the %d workers made all %d requests (%d)"
                 % (name, len(done), calls, made))
    ok &= tap.ok(answered * 2 > made, "%s most were answered (%d of %d)"
                 % (name, answered, made))
    servers = {m.group(1): m for m in map(SERVER_RE.match, lines) if m}
    ok &= tap.ok(sorted(servers) == ["console", "fs", "ns"] and
                 not any(m.group(4) for m in servers.values()),
                 "%s fs, console and ns are the same tasks after the run (%s)"
                 % (name, ", ".join(m.group(0)[len("vfuzz: server "):] for m in servers.values())))
    restarts = [l for l in lines if RESTART_RE.match(l)]
    ok &= tap.ok(not restarts, "%s init started no server again (%r)"
                 % (name, restarts[:2]))
    ok &= suite.check_clean_log(tap, name, lines)
    ok &= suite.check_vfuzz_end(tap, name, r, "memory back at the baseline")
    return ok


def main():
    """Boot each run; report."""
    tap = Tap()
    bt.need_file(tap, suite.KERNEL, "kernel")
    bt.need_file(tap, suite.INITRD, "initrd")
    with tempfile.TemporaryDirectory(prefix="vernier-srvfuzz.") as tmp:
        for seed, calls, cpus in runs():
            cmd = "-- restrict vfuzz -S fs,console,ns -s %d -n %d -W %d %s" % (
                seed, calls, max(calls // 10, 1000),
                os.environ.get("SRVFUZZ_ARGS", ""))
            iso = suite.make_iso(tmp, cmd)
            r = vm.boot(iso, cpus=cpus, accel=bt.accel(),
                        timeout=120 + calls * 11 // 10 // RATE_FLOOR)
            name = "[seed %d cpus=%d calls=%d]" % (seed, cpus, calls)
            if not check(tap, name, r, seed, calls):
                bt.show_tail(tap, r)
            tap.diag("%s %.1f s" % (name, r.elapsed))
            for l in r.lines:
                if CALLS_RE.search(l) or l.startswith("vfuzz: server") or \
                        RATE_RE.search(l):
                    tap.diag(l)
    tap.done()


if __name__ == "__main__":
    main()
