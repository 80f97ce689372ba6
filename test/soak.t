#!/usr/bin/env python3
"""test/soak.t - the soak run (/bin/soak) booted in QEMU.

One boot of "-- soak -d SECONDS -s SEED" (soak holds every permission, as
init's first program; it runs sprofile -f 10000 -g -o com2, workload on
every CPU, ipctest stress in a loop, a spawn/kill storm, vfuzz -w rounds
without permissions and a memory toucher near the region limit together,
then checks and prints a summary). COM2 goes to a host file: the profile
stream. Checks:

- soak printed PASS and QEMU exited with the pass code: every ipctest
  round answered its 10,000 calls exactly once, every vfuzz result was
  allowed, every spawn, kill and wait of the storm worked, workload,
  the toucher and sprofile exited 0;
- the leak check passed (frames, heap, kernel stacks, tasks and threads
  back at the baseline exactly) and each leaked_* line says 0;
- samples + lost = taken: the stream's END record (the session's samples
  and lost) adds up to what the profiler's totals moved by during the run
  (prof_taken: the samples the CPUs took and those the rings dropped,
  less those taken after the session's end, which reach no session),
  the stream holds exactly END.samples sample records, and
  sprofile's report says the same;
- every part ran (ipc_calls, storm_kills, vfuzz_calls > 0, the toucher's
  line with its rounds);
- every CPU has its cpuN_irqoff_max and cpuN_nmi_max lines, irqoff > 0;
- no panic, no task killed for a fault, and the serial log never went
  silent for SILENCE_S host seconds.

Before it (not under tools/soak.sh), a regression boot: `vfuzz -r
sprofile -d 1 -g` must pass its leak check (the console used to keep a
dead client's read, and with it a thread, until a key was typed); and a
boot of `soak -d 2 -W 1 -H 8` checks the stuck-part report (a part still
running -W seconds after the end is named with its child's threads and
every task, so a hang in CI says where it is).

make check: SECONDS=60 on 2 CPUs (plain TCG, about 2.5 minutes in all).
tools/soak.sh (make soak) sets SOAK_SECONDS, SOAK_CPUS, SOAK_SEED and
SOAK_SUMMARY=1 (the summary lines on stdout at the end).
TAP on stdout, for prove.
"""

import os
import re
import shutil
import struct
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in test/lib
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))

import boottest as bt  # noqa: E402
import suite  # noqa: E402
import vm  # noqa: E402
from tap import Tap  # noqa: E402

SECONDS = int(os.environ.get("SOAK_SECONDS") or 60)
CPUS = int(os.environ.get("SOAK_CPUS") or 2)
SEED = int(os.environ.get("SOAK_SEED") or 1)
SILENCE_S = 60          # host seconds without a serial line: the guest hung
# boot, warm-up, sprofile's tail (soak's SOAK_PROF_TAIL_S), settling
TIMEOUT = SECONDS + 300

SUMMARY_RE = re.compile(r"^soak: ([a-z0-9_]+) (-?\d+) ([a-z]+)$")
REPORT_RE = re.compile(r"samples: (\d+) total, \d+ user, \d+ kernel, \d+ idle, (\d+) lost$")
TOUCH_RE = re.compile(r"soak: toucher: (\d+) rounds of \d+ regions")
REC_HEADER, REC_SAMPLE, REC_LOST, REC_END = 1, 2, 6, 8
MAGIC_OFF = 16


def stream(path):
    """The last stream in the file (the warm-up's comes first): (sample
    records, sum of LOST counts, END (samples, lost, lost_records) or None,
    ok)."""
    data = open(path, "rb").read() if os.path.exists(path) else b""
    samples = lost = 0
    end = None
    at = 0
    ok = len(data) >= 24 and struct.unpack_from("<H", data)[0] == REC_HEADER
    while ok and at + 16 <= len(data):
        rtype, size = struct.unpack_from("<HH", data, at)
        if size < 16 or size % 8 or at + size > len(data):
            ok = False
            break
        if rtype == REC_HEADER:
            samples = lost = 0
            end = None
        elif rtype == REC_SAMPLE:
            samples += 1
        elif rtype == REC_LOST:
            lost += struct.unpack_from("<Q", data, at + 16)[0]
        elif rtype == REC_END:
            smp, lst = struct.unpack_from("<QQ", data, at + 16)
            end = (smp, lst, struct.unpack_from("<I", data, at + 44)[0])
        at += size
    return samples, lost, end, ok and end is not None


class Watch:
    """Follows the serial log: the longest silence."""

    def __init__(self):
        self.last = 0.0
        self.longest = 0.0

    def line(self, t, line):
        self.longest = max(self.longest, t - self.last)
        self.last = t
        if os.environ.get("SOAK_PROGRESS") == "1" and line.startswith("soak: "):
            sys.stderr.write("[%5.0f s] %s\n" % (t, line))


def summary(lines):
    """soak's "name value unit" lines as {name: (value, unit)}."""
    out = {}
    for l in lines:
        m = SUMMARY_RE.match(l)
        if m:
            out[m.group(1)] = (int(m.group(2)), m.group(3))
    return out


def check_prof(tap, s, lines, com2):
    """samples + lost = taken, from the stream, the report and soak."""
    nsamples, nlost, end, ok = stream(com2)
    taken = s.get("prof_taken", (-1,))[0]
    tap.ok(ok, "the COM2 stream is well formed and ends with END (%d sample records)"
           % nsamples)
    tap.ok(end is not None and end[0] + end[1] == taken and taken > 0,
           "samples + lost = taken: END (samples, lost, other records lost) %s, "
           "profiler totals moved by %d" % (end, taken))
    tap.ok(end is not None and nsamples == end[0],
           "the stream holds END.samples sample records (%d)" % nsamples)
    rep = [REPORT_RE.search(l) for l in lines if REPORT_RE.search(l)]
    last = (int(rep[-1].group(1)), int(rep[-1].group(2))) if rep else None
    tap.ok(end is not None and last == (end[0], end[1]),
           "sprofile's report says the same (%s)" % (last,))


def check_summary(tap, s, lines):
    """Every part ran; nothing leaked; every CPU has its maxima."""
    for name in ("ipc_calls", "storm_kills", "vfuzz_calls"):
        tap.ok(s.get(name, (0,))[0] > 0, "%s ran: %s" % (name, s.get(name)))
    touch = [TOUCH_RE.search(l) for l in lines if TOUCH_RE.search(l)]
    tap.ok(touch and int(touch[-1].group(1)) > 0,
           "the memory toucher ran (%s rounds)" % (touch[-1].group(1) if touch else None))
    for name in ("ipc_unanswered", "failed_rounds", "leaked_frames", "leaked_heap",
                 "leaked_kstacks", "leaked_tasks", "leaked_threads"):
        tap.ok(s.get(name, (-1,))[0] == 0, "%s is 0 (%s)" % (name, s.get(name)))
    cpus = [i for i in range(CPUS) if s.get("cpu%d_irqoff_max" % i, (0,))[0] > 0
            and "cpu%d_nmi_max" % i in s]
    tap.ok(len(cpus) == CPUS, "irqoff and NMI maxima for every CPU (%d of %d)"
           % (len(cpus), CPUS))


def check_sprofile_leak(tap, tmp):
    """Regression: `vfuzz -r sprofile -d 1 -g` leaks nothing. sprofile's
    key reader thread waits in a console read when sprofile exits; the
    console kept that call (and the dead thread) until a key came."""
    iso = suite.make_iso(tmp, "-- vfuzz -r sprofile -d 1 -g")
    r = vm.boot(iso, cpus=2, accel=bt.accel(), timeout=120)
    ok = tap.ok(any(l == "vfuzz: PASS" for l in r.lines) and r.exit_code == suite.PASS_EXIT,
                "vfuzz -r sprofile -d 1 -g: no thread or heap left behind")
    if not ok:
        bt.show_tail(tap, r)


def check_stuck_report(tap, tmp):
    """A part still running -W seconds after the end is shown: `soak -d 2
    -W 1 -H 8` (the storm's first sleep lasts 8 s) names the storm and its
    child, then the child's threads (tasks -t: the sleep, waiting in
    sleep) and every task, and goes on to its summary. (Its leak check is
    not asked: running `tasks` the first time leaves about 21 KiB of
    kernel heap it keeps, the same after more runs.)"""
    iso = suite.make_iso(tmp, "-- soak -d 2 -W 1 -H 8 -x ipctest,vfuzz,workload,toucher")
    r = vm.boot(iso, cpus=2, accel=bt.accel(), timeout=180,
                extra="-serial file:" + os.path.join(tmp, "stuck.bin"))
    # search: sprofile's status line has no newline, and the report may follow it
    m = [re.search(r"soak: storm stuck: 1 s after the deadline, child task (\d+) not reaped$",
                   l) for l in r.lines]
    m = [x for x in m if x]
    child = m[0].group(1) if m else "?"
    rows = [l.split() for l in r.lines]
    waits = [f for f in rows if len(f) >= 9 and f[1] == child and f[-1] == "sleep"
             and f[-2] == "sleep"]
    tap.ok(m and waits and any(l.startswith("soak: seconds ") for l in r.lines),
           "soak -W 1 -H 8: the stuck storm and its child %s shown (%r), then the summary"
           % (child, [" ".join(f) for f in waits][:2]))
    if not (m and waits):
        bt.show_tail(tap, r)


def main():
    """Boot the regression check, then the soak; report."""
    tap = Tap()
    bt.need_file(tap, suite.KERNEL, "kernel")
    bt.need_file(tap, suite.INITRD, "initrd")
    tmp = tempfile.mkdtemp(prefix="vernier-soak.")
    try:
        if os.environ.get("SOAK_SUMMARY") != "1":
            check_sprofile_leak(tap, tmp)
            check_stuck_report(tap, tmp)
        com2 = os.path.join(tmp, "com2.bin")
        iso = suite.make_iso(tmp, "-- soak -d %d -s %d" % (SECONDS, SEED))
        watch = Watch()
        r = vm.boot(iso, cpus=CPUS, accel=bt.accel(), timeout=TIMEOUT,
                    on_line=watch.line, extra="-serial file:" + com2)
        lines = r.lines
        name = "[soak %d s cpus=%d]" % (SECONDS, CPUS)
        ok = tap.ok(any(l == "soak: PASS" for l in lines), "%s soak: PASS" % name)
        ok &= tap.ok(any(l == "soak: leak check passed" for l in lines),
                     "%s frames, heap, kernel stacks, tasks and threads back at baseline"
                     % name)
        ok &= suite.check_clean_log(tap, name, lines)
        ok &= tap.ok(watch.longest < SILENCE_S, "%s the log never went silent for %d s "
                     "(longest %.1f s)" % (name, SILENCE_S, watch.longest))
        ok &= tap.ok(not r.timed_out and r.exit_code == suite.PASS_EXIT,
                     "%s QEMU exit code %d (soak passed)" % (name, suite.PASS_EXIT))
        s = summary(lines)
        check_prof(tap, s, lines, com2)
        check_summary(tap, s, lines)
        failed = [l for l in lines if re.match(r"^soak: .*(failed|FAIL|could not|stuck)", l)]
        if failed or not ok:
            bt.show_lines(tap, "%s soak's complaints:" % name, failed, limit=20)
            bt.show_tail(tap, r)
        tap.diag("%s %.1f s" % (name, r.elapsed))
        for k, (v, unit) in s.items():
            tap.diag("%s %d %s" % (k, v, unit))
        if os.environ.get("SOAK_SUMMARY") == "1":
            with open(os.environ.get("SOAK_SUMMARY_FILE", "/dev/stderr"), "w") as f:
                for k, (v, unit) in s.items():
                    f.write("%s %d %s\n" % (k, v, unit))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    tap.done()


if __name__ == "__main__":
    main()
