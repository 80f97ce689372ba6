#!/usr/bin/env python3
"""test/annotate.t - vprof -a SYMBOL (annotated disassembly) and --lines.

A tiny synthetic v5 stream (export.t's record builders) over a program
and a kernel assembled with `as -g` (DWARF lines) at known addresses,
with a hand-counted number of samples at each PC, some in the middle of
an instruction (they count for the instruction containing them), and
weights: the samples at one PC weigh 3 ms, the others 1 ms (shares are
of time, as the report's and perf's):
- vprof -a hot: each instruction's samples, share of hot's 125 ms and of
  all 150 ms, as counted by hand; the source lines (FILE:LINE and the .s
  text, objdump -S) interleaved above their instruction;
- vprof -a kwork: a kernel function from the kernel ELF;
- vprof --lines: the per-line table, FILE:LINE of each sampled line
  (program and kernel), its samples and share, most first;
- a tiny C file (gcc -g -O0 -c, ld): samples at csum's first
  instruction and at its ret, under lines 2 ("{") and 8 ("}");
- perf annotate --stdio -s hot (and the kernel's kwork) of the perf.data
  that vprof -F perf writes from the same stream: every instruction's
  percentage equal to vprof -a's; likewise export.t's stream's spin;
- errors: an unknown symbol (exit 1, a message), a missing binary (the
  path looked for; also when PATH.nm named the symbol), objdump and addr2line missing from PATH, bad options
  (exit 2 with usage), -h listing -a and --lines.

TAP on stdout, for prove.
"""

import importlib.machinery
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "lib"))
import boottest as bt  # noqa: E402
from tap import Tap  # noqa: E402

ex = importlib.machinery.SourceFileLoader("export_t", os.path.join(HERE, "export.t")).load_module()

VPROF = os.path.join(bt.BUILD, "host", "vprof")
KBASE = ex.KBASE

# The program (text at 0x401000): main calls hot; hot at 0x401100.
PROG = """\
.text
.globl main
.type main, @function
main:
    call hot
    ret
.size main, .-main
.org 0x100
.globl hot
.type hot, @function
hot:
    nop
    add %rax, %rbx
    movabs $0x1122334455667788, %rcx
cafe:	# a local label (ld -x drops it) objdump -S shows like an instruction
    imul %rcx, %rbx
    ret
.size hot, .-hot
"""
# hot's instructions: address, text as objdump prints it, .s line.
HOT = [(0x401100, "nop", 12), (0x401101, "add    %rax,%rbx", 13),
       (0x401104, "movabs $0x1122334455667788,%rcx", 14), (0x40110e, "imul   %rcx,%rbx", 16),
       (0x401112, "ret", 17)]
KERNEL = """\
.text
.globl kmain
.type kmain, @function
kmain:
    ret
.size kmain, .-kmain
.org 0x100
.globl kwork
.type kwork, @function
kwork:
    xor %eax, %eax
    inc %eax
    ret
.size kwork, .-kwork
"""
KWORK = [(KBASE + 0x100, "xor    %eax,%eax", 11), (KBASE + 0x102, "inc    %eax", 12),
         (KBASE + 0x104, "ret", 13)]
# (pc, samples, mode, ms each): 0x401102 and 0x40110d are inside add and movabs.
PCS = [(0x401100, 10, 0, 1), (0x401101, 15, 0, 3), (0x401102, 5, 0, 1), (0x401104, 30, 0, 1),
       (0x40110d, 10, 0, 1), (0x40110e, 25, 0, 1), (0x401000, 5, 0, 1),
       (KBASE + 0x100, 12, 1, 1), (KBASE + 0x102, 8, 1, 1)]
SAMPLES = sum(n for _pc, n, _m, _w in PCS)
TOTAL = sum(n * w for _pc, n, _m, w in PCS)
# Hand-counted: hot's instructions' samples (95 in hot) and ms (125), kwork's (20, 20).
HOT_COUNTS = [(10, 10), (20, 50), (40, 40), (25, 25), (0, 0)]
KWORK_COUNTS = [(12, 12), (8, 8), (0, 0)]


def run(cmd, env=None):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300,
                           env=dict(os.environ, **(env or {})))
        return p.returncode, p.stdout, p.stderr
    except (OSError, subprocess.TimeoutExpired) as e:
        return -1, "", str(e)


def assemble(tmp, name, src, base, entry):
    """src (assembled with as -g, so with .debug_line) linked at base (-x: without
    local symbols, such as PROG's label cafe); its .s path."""
    asm, obj, out = (os.path.join(tmp, name + e) for e in (".s", ".o", ""))
    with open(asm, "w") as f:
        f.write(src)
    ok = run(["as", "-g", "-o", obj, asm])[0] == 0 and \
        run(["ld", "-m", "elf_x86_64", "-x", "-Ttext=0x%x" % base, "-e", entry, "-o", out,
             obj])[0] == 0
    return asm, out if ok else None


def sample(n, pc, mode, ms):
    return ex.rec(2, 56, n % 2, n * 1000) + \
        ex.struct.pack("<QQQBBHHHQ", 10, 101, pc, mode, 1, 0, 0, 0, ms * ex.TSC_HZ // 1000)


def stream():
    body = ex.struct.pack("<QIIIIIIQQQQ32s", ex.MAGIC, 5, 1, 1000, 2, 0, 8, ex.TSC_HZ, 0,
                          KBASE, KBASE + 0x100000, b"vernier annotate test")
    head = [ex.rec(1, 16 + len(body), 0, 0) + body, ex.task(10, "app"), ex.load(10, "/bin/app")]
    n = 0
    for pc, count, mode, ms in PCS:
        for _ in range(count):
            head.append(sample(n, pc, mode, ms))
            n += 1
    end = ex.rec(8, 48, 0, n * 1000) + ex.struct.pack("<QQQII", SAMPLES, 0, 0, 1, 0)
    return b"".join(head) + end


def pct(n, total):
    """Hundredths rounded half up, as vprof prints them."""
    return (n * 10000 + total // 2) // total / 100


def annotated(text):
    """vprof -a's instruction rows: {address: (fn %, total %, samples, text)}."""
    rows = {}
    for line in text.splitlines():
        m = re.match(r"^\s*([\d.]+)\s+([\d.]+)\s+(\d+)\s+([0-9a-f]+):\t(.*)$", line)
        if m:
            rows[int(m.group(4), 16)] = (float(m.group(1)), float(m.group(2)), int(m.group(3)),
                                         m.group(5).strip())
    return rows


def check_hand(tap, name, text, insns, counts):
    rows = annotated(text)
    fn_n, fn_ms = (sum(c[i] for c in counts) for i in (0, 1))
    want = {a: (pct(ms, fn_ms), pct(ms, TOTAL), n, t)
            for (a, t, _l), (n, ms) in zip(insns, counts)}
    bad = ["%x: %s vs %s" % (a, rows.get(a), w) for a, w in want.items() if rows.get(a) != w]
    tap.ok(rows and not bad and len(rows) == len(want),
           "vprof -a %s: each instruction's samples and shares (of %d ms, of %d ms) as counted "
           "by hand%s" % (name, fn_ms, TOTAL, (": " + "; ".join(bad)) if bad else ""))
    tap.ok(re.search(r"^%s.*: %d of %d samples, %s%% of the time$" %
                     (re.escape(name), fn_n, SAMPLES, "%.2f" % pct(fn_ms, TOTAL)), text, re.M),
           "vprof -a %s: the header names its samples and share of all" % name)


def check_sources(tap, text, asm, insns):
    """Each instruction preceded (since the one before) by its FILE:LINE and .s text."""
    lines, bad = text.splitlines(), []
    src = open(asm).read().splitlines()
    for a, _t, line in insns:
        at = [i for i, x in enumerate(lines) if re.match(r"^\s*[\d.]+\s+[\d.]+\s+\d+\s+%x:" % a, x)]
        prev = [i for i, x in enumerate(lines[:at[0]] if at else [])
                if re.match(r"^\s*[\d.]+\s+[\d.]+\s+\d+\s+[0-9a-f]+:", x)]
        above = lines[(prev[-1] + 1 if prev else 0):at[0]] if at else []
        if not any(x.strip() == "%s:%d" % (asm, line) for x in above) or \
                not any(x.strip() == src[line - 1].strip() for x in above):
            bad.append("%x (%s:%d)" % (a, os.path.basename(asm), line))
    tap.ok(not bad, "vprof -a: source lines (FILE:LINE, the .s text) above each instruction%s" %
           ((": missing for " + ", ".join(bad)) if bad else ""))


def check_annotate(tap, tmp, root, path, asm):
    rc, out, err = run([VPROF, "-r", root, "-a", "hot", path])
    tap.ok(rc == 0, "vprof -a hot (rc %d %s)" % (rc, err.strip()))
    check_hand(tap, "hot", out, HOT, HOT_COUNTS)
    check_sources(tap, out, asm["app"], HOT)
    rc, out, err = run([VPROF, "-r", root, "-a", "kwork", path])
    tap.ok(rc == 0 and "kwork [k] (/boot/kernel" in out, "vprof -a kwork: a kernel function "
           "from ROOT/boot/kernel (rc %d %s)" % (rc, err.strip()))
    check_hand(tap, "kwork [k]", out, KWORK, KWORK_COUNTS)
    rc, out, err = run([VPROF, "-r", root, "-k", os.path.join(root, "boot", "kernel"), "-a",
                        "kwork", "-m", "kernel", path])
    tap.ok(rc == 0 and annotated(out).get(KBASE + 0x100, (0, 0, 0))[2] == 12 and
           re.search(r": 20 of 20 samples, 100\.00% of the time$", out, re.M),
           "vprof -a kwork -m kernel -k KERNEL_ELF: shares of the 20 samples the filter kept")


def check_lines(tap, root, path, asm):
    rc, out, err = run([VPROF, "-r", root, "--lines", path])
    got = [(int(m.group(2)), m.group(3), m.group(4)) for m in
           (re.match(r"^\s*([\d.]+)%\s+(\d+)\s+(\S+(?: \[k\])?)\s+(\S+)$", x)
            for x in out.splitlines()) if m]
    want = [(c, "hot", "%s:%d" % (asm["app"], line), ms)
            for (_a, _t, line), (c, ms) in zip(HOT, HOT_COUNTS) if c] + \
        [(c, "kwork [k]", "%s:%d" % (asm["kernel"], line), ms)
         for (_a, _t, line), (c, ms) in zip(KWORK, KWORK_COUNTS) if c] + \
        [(5, "main", "%s:5" % asm["app"], 5)]
    want.sort(key=lambda r: (-r[3], -r[0], r[1], r[2]))
    shares_want = [pct(ms, TOTAL) for _c, _f, _w, ms in want]
    want = [w[:3] for w in want]
    tap.ok(rc == 0 and got == want, "vprof --lines: every sampled line (program and kernel) with "
           "its samples, most time first (rc %d %s)%s" % (rc, err.strip(),
                                                     "" if got == want else ": %s vs %s" %
                                                     (got, want)))
    shares = [float(m.group(1)) for m in (re.match(r"^\s*([\d.]+)%", x) for x in out.splitlines())
              if m]
    tap.ok(shares == shares_want and
           re.search(r"^samples by source line: %d total \(%% of the time\)$" % SAMPLES, out,
                     re.M),
           "vprof --lines: each line's share of all %d ms%s" %
           (TOTAL, "" if shares == shares_want else ": %s vs %s" % (shares, shares_want)))
    rc, out, err = run([VPROF, "-r", root, "--lines", "-m", "kernel", path])
    tap.ok(rc == 0 and "hot" not in out and re.search(r"^\s*60\.00%\s+12\s+kwork \[k\]", out, re.M),
           "vprof --lines -m kernel: only the kernel's lines, shares of its 20 samples")


def perf_annotate(root, data, symbol, kernel):
    args = ["-k", os.path.join(root, "boot", "kernel")] if kernel else ["--symfs", root]
    rc, out, err = run(["perf", "annotate", "--stdio", "-i", data, "-s", symbol] + args,
                       env={"HOME": os.path.dirname(data)})
    rows = {int(m.group(2), 16): float(m.group(1)) for m in
            (re.match(r"^\s+([\d.]+)\s+:\s+([0-9a-f]+):", x) for x in out.splitlines()) if m}
    return rc, rows, err


def check_perf(tap, tmp, root, path, symbol, kernel=False):
    data = os.path.join(tmp, "perf.data")
    rc0 = run([VPROF, "-r", root, "-F", "perf", "-o", data, path])[0]
    rc, got, err = perf_annotate(root, data, symbol, kernel)
    rc2, out, _e = run([VPROF, "-r", root, "-a", symbol, path])
    want = {a: r[0] for a, r in annotated(out).items()}
    bad = ["%x: perf %s, vprof %s" % (a, got.get(a), w) for a, w in sorted(want.items())
           if got.get(a) is None or abs(got[a] - w) > 0.01]
    tap.ok(rc0 == rc == rc2 == 0 and want and not bad and set(got) == set(want),
           "perf annotate --stdio -s %s: every instruction's %% as vprof -a's (%d instructions; "
           "rc %d %d %d %s)%s" % (symbol, len(want), rc0, rc, rc2, err.strip()[-200:],
                                  (": " + "; ".join(bad[:6])) if bad else ""))


CSRC = """\
int csum(int n)
{
\tint s = 0;

\tfor (int i = 0; i < n; i++)
\t\ts += i;
\treturn s;
}
"""


def c_stream(start, end):
    """Task 11 with /bin/capp (text start..end): 6 samples at csum's first
    instruction (the prologue, line 2: "{"), 4 at its last, the ret (line 8: "}")."""
    body = ex.struct.pack("<QIIIIIIQQQQ32s", ex.MAGIC, 2, 1, 1000, 1, 0, 8, ex.TSC_HZ, 0,
                          KBASE, KBASE + 0x100000, b"vernier annotate c")
    p = b"/bin/capp\0" + b"\0" * 6
    out = [ex.rec(1, 16 + len(body), 0, 0) + body, ex.task(11, "capp"),
           ex.rec(4, 48 + len(p), 0, 1) + ex.struct.pack("<QQQQ", 11, start, end, 0) + p]
    for n, pc in enumerate([start] * 6 + [end - 1] * 4):
        out.append(ex.rec(2, 48, 0, n + 2) +
                   ex.struct.pack("<QQQBBHHH", 11, 111, pc, 0, 1, 0, 0, 0))
    return b"".join(out)


def check_c(tap, tmp):
    """A tiny C file, gcc -g -O0 -c and ld: -a csum and --lines at its first and last lines."""
    croot, src = os.path.join(tmp, "croot"), os.path.join(tmp, "c.c")
    os.makedirs(os.path.join(croot, "bin"))
    with open(src, "w") as f:
        f.write(CSRC)
    binary = os.path.join(croot, "bin", "capp")
    ok = run(["gcc", "-g", "-O0", "-fno-pie", "-c", src, "-o", src + ".o"])[0] == 0 and \
        run(["ld", "-m", "elf_x86_64", "-Ttext=0x402000", "-e", "csum", "-o", binary,
             src + ".o"])[0] == 0
    _rc, nm, _e = run(["nm", "-S", binary])
    m = re.search(r"^([0-9a-f]+) ([0-9a-f]+) T csum$", nm, re.M)
    tap.ok(ok and m, "a tiny C file: gcc -g -O0 -c, ld (csum at %s)" % (m and m.group(1)))
    if not m:
        return
    start = int(m.group(1), 16)
    end = start + int(m.group(2), 16)
    path = os.path.join(tmp, "cstream")
    with open(path, "wb") as f:
        f.write(c_stream(start, end))
    rc, out, err = run([VPROF, "-r", croot, "-a", "csum", path])
    rows = annotated(out)
    first, last = rows.get(start), rows.get(max(rows) if rows else 0)
    tap.ok(rc == 0 and first and first[:3] == (60.0, 60.0, 6) and last[:3] == (40.0, 40.0, 4) and
           last[3] == "ret" and sum(r[2] for r in rows.values()) == 10 and
           re.search(r"^\s+%s:2\n(?:.*\n){0,3}?\s+\{\n\s+60\.00\s+60\.00\s+6\s+%x:\t" %
                     (re.escape(src), start), out, re.M),
           "vprof -a csum (C): 60%% at its first instruction under c.c:2 and its \"{\", 40%% at "
           "its ret (rc %d %s)" % (rc, err.strip()))
    rc, out, err = run([VPROF, "-r", croot, "--lines", path])
    got = re.findall(r"^\s*([\d.]+)%\s+(\d+)\s+(\S+)\s+(\S+)$", out, re.M)
    tap.ok(rc == 0 and got == [("60.00", "6", "csum", src + ":2"), ("40.00", "4", "csum", src + ":8")],
           "vprof --lines (C): csum's lines 2 and 8, 60%% and 40%% (%s)" % got)


def check_errors(tap, tmp, root, path):
    rc, _o, err = run([VPROF, "-r", root, "-a", "nosuch", path])
    tap.ok(rc == 1 and "nosuch: no such function" in err, "vprof -a nosuch: exit 1, a message (%s)"
           % err.strip())
    empty = os.path.join(tmp, "empty")
    os.makedirs(os.path.join(empty, "bin"))
    shutil.copy(os.path.join(root, "bin", "app"), os.path.join(empty, "bin", "app"))
    rc, _o, err = run([VPROF, "-r", empty, "-a", "kwork", path])
    tap.ok(rc == 1 and "looked for %s/boot/kernel" % empty in err,
           "vprof -a kwork, no kernel ELF: exit 1, names the path looked for (%s)" % err.strip())
    rc, out, err = run([VPROF, "-r", empty, "--lines", path])
    tap.ok(rc == 3 and "looked for %s/boot/kernel" % empty in err and
           re.search(r"^\s*8\.00%\s+12\s+0xffffffff80100100 \[k\]\s+\?\?:0$", out, re.M) and
           "hot " in out,
           "vprof --lines without the kernel ELF: its samples at ??:0, the path looked for, "
           "exit 3 (rc %d)" % rc)
    nmroot = os.path.join(tmp, "nmroot")
    os.makedirs(os.path.join(nmroot, "bin"))
    _rc, nm, _e = run(["nm", os.path.join(root, "bin", "app")])
    with open(os.path.join(nmroot, "bin", "app.nm"), "w") as f:
        f.write(nm)
    rc, _o, err = run([VPROF, "-r", nmroot, "-a", "hot", path])
    tap.ok(rc == 1 and "/bin/app: binary not found (looked for %s/bin/app)" % nmroot in err,
           "vprof -a hot, symbols from app.nm but no ELF to disassemble: exit 1, names the "
           "path looked for (%s)" % err.strip())
    nopath = {"PATH": os.path.join(tmp, "nothing")}
    rc, _o, err = run([VPROF, "-r", root, "-a", "hot", path], env=nopath)
    tap.ok(rc == 1 and "objdump not found" in err, "objdump missing: exit 1, a message (%s)" %
           err.strip())
    rc, _o, err = run([VPROF, "-r", root, "--lines", path], env=nopath)
    tap.ok(rc == 1 and "addr2line not found" in err, "addr2line missing: exit 1, a message (%s)" %
           err.strip())
    for args in (["-a"], ["-a", "hot", "--lines"], ["-a", "hot", "-F", "perf"],
                 ["--lines", "-C"], ["--lines", "-g"], ["--lines=x"]):
        rc, _o, err = run([VPROF] + args + [path])
        tap.ok(rc == 2 and "Usage: vprof" in err, "vprof %s: exit 2 with usage (rc %d)" %
               (" ".join(args), rc))
    rc, out, _e = run([VPROF, "-h"])
    tap.ok(rc == 0 and re.search(r"^\s+-a SYMBOL\s", out, re.M) and
           re.search(r"^\s+--lines\s", out, re.M), "vprof -h lists -a SYMBOL and --lines")


def main():
    tap = Tap()
    tmp = tempfile.mkdtemp(prefix="vernier-annotate-")
    try:
        root = os.path.join(tmp, "root")
        os.makedirs(os.path.join(root, "bin"))
        os.makedirs(os.path.join(root, "boot"))
        asm = {}
        asm["app"], app = assemble(tmp, "app", PROG, 0x401000, "main")
        asm["kernel"], kern = assemble(tmp, "kernel", KERNEL, KBASE, "kmain")
        tap.ok(app and kern, "the program and kernel, as -g and ld")
        shutil.copy(app, os.path.join(root, "bin", "app"))
        shutil.copy(kern, os.path.join(root, "boot", "kernel"))
        path = os.path.join(tmp, "stream")
        with open(path, "wb") as f:
            f.write(stream())
        check_annotate(tap, tmp, root, path, asm)
        check_lines(tap, root, path, asm)
        check_perf(tap, tmp, root, path, "hot")
        check_perf(tap, tmp, root, path, "kwork", kernel=True)
        xroot = os.path.join(tmp, "xroot")
        tap.ok(ex.write_root(tmp, xroot), "export.t's binaries (as, ld)")
        xpath = os.path.join(tmp, "xstream")
        with open(xpath, "wb") as f:
            f.write(ex.stream())
        check_perf(tap, tmp, xroot, xpath, "spin")
        check_perf(tap, tmp, xroot, xpath, "alpha")
        check_c(tap, tmp)
        check_errors(tap, tmp, root, path)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    tap.done()


if __name__ == "__main__":
    main()
