#!/usr/bin/env python3
"""test/perfdata.t - vprof -F perf's perf.data read by Debian's perf.

The synthetic stream of test/export.t (12,000 samples of known stacks
over 10 s on 4 CPUs, ELF binaries made by as/ld, a kernel path under
alpha, a shell, idle CPUs) is exported with `vprof -F perf` and read by
perf (linux-perf, from tools/setup.sh):
- perf report --stdio --no-children --sort sym (and --sort comm,dso,sym)
  with --symfs ROOT -k ROOT/boot/kernel: every function's share within
  0.01 point of `vprof -p 0`'s report, kernel functions as [k] in
  [kernel.kallsyms], each program's samples in its binary;
- perf report -g (and -g callee): the call chains of the known paths
  (spin's callers, main -> worker -> alpha -> syscall_entry -> memcpy);
- perf script --ns: every sample, in order, with the stream's task,
  thread, CPU, time (ns since the header) and weight (the period);
- perf annotate --stdio -s spin: spin's instructions, its hot one 100%;
- the build-ids (binaries linked with --build-id): perf buildid-list
  shows readelf's, and through `perf buildid-cache -a` perf report finds
  every binary and the kernel without --symfs, with the same shares;
- vprof -W of the stream with off-CPU records: a second event,
  offcpu-time, with their weights (2 s and 1 s) on their stacks;
- a redacted stream (no kernel text in the header, kernel samples
  without pc or kernel frames) exports without a kernel address, map or
  path; -T sh exports only the shell's samples.

TAP on stdout, for prove.
"""

import importlib.machinery
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "lib"))
import boottest as bt  # noqa: E402
from tap import Tap  # noqa: E402

ex = importlib.machinery.SourceFileLoader("export_t", os.path.join(HERE, "export.t")).load_module()

VPROF = os.path.join(bt.BUILD, "host", "vprof")
PERF = "perf"


def run(cmd, home, **kw):
    """cmd with HOME=home (perf's build-id cache and config stay in it)."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300,
                           env=dict(os.environ, HOME=home), **kw)
        return p.returncode, p.stdout, p.stderr
    except (OSError, subprocess.TimeoutExpired) as e:
        return -1, "", str(e)


def stream_samples(data):
    """(task, thread, cpu, ns, weight ns) of every sample record of a v2 stream
    (tsc_hz 1 GHz, header at tsc 0: TSC = ns; nominal weight 1 ms)."""
    out, at = [], 0
    while at + 16 <= len(data):
        rtype, size, cpu, tsc = struct.unpack_from("<HHIQ", data, at)
        if rtype == 2:
            task, thread = struct.unpack_from("<QQ", data, at + 16)
            out.append((task, thread, cpu, tsc, 1000000))
        at += size
    return out


def vprof(tap, tmp, root, stream, args, out):
    path = os.path.join(tmp, out)
    rc, _o, err = run([VPROF, "-r", root] + args + ["-o", path, stream], tmp)
    tap.ok(rc == 0 and os.path.getsize(path) > 0, "vprof %s -o %s (rc %d%s)" %
           (" ".join(args), out, rc, (": " + err.strip()) if err else ""))
    return path


def vprof_rows(tmp, root, stream, args=()):
    """vprof -p 0's function table: {(task name, symbol): pct}."""
    rc, text, _e = run([VPROF, "-p", "0", "-r", root] + list(args) + [stream], tmp)
    rows, in_funcs = {}, False
    for line in text.splitlines():
        if line.strip().endswith("symbol"):
            in_funcs = True
            continue
        m = re.match(r"^\s*([\d.]+)%\s+\d+\s+\d+\s+(\[idle\]|\d+ \S+)\s+(\S+(?: \[k\])?)$", line)
        if in_funcs and m:
            task = m.group(2).split(" ", 1)[-1]
            key = (task, m.group(3))
            rows[key] = rows.get(key, 0.0) + float(m.group(1))
    return rows


def perf_report(tmp, data, args):
    """perf report --stdio's rows: [(pct, fields...)] (the sort keys' columns), per event."""
    rc, out, err = run([PERF, "report", "--stdio", "-i", data, "--no-children"] + args, tmp)
    events, cur = {}, None
    for line in out.splitlines():
        m = re.match(r"^# Samples: \S+\s+of event '([^']+)'", line)
        if m:
            cur = events.setdefault(m.group(1), [])
            continue
        m = re.match(r"^\s+([\d.]+)%\s+(.+?)\s*$", line)
        if m and cur is not None:
            cur.append((float(m.group(1)), m.group(2)))
    return rc, events, out, err


def sym_of(field):
    """'[k] memcpy' -> 'memcpy [k]' (vprof's name), '[.] spin' -> 'spin'."""
    m = re.match(r"^\[(.)\] (\S+)$", field)
    if not m:
        return field
    return m.group(2) + (" [k]" if m.group(1) == "k" else "")


def close(tap, what, got, want):
    bad = ["%s %.2f%% vs %.2f%%" % (k, got.get(k, -1), v) for k, v in sorted(want.items())
           if abs(got.get(k, -1) - v) > 0.01]
    bad += ["%s not in vprof's report" % (k,) for k in got if k not in want]
    tap.ok(want and not bad, "%s: shares within 0.01 point of vprof -p 0%s" %
           (what, (": " + ", ".join(bad[:6])) if bad else " (%d rows)" % len(want)))


def symfs(root):
    return ["--symfs", root, "-k", os.path.join(root, "boot", "kernel")]


def check_report(tap, tmp, root, data, stream):
    rows = vprof_rows(tmp, root, stream)
    by_sym = {}
    for (_task, sym), pct in rows.items():
        by_sym[sym] = by_sym.get(sym, 0.0) + pct
    rc, ev, out, err = perf_report(tmp, data, symfs(root) + ["-g", "none", "--sort", "sym"])
    got = {sym_of(f): p for p, f in ev.get("cpu-clock", [])}
    tap.ok(rc == 0 and got, "perf report --sort sym --symfs ROOT -k ROOT/boot/kernel reads it "
           "(rc %d %s)" % (rc, err.strip()[-300:] if rc else ""))
    close(tap, "perf report --sort sym", got, by_sym)
    tap.ok(got.get("memcpy [k]") and got.get("idle_loop [k]"),
           "perf report: the kernel samples resolve to the kernel's symbols (memcpy, idle_loop)")
    tap.ok(re.search(r"^# Samples: 12K of event 'cpu-clock'\n# Event count \(approx\.\): "
                     r"12000000000$", out, re.M),
           "perf report: 12K samples of cpu-clock, 12 s of weight (ns)")
    rc, ev, out, err = perf_report(tmp, data, symfs(root) + ["-g", "none", "--sort",
                                                             "comm,dso,sym"])
    got, dsos = {}, {}
    for p, f in ev.get("cpu-clock", []):
        m = re.match(r"^(\S+)\s+(\S+)\s+(\[.\] \S+)$", f)
        if m:
            key = (m.group(1), sym_of(m.group(3)))
            got[key] = got.get(key, 0.0) + p
            dsos[key[1]] = m.group(2)
    close(tap, "perf report --sort comm,dso,sym", got, rows)
    want = {"spin": "workload", "alpha": "workload", "sh_read": "sh",
            "memcpy [k]": "[kernel.kallsyms]", "idle_loop [k]": "[kernel.kallsyms]"}
    tap.ok(all(dsos.get(k) == v for k, v in want.items()),
           "perf report: each function in its binary, the kernel's in [kernel.kallsyms] (%s)" %
           {k: dsos.get(k) for k in want})


def check_graph(tap, tmp, root, data):
    """perf report -g (caller order: root first) and -g callee. Sorted by dso,sym:
    with --sort sym alone perf 6.1 leaves out a single chain's first entry (it
    takes it for the sample's own symbol, true only of the callee order)."""
    rc, out, err = run([PERF, "report", "--stdio", "-i", data, "--no-children", "-g",
                        "--sort", "dso,sym"] + symfs(root), tmp)
    text = re.sub(r"[ \t]+", " ", out)
    tap.ok(rc == 0 and re.search(r"\[k\] memcpy\n \|\n ---main\n worker\n alpha\n "
                                 r"syscall_entry\n memcpy\n", text),
           "perf report -g: memcpy's chain main -> worker -> alpha -> syscall_entry -> memcpy")
    tap.ok(re.search(r"54\.17% workload \[\.\] spin\n \|\n ---main\n worker\n \|\s*\n "
                     r"\|--33\.33%--alpha\n \| spin\n \|\s*\n \|--12\.50%--beta\n", text),
           "perf report -g: spin under main, worker, then alpha 33.33%, beta 12.50% (of all)")
    rc, out, err = run([PERF, "report", "--stdio", "-i", data, "--no-children", "-g", "callee",
                        "--sort", "dso,sym"] + symfs(root), tmp)
    text = re.sub(r"[ \t]+", " ", out)
    tap.ok(rc == 0 and re.search(r"\[k\] memcpy\n \|\n ---memcpy\n syscall_entry\n alpha\n "
                                 r"worker\n main\n", text),
           "perf report -g callee: memcpy <- syscall_entry <- alpha <- worker <- main")


def check_script(tap, tmp, root, data, stream):
    want = stream_samples(open(stream, "rb").read())
    names = {10: "workload", 11: "sh", 0: "[idle]"}
    rc, out, err = run([PERF, "script", "-i", data, "--ns", "-F",
                        "comm,pid,tid,cpu,time,period,event"], tmp)
    got = []
    for line in out.splitlines():
        m = re.match(r"^\s*(\S+)\s+(\d+)/(\d+)\s+\[(\d+)\]\s+(\d+)\.(\d{9}):\s+(\d+)\s+([^:\s]+):",
                     line)
        if m:
            got.append((m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4)),
                        int(m.group(5)) * 10**9 + int(m.group(6)), int(m.group(7)), m.group(8)))
    tap.ok(rc == 0 and len(got) == len(want) == 12000,
           "perf script lists every sample (%d of %d; rc %d %s)" %
           (len(got), len(want), rc, err.strip()[-200:] if rc else ""))
    exp = [(names[t], t, th, c, ns, w, "cpu-clock") for t, th, c, ns, w in want]
    bad = [i for i, (a, b) in enumerate(zip(got, exp)) if a != b]
    tap.ok(got == exp, "perf script: each sample's task (comm, pid), thread, CPU, time (ns) and "
           "period as in the stream, in order%s" %
           ((": first differs at %d: %s vs %s" % (bad[0], got[bad[0]], exp[bad[0]]))
            if bad else ""))
    rc, out, _e = run([PERF, "script", "-i", data] + symfs(root), tmp)
    tap.ok(rc == 0 and re.search(r"ffffffff80100210 memcpy\+0x10 \(\[kernel\.kallsyms\]\)\n\s+"
                                 r"ffffffff80100140 syscall_entry\+0x40 \(\[kernel\.kallsyms\]\)"
                                 r"\n\s+\S+ alpha\+0x40 \(/bin/workload\)", out),
           "perf script: a kernel sample's chain by symbol, kernel then user frames")


def check_annotate(tap, tmp, root, data):
    rc, out, err = run([PERF, "annotate", "--stdio", "-i", data, "-s", "spin"] + symfs(root),
                       tmp)
    tap.ok(rc == 0 and re.search(r"^\s+:\s+\d+\s+0+401500 <spin>:$", out, re.M) and
           re.search(r"^\s+100\.00 :\s+401510:\s+nop$", out, re.M) and
           len(re.findall(r"^\s+0\.00 :\s+4015[0-9a-f]{2}:\s+nop$", out, re.M)) == 255,
           "perf annotate -s spin: its 256 instructions, the sampled one 100%% (rc %d %s)" %
           (rc, err.strip()[-200:]))


def build_ids(tap, tmp, path):
    rc, out, _e = run(["readelf", "-n", path], tmp)
    m = re.search(r"Build ID: ([0-9a-f]+)", out)
    return m.group(1) if m else None


def check_build_ids(tap, tmp, stream):
    root = os.path.join(tmp, "broot")
    tap.ok(ex.write_root(tmp, root, ["--build-id"]), "ELF binaries with build-ids (ld --build-id)")
    data = vprof(tap, tmp, root, stream, ["-F", "perf"], "bid.data")
    want = {"[kernel.kallsyms]": build_ids(tap, tmp, os.path.join(root, "boot/kernel")),
            "/bin/workload": build_ids(tap, tmp, os.path.join(root, "bin/workload")),
            "/bin/sh": build_ids(tap, tmp, os.path.join(root, "bin/sh"))}
    rc, out, _e = run([PERF, "buildid-list", "-i", data], tmp)
    got = {f: b for b, f in (line.split(" ", 1) for line in out.splitlines() if " " in line)}
    tap.ok(rc == 0 and got == want and all(want.values()),
           "perf buildid-list: the kernel's and the programs' build-ids, readelf's (%s)" % got)
    home = os.path.join(tmp, "home")
    os.makedirs(home)
    ok = all(run([PERF, "buildid-cache", "-a", os.path.join(root, p)], home)[0] == 0
             for p in ("bin/workload", "bin/sh", "boot/kernel"))
    rc, ev, _out, err = perf_report(home, data, ["-g", "none", "--sort", "sym"])
    got = {sym_of(f): p for p, f in ev.get("cpu-clock", [])}
    by_sym = {}
    for (_t, sym), pct in vprof_rows(tmp, root, stream).items():
        by_sym[sym] = by_sym.get(sym, 0.0) + pct
    tap.ok(ok and rc == 0, "perf buildid-cache -a of the binaries (HOME=tmp)")
    close(tap, "through the build-id cache, no --symfs: perf report --sort sym", got, by_sym)


def check_wall(tap, tmp, root):
    stream = os.path.join(tmp, "wall")
    with open(stream, "wb") as f:
        f.write(ex.wall_stream())
    data = vprof(tap, tmp, root, stream, ["-W", "-F", "perf"], "wall.data")
    rc, ev, out, err = perf_report(tmp, data, symfs(root) + ["-g", "none", "--sort", "comm,sym"])
    off = {f.split()[0] + " " + sym_of(" ".join(f.split()[1:])): p
           for p, f in ev.get("offcpu-time", [])}
    tap.ok(rc == 0 and off == {"workload alpha": 66.67, "sh sh_read": 33.33} and
           re.search(r"of event 'offcpu-time'\n# Event count \(approx\.\): 3000000000$", out,
                     re.M) and len(ev.get("cpu-clock", [])) == 7,
           "perf report of -W: offcpu-time's 3 s, 2 s asleep in alpha and 1 s of sh in "
           "sh_read, besides cpu-clock (%s)" % off)
    rc, out, _e = run([PERF, "script", "-i", data, "-F", "comm,tid,period,event,ip,sym"] +
                      symfs(root), tmp)
    tap.ok(re.search(r"workload\s+101\s+2000000000\s+offcpu-time:\s*\n\s+\S+ alpha\n\s+\S+ "
                     r"worker\n\s+\S+ main\n", out) and
           re.search(r"sh\s+110\s+1000000000\s+offcpu-time:\s*\n\s+\S+ sh_read\n\s+\S+ "
                     r"sh_main\n", out),
           "perf script of -W: each off-CPU record with its weight (ns) and stack")


def redacted_stream():
    """export.t's stream as a redacted session gives it: no kernel text in the
    header, kernel samples without pc and kernel frames, no idle samples."""
    s, out, at = ex.stream(), [], 0
    while at < len(s):
        rtype, size = struct.unpack_from("<HH", s, at)
        r = bytearray(s[at:at + size])
        at += size
        if rtype == 1:
            struct.pack_into("<QQ", r, 64, 0, 0)
        elif rtype == 2 and r[40] == 2:
            continue
        elif rtype == 2 and r[40] == 1:
            nchain, nkernel = struct.unpack_from("<HH", r, 42)
            r = r[:48] + r[48 + 8 * nkernel:48 + 8 * nchain]
            struct.pack_into("<H", r, 2, len(r))
            struct.pack_into("<Q", r, 32, 0)
            struct.pack_into("<HH", r, 42, nchain - nkernel, 0)
        out.append(bytes(r))
    return b"".join(out)


def check_redacted(tap, tmp, root):
    stream = os.path.join(tmp, "redacted")
    with open(stream, "wb") as f:
        f.write(redacted_stream())
    data = vprof(tap, tmp, root, stream, ["-F", "perf"], "redacted.data")
    raw = open(data, "rb").read()
    kaddr = [a for (a,) in struct.iter_unpack("<Q", raw[:len(raw) // 8 * 8])
             if ex.KBASE <= a < ex.KBASE + 0x100000]
    for shift in range(1, 8):
        body = raw[shift:]
        kaddr += [a for (a,) in struct.iter_unpack("<Q", body[:len(body) // 8 * 8])
                  if ex.KBASE <= a < ex.KBASE + 0x100000]
    tap.ok(not kaddr and b"kallsyms" not in raw and b"/boot/kernel" not in raw,
           "redacted: no kernel address, no kernel map or path in the file (%d addresses)" %
           len(kaddr))
    rc, out, _e = run([PERF, "script", "-i", data, "-G", "-F", "tid,ip"], tmp)
    ips = [int(w, 16) for w in re.findall(r"^\s*\d+\s+([0-9a-f]+)\s*$", out, re.M)]
    tap.ok(rc == 0 and len(ips) == 12000 - 200 and ips.count(0) == 500,
           "redacted: perf script lists its samples, the 500 kernel ones at ip 0 (%d, %d)" %
           (len(ips), ips.count(0)))


def check_filter(tap, tmp, root, stream):
    data = vprof(tap, tmp, root, stream, ["-F", "perf", "-T", "sh"], "sh.data")
    rc, out, _e = run([PERF, "script", "-i", data, "-F", "comm,tid"], tmp)
    lines = out.split("\n")[:-1]
    tap.ok(rc == 0 and len(lines) == 300 and all(re.match(r"^\s*sh\s+110\s*$", x) for x in lines),
           "-T sh: only the shell's 300 samples (%d)" % len(lines))
    rc, _o, err = run([VPROF, "-C", "-F", "perf", stream], tmp)
    tap.ok(rc == 2 and "-C is not for -F perf" in err, "vprof -C -F perf: exit 2, a message")


def main():
    tap = Tap()
    tmp = tempfile.mkdtemp(prefix="vernier-perfdata-")
    try:
        root = os.path.join(tmp, "root")
        tap.ok(shutil.which(PERF) is not None, "perf is installed (linux-perf, tools/setup.sh)")
        tap.ok(ex.write_root(tmp, root), "ELF binaries for the stream (as, ld)")
        stream = os.path.join(tmp, "stream")
        with open(stream, "wb") as f:
            f.write(ex.stream())
        data = vprof(tap, tmp, root, stream, ["-F", "perf"], "perf.data")
        check_report(tap, tmp, root, data, stream)
        check_graph(tap, tmp, root, data)
        check_script(tap, tmp, root, data, stream)
        check_annotate(tap, tmp, root, data)
        check_build_ids(tap, tmp, stream)
        check_wall(tap, tmp, root)
        check_redacted(tap, tmp, root)
        check_filter(tap, tmp, root, stream)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    tap.done()


if __name__ == "__main__":
    main()
