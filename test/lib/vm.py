"""test/lib/vm.py - boot a Vernier ISO in QEMU and capture its serial log.

    from vm import boot
    r = boot("build/vernier.iso", cpus=2, firmware="bios",
             until=r"smp: \\d+ CPUs online", linger=1.0)
    r.log, r.lines         # serial output, escape sequences and \\r removed
    r.exit_code            # QEMU's exit status (isa-debug-exit value v
                           # gives (v << 1) | 1); None if the harness
                           # stopped QEMU (timeout or `until` matched)
    r.timed_out, r.matched, r.elapsed
    r.hv_error             # "KVM internal error ..." when the hypervisor
                           # stopped the guest (QEMU then pauses instead
                           # of exiting: the harness stops it), else None
    r.time_to(r"smp: ")    # host seconds from QEMU start to the first
                           # line matching (None if none)

QEMU runs through tools/qemu.sh (non-interactive: COM1 on its stdout), in
its own process group, which is killed on timeout or `linger` seconds after
a line matched `until`.
"""

import fcntl
import os
import re
import select
import signal
import subprocess
import sys
import time

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    "..", ".."))
QEMU_SH = os.path.join(TOP, "tools", "qemu.sh")

# Escape sequences a firmware or GRUB writes to a serial terminal: CSI
# (ESC [ ... final), OSC (ESC ] ... BEL/ST), charset selection (ESC ( B) and
# the other two-byte ones (ESC c, ESC 7, ...).
_ESCAPE_RE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"            # CSI
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC
    r"|\x1b[()*+][0-9A-Za-z]"            # charset designation
    r"|\x1b[ -/]*[0-~]"                  # other ESC sequences
    r"|\x9b[0-?]*[ -/]*[@-~]")         # 8-bit CSI
# Other control characters (not \n or \t) that would only garble lines.
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def strip_escapes(text):
    """Remove terminal escape sequences, \\r and other control characters."""
    text = _ESCAPE_RE.sub("", text)
    return _CONTROL_RE.sub("", text)


# Erase to the end of the line (ESC [ K, ESC [ 0 K) or all of it (2 K).
_ERASE_RE = re.compile(r"\x1b\[[02]?K")


def screen_line(raw):
    """The clean text a terminal would show for one line of raw output:
    each \\r returns to column 0 and what follows overwrites what was
    there; an erase-line right after it (a status line cleared with
    "\\r ESC[K") drops the rest."""
    segments = raw.split("\r")
    line = strip_escapes(segments[0])
    for seg in segments[1:]:
        text = strip_escapes(seg)
        if _ERASE_RE.match(seg):
            line = ""
        line = text + line[len(text):]
    return line


class Result:
    """What one boot printed and how it ended.

    events: list of (seconds since QEMU start, line) in arrival order,
    complete lines only; partial: what followed the last newline.
    """

    def __init__(self, events=(), exit_code=None, timed_out=False,
                 matched=False, elapsed=0.0, stderr="", command=None,
                 partial="", hv_error=None):
        self.events = list(events)
        self.partial = partial
        self.exit_code = exit_code
        self.timed_out = timed_out
        self.matched = matched
        self.elapsed = elapsed
        self.stderr = stderr
        self.command = command
        self.hv_error = hv_error

    @classmethod
    def from_text(cls, text, step=0.0, **kwargs):
        """A Result from canned raw output; line i arrives at i * step s."""
        reader = _LineReader(0.0)
        *lines, rest = text.encode().split(b"\n")
        for i, raw in enumerate(lines):
            reader.feed(raw + b"\n", i * step)
        reader.feed(rest, len(lines) * step)
        return cls(reader.events, partial=reader.partial(), **kwargs)

    @property
    def lines(self):
        """The serial log as a list of complete lines (see .partial)."""
        return [line for _, line in self.events]

    @property
    def log(self):
        """The serial log as text, with any unterminated last line."""
        return "".join(line + "\n" for line in self.lines) + self.partial

    def time_to(self, regex):
        """Seconds from QEMU start to the first line matching regex."""
        pat = re.compile(regex)
        for t, line in self.events:
            if pat.search(line):
                return t
        return None

    def grep(self, regex):
        """All lines matching regex."""
        pat = re.compile(regex)
        return [line for line in self.lines if pat.search(line)]

    def tail(self, n=40):
        """The last n lines as text."""
        return "\n".join(self.lines[-n:])

    def summary(self):
        """One line: how the boot ended."""
        how = ("timed out" if self.timed_out else
               "stopped after match" if self.matched and self.exit_code is None
               else "stopped on \"%s\"" % self.hv_error if self.hv_error
               else "exit code %s" % self.exit_code)
        return "%s after %.1f s, %d lines" % (how, self.elapsed,
                                              len(self.events))


# QEMU's words when KVM cannot go on with the guest (e.g. an instruction
# its emulator does not know): the guest is paused, QEMU keeps running.
KVM_ERROR = b"KVM internal error"


def hv_error_text(stderr):
    """The KVM internal error QEMU reported on stderr, in one line
    ("KVM internal error. Suberror: 1 (emulation failure)"), or None."""
    at = stderr.find(KVM_ERROR)
    if at < 0:
        return None
    text = stderr[at:].decode("utf-8", "replace")
    first = text.splitlines()[0].strip()
    return first + (" (emulation failure)" if "emulation failure" in text
                    else "")


class _LineReader:
    """Collects bytes into clean, timestamped lines."""

    def __init__(self, start):
        self.start = start
        self.buf = b""
        self.events = []

    def feed(self, data, now):
        """Add bytes; returns the new complete lines."""
        self.buf += data
        new = []
        while b"\n" in self.buf:
            raw, self.buf = self.buf.split(b"\n", 1)
            line = screen_line(raw.decode("utf-8", "replace"))
            self.events.append((now - self.start, line))
            new.append(line)
        return new

    def partial(self):
        """The unterminated rest of the output (clean text)."""
        return screen_line(self.buf.decode("utf-8", "replace"))


def _kill_group(proc):
    """Stop QEMU (and tools/qemu.sh, if it has not exec'd yet)."""
    for sig, wait in ((signal.SIGTERM, 3), (signal.SIGKILL, 5)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            pass


def qemu_version(pick=None):
    """(major, minor) of the QEMU tools/qemu.sh runs (pick: system, 10 or a
    path; None: $VERNIER_QEMU's), or None if it cannot say."""
    cmd = [QEMU_SH, "--version"] + (["--qemu", pick] if pick else [])
    p = subprocess.run(cmd, capture_output=True, text=True)
    m = re.search(r"version (\d+)\.(\d+)", p.stdout)
    return (int(m.group(1)), int(m.group(2))) if m else None


def qemu_command(iso, cpus=2, mem=256, firmware="bios", accel="tcg",
                 cpu=None, extra=None, icount=None):
    """The tools/qemu.sh command line for these settings (icount: "auto",
    a shift 0..9 or None/"off", see tools/qemu.sh --icount)."""
    cmd = [QEMU_SH, "--iso", iso, "--cpus", str(cpus), "--mem", str(mem),
           "--accel", accel, "--firmware", firmware]
    if cpu:
        cmd += ["--cpu", cpu]
    if icount is not None:
        cmd += ["--icount", str(icount)]
    if extra:
        cmd += ["--extra", extra]
    return cmd


def _flock_wait(fd, mode, limit=3600.0):
    """flock fd in mode, waiting up to limit s (then going on without it:
    a test holding a guest while it boots a second would wait forever)."""
    deadline = time.monotonic() + limit
    while True:
        try:
            fcntl.flock(fd, mode | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                sys.stderr.write("vm: no host lock after %.0f s, going on\n" % limit)
                return
            time.sleep(0.1)


def host_lock(cpus, accel="tcg", icount=None, alone=False, core=False):
    """With VERNIER_HOST_LOCK set (tools/check.sh): wait for the host lock
    tools/qemu.sh would take and return its fds (a list; empty without
    VERNIER_HOST_LOCK). Exclusive if the guest has more vCPU threads than
    twice the host's cores (one thread under -icount), or if alone: a
    measurement that wants the host to itself; shared otherwise, behind
    the turnstile. A guest with more threads than cores also holds
    FILE.wide shared; core=True (one thread that must keep a whole core:
    Bochs) holds it exclusively, so it runs beside narrow guests but never
    beside wide ones (beside a 4-CPU guest's vCPU threads Bochs got a sixth
    of the host). Taken here, before a boot's clock starts, so waiting is
    not counted against its timeout."""
    path = os.environ.get("VERNIER_HOST_LOCK")
    if not path:
        return []
    threads = 1 if icount not in (None, "off") and accel == "tcg" else cpus
    cores = len(os.sched_getaffinity(0))
    mode = fcntl.LOCK_EX if threads > 2 * cores or alone else fcntl.LOCK_SH
    wide = None
    if mode == fcntl.LOCK_SH and (core or threads > cores):
        wide = fcntl.LOCK_EX if core else fcntl.LOCK_SH
    turn = os.open(path + ".turnstile", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        _flock_wait(turn, fcntl.LOCK_EX)
        fds = [_lock_open(path, mode)]
        if wide == fcntl.LOCK_EX:           # Bochs: no new wide guest meanwhile
            fds.append(_lock_open(path + ".wide", wide))
    finally:
        os.close(turn)
    if wide == fcntl.LOCK_SH:               # others may pass while Bochs runs
        fds.append(_lock_open(path + ".wide", wide))
    return fds


def _lock_open(path, mode):
    """path opened (made if missing) and flocked in mode: the fd."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    _flock_wait(fd, mode)
    return fd


def release(lock):
    """Drop the host lock fds host_lock returned."""
    for fd in lock:
        os.close(fd)


def launch(cmd, lock, **kwargs):
    """Popen cmd in its own session holding the host lock fds (released
    when QEMU exits); qemu.sh then takes no lock of its own."""
    env = {k: v for k, v in os.environ.items() if k != "VERNIER_HOST_LOCK"}
    try:
        return subprocess.Popen(cmd, env=env, start_new_session=True,
                                pass_fds=tuple(lock), **kwargs)
    finally:
        release(lock)


def boot(iso, cpus=2, mem=256, firmware="bios", accel="tcg", timeout=120,
         until=None, cpu=None, linger=0.0, extra=None, on_line=None,
         icount=None, alone=False):
    """Boot iso in QEMU, capture the serial log, return a Result.

    timeout: seconds before QEMU is killed (Result.timed_out is then True,
    unless `until` had matched). until: regex; once a line matches, reading
    goes on for `linger` seconds (to see what follows), then QEMU is
    killed. on_line(t, line) is called for each line as it arrives.
    alone: the host to itself (see host_lock).
    """
    cmd = qemu_command(iso, cpus, mem, firmware, accel, cpu, extra, icount)
    pat = re.compile(until) if until else None
    lock = host_lock(cpus, accel, icount, alone)
    start = time.monotonic()
    proc = launch(cmd, lock, stdin=subprocess.DEVNULL,
                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    reader = _LineReader(start)
    stderr = b""
    deadline = start + timeout
    matched = False
    timed_out = False
    stop_at = None
    eof = False
    open_fds = {proc.stdout.fileno(): "out", proc.stderr.fileno(): "err"}
    try:
        while open_fds:
            now = time.monotonic()
            limit = stop_at if stop_at is not None else deadline
            if now >= limit:
                timed_out = stop_at is None
                break
            ready, _, _ = select.select(list(open_fds), [], [], limit - now)
            now = time.monotonic()
            for fd in ready:
                data = os.read(fd, 65536)
                if not data:
                    del open_fds[fd]
                    eof = not open_fds
                    continue
                if open_fds[fd] == "err":
                    stderr += data
                    if stop_at is None and KVM_ERROR in stderr:
                        stop_at = now + 1.0     # the register dump follows
                    continue
                for line in reader.feed(data, now):
                    if on_line:
                        on_line(now - start, line)
                    if pat and not matched and pat.search(line):
                        matched = True
                        stop_at = now + linger
        if eof:
            # QEMU closed its output: it is exiting by itself.
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        killed = proc.poll() is None
        if killed:
            _kill_group(proc)
    finally:
        if proc.poll() is None:
            _kill_group(proc)
        proc.stdout.close()
        proc.stderr.close()
    end = time.monotonic()
    partial = reader.partial()
    # A match in the unterminated last line still counts.
    if pat and not matched and pat.search(partial):
        matched = True
    return Result(reader.events,
                  exit_code=None if killed else proc.returncode,
                  timed_out=timed_out and not matched,
                  matched=matched, elapsed=end - start,
                  stderr=stderr.decode("utf-8", "replace"), command=cmd,
                  partial=partial, hv_error=hv_error_text(stderr))
