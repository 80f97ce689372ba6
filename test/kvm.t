#!/usr/bin/env python3
"""test/kvm.t - the user-space test suite (/bin/utest) under KVM, when KVM
here can run it.

tools/kvmprobe.sh decides (its tiny guest goes to user mode and back
through SYSCALL the way Vernier does; tools/check.sh gives every run its
own cache, so the probe boots once a run and answers in a few seconds).
First, so that a "KVM unusable" is KVM's and not the probe's: the probe
guest passes every one of its steps under TCG (-cpu max with SMAP, and
qemu64 without; the SYSCALL round trip with Vernier's and with Linux's
GDT layout, entered by IRETQ and by SYSRET). Then:

- KVM unusable: one more test, "ok 3 - user suite under KVM # SKIP <the
  probe's reason>", a skip with its reason and not a pass; the reason goes
  to stderr as well, since prove shows a skipped test only with -v;
- KVM usable (or VERNIER_KVM_FORCE=1: no probe, to see a KVM that fails
  it fail here too): tools/qemu.sh --accel kvm really picks KVM (no
  fallback to TCG), then the suite boots under KVM (VERNIER_ACCEL=kvm)
  on 1 and 2 CPUs with user.t's checks: every utest TAP line passed on,
  the plan, the deliberate faults reported right, no panic, QEMU exit
  code 1. A guest KVM stops ("KVM internal error") ends its boot at once.
  VERNIER_KVM_TIMEOUT overrides the 900 s a boot may take.

TAP on stdout, for prove.
"""

import importlib.machinery
import importlib.util
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in test/lib
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "lib"))

import boottest as bt  # noqa: E402
import suite  # noqa: E402
from tap import Tap  # noqa: E402

PROBE = os.path.join(bt.TOP, "tools", "kvmprobe.sh")
QEMU_SH = os.path.join(bt.TOP, "tools", "qemu.sh")
CONFIGS = (("bios", 1), ("bios", 2))
# Seconds per boot: firmware and GRUB are slow under nested KVM (SeaBIOS +
# GRUB took ~60 s on one machine); VERNIER_KVM_TIMEOUT overrides.
TIMEOUT = int(os.environ.get("VERNIER_KVM_TIMEOUT", "900"))


PROBE_ASM = os.path.join(bt.TOP, "tools", "kvmprobe.asm")
QBOOT = "/usr/share/qemu/qboot.rom"
# Every step, the modifiers before the steps they change (kvmprobe.asm).
ALL_STEPS = "ctfxaiuhFTXAUHpUHsuhwuhluhi"


def run_probe_tcg(binary, cpu):
    """Run the probe guest with every step under TCG; a CompletedProcess
    (returncode None if it hung for 60 s)."""
    cmd = ["qemu-system-x86_64", "-accel", "tcg", "-cpu", cpu, "-bios", QBOOT,
           "-m", "32", "-nodefaults", "-display", "none", "-monitor", "none",
           "-serial", "stdio", "-no-reboot", "-device",
           "isa-debug-exit,iobase=0xf4,iosize=0x04", "-kernel", binary,
           "-append", "steps=" + ALL_STEPS]
    try:
        return subprocess.run(cmd, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, timeout=60)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else e.stdout
        return subprocess.CompletedProcess(cmd, None, out or "", None)


def probe_under_tcg(tap, tmp):
    """The probe guest passes all its steps under TCG, with and without
    SMAP."""
    binary = os.path.join(tmp, "kvmprobe.bin")
    subprocess.run(["nasm", "-f", "bin", "-o", binary, PROBE_ASM], check=True)
    for cpu in ("max", "qemu64"):
        p = run_probe_tcg(binary, cpu)
        oks = [l for l in p.stdout.splitlines()
               if l.startswith("probe: step ") and l.endswith(" ok")]
        ok = tap.ok(p.returncode == 1 and len(oks) == len(ALL_STEPS)
                    and "probe: all steps ok" in p.stdout,
                    "the KVM probe guest passes its %d steps under TCG "
                    "(-cpu %s)" % (len(ALL_STEPS), cpu))
        if not ok:
            bt.show_lines(tap, "probe output (exit code %s):" % p.returncode,
                          p.stdout.splitlines()[-15:])


def probe():
    """(usable, the probe's verdict line); VERNIER_KVM_FORCE=1 (which
    tools/qemu.sh honours too) says usable without probing."""
    if os.environ.get("VERNIER_KVM_FORCE") == "1":
        return True, "kvm: forced (VERNIER_KVM_FORCE=1), not probed"
    p = subprocess.run([PROBE], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    text = (p.stdout.strip() or p.stderr.strip() or "no answer").splitlines()
    return p.returncode == 0, text[-1]


def qemu_picks_kvm(tap):
    """tools/qemu.sh --accel kvm runs KVM, not its TCG fallback."""
    p = subprocess.run([QEMU_SH, "--iso", bt.ISO, "--accel", "kvm",
                        "--dry-run"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    ok = tap.ok(p.returncode == 0 and "-accel kvm" in p.stdout,
                "tools/qemu.sh --accel kvm uses KVM (no fallback to TCG)")
    if not ok:
        tap.diag("qemu.sh said: %s" % (p.stderr.strip() or p.stdout.strip()))
    return ok


def load_user_t():
    """user.t as a module (its fault and log checks)."""
    path = os.path.join(HERE, "user.t")
    loader = importlib.machinery.SourceFileLoader("user_t", path)
    spec = importlib.util.spec_from_loader("user_t", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def main():
    """Skip with the probe's reason, or run utest under KVM."""
    tap = Tap()
    with tempfile.TemporaryDirectory(prefix="vernier-kvm.") as tmp:
        probe_under_tcg(tap, tmp)
    usable, verdict = probe()
    if not usable:
        reason = "KVM " + verdict.split("kvm: ", 1)[-1]
        tap.ok(True, "user suite under KVM", directive="SKIP " + reason)
        sys.stderr.write("kvm.t: skipped: %s\n" % reason)
        tap.done()
    tap.diag(verdict)
    if qemu_picks_kvm(tap):
        os.environ["VERNIER_ACCEL"] = "kvm"
        suite.run(tap, "utest", CONFIGS, TIMEOUT, load_user_t().check_log,
                  kernel_args="loadavg.fast")
    tap.done()


if __name__ == "__main__":
    main()
