#!/usr/bin/env python3
"""test/kprof.t - Inferno's kprof device (/dev/kpctl, /dev/kpdata) and kprof.

On 2 CPUs at the shell:
- `echo start > /dev/kpctl`, `workload -d 2 ksyscall:1`, `echo stop >
  /dev/kpctl`: `kprof` reports syscall_dispatch among the kernel functions
  with ticks, its header is consistent (total = inside + outside, 1000 us
  per tick (976 at the rtc's 1024 Hz), nbuckets x bucket size covers the kernel text of
  build/kernel.elf and fewer buckets would not), and `wc -c /dev/kpdata`
  is 4 x nbuckets; a copy (`cat /dev/kpdata > /tmp/kp`) gives the same
  report header;
- stop keeps the data (the total does not change while stopped), start
  without clear accumulates (the total grows past the old one), startclr
  clears (the total restarts below the old one);
- a bad control string (`echo bogus > /dev/kpctl`) is an error (status
  1, "Operation not supported"); kpdata cannot be written, kpctl cannot be read;
- without the profile permission (`restrict`) start and stop are refused
  ("Operation not permitted") and change nothing, and kpdata cannot be read.

On 1 CPU under -icount (time is instructions; on SMP QEMU 7.2 hands the
vCPUs whole turns, which piles samples up where a turn ends), the share:
kprof runs while `workload alpha:1 ksyscall:1` runs in the background
(started before, still running after, so no spawn and exit are counted),
and the kernel's share of the non-idle ticks must be within SHARE_TOL
points of the workload's kernel share as the NMI profiler measures it in
the same boot (`profile -s rtc-nmi`: kernel samples of its samples), and
most of the ksyscall half (over 25%, at most 50% + SHARE_TOL). The idle
ticks are those of the idle loop, sched_start, and of idle_wait, where
an idle CPU polls and halts.

TAP on stdout, for prove.
"""

import os
import re
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in test/lib
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))

import boottest as bt  # noqa: E402
from guest import shell_session  # noqa: E402
from tap import Tap  # noqa: E402

TOTAL_RE = re.compile(r"^total: (\d+)\tin kernel text: (\d+)\t"
                      r"outside kernel text: (\d+)")
KTZERO_RE = re.compile(r"^KTZERO ([0-9a-f]+)\t(\d+) us per tick, (\d+) buckets"
                       r" of (\d+) bytes")
ROW_RE = re.compile(r"^\s*(\d+)\s+[\d.]+%\s+[\d.]+\s+(\S+)\s*$")
SAMPLES_RE = re.compile(r"Samples:\s+(\d+) total,\s+(\d+) user,\s+(\d+) kernel")
IDLE_FNS = ("sched_start", "idle_wait")
SHARE_TOL = 4.0         # points: ~3000 ticks give a 0.9-point sd, plus the shell's
WORK = "workload -d %d alpha:1 ksyscall:1"


def text_range():
    """(__text_start, __text_end) of the built kernel, from nm."""
    out = subprocess.run(["nm", os.path.join(bt.BUILD, "kernel.elf")],
                         capture_output=True, text=True, check=True).stdout
    syms = dict((l.split()[2], int(l.split()[0], 16))
                for l in out.splitlines() if len(l.split()) == 3)
    return syms.get("__text_start"), syms.get("__text_end")


def report(out):
    """(total, inside, outside), (ktzero, uspt, nbuckets, bsize), rows."""
    tot, geo, rows = None, None, {}
    for line in out or []:
        m = TOTAL_RE.match(line)
        if m:
            tot = tuple(int(x) for x in m.groups())
        m = KTZERO_RE.match(line)
        if m:
            geo = (int(m.group(1), 16),) + tuple(int(x) for x in m.groups()[1:])
        m = ROW_RE.match(line)
        if m and geo:
            rows[m.group(2)] = int(m.group(1))
    return tot, geo, rows


def total(sh):
    tot, _, _ = report(sh.run("kprof"))
    return tot[0] if tot else None


def check_profile(tap, sh):
    tap.ok(sh.run("echo start > /dev/kpctl") is not None and sh.status() == 0,
           "echo start > /dev/kpctl: status 0")
    sh.run("workload -d 2 ksyscall:1", timeout=60)
    sh.run("echo stop > /dev/kpctl")
    out = sh.run("kprof", timeout=60)
    tot, geo, rows = report(out)
    tap.ok(tot and tot[0] > 1000 and tot[0] == tot[1] + tot[2],
           "kprof: total %s = inside + outside" % (tot,))
    tap.ok(rows.get("syscall_dispatch", 0) > 0,
           "kprof: syscall_dispatch has ticks (%s)" %
           rows.get("syscall_dispatch"))
    tap.ok(rows and sum(rows.values()) <= tot[1] and len(rows) >= 3,
           "kprof: %d functions, their ticks within the kernel text's" %
           len(rows))
    start, end = text_range()
    text_len = end - start
    tap.ok(geo and geo[0] == start and geo[1] in (976, 1000) and geo[3] == 8 and
           geo[2] * geo[3] >= text_len and (geo[2] - 1) * geo[3] < text_len,
           "kprof: KTZERO, us per tick (976 at the rtc's 1024 Hz), nbuckets x bucket size cover the text "
           "%x-%x (%s)" % (start, end, geo,))
    wc = sh.run("wc -c /dev/kpdata")
    size = int(wc[0].split()[0]) if wc and wc[0].split()[0].isdigit() else None
    tap.ok(geo and size == 4 * geo[2],
           "wc -c /dev/kpdata: %s = 4 x %s buckets" % (size, geo and geo[2]))
    sh.run("cat /dev/kpdata > /tmp/kp")
    tot2, geo2, rows2 = report(sh.run("kprof /boot/kernel /tmp/kp"))
    tap.ok(tot2 == tot and geo2 == geo and rows2 == rows,
           "kprof of a copy: the same report")


def check_control(tap, sh):
    before = total(sh)
    time.sleep(1)
    tap.ok(before and total(sh) == before, "stopped: total stays %s" % before)
    sh.run("echo start > /dev/kpctl")
    sh.run("sleep 1")
    sh.run("echo stop > /dev/kpctl")
    more = total(sh)
    tap.ok(more and more > before + 500,
           "start without clear accumulates: %s after %s" % (more, before))
    sh.run("echo startclr > /dev/kpctl")
    sh.run("echo stop > /dev/kpctl")
    fresh = total(sh)
    tap.ok(fresh is not None and fresh < before,
           "startclr clears: %s after %s" % (fresh, more))


def check_perms(tap, sh, before):
    """fs serves kprof only to callers with the profile permission."""
    for cmd in ("restrict echo start > /dev/kpctl",
                "restrict echo stop > /dev/kpctl"):
        out = sh.run(cmd)
        tap.ok(sh.status() != 0 and out and
               any("not permitted" in l for l in out),
               "%s: refused with a clear error (%s)" % (cmd, out))
    tap.ok(total(sh) == before, "an unprivileged start started nothing")
    out = sh.run("restrict cat /dev/kpdata")
    tap.ok(sh.status() != 0 and out and any("not permitted" in l for l in out),
           "restrict cat /dev/kpdata: refused (%s)" % out)
    sh.run("restrict -p profile echo stoq > /dev/kpctl")
    tap.ok(sh.status() != 0, "with the profile permission the command is checked")


def check_errors(tap, sh):
    before = total(sh)
    out = sh.run("echo bogus > /dev/kpctl")
    tap.ok(sh.status() != 0 and out and any("not supported" in l for l in out),
           "echo bogus > /dev/kpctl: an error (%s)" % out)
    out = sh.run("echo stoq > /dev/kpctl")
    tap.ok(sh.status() != 0, "echo stoq > /dev/kpctl: an error")
    out = sh.run("echo start extra > /dev/kpctl")
    tap.ok(sh.status() != 0, "echo start extra > /dev/kpctl: an error")
    tap.ok(total(sh) == before, "bad commands started nothing")
    check_perms(tap, sh, before)
    sh.run("echo start > /dev/kpdata")
    tap.ok(sh.status() != 0, "kpdata cannot be written")
    sh.run("cat /dev/kpctl")
    tap.ok(sh.status() != 0, "kpctl cannot be read")
    out = sh.run("kprof -h")
    tap.ok(sh.status() == 0 and out and out[0].startswith("usage: kprof"),
           "kprof -h: usage, status 0")
    sh.run("kprof a b c")
    tap.ok(sh.status() == 2, "kprof with bad usage: status 2")


def pct(x):
    return "%.2f" % x if x is not None else "none"


def kprof_kernel_share(sh):
    """kprof's kernel share (%) of the non-idle ticks over 3 s of a
    background workload, and the number of non-idle ticks."""
    sh.run(WORK % 10 + " > /tmp/wl &")
    sh.run("sleep 1")
    sh.run("echo startclr > /dev/kpctl")
    sh.run("sleep 3")
    sh.run("echo stop > /dev/kpctl")
    tot, _, rows = report(sh.run("kprof", timeout=60))
    sh.run("sleep 8", timeout=120)        # the background workload ends
    if not tot:
        return None, 0
    idle = sum(rows.get(f, 0) for f in IDLE_FNS)
    busy = tot[0] - idle
    return (100.0 * (tot[1] - idle) / busy if busy else None), busy


def profile_kernel_share(sh):
    """The workload's kernel share (%) by the NMI profiler, and its samples."""
    for line in sh.run("profile -s rtc-nmi -f 4096 /bin/" + WORK % 3, timeout=300) or []:
        m = SAMPLES_RE.search(line)
        if m and int(m.group(1)):
            return 100.0 * int(m.group(3)) / int(m.group(1)), int(m.group(1))
    return None, 0


def check_share(tap, sh):
    kp, ticks = kprof_kernel_share(sh)
    ref, samples = profile_kernel_share(sh)
    tap.ok(kp is not None and ticks >= 2000,
           "kprof of a background workload: %s%% kernel of %d non-idle ticks" % (pct(kp), ticks))
    tap.ok(ref is not None and samples >= 10000 and 25.0 < ref <= 50.0 + SHARE_TOL,
           "profile -s rtc-nmi of the workload: %s%% kernel of %d samples" % (pct(ref), samples))
    tap.ok(kp is not None and ref is not None and abs(kp - ref) <= SHARE_TOL,
           "kprof's kernel share %s%% within %.0f points of the NMI profiler's %s%%"
           % (pct(kp), SHARE_TOL, pct(ref)))


def main():
    tap = Tap()
    shell_session(tap, [check_profile, check_control, check_errors], cpus=2,
                  icount=bt.PROFILE_ICOUNT)
    shell_session(tap, [check_share], cpus=1, icount=bt.PROFILE_ICOUNT)
    tap.done()


if __name__ == "__main__":
    main()
