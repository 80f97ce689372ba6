#!/usr/bin/env python3
"""test/export.t - vprof's exports read by the real tools.

A synthetic profiler stream with known counts (a 2:1:1 `workload`: alpha,
beta and gamma, each spinning in a shared leaf and in itself, a kernel
path under alpha, a shell, idle CPUs; 12,000 samples with 8-deep call
chains over 10 s on 4 CPUs) is written with ELF binaries made by as/ld
(functions at the stream's addresses), and build/host/vprof turns it
into every format. Each consumer reads its file
and what it reports is compared with vprof's own report (`vprof -p 0`)
and with the counts the stream was built from:
- flamegraph.pl (libdevel-nytprof-perl) renders the folded stacks: every
  frame's samples summed by name equal the function's inclusive count;
  leaf functions' shares within 0.1 point of vprof's report;
- go tool pprof -top: flat and cum counts exact, flat% within 0.1 point
  of the report, the duration from duration_nanos; -traces shows the
  task/thread/cpu/mode labels; -raw lists a mapping per binary;
- callgrind_annotate: self counts equal the report's, --inclusive=yes
  the inclusive counts;
- gprof -b -p on each program's gmon.out (and the kernel's): self time
  = samples at the rate, shares within 0.1 point of vprof's report of
  the same samples (-T workload -m user, -m kernel); gprof -q: the call
  arcs' sample counts;
- kprof -F gmon of a kpdata histogram: gprof -b -p shows kprof's ticks
  and shares;
- vprof's SVG in chromium: no console error, kernel frames painted blue
  and user frames warm, hover, click-zoom, search with its share, reset,
  a screenshot that is not blank; tools/svg2png.js renders it to a PNG
  of its size;
- speedscope: the JSON validates against the schema the npm package
  ships (ajv-cli); the speedscope app in headless chromium imports it and
  the folded file (page title `NAME - speedscope`, no console error);
- the top functions are the same, in the same order, in every consumer;
- wall clock (vprof -W, issue 17): the stream with two off-CPU records
  (2 s asleep under alpha, 1 s of sh in recv): flamegraph.pl shows the
  [off-cpu: sleep] and [off-cpu: recv] frames with their weights, go tool
  pprof reads wall/nanoseconds with them flat, the speedscope JSON
  (nanoseconds) validates, callgrind_annotate reads the callgrind file.
Filters (-T, -m) shrink what the consumers see accordingly. The tools
come from tools/setup.sh; a missing one fails its tests (not skipped).

TAP on stdout, for prove.
"""

import functools
import http.server
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import boottest as bt  # noqa: E402
from consumers import browser, png_colours, run  # noqa: E402
from streamrec import load, rec, task  # noqa: E402
from tap import Tap  # noqa: E402

VPROF = os.path.join(bt.BUILD, "host", "vprof")
JS = os.path.join(bt.TOP, "test", "js")
FLAMEGRAPH = "/usr/share/perl5/Devel/NYTProf/flamegraph.pl"
SCHEMA = os.path.join(JS, "node_modules", "speedscope", "dist", "release",
                      "file-format-schema.json")
APP = os.path.join(JS, "node_modules", "speedscope", "dist", "release")
AJV = os.path.join(JS, "node_modules", "ajv-cli", "dist", "index.js")

# ---------------------------------------------------------------- the stream

MAGIC = 0x464F525056
KBASE = 0xffffffff80100000
TSC_HZ = 1000000000

# Functions: offsets in the binary's text (at 0x401000, the kernel's at KBASE).
WORKLOAD_NM = {"main": 0, "worker": 0x100, "alpha": 0x200, "beta": 0x300, "gamma": 0x400,
               "spin": 0x500}
SH_NM = {"sh_main": 0, "sh_read": 0x100}
KERNEL_NM = {"kmain": 0, "syscall_entry": 0x100, "memcpy": 0x200, "idle_loop": 0x300}

# (count, task, thread, mode, stack root first); mode 0 user, 1 kernel, 2 idle.
# Kernel frames are named "k:NAME".
STACKS = [
    (4000, 10, 101, 0, ["main", "worker", "alpha", "spin"]),
    (2000, 10, 101, 0, ["main", "worker", "alpha"]),
    (1500, 10, 102, 0, ["main", "worker", "beta", "spin"]),
    (1500, 10, 102, 0, ["main", "worker", "beta"]),
    (1000, 10, 103, 0, ["main", "worker", "gamma", "spin"]),
    (1000, 10, 103, 0, ["main", "worker", "gamma"]),
    (500, 10, 101, 1, ["main", "worker", "alpha", "k:syscall_entry", "k:memcpy"]),
    (300, 11, 110, 0, ["sh_main", "sh_read"]),
    (200, 0, 0, 2, ["k:idle_loop"]),
]
TOTAL = sum(s[0] for s in STACKS)


def header():
    body = struct.pack("<QIIIIIIQQQQ32s", MAGIC, 2, 1, 1000, 4, 1, 8, TSC_HZ, 0,
                       KBASE, KBASE + 0x100000, b"vernier export test")
    return rec(1, 16 + len(body), 0, 0) + body


def address(name, syms, offset):
    if name.startswith("k:"):
        return KBASE + KERNEL_NM[name[2:]] + offset
    return 0x401000 + syms[name] + offset


def samples(count, tid, thread, mode, frames, first):
    """count sample records of one stack, spread over 10 s and 4 CPUs."""
    syms = SH_NM if tid == 11 else WORKLOAD_NM
    pc = address(frames[-1], syms, 0x10)
    # Return addresses: 0x40 into each caller (looked up at - 1).
    chain = [address(f, syms, 0x40) for f in reversed(frames[:-1])]
    nkernel = sum(1 for f in frames[:-1] if f.startswith("k:"))
    out = []
    for i in range(count):
        n = first + i
        size = 48 + 8 * len(chain)
        tsc = (n * 10 * TSC_HZ) // TOTAL
        out.append(rec(2, size, n % 4, tsc) +
                   struct.pack("<QQQBBHHH", tid, thread, pc, mode, 1, len(chain), nkernel, 0) +
                   b"".join(struct.pack("<Q", a) for a in chain))
    return out


def stream():
    """The records, samples of all stacks interleaved in time."""
    head = [header(), task(0, ""), task(10, "workload"), task(11, "sh"),
            load(10, "/bin/workload"), load(11, "/bin/sh")]
    recs, first = [], 0
    for count, tid, thread, mode, frames in STACKS:
        recs.append(samples(count, tid, thread, mode, frames, first))
        first += count
    # Interleave: round-robin over the stacks so every second holds each.
    body, idx = [], [0] * len(recs)
    while any(idx[i] < len(recs[i]) for i in range(len(recs))):
        for i, r in enumerate(recs):
            if idx[i] < len(r):
                body.append(r[idx[i]])
                idx[i] += 1
    # Times must grow: restamp in order.
    stamped = []
    for n, r in enumerate(body):
        stamped.append(r[:8] + struct.pack("<Q", (n * 10 * TSC_HZ) // TOTAL) + r[16:])
    end = rec(8, 48, 0, 10 * TSC_HZ) + struct.pack("<QQQII", TOTAL, 0, 0, 1, 0)
    return b"".join(head + stamped) + end


def elf(tmp, path, syms, base, label=None, ldflags=()):
    """An ELF whose functions (0x100 bytes of nops each) sit at base + syms
    (what gprof reads; vprof reads its .symtab), with label (a symbol of no
    type) at base if given, linked with ldflags too. None if as/ld failed."""
    src = [".text"] + ([".globl %s" % label, "%s:" % label] if label else [])
    for name, a in sorted(syms.items(), key=lambda kv: kv[1]):
        src += [".org 0x%x" % a, ".globl %s" % name, ".type %s, @function" % name,
                "%s:" % name, ".fill 0x100, 1, 0x90", ".size %s, 0x100" % name]
    asm, obj = os.path.join(tmp, "x.s"), os.path.join(tmp, "x.o")
    with open(asm, "w") as f:
        f.write("\n".join(src) + "\n")
    entry = sorted(syms.items(), key=lambda kv: kv[1])[0][0]
    rc1 = run(["as", "-o", obj, asm])[0]
    rc2 = run(["ld", "-m", "elf_x86_64", "-Ttext=0x%x" % base, "-e", entry] + list(ldflags) +
              ["-o", path, obj])[0]
    return path if rc1 == 0 and rc2 == 0 else None


def write_root(tmp, root, ldflags=()):
    """The binaries as ELF files under root (for vprof and gprof), linked
    with ldflags too."""
    os.makedirs(os.path.join(root, "bin"))
    os.makedirs(os.path.join(root, "boot"))
    made = [elf(tmp, os.path.join(root, path), syms, base, ldflags=ldflags)
            for path, syms, base in (("bin/workload", WORKLOAD_NM, 0x401000),
                                     ("bin/sh", SH_NM, 0x401000),
                                     ("boot/kernel", KERNEL_NM, KBASE))]
    return all(made)

# ---------------------------------------------------------------- expectations


def display(name):
    """A frame as vprof's report names it."""
    return name[2:] + " [k]" if name.startswith("k:") else name


def expected(stacks=STACKS):
    """Self and inclusive counts per function (report names)."""
    self_, incl = {}, {}
    for count, _tid, _th, _mode, frames in stacks:
        leaf = display(frames[-1])
        self_[leaf] = self_.get(leaf, 0) + count
        for f in set(display(f) for f in frames):
            incl[f] = incl.get(f, 0) + count
    return self_, incl


def report_rows(text):
    """vprof's function table summed by symbol: {symbol: (count, pct)}."""
    rows, in_funcs = {}, False
    for line in text.splitlines():
        if line.strip().endswith("symbol"):
            in_funcs = True
            continue
        m = re.match(r"^\s*([\d.]+)%\s+(\d+)\s+\d+\s+(\[idle\]|\d+ \S+)\s+(\S+(?: \[k\])?)$",
                     line)
        if in_funcs and m:
            c, p = rows.get(m.group(4), (0, 0.0))
            rows[m.group(4)] = (c + int(m.group(2)), p + float(m.group(1)))
    return rows


def top(d, n=4):
    """The n largest keys of {name: count}, ties by name."""
    return [k for k, _ in sorted(d.items(), key=lambda kv: (-kv[1], kv[0]))[:n]]

# ---------------------------------------------------------------- running


def vprof(tap, tmp, args, out):
    path = os.path.join(tmp, out)
    rc, _o, err = run([VPROF, "-r", os.path.join(tmp, "root")] + args +
                      ["-o", path, os.path.join(tmp, "stream")])
    tap.ok(rc == 0 and os.path.getsize(path) > 0 if rc == 0 else False,
           "vprof %s -o %s (rc %d%s)" % (" ".join(args), out, rc, (": " + err.strip()) if err else ""))
    return path


def close_shares(tap, what, got, want, total):
    """got {name: count}; want {name: pct from the report}: within 0.1 point."""
    bad = []
    for name, pct in want.items():
        share = 100.0 * got.get(name, 0) / total
        if abs(share - pct) > 0.1:
            bad.append("%s %.2f%% vs %.2f%%" % (name, share, pct))
    tap.ok(not bad, "%s: shares within 0.1 point of vprof's report%s" %
           (what, (": " + ", ".join(bad)) if bad else " (%d functions)" % len(want)))


def same_counts(tap, what, got, want):
    diff = ["%s %s vs %s" % (k, got.get(k), v) for k, v in sorted(want.items()) if got.get(k) != v]
    tap.ok(not diff, "%s: counts exact%s" % (what, (": " + ", ".join(diff[:6])) if diff else ""))

# ---------------------------------------------------------------- consumers


def check_flamegraph(tap, tmp, rows, self_, incl):
    folded = vprof(tap, tmp, ["-F", "folded"], "stacks.folded")
    rc, svg, err = run(["perl", FLAMEGRAPH, folded])
    tap.ok(rc == 0 and "<svg" in svg, "flamegraph.pl renders the folded stacks (rc %d %s)" %
           (rc, err.strip()[:200]))
    sums = {}
    for m in re.finditer(r"<title>(.*?) \(([\d,]+) samples?, [\d.]+%\)</title>", svg):
        name = m.group(1).replace("_[k]", " [k]")
        sums[name] = sums.get(name, 0) + int(m.group(2).replace(",", ""))
    same_counts(tap, "flamegraph.pl frames summed by name = inclusive counts", sums, incl)
    leaves = {n for n in self_ if self_[n] == incl[n]}
    close_shares(tap, "flamegraph.pl leaf functions", sums,
                 {n: rows[n][1] for n in leaves}, TOTAL)
    got = top({n: c for n, c in sums.items() if n in leaves})
    want = top({n: c for n, (c, _p) in rows.items() if n in leaves})
    tap.ok(got == want, "flamegraph.pl: the top leaf functions are vprof's: %s" % ", ".join(got))
    tap.ok(sums.get("workload") == TOTAL - 300 - 200 and
           sums.get("sh") == 300 and sums.get("[idle]") == 200,
           "flamegraph.pl: the task frames (workload %s, sh %s, [idle] %s)" %
           (sums.get("workload"), sums.get("sh"), sums.get("[idle]")))


def pprof_top(tap, path, extra=()):
    rc, out, err = run(["go", "tool", "pprof", "-top", "-sample_index=samples",
                        "-nodecount=100000", "-nodefraction=0", "-edgefraction=0"] +
                       list(extra) + [path],
                       env=dict(os.environ, HOME=os.path.dirname(path)))
    flat, cum, pct = {}, {}, {}
    for line in out.splitlines():
        m = re.match(r"^\s*(\d+)\s+([\d.]+)%\s+[\d.]+%\s+(\d+)\s+[\d.]+%\s+(.+?)\s*$", line)
        if m:
            cum[m.group(4)] = int(m.group(3))
        if m and int(m.group(1)) > 0:
            flat[m.group(4)] = int(m.group(1))
            pct[m.group(4)] = float(m.group(2))
    tap.ok(rc == 0 and flat, "go tool pprof -top reads it (rc %d%s)" %
           (rc, (": " + err.strip()[:300]) if rc else ""))
    return flat, cum, pct, out


def check_pprof(tap, tmp, rows, self_, incl):
    path = vprof(tap, tmp, ["-F", "pprof"], "profile.pb.gz")
    flat, cum, pct, out = pprof_top(tap, path)
    same_counts(tap, "pprof -top flat = self", flat, self_)
    cum_all = pprof_top(tap, path, ["-cum"])[1]
    same_counts(tap, "pprof -top -cum: cum = inclusive", cum_all, incl)
    bad = ["%s %.2f vs %.2f" % (n, pct.get(n, -1), rows[n][1]) for n in rows
           if abs(pct.get(n, -1) - rows[n][1]) > 0.1]
    tap.ok(not bad, "pprof -top flat%% within 0.1 point of the report%s" %
           ((": " + ", ".join(bad)) if bad else ""))
    rc, out2, _e = run(["go", "tool", "pprof", "-top", path], env=dict(os.environ, HOME=tmp))
    tap.ok(rc == 0 and "Type: cpu" in out2 and "Duration: 10s" in out2 and
           re.search(r"Total samples = (12s|12000ms) ", out2) is not None,
           "pprof: cpu/nanoseconds from the rate, duration_nanos (%s)" %
           " | ".join(out2.splitlines()[:4]))
    rc, tr, _e = run(["go", "tool", "pprof", "-traces", path], env=dict(os.environ, HOME=tmp))
    tap.ok(rc == 0 and re.search(r"task:\s+workload\n", tr) and
           re.search(r"thread:\s+101\n", tr) and re.search(r"mode:\s+kernel\n", tr) and
           re.search(r"cpu:\s+\d\n", tr),
           "pprof -traces: task, thread, cpu, mode labels")
    tap.ok(rc == 0 and re.search(r"memcpy \[k\]\s*\n\s+syscall_entry \[k\]\s*\n\s+alpha\n", tr),
           "pprof -traces: a stack leaf first (memcpy [k] <- syscall_entry [k] <- alpha)")
    rc, raw, _e = run(["go", "tool", "pprof", "-raw", path], env=dict(os.environ, HOME=tmp))
    root = os.path.join(tmp, "root")
    maps = re.findall(r"^\d+: 0x[0-9a-f]+/0x[0-9a-f]+/0x[0-9a-f]+ (\S+)", raw, re.M)
    tap.ok(rc == 0 and sorted(maps) == sorted(os.path.join(root, p) for p in
                                              ("bin/workload", "bin/sh", "boot/kernel")),
           "pprof -raw: one mapping per binary, the kernel too, named by the ELF files "
           "vprof read (%s)" % maps)
    path = vprof(tap, tmp, ["-F", "pprof", "-T", "sh"], "sh.pb.gz")
    sh_flat = pprof_top(tap, path)[0]
    tap.ok(sh_flat == {"sh_read": 300}, "pprof of -T sh: only the shell's samples (%s)" % sh_flat)
    return top(flat)


def annotate(path, inclusive):
    args = ["callgrind_annotate", "--inclusive=%s" % ("yes" if inclusive else "no"),
            "--threshold=100", path]
    rc, out, err = run(args)
    counts = {}
    for line in out.splitlines():
        m = re.match(r"^\s*([\d,]+)(?:\s+\(\s*[\d.]+%\))?\s+\?\?\?:(.+) \[([^]]+)\]\s*$", line)
        if m and int(m.group(1).replace(",", "")) > 0:
            counts[m.group(2)] = int(m.group(1).replace(",", ""))
    return rc, counts, err


def check_callgrind(tap, tmp, rows, self_, incl):
    path = vprof(tap, tmp, ["-F", "callgrind"], "callgrind.out")
    rc, counts, err = annotate(path, False)
    tap.ok(rc == 0 and counts, "callgrind_annotate reads it (rc %d %s)" % (rc, err.strip()[:200]))
    same_counts(tap, "callgrind_annotate self = vprof's report",
                counts, {n: c for n, (c, _p) in rows.items()})
    rc, icounts, err = annotate(path, True)
    tap.ok(rc == 0 and not err, "callgrind_annotate --inclusive=yes reads it %s" % err[:200])
    # callgrind_annotate stops listing once the listed functions' *self*
    # costs reach the threshold (at most 100%): functions with no self
    # cost after that are not shown, whatever their inclusive cost.
    want = {n: c for n, c in incl.items() if n in icounts or self_.get(n)}
    same_counts(tap, "callgrind_annotate --inclusive=yes = inclusive counts (%d functions)" %
                len(want), icounts, want)
    path = vprof(tap, tmp, ["-F", "callgrind", "-m", "kernel"], "kernel.callgrind")
    rc, kcounts, err = annotate(path, False)
    tap.ok(kcounts == {"memcpy [k]": 500, "idle_loop [k]": 200},
           "callgrind of -m kernel: only kernel and idle samples (%s)" % kcounts)
    return top(counts)


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(directory):
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                          functools.partial(Quiet, directory=directory))
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


def check_speedscope(tap, tmp):
    path = vprof(tap, tmp, ["-F", "speedscope"], "speedscope.json")
    rc, out, err = run(["node", AJV, "validate", "--spec=draft7", "--strict=false", "-s", SCHEMA,
                        "-d", path])
    tap.ok(rc == 0 and "valid" in (out + err), "speedscope JSON valid against the npm package's "
           "file-format-schema.json (ajv-cli rc %d: %s)" % (rc, (out + err).strip()[:300]))
    with open(path) as f:
        doc = json.load(f)
    weights = {p["name"]: sum(p["weights"]) for p in doc["profiles"]}
    ms = 10**6                    # a v2 sample weighs its nominal period: 1 ms at 1000 Hz
    tap.ok(weights == {"workload (task 10)": 11500 * ms, "sh (task 11)": 300 * ms,
                       "[idle] (task 0)": 200 * ms},
           "speedscope: one profile per task, weights (ns) summing to its time (%s)" % weights)
    site = os.path.join(tmp, "site")
    os.makedirs(site)
    os.symlink(APP, os.path.join(site, "app"))
    shutil.copy(path, os.path.join(site, "profile.json"))
    shutil.copy(os.path.join(tmp, "stacks.folded"), os.path.join(site, "stacks.folded"))
    srv = serve(site)
    base = "http://127.0.0.1:%d" % srv.server_address[1]
    try:
        r = browser(["speedscope", base + "/app/index.html#profileURL=" + base + "/profile.json"])
        want = doc["name"] + " - speedscope"
        tap.ok(r.get("title") == want and not r.get("errors"),
               "the speedscope app imports our JSON: title %r, errors %s" %
               (r.get("title"), r.get("errors")))
        r = browser(["speedscope", base + "/app/index.html#profileURL=" + base + "/stacks.folded"])
        tap.ok(r.get("title") == "stacks.folded - speedscope" and not r.get("errors"),
               "the speedscope app imports our folded stacks: title %r, errors %s" %
               (r.get("title"), r.get("errors")))
    finally:
        srv.shutdown()


def check_svg(tap, tmp, rows, self_, incl):
    path = vprof(tap, tmp, ["-F", "svg"], "flame.svg")
    with open(path) as f:
        svg = f.read()
    tap.ok(not re.search(r"(href|src)\s*=|url\(|@import", svg) and
           set(re.findall(r"https?://[^\"']+", svg)) <=
           {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xhtml"},
           "svg: self-contained (no link, script source, font or URL)")
    tap.ok(re.search(r"stream: pmc at 1000 Hz on 4 CPUs, 12000 samples, 0 lost</text>", svg),
           "svg: the title names the stream, source, rate, CPUs, lost count")
    sums = {}
    for m in re.finditer(r'<g class="f" data-depth="(\d+)" data-x="\d+" data-n="(\d+)" '
                         r'data-name="([^"]*)"', svg):
        if int(m.group(1)) >= 2:
            sums[m.group(3)] = sums.get(m.group(3), 0) + int(m.group(2))
    same_counts(tap, "svg frames summed by name = inclusive counts", sums, incl)
    kern = re.findall(r'data-name="[^"]* \[k\]"><title>[^<]*</title><rect [^>]*fill="rgb\((\d+),'
                      r'(\d+),(\d+)\)"', svg)
    user = re.findall(r'data-name="(?:spin|alpha|beta|gamma|main)"><title>[^<]*</title><rect '
                      r'[^>]*fill="rgb\((\d+),(\d+),(\d+)\)"', svg)
    tap.ok(kern and user and all(int(b) > int(r) for r, _g, b in kern) and
           all(int(r) > int(b) for r, _g, b in user),
           "svg: kernel frames blue, user frames warm (%d, %d)" % (len(kern), len(user)))
    shot = os.path.join(tmp, "flame.png")
    r = browser(["svg", "file://" + path, shot, "spin"])
    tap.ok(r.get("title", "").endswith("stream - vprof flame graph") and not r.get("errors"),
           "chromium opens the svg: title %r, no console error %s" %
           (r.get("title"), r.get("errors")))
    fills = {n: [int(v) for v in re.findall(r"\d+", f)[:3]]
             for n, f in (r.get("fills") or {}).items()}
    k, u = fills.get("memcpy [k]", [0, 0, 0]), fills.get("alpha", [0, 0, 0])
    tap.ok(k[2] > k[0] and u[0] > u[2], "chromium paints kernel frames blue (memcpy [k] %s), "
           "user frames warm (alpha %s)" % (k, u))
    tap.ok(r.get("name") == "main" and r.get("details") == "main (11500 samples, 95.83%)",
           "hover shows name, samples and share: %r" % r.get("details"))
    tap.ok(r.get("before", 0) < r.get("after", 0) == r.get("root") and r.get("hidden", 0) > 0,
           "a click on main zooms: width %s -> %s (the root's %s), %s frames hidden" %
           (r.get("before"), r.get("after"), r.get("root"), r.get("hidden")))
    tap.ok(r.get("matched") == "Matched: 54.17%% (6500 samples)" % () and
           r.get("highlighted") == 3,
           "search 'spin': 3 frames highlighted, %r" % r.get("matched"))
    tap.ok(r.get("reset") == r.get("before"), "reset zoom restores the width")
    tap.ok(os.path.exists(shot) and png_colours(shot) > 20,
           "the screenshot is not blank (%d byte values)" %
           (png_colours(shot) if os.path.exists(shot) else 0))


def check_svg2png(tap, tmp):
    """tools/svg2png.js (README's picture): the flame graph at its own size."""
    svg = os.path.join(tmp, "flame.svg")
    png = os.path.join(tmp, "flame-svg2png.png")
    tool = os.path.join(bt.TOP, "tools", "svg2png.js")
    rc, _o, err = run(["node", tool, svg, png])
    size = re.search(r'<svg [^>]*width="(\d+)" height="(\d+)"', open(svg).read())
    with open(png, "rb") as f:
        head = f.read(24) if rc == 0 else b""
    dims = struct.unpack(">II", head[16:24]) if len(head) == 24 else None
    tap.ok(rc == 0 and size and dims == (int(size.group(1)), int(size.group(2))) and
           png_colours(png) > 20, "tools/svg2png.js renders flame.svg to a %s PNG, not blank "
           "(rc %d %s)" % (dims, rc, err.strip()[:200]))
    rc, _o, err = run(["node", tool, svg])
    tap.ok(rc == 2 and "Usage:" in err, "tools/svg2png.js with one argument: usage, exit 2")
    rc, _o, err = run(["node", tool, os.path.join(tmp, "stream"), png])
    tap.ok(rc == 1 and "no <svg" in err, "tools/svg2png.js of a non-SVG: exit 1, a message "
           "(%s)" % err.strip()[:200])


def gprof_flat(tap, elf_path, gmon):
    rc, out, err = run(["gprof", "-b", "-p", elf_path, gmon])
    flat = {}
    for line in out.splitlines():
        m = re.match(r"^\s*([\d.]+)\s+[\d.]+\s+([\d.]+)\s+(?:\d+\s+[\d.]+\s+[\d.]+\s+)?(\S+)$",
                     line)
        if m and float(m.group(1)) > 0:
            flat[m.group(3)] = (float(m.group(1)), round(float(m.group(2)) * 1000))
    tap.ok(rc == 0 and flat, "gprof -b -p %s reads %s (rc %d %s)" %
           (os.path.basename(elf_path), os.path.basename(gmon), rc, err.strip()[:200]))
    return flat


KPROF_FUNCS = {"kf_a": (0x100, 3000), "kf_b": (0x200, 1500), "kf_c": (0x300, 500)}


def kpdata():
    """A kpdata file (lib/kprof.h): 128 buckets of 8 bytes over 0x400 bytes
    of text, KPROF_FUNCS' ticks spread over each function's buckets."""
    words = [0] * 128
    for off, ticks in KPROF_FUNCS.values():
        for i in range(ticks):
            words[off // 8 + i % 32] += 1
    total = sum(t for _o, t in KPROF_FUNCS.values())
    words[:6] = [total, 0, 1000, 128, 4, 3]
    return struct.pack(">128I", *words)


def check_kprof(tap, tmp):
    kernel = elf(tmp, os.path.join(tmp, "kprof-kernel"),
                 {n: off for n, (off, _t) in KPROF_FUNCS.items()}, KBASE, "__text_start")
    data = os.path.join(tmp, "kpdata")
    with open(data, "wb") as f:
        f.write(kpdata())
    kprof = os.path.join(bt.BUILD, "host", "kprof")
    out = os.path.join(tmp, "kprof.gmon")
    rc, _o, err = run([kprof, "-F", "gmon", "-o", out, kernel, data])
    tap.ok(rc == 0 and os.path.exists(out), "kprof -F gmon writes gmon.out (rc %d %s)" %
           (rc, err.strip()))
    rc, text, _e = run([kprof, kernel, data])
    rows = {}
    for line in text.splitlines():
        m = re.match(r"^\s*(\d+)\s+([\d.]+)%\s+[\d.]+\s+(\S+)$", line)
        if m:
            rows[m.group(3)] = (int(m.group(1)), float(m.group(2)))
    flat = gprof_flat(tap, kernel, out)
    same_counts(tap, "gprof -p of kprof's gmon.out: self ms = kprof's ticks",
                {n: c for n, (_p, c) in flat.items()}, {n: c for n, (c, _p) in rows.items()})
    bad = [n for n, (_c, p) in rows.items() if abs(flat.get(n, (-1, 0))[0] - p) > 0.1]
    tap.ok(len(rows) == 3 and not bad, "gprof -p of kprof's gmon.out: shares within 0.1 point "
           "of kprof's report %s" % bad)
    # Bad input: a clear message, exit 1, no gmon.out left behind.
    raw = kpdata()
    empty = struct.pack(">6I", 0, 0, 1000, 128, 4, 3) + b"\0" * (4 * 122)
    for name, data, args, msg in (
            ("cut", raw[:300], None, "not a kprof histogram (300 bytes)"),
            ("junk", b"x" * 100, None, "not a kprof histogram (100 bytes)"),
            ("empty", empty, None, "no ticks in the kernel's text"),
            ("nokernel", raw, [os.path.join(tmp, "none")], "cannot read"),
            ("notelf", raw, [os.path.join(tmp, "kpdata")], "no __text_start or symbols")):
        path = os.path.join(tmp, "kp-" + name)
        with open(path, "wb") as f:
            f.write(data)
        bad_out = os.path.join(tmp, "bad.gmon")
        rc, _o, err = run([kprof, "-F", "gmon", "-o", bad_out] + (args or [kernel]) + [path])
        tap.ok(rc == 1 and msg in err and not os.path.exists(bad_out),
               "kprof -F gmon of %s: exit 1, %r, no file (rc %d: %s)" %
               (name, msg, rc, err.strip()))


def check_gmon(tap, tmp):
    root = os.path.join(tmp, "root")
    prefix = os.path.join(tmp, "gmon.out")
    rc, out, err = run([VPROF, "-F", "gmon", "-r", root, "-o", prefix,
                        os.path.join(tmp, "stream")])
    names = sorted(line.split(":")[0] for line in out.splitlines())
    tap.ok(rc == 0 and names == [prefix + ".kernel", prefix + ".sh", prefix + ".workload"],
           "vprof -F gmon: one gmon.out per program and the kernel (%s %s)" %
           (names, err.strip()))
    for name, elf_path, filt in (("workload", "bin/workload", ["-T", "workload", "-m", "user"]),
                                 ("kernel", "boot/kernel", ["-m", "kernel"])):
        flat = gprof_flat(tap, os.path.join(root, elf_path), prefix + "." + name)
        rc, text, _e = run([VPROF, "-p", "0", "-r", root] + filt + [os.path.join(tmp, "stream")])
        rows = {n.replace(" [k]", ""): v for n, v in report_rows(text).items()}
        same_counts(tap, "gprof -p %s: self ms = vprof %s samples" % (name, " ".join(filt)),
                    {n: c for n, (_p, c) in flat.items()}, {n: c for n, (c, _p) in rows.items()})
        bad = ["%s %.2f vs %.2f" % (n, flat.get(n, (-1, 0))[0], p) for n, (_c, p) in rows.items()
               if abs(flat.get(n, (-1, 0))[0] - p) > 0.1]
        tap.ok(rows and not bad, "gprof -p %s: shares within 0.1 point of vprof %s%s" %
               (name, " ".join(filt), (": " + ", ".join(bad)) if bad else ""))
        if name == "workload":
            tap.ok(top({n: c for n, (_p, c) in flat.items()}) ==
                   top({n: c for n, (c, _p) in rows.items()}),
                   "gprof: the top functions are vprof's")
    rc, q, err = run(["gprof", "-b", "-q", os.path.join(root, "bin/workload"),
                      prefix + ".workload"])
    tap.ok(rc == 0 and re.search(r"4000/6500\s+alpha \[", q) and
           re.search(r"1500/6500\s+beta \[", q) and re.search(r"1000/6500\s+gamma \[", q),
           "gprof -q: spin's callers with the samples on each arc (4000/1500/1000 of 6500)")


# ---------------------------------------------------------------- wall clock (-W)

WALL = {"[off-cpu: sleep]": 2000, "[off-cpu: recv]": 1000}


def offcpu(tid, thread, why, seconds, frames, syms):
    """A PROF_REC_OFFCPU (v4) of thread waiting seconds in frames (root first)."""
    chain = [address(f, syms, 0x40) for f in reversed(frames)]
    body = struct.pack("<QQQQIHHQQ", tid, thread, 0, seconds * TSC_HZ, why, len(chain), 0,
                       0, 0) + b"".join(struct.pack("<Q", a) for a in chain)
    return rec(10, 16 + len(body), 0, 10 * TSC_HZ) + body


def wall_stream():
    """The stream with 2 s of workload asleep under alpha and 1 s of sh in recv."""
    s = stream()
    return (s[:-48] + offcpu(10, 101, 2, 2, ["main", "worker", "alpha"], WORKLOAD_NM) +
            offcpu(11, 110, 4, 1, ["sh_main", "sh_read"], SH_NM) + s[-48:])


def check_wall(tap, tmp):
    """vprof -W's exports of the wall stream, read by flamegraph.pl, pprof, ajv, callgrind."""
    with open(os.path.join(tmp, "stream"), "wb") as f:
        f.write(wall_stream())
    folded = vprof(tap, tmp, ["-W", "-F", "folded"], "wall.folded")
    rc, svg, err = run(["perl", FLAMEGRAPH, folded])
    sums = {}
    for m in re.finditer(r"<title>(.*?) \(([\d,]+) samples?, [\d.]+%\)</title>", svg):
        sums[m.group(1)] = sums.get(m.group(1), 0) + int(m.group(2).replace(",", ""))
    tap.ok(rc == 0 and all(sums.get(k) == v for k, v in WALL.items()) and
           sums.get("workload") == TOTAL - 500 + 2000,
           "flamegraph.pl of -W folded: the [off-cpu ...] frames' samples, workload's wall "
           "(%s)" % {k: sums.get(k) for k in list(WALL) + ["workload"]})
    path = vprof(tap, tmp, ["-W", "-F", "pprof"], "wall.pb.gz")
    flat, _cum, _pct, _out = pprof_top(tap, path)
    rc, raw, _err = run(["go", "tool", "pprof", "-raw", path],
                        env=dict(os.environ, HOME=tmp))
    tap.ok(all(flat.get(k) == v for k, v in WALL.items()) and
           "samples/count wall/nanoseconds" in raw,
           "go tool pprof: wall/nanoseconds, the [off-cpu ...] frames flat (%s)"
           % {k: flat.get(k) for k in WALL})
    path = vprof(tap, tmp, ["-W", "-F", "speedscope"], "wall.json")
    rc, out, err = run(["node", AJV, "validate", "--spec=draft7", "--strict=false", "-s", SCHEMA,
                        "-d", path])
    with open(path) as f:
        doc = json.load(f)
    weights = {p["name"]: (p["unit"], sum(p["weights"])) for p in doc["profiles"]}
    tap.ok(rc == 0 and weights.get("workload (task 10)") == ("nanoseconds", 13500 * 10**6),
           "speedscope -W: valid, nanoseconds, workload's 13.5 s (%s)" % weights)
    path = vprof(tap, tmp, ["-W", "-F", "callgrind"], "wall.callgrind")
    rc, counts, err = annotate(path, False)
    with open(path) as f:
        text = f.read()
    tap.ok(rc == 0 and "fn=[off-cpu: sleep]\n0 2000\n" in text,
           "callgrind -W: [off-cpu: sleep] with 2000 self, callgrind_annotate reads it (%s)"
           % err.strip()[:200])


def weighted_stream():
    """A v5 stream: 10 samples in alpha of 3 ms each, 10 in beta of 1 ms each
    (the same counts, a quarter of the time in beta)."""
    body = struct.pack("<QIIIIIIQQQQ32s", MAGIC, 5, 1, 1000, 1, 0, 8, TSC_HZ, 0,
                       KBASE, KBASE + 0x100000, b"vernier weight test")
    out = [rec(1, 16 + len(body), 0, 0) + body, task(10, "workload"), load(10, "/bin/workload")]
    chain = [address("main", WORKLOAD_NM, 0x40)]
    for n in range(20):
        name, weight = ("alpha", 3 * TSC_HZ // 1000) if n % 2 else ("beta", TSC_HZ // 1000)
        out.append(rec(2, 56 + 8 * len(chain), 0, (n + 1) * TSC_HZ // 100) +
                   struct.pack("<QQQBBHHHQ", 10, 101, address(name, WORKLOAD_NM, 0x10), 0, 3,
                               len(chain), 0, 0, weight) +
                   b"".join(struct.pack("<Q", a) for a in chain))
    return b"".join(out)


def check_weights(tap, tmp):
    """Weights reach every consumer: pprof's cpu value, folded -u ns, speedscope."""
    wdir = os.path.join(tmp, "weights")
    os.makedirs(wdir)
    os.symlink(os.path.join(tmp, "root"), os.path.join(wdir, "root"))
    with open(os.path.join(wdir, "stream"), "wb") as f:
        f.write(weighted_stream())
    rc, text, _e = run([VPROF, "-p", "0", "-r", os.path.join(wdir, "root"),
                        os.path.join(wdir, "stream")])
    rows = report_rows(text)
    tap.ok(rc == 0 and rows.get("alpha") == (10, 75.0) and rows.get("beta") == (10, 25.0),
           "weights: the report's shares are of time, the counts stay (%s)" % rows)
    path = vprof(tap, wdir, ["-F", "pprof"], "w.pb.gz")
    rc, out, _e = run(["go", "tool", "pprof", "-top", "-sample_index=cpu", path],
                      env=dict(os.environ, HOME=wdir))
    tap.ok(rc == 0 and re.search(r"^\s*30ms\s+75\.00%.*\salpha$", out, re.M) and
           re.search(r"^\s*10ms\s+25\.00%.*\sbeta$", out, re.M),
           "weights: go tool pprof -sample_index=cpu: alpha 30ms 75%%, beta 10ms 25%% (%s)" %
           " | ".join(out.splitlines()[-3:]))
    _f, _c, pct, _o = pprof_top(tap, path)
    tap.ok(pct.get("alpha") == 50.0 and pct.get("beta") == 50.0,
           "weights: ... and -sample_index=samples the counts, 50%% each (%s)" % pct)
    folded = vprof(tap, wdir, ["-F", "folded", "-u", "ns"], "w.folded")
    rc, svg, _e = run(["perl", FLAMEGRAPH, folded])
    tap.ok(rc == 0 and re.search(r"<title>alpha \(30,000,000 samples, 75.00%\)</title>", svg),
           "weights: flamegraph.pl of folded -u ns: alpha 30,000,000 ns, 75%")
    ss = vprof(tap, wdir, ["-F", "speedscope"], "w.json")
    with open(ss) as f:
        doc = json.load(f)
    prof = doc["profiles"][0]
    tap.ok(prof["unit"] == "nanoseconds" and sorted(prof["weights"]) == [10000000, 30000000],
           "weights: speedscope's weights are each stack's ns (%s)" % sorted(prof["weights"]))


def main():
    tap = Tap()
    tmp = tempfile.mkdtemp(prefix="vernier-export-")
    try:
        tap.ok(write_root(tmp, os.path.join(tmp, "root")),
               "ELF binaries for the stream (as, ld)")
        with open(os.path.join(tmp, "stream"), "wb") as f:
            f.write(stream())
        rc, text, err = run([VPROF, "-p", "0", "-r", os.path.join(tmp, "root"),
                             os.path.join(tmp, "stream")])
        rows = report_rows(text)
        self_, incl = expected()
        tap.ok(rc == 0, "vprof's report of the stream (rc %d %s)" % (rc, err.strip()))
        same_counts(tap, "vprof's report = the stream's self counts",
                    {n: c for n, (c, _p) in rows.items()}, self_)
        want = top(self_)
        tap.diag("top functions: %s" % ", ".join(want))
        check_flamegraph(tap, tmp, rows, self_, incl)
        tops = [("go tool pprof", check_pprof(tap, tmp, rows, self_, incl))]
        tops.append(("callgrind_annotate", check_callgrind(tap, tmp, rows, self_, incl)))
        check_speedscope(tap, tmp)
        check_svg(tap, tmp, rows, self_, incl)
        check_svg2png(tap, tmp)
        check_gmon(tap, tmp)
        check_kprof(tap, tmp)
        check_wall(tap, tmp)
        check_weights(tap, tmp)
        for name, got in tops:
            n = len(got)
            tap.ok(got == want[:n] and n >= 2, "%s: the top functions are vprof's: %s" %
                   (name, ", ".join(got)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    tap.done()


if __name__ == "__main__":
    main()
