#!/usr/bin/env python3
"""test/exportvm.t - vprof's exports of a stream recorded in the guest.

One boot of the default ISO on 2 CPUs with COM2 going to a host file
runs `profile -g -o com2 workload -d 3 alpha:2 beta:1 gamma:1` (a 2:1:1
workload with call chains) and powers off. On the host, with the staged
initrd-root's ELF files, vprof's report of that stream is the reference
and each real consumer must agree with it (test/export.t does the same on
a synthetic stream with known counts; its helpers are used here):
- the folded stacks hold exactly the report's samples per function;
- flamegraph.pl's frames summed by name = the inclusive counts of the
  folded stacks; our SVG's too;
- go tool pprof -top: flat = the report's counts, flat% within 0.1 point,
  cum = the inclusive counts;
- callgrind_annotate: self = the report's counts; inclusive likewise;
- gprof -b -p on workload's gmon.out: shares within 0.1 point of
  `vprof -T workload -m user`; gprof leaves out functions whose names
  have a dot that is not GCC's ".clone.N", ".constprop.N" or a ".N"
  suffix (binutils' core_sym_class: "f.part.0", "f.isra.0", "f.cold"),
  and its histogram gives their samples to the function before them, so
  those are not compared and their share widens the tolerance;
- the speedscope JSON validates against speedscope's schema;
- work_alpha has more samples than work_beta and than work_gamma, and every consumer
  names the same top functions.

EXPORTVM_KEEP=1 keeps the stream and the files in the temporary directory.
TAP on stdout, for prove.
"""

import importlib.machinery
import importlib.util
import os
import re
import shutil
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in test/lib
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "lib"))
import boottest as bt  # noqa: E402
from guest import shell_session  # noqa: E402
from tap import Tap  # noqa: E402


def load_export_t():
    """test/export.t as a module (its main() runs only as a script)."""
    loader = importlib.machinery.SourceFileLoader("export_t", os.path.join(HERE, "export.t"))
    spec = importlib.util.spec_from_loader("export_t", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


X = load_export_t()
TMP = tempfile.mkdtemp(prefix="vernier-exportvm-")
COM2 = os.path.join(TMP, "stream")
CMD = "profile -g -f 1000 -o com2 workload -d 3 alpha:2 beta:1 gamma:1"


def record(tap, sh):
    out = sh.run(CMD, timeout=90)
    st = sh.status()
    # The report's first line may share a terminal line with the status line.
    ok = out is not None and st == 0 and any("Samples:" in l for l in out)
    tap.ok(ok, "%s: status 0, a report" % CMD)
    if not ok:
        tap.diag("status %s, output:\n%s" % (st, "\n".join((out or [])[-15:])))


def name(frame):
    """A folded frame as the report names it."""
    frame = re.sub(r"_\(.*\)$", "", frame)
    return frame[:-4] + " [k]" if frame.endswith("_[k]") else frame


def folded_counts(path):
    """Self and inclusive counts per function from our folded stacks."""
    self_, incl = {}, {}
    with open(path) as f:
        for line in f:
            stack, count = line.rsplit(" ", 1)
            frames = [name(fr) for fr in stack.split(";")[1:]]
            self_[frames[-1]] = self_.get(frames[-1], 0) + int(count)
            for fr in set(frames):
                incl[fr] = incl.get(fr, 0) + int(count)
    return self_, incl


def consumers(tap, rows, self_, incl):
    total = sum(c for c, _p in rows.values())
    rc, svg, _e = X.run(["perl", X.FLAMEGRAPH, os.path.join(TMP, "stacks.folded")])
    sums = {}
    for m in re.finditer(r"<title>(.*?) \(([\d,]+) samples?, [\d.]+%\)</title>", svg):
        n = name(m.group(1))
        sums[n] = sums.get(n, 0) + int(m.group(2).replace(",", ""))
    X.same_counts(tap, "flamegraph.pl frames summed by name = inclusive counts", sums,
                  {n: c for n, c in incl.items()})
    path = X.vprof(tap, TMP, ["-F", "pprof"], "profile.pb.gz")
    flat, _c, pct, _o = X.pprof_top(tap, path)
    X.same_counts(tap, "pprof -top flat = vprof's report", flat,
                  {n: c for n, (c, _p) in rows.items()})
    bad = [n for n in rows if abs(pct.get(n, -1) - 100.0 * rows[n][0] / total) > 0.1]
    tap.ok(not bad, "pprof -top flat%% within 0.1 point of the report %s" % bad)
    X.same_counts(tap, "pprof -top -cum: cum = inclusive", X.pprof_top(tap, path, ["-cum"])[1],
                  incl)
    path = X.vprof(tap, TMP, ["-F", "callgrind"], "callgrind.out")
    rc, counts, err = X.annotate(path, False)
    X.same_counts(tap, "callgrind_annotate self = vprof's report", counts,
                  {n: c for n, (c, _p) in rows.items()})
    rc, icounts, err = X.annotate(path, True)
    X.same_counts(tap, "callgrind_annotate --inclusive=yes = inclusive counts", icounts,
                  {n: c for n, c in incl.items() if n in icounts or self_.get(n)})
    return [("go tool pprof", X.top(flat)), ("callgrind_annotate", X.top(counts))]


def gprof_ignores(name):
    """Does gprof leave this symbol out (binutils gprof/corefile.c,
    core_sym_class: after a '.', only digits, '.', and GCC's ".clone."
    and ".constprop." are allowed)?"""
    rest = name.partition(".")[2]
    if "$" in name or not rest:
        return "$" in name
    rest = re.sub(r"^(clone|constprop)\.", "", rest)
    return not re.fullmatch(r"[\d.]+", rest)


def gmon(tap):
    root = os.path.join(TMP, "root")
    rc, out, err = X.run([X.VPROF, "-F", "gmon", "-r", root, "-o", os.path.join(TMP, "gmon.out"),
                          COM2])
    tap.ok(rc == 0 and "gmon.out.workload: /bin/workload" in out,
           "vprof -F gmon writes workload's gmon.out (%s)" % (out + err).strip()[:200])
    flat = X.gprof_flat(tap, os.path.join(root, "bin", "workload"),
                        os.path.join(TMP, "gmon.out.workload"))
    rc, text, _e = X.run([X.VPROF, "-p", "0", "-r", root, "-T", "workload", "-m", "user", COM2])
    rows = X.report_rows(text)
    total = sum(c for c, _p in rows.values())
    hidden = sum(100.0 * c / total for n, (c, _p) in rows.items() if gprof_ignores(n))
    bad = ["%s %.2f vs %.2f" % (n, flat.get(n, (-1, 0))[0], 100.0 * c / total)
           for n, (c, _p) in rows.items() if not gprof_ignores(n) and
           abs(flat.get(n, (-1, 0))[0] - 100.0 * c / total) > 0.1 + hidden]
    tap.ok(rows and not bad, "gprof -p workload: shares within 0.1 point of vprof -T workload "
           "-m user%s" % ((": " + ", ".join(bad)) if bad else ""))


def keep_failed(tap):
    """After a failure, the stream and what was made of it go to
    $BUILD/test-logs/exportvm-failed/ (a failing stream is rare and needed)."""
    if not tap.failed:
        return
    dest = os.path.join(bt.BUILD, "test-logs", "exportvm-failed")
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(TMP, dest, symlinks=True, ignore_dangling_symlinks=True)
    tap.diag("the stream and the exports of the failed run kept in %s" % dest)


def main():
    tap = Tap()
    bt.need_file(tap, bt.ISO, "ISO")
    try:
        shell_session(tap, (record,), cpus=2, boot_wait=120, extra="-serial file:" + COM2)
        os.symlink(os.path.join(bt.BUILD, "initrd-root"), os.path.join(TMP, "root"))
        rc, text, err = X.run([X.VPROF, "-p", "0", COM2])
        rows = X.report_rows(text)
        tap.ok(rc == 0 and sum(c for c, _p in rows.values()) >= 300,
               "vprof reads the recorded stream (%d samples) %s" %
               (sum(c for c, _p in rows.values()), err.strip()[:200]))
        self_, incl = folded_counts(X.vprof(tap, TMP, ["-F", "folded"], "stacks.folded"))
        X.same_counts(tap, "the folded stacks = vprof's report", self_,
                      {n: c for n, (c, _p) in rows.items()})
        svg = open(X.vprof(tap, TMP, ["-F", "svg"], "flame.svg")).read()
        sums = {}
        for m in re.finditer(r'data-depth="(\d+)" data-x="\d+" data-n="(\d+)" data-name="([^"]*)"',
                             svg):
            if int(m.group(1)) >= 2:
                n = re.sub(r" \(.*\)$", "", m.group(3)).replace("&lt;", "<").replace("&gt;", ">")
                sums[n] = sums.get(n, 0) + int(m.group(2))
        X.same_counts(tap, "our svg's frames summed by name = inclusive counts", sums, incl)
        tops = consumers(tap, rows, self_, incl)
        gmon(tap)
        path = X.vprof(tap, TMP, ["-F", "speedscope"], "speedscope.json")
        rc, out, err = X.run(["node", X.AJV, "validate", "--spec=draft7", "--strict=false", "-s",
                              X.SCHEMA, "-d", path])
        tap.ok(rc == 0, "speedscope JSON valid against the schema (%s)" % (out + err).strip()[-200:])
        c = {n: v for n, (v, _p) in rows.items()}
        a, b, g = (c.get("work_" + n, 0) for n in ("alpha", "beta", "gamma"))
        tap.ok(a > b and a > g and b > 0 and g > 0,
               "work_alpha (weight 2) has more samples than work_beta and work_gamma "
               "(%d, %d, %d)" % (a, b, g))
        want = X.top(c)
        for what, got in tops:
            tap.ok(got == want[:len(got)] and got, "%s: the top functions are vprof's: %s" %
                   (what, ", ".join(got)))
    finally:
        if os.environ.get("EXPORTVM_KEEP"):
            tap.diag("files kept in %s" % TMP)
        else:
            keep_failed(tap)
            shutil.rmtree(TMP, ignore_errors=True)
    tap.done()


if __name__ == "__main__":
    main()
