"""test/lib/gtref.py - callgrind as the reference of the profiler's ground
truths on gtbench (uspace/app/gtbench; test/gtcallgrind.t, test/gtloop.t).

gtbench's work.c and loop.c call nothing outside themselves, so their host
build with the guest's code-generation flags (CODEGEN) runs the very same
instructions under callgrind: its self instruction counts per function
are the exact shares a sampler must find.
"""

import os
import re
import subprocess

import boottest as bt

SRC = os.path.join(bt.TOP, "uspace", "app", "gtbench")
HOST_MAIN = os.path.join(bt.TOP, "test", "gt", "host_main.c")
GUEST_OBJS = os.path.join(bt.BUILD, "uspace", "uspace", "app", "gtbench")
# The code-generation flags of USER_CFLAGS (Makefile); the objdump check
# fails if they ever differ from what the guest build used.
CODEGEN = ["-std=gnu11", "-O2", "-ffreestanding", "-fno-pic", "-fno-pie",
           "-fno-omit-frame-pointer", "-mno-omit-leaf-frame-pointer",
           "-fno-optimize-sibling-calls", "-fstack-protector-strong",
           "-mstack-protector-guard=global",
           "-fno-common", "-fcf-protection=none",
           "-fno-asynchronous-unwind-tables"]
ICOUNT = "-icount shift=0,sleep=off -rtc clock=vm"
MIN_SHARE = 0.5         # percent: functions compared

ROW_RE = re.compile(r"^0x[0-9a-f]+\s+(\d+)\s+\d+\s+[\d.]+%\s+(\S+)\s*$")
TOP_RE = re.compile(r"^\s*[\d.]+%\s+(\d+)\s+\d+\s+(\S+)\s*$")
CALLER_RE = re.compile(r"^( +)(\d+)\s+\d+\s+[\d.]+%\s+<- (\S+)")
SAMPLES_RE = re.compile(r"Samples:\s+(\d+) total")
CHECKSUM_RE = re.compile(r"gtbench ((-l |-t \d+ )?\d+ rounds|-p \d+ \d+ \d+) checksum 0x[0-9a-f]+")
CG_SELF_RE = re.compile(r"^\s*([\d,]+) \(\s*[\d.]+%\)\s+\S*:(gt_\w+) \[")
CG_CALLER_RE = re.compile(r"^\s*([\d,]+) \(\s*[\d.]+%\)\s+< \S*:(gt_\w+) ")
CG_FUNC_RE = re.compile(r"^\s*[\d,]+ \(\s*[\d.]+%\)\s+\*\s+\S*:(gt_\w+) ")


def run(cmd, **kw):
    """subprocess.run with text output captured."""
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def disasm(obj):
    """The code of obj as objdump prints it, without the file line."""
    out = run(["objdump", "-d", "--no-show-raw-insn", obj]).stdout
    return [l for l in out.splitlines() if l and "file format" not in l]


def host_build(tap, tmp):
    """Build gtbench (work.c, loop.c, smp.c, pages.c, test/gt/host_main.c) for the host and
    check each object's code against the guest's; the executable's path
    (None if the build failed) and {name: object path}."""
    objs = {n: os.path.join(tmp, n + ".o") for n in ("work", "loop", "smp", "pages")}
    exe = os.path.join(tmp, "gtbench-host")
    ok = all(run(["gcc"] + CODEGEN + ["-c", os.path.join(SRC, n + ".c"),
                                      "-o", o]).returncode == 0
             for n, o in objs.items())
    ok = ok and run(["gcc", "-O2", "-I", SRC, "-c", HOST_MAIN, "-o",
                     os.path.join(tmp, "main.o")]).returncode == 0
    ok = ok and run(["gcc", "-no-pie"] + list(objs.values()) +
                    [os.path.join(tmp, "main.o"), "-o", exe]).returncode == 0
    tap.ok(ok, "host build of gtbench's work.c, loop.c, smp.c and pages.c")
    for n, o in objs.items():
        guest = os.path.join(GUEST_OBJS, n + ".o")
        tap.ok(ok and os.path.exists(guest) and disasm(o) == disasm(guest),
               "the host code is the guest's (objdump of %s.o)" % n)
    return exe if ok else None, objs


def callgrind(exe, args):
    """({function: self Ir}, {function: {caller: inclusive Ir}}) of exe
    ARGS under callgrind; (None, None) if it failed."""
    out = os.path.join(os.path.dirname(exe), "callgrind.out")
    r = run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out,
             exe] + [str(a) for a in args])
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


def shares(self_ir):
    """{function: percent of all self Ir}."""
    total = sum((self_ir or {}).values()) or 1
    return {f: 100.0 * n / total for f, n in (self_ir or {}).items()}


def split_runs(lines, run_re):
    """The output lines of each run of a runall boot, in order: a line
    matching run_re (runall's echo of the command) starts the next run."""
    runs = []
    for line in lines:
        if run_re.match(line):
            runs.append([])
        elif runs:
            runs[-1].append(line)
    return runs


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


def compare(tap, label, want, rows, tolerance, assert_it):
    """Per-function errors (points) of rows (samples) against want
    (percent); each one a TAP test if assert_it, else a diagnostic.
    Returns the largest error."""
    ours = sum(rows.values()) or 1
    names = sorted(set(f for f, s in want.items() if s >= MIN_SHARE) |
                   set(f for f, n in rows.items() if 100.0 * n / ours >= MIN_SHARE))
    worst, errs = 0.0, []
    for f in names:
        got = 100.0 * rows.get(f, 0) / ours
        err = got - want.get(f, 0.0)
        errs.append(abs(err))
        worst = max(worst, abs(err))
        text = "%s %-10s %6.2f%% (callgrind %6.2f%%, error %+.2f)" % (
            label, f, got, want.get(f, 0.0), err)
        if assert_it:
            tap.ok(abs(err) <= tolerance, text)
        else:
            tap.diag(text)
    tap.diag("%s: max error %.2f points, mean %.2f, over %d functions" % (
        label, worst, sum(errs) / max(len(errs), 1), len(errs)))
    return worst
