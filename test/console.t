#!/usr/bin/env python3
"""test/console.t - the console server (/bin/console) driven over COM1.

Boots "-- contest" (init starts /bin/console, then runs /bin/contest) with
QEMU's COM1 on a pipe both ways, types at it and checks:

- typed characters are echoed, a line is delivered on Enter (uppercased
  back by contest), backspace and the left arrow edit the line;
- Ctrl-D on an empty line is end of file;
- kernel log lines still reach the serial port after the claim (contest
  runs "tester fault null": the kernel's "task: N (tester): ... killed");
- Ctrl-C kills the foreground task ("tester spin 100");
- raw mode delivers every byte at once, unechoed, Ctrl-C included;
- issue 27, with probes contest starts as `restrict contest probe ...`
  (no permissions, not in the foreground): SET_FG of the file service or
  of itself and SET_MODE are refused (EPERM) and a later Ctrl-C leaves fs
  alive; a probe tree's 18 reads at once get 10 ELIMITs (4 per task, 8
  per tree), the console's status shows the tree's 8, and the line the
  user types next goes to contest, never to a probe;
- "quit" ends contest and QEMU exits with the pass code;
- the default boot (no arguments) reaches the kernel's "smp:" line, the
  console server says it serves, and init complains about nothing.

TAP on stdout, for prove.
"""

import os
import re
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in test/lib
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))

import boottest as bt  # noqa: E402
import vm  # noqa: E402
from guest import Guest, make_iso  # noqa: E402
from tap import Tap  # noqa: E402

KERNEL = os.path.join(bt.BUILD, "kernel.elf")
INITRD = os.path.join(bt.BUILD, "initrd.tar")
PASS_EXIT = 1


def check_editing(tap, g):
    """Echo, a delivered line, backspace and the left arrow, Ctrl-D."""
    tap.ok(g.expect(r"contest> $", partial=True), "the prompt appears")
    g.send("hello")
    tap.ok(g.expect(r"contest> hello$", partial=True),
           "typed characters are echoed")
    g.send("\r")
    tap.ok(g.expect(r"^contest: line 'HELLO'$"),
           "Enter delivers the line")
    g.send("abx\x7fc\r")
    tap.ok(g.expect(r"^contest: line 'ABC'$"),
           "backspace edits the line (abx<BS>c gives abc)")
    g.send("ac\x1b[Db\r")
    tap.ok(g.expect(r"^contest: line 'ABC'$"),
           "left arrow moves in the line (ac<Left>b gives abc)")
    g.send("\x04")
    tap.ok(g.expect(r"contest: eof$"),
           "Ctrl-D at the start of a line is end of file")


def wait_count(g, regex, n, timeout=60):
    """Wait until n lines match regex (anywhere in the line); the count."""
    pat = re.compile(regex)
    deadline = time.monotonic() + timeout
    while True:
        count = len([l for l in g.lines() if pat.search(l)])
        if count >= n or time.monotonic() > deadline:
            return count
        time.sleep(0.2)


def check_probe_fg(tap, g):
    """Issue 27 hole 2: SET_FG and SET_MODE from outside the foreground."""
    g.send("probe fg\r")
    tap.ok(g.expect(r"probe: set_fg fs \(task [1-9]\d*\): EPERM$"),
           "an unprivileged background probe cannot make fs the foreground")
    tap.ok(g.expect(r"probe: set_fg self: EPERM$"),
           "nor itself (it is not in the foreground)")
    tap.ok(g.expect(r"probe: set_mode raw: EPERM$"),
           "nor switch the terminal to raw mode")
    tap.ok(g.expect(r"^contest: probe ended with status 0x0$"), "the probe ended")
    g.send("\x03")
    g.send("alive fs\r")
    tap.ok(g.expect(r"^contest: fs alive$"), "Ctrl-C afterwards left fs alive")


def check_probe_read(tap, g):
    """Issue 27 hole 9: background reads are bounded and get no input."""
    g.send("probe read\r")
    tap.ok(g.expect(r"^contest: probe started$"), "contest started the read probe")
    n = wait_count(g, r"probe: read refused \(ELIMIT\)", 10)
    tap.ok(n == 10, "18 reads from one probe tree: 10 refused with ELIMIT "
           "(4 a task, 8 a tree; got %d)" % n)
    g.send("probe status\r")
    m = g.expect(r"^contest: probe reads all (\d+) task (\d+) tree (\d+) ")
    tap.ok(m and m.group(1) == "8" and m.group(3) == "8" and int(m.group(2)) <= 4,
           "the console's status shows the tree's 8 queued reads (%s)"
           % (m.group(0) if m else "no status"))
    g.send("secret\r")
    tap.ok(g.expect(r"^contest: line 'SECRET'$"),
           "the foreground still reads: the typed line goes to contest")
    g.send("probe kill\r")
    tap.ok(g.expect(r"^contest: probes ended \(3 killed\)$"),
           "contest killed the probe's three tasks")
    stolen = [l for l in g.lines() if "probe: read got" in l]
    tap.ok(not stolen, "no probe read got the user's input")
    for l in stolen:
        tap.diag("  " + l)


def check_kernel_log(tap, g):
    """A kernel line after the claim, whole."""
    g.send("fault\r")
    m = g.expect(r"^task: \d+ \(tester\): .* killed$")
    tap.ok(m, "the kernel's 'task: ... killed' line reaches COM1 after the claim")
    tap.ok(g.expect(r"^contest: task \d+ ended with status 0x102$"),
           "contest saw the faulting tester killed")


def check_ctrl_c(tap, g):
    """Ctrl-C kills the foreground task."""
    g.send("spin\r")
    m = g.expect(r"^contest: started task (\d+) \(tester spin 100\)$")
    tap.ok(m, "contest started 'tester spin 100' in the foreground")
    time.sleep(1)
    g.send("\x03")
    tap.ok(g.expect(r"^contest: task %s ended with status 0x101$"
                    % (m.group(1) if m else r"\d+"), timeout=30),
           "Ctrl-C killed the foreground task (well before its 100 s)")


def check_raw(tap, g):
    """Raw mode: bytes at once, no echo, Ctrl-C delivered."""
    g.send("raw\r")
    tap.ok(g.expect(r"^contest: raw mode$"), "contest switched to raw mode")
    g.send("a")
    tap.ok(g.expect(r"^contest: byte 0x61$"), "raw mode delivers 'a' at once")
    g.send("\x03")
    tap.ok(g.expect(r"^contest: byte 0x03$"), "raw mode delivers Ctrl-C as a byte")
    echoed = [l for l in g.lines() if l == "a"]
    tap.ok(not echoed, "raw mode does not echo")
    g.send("quit")
    tap.ok(g.expect(r"^contest: cooked mode$"), "'quit' in raw mode: cooked again")


def contest_boot(tap, tmp):
    g = Guest(make_iso(tmp, "contest", "-- contest"))
    ok = tap.ok(g.expect(r"^console: serving COM1 and ", timeout=120),
                "the console server announces itself")
    ok &= bool(tap.ok(g.expect(r"^contest: ready$"), "contest runs"))
    if ok:
        check_editing(tap, g)
        check_probe_fg(tap, g)
        check_probe_read(tap, g)
        check_kernel_log(tap, g)
        check_ctrl_c(tap, g)
        check_raw(tap, g)
    g.send("quit\r")
    tap.ok(g.expect(r"^contest: bye$"), "'quit' ends contest")
    code = g.finish()
    tap.ok(code == PASS_EXIT, "QEMU exit code %s (contest exited 0)" % code)
    bad = [l for l in g.lines() if re.match(r"^panic: ", l)]
    tap.ok(not bad, "no panic")
    if not ok or code != PASS_EXIT:
        for l in g.lines()[-40:]:
            tap.diag("  " + l)


def default_boot(tap):
    r = vm.boot(bt.ISO, cpus=2, accel=bt.accel(), timeout=180,
                until=r"^console: serving COM1 and ", linger=3.0)
    tap.ok(r.grep(r"^smp: "), "default boot: the kernel's smp: line")
    tap.ok(r.matched, "default boot: the console server serves")
    bad = r.grep(r"^init: .*(did not register|cannot|error)")
    tap.ok(not bad, "default boot: init complains about nothing")
    for l in bad:
        tap.diag("  " + l)


def main():
    tap = Tap()
    bt.need_file(tap, KERNEL, "kernel")
    bt.need_file(tap, INITRD, "initrd")
    with tempfile.TemporaryDirectory(prefix="vernier-console.") as tmp:
        contest_boot(tap, tmp)
    default_boot(tap)
    tap.done()


if __name__ == "__main__":
    main()
