#!/usr/bin/env python3
"""test/restart.t - servers that come back (issue 27, MINIX 3's
reincarnation server as the anchor).

Boots the default ISO to the shell prompt and, as an unprivileged user
would see it:

- kills the file service (`kill ID`, the id from `tasks`): init says it
  restarted fs as a new task, `ls /bin` works at once (the shell's own
  file service phone reconnects), a pipeline works, and /tmp is empty
  again (what fs held only in memory is lost, as documented);
- a descriptor opened before the kill is stale: `tester fsstale` opens a
  file, waits for fs to be killed and restarted, then reads through the
  old descriptor (EBADF) and opens the file anew (works): never a hang;
- kills the console: init restarts it, a new shell comes to the prompt
  on the serial line, commands work, and the kernel's own log lines
  still reach the serial line;
- a server that keeps dying is started again only after a pause (init's
  back-off: more than INIT_RESTARTS_MAX deaths within its window), and
  the system works again after it (checked by killing fs six times in a
  row).

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

BOOT_WAIT = 180
RESTART_RE = r"init: %s \(task (\d+)\) ended \(status [^)]*\); restarted as task (\d+)"


def wait_since(g, mark, regex, timeout):
    """The first line from line mark on matching regex, or None."""
    g.seen = mark
    return g.expect(regex, timeout=timeout)


def task_id(sh, name):
    """The id of the task called name in `tasks`, or None."""
    out = sh.run("tasks") or []
    for line in out:
        f = line.split()
        if len(f) >= 7 and f[-1] == name and f[0].isdigit():
            return int(f[0])
    return None


def check_fs(tap, sh):
    sh.run("echo kept > /tmp/before")
    fs = task_id(sh, "fs")
    if not tap.ok(fs is not None, "tasks shows the file service (%s)" % fs):
        return
    mark = len(sh.g.lines())
    sh.run("kill %d" % fs)
    m = wait_since(sh.g, mark, RESTART_RE % "fs", 30)
    tap.ok(m and int(m.group(1)) == fs and int(m.group(2)) != fs,
           "init restarts fs as a new task (%s)" % (m and m.group(0)))
    out = sh.run("ls /bin")
    tap.ok(out is not None and "sh" in out and "fs" in out,
           "ls /bin works after the restart (%r)" % (out or [])[:3])
    out = sh.run("ls /bin | wc -l")
    tap.ok(out and out[-1].strip().isdigit() and int(out[-1]) > 10,
           "a pipeline works after the restart (%r)" % out)
    out = sh.run("cat /tmp/before")
    tap.ok(out and any("No such file" in l for l in out),
           "/tmp was the old server's memory: the file is gone (%r)" % out)
    new = task_id(sh, "fs")
    tap.ok(new is not None and new != fs, "tasks shows the new fs (%s)" % new)


def check_stale(tap, sh):
    """A descriptor of the old server gives EBADF; a new open works."""
    sh.run("echo data > /tmp/stale")
    mark = len(sh.g.lines())
    sh.run("tester fsstale /tmp/stale &")
    if not tap.ok(wait_since(sh.g, mark, r"fsstale: opened", 30),
                  "fsstale opened its file"):
        return
    fs = task_id(sh, "fs")
    mark = len(sh.g.lines())
    sh.run("kill %d" % fs)
    m = wait_since(sh.g, mark, r"fsstale: old descriptor: (.*)$", 30)
    tap.ok(m and "Bad file descriptor" in m.group(1),
           "the descriptor opened before the restart gives EBADF (%s)"
           % (m and m.group(1)))
    m = wait_since(sh.g, mark, r"fsstale: new open: (.*)$", 30)
    tap.ok(m and "No such file" in m.group(1),
           "a new open reaches the new server (its /tmp is empty: %s)"
           % (m and m.group(1)))


def check_console(tap, sh):
    con = task_id(sh, "console")
    if not tap.ok(con is not None, "tasks shows the console (%s)" % con):
        return
    mark = len(sh.g.lines())
    sh.g.send("kill %d\r" % con)
    m = wait_since(sh.g, mark, RESTART_RE % "console", 30)
    tap.ok(m and int(m.group(1)) == con,
           "init restarts the console (%s)" % (m and m.group(0)))
    tap.ok(sh.prompt(timeout=60), "a shell comes to the prompt again")
    out = sh.run("echo back")
    tap.ok(out == ["back"], "commands work on the new console (%r)" % out)
    new = task_id(sh, "console")
    tap.ok(new is not None and new != con, "tasks shows the new console (%s)" % new)
    out = sh.run("tester klog restart-probe")
    tap.ok(sh.g.expect(r"restart-probe", timeout=10) is not None,
           "kernel log lines reach the serial line after the restart (%r)" % out)


def check_backoff(tap, sh):
    """fs killed again and again: init pauses before the next start.
    Each new id comes from init's message, so the kills follow each
    other within init's window."""
    pause = None
    fs = task_id(sh, "fs")
    for _ in range(8):
        if fs is None:
            break
        mark = len(sh.g.lines())
        sh.run("kill %d" % fs)
        m = wait_since(sh.g, mark, RESTART_RE % "fs", 60)
        fs = int(m.group(2)) if m else None
        pause = wait_since(sh.g, mark, r"init: fs \(task \d+\) ended .* times "
                           r"within \d+ s; restarting in (\d+) s$", 0)
        if pause:
            break
    tap.ok(pause is not None and int(pause.group(1)) >= 1,
           "a server that keeps dying is restarted after a pause (%s)"
           % (pause and pause.group(0)))
    tap.ok(fs is not None, "... and it is back after the pause (task %s)" % fs)
    out = sh.run("ls /bin | wc -l")
    tap.ok(out and out[-1].strip().isdigit(), "the system works again (%r)" % out)


def main():
    tap = Tap()
    g = Guest(bt.ISO, cpus=2)
    sh = Shell(g)
    if tap.ok(sh.prompt(timeout=BOOT_WAIT), "boot reaches the prompt"):
        for check in (check_fs, check_stale, check_console, check_backoff):
            check(tap, sh)
    g.send("poweroff\r")
    tap.ok(g.finish(timeout=60) == 0, "poweroff ends QEMU")
    if os.environ.get("RESTART_LOG"):
        with open(os.environ["RESTART_LOG"], "w") as f:
            f.write("\n".join(g.lines()))
    bad = [l for l in g.lines() if l.startswith("panic")]
    tap.ok(not bad, "no panic (%r)" % bad[:3])
    tap.done()


if __name__ == "__main__":
    main()
