#!/usr/bin/env python3
"""test/gtsmp.t - the whole-system profiler against ground truth on 2 and 4
CPUs (issue 26 item 5).

Different code at once: `gtbench -t 4 ROUNDS` runs four threads, thread i
pinned to CPU i % CPUs and running job i (uspace/app/gtbench/smp.c: the
state machine and a CRC, the list walk and a CRC, matrix products, a mix),
all started together and spinning (smp_wait, not gt_*) until the last is
done, so that every CPU stays busy for the whole run. The host build of
work.c and smp.c with the guest's code-generation flags runs the same
instructions (objdump checks it): callgrind's self counts per round of
each job (two runs of it alone, 20 and 10 rounds, differenced: gt_init's
one-off part cancels) are the exact instruction shares within each job.
Across the jobs time does not follow instructions even under -icount:
QEMU runs the vCPUs in turns and does not give each the same number of
instructions per turn (on 4 CPUs its jobs took 2.9 to 6.0 ns of CPU time
an instruction by the kernel's accounting), so the reference weighs each
job's instructions by that job's own CPU time per instruction (gtbench
prints each job's CPU time, the kernel's TSC accounting of the thread).
In the guest (QEMU -icount shift=0), `sprofile -s timer -f 20000 -p 0
gtbench -t 4 ROUNDS` profiles the whole system while it runs; checked:
at least 50,000 samples, gtbench's checksum is the host's, and every gt_
function with 0.5% or more of the gt_ time is within 0.5 points of the
reference's share (shares by time: the samples' weights). The plain
instruction shares are printed beside it.

A half-busy system: `sprofile -s SRC tester spin 1 K` (K = CPUs / 2
spinners) for rtc-nmi, rtc and timer. Each sample weighs the time it
stands for, so
- the spinners' share is their own CPU time (tester prints the kernel's
  cycle-exact accounting of each thread) over the session's sampled time,
  within 1 point;
- the idle share is the idle share of the kernel's cycle accounting of
  every CPU over the same session (sprofile's "accounting:" line, read
  just after BEGIN and just before END), within 1 point; the accounting
  counts the interrupt handlers' own time (the sampler's included) apart,
  where the samples charge it to what was interrupted (idle, on an idle
  CPU), so up to the accounting's interrupt share more is allowed.
The session runs from before the spinners start to after they end (their
start and exit), so the spinners' share is a little under K / CPUs.

The boots use QEMU 10 (tools/qemu.sh --qemu 10, as test/qemu10.t; on
Debian 12 the backport tools/setup.sh unpacks) whatever the default:
QEMU 7.2's round-robin under -icount is not fair and charges an idle
CPU's time to the tick handler that woke it (seen: the idle half of a
half-busy 2-CPU system as 48% "tick_irq [k]").

Under `make check-qemu7` (VERNIER_QEMU=system: Debian 12's QEMU 7.2) the
-icount boots run on that QEMU and print their figures, not checked,
for README's QEMU 7.2 figures; there are no plain TCG boots then.

The same runs under plain TCG (no -icount: the vCPUs run on host threads,
interrupts only at translation-block ends) print their figures as TAP
diagnostics, not checked, for README's warning.

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

import gtref  # noqa: E402
import suite  # noqa: E402
import vm  # noqa: E402
from tap import Tap  # noqa: E402

THREADS = 4
ROUNDS = {2: 1500, 4: 1500}     # about 1.6e9 instructions
HZ = 20000
MIN_SAMPLES = 50000
TOLERANCE = 0.5                 # points, per function
SPLIT_TOLERANCE = 1.0           # points, spinners and idle
SPIN_S = 1
SOURCES = (("rtc-nmi", 1024), ("rtc", 1024), ("timer", 1000))

RUN_RE = re.compile(r"^runall: \$ sprofile ")
TASK_RE = re.compile(r"^\s*([\d.]+)%\s+(\d+)\s+(\d+)\s+(\d+ \S+|\[idle\])\s*$")
SYM_RE = re.compile(r"^\s*[\d.]+%\s+(\d+)\s+(\d+)\s+(?:\d+ \S+|\[idle\])\s+(\S+)\s*$")
TIME_RE = re.compile(r"^time: (\d+) ns sampled, (\d+) ns idle")
SAMPLES_RE = re.compile(r"^samples: (\d+) total")
ACCT_RE = re.compile(r"^accounting: (\d+) CPUs, \d+ us each, idle ([\d.]+)%, "
                     r"interrupts ([\d.]+)%")
JOB_RE = re.compile(r"gtbench: thread \d+ job (\d+) on cpu \d+: (\d+) us of CPU")
SPIN_RE = re.compile(r"spin: thread \d+ \(id \d+\): \d+ iterations, cpu \d+, "
                     r"cpu time (\d+) ms")


def command(words):
    """runall's operand for one command."""
    return ",".join(str(w) for w in words)


def commands(cpus):
    """The runall operands of one boot: gtbench, then the spinners."""
    runs = [command(["sprofile", "-s", "timer", "-f", HZ, "-p", "0", "/bin/gtbench",
                     "-t", THREADS, ROUNDS[cpus]])]
    for src, hz in SOURCES:
        runs.append(command(["sprofile", "-s", src, "-f", hz, "-p", "0", "/bin/tester",
                             "spin", SPIN_S, cpus // 2]))
    return runs



def report(lines):
    """The figures of one sprofile report: samples, sampled and idle ns,
    {task: ns}, {symbol: ns} (gt_ ones), the accounting, spin ms, the
    checksum line."""
    r = {"samples": None, "sampled": None, "tasks": {}, "syms": {}, "acct": None,
         "spin_ms": [], "line": None, "jobs": []}
    for l in lines:
        m = gtref.CHECKSUM_RE.search(l)
        if m:
            r["line"] = m.group(0)
        m = SAMPLES_RE.match(l)
        if m:
            r["samples"] = int(m.group(1))
        m = JOB_RE.search(l)
        if m:
            r["jobs"].append(m.groups())
        m = TIME_RE.match(l)
        if m:
            r["sampled"] = int(m.group(1))
        m = ACCT_RE.match(l)
        if m:
            r["acct"] = (float(m.group(2)), float(m.group(3)))
        for m in SPIN_RE.finditer(l):   # the status line may share its line
            r["spin_ms"].append(int(m.group(1)))
        m = TASK_RE.match(l)
        if m:
            name = m.group(4).split()[-1]
            r["tasks"][name] = r["tasks"].get(name, 0) + int(m.group(3))
            continue
        m = SYM_RE.match(l)
        if m and m.group(3).startswith("gt_"):
            r["syms"][m.group(3)] = r["syms"].get(m.group(3), 0) + int(m.group(2))
    return r


def per_round(exe, args):
    """{function: self Ir per round} of gtbench-host ARGS ROUNDS under
    callgrind: 20 rounds less 10 (gt_init's one-off part cancels)."""
    a, _ = gtref.callgrind(exe, args + [20]) if exe else (None, None)
    b, _ = gtref.callgrind(exe, args + [10]) if exe else (None, None)
    if not a or not b:
        return {}
    return {f: (a[f] - b.get(f, 0)) / 10.0 for f in a if a[f] > b.get(f, 0)}


def reference(tap, exe):
    """Callgrind's instructions per round of each of the threads' jobs
    ({job: {function: Ir}}) and their shares summed over the threads."""
    jobs = {j: per_round(exe, ["-j", j]) for j in range(THREADS)}
    total = {}
    for counts in jobs.values():
        for f, n in counts.items():
            total[f] = total.get(f, 0) + n
    tap.ok(all(jobs.values()) and
           {"gt_fsm", "gt_crc32", "gt_walk", "gt_matmul", "gt_mix"} <= set(total),
           "callgrind of the host build's %d jobs (%d functions)" % (THREADS, len(total)))
    shares = gtref.shares(total)
    for f, s in sorted(shares.items(), key=lambda x: -x[1]):
        tap.diag("callgrind %-10s %6.2f%% of the instructions" % (f, s))
    return jobs, shares


def expected(jobs, job_us):
    """{function: percent of the time}: each job's instructions per
    function (callgrind) at that job's own time per instruction (its CPU
    time by the kernel's accounting over its instructions)."""
    want = {}
    for j, counts in jobs.items():
        ir = sum(counts.values())
        for f, n in counts.items():
            want[f] = want.get(f, 0.0) + n * job_us.get(j, 0) / (ir or 1)
    all_ = sum(want.values()) or 1
    return {f: 100.0 * t / all_ for f, t in want.items()}


def check_gtbench(tap, label, r, ref, host_line, rounds, exact):
    """gtbench's run: samples, checksum, per-function shares against
    callgrind at each job's measured time per instruction (asserted under
    -icount); against callgrind's plain instruction shares (printed)."""
    jobs, instr = ref
    job_us = {int(j): int(us) for j, us in r["jobs"]}
    if exact:
        tap.ok(r["samples"] and r["samples"] >= MIN_SAMPLES and r["line"] == host_line
               and len(job_us) == THREADS,
               "%s: %s samples (want >= %d), checksum %r (host %r), %d jobs timed" %
               (label, r["samples"], MIN_SAMPLES, r["line"], host_line, len(job_us)))
    else:
        tap.diag("%s: %s samples, checksum %r" % (label, r["samples"], r["line"]))
    for j in sorted(job_us):
        ir = sum(jobs.get(j, {}).values()) * rounds
        tap.diag("%s job %d: %d us of CPU for %.0f instructions: %.3f ns each" %
                 (label, j, job_us[j], ir, 1000.0 * job_us[j] / ir if ir else 0))
    gtref.compare(tap, label + " (instructions)", instr, r["syms"], TOLERANCE, False)
    gtref.compare(tap, label, expected(jobs, job_us), r["syms"], TOLERANCE, exact)


def check_split(tap, label, r, spinners, exact):
    """One half-busy run: the spinners' and idle shares against accounting."""
    sampled = r["sampled"] or 0
    spin = 100.0 * r["tasks"].get("tester", 0) / sampled if sampled else 0.0
    idle = 100.0 * r["tasks"].get("[idle]", 0) / sampled if sampled else 0.0
    truth = 100.0 * sum(r["spin_ms"]) * 1e6 / sampled if sampled else 0.0
    acct_idle, acct_irq = r["acct"] or (0.0, 0.0)
    text = "%s: spinners %.2f%% (their CPU time %.2f%%), idle %.2f%% " \
           "(accounting %.2f%%, interrupts %.2f%%)" % (label, spin, truth, idle,
                                                     acct_idle, acct_irq)
    if not exact:
        tap.diag(text)
        return
    tap.ok(len(r["spin_ms"]) == spinners and r["acct"] is not None and sampled > 0,
           "%s: %d spinners reported, the accounting line is there" %
           (label, len(r["spin_ms"])))
    tap.ok(abs(spin - truth) <= SPLIT_TOLERANCE, text + ": spinners within %.1f" %
           SPLIT_TOLERANCE)
    tap.ok(acct_idle - SPLIT_TOLERANCE <= idle <= acct_idle + acct_irq + SPLIT_TOLERANCE,
           text + ": idle within %.1f (+ interrupts)" % SPLIT_TOLERANCE)


def check_boot(tap, tmp, cpus, ref, host_line, icount, exact, qemu=""):
    """One boot on cpus CPUs (-icount shift=0 if icount, else plain TCG);
    checked if exact, else printed."""
    iso = suite.make_iso(tmp, "-- runall " + " ".join(commands(cpus)))
    kind = ("icount" if icount else "tcg") + qemu
    r = vm.boot(iso, cpus=cpus, extra=gtref.ICOUNT if icount else None, timeout=900,
                alone=not icount)   # plain TCG shares follow host time
    ended = r.exit_code == suite.PASS_EXIT and not r.timed_out
    if exact:
        tap.ok(ended, "[%s cpus=%d] every run ended and the guest powered off "
               "(QEMU exit %s in %.0f s)" % (kind, cpus, r.exit_code, r.elapsed))
    else:
        tap.diag("[%s cpus=%d] QEMU exit %s in %.0f s" % (kind, cpus, r.exit_code,
                                                          r.elapsed))
    runs = [report(lines) for lines in gtref.split_runs(r.lines, RUN_RE)]
    runs += [report([])] * (1 + len(SOURCES) - len(runs))
    check_gtbench(tap, "[%s cpus=%d] gtbench -t %d" % (kind, cpus, THREADS), runs[0],
                  ref, host_line[cpus], ROUNDS[cpus], exact)
    for (src, _), run in zip(SOURCES, runs[1:]):
        check_split(tap, "[%s cpus=%d] %s, %d of %d CPUs busy" % (kind, cpus, src,
                                                               cpus // 2, cpus),
                    run, cpus // 2, exact)


def main():
    tap = Tap()
    old = os.environ.get("VERNIER_QEMU") == "system"   # make check-qemu7
    if not old:
        os.environ["VERNIER_QEMU"] = "10"
    v = vm.qemu_version()
    qemu = " qemu %d.%d" % v if old and v else ""
    tmp = tempfile.mkdtemp(prefix="gtsmp.")
    try:
        exe, _ = gtref.host_build(tap, tmp)
        ref = reference(tap, exe)
        host_line = {c: gtref.run([exe, "-t", str(THREADS), str(n)]).stdout.strip()
                     if exe else None for c, n in ROUNDS.items()}
        for cpus in sorted(ROUNDS):
            check_boot(tap, tmp, cpus, ref, host_line, True, not old, qemu)
        for cpus in sorted(ROUNDS if not old else ()):
            check_boot(tap, tmp, cpus, ref, host_line, False, False)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    tap.done()


if __name__ == "__main__":
    main()
