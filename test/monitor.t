#!/usr/bin/env python3
"""test/monitor.t - the monitoring tools (tasks, stats, sysinfo) in a guest.

Boots the default ISO once with 2 CPUs to the shell prompt and types:

- `tasks`: the servers and the shell (init, ns, console, fs, sh) each with
  an id, at least one thread, memory and times that parse;
- `tasks -t ID` of the shell: its thread, waiting for a child (tasks),
  and its off-CPU seconds by reason; `tasks -a`: every thread, kernel
  threads (task 0) too and one running (tasks itself);
- off-CPU reasons (abi/wait.h): `sleep 60 &`'s thread waits for "sleep"
  and its sleep seconds grow by at least 0.99 over the shell's `sleep
  1`; an `ipcload ratio` client waits for "ipc ipcload.WORK";
- `tasks -c`: two CPUs online whose busy, idle and interrupt shares add
  up to 100%; `tasks -l`: the load averages;
- `stats`: "HH:MM:SS up D days, HH:MM:SS, load average: A B C";
- `sysinfo`: the root's keys (kernel, system, boot); an integer leaf
  (system.tsc_hz); decoded records (system.cpus, system.tasks.ID); a
  text (kernel.version); a missing path: the error and status 1;
- every tool with a bad option or operand: its usage and status 2;
  `tasks -t` of a task that does not exist: status 1.

Then poweroff; no panic. Two short boots with 1 and 4 CPUs check that
`tasks -c`, `stats`, `sysinfo system.cpus` and `top -b` see every CPU.
TAP on stdout, for prove.
"""

import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in test/lib
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))

import boottest as bt  # noqa: E402
from guest import Guest, Shell  # noqa: E402
from tap import Tap  # noqa: E402

BOOT_WAIT = 120
SERVERS = ("init", "ns", "console", "fs", "sh")
SIZE = r"\d+(?:B|\.\d[KMGT])"
SECONDS = r"\d+\.\d\d"
TASK_RE = re.compile(r"^\s*(\d+)\s+(\d+)\s+(%s)\s+(%s)\s+(%s)\s+(%s)\s+(.+)$"
                     % (SIZE, SIZE, SECONDS, SECONDS))
THREAD_RE = re.compile(r"^\s*(\d+)\s+(\d+)\s+(ready|running|sleeping|zombie)"
                       r"\s+(\d+)\s+(\d+)\s+(%s)\s+(%s)\s+(-|ipc \S+|[a-z]+)\s+(.*)$"
                       % (SECONDS, SECONDS))
OFF_HEAD = "off-CPU seconds by reason (since each thread began):"
OFF_RE = re.compile(r"^\s*(\d+)((?:\s+[a-z]+ %s)*)$" % SECONDS)
CPU_RE = re.compile(r"^\s*(\d+)\s+(yes|no)\s+(\d+)\s+(\d+\.\d)%\s+"
                    r"(\d+\.\d)%\s+(\d+\.\d)%$")
LOAD = r"\d+\.\d\d \d+\.\d\d \d+\.\d\d"
STATS_RE = re.compile(r"^[0-2]\d:[0-5]\d:[0-6]\d up \d+ days?, "
                      r"[0-2]\d:[0-5]\d:[0-5]\d, load average: %s$" % LOAD)


def rows(out, regex):
    """The match objects of the lines of out that match regex."""
    return [m for m in (regex.match(l) for l in out or []) if m]


def show(tap, out):
    for l in (out or ["(no output)"])[:40]:
        tap.diag("  | " + l)


def check_tasks(tap, sh):
    """`tasks`; returns the id of the shell's task (or None)."""
    out = sh.run("tasks")
    tasks = rows(out, TASK_RE)
    names = {os.path.basename(m.group(7).strip()): int(m.group(1))
             for m in tasks}
    missing = [s for s in SERVERS if s not in names]
    header = out and re.match(r"^\s*ID\s+THREADS\s+VIRT\s+RES\s+USER\s+SYS\s+"
                              r"NAME$", out[0])
    if not tap.ok(header and not missing and len(tasks) == len(out) - 1,
                  "tasks lists %s (missing: %s)" % (", ".join(SERVERS), missing)):
        show(tap, out)
    ids = [int(m.group(1)) for m in tasks]
    tap.ok(ids and len(set(ids)) == len(ids) and ids == sorted(ids),
           "... each task once, by id (%s)" % ids)
    tap.ok(tasks and all(int(m.group(2)) >= 1 for m in tasks),
           "... every task has a thread")
    tap.ok(tasks and all(m.group(3) != "0B" for m in tasks if int(m.group(1))),
           "... and mapped memory")
    return names.get("sh")


def check_threads(tap, sh, sh_id):
    out = sh.run("tasks -t %d" % sh_id)
    threads = rows(out, THREAD_RE)
    offs = rows(out, OFF_RE)
    if not tap.ok(threads and all(int(m.group(2)) == sh_id for m in threads)
                  and len(threads) + len(offs) == len(out) - 2 and OFF_HEAD in out,
                  "tasks -t %d: the shell's thread(s) (%d), their off-CPU times" %
                  (sh_id, len(threads))):
        show(tap, out)
    tap.ok(threads and threads[0].group(8) == "child" and
           [int(m.group(1)) for m in offs] == [int(m.group(1)) for m in threads],
           "... the shell waits for a child (tasks itself) (%r)" %
           [m.group(8) for m in threads])
    out = sh.run("tasks -a")
    threads = rows(out, THREAD_RE)
    kernel = [m for m in threads if int(m.group(2)) == 0]
    running = [m for m in threads if m.group(3) == "running"]
    if not tap.ok(kernel and len(threads) > len(kernel) and running,
                  "tasks -a: %d threads, %d of task 0, %d running"
                  % (len(threads), len(kernel), len(running))):
        show(tap, out)
    out = sh.run("tasks -t 999999")
    tap.ok(out and "no such task" in out[-1] and sh.status() == 1,
           "tasks -t of a missing task: error and status 1 (%r)" % out)


def off_seconds(out, tid):
    """Thread tid's off-CPU seconds by reason from tasks -t output."""
    for m in rows(out, OFF_RE):
        if int(m.group(1)) == tid:
            words = m.group(2).split()
            return {words[i]: float(words[i + 1]) for i in range(0, len(words), 2)}
    return {}


def check_waits(tap, sh):
    """Off-CPU accounting by reason (issue 17): a sleeping task's thread
    says sleep and its sleep time grows by at least a guest second over a
    guest second; an IPC client waiting for its server names it."""
    out = sh.run("sleep 60 &")
    job = re.match(r"^\[\d+\] (\d+)$", (out or [""])[-1])
    tid = int(job.group(1)) if job else 0
    first = sh.run("tasks -t %d" % tid)
    sh.run("sleep 1")
    second = sh.run("tasks -t %d" % tid)
    rows2 = rows(second, THREAD_RE)
    a, b = off_seconds(first, int(rows2[0].group(1)) if rows2 else 0), \
        off_seconds(second, int(rows2[0].group(1)) if rows2 else 0)
    tap.ok(rows2 and rows2[0].group(8) == "sleep", "tasks -t: sleep 60 waits for sleep (%r)"
           % (second or [])[:2])
    grew = b.get("sleep", 0) - a.get("sleep", 0)
    tap.ok(grew >= 0.99 and b.get("runnable", 0) < 0.5,
           "... its sleep seconds grow by %.2f over the shell's sleep 1 (%r -> %r)"
           % (grew, a, b))
    sh.run("ipcload -n 20 -u 100000 -l 0 ratio > /tmp/waits.txt &")
    sh.run("sleep 2")
    out = sh.run("tasks -a") or []
    waits = [m.group(8) for m in rows(out, THREAD_RE) if m.group(9).startswith("ipcload")]
    tap.ok("ipc ipcload.WORK" in waits,
           "tasks -a: an ipcload client waits for ipc ipcload.WORK (%r)" % waits)
    for _ in range(30):
        if any(" done: " in l for l in sh.run("cat /tmp/waits.txt") or []):
            break
        sh.run("sleep 1")


def check_cpus(tap, sh):
    out = sh.run("tasks -c")
    cpus = rows(out, CPU_RE)
    sums = [sum(float(m.group(i)) for i in (4, 5, 6)) for m in cpus]
    if not tap.ok(len(cpus) == 2 and [int(m.group(1)) for m in cpus] == [0, 1]
                  and all(m.group(2) == "yes" and int(m.group(3)) > 0
                          for m in cpus),
                  "tasks -c: CPUs 0 and 1, online, with their MHz"):
        show(tap, out)
    tap.ok(sums and all(abs(s - 100.0) <= 0.3 for s in sums),
           "... busy + idle + irq = 100%% (%s)" % sums)
    out = sh.run("tasks -l")
    tap.ok(out and re.match(r"^load average: %s$" % LOAD, out[-1]),
           "tasks -l: load average (%r)" % out)
    out = sh.run("stats")
    tap.ok(out and len(out) == 1 and STATS_RE.match(out[0]),
           "stats: time, uptime, load average (%r)" % out)


def check_sysinfo(tap, sh, sh_id):
    out = sh.run("sysinfo")
    tap.ok(out and {"kernel", "system", "boot"} <= set(out),
           "sysinfo lists kernel, system and boot (%r)" % out)
    out = sh.run("sysinfo system")
    tap.ok(out and {"system.tsc_hz", "system.cpus", "system.tasks"} <= set(out),
           "sysinfo system: full paths (%d keys)" % len(out or []))
    out = sh.run("sysinfo system.tsc_hz")
    m = out and re.match(r"^system\.tsc_hz = (\d+)$", out[-1])
    tap.ok(m and 10**8 <= int(m.group(1)) <= 10**11,
           "sysinfo system.tsc_hz: an integer (%r)" % out)
    out = sh.run("sysinfo system.cpus")
    tap.ok(out and len(out) == 2 and out[0].startswith("id=0 active=1 mhz="),
           "sysinfo system.cpus: two decoded records (%r)" % out)
    if sh_id is not None:
        out = sh.run("sysinfo system.tasks.%d" % sh_id)
        tap.ok(out and len(out) == 1 and
               re.match(r'^id=%d parent=\d+ name="[^"]*sh"' % sh_id, out[0]),
               "sysinfo system.tasks.%d: the shell's record (%r)" % (sh_id, out))
        out = sh.run("sysinfo system.limits.%d" % sh_id)
        tap.ok(out and len(out) == 1 and
               re.match(r"^task=%d tree=\d+ box_calls=\d+ box_calls_max=4096 "
                        r"box_answers=\d+ box_answers_max=4096 threads=1 "
                        r"threads_max=256 tree_tasks=\d+ tree_tasks_max=1024 "
                        r"regions=\d+ regions_max=4096 prof_sessions=0 "
                        r"prof_sessions_max=4 bin_bytes=\d+ bin_bytes_max=4194304 "
                        r"bin_tree=\d+ bin_denied=0$" % sh_id, out[0]),
               "sysinfo system.limits.%d: the shell's usage and limits (%r)"
               % (sh_id, out))
    out = sh.run("sysinfo kernel.version")
    tap.ok(out and re.match(r"^kernel\.version = Vernier", out[-1]),
           "sysinfo kernel.version: text (%r)" % out)
    out = sh.run("sysinfo system.nope")
    tap.ok(out == ["sysinfo: system.nope: No such file or directory"],
           "sysinfo system.nope: error (%r)" % out)
    tap.ok(sh.status() == 1, "... and status 1")


def check_usage(tap, sh):
    for line in ("tasks -x", "tasks -t abc", "tasks extra", "stats -x",
                 "stats extra", "sysinfo -x", "sysinfo a b"):
        name = line.split()[0]
        out = sh.run(line)
        st = sh.status()
        tap.ok(out and any(l.startswith("usage: %s [-h]" % name) for l in out)
               and st == 2, "%s: usage and status 2 (%r, %s)" % (line, out, st))
    for name in ("tasks", "stats", "sysinfo"):
        out = sh.run("%s -h" % name)
        tap.ok(out and out[0].startswith("usage: " + name) and sh.status() == 0,
               "%s -h: usage and status 0" % name)


def quick_boot(tap, cpus):
    """The tools on another CPU count: tasks -c, stats, sysinfo, top -b."""
    name = "[bios cpus=%d]" % cpus
    g = Guest(bt.ISO, cpus=cpus)
    sh = Shell(g)
    if tap.ok(sh.prompt(timeout=BOOT_WAIT), "%s boot reaches the shell prompt" % name):
        out = sh.run("tasks -c")
        ids = [int(m.group(1)) for m in rows(out, CPU_RE)]
        tap.ok(ids == list(range(cpus)), "%s tasks -c lists CPUs %s" % (name, ids))
        out = sh.run("stats")
        tap.ok(out and STATS_RE.match(out[-1]), "%s stats (%r)" % (name, out))
        out = sh.run("sysinfo system.cpus")
        tap.ok(out and len(out) == cpus, "%s sysinfo system.cpus: %d records"
               % (name, len(out or [])))
        out = sh.run("top -b -n 1 -v c", timeout=60)
        tap.ok(out and out[0].startswith("top - ") and
               len([l for l in out if re.match(r"^\s*cpu\s*\d+\b", l, re.I)]) >= cpus,
               "%s top -b shows every CPU" % name)
    g.send("poweroff\r")
    tap.ok(g.finish(timeout=60) == 0, "%s poweroff ends QEMU" % name)


def main():
    tap = Tap()
    bt.need_file(tap, bt.ISO, "ISO")
    g = Guest(bt.ISO, cpus=2)
    sh = Shell(g)
    if not tap.ok(sh.prompt(timeout=BOOT_WAIT), "boot reaches the shell prompt"):
        show(tap, g.lines()[-30:])
        g.finish(timeout=1)
        tap.done()
    sh_id = check_tasks(tap, sh)
    if tap.ok(sh_id is not None, "the shell's task id is %s" % sh_id):
        check_threads(tap, sh, sh_id)
    check_waits(tap, sh)
    check_cpus(tap, sh)
    check_sysinfo(tap, sh, sh_id)
    check_usage(tap, sh)
    g.send("poweroff\r")
    code = g.finish(timeout=60)
    tap.ok(code == 0, "poweroff ends QEMU (exit code %s)" % code)
    bad = bt.trouble(g.lines())
    if not tap.ok(not bad, "no panic, exception or fault in the log"):
        show(tap, bad)
    for cpus in (1, 4):
        quick_boot(tap, cpus)
    tap.done()


if __name__ == "__main__":
    main()
