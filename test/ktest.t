#!/usr/bin/env python3
"""test/ktest.t - run the in-kernel self-tests (build/vernier-ktest.iso,
kernel command line "ktest") in QEMU: BIOS with 1, 2 and 4 CPUs, UEFI with
2, the call-profiled kernel (build/cprof/vernier-ktest.iso, make
CPROFILE=1) with 4 CPUs, and BIOS with 2 CPUs under QEMU -icount. The
boots use -cpu max (SMEP, SMAP, UMIP, RDRAND: the hardening ktests' "on"
paths) except the 1-CPU one, which uses QEMU's default model qemu64 (none
of them: the fallbacks). TAP on stdout, for prove.

The kernel prints TAP on COM1 ("1..N", "ok N - desc", "not ok N - desc",
"# diag"), mixed with its "subsys: text" log lines, then ends QEMU through
isa-debug-exit: value 0 (QEMU exit code 1) if every test passed, 1 (exit
code 3) if not. Each kernel test becomes one test here, named with the boot
as prefix ("ok 7 - [bios cpus=2] nmi: round trip to every CPU"); a kernel
test whose subject is absent says "ok N - desc # SKIP reason" and stays a
skip here (prove counts it apart). Then come checks that the plan matches
the tests seen, that QEMU exited with code 1, that the boot did not time
out, and on the call-profiled boot that the call-profiler test ran rather
than skipped. A failing boot's last 40 log lines are printed as
diagnostics.
"""

import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in test/lib
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))

import boottest as bt  # noqa: E402
import suite  # noqa: E402
import vm  # noqa: E402
from tap import Tap  # noqa: E402

# (firmware, CPUs, ISO): "cprof" is the call-profiled kernel (make
# CPROFILE=1), every kernel test with the hooks in every function.
# "icount": QEMU -icount (tools/qemu.sh --icount auto), where the rtc
# sources' rate is checked within 2%. (It was out of the list while "sched:
# a woken higher-priority thread preempts a spinner" measured 20-135 ms
# there: creating the thread zeroed its 28 KiB stack byte by byte, which
# under -icount shift=auto on a loaded host took that long; memset now
# stores words.)
# "qemu64": QEMU's default CPU model, without SMEP/SMAP/UMIP/RDRAND.
CONFIGS = (("bios", 1, "qemu64"), ("bios", 2, "plain"), ("bios", 4, "plain"),
           ("uefi", 2, "plain"), ("bios", 4, "cprof"), ("bios", 2, "icount"))
ISOS = {"plain": bt.KTEST_ISO, "cprof": bt.CPROF_KTEST_ISO,
        "icount": bt.KTEST_ISO, "qemu64": bt.KTEST_ISO}
TIMEOUT = 180       # seconds per boot, the whole suite included
CPROF_TEST = "cprof: kernel call paths"   # must run, not skip, on the cprof boot

def boot_one(firmware, cpus, kind):
    """Boot a ktest ISO once; returns the vm.Result."""
    return vm.boot(ISOS[kind], cpus=cpus, firmware=firmware,
                   accel=bt.accel(), timeout=TIMEOUT,
                   cpu="qemu64" if kind == "qemu64" else None,
                   icount="auto" if kind == "icount" else None,
                   alone=kind == "cprof")  # its self-time and NMI-storm tests time the host


def skipped(lines):
    """Descriptions of the kernel tests that said SKIP."""
    _, items = bt.parse_tap(lines)
    return [it[3] for it in items if it[0] == "test" and it[4]
            and it[4].upper().startswith("SKIP")]


def check(tap, firmware, cpus, kind, r):
    """Re-emit one boot's kernel tests and check how the boot ended."""
    name = bt.label(firmware, cpus)
    if kind != "plain":
        name = name[:-1] + " " + kind + "]"
    passed, plan, numbers = suite.reemit(tap, name, r.lines)
    passed &= suite.check_plan(tap, name, plan, numbers, "kernel")
    passed &= suite.check_end(tap, name, r, "ktest", TIMEOUT)
    skips = skipped(r.lines)
    if kind == "cprof":
        passed &= tap.ok(numbers and not any(d.startswith(CPROF_TEST) for d in skips),
                         "%s the call-profiler test ran, not skipped" % name)
    tap.diag("%s %d kernel tests, %d of them skipped%s, %.1f s"
             % (name, len(numbers), len(skips),
                (": " + "; ".join(skips)) if skips else "", r.elapsed))
    if not passed:
        bt.show_tail(tap, r)


def main():
    """Run the boots (two at a time) and report them in a fixed order."""
    tap = Tap()
    bt.need_file(tap, bt.KTEST_ISO, "ISO")
    bt.need_file(tap, bt.CPROF_KTEST_ISO, "call-profiled ISO")
    jobs = [(bt.weight(n, bt.accel()),
             (lambda fw=fw, n=n, k=k: boot_one(fw, n, k)))
            for fw, n, k in CONFIGS]
    for (fw, n, k), r in zip(CONFIGS, bt.run_parallel(jobs)):
        check(tap, fw, n, k, r)
    tap.done()


if __name__ == "__main__":
    main()
