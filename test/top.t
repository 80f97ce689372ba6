#!/usr/bin/env python3
"""test/top.t - top (/bin/top) from the shell on a 2-CPU guest.

Boots the default ISO to the shell prompt and checks:
- usage: `top -h` exits 0, a bad option or a too short -d prints the
  usage and gives status 2;
- the ground truth of issue 5: with one thread spinning (`tester spin 10
  &`) on an otherwise idle 2-CPU machine, the second snapshot of
  `top -b -n 2 -d 2` shows one CPU at least 90% busy and the other at
  most 10% beyond the other tasks' %CPU (top and the console printing
  the first snapshot; 30% at most), and the tester task near 100% of
  one CPU; the snapshots each
  start with `top - HH:MM:SS up`, the first has no escapes; -s reports
  what a refresh cost (printed here for the issue's note);
- IPC origins (issue 16): while `ipcload ratio` runs, a client's IMP%
  (CPU its server spends on it) is at least 20 and every ipcload row's
  TOTAL% is its %CPU + IMP%; afterwards `tasks -i` lists ipcload tasks
  with imposed and served cycles and their (client, server) pairs;
- off-CPU reasons (issue 17): in `top -b -n 2 -d 1 -v T` a `sleep 30 &`
  thread's WAIT is "sleep" with %SLP >= 90, the shell's "child", top's
  own "-";
- the full-screen mode: `top` draws a header, the keys e, c, i, T (with
  Enter: every thread) and t switch the view, R dumps the flight
  recorder to /tmp/recorder.1.prof (the status line says so; sprofdiff
  reads the file and finds samples of the console server and of
  idle_wait in it), q ends it and the shell prompt comes back and works.

TAP on stdout, for prove.
"""

import os
import re
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in test/lib
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))

import boottest as bt  # noqa: E402
from guest import PROMPT, shell_session  # noqa: E402
from tap import Tap  # noqa: E402

BOOT_WAIT = 120
HEADER_RE = r"^top - \d\d:\d\d:\d\d up "
CPU_RE = re.compile(r"^cpu(\d+) +\[[| ]*\] +([\d.]+)% busy +([\d.]+)% idle")
# A tasks row: ID THR %CPU IMP% TOTAL% USER KERNEL RES VIRT NAME
TASK_RE = re.compile(r"^ *(\d+) +(\d+) +([\d.]+) +([\d.]+) +([\d.]+) +\S+ +\S+ +\S+ +\S+ "
                     r"(\S+)$")


def check_usage(tap, con):
    out = con.run("top -h")
    tap.ok(out and out[0].startswith("usage: top") and con.status() == 0,
           "top -h: usage, status 0 (%r)" % (out or [])[:1])
    out = con.run("top -x")
    tap.ok(out and any(l.startswith("usage: top") for l in out) and
           con.status() == 2, "top -x: usage, status 2 (%r)" % (out or [])[:2])
    out = con.run("top -b -d 0.05")
    tap.ok(out and any(l.startswith("usage: top") for l in out) and
           con.status() == 2, "top -d 0.05 is too short: status 2")
    out = con.run("top -b -n 1 > /tmp/top.txt")
    tap.ok(out == [] and con.status() == 0,
           "top -b -n 1 to a file: status 0 (%r)" % out)
    out = con.run("head -n 1 /tmp/top.txt")
    tap.ok(out and re.match(HEADER_RE, out[0]), "... which starts 'top - ' (%r)" % out)
    out = con.run("top > /tmp/x")
    tap.ok(out and "not a terminal" in out[0] and con.status() == 1,
           "top without -b to a file: an error, status 1 (%r)" % out)


def snapshots(lines):
    """Split top -b output into snapshots (lists of lines)."""
    snaps = []
    for line in lines:
        if re.match(HEADER_RE, line):
            snaps.append([])
        if snaps:
            snaps[-1].append(line)
    return snaps


def cpu_busy(snap):
    """{cpu: busy %} of a snapshot."""
    return {int(m.group(1)): float(m.group(2))
            for m in map(CPU_RE.match, snap) if m}


def task_cpu(snap, name):
    """The %CPU of the first task called name in a snapshot, or None."""
    for line in snap:
        m = TASK_RE.match(line)
        if m and m.group(6) == name:
            return float(m.group(3))
    return None


def check_spin(tap, con):
    out = con.run("tester spin 10 &")
    tap.ok(out and re.match(r"^\[\d+\] \d+$", out[-1]),
           "tester spin 10 & starts (%r)" % out)
    time.sleep(0.5)
    out = con.run("top -b -n 2 -d 2 -s", timeout=30) or []
    snaps = snapshots(out)
    if not tap.ok(len(snaps) == 2, "top -b -n 2: two snapshots (%d)" % len(snaps)):
        for line in out[-40:]:
            tap.diag("  " + line)
        return
    tap.ok(all("\x1b" not in l for l in out), "batch output has no escapes")
    busy = cpu_busy(snaps[1])
    # The other CPU runs what the other tasks ran (top printing its first
    # snapshot through the console: 4.7% here, 10.3% in one loaded CI run).
    others = sum(float(m.group(3)) for m in map(TASK_RE.match, snaps[1])
                 if m and m.group(6) != "tester")
    tap.ok(len(busy) == 2 and max(busy.values()) >= 90 and
           min(busy.values()) <= 10 + others and min(busy.values()) <= 30,
           "second snapshot: one CPU >= 90%% busy, the other <= 10%% beyond what the "
           "other tasks ran (%r, other tasks %.1f%%)" % (busy, others))
    pct = task_cpu(snaps[1], "tester")
    tap.ok(pct is not None and 90 <= pct <= 110,
           "the tester task: about 100%% of one CPU (%r)" % pct)
    tap.ok(cpu_busy(snaps[0]) and task_cpu(snaps[0], "top") is not None,
           "the first snapshot (since boot) lists CPUs and top itself")
    cost = [l for l in out if l.startswith("top.refresh")]
    tap.ok(any(re.match(r"^top\.refresh \d+ cycles$", l) for l in cost),
           "-s: what a refresh costs")
    for line in cost + [l for l in out if l.startswith("tsc.hz")]:
        tap.diag(line)
    tap.ok(con.g.expect(r"spin: thread 0 ", timeout=20),
           "the spinner ends (before the full-screen checks)")


def check_imposed(tap, con):
    # ipcload's clients make its server work for them: top's IMP% shows it
    # (TOTAL% = %CPU + IMP%), tasks -i the cycles and the pairs (while it
    # runs: exited tasks are not listed).
    con.run("ipcload -n 400 -u 5000 -l 1000 ratio > /tmp/il.txt &")
    time.sleep(1)
    out = con.run("top -b -n 2 -d 1", timeout=30) or []
    snaps = snapshots(out)
    rows = [m for m in map(TASK_RE.match, snaps[-1] if snaps else []) if m]
    ipc = [tuple(float(m.group(i)) for i in (3, 4, 5))
           for m in rows if m.group(6) == "ipcload"]
    if not tap.ok(ipc and max(imp for _, imp, _ in ipc) >= 20,
                  "top: a client of ipcload has IMP%% >= 20 (%r)" % ipc):
        for line in out[-30:]:
            tap.diag("  " + line)
    tap.ok(ipc and all(abs(cpu + imp - tot) <= 0.2 for cpu, imp, tot in ipc),
           "top: TOTAL%% is %%CPU + IMP%% (%r)" % ipc)
    out = con.run("tasks -i") or []
    tasks = [l.split() for l in out if l.endswith(" ipcload") and len(l.split()) == 6]
    tap.ok(con.status() == 0 and any(int(t[1]) > 0 for t in tasks) and
           any(int(t[2]) > 0 for t in tasks),
           "tasks -i: ipcload tasks with imposed and served cycles (%r)" % tasks[:4])
    pairs = [l for l in out if re.match(r"^ *\d+ ipcload +\d+ ipcload +\d+ +\d+ ", l)]
    tap.ok(len(pairs) >= 2, "tasks -i: (client, server) pairs of ipcload (%r)" % pairs[:3])
    for _ in range(60):
        if any(" done: " in l for l in con.run("cat /tmp/il.txt") or []):
            break
        time.sleep(1)


THREAD_RE = re.compile(r"^ *(\d+) +(\d+) +[RrSZ] +\d+ +\d+ +([\d.]+) +([\d.]+) +([\d.]+) +"
                       r"([\d.]+) +([\d.]+) +\S+ +\S+ +\S+ +(-|ipc \S+|[a-z]+) +(\S+)$")


def check_waits(tap, con):
    # The thread view (issue 17): what each thread waits for and the shares
    # of the interval it spent off its CPU by reason. `sleep 30 &` sleeps
    # the whole second snapshot: WAIT "sleep" and %SLP near 100.
    con.run("sleep 30 &")
    out = con.run("top -b -n 2 -d 1 -v T", timeout=30) or []
    snaps = snapshots(out)
    rows = [m for m in map(THREAD_RE.match, snaps[-1] if snaps else []) if m]
    sleeper = [(m.group(8), float(m.group(5))) for m in rows if m.group(9) == "sleep"]
    if not tap.ok(sleeper and sleeper[0][0] == "sleep" and sleeper[0][1] >= 90,
                  "top -v T: sleep's thread waits for sleep, %%SLP >= 90 (%r)" % sleeper):
        for line in out[-20:]:
            tap.diag("  " + line)
    waits = {m.group(9): m.group(8) for m in rows}
    tap.ok(waits.get("sh") == "child" and waits.get("top") == "-",
           "top -v T: the shell waits for a child, top runs (%r)" % waits)


def key_shows(tap, g, key, regex, what):
    g.send(key)
    tap.ok(g.expect(regex, timeout=15), "full screen: %r shows %s" % (key, what))


def check_screen(tap, con):
    g = con.g
    g.seen = len(g.lines())
    g.send("top\r")
    if not tap.ok(g.expect(HEADER_RE, timeout=20), "full screen: top draws a header"):
        for line in g.lines()[-15:]:
            tap.diag("  " + line)
        return
    tap.ok(g.expect(r"^cpu1 +\[", timeout=5), "... and a line per CPU")
    key_shows(tap, g, "e", r"^ *VEC +COUNT +DELTA +CYCLES", "interrupts and exceptions")
    key_shows(tap, g, "c", r"^ *CPU +ON +MHZ +%BUSY", "the CPUs")
    key_shows(tap, g, "i", r"^ *ID +CALLS> ", "IPC")
    key_shows(tap, g, "T\r", r"^ *TID +TASK +S ", "threads (Enter: of every task)")
    key_shows(tap, g, "t", r"^ *ID +THR +%CPU ", "tasks")
    key_shows(tap, g, "R", r"sorted by .*recorder: \d+ KiB to /tmp/recorder\.1\.prof",
              "the flight recorder dumped to /tmp/recorder.1.prof")
    time.sleep(1.5)
    g.send("q")
    tap.ok(g.expect(PROMPT, timeout=15, partial=True), "q: the prompt comes back")
    out = con.run("echo back $?")
    tap.ok(out == ["back 0"], "the shell works after top (%r)" % out)
    out = con.run("sprofdiff /tmp/recorder.1.prof /tmp/recorder.1.prof; echo status $?")
    tap.ok(out and out[-1] == "status 0" and any(re.search(r"\bconsole$", l) for l in out) and
           any("idle_wait [k]" in l for l in out),
           "R's dump is a stream sprofdiff reads: samples of the console and idle_wait (%r)"
           % out[-4:])


def main():
    tap = Tap()
    bt.need_file(tap, bt.ISO, "ISO")
    shell_session(tap, (check_usage, check_imposed, check_waits, check_spin, check_screen), cpus=2,
                  boot_wait=BOOT_WAIT)
    tap.done()


if __name__ == "__main__":
    main()
