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
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in test/lib
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))

import boottest as bt  # noqa: E402
import suite  # noqa: E402
import vm  # noqa: E402
from tap import Tap  # noqa: E402

SRC = os.path.join(bt.TOP, "uspace", "app", "gtbench")
HOST_MAIN = os.path.join(bt.TOP, "test", "gt", "host_main.c")
GUEST_OBJ = os.path.join(bt.BUILD, "uspace", "uspace", "app", "gtbench", "work.o")
# The code-generation flags of USER_CFLAGS (Makefile); the objdump check
# fails if they ever differ from what the guest build used.
CODEGEN = ["-std=gnu11", "-O2", "-ffreestanding", "-fno-pic", "-fno-pie",
           "-fno-omit-frame-pointer", "-mno-omit-leaf-frame-pointer",
           "-fno-optimize-sibling-calls", "-fstack-protector-strong",
           "-mstack-protector-guard=global",
           "-fno-common", "-fcf-protection=none",
           "-fno-asynchronous-unwind-tables"]
HOST_ROUNDS = 20
GUEST_ROUNDS = 2600     # ~1.2e9 instructions: 1.2 s of -icount time
HZ = 50000
MIN_SAMPLES = 50000
TOLERANCE = 0.5         # percentage points
MIN_SHARE = 0.5         # percent: functions compared
LEAF_RIGHT = 99.0       # percent of a leaf's samples with a real caller
SPLIT_TOLERANCE = 2.0   # points, the split between a leaf's callers
ICOUNT = "-icount shift=0,sleep=off -rtc clock=vm"

ROW_RE = re.compile(r"^0x[0-9a-f]+\s+(\d+)\s+\d+\s+[\d.]+%\s+(\S+)\s*$")
TOP_RE = re.compile(r"^\s*[\d.]+%\s+(\d+)\s+\d+\s+(\S+)\s*$")
CALLER_RE = re.compile(r"^( +)(\d+)\s+\d+\s+[\d.]+%\s+<- (\S+)")
SAMPLES_RE = re.compile(r"Samples:\s+(\d+) total")
CHECKSUM_RE = re.compile(r"gtbench \d+ rounds checksum 0x[0-9a-f]+")
CG_SELF_RE = re.compile(r"^\s*([\d,]+) \(\s*[\d.]+%\)\s+\S*:(gt_\w+) \[")
CG_CALLER_RE = re.compile(r"^\s*([\d,]+) \(\s*[\d.]+%\)\s+< \S*:(gt_\w+) ")
CG_FUNC_RE = re.compile(r"^\s*[\d,]+ \(\s*[\d.]+%\)\s+\*\s+\S*:(gt_\w+) ")


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def disasm(obj):
    """The code of obj as objdump prints it, without the file line."""
    out = run(["objdump", "-d", "--no-show-raw-insn", obj]).stdout
    return [l for l in out.splitlines() if l and "file format" not in l]


def frameless(obj):
    """Functions of obj whose code does not start with push %rbp."""
    out = run(["objdump", "-d", obj]).stdout
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


def callgrind(exe, rounds):
    """({function: self Ir}, {function: {caller: inclusive Ir}})."""
    out = os.path.join(os.path.dirname(exe), "callgrind.out")
    r = run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out,
             exe, str(rounds)])
    if r.returncode != 0:
        return None, None
    flat = run(["callgrind_annotate", "--threshold=100", out]).stdout
    tree = run(["callgrind_annotate", "--threshold=100", "--tree=caller",
                out]).stdout
    self_ir, callers, pending = {}, {}, {}
    for line in flat.splitlines():
        m = CG_SELF_RE.match(line)
        if m:
            self_ir[m.group(2)] = int(m.group(1).replace(",", ""))
    for line in tree.splitlines():
        m = CG_CALLER_RE.match(line)
        if m:
            pending[m.group(2)] = int(m.group(1).replace(",", ""))
            continue
        m = CG_FUNC_RE.match(line)
        if m:
            callers[m.group(1)] = pending
        if m or not line.strip():
            pending = {}
    return self_ir, callers


def host_build(tap, tmp):
    """Build gtbench for the host; its path, or None."""
    work = os.path.join(tmp, "work.o")
    exe = os.path.join(tmp, "gtbench-host")
    ok = (run(["gcc"] + CODEGEN + ["-c", os.path.join(SRC, "work.c"),
                                   "-o", work]).returncode == 0 and
          run(["gcc", "-O2", "-I", SRC, "-c", HOST_MAIN, "-o",
               os.path.join(tmp, "main.o")]).returncode == 0 and
          run(["gcc", "-no-pie", work, os.path.join(tmp, "main.o"), "-o",
               exe]).returncode == 0)
    tap.ok(ok, "host build of gtbench's work.c")
    same = ok and os.path.exists(GUEST_OBJ) and disasm(work) == disasm(GUEST_OBJ)
    tap.ok(same, "the host code is the guest's (objdump of work.o)")
    return exe if ok else None, work


def reference(tap, exe, work):
    """Callgrind's shares, callers and the leaves; also the host checksum
    of GUEST_ROUNDS."""
    self_ir, callers = callgrind(exe, HOST_ROUNDS) if exe else (None, None)
    tap.ok(self_ir and "gt_mix" in self_ir,
           "callgrind on the host build (%d functions)" % len(self_ir or {}))
    total = sum((self_ir or {}).values()) or 1
    shares = {f: 100.0 * n / total for f, n in (self_ir or {}).items()}
    for f, s in sorted(shares.items(), key=lambda x: -x[1]):
        tap.diag("callgrind %-10s %6.2f%%" % (f, s))
    leaves = sorted(f for f in frameless(work) if f in shares and shares[f] >= MIN_SHARE) \
        if exe else []
    tap.ok("gt_mix" in leaves, "frameless leaves: %s" % leaves)
    out = run([exe, str(GUEST_ROUNDS)]).stdout.strip() if exe else None
    return shares, callers or {}, leaves, out


def guest_profile(out):
    """({function: samples}, {leaf: {caller: samples}}, total, gtbench's line)
    of profile's output lines."""
    rows, tree, total, line, cur = {}, {}, None, None, None
    for l in out:
        m = CHECKSUM_RE.search(l)       # the status line may share its line
        if m:
            line = m.group(0)
        m = SAMPLES_RE.search(l)
        if m:
            total = int(m.group(1))
        m = ROW_RE.match(l)
        if m and m.group(2).startswith("gt_"):
            rows[m.group(2)] = int(m.group(1))
            continue
        m = TOP_RE.match(l)
        if m:
            cur = tree.setdefault(m.group(2), {})
            continue
        m = CALLER_RE.match(l)
        if m and cur is not None and len(m.group(1)) + len(m.group(2)) == 12:
            cur[m.group(3)] = int(m.group(2))     # level 0: direct callers
    return rows, tree, total, line


def compare(tap, label, shares, rows, assert_it):
    """Per-function errors (points) of rows against shares."""
    ours = sum(rows.values()) or 1
    names = sorted(set(f for f, s in shares.items() if s >= MIN_SHARE) |
                   set(f for f, n in rows.items() if 100.0 * n / ours >= MIN_SHARE))
    worst, errs = 0.0, []
    for f in names:
        got = 100.0 * rows.get(f, 0) / ours
        err = got - shares.get(f, 0.0)
        errs.append(abs(err))
        worst = max(worst, abs(err))
        text = "%s %-10s %6.2f%% (callgrind %6.2f%%, error %+.2f)" % (
            label, f, got, shares.get(f, 0.0), err)
        if assert_it:
            tap.ok(abs(err) <= TOLERANCE, text)
        else:
            tap.diag(text)
    tap.diag("%s: max error %.2f points, mean %.2f, over %d functions" % (
        label, worst, sum(errs) / max(len(errs), 1), len(errs)))


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
    rows, tree, total, line = guest_profile(r.lines)
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
    compare(tap, label, shares, rows, assert_it)
    leaf_callers(tap, label, leaves, callers, tree, assert_it)


def main():
    tap = Tap()
    tmp = tempfile.mkdtemp(prefix="gtcallgrind.")
    try:
        exe, work = host_build(tap, tmp)
        ref = reference(tap, exe, work)
        # init runs the profiler and powers off (no shell, no GRUB menu).
        iso = suite.make_iso(tmp, "-- profile -s timer -f %d -g /bin/gtbench %d"
                             % (HZ, GUEST_ROUNDS))
        check_guest(tap, iso, ref, "icount", ICOUNT, True)
        check_guest(tap, iso, ref, "tcg", None, False)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    tap.done()


if __name__ == "__main__":
    main()
