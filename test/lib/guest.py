"""test/lib/guest.py - a booted guest to talk to over COM1.

    g = Guest(iso)                      # QEMU with COM1 on our pipes
    g = Guest(iso, extra="-serial file:/tmp/com2")   # ... and COM2 to a file
    m = g.expect(r"^runall: \\$ cat$")   # next matching line, or None
    m = g.expect(r"# $", partial=True)  # ... or the unfinished last line
    g.send("hello\\r\\x04")              # type (a byte at a time)
    code = g.finish()                   # QEMU's exit status (None: killed)
    r = g.result()                      # a vm.Result of the whole log
    sh = Shell(g); out = sh.run("ls")   # at the shell prompt: its output
    shell_session(tap, (check, ...))    # boot, run checks, power off

QEMU runs through tools/qemu.sh like vm.boot(), in its own process group;
a thread collects its output into timestamped, cleaned lines.
"""

import atexit
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time

import boottest as bt
import vm


class Guest:
    """QEMU with COM1 on our pipes: type at it, wait for lines."""

    def __init__(self, iso, cpus=2, accel=None, firmware="bios", extra=None,
                 icount=None, alone=False):
        self.command = vm.qemu_command(iso, cpus=cpus,
                                       accel=accel or bt.accel(),
                                       firmware=firmware, extra=extra,
                                       icount=icount)
        lock = vm.host_lock(cpus, accel or bt.accel(), icount, alone)
        self.start = time.monotonic()
        self.errfile = tempfile.TemporaryFile()     # QEMU's own messages
        self.proc = vm.launch(self.command, lock, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=self.errfile)
        self.reader = vm._LineReader(self.start)
        self.cond = threading.Condition()
        self.seen = 0           # lines already matched past
        self.eof = False
        self.exit_code = None
        self.timed_out = False
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self):
        """Feed QEMU's output to the line reader until it closes."""
        fd = self.proc.stdout.fileno()
        while True:
            data = os.read(fd, 4096)
            with self.cond:
                if not data:
                    self.eof = True
                    self.cond.notify_all()
                    return
                self.reader.feed(data, time.monotonic())
                self.cond.notify_all()

    def lines(self):
        """The complete lines so far."""
        with self.cond:
            return [line for _, line in self.reader.events]

    def expect(self, regex, timeout=60, partial=False):
        """The first line after the last match that matches regex (its
        match object), or None at the timeout or when QEMU is gone. With
        partial, the unfinished last line (a prompt) counts too, without
        moving past it."""
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
                if left <= 0 or self.eof:
                    self.timed_out |= left <= 0
                    return None
                self.cond.wait(left)

    def send(self, text, gap=0.01):
        """Type text, a byte at a time; False if QEMU is gone."""
        try:
            for b in text.encode("latin-1"):
                self.proc.stdin.write(bytes([b]))
                self.proc.stdin.flush()
                time.sleep(gap)
        except (BrokenPipeError, ValueError):
            return False
        return True

    def finish(self, timeout=60):
        """Wait for QEMU to exit (killing it after timeout s); its exit
        status, or None if it had to be killed."""
        try:
            self.exit_code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            vm._kill_group(self.proc)
            self.timed_out = True
        with self.cond:
            self.cond.wait_for(lambda: self.eof, timeout=5)
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()
            except OSError:
                pass
        return self.exit_code

    def qemu_errors(self):
        """What QEMU itself printed on stderr (an abort's reason), less
        the distribution's module warnings an unpacked QEMU 10 prints."""
        self.errfile.seek(0)
        text = self.errfile.read().decode("utf-8", "replace")
        return [l for l in text.splitlines() if l and
                "failed to initialize module" not in l and
                "Only modules from the same build" not in l]

    def result(self):
        """The log so far as a vm.Result (after finish(): the whole run)."""
        with self.cond:
            return vm.Result(self.reader.events, exit_code=self.exit_code,
                             timed_out=self.timed_out,
                             elapsed=time.monotonic() - self.start,
                             command=self.command,
                             partial=self.reader.partial())


PROMPT = r"^(/[^ ]*) # $"   # the shell's prompt: the working directory
PROMPT_START = r"^/[^ ]* # "  # a line that starts with it (output followed)


class Shell:
    """A Guest at the shell prompt: run() types a line and returns the
    lines it printed up to the next prompt; status() is `echo $?`."""

    def __init__(self, guest):
        self.g = guest

    def prompt(self, timeout=60):
        """The prompt (partial last line) once it is there, or None."""
        return self.g.expect(PROMPT, timeout=timeout, partial=True)

    def run(self, line, timeout=60):
        """Type line + Enter; its output lines (None if no prompt came).
        The next prompt may be the unfinished last line, or a line of its
        own when a background job wrote after it ("/ # cpdemo: ..."): a
        prompt has no newline, so such a line used to hide it, and a test
        waited for a prompt that had come (cprof.t, groundtruth.t in
        clean-clone runs). The typed line's echo then comes alone."""
        self.g.seen = len(self.g.lines())   # what came before is not ours
        self.g.send(line + "\r", gap=0.005)
        # The echo: after the prompt, or alone when a background job's line
        # already followed the prompt.
        echo = PROMPT_START + "|^" + re.escape(line) + "$"
        if not self.g.expect(echo, timeout=timeout):
            return None                     # the typed line never came back
        first = self.g.seen
        if not self.g.expect(PROMPT_START, timeout=timeout, partial=True):
            return None
        end = self.g.seen - 1 if self.g.seen > first else len(self.g.lines())
        return self.g.lines()[first:end]

    def status(self):
        """$? of the last command, or None."""
        out = self.run("echo $?")
        return int(out[-1]) if out and out[-1].isdigit() else None


_NOMENU = {}


def nomenu_iso():
    """The built kernel and initrd on an ISO whose command line is "--"
    (init then starts the shell, as with none), made once a run: GRUB
    boots it at once, without the default ISO's 1-second menu, whose
    countdown under a fixed -icount shift is GRUB executing for a second
    of instruction time (51 s of a shift=0 boot's 56 s to the kernel)."""
    if "iso" not in _NOMENU:
        tmp = tempfile.mkdtemp(prefix="vernier-nomenu.")
        atexit.register(shutil.rmtree, tmp, True)
        _NOMENU["iso"] = make_iso(tmp, "shell", "--")
    return _NOMENU["iso"]


def fixed_shift(icount):
    """Whether icount (a qemu_command value) is a fixed -icount shift."""
    return icount is not None and str(icount) not in ("auto", "off")


def _killed_from_outside(tap, g):
    """Whether QEMU, gone before the prompt, was ended by a signal from
    another process (the guest had no part in it: once in a clean-clone
    run icount.t's QEMU closed its output 5.8 s into a boot that had
    printed nothing wrong). Says so; the caller boots once more. A QEMU
    that aborted or exited by itself is the guest's failure: not retried."""
    if not g.eof:
        return False
    g.finish(timeout=10)
    errors = g.qemu_errors()
    killed = any("terminating on signal" in l for l in errors)
    if killed:
        tap.diag("QEMU was ended from outside before the prompt (%s, %d "
                 "lines); booting again" % ("; ".join(errors), len(g.lines())))
    return killed


def shell_session(tap, checks, cpus=2, boot_wait=120, extra=None, iso=None,
                  icount=None, alone=False):
    """Boot the default ISO (or iso) to the shell prompt with cpus CPUs
    (and extra QEMU arguments, e.g. "-serial file:PATH" for COM2), run
    check(tap, sh) for each of checks, power off: TAP results for reaching
    the prompt, the power-off ending QEMU and no panic in the log; the
    time to the prompt as a diagnostic. alone: the host to itself (a
    measurement, see vm.host_lock). Under a fixed -icount shift the
    default ISO is nomenu_iso()'s."""
    if iso is None and fixed_shift(icount):
        iso = nomenu_iso()
    g = Guest(iso or bt.ISO, cpus=cpus, extra=extra, icount=icount, alone=alone)
    sh = Shell(g)
    if not sh.prompt(timeout=boot_wait) and _killed_from_outside(tap, g):
        g = Guest(iso or bt.ISO, cpus=cpus, extra=extra, icount=icount,
                  alone=alone)
        sh = Shell(g)
    if tap.ok(sh.prompt(timeout=boot_wait), "boot reaches the prompt"):
        tap.diag(bt.boot_diag(g.lines(), time.monotonic() - g.start))
        for check in checks:
            check(tap, sh)
    else:
        tap.diag("no prompt after %.1f s (QEMU %s), %d lines; the last 30:"
                 % (time.monotonic() - g.start,
                    "running" if g.proc.poll() is None else
                    "exited %s" % g.proc.returncode, len(g.lines())))
        for line in g.lines()[-30:]:
            tap.diag("  | " + line)
        for line in g.qemu_errors():
            tap.diag("  QEMU: " + line)
    g.send("poweroff\r")
    tap.ok(g.finish(timeout=60) == 0, "poweroff ends QEMU")
    tap.ok(not [l for l in g.lines() if l.startswith("panic")], "no panic")


def sysinfo(sh, node):
    """{field: value} of `sysinfo NODE`."""
    fields = {}
    for line in sh.run("sysinfo " + node) or []:
        fields.update(re.findall(r"(\w+)=(\S+)", line))
    return fields


def make_iso(tmp, name, cmdline):
    """An ISO of the built kernel and initrd with cmdline, in tmp."""
    path = os.path.join(tmp, name + ".iso")
    subprocess.run([os.path.join(bt.TOP, "tools", "mkiso.sh"), "--initrd",
                    os.path.join(bt.BUILD, "initrd.tar"), path,
                    os.path.join(bt.BUILD, "kernel.elf"), cmdline],
                   check=True)
    return path
