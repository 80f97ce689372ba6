#!/usr/bin/env python3
"""tools/profile_guest.py - the guest half of tools/profile-vm.sh.

    profile_guest.py --iso ISO --cpus N --icount auto|off|N --com2 FILE
                     --log FILE --secs S [--task] [--args "ARGS"] CMD

Boots ISO in QEMU (tools/qemu.sh, through test/lib/guest.py) with COM2
going to FILE, waits for the shell prompt and types:
  system (default):  CMD & sprofile -d S -o com2 ARGS
  --task:            profile -o com2 ARGS CMD
then `poweroff`, and waits for QEMU to end. While the guest runs, a
progress line on stderr says what it does, the seconds and the bytes on
COM2 so far ("\\r"-rewritten on a terminal, a line every 5 s otherwise).
The console (COM1) goes to --log. Exit status 0, or 1 with a message
(no prompt, the profiler failing, QEMU not ending).
"""

import argparse
import os
import sys
import threading
import time

sys.dont_write_bytecode = True
TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(TOP, "test", "lib"))

from guest import Guest, Shell  # noqa: E402

BOOT_WAIT = 240
PROG = "profile-vm"


class Progress:
    """A status line on stderr, refreshed by a thread until stop()."""

    def __init__(self, com2):
        self.com2 = com2
        self.what = "booting"
        self.start = time.monotonic()
        self.tty = sys.stderr.isatty()
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def line(self):
        size = os.path.getsize(self.com2) if os.path.exists(self.com2) else 0
        return "%s: %s, %3.0f s, COM2 %d KiB" % (
            PROG, self.what, time.monotonic() - self.start, size // 1024)

    def _run(self):
        last = 0.0
        while not self.done.wait(1.0):
            if self.tty:
                sys.stderr.write("\r\x1b[K" + self.line())
                sys.stderr.flush()
            elif time.monotonic() - last >= 5:
                sys.stderr.write(self.line() + "\n")
                last = time.monotonic()

    def set(self, what):
        """A new stage: on a terminal the line shows it at the next refresh;
        in a log (not a terminal) it gets a line of its own at once, so a
        stage shorter than the 5 s refresh is still named."""
        self.what = what
        if not self.tty:
            sys.stderr.write(self.line() + "\n")

    def stop(self):
        self.done.set()
        self.thread.join()
        if self.tty:
            sys.stderr.write("\r\x1b[K")
        sys.stderr.write(self.line() + "\n")


def fail(msg, g=None):
    sys.stderr.write("%s: %s\n" % (PROG, msg))
    if g:
        for line in g.lines()[-15:]:
            sys.stderr.write("  | %s\n" % line)
    return 1


def profile(sh, args, progress, timeout):
    """Type the profiling lines; the profiler's output, or None."""
    extra = (" " + args.args) if args.args else ""
    if args.task:
        progress.set("profiling task of: " + args.cmd)
        return sh.run("profile -o com2%s %s" % (extra, args.cmd), timeout=timeout)
    progress.set("profiling the system for %s s" % args.secs)
    return sh.run("%s & sprofile -d %s -o com2%s" % (args.cmd, args.secs, extra),
                  timeout=timeout)


def main():
    ap = argparse.ArgumentParser(prog="profile_guest.py")
    ap.add_argument("--iso", required=True)
    ap.add_argument("--cpus", type=int, default=2)
    ap.add_argument("--icount", default="auto")
    ap.add_argument("--com2", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--secs", default="5")
    ap.add_argument("--task", action="store_true")
    ap.add_argument("--args", default="")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("cmd")
    args = ap.parse_args()

    progress = Progress(args.com2)
    g = Guest(args.iso, cpus=args.cpus, extra="-serial file:" + args.com2,
              icount=None if args.icount == "off" else args.icount)
    sh = Shell(g)
    rc = 0
    try:
        if not sh.prompt(timeout=BOOT_WAIT):
            rc = fail("the guest did not reach the shell prompt in %d s" % BOOT_WAIT, g)
        else:
            out = profile(sh, args, progress, args.timeout)
            status = sh.status() if out is not None else None
            if out is None or status != 0:
                rc = fail("the profiler did not finish well (status %s)" % status, g)
        progress.set("powering off")
        g.send("poweroff\r")
        if g.finish(timeout=60) != 0 and rc == 0:
            rc = fail("QEMU did not end with the guest's power-off", g)
    finally:
        if g.proc.poll() is None:
            g.finish(timeout=1)
        progress.stop()
        with open(args.log, "w") as f:
            f.write("\n".join(g.lines()) + "\n")
    return rc


if __name__ == "__main__":
    sys.exit(main())
