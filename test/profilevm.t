#!/usr/bin/env python3
"""test/profilevm.t - tools/profile-vm.sh (make profile): boot to profile files.

- usage: -h prints it with status 0; a bad --cpus, an unknown option and
  a CMD with a shell metacharacter print it with status 2; a build
  directory without the ISO gives status 1 and a message;
- `make -n profile` passes CMD, CPUS, SECS, ARGS and TASK=1 on;
- a system profile (run from /, 1 CPU, `--icount 3`: a fixed shift; under
  the default shift=auto a loaded host made QEMU raise the shift until
  the 10 ms drain passes took a third of the guest's instructions, and
  once the workload got no sample at all): `--secs 2 workload -d 2
  alpha:2 beta:1` exits 0, prints progress lines on stderr and the paths
  on stdout; OUT holds stream.vprof (the HEADER record and magic first),
  report.txt (the summary, rows for work_alpha and work_beta, alpha with
  more samples) and console.log;
- every export format is there and named on stdout: flame.folded,
  flame.svg (titled "stream.vprof", work_alpha in it), profile.pb.gz
  (gzip), callgrind.out, speedscope.json (one profile per task), a
  gmon.out per program and the kernel ("gmon" header) and perf.data
  (PERFILE2; perf report with --symfs of the build's initrd-root names
  work_alpha in workload and the kernel's functions as [k]);
- a task profile with call chains (`--task --args -g`, a relative
  --build): every sample is on the workload's behalf (`vprof -C` has one
  origin, workload, at 100%: its own samples and those of servers serving
  its calls, such as the console writing its output) and the report has
  the caller tree; the folded stacks have the call chains.

TAP on stdout, for prove.
"""

import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in test/lib
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))

import boottest as bt  # noqa: E402
from tap import Tap  # noqa: E402

SCRIPT = os.path.join(bt.TOP, "tools", "profile-vm.sh")
MAGIC = b"VPROF\0\0\0"
ROW_RE = r"^\s*[\d.]+%%\s+(\d+)\s+\d+\s+\d+ workload\s+%s$"
TMP = tempfile.mkdtemp(prefix="vernier-profilevm-")


def run(args, cwd=None, timeout=300):
    return subprocess.run([SCRIPT] + args, capture_output=True, text=True,
                          cwd=cwd, timeout=timeout)


def check_usage(tap):
    r = run(["-h"])
    tap.ok(r.returncode == 0 and r.stdout.startswith("Usage: profile-vm.sh"),
           "-h: usage on stdout, status 0")
    for args, what in ((["--cpus", "x"], "a bad --cpus"),
                       (["--bogus"], "an unknown option"),
                       (["workload; reboot"], "a CMD with ;"),
                       (["--secs", "0"], "--secs 0")):
        r = run(args)
        tap.ok(r.returncode == 2 and "Usage: profile-vm.sh" in r.stderr,
               "%s: usage on stderr, status 2 (%s)" % (what, r.returncode))
    r = run(["--build", TMP])
    tap.ok(r.returncode == 1 and "vernier.iso not found" in r.stderr,
           "no ISO in the build: status 1 and a message (%r)" % r.stderr.strip())


def check_make(tap):
    r = subprocess.run(["make", "-n", "-C", bt.TOP, "profile", "CMD=workload -d 1 beta:1",
                        "CPUS=3", "SECS=1.5", "ARGS=-g -f 4096", "TASK=1"],
                       capture_output=True, text=True, timeout=120)
    text = re.sub(r"\\\n\s*", " ", r.stdout)       # join the continued lines
    line = next((l for l in text.splitlines() if "profile-vm.sh" in l), "")
    tap.ok(r.returncode == 0 and all(s in line for s in (
        "--secs 1.5", '--args "-g -f 4096"', "--cpus 3", "--task",
        '-- "workload -d 1 beta:1"')), "make -n profile passes the options on (%s)" % line)


def stream_ok(path):
    data = open(path, "rb").read() if os.path.exists(path) else b""
    return len(data) > 64 and data[16:24] == MAGIC and \
        struct.unpack_from("<H", data)[0] == 1


def rows(report, name):
    m = re.search(ROW_RE % name, report, re.M)
    return int(m.group(1)) if m else 0


EXPORTS = ("flame.folded", "flame.svg", "profile.pb.gz", "callgrind.out",
           "speedscope.json", "gmon.out.workload", "gmon.out.kernel", "perf.data")


def head(path, n):
    with open(path, "rb") as f:
        return f.read(n)


def check_exports(tap, out, stdout):
    paths = {f: os.path.join(out, f) for f in EXPORTS}
    listed = stdout.splitlines()
    missing = [f for f, p in paths.items() if not (os.path.exists(p) and
                                                   os.path.getsize(p) > 0 and
                                                   ("  " + p) in listed)]
    tap.ok(not missing, "every export written and named on stdout%s" %
           (": missing " + ", ".join(missing) if missing else ""))
    if missing:
        return
    folded = open(paths["flame.folded"]).read().splitlines()
    tap.ok(folded and all(re.match(r"^\S+(;\S+)+ \d+$", l) for l in folded) and
           any(l.startswith("workload;") and "work_alpha" in l for l in folded),
           "flame.folded: 'task;..;leaf N' lines, workload's work_alpha among them")
    svg = open(paths["flame.svg"]).read()
    tap.ok("<title>stream.vprof - vprof flame graph</title>" in svg and
           'data-name="work_alpha"' in svg and svg.rstrip().endswith("</svg>"),
           "flame.svg: titled stream.vprof, work_alpha drawn")
    tap.ok(head(paths["profile.pb.gz"], 2) == b"\x1f\x8b", "profile.pb.gz: gzip")
    tap.ok(head(paths["callgrind.out"], 18) == b"# callgrind format",
           "callgrind.out: the callgrind format")
    try:
        doc = json.load(open(paths["speedscope.json"]))
    except ValueError:
        doc = {}
    names = [p.get("name", "") for p in doc.get("profiles", [])]
    tap.ok(any(n.startswith("workload ") for n in names) and doc.get("name") == "stream.vprof",
           "speedscope.json: a profile per task (%s)" % names)
    tap.ok(all(head(paths[f], 4) == b"gmon" for f in ("gmon.out.workload", "gmon.out.kernel")),
           "gmon.out.workload and gmon.out.kernel: gprof's header")
    root = os.path.join(bt.BUILD, "initrd-root")
    r = subprocess.run(["perf", "report", "--stdio", "--no-children", "-g", "none", "--sort",
                        "dso,sym", "-i", paths["perf.data"], "--symfs", root, "-k",
                        os.path.join(root, "boot", "kernel")], capture_output=True, text=True,
                       env=dict(os.environ, HOME=TMP))
    tap.ok(head(paths["perf.data"], 8) == b"PERFILE2" and r.returncode == 0 and
           re.search(r"^\s+[\d.]+%\s+workload\s+\[\.\] work_alpha$", r.stdout, re.M) and
           re.search(r"^\s+[\d.]+%\s+\[kernel\.kallsyms\]\s+\[k\] \w+$", r.stdout, re.M),
           "perf.data: perf report names work_alpha in workload, kernel functions [k] "
           "(rc %d %s)" % (r.returncode, r.stderr.strip()[-200:]))


def check_system(tap):
    out = os.path.join(TMP, "sys")
    r = run(["--build", bt.BUILD, "--out", out, "--secs", "2", "--icount", "3",
             "workload -d 2 alpha:2 beta:1"], cwd="/")
    tap.ok(r.returncode == 0, "system profile: status 0 (%s)" % r.stderr.strip()[-300:])
    tap.ok(re.search(r"^profile-vm: profiling the system for 2 s, +\d+ s, COM2 \d+ KiB$",
                     r.stderr, re.M), "a progress line on stderr, one per stage (%r)" %
           r.stderr.strip().splitlines()[-4:])
    files = [os.path.join(out, f) for f in ("stream.vprof", "report.txt", "console.log")]
    tap.ok(all(("  " + f) in r.stdout.splitlines() for f in files),
           "the paths on stdout (%r)" % r.stdout)
    tap.ok(stream_ok(files[0]), "stream.vprof: a profiler stream")
    report = open(files[1]).read() if os.path.exists(files[1]) else ""
    tap.ok(re.search(r"^samples: \d+ total", report, re.M), "report.txt: the summary")
    a, b = rows(report, "work_alpha"), rows(report, "work_beta")
    tap.ok(a > 0 and b > 0 and a > b,
           "report.txt names work_alpha (%d) and work_beta (%d), alpha more" % (a, b))
    tap.ok(os.path.getsize(files[2]) > 0 if os.path.exists(files[2]) else False,
           "console.log kept")
    check_exports(tap, out, r.stdout)
    if not (a and b):
        for line in report.splitlines()[:30]:
            tap.diag("  " + line)


def by_origin(stream):
    """The (percent, task) rows of vprof -C's by-origin table of STREAM
    (own, imposed, total, ns, %, task)."""
    r = subprocess.run([os.path.join(bt.BUILD, "host", "vprof"), "-C", "-p", "0", stream],
                       capture_output=True, text=True, timeout=60)
    return re.findall(r"^\s*\d+\s+\d+\s+\d+\s+\d+\s+([\d.]+)%\s+\d+ (\S+)$", r.stdout, re.M)


def check_task(tap):
    out = os.path.join(TMP, "task")
    r = run(["--build", os.path.relpath(bt.BUILD, bt.TOP), "--out", out, "--task", "--args",
             "-g", "workload -d 1 alpha:1 beta:1"], cwd=bt.TOP)
    tap.ok(r.returncode == 0, "--task --args -g: status 0 (%s)" % r.stderr.strip()[-300:])
    path = os.path.join(out, "report.txt")
    report = open(path).read() if os.path.exists(path) else ""
    origins = by_origin(os.path.join(out, "stream.vprof"))
    tap.ok(len(origins) == 1 and origins[0][1] == "workload" and origins[0][0] == "100.00",
           "every sample is on the workload's behalf (vprof -C: %r)" % origins)
    tap.ok("callers of the top functions:" in report and rows(report, "work_beta") > 0,
           "with the caller tree (-g passed to the profiler and to vprof)")
    path = os.path.join(out, "flame.folded")
    folded = open(path).read().splitlines() if os.path.exists(path) else []
    tap.ok(any(re.match(r"^workload;.*;.*work_beta \d+$", l) for l in folded),
           "flame.folded has the call chains (a workload;..;..work_beta stack)")


def main():
    tap = Tap()
    bt.need_file(tap, bt.ISO, "ISO")
    try:
        check_usage(tap)
        check_make(tap)
        check_system(tap)
        check_task(tap)
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
    tap.done()


if __name__ == "__main__":
    main()
