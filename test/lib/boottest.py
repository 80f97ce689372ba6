"""test/lib/boottest.py - shared parts of the QEMU boot tests (test/*.t).

- the kernel log formats the tests rely on (regexes below);
- run_parallel(): run boots in threads, at most `slots` host CPUs' worth at
  a time, and hand back the results in the order the jobs were given;
- small helpers to check a log and report it as TAP.

Environment: VERNIER_TEST_SLOTS (default 2, the host's cores here) caps the
boots run at once by one test file; VERNIER_ACCEL (tcg|kvm, default tcg)
picks the accelerator.
"""

import os
import re
import threading
from concurrent.futures import ThreadPoolExecutor

TOP = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    "..", ".."))
BUILD = os.environ.get("BUILD", os.path.join(TOP, "build"))
ISO = os.path.join(BUILD, "vernier.iso")
KTEST_ISO = os.path.join(BUILD, "vernier-ktest.iso")
# The call-profiled system (make CPROFILE=1; make check builds it).
CPROF_ISO = os.path.join(BUILD, "cprof", "vernier.iso")
CPROF_KTEST_ISO = os.path.join(BUILD, "cprof", "vernier-ktest.iso")

# ---------------------------------------------------------------- log formats
# The kernel's first line on COM1: "vernier: Vernier 0.1, booted by ...".
# Everything before it is firmware or GRUB output.
KERNEL_FIRST_RE = re.compile(r"^vernier: ")
# Every kernel log line: "subsys: text".
SUBSYS_RE = re.compile(r"^[a-z0-9]+: ")
# TAP lines the kernel may print (exempt from the subsystem rule).
TAP_LINE_RE = re.compile(r"^(?:(?:not )?ok \d+|1\.\.\d+|#|Bail out!)")
# "smp: N CPUs online", once all CPUs are up.
SMP_RE = re.compile(r"^smp: (\d+) CPUs online")
SMP_UNTIL = r"^smp: \d+ CPUs online"
# Whole words only: "default" is not a fault.
TROUBLE_RE = re.compile(r"\b(?:panic|PANIC|exception|fault)\b")
# "boot: N ms from kernel entry to smp online"
BOOT_MS_RE = re.compile(r"^boot: (\d+) ms from kernel entry to smp online")
# "time: TSC frequency from SOURCE, ..." (arch/x86_64/tsc.c)
TSC_SOURCE_RE = re.compile(r"^time: TSC frequency from (.+?), ")
# "mm: kernel footprint: ..." (reported as is)
FOOTPRINT_RE = re.compile(r"^mm: kernel footprint: ")


def slots():
    """How many host CPUs' worth of boots may run at once."""
    try:
        return max(1, int(os.environ.get("VERNIER_TEST_SLOTS", "2")))
    except ValueError:
        return 2


# The profiling tests boot with tools/qemu.sh --icount this (exact samples:
# README "Exact sampling under QEMU"): a fixed shift, so that guest time
# follows instructions (shift=auto follows emulation speed); 3 (8 ns an
# instruction) ran workload, kprof, profil and groundtruth in 79 s, auto
# in 91 s, shift=0 in 177 s (QEMU 10, 2026-12-02).
PROFILE_ICOUNT = "3"


def accel():
    """The accelerator the tests use (VERNIER_ACCEL, default tcg)."""
    return os.environ.get("VERNIER_ACCEL", "tcg")


def weight(cpus, accel_name="tcg"):
    """Slots one boot takes: a big TCG guest (more than 4 vCPUs, each a
    host thread) gets the machine to itself."""
    return slots() if accel_name == "tcg" and cpus > 4 else 1


class _Slots:
    """A counting semaphore where one acquire may take several units."""

    def __init__(self, total):
        self.total = total
        self.free = total
        self.cond = threading.Condition()

    def acquire(self, n):
        """Wait until n units are free, then take them."""
        n = min(n, self.total)
        with self.cond:
            self.cond.wait_for(lambda: self.free >= n)
            self.free -= n
        return n

    def release(self, n):
        """Give n units back."""
        with self.cond:
            self.free += n
            self.cond.notify_all()


def run_parallel(jobs):
    """Run jobs, a list of (weight, fn), fn() taking no arguments, on
    threads within slots(); yield each fn()'s result in the jobs' order
    (as soon as it and all before it are done)."""
    pool = _Slots(slots())

    def run(w, fn):
        taken = pool.acquire(w)
        try:
            return fn()
        finally:
            pool.release(taken)

    with ThreadPoolExecutor(max_workers=max(1, len(jobs))) as ex:
        futures = [ex.submit(run, w, fn) for w, fn in jobs]
        for fut in futures:
            yield fut.result()


def boot_diag(lines, prompt_s):
    """One diagnostic line on boot time: host seconds from QEMU start to the
    shell prompt, and the kernel's own entry-to-smp figure if it logged one
    (a diagnostic only: the machines are shared and noisy)."""
    ms = [m.group(1) for m in map(BOOT_MS_RE.search, lines) if m]
    text = "boot to prompt: %.2f s from QEMU start" % prompt_s
    if ms:
        text += " (kernel: %s ms from entry to smp online)" % ms[0]
    return text


# ---------------------------------------------------------------- log checks
PLAN_RE = re.compile(r"^1\.\.(\d+)\s*(?:#.*)?$")
TEST_RE = re.compile(
    r"^(not )?ok (\d+)\b\s*(?:-\s*)?(.*?)\s*(?:#\s*((?:SKIP|TODO)\b.*))?$",
    re.IGNORECASE)
DIAG_RE = re.compile(r"^#\s?(.*)$")


def parse_tap(lines):
    """Pick the TAP out of a kernel log (other lines are ignored).

    Returns (plan or None, items) where items are ("test", ok, number,
    description, directive) and ("diag", text) in log order."""
    plan = None
    items = []
    for line in lines:
        m = PLAN_RE.match(line)
        if m and plan is None:
            plan = int(m.group(1))
            continue
        m = TEST_RE.match(line)
        if m:
            items.append(("test", not m.group(1), int(m.group(2)),
                          m.group(3), m.group(4)))
            continue
        m = DIAG_RE.match(line)
        if m:
            items.append(("diag", m.group(1)))
    return plan, items


def kernel_lines(lines):
    """The lines from the kernel's first line on ([] if it never spoke)."""
    for i, line in enumerate(lines):
        if KERNEL_FIRST_RE.search(line):
            return lines[i:]
    return []


def unprefixed(lines):
    """Kernel lines that are neither "subsys: text" nor TAP."""
    return [l for l in kernel_lines(lines)
            if not SUBSYS_RE.search(l) and not TAP_LINE_RE.search(l)]


def trouble(lines):
    """Lines that talk of a panic, exception or fault."""
    return [l for l in lines if TROUBLE_RE.search(l)]


def clip(line, width=160):
    """A line cut to width characters (GRUB's menu makes huge lines)."""
    return line if len(line) <= width else line[:width] + "..."


def show_lines(tap, title, lines, limit=10):
    """Print up to `limit` lines as diagnostics under a title."""
    tap.diag(title)
    for line in lines[:limit]:
        tap.diag("  " + clip(line))
    if len(lines) > limit:
        tap.diag("  ... (%d more)" % (len(lines) - limit))


def show_tail(tap, result, n=40):
    """Print how a boot ended and the last n lines of its log."""
    tap.diag("boot %s; last %d lines of the serial log:"
             % (result.summary(), n))
    for line in result.lines[-n:]:
        tap.diag("  | " + clip(line))
    if result.partial:
        tap.diag("  | " + clip(result.partial) + "  (no newline)")
    if result.stderr.strip():
        tap.diag("QEMU stderr:")
        for line in result.stderr.strip().splitlines()[-10:]:
            tap.diag("  " + line)


def need_file(tap, path, what):
    """Report whether path exists as a test; if it does not, end the test
    file (failed)."""
    if not tap.ok(os.path.isfile(path), "%s %s exists" % (what, path)):
        tap.diag("build it first: make all")
        tap.done()


def label(firmware, cpus, cpu=None):
    """The prefix of a boot's test names, e.g. "[bios cpus=2]", or with a
    CPU model other than the default "[bios cpus=1 qemu64]"."""
    return "[%s cpus=%d%s]" % (firmware, cpus, " " + cpu if cpu else "")

