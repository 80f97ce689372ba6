#!/usr/bin/env python3
"""test/hotspot.t - vprof -F perf's perf.data opened by hotspot, the GUI.

The synthetic stream of test/export.t (12,000 samples of known stacks,
ELF binaries made by as/ld under ROOT) is exported with `vprof -F perf`
and opened by Debian's hotspot (1.3.0, from tools/setup.sh) as a person
would: `hotspot --sysroot ROOT --kallsyms KALLSYMS perf.data` in a real
window on an Xvfb of its own (a free display from -displayfd, 1280x800,
no cursor, no TCP). Xvfb's -fbdir keeps the screen in an XWD file; the
test reads it (a small XWD parser below), writes it as PNG and reads the
text on it with tesseract (OCR), every half second until hotspot shows
its Summary page or its error message (45 s at most).

What is checked, on the words of the screen:
- the Summary's "Total Samples: 12000": hotspot read every sample;
- the "Top Hotspots" table: its first row is `spin  workload  54.2%`,
  the top function, and each row (symbol, binary, share) is the next of
  the stream's self shares, in order and within 0.05 point (hotspot
  shows three digits), memcpy as the kernel's (from KALLSYMS, the
  kernel ELF's nm);
- no error message.
Can it fail? The same check runs on a corrupted copy (the data section
zeroed; header, attrs and features intact): hotspot then shows "The
hotspot-perfparser binary exited with code 5 (invalid perf data file)"
and no table, and the test asserts that the check finds no rows there
and the message is read. The screenshot of the good file, cropped to
hotspot's window, is kept in $BUILD/test-logs/hotspot.png (that of the
corrupted one in hotspot-corrupt.png); docs/hotspot.png is a copy.

Missing hotspot, Xvfb or tesseract is a failure, not a skip. hotspot (its
process group: hotspot-perfparser too) and Xvfb are killed at the end of
each run. TAP on stdout, for prove.
"""

import importlib.machinery
import os
import re
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "lib"))
import boottest as bt  # noqa: E402
import ocr  # noqa: E402
from tap import Tap  # noqa: E402

ex = importlib.machinery.SourceFileLoader("export_t", os.path.join(HERE, "export.t")).load_module()

VPROF = os.path.join(bt.BUILD, "host", "vprof")
LOGS = os.path.join(bt.BUILD, "test-logs")
TOOLS = {"hotspot": "hotspot", "Xvfb": "xvfb", "tesseract": "tesseract-ocr"}
WAIT = 45.0          # s for hotspot to show the profile or its error (a loaded host)
ERROR = "invalid perf data file"

# ---------------------------------------------------------------- the screen


def xwd_rgb(data):
    """(width, height, rows of RGB bytes) of an XWD dump (X11 XWD version 7,
    ZPixmap, 32 bits a pixel with masks ff0000/ff00/ff: what Xvfb -fbdir
    writes for a 24-bit screen); None if it is not that."""
    if len(data) < 100:
        return None
    h = struct.unpack(">25I", data[:100])
    hsize, version, fmt, _depth, w, ht = h[:6]
    byte_order, bpp, bpl, masks, ncolors = h[7], h[11], h[12], h[14:17], h[19]
    if version != 7 or fmt != 2 or bpp != 32 or masks != (0xff0000, 0xff00, 0xff):
        return None
    at = hsize + 12 * ncolors
    if len(data) < at + bpl * ht:
        return None
    r, g, b = (2, 1, 0) if byte_order == 0 else (1, 2, 3)
    rows = []
    for y in range(ht):
        line = data[at + y * bpl:at + y * bpl + 4 * w]
        rgb = bytearray(3 * w)
        rgb[0::3], rgb[1::3], rgb[2::3] = line[r::4], line[g::4], line[b::4]
        rows.append(bytes(rgb))
    return w, ht, rows


def crop(w, h, rows):
    """The smallest box holding every pixel that is not black (the root window,
    Xvfb's default): hotspot's window, at 0,0 with no window manager."""
    ys = [y for y in range(h) if rows[y].strip(b"\0")]
    if not ys:
        return w, h, rows
    left = min(len(rows[y]) - len(rows[y].lstrip(b"\0")) for y in ys) // 3
    right = max(len(rows[y].rstrip(b"\0")) for y in ys)
    right = (right + 2) // 3
    rows = [r[3 * left:3 * right] for r in rows[ys[0]:ys[-1] + 1]]
    return right - left, len(rows), rows


def write_png(path, w, h, rows):
    def chunk(kind, body):
        return (struct.pack(">I", len(body)) + kind + body +
                struct.pack(">I", zlib.crc32(kind + body)))
    raw = b"".join(b"\0" + r for r in rows)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" +
                chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) +
                chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def screenshot(fbfile, png):
    """The screen as a PNG cropped to the window; False if unreadable."""
    try:
        with open(fbfile, "rb") as f:
            shot = xwd_rgb(f.read())
    except OSError:
        return False
    if not shot:
        return False
    write_png(png, *crop(*shot))
    return True


def hotspots(text):
    """The Top Hotspots rows read on the screen: [(symbol, binary, pct)], the
    binary '' when hotspot leaves it empty (a kernel symbol)."""
    rows, lines = [], text.splitlines()
    for i, line in enumerate(lines):
        if re.search(r"symbol\s+binary\s+cpu-clock", line, re.I):
            for row in lines[i + 1:]:
                m = re.match(r"^\s*(\S+)\s+(?:(\S+)\s+)?([\d.]+)%\s*$", row)
                if not m:
                    break
                rows.append((m.group(1), m.group(2) or "", float(m.group(3))))
            break
    return rows


def settled(text):
    return bool(hotspots(text)) or ERROR in text


# ---------------------------------------------------------------- running


class Xvfb:
    """An Xvfb on a free display (-displayfd) whose screen is the XWD file
    self.fb (-fbdir); killed on exit."""

    def __init__(self, tmp):
        self.dir = tempfile.mkdtemp(prefix="fb-", dir=tmp)
        self.fb = os.path.join(self.dir, "Xvfb_screen0")
        self.proc, self.display = None, None

    def __enter__(self):
        r, w = os.pipe()
        try:
            self.proc = subprocess.Popen(
                ["Xvfb", "-displayfd", str(w), "-screen", "0", "1280x800x24", "-fbdir",
                 self.dir, "-nolisten", "tcp", "-nocursor"], pass_fds=(w,),
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        finally:
            os.close(w)
        got = b""
        deadline = time.time() + 10
        while b"\n" not in got and time.time() < deadline:
            ready, _w, _x = select.select([r], [], [], max(0, deadline - time.time()))
            if not ready:
                break
            part = os.read(r, 64)
            if not part:
                break
            got += part
        os.close(r)
        if got.strip().isdigit():
            self.display = ":" + got.decode().strip()
        return self

    def __exit__(self, *_exc):
        if self.proc:
            self.proc.terminate()           # SIGTERM: it removes its lock and socket
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)


def kill_group(proc):
    """hotspot and its children (hotspot-perfparser): their process group."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass
    proc.wait(timeout=10)


def open_in_hotspot(tmp, root, kallsyms, data, png):
    """Run hotspot on data under a new Xvfb until the screen settles (the table
    or the error, read by OCR) or WAIT passes. (text, seconds, display, rc of
    hotspot if it exited, its log); the last screenshot in png."""
    home = tempfile.mkdtemp(prefix="home-", dir=tmp)
    runtime = os.path.join(home, "run")
    os.mkdir(runtime, 0o700)
    log = os.path.join(home, "hotspot.log")
    text, t0, rc = "", time.time(), None
    with Xvfb(tmp) as x:
        if not x.display:
            return "", 0.0, None, None, "Xvfb gave no display"
        env = dict(os.environ, DISPLAY=x.display, HOME=home, XDG_RUNTIME_DIR=runtime,
                   XDG_CONFIG_HOME=os.path.join(home, ".config"),
                   XDG_CACHE_HOME=os.path.join(home, ".cache"), QT_QPA_PLATFORM="xcb")
        with open(log, "w") as out:
            proc = subprocess.Popen(["hotspot", "--sysroot", root, "--kallsyms", kallsyms, data],
                                    env=env, stdin=subprocess.DEVNULL, stdout=out,
                                    stderr=subprocess.STDOUT, start_new_session=True)
        try:
            while time.time() - t0 < WAIT:
                time.sleep(0.5)
                rc = proc.poll()
                if screenshot(x.fb, png):
                    text = ocr.read(png, timeout=30)
                    if settled(text):
                        break
                if rc is not None:
                    break
        finally:
            kill_group(proc)
        secs = time.time() - t0
    with open(log, errors="replace") as f:
        lines = [ln for ln in f.read().splitlines() if not ln.startswith("kf.i18n")]
    return text, secs, x.display, rc, "\n".join(lines[-8:])


def check_tools(tap):
    missing = ["%s (%s)" % (t, p) for t, p in TOOLS.items() if not shutil.which(t)]
    tap.ok(not missing, "hotspot, Xvfb and tesseract are installed (tools/setup.sh)%s" %
           (": missing " + ", ".join(missing) if missing else ""))
    return not missing


def want_rows():
    """The stream's functions by self share, largest first: [(symbol, binary, pct)]."""
    self_, _incl = ex.expected()
    total = sum(self_.values())
    order = sorted(self_.items(), key=lambda kv: (-kv[1], kv[0]))
    return [(k[:-4] if k.endswith(" [k]") else k,
             "" if k.endswith(" [k]") else ("sh" if k.startswith("sh_") else "workload"),
             100.0 * n / total) for k, n in order]


def same_rows(got, want):
    return len(got) >= 3 and all(
        g[0] == w[0] and g[1] == w[1] and abs(g[2] - w[2]) <= 0.05
        for g, w in zip(got, want))


def main():
    tap = Tap()
    if not check_tools(tap):
        tap.done()
    tmp = tempfile.mkdtemp(prefix="vernier-hotspot-")
    os.makedirs(LOGS, exist_ok=True)
    try:
        root = os.path.join(tmp, "root")
        tap.ok(ex.write_root(tmp, root), "ELF binaries for the stream (as, ld)")
        kallsyms = os.path.join(tmp, "kallsyms")
        with open(kallsyms, "w") as f:
            p = subprocess.run(["nm", os.path.join(root, "boot", "kernel")], stdout=f)
        tap.ok(p.returncode == 0 and os.path.getsize(kallsyms) > 0,
               "KALLSYMS: nm ROOT/boot/kernel")
        with open(os.path.join(tmp, "stream.vprof"), "wb") as f:
            f.write(ex.stream())
        p = subprocess.run([VPROF, "-r", root, "-F", "perf", "-o", "perf.data", "stream.vprof"],
                           cwd=tmp, capture_output=True, text=True, timeout=60)
        data = os.path.join(tmp, "perf.data")
        tap.ok(p.returncode == 0 and os.path.getsize(data) > 0,
               "vprof -F perf -o perf.data stream.vprof (rc %d %s)" % (p.returncode,
                                                                       p.stderr.strip()))
        bad = os.path.join(tmp, "corrupt.data")
        raw = bytearray(open(data, "rb").read())
        at, size = struct.unpack_from("<QQ", raw, 40)        # the data section
        raw[at:at + size] = bytes(size)
        with open(bad, "wb") as f:
            f.write(raw)

        png = os.path.join(LOGS, "hotspot.png")
        text, secs, disp, rc, log = open_in_hotspot(tmp, root, kallsyms, data, png)
        got, want = hotspots(text), want_rows()
        tap.ok(text, "hotspot's window under Xvfb %s, screenshot read by OCR (%.1f s)" %
               (disp, secs))
        tap.ok(rc is None, "hotspot still running when the profile showed (rc %s)" % rc)
        tap.ok(re.search(r"Total Samples:\s*12000\b", text),
               "hotspot's Summary: Total Samples: 12000 (every sample read)")
        tap.ok(got[:1] == [("spin", "workload", 54.2)],
               "Top Hotspots: the first row is spin, workload, 54.2%% (got %s)" % got[:1])
        tap.ok(same_rows(got, want),
               "Top Hotspots: each row the next function of the stream's self shares, "
               "within 0.05 point (%d rows: %s)" % (len(got), got))
        tap.ok(ERROR not in text, "no error message on the screen")
        if not got:
            tap.diag("screen text:\n" + text + "\nhotspot's log:\n" + log)

        bpng = os.path.join(LOGS, "hotspot-corrupt.png")
        btext, bsecs, _d, _rc, blog = open_in_hotspot(tmp, root, kallsyms, bad, bpng)
        tap.ok(not hotspots(btext) and not re.search(r"Total Samples:\s*12000\b", btext),
               "corrupted perf.data (data section zeroed): the same check finds no table "
               "(%.1f s)" % bsecs)
        tap.ok(ERROR in btext and "exited with code" in btext,
               "corrupted perf.data: hotspot's error read on the screen (%r)" %
               next((ln for ln in btext.splitlines() if ERROR in ln), btext[-120:]))
        if ERROR not in btext:
            tap.diag("screen text:\n" + btext + "\nhotspot's log:\n" + blog)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    tap.done()


if __name__ == "__main__":
    main()
