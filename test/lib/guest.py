"""test/lib/guest.py - a QEMU guest driven over COM1 from the host.

Guest(iso) boots with COM1 on pipes both ways; send() types bytes at it
and expect() waits for a line (or the partial last line, e.g. a prompt)
matching a regex. Used by test/console.t and test/shell.t.
"""

import os
import re
import subprocess
import threading
import time

import boottest as bt
import vm

STEP = 60           # seconds to wait for each expected line (TCG)


class Guest:
    """QEMU with COM1 on our pipes: send bytes, wait for lines."""

    def __init__(self, iso, cpus=2, firmware="bios"):
        cmd = vm.qemu_command(iso, cpus=cpus, firmware=firmware,
                              accel=bt.accel())
        self.start = time.monotonic()
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL,
                                     start_new_session=True)
        self.reader = vm._LineReader(self.start)
        self.cond = threading.Condition()
        self.seen = 0          # lines already matched past
        self.raw = b""
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self):
        fd = self.proc.stdout.fileno()
        while True:
            data = os.read(fd, 4096)
            with self.cond:
                if not data:
                    self.reader.feed(b"\n", time.monotonic())
                    self.eof = True
                    self.cond.notify_all()
                    return
                self.raw += data
                self.reader.feed(data, time.monotonic())
                self.cond.notify_all()

    def lines(self):
        with self.cond:
            return [l for _, l in self.reader.events]

    def expect(self, regex, timeout=STEP, partial=False):
        """The first line (after the last match) matching regex, or None."""
        pat = re.compile(regex)
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                events = self.reader.events
                for i in range(self.seen, len(events)):
                    m = pat.search(events[i][1])
                    if m:
                        self.seen = i + 1
                        return m
                if partial:
                    m = pat.search(self.reader.partial())
                    if m:
                        return m
                left = deadline - time.monotonic()
                if left <= 0 or getattr(self, "eof", False):
                    return None
                self.cond.wait(left)

    def send(self, data, gap=0.02):
        """Type data, a byte at a time."""
        for b in data.encode("latin-1"):
            self.proc.stdin.write(bytes([b]))
            self.proc.stdin.flush()
            time.sleep(gap)

    def finish(self, timeout=60):
        """Wait for QEMU to exit; its exit code (None: killed)."""
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            vm._kill_group(self.proc)
            return None


def make_iso(tmp, name, cmdline):
    """An ISO of the built kernel and initrd with cmdline, in tmp."""
    path = os.path.join(tmp, name + ".iso")
    subprocess.run([os.path.join(bt.TOP, "tools", "mkiso.sh"), "--initrd",
                    os.path.join(bt.BUILD, "initrd.tar"), path,
                    os.path.join(bt.BUILD, "kernel.elf"), cmdline],
                   check=True)
    return path
