#!/usr/bin/env python3
"""test/panic.t - the kernel's panic paths, booted in QEMU (BIOS, TCG).

- "ktest.panic" makes the last CPU write through a NULL pointer inside an
  IPI handler. Expect: a "panic: #PF page fault" report naming the faulting
  function, a backtrace through its caller and the interrupted idle loop,
  every other CPU stopped by NMI, and QEMU ended with the failure status.
- "ktest.panic=stack" overflows the boot CPU's kernel stack. Expect the
  page fault on the guard page to become a double fault (handled on its IST
  stack), reported as a kernel stack overflow.
- "ktest.panic=late" (2 CPUs, with the initrd) faults 4 s after boot,
  once init and the shell have run. Expect the flight recorder dumped to
  COM2 (a host file): the log says how many samples and events, and the
  file is a stream (test/lib/tracestream.py) whose header is flagged
  PROF_F_RECORDER, whose END has reason PROF_END_PANIC and the same
  sample count (at least 300: 4 s of 100 Hz ticks on 2 CPUs), with
  context switches of user threads and IPC calls; vprof reports it.
TAP on stdout, for prove.
"""

import os
import re
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))

import boottest as bt  # noqa: E402
import tracestream as ts  # noqa: E402
import vm  # noqa: E402
from tap import Tap  # noqa: E402

KERNEL = os.path.join(bt.BUILD, "kernel.elf")
MKISO = os.path.join(bt.TOP, "tools", "mkiso.sh")
FAIL_EXIT = 3
TIMEOUT = 120
INITRD = os.path.join(bt.BUILD, "initrd.tar")
VPROF = os.path.join(bt.BUILD, "host", "vprof")
F_RECORDER = 1 << 7           # abi/profile.h
END_PANIC = 4
DUMP_RE = r"^panic: the flight recorder: (\d+) samples and (\d+) events to com2$"


def make_iso(tmp, cmdline, initrd=False):
    """An ISO booting the built kernel with cmdline; returns its path."""
    path = os.path.join(tmp, re.sub(r"\W", "_", cmdline) + ".iso")
    subprocess.run([MKISO] + (["--initrd", INITRD] if initrd else []) +
                   [path, KERNEL, cmdline], check=True)
    return path


def has(tap, r, regex, desc):
    """One test: some log line matches regex."""
    ok = tap.ok(r.grep(regex), desc)
    if not ok:
        bt.show_tail(tap, r)
    return ok


def interrupted_frame(r):
    """The backtrace goes on past the victim's caller: into the code the
    call IPI interrupted (after the isr_common frame, a symbolized frame of
    whatever that CPU ran: the idle loop, kinit, or a thread just started),
    or, with one CPU, where no IPI is sent, into kinit's smp_call_all."""
    lines = [l for l in r.lines if re.match(r"^\s+#\d+ \w+ ", l)]
    for i, line in enumerate(lines):
        if re.search(r" isr_common\S*\+", line):
            return i + 1 < len(lines) and re.match(r"^\s+#\d+ \w+ [A-Za-z_]\w*\+",
                                                   lines[i + 1]) is not None
    return any(re.match(r"^\s+#\d+ \w+ (sched_start|kinit|smp_call_all)\+", l)
               for l in lines)


def check_null_panic(tap, r, cpus):
    """The NULL-write panic on the last of cpus CPUs."""
    name = "[bios cpus=%d ktest.panic]" % cpus
    tap.ok(not r.timed_out and r.exit_code == FAIL_EXIT,
           "%s QEMU ended with the failure status" % name)
    has(tap, r, r"^panic: #PF page fault at \w+ <ktest_panic_victim\S*> "
        r"error 0x2 cpu %d$" % (cpus - 1),
        "%s report names the fault, the function and the CPU" % name)
    has(tap, r, r"^\s+#1 \w+ ktest_panic_on_last_cpu\+",
        "%s backtrace frame 1 is the caller" % name)
    tap.ok(interrupted_frame(r),
           "%s backtrace continues into the interrupted code" % name)
    has(tap, r, r"^panic: %d other CPUs stopped by NMI; system halted$"
        % (cpus - 1), "%s the other %d CPUs were stopped" % (name, cpus - 1))


def check_stack_panic(tap, r):
    """The kernel stack overflow."""
    name = "[bios cpus=2 ktest.panic=stack]"
    tap.ok(not r.timed_out and r.exit_code == FAIL_EXIT,
           "%s QEMU ended with the failure status" % name)
    has(tap, r, r"^panic: kernel stack overflow on cpu \d+ \(0x[0-9a-f]+ is in "
        r"the guard page\)$", "%s overflow recognised" % name)
    has(tap, r, r"^panic: #DF double fault at \w+ <ktest_recurse",
        "%s reported as a double fault in the recursing function" % name)


def check_late_panic(tap, r, com2):
    """The late panic's flight recorder dump on COM2."""
    name = "[bios cpus=2 ktest.panic=late]"
    tap.ok(not r.timed_out and r.exit_code == FAIL_EXIT,
           "%s QEMU ended with the failure status" % name)
    m = [re.match(DUMP_RE, l) for l in r.lines]
    m = [x for x in m if x]
    if not has(tap, r, DUMP_RE, "%s the log says the recorder went to com2" % name):
        return
    with open(com2, "rb") as f:
        s = ts.parse(f.read())
    h, end, tr = s["header"] or {}, s["end"] or {}, s["trace"]
    said = int(m[0].group(1))
    tap.ok(h.get("flags", 0) & F_RECORDER and end.get("reason") == END_PANIC and
           s["bad"] is None and end.get("samples") == said == s["samples"] and said >= 300,
           "%s com2 holds a recorder stream ended by the panic (flags %#x, end %r, "
           "%d samples, the log said %d)" % (name, h.get("flags", 0), end.get("reason"),
                                            s["samples"], said))
    users = [x for x in tr if x["kind"] == ts.SWITCH and x["task2"] > 0]
    calls = [x for x in tr if x["kind"] == ts.CALL]
    tap.ok(len(tr) == int(m[0].group(2)) and users and calls,
           "%s its %d events hold switches to user threads (%d) and IPC calls (%d)"
           % (name, len(tr), len(users), len(calls)))
    out = subprocess.run([VPROF, "-p", "0", com2], capture_output=True, text=True)
    tap.ok(out.returncode == 0 and "samples" in out.stdout,
           "%s vprof reports it (%s)" % (name, (out.stderr or out.stdout).strip()[-120:]))


def main():
    """Build the ISOs, boot them (two at a time), check the logs."""
    tap = Tap()
    bt.need_file(tap, KERNEL, "kernel")
    with tempfile.TemporaryDirectory(prefix="vernier-panic.") as tmp:
        null_iso = make_iso(tmp, "ktest.panic")
        stack_iso = make_iso(tmp, "ktest.panic=stack")
        late_iso = make_iso(tmp, "ktest.panic=late", initrd=True)
        com2 = os.path.join(tmp, "com2.bin")
        configs = [(null_iso, 1, None), (null_iso, 4, None), (stack_iso, 2, None),
                   (late_iso, 2, "-serial file:" + com2)]
        jobs = [(bt.weight(n), (lambda iso=iso, n=n, x=x: vm.boot(
            iso, cpus=n, accel=bt.accel(), timeout=TIMEOUT, extra=x)))
            for iso, n, x in configs]
        results = list(bt.run_parallel(jobs))
        check_null_panic(tap, results[0], 1)
        check_null_panic(tap, results[1], 4)
        check_stack_panic(tap, results[2])
        check_late_panic(tap, results[3], com2)
    tap.done()


if __name__ == "__main__":
    main()
