"""test/lib/suite.py - booting a user-space TAP suite ("-- PROGRAM") and
passing its results on as our own tests. Shared by user.t, ipc.t and fs.t
(and the TAP re-emitting by ktest.t).

A suite run: build an ISO whose kernel command line is "-- PROGRAM"
(init runs /bin/PROGRAM and powers QEMU off with its verdict through
isa-debug-exit: value 0 → QEMU exit code 1 = pass, value 1 → 3 = fail),
boot it in every configuration (two at a time), and for each boot re-emit
the program's TAP prefixed with the configuration, check the plan, the
exit code and the timeout, then run the caller's own log checks.
"""

import hashlib
import os
import re
import subprocess
import tempfile

import boottest as bt
import vm

KERNEL = os.path.join(bt.BUILD, "kernel.elf")
INITRD = os.path.join(bt.BUILD, "initrd.tar")
MKISO = os.path.join(bt.TOP, "tools", "mkiso.sh")
PASS_EXIT = 1       # isa-debug-exit value 0
FAIL_EXIT = 3       # isa-debug-exit value 1

NS_RE = re.compile(r"^kinit: naming service is task \d+$")
# "task: 11 (tester): #PF page fault at 0, rip 0x400027 <f+0x7>; killed"
FAULT_RE = re.compile(r"^task: \d+ \([^)]*\): .* killed$")
PANIC_RE = re.compile(r"^panic: ")


def make_iso(tmp, cmdline):
    """An ISO booting the built kernel and initrd with cmdline; its path."""
    name = re.sub(r"\W+", "_", cmdline).strip("_")
    if len(name) > 96:          # a file name has at most 255 bytes
        name = name[:80] + "_" + hashlib.sha1(cmdline.encode()).hexdigest()[:12]
    path = os.path.join(tmp, name + ".iso")
    subprocess.run([MKISO, "--initrd", INITRD, path, KERNEL, cmdline],
                   check=True)
    return path


def reemit(tap, name, lines):
    """Pass the program's TAP on as tests of ours; (ok, plan, numbers)."""
    plan, items = bt.parse_tap(lines)
    passed = True
    numbers = []
    for item in items:
        if item[0] == "diag":
            tap.diag("%s %s" % (name, item[1]))
            continue
        _, ok, num, desc, directive = item
        numbers.append(num)
        passed &= tap.ok(ok, "%s %s" % (name, desc or "test %s" % num),
                         directive=directive)
    return passed, plan, numbers


def check_plan(tap, name, plan, numbers, program):
    """The program ran exactly the tests it planned, numbered 1..N."""
    seen = len(numbers)
    in_order = numbers == list(range(1, seen + 1))
    ok = tap.ok(plan is not None and plan == seen and seen > 0 and in_order,
                "%s %s ran the %s tests it planned"
                % (name, program, plan if plan is not None else "?"))
    if plan is None:
        tap.diag("%s no TAP plan (1..N) in the log" % name)
    elif not ok:
        tap.diag("%s plan 1..%d, saw %d tests numbered %s"
                 % (name, plan, seen, numbers))
    return ok


def check_end(tap, name, r, program, timeout):
    """The boot finished in time and the program reported success."""
    ok = tap.ok(not r.timed_out, "%s finished within %d s" % (name, timeout))
    ok &= tap.ok(r.exit_code == PASS_EXIT, "%s QEMU exit code %d (%s exited 0)"
                 % (name, PASS_EXIT, program))
    if r.exit_code == FAIL_EXIT:
        tap.diag("%s %s failed (exit code %d)" % (name, program, FAIL_EXIT))
    elif r.exit_code != PASS_EXIT and not r.timed_out:
        tap.diag("%s QEMU exit code %s" % (name, r.exit_code))
    return ok


def check_clean_log(tap, name, lines, faults_allowed=False):
    """The naming service ran; no panic; (unless allowed) no fault kills."""
    ok = tap.ok(any(NS_RE.match(l) for l in lines),
                "%s the kernel started the naming service" % name)
    bad = [l for l in lines
           if PANIC_RE.match(l) or (not faults_allowed and FAULT_RE.match(l))]
    ok &= tap.ok(not bad, "%s no panic%s" % (
        name, "" if faults_allowed else " and no task killed for a fault"))
    if bad:
        bt.show_lines(tap, "%s offending lines:" % name, bad)
    return ok


def check_vfuzz_end(tap, name, r, what):
    """vfuzz's leak check passed (what: the text of the test) and QEMU
    ended with the pass code; the baseline and after lines are shown when
    the leak check failed (the baseline is far above the tail shown)."""
    lines = r.lines
    leak_ok = tap.ok(any(l.endswith("leak check passed") for l in lines),
                     "%s %s" % (name, what))
    if not leak_ok:
        bt.show_lines(tap, "%s the counts:" % name,
                      [l for l in lines if re.match(r"^vfuzz: (baseline|after|free frames):", l)])
    ok = tap.ok(not r.timed_out and r.exit_code == PASS_EXIT,
                "%s QEMU exit code %d (vfuzz passed)" % (name, PASS_EXIT))
    return leak_ok and ok


def cpu_model(config):
    """A configuration's QEMU CPU model: its third field, else None (the
    default of tools/qemu.sh)."""
    return config[2] if len(config) > 2 else None


def run(tap, program, configs, timeout, check_log, kernel_args=""):
    """Boot "KERNEL_ARGS -- program" in each (firmware, cpus[, cpu model])
    configuration and report.

    check_log(tap, name, lines) adds the caller's own checks and returns
    whether they passed; the boot's tail is shown when anything failed.
    """
    bt.need_file(tap, KERNEL, "kernel")
    bt.need_file(tap, INITRD, "initrd")
    with tempfile.TemporaryDirectory(prefix="vernier-%s." % program) as tmp:
        iso = make_iso(tmp, (kernel_args + " -- " + program).strip())
        jobs = [(bt.weight(c[1], bt.accel()),
                 (lambda fw=c[0], n=c[1], cpu=cpu_model(c):
                  vm.boot(iso, cpus=n, firmware=fw, cpu=cpu,
                          accel=bt.accel(), timeout=timeout)))
                for c in configs]
        results = list(bt.run_parallel(jobs))
    for c, r in zip(configs, results):
        name = bt.label(c[0], c[1], cpu_model(c))
        passed, plan, numbers = reemit(tap, name, r.lines)
        passed &= check_plan(tap, name, plan, numbers, program)
        passed &= check_log(tap, name, r.lines)
        passed &= check_end(tap, name, r, program, timeout)
        tap.diag("%s %d %s tests, %.1f s" % (name, len(numbers), program, r.elapsed))
        if not passed:
            bt.show_tail(tap, r)
