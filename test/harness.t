#!/usr/bin/env python3
"""test/harness.t - tests of the test harness and host scripts themselves,
without Vernier's kernel: test/lib/tap.py, the serial log clean-up and
parsing in test/lib/vm.py and boottest.py, tools/mkiso.sh (on a fake
multiboot2 kernel from test/lib/fakekernel.py), tools/qemu.sh and
tools/bochs.sh options, vm.boot end to end on the fake kernel (exit codes,
`until`, timeouts), tools/setup.sh being silent, and tools/check.sh
printing a failed test again at the end. TAP on stdout.
"""

import fcntl
import os
import subprocess
import sys
import tempfile
import textwrap
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in test/lib
LIB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib")
sys.path.insert(0, LIB)

import boottest as bt  # noqa: E402
import fakekernel  # noqa: E402
import guest  # noqa: E402
import vm  # noqa: E402
from tap import Tap  # noqa: E402

TOOLS = os.path.join(bt.TOP, "tools")


def run(cmd, **kwargs):
    """Run a command; returns CompletedProcess with text stdout/stderr."""
    return subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, **kwargs)


def run_tap_snippet(code):
    """Run Python code that uses tap.Tap; returns (exit status, stdout)."""
    prog = "import sys; sys.path.insert(0, %r)\nfrom tap import Tap\n%s" % (
        LIB, textwrap.dedent(code))
    p = run([sys.executable, "-B", "-c", prog])
    return p.returncode, p.stdout


def test_tap(t):
    """tap.py: numbering, plan at the end, escaping, exit status."""
    status, out = run_tap_snippet("""
        t = Tap()
        t.ok(True, "first")
        t.ok(False, "second # not a directive")
        t.diag("two\\nlines")
        t.skip("third", "no reason")
        t.ok(False, "fourth", directive="TODO later")
        t.done()
    """)
    want = ("ok 1 - first\n"
            "not ok 2 - second \\# not a directive\n"
            "# two\n# lines\n"
            "ok 3 - third # SKIP no reason\n"
            "not ok 4 - fourth # TODO later\n"
            "1..4\n")
    t.ok(out == want, "tap: output of ok/diag/skip/todo/done")
    if out != want:
        t.diag("got:\n" + out)
    t.ok(status == 1, "tap: a failure makes the exit status 1")
    status, out = run_tap_snippet("""
        t = Tap(plan=2)
        t.ok(1, "a")
        t.ok(1, "b")
        t.done()
    """)
    t.ok(status == 0 and out == "1..2\nok 1 - a\nok 2 - b\n",
         "tap: plan first, all passing, exit status 0")
    status, out = run_tap_snippet("""
        t = Tap(plan=3)
        t.ok(1, "a")
        t.done()
    """)
    t.ok(status == 1 and "planned 3 tests but ran 1" in out,
         "tap: running fewer tests than planned fails")


def check_cases(t, fn, cases, what):
    """One TAP line: fn(raw) == want for every (raw, want); the misses as diagnostics."""
    bad = [(raw, want, fn(raw)) for raw, want in cases if fn(raw) != want]
    t.ok(not bad, what)
    for raw, want, got in bad:
        t.diag("%r -> %r, wanted %r" % (raw, got, want))


def test_escapes(t):
    """vm.strip_escapes on what OVMF and GRUB send to a serial port."""
    cases = [
        ("\x1b[0m\x1b[30m\x1b[47mWelcome to GRUB!\r", "Welcome to GRUB!"),
        ("\x1b[2J\x1b[01;01H\x1b[=3hBdsDxe: x", "BdsDxe: x"),
        ("\x1b[05;:0H *Vernier", " *Vernier"),
        ("\x1b(B\x1b[m\x1b[?25lsmp: 2 CPUs online\x1b[K", "smp: 2 CPUs online"),
        ("\x1b]0;title\x07a\x1bcb\x0fc", "abc"),
        ("plain: text\twith tab", "plain: text\twith tab"),
    ]
    check_cases(t, vm.strip_escapes, cases,
                "vm: escape sequences and control characters stripped")


def test_screen_line(t):
    """vm.screen_line: what a terminal shows after \\r rewrites, such as a
    profiler's status line cleared before the shell's prompt."""
    cases = [
        ("\r\x1b[Kprofile: 10 samples\r\x1b[Kprofile: 20 samples\r\x1b[K/ # ", "/ # "),
        ("status 12345\r\x1b[2Kdone", "done"),
        ("abcdef\rXY", "XYcdef"),
        ("line\r", "line"),
        ("\x1b[1mbold\x1b[m\r\x1b[0Kplain", "plain"),
    ]
    check_cases(t, vm.screen_line, cases,
                "vm: carriage returns and erase-line as a terminal shows them")
    r = vm.Result.from_text("sprofile: 5 samples\r\x1b[K/tmp # ")
    t.ok(r.partial == "/tmp # ", "vm: a prompt after a cleared status line is the partial "
         "line (%r)" % r.partial)


def test_result(t):
    """vm.Result on canned serial output: lines, time_to, partial line."""
    text = ("\x1b[2JGRUB junk\r\n"
            "vernier: Vernier 0.1\r\n"
            "mm: 255 MiB usable RAM\n"
            "smp: 4 CPUs online\n"
            "boot: 42 ms from kernel entry to smp online\n"
            "mm: fra")
    r = vm.Result.from_text(text, step=0.5)
    t.ok(r.lines == ["GRUB junk", "vernier: Vernier 0.1",
                     "mm: 255 MiB usable RAM", "smp: 4 CPUs online",
                     "boot: 42 ms from kernel entry to smp online"],
         "vm: canned log split into clean lines")
    t.ok(r.partial == "mm: fra" and r.log.endswith("online\nmm: fra"),
         "vm: unterminated last line kept apart")
    t.ok(r.time_to(bt.SMP_UNTIL) == 1.5, "vm: time_to finds the smp line")
    t.ok(r.time_to(r"^mm: ") == 1.0, "vm: time_to finds the first match")
    t.ok(r.time_to(r"never") is None, "vm: time_to is None without a match")
    t.ok(bt.boot_diag(r.lines, 2.5) == "boot to prompt: 2.50 s from QEMU "
         "start (kernel: 42 ms from entry to smp online)"
         and bt.boot_diag([], 1) == "boot to prompt: 1.00 s from QEMU start",
         "boottest: boot-to-prompt diagnostic, with the kernel's figure")
    t.ok(bt.kernel_lines(r.lines)[0] == "vernier: Vernier 0.1"
         and not bt.unprefixed(r.lines),
         "boottest: kernel lines start at 'vernier: '; all prefixed")
    t.ok(bt.unprefixed(["junk", "vernier: a", "ok 1 - x", "# d", "1..2",
                        "Oops", "  indented"]) == ["Oops", "  indented"],
         "boottest: unprefixed lines found, TAP lines exempt")
    t.ok(bt.trouble(["mm: default zone", "fault: #PF page fault",
                     "panic: oops", "x: exception 13", "x: faults"])
         == ["fault: #PF page fault", "panic: oops", "x: exception 13"],
         "boottest: panic/exception/fault as whole words only")
    plan, items = bt.parse_tap(["1..3", "ok 1 - a: b", "mm: noise",
                                "# why", "not ok 2 - c", "ok: not TAP",
                                "ok 3 - d # SKIP no pmu"])
    t.ok(plan == 3 and items == [("test", True, 1, "a: b", None),
                                 ("diag", "why"),
                                 ("test", False, 2, "c", None),
                                 ("test", True, 3, "d", "SKIP no pmu")],
         "boottest: kernel TAP picked out of the log")


def extract(iso, path, dest):
    """Copy one file out of an ISO; returns its text or None."""
    p = run(["osirrox", "-indev", iso, "-extract", path, dest])
    if p.returncode != 0 or not os.path.isfile(dest):
        return None
    with open(dest, "rb") as f:
        return f.read()


def test_mkiso(t, tmp, elf):
    """tools/mkiso.sh: files on the ISO, grub.cfg for both modes."""
    mkiso = os.path.join(TOOLS, "mkiso.sh")
    isos = {}
    for key, cmdline in (("plain", ""), ("ktest", "ktest"),
                         ("args", "hang foo=1,2 /x")):
        iso = os.path.join(tmp, key + ".iso")
        p = run([mkiso, iso, elf, cmdline])
        t.ok(p.returncode == 0 and os.path.getsize(iso) > 1 << 20
             and not p.stdout and not p.stderr,
             "mkiso: %r builds quietly" % cmdline)
        if p.returncode != 0:
            t.diag(p.stderr)
        isos[key] = iso
    with open(elf, "rb") as f:
        want = f.read()
    got = extract(isos["args"], "/boot/vernier.elf",
                  os.path.join(tmp, "x.elf"))
    t.ok(got == want, "mkiso: /boot/vernier.elf is the kernel")
    cfg = (extract(isos["args"], "/boot/grub/grub.cfg",
                   os.path.join(tmp, "args.cfg")) or b"").decode()
    t.ok("multiboot2 /boot/vernier.elf hang foo=1,2 /x\n" in cfg
         and "set timeout=0" in cfg and "serial" not in cfg
         and cfg.count("menuentry") == 1 and "@" not in cfg,
         "mkiso: test ISO has one entry with the command line, no serial")
    cfg = (extract(isos["plain"], "/boot/grub/grub.cfg",
                   os.path.join(tmp, "plain.cfg")) or b"").decode()
    t.ok('menuentry "Vernier" {' in cfg
         and 'menuentry "Vernier self-test (ktest)" {' in cfg
         and "multiboot2 /boot/vernier.elf ktest\n" in cfg
         and "set timeout=1" in cfg and "serial --unit=0 --speed=115200" in cfg
         and "terminal_output serial console" in cfg and "@" not in cfg,
         "mkiso: plain ISO has the 1 s menu on serial and console")
    t.ok('insmod efi_gop' in cfg and 'grub_platform" = "efi"' in cfg
         and "gfxpayload" not in cfg,
         "mkiso: EFI video drivers loaded, no gfxpayload override")
    listing = run(["xorriso", "-indev", isos["plain"], "-ls", "/"]).stdout
    t.ok("efi.img" in listing, "mkiso: ISO has the UEFI boot image")
    p = run([mkiso, os.path.join(tmp, "bad.iso"), elf, "a;reboot"])
    t.ok(p.returncode == 1 and "quoted" in p.stderr,
         "mkiso: refuses a command line GRUB would misread")
    p = run([mkiso, "only-one-arg"])
    t.ok(p.returncode == 2, "mkiso: usage error exits 2")
    return isos


def test_script_options(t, iso):
    """qemu.sh and bochs.sh: -h, bad options, the QEMU command line."""
    qemu = os.path.join(TOOLS, "qemu.sh")
    bochs = os.path.join(TOOLS, "bochs.sh")
    for script in (qemu, bochs, os.path.join(TOOLS, "setup.sh"),
                   os.path.join(TOOLS, "mkiso.sh"),
                   os.path.join(TOOLS, "check.sh"),
                   os.path.join(TOOLS, "qemu-fetch.sh")):
        name = os.path.basename(script)
        p = run([script, "-h"])
        t.ok(p.returncode == 0 and "Usage" in p.stdout, "%s -h" % name)
        p = run([script, "--no-such-option"])
        t.ok(p.returncode == 2, "%s: bad option exits 2" % name)
    p = run([qemu, "--iso", iso, "--firmware", "uefi", "--cpus", "4",
             "--mem", "128", "--dry-run"])
    want = ["-bios /usr/share/ovmf/OVMF.fd", "-net none", "-smp 4", "-m 128",
            "-cpu max", "-serial stdio", "-display none", "-monitor none",
            "-no-reboot", "isa-debug-exit,iobase=0xf4,iosize=0x04",
            "-cdrom %s" % iso, "-boot d", "-accel tcg"]
    missing = [w for w in want if w not in p.stdout]
    t.ok(p.returncode == 0 and not missing, "qemu.sh: UEFI command line")
    if missing:
        t.diag("missing %s in: %s" % (missing, p.stdout))
    p = run([qemu, "--iso", iso, "--interactive", "--gdb", "--cpu", "qemu64",
             "--extra", "-d int -D /dev/null", "--dry-run"])
    t.ok(p.returncode == 0 and "-serial mon:stdio" in p.stdout
         and " -s -S" in p.stdout and "-cpu qemu64" in p.stdout
         and "-d int -D /dev/null" in p.stdout and "OVMF" not in p.stdout,
         "qemu.sh: interactive, gdb, cpu model and extra arguments")
    p = run([qemu, "--iso", iso, "--dry-run"])
    t.ok(p.returncode == 0 and "-icount" not in p.stdout,
         "qemu.sh: no -icount by default")
    p = run([qemu, "--iso", iso, "--icount", "3", "--dry-run"])
    t.ok(p.returncode == 0 and "-icount shift=3,sleep=off -rtc clock=vm"
         in p.stdout, "qemu.sh --icount 3: fixed shift, sleep=off, rtc clock=vm")
    p = run([qemu, "--iso", iso, "--icount", "auto", "--interactive",
             "--dry-run"])
    t.ok(p.returncode == 0 and "-icount shift=auto,sleep=on -rtc clock=vm"
         in p.stdout, "qemu.sh --icount auto: sleep=on")
    p = run([qemu, "--iso", iso, "--icount", "10", "--dry-run"])
    t.ok(p.returncode == 2 and "--icount" in p.stderr,
         "qemu.sh --icount 10: usage, exit 2")
    p = run([qemu, "--iso", iso, "--accel", "kvm", "--dry-run"])
    kvm = "-accel kvm -cpu host,-arch-capabilities" in p.stdout
    tcg = "-accel tcg -cpu max" in p.stdout and "falling back" in p.stderr
    t.ok(p.returncode == 0 and (kvm or tcg),
         "qemu.sh: --accel kvm uses KVM (host CPU) or falls back to TCG")
    t.diag("KVM usable here: %s" % ("yes" if kvm else "no"))
    test_qemu_pick(t, qemu, iso)
    p = run([qemu, "--iso", os.path.join(iso + ".missing")])
    t.ok(p.returncode == 1 and "not found" in p.stderr,
         "qemu.sh: missing ISO is an error")


def test_host_lock(t, tmp, iso, elf):
    """qemu.sh VERNIER_HOST_LOCK: more vCPU threads than twice the host's
    cores take the lock exclusively (and wait for a shared holder), others
    share it; -icount runs every vCPU on one thread."""
    qemu = os.path.join(TOOLS, "qemu.sh")
    lock = os.path.join(tmp, "hostlock")
    env = dict(os.environ, VERNIER_HOST_LOCK=lock)
    cores = len(os.sched_getaffinity(0))
    big = str(2 * cores + 1)
    p = run([qemu, "--iso", iso, "--cpus", big, "--dry-run"], env=env)
    t.ok(p.returncode == 0 and "host lock: exclusive" in p.stderr,
         "qemu.sh: %s vCPUs on %d cores take the host lock alone" % (big, cores))
    p = run([qemu, "--iso", iso, "--cpus", big, "--icount", "0", "--dry-run"],
            env=env)
    t.ok(p.returncode == 0 and "host lock: shared" in p.stderr,
         "qemu.sh: %s vCPUs under -icount (one thread) share it" % big)
    with open(lock, "a") as held:
        fcntl.flock(held, fcntl.LOCK_SH)
        small = run([qemu, "--iso", iso, "--cpus", "1", "--dry-run"], env=env,
                    timeout=10)
        proc = subprocess.Popen([qemu, "--iso", iso, "--cpus", big, "--dry-run"],
                                env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL)
        try:
            proc.wait(timeout=1.5)
            waited = False
        except subprocess.TimeoutExpired:
            waited = True
        fcntl.flock(held, fcntl.LOCK_UN)
        out = proc.communicate(timeout=10)[0].decode()
    t.ok(small.returncode == 0 and "host lock: shared" in small.stderr,
         "qemu.sh: a 1-CPU guest shares the lock with a running one")
    t.ok(waited and proc.returncode == 0 and "-smp %s" % big in out,
         "qemu.sh: a %s-CPU guest waits for the shared holder, then runs" % big)
    test_boot_lock(t, tmp, elf, lock)
    test_wide_lock(t, tmp, iso, lock)


def lock_waits(lock, **kwargs):
    """Whether vm.host_lock(**kwargs) on lock waited (for 1 s) and then
    got its fds once the holders went."""
    os.environ["VERNIER_HOST_LOCK"] = lock
    got = []
    try:
        th = threading.Thread(target=lambda: got.append(vm.host_lock(**kwargs)))
        th.start()
        th.join(1.0)
        return th.is_alive(), th, got
    finally:
        del os.environ["VERNIER_HOST_LOCK"]


def test_wide_lock(t, tmp, iso, lock):
    """A guest with more vCPU threads than cores holds FILE.wide shared;
    vm.host_lock(core=True) (Bochs) takes it exclusively: it shares with
    a narrow guest but waits for a wide one."""
    qemu = os.path.join(TOOLS, "qemu.sh")
    env = dict(os.environ, VERNIER_HOST_LOCK=lock)
    cores = len(os.sched_getaffinity(0))
    p = run([qemu, "--iso", iso, "--cpus", str(cores + 1), "--dry-run"], env=env)
    q = run([qemu, "--iso", iso, "--cpus", str(cores), "--dry-run"], env=env)
    t.ok("host lock: shared wide" in p.stderr and "host lock: shared\n" in q.stderr,
         "qemu.sh: %d vCPUs on %d cores are wide, %d are not (%r, %r)"
         % (cores + 1, cores, cores, p.stderr, q.stderr))
    with open(lock, "a") as held:
        fcntl.flock(held, fcntl.LOCK_SH)
        waited, th, got = lock_waits(lock, cpus=1, core=True)
        th.join(10)
        vm.release(got[0] if got else [])
        fcntl.flock(held, fcntl.LOCK_UN)
    t.ok(not waited and len(got) == 1 and len(got[0]) == 2,
         "vm.host_lock(core=True) shares with a narrow guest (waited %s, fds %r)"
         % (waited, got))
    with open(lock, "a") as held, open(lock + ".wide", "a") as wide:
        fcntl.flock(held, fcntl.LOCK_SH)
        fcntl.flock(wide, fcntl.LOCK_SH)
        waited, th, got = lock_waits(lock, cpus=1, core=True)
        fcntl.flock(wide, fcntl.LOCK_UN)
        th.join(10)
        vm.release(got[0] if got else [])
        fcntl.flock(held, fcntl.LOCK_UN)
    t.ok(waited and len(got) == 1,
         "vm.host_lock(core=True) waits for a wide guest, then runs (waited %s)" % waited)
    with open(lock + ".wide", "a") as bochs:
        fcntl.flock(bochs, fcntl.LOCK_EX)
        waited, th, got = lock_waits(lock, cpus=cores + 1)
        narrow_waited, nth, ngot = lock_waits(lock, cpus=1)
        nth.join(10)
        fcntl.flock(bochs, fcntl.LOCK_UN)
        th.join(10)
        for g in got + ngot:
            vm.release(g)
    t.ok(waited and not narrow_waited and len(got) == 1 and len(ngot) == 1,
         "a wide guest waits for Bochs and lets a narrow one pass (waited %s, %s)"
         % (waited, narrow_waited))


def test_boot_lock(t, tmp, elf, lock):
    """vm.boot takes the host lock itself, before its clock starts, and
    alone=True takes it exclusively: a 2-CPU boot that waited 3 s for a
    shared holder still runs to its end within its timeout."""
    iso = os.path.join(tmp, "lock-ktest.iso")
    subprocess.run([os.path.join(TOOLS, "mkiso.sh"), iso,
                    elf, "ktest"], check=True)
    os.environ["VERNIER_HOST_LOCK"] = lock
    try:
        with open(lock, "a") as held:
            fcntl.flock(held, fcntl.LOCK_SH)
            threading.Timer(3.0, fcntl.flock, (held, fcntl.LOCK_UN)).start()
            start = time.monotonic()
            r = vm.boot(iso, cpus=2, timeout=30, alone=True)
            waited = time.monotonic() - start
    finally:
        del os.environ["VERNIER_HOST_LOCK"]
    t.ok(waited >= 3.0 and r.exit_code == 1 and r.elapsed < waited - 2.5,
         "vm.boot(alone): waits for the host lock outside its timeout (%.1f s waited, "
         "%.1f s booted)" % (waited, r.elapsed))


def test_qemu_pick(t, qemu, iso):
    """qemu.sh --qemu / VERNIER_QEMU: which binary, with which folders."""
    env = {k: v for k, v in os.environ.items() if k != "VERNIER_QEMU"}
    p = run([qemu, "--iso", iso, "--qemu", "system", "--dry-run"], env=env)
    t.ok(p.returncode == 0 and p.stdout.startswith("qemu-system-x86_64 "),
         "qemu.sh --qemu system: the distribution's QEMU")
    p = run([qemu, "--iso", iso, "--qemu", "9", "--dry-run"])
    t.ok(p.returncode == 2 and "--qemu" in p.stderr,
         "qemu.sh --qemu 9: usage, exit 2")
    ten = run([os.path.join(TOOLS, "qemu-fetch.sh"), "--print"]).stdout.strip()
    p = run([qemu, "--iso", iso, "--dry-run"], env=dict(env, VERNIER_QEMU="10"))
    want = ten + " "
    if ten.endswith("/usr/bin/qemu-system-x86_64") and not ten.startswith("/usr/"):
        want += "-L %s/usr/share/qemu " % ten[:-len("/usr/bin/qemu-system-x86_64")]
    t.ok(bool(ten) and p.returncode == 0 and p.stdout.startswith(want),
         "VERNIER_QEMU=10: QEMU 10 (%s) with its own firmware folder" % ten)
    if not p.stdout.startswith(want):
        t.diag("want %r at the start of: %s%s" % (want, p.stdout, p.stderr))
    p = run([qemu, "--iso", iso, "--dry-run"], env=env)
    t.ok(bool(ten) and p.returncode == 0 and p.stdout.startswith(want),
         "qemu.sh: QEMU 10 by default")


def test_boots(t, tmp, elf):
    """vm.boot end to end on the fake kernel (BIOS, TCG)."""
    mkiso = os.path.join(TOOLS, "mkiso.sh")

    def iso_for(cmdline):
        iso = os.path.join(tmp, "boot-%s.iso" % (cmdline or "plain"))
        if not os.path.exists(iso):
            subprocess.run([mkiso, iso, elf, cmdline], check=True)
        return iso

    r = vm.boot(iso_for("ktest"), cpus=1, timeout=60)
    t.ok(r.exit_code == 1 and not r.timed_out and
         "ok 3 - fake: third # SKIP no such thing" in r.lines,
         "boot: isa-debug-exit 0 gives exit code 1, log captured")
    if r.exit_code != 1:
        bt.show_tail(t, r)
    t.ok(r.lines[0] == "fake: harness test kernel, cmdline=ktest",
         "boot: a test ISO's log has no GRUB output")
    r = vm.boot(iso_for("ktestfail"), cpus=1, timeout=60)
    t.ok(r.exit_code == 3, "boot: isa-debug-exit 1 gives exit code 3")
    r = vm.boot(iso_for("exit5"), cpus=1, timeout=60)
    t.ok(r.exit_code == 11, "boot: isa-debug-exit 5 gives exit code 11")
    r = vm.boot(iso_for("hang"), cpus=1, timeout=3)
    t.ok(r.timed_out and r.exit_code is None and 2.9 < r.elapsed < 8,
         "boot: a hung guest is killed at the timeout")
    t.diag("hung boot: %s" % r.summary())
    r = vm.boot(iso_for(""), cpus=3, timeout=60, until=bt.SMP_UNTIL,
                linger=0.5)
    t.ok(r.matched and not r.timed_out and r.exit_code is None
         and "smp: 3 CPUs online" in r.lines,
         "boot: plain ISO (GRUB menu on serial) stopped after `until`")
    t.ok(r.time_to(bt.SMP_UNTIL) is not None
         and r.time_to(bt.SMP_UNTIL) + 0.4 < r.elapsed,
         "boot: reading goes on for `linger` seconds after the match")
    t.diag("fake kernel: %.2f s from QEMU start to smp line through the "
           "1 s GRUB menu" % (r.time_to(bt.SMP_UNTIL) or -1))
    t.ok(bt.kernel_lines(r.lines) == [] and
         any("Booting `Vernier'" in line for line in r.lines),
         "boot: GRUB's serial menu is in the log, before the kernel")


def test_kvm_stop(t, tmp):
    """vm.boot stops a guest KVM has stopped (QEMU pauses, it does not
    exit, after "KVM internal error") and names the error; a fake QEMU."""
    fake = os.path.join(tmp, "fake-qemu.sh")
    with open(fake, "w") as f:
        f.write("#!/bin/sh\necho 'vernier: Vernier 0.1'\n"
                "printf 'KVM internal error. Suberror: 1\\nextra data[0]: 0x1"
                "\\nemulation failure\\nRAX=0\\n' >&2\nexec sleep 60\n")
    os.chmod(fake, 0o755)
    real, vm.QEMU_SH = vm.QEMU_SH, fake
    try:
        r = vm.boot("unused.iso", cpus=1, timeout=30)
    finally:
        vm.QEMU_SH = real
    t.ok(r.hv_error == "KVM internal error. Suberror: 1 (emulation failure)"
         and not r.timed_out and r.exit_code is None and r.elapsed < 10
         and "KVM internal error" in r.summary(),
         "boot: a guest KVM stopped is ended at once, the error named")
    t.diag("stopped boot: %s" % r.summary())
    t.ok(vm.hv_error_text(b"qemu: warning: x\n") is None,
         "vm: no KVM error in ordinary stderr")


def test_setup(t):
    """tools/setup.sh prints nothing when everything is installed."""
    p = run([os.path.join(TOOLS, "setup.sh")])
    t.ok(p.returncode == 0 and p.stdout == "" and p.stderr == "",
         "setup.sh: silent when nothing is missing")
    if p.stdout or p.stderr:
        t.diag((p.stdout + p.stderr).strip())


def test_check_failures(t, tmp):
    """check.sh: a failed test is printed again, with its diagnostics, and
    prove's result line stays the last."""
    prog = os.path.join(tmp, "fails.t")
    with open(prog, "w") as f:
        f.write("#!/bin/sh\necho 1..2\necho ok 1 - fine\n"
                "echo not ok 2 - broken\necho '# got 3, wanted 4'\n")
    os.chmod(prog, 0o755)
    p = run([os.path.join(TOOLS, "check.sh"), prog],
            env=dict(os.environ, BUILD=os.path.join(tmp, "build")))
    lines = p.stdout.strip().splitlines()
    tail = lines[-5:]
    t.ok(p.returncode != 0 and "--- fails.t.log" in tail and "not ok 2 - broken" in tail
         and "# got 3, wanted 4" in tail and lines[-1] == "Result: FAIL",
         "check.sh: a failure's lines again at the end, then Result: FAIL (%r)" % tail)


class ScriptReader:
    """A guest.Guest's reader with fixed events and partial line."""

    def __init__(self):
        self.events, self.part = [], ""

    def partial(self):
        return self.part


def fake_guest(after_send):
    """A guest.Guest without QEMU: send() appends after_send's (lines, partial)."""
    g = guest.Guest.__new__(guest.Guest)
    g.cond, g.reader, g.seen, g.eof, g.timed_out = threading.Condition(), ScriptReader(), 0, \
        False, False

    def send(text, gap=0.01):
        lines, part = after_send
        g.reader.events += [(0.0, line) for line in lines]
        g.reader.part = part
        return True
    g.send = send
    return g


def test_shell_run(t):
    """guest.Shell.run finds the next prompt also when a background job
    wrote after it on the same line (it used to wait the whole timeout:
    cprof.t's and groundtruth.t's background jobs, clean-clone runs)."""
    cases = [
        ((["/ # echo hi", "hi"], "/ # "), ["hi"]),
        ((["/ # cpdemo -w 9 &", "[1] 47", "/ # cpdemo: task 47: profile announced"], ""),
         ["[1] 47"]),
        ((["/ # sysinfo ssprofile: every CPU", "ystem.profiler", "state=1"], "/ # "),
         ["ystem.profiler", "state=1"]),
        ((["x", "state=1"], "/ # "), ["state=1"]),    # the prompt came before a job's line
    ]
    bad = []
    for after, want in cases:
        got = guest.Shell(fake_guest(after)).run("x", timeout=0.2)
        if got != want:
            bad.append((after, got, want))
    t.ok(not bad, "guest: Shell.run's output up to the next prompt, a prompt a background "
         "job wrote after included (bad: %r)" % bad)


def main():
    """Run every harness test."""
    t = Tap()
    os.environ.pop("VERNIER_HOST_LOCK", None)   # test_host_lock sets its own
    test_tap(t)
    test_escapes(t)
    test_screen_line(t)
    test_shell_run(t)
    test_result(t)
    test_setup(t)
    with tempfile.TemporaryDirectory(prefix="vernier-harness.") as tmp:
        elf = fakekernel.build(tmp)
        isos = test_mkiso(t, tmp, elf)
        test_script_options(t, isos["plain"])
        test_host_lock(t, tmp, isos["plain"], elf)
        test_boots(t, tmp, elf)
        test_check_failures(t, tmp)
        test_kvm_stop(t, tmp)
    t.done()


if __name__ == "__main__":
    main()
