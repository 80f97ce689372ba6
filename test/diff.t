#!/usr/bin/env python3
"""test/diff.t - `vprof diff` on two real profiles: a test of the statistics.

One boot of the default ISO on 2 CPUs under QEMU -icount (exact samples),
COM2 to a host file. In the guest, two runs of workload with different
weights, each under `profile -o com2` (only the workload's samples):
  A: workload -d 2 alpha:2 beta:1 gamma:1    (50/25/25 %)
  B: workload -d 2 alpha:1 beta:1 gamma:2    (25/25/50 %)
The host splits COM2's bytes into the two streams (at the second HEADER
record) and runs build/host/vprof diff -p 0 A B. Checks:
- each run has >= 1000 samples of work functions;
- work_alpha and work_gamma changed: p < 0.01, marked, the difference's
  sign right and its size 25 points within 5;
- work_beta did not: p > 0.01, not marked, |difference| < 3 points;
- the three rows come first (by |z|): alpha and gamma above beta.
The differential flame graphs of the same two streams, checked against
the table's verdicts (p < 0.01: red where the share grew, blue where it
shrank; otherwise grey):
- `vprof diff -F folded A B` drawn by flamegraph.pl (its differential
  mode): work_alpha blue, work_gamma red;
- `vprof diff -F svg A B`, our own graph: each work_* frame's heat sign
  and fill follow the table's row, its hover text the table's shares;
  in headless chromium (test/js/browser.js): no console error, the
  colours painted as written, hover, click-zoom, search, a screenshot
  that is not blank.
The same in the guest with /bin/sprofdiff (the same lib/prof/profdiff.c) on
two 1-second runs written to /tmp files by `profile -o`; and its usage
(-h: status 0; one file: 2; a missing file: 1 and a message).

Under the null hypothesis the p-value of beta is uniform, so a correct
test fails about 1 % of the time; the workload's slices (1 ms, round
robin) make the samples more regular than independent ones, which lowers
that chance further.

TAP on stdout, for prove.
"""

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
from consumers import browser, png_colours  # noqa: E402
from guest import shell_session  # noqa: E402
from tap import Tap  # noqa: E402

BOOT_WAIT = 120
RUNS = ("workload -d 2 alpha:2 beta:1 gamma:1",
        "workload -d 2 alpha:1 beta:1 gamma:2")
REC_HEADER = 1
MIN_SAMPLES = 1000
ALPHA = 0.01
FLAMEGRAPH = "/usr/share/perl5/Devel/NYTProf/flamegraph.pl"
# flamegraph.pl --differential: "<title>NAME (N samples, P%; D%)</title><rect .. fill=..>"
FG_RE = re.compile(r"<title>(work_\w+) \([\d,]+ samples?, [\d.]+%; [-+]?[\d.]+%\)</title>"
                   r"<rect [^>]*fill=\"rgb\((\d+),(\d+),(\d+)\)\"")
# ours: data-heat="H" data-name="NAME"><title>NAME (A: .., P%; B: .., Q%; D points)</title>
# <rect .. fill="rgb(R,G,B)"
SVG_RE = re.compile(r'data-heat="(-?\d+)" data-name="(work_\w+)"><title>[^<]*?'
                    r'A: \d+ samples, ([\d.]+)%; B: \d+ samples, ([\d.]+)%; ([-+][\d.]+) '
                    r'points\)</title><rect [^>]*fill="rgb\((\d+),(\d+),(\d+)\)"')
# "  49.50%   33.00%   -16.50   -13.89  7.00e-44 * app          work_alpha"
ROW_RE = re.compile(r"^\s*([\d.]+)%\s+([\d.]+)%\s+([-+][\d.]+)\s+(-?[\d.]+)\s+"
                    r"(<1e-99|[\d.]+e[-+]\d+)\s([* ])\s(\S+)\s+(\S+)$")
TMP = tempfile.mkdtemp(prefix="vernier-diff-")
COM2 = os.path.join(TMP, "com2.bin")


def split_streams(data):
    """The streams in data, cut before each HEADER record."""
    starts, at = [], 0
    while at + 16 <= len(data):
        rtype, size = struct.unpack_from("<HH", data, at)
        if size < 16 or size % 8:
            break
        if rtype == REC_HEADER:
            starts.append(at)
        at += size
    return [data[s:e] for s, e in zip(starts, starts[1:] + [at])]


def run_profiles(tap, sh):
    for cmd in RUNS:
        out = sh.run("profile -o com2 " + cmd, timeout=120)
        tap.ok(out and any(l.startswith("workload: total") for l in out) and
               sh.status() == 0, "profile -o com2 %s: status 0" % cmd)


def parse(text):
    """{function: (shareA, shareB, diff, z, p, marked)} of the table."""
    rows = {}
    for line in text.splitlines():
        m = ROW_RE.match(line)
        if m and m.group(8).startswith("work_"):
            p = 0.0 if m.group(5) == "<1e-99" else float(m.group(5))
            rows[m.group(8)] = (float(m.group(1)), float(m.group(2)),
                                float(m.group(3)), float(m.group(4)), p,
                                m.group(6) == "*")
    return rows


def check_rows(tap, text, who):
    """The statistics' verdicts on the table in text."""
    rows = parse(text)
    for fn, sign in (("work_alpha", -1), ("work_gamma", 1)):
        row = rows.get(fn)
        tap.ok(row and row[4] < ALPHA and row[5],
               "%s: %s changed: p %s < %g, marked" % (who, fn, row and row[4], ALPHA))
        tap.ok(row and abs(row[2] - sign * 25) <= 5,
               "%s: %s: %+.2f points (want %+d within 5)"
               % (who, fn, row[2] if row else 0, sign * 25))
    row = rows.get("work_beta")
    tap.ok(row and row[4] > ALPHA and not row[5],
           "%s: work_beta unchanged: p %s > %g, not marked" % (who, row and row[4], ALPHA))
    tap.ok(row and abs(row[2]) < 3, "%s: work_beta: %+.2f points (want within 3)"
           % (who, row[2] if row else 0))
    names = [m.group(8) for m in map(ROW_RE.match, text.splitlines())
             if m and m.group(8) in rows]
    tap.ok(len(names) == 3 and names.index("work_beta") == 2,
           "%s: rows by |z|: alpha and gamma before beta (%s)" % (who, names))


def run_sprofdiff(tap, sh):
    for name, cmd in zip("ab", RUNS):
        out = sh.run("profile -o /tmp/%s.dat %s" % (name, cmd.replace("-d 2", "-d 1")),
                     timeout=120)
        tap.ok(out and sh.status() == 0, "profile -o /tmp/%s.dat: status 0" % name)
    out = sh.run("sprofdiff -p 0 /tmp/a.dat /tmp/b.dat", timeout=120)
    tap.ok(out and sh.status() == 0, "sprofdiff -p 0 /tmp/a.dat /tmp/b.dat: status 0")
    for line in out or []:
        tap.diag("  " + line)
    check_rows(tap, "\n".join(out or []), "sprofdiff")
    out = sh.run("sprofdiff -h")
    tap.ok(out and out[0].startswith("usage: sprofdiff") and sh.status() == 0,
           "sprofdiff -h: usage, status 0")
    out = sh.run("sprofdiff /tmp/a.dat")
    tap.ok(out and out[0].startswith("usage: sprofdiff") and sh.status() == 2,
           "sprofdiff with one file: usage, status 2")
    out = sh.run("sprofdiff /tmp/a.dat /tmp/none.dat")
    tap.ok(out and "sprofdiff: /tmp/none.dat" in out[0] and sh.status() == 1,
           "a missing file: a message, status 1 (%r)" % out)


def check_diff(tap):
    data = open(COM2, "rb").read() if os.path.exists(COM2) else b""
    streams = split_streams(data)
    if not tap.ok(len(streams) == 2, "COM2 holds two streams (%d bytes, %d)"
                  % (len(data), len(streams))):
        return
    paths = []
    for name, s in zip("ab", streams):
        paths.append(os.path.join(TMP, name + ".vprof"))
        with open(paths[-1], "wb") as f:
            f.write(s)
    vprof = os.path.join(bt.BUILD, "host", "vprof")
    r = subprocess.run([vprof, "diff", "-p", "0"] + paths, capture_output=True,
                       text=True, timeout=120)
    tap.ok(r.returncode == 0, "vprof diff A B exits 0 (%s)" % r.stderr.strip())
    for line in r.stdout.splitlines():
        tap.diag("  " + line)
    for side, name in ((0, "A"), (1, "B")):
        n = subprocess.run([vprof, "-p", "0", paths[side]], capture_output=True,
                           text=True, timeout=120).stdout
        m = re.search(r"samples: (\d+) total", n)
        tap.ok(m and int(m.group(1)) >= MIN_SAMPLES,
               "%s: %s samples (want >= %d)" % (name, m and m.group(1), MIN_SAMPLES))
    check_rows(tap, r.stdout, "vprof diff")
    check_graphs(tap, vprof, paths, parse(r.stdout))


def colour(rgb):
    """'red', 'blue' or 'grey' of an (r, g, b) fill."""
    r, g, b = rgb
    return "red" if r > b + 20 else "blue" if b > r + 20 else "grey"


def verdict(row):
    """The colour a table row asks for: by the sign of B-A where p < 0.01."""
    return "grey" if row[4] >= ALPHA else "red" if row[2] > 0 else "blue"


def check_flamegraph(tap, vprof, paths):
    r = subprocess.run([vprof, "diff", "-F", "folded"] + paths, capture_output=True,
                       text=True, timeout=120)
    lines = r.stdout.splitlines()
    tap.ok(r.returncode == 0 and lines and
           all(re.match(r"^\S.* \d+ \d+$", l) for l in lines),
           "vprof diff -F folded A B: 'STACK A B' lines (%d; %s)" % (len(lines),
                                                                   r.stderr.strip()))
    fg = subprocess.run(["perl", FLAMEGRAPH], input=r.stdout, capture_output=True,
                        text=True, timeout=120)
    got = {m.group(1): colour(tuple(int(v) for v in m.group(2, 3, 4)))
           for m in FG_RE.finditer(fg.stdout)}
    tap.ok(fg.returncode == 0 and got.get("work_alpha") == "blue" and
           got.get("work_gamma") == "red",
           "flamegraph.pl draws it: work_alpha blue, work_gamma red (%s)" % got)


def check_svg(tap, vprof, paths, rows):
    path = os.path.join(TMP, "diff.svg")
    with open(path, "w") as f:
        r = subprocess.run([vprof, "diff", "-F", "svg"] + paths, stdout=f,
                           stderr=subprocess.PIPE, text=True, timeout=120)
    svg = open(path).read()
    tap.ok(r.returncode == 0 and svg.rstrip().endswith("</svg>") and
           "differential flame graph</title>" in svg,
           "vprof diff -F svg A B: a differential flame graph (%s)" % r.stderr.strip())
    tap.ok(not re.search(r"(href|src)\s*=|url\(|@import", svg),
           "... self-contained (no link, script source or URL)")
    frames = {m.group(2): m for m in SVG_RE.finditer(svg)}
    for fn, row in sorted(rows.items()):
        m = frames.get(fn)
        want = verdict(row)
        heat = int(m.group(1)) if m else None
        fill = colour(tuple(int(v) for v in m.group(6, 7, 8))) if m else None
        tap.ok(m and fill == want and
               (heat > 0 if want == "red" else heat < 0 if want == "blue" else heat == 0),
               "svg: %s %s (table: %+.2f points, p %.2g): heat %s, fill %s" %
               (fn, want, row[2], row[4], heat, fill))
        tap.ok(m and abs(float(m.group(3)) - row[0]) < 0.011 and
               abs(float(m.group(4)) - row[1]) < 0.011 and
               abs(float(m.group(5)) - row[2]) < 0.011,
               "svg: %s's hover shows the table's shares and change (%s)" %
               (fn, m and m.group(3, 4, 5)))
    return path, frames


def check_chromium(tap, path, rows, frames):
    shot = os.path.join(TMP, "diff.png")
    r = browser(["svg", "file://" + path, shot, "work_"])
    tap.ok(r.get("title", "").endswith("differential flame graph") and not r.get("errors"),
           "chromium opens it: title %r, no console error %s" % (r.get("title"),
                                                                r.get("errors")))
    fills = {n: colour([int(v) for v in re.findall(r"\d+", f)[:3]])
             for n, f in (r.get("fills") or {}).items()}
    want = {fn: verdict(row) for fn, row in rows.items()}
    tap.ok(want and all(fills.get(fn) == c for fn, c in want.items()),
           "chromium paints the work_* frames as the table says: %s (want %s)" %
           ({fn: fills.get(fn) for fn in want}, want))
    name = r.get("name")
    title = re.search(r"<title>([^<]*)</title>", frames[name].group(0)).group(1) \
        if name in frames else None
    tap.ok(title and r.get("details") == title,
           "hover on %s shows its counts and change: %r" % (name, r.get("details")))
    tap.ok(r.get("before", 0) < r.get("after", 0) == r.get("root") and
           r.get("hidden", 0) > 0 and r.get("reset") == r.get("before"),
           "a click on %s zooms (width %s -> %s, %s frames hidden), reset restores it" %
           (name, r.get("before"), r.get("after"), r.get("hidden")))
    tap.ok(r.get("highlighted", 0) >= 3 and r.get("matched", "").startswith("Matched: "),
           "search 'work_': %s frames highlighted, %r" % (r.get("highlighted"),
                                                          r.get("matched")))
    n = png_colours(shot) if os.path.exists(shot) else 0
    tap.ok(n > 20, "the screenshot is not blank (%d byte values)" % n)


def check_graphs(tap, vprof, paths, rows):
    check_flamegraph(tap, vprof, paths)
    path, frames = check_svg(tap, vprof, paths, rows)
    check_chromium(tap, path, rows, frames)


def main():
    tap = Tap()
    bt.need_file(tap, bt.ISO, "ISO")
    try:
        shell_session(tap, (run_profiles, run_sprofdiff), cpus=2, boot_wait=BOOT_WAIT,
                      icount=bt.PROFILE_ICOUNT, extra="-serial file:" + COM2)
        check_diff(tap)
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
    tap.done()


if __name__ == "__main__":
    main()
