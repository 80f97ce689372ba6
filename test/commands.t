#!/usr/bin/env python3
"""test/commands.t - the standard commands (/bin/echo, cat, ls, grep, wc,
head, mkdir, rm, sleep, kill, date, poweroff, reboot) booted in QEMU.

There is no shell yet, so most boots have the command line
"-- runall CMD,ARG... CMD,ARG...": init runs /bin/runall, which runs each
command in turn between "runall: $ CMD ARGS" and "runall: CMD exited with
status S" (standard output and error both reach COM1). For every command
the exit status and the exact output are checked (a pattern where they
vary, like the date). The boots:

- four of runall commands: files and listings; grep, /tmp changes, sleep
  (it must take its time), kill; errors and usage errors; every
  command's -h;
- one with input typed on COM1: cat, wc, grep and head read standard
  input (Ctrl-D ends it; the echoed input is left out of the comparison);
- "-- cat /nonexistent /etc/motd" straight from init: init's "exited with
  status 1" line and QEMU's fail code;
- "-- poweroff" and "-- reboot": QEMU ends by itself, with status 0, after
  the kernel's power line (runall's commands lack the system permission:
  there they fail);
- "-- echo w1 ... w20 xxx..." (1,170 bytes): the kernel keeps 1,023 of
  them and says so, init takes 14 words and says so, and echo prints its
  13 (the last word taken once kept the rest of the line with it).

Each boot must also end as it should (QEMU's pass code after runall) with
no panic and no task killed for a fault. Contents and sizes of files come
from build/initrd.tar. GRUB limits the command line to
[A-Za-z0-9 ._,=:/+-], the kernel keeps 1,023 bytes of it and init takes 14
words after "--": a runall boot has at most 13 commands, and grep's
special characters are left to test/unit/test_match.c. TAP on stdout,
for prove.
"""

import os
import re
import sys
import tarfile
import tempfile
from collections import namedtuple

sys.dont_write_bytecode = True  # no __pycache__ in test/lib
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))

import boottest as bt  # noqa: E402
import suite  # noqa: E402
import vm  # noqa: E402
from guest import Guest  # noqa: E402
from tap import Tap  # noqa: E402

TIMEOUT = 120           # seconds per boot (one takes 2-4 s under TCG)
MAX_COMMANDS = 13       # init's 14 words after "--", runall being one
CMDLINE_MAX = 1023      # the kernel keeps 1023 bytes of its command line
# A command line past both limits: 20 words after "--", then a long one.
LONG_WORDS = ["w%d" % i for i in range(1, 21)]
LONG_LINE = "-- echo " + " ".join(LONG_WORDS) + " " + "x" * 1100

# A command for runall ("ls,-l,/tmp"), its exit status, and its output:
# the exact text, or a compiled pattern the whole text must match.
# min_s: the least time it may take; typed: (text typed, regex of the line
# to wait for before typing on, or None) in turn, for the typed boot.
Cmd = namedtuple("Cmd", "command status output min_s typed",
                 defaults=(0.0, ()))
# One runall block of a log: the command, its output (lines as written,
# then any unterminated rest), status (None if it did not start), times.
Block = namedtuple("Block", "command text status start end")

START_RE = re.compile(r"^runall: \$ (.*)$")
END_RE = re.compile(r"^(.*)runall: (\S+) exited with status (-?\d+)$")
CANNOT_RE = re.compile(r"^runall: cannot run ")
DATE_RE = re.compile(r"(Sun|Mon|Tue|Wed|Thu|Fri|Sat) "
                     r"(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) "
                     r"[ 1-3]\d [0-2]\d:[0-5]\d:[0-6]\d UTC \d{4}\n")
PROGRAMS = ("echo", "cat", "ls", "grep", "wc", "head", "mkdir", "rm",
            "sleep", "kill", "date", "poweroff", "reboot")


def usage(name, before=""):
    """The output of a usage error: optional lines, then the usage text."""
    return re.compile(re.escape(before) + r"usage: %s \[-h\].*" % name,
                      re.S)


class Initrd:
    """What the commands will find in /bin and /etc."""

    def __init__(self, path):
        with tarfile.open(path) as tar:
            self.files = {m.name: tar.extractfile(m).read()
                          for m in tar.getmembers() if m.isfile()}
        self.bin = sorted(n[4:] for n in self.files if n.startswith("bin/"))
        self.motd = self.files["etc/motd"].decode()

    def wc(self, *paths):
        """wc's output for files of the initrd (a total after several)."""
        total = [0, 0, 0]
        out = ""
        for p in paths:
            data = self.files[p.lstrip("/")]
            counts = (data.count(b"\n"), len(data.split()), len(data))
            total = [a + b for a, b in zip(total, counts)]
            out += "%7d %7d %7d %s\n" % (counts + (p,))
        if len(paths) > 1:
            out += "%7d %7d %7d total\n" % tuple(total)
        return out


def runall_boots(ird):
    """The runall boots: (name, [Cmd])."""
    motd = ird.motd
    first = motd.splitlines(True)[0]
    msize = len(ird.files["etc/motd"])
    enoent = "No such file or directory"
    files = [
        Cmd("echo,hello,world", 0, "hello world\n"),
        Cmd("echo,-n,no,newline", 0, "no newline"),
        Cmd("ls,/bin", 0, "".join(n + "\n" for n in ird.bin)),
        # /boot/kernel: the kernel's ELF for the profilers (mkinitrd.sh).
        Cmd("ls,-l,/boot,/etc/motd", 0, "- %10d /etc/motd\n\n/boot:\n"
            "- %10d kernel\n" % (msize, len(ird.files["boot/kernel"]))),
        Cmd("ls,/etc/motd,/nonexistent", 1,
            "/etc/motd\nls: /nonexistent: %s\n" % enoent),
        Cmd("cat,/etc/motd", 0, motd),
        Cmd("cat,/nonexistent,/etc/motd", 1,
            "cat: /nonexistent: %s\n%s" % (enoent, motd)),
        Cmd("cat,/bin", 1, "cat: /bin: Is a directory\n"),
        Cmd("wc,/etc/motd", 0, ird.wc("/etc/motd")),
        Cmd("wc,/bin/echo,/etc/motd", 0, ird.wc("/bin/echo", "/etc/motd")),
        Cmd("wc,-l,-c,/etc/motd", 0, "%7d %7d /etc/motd\n"
            % (motd.count("\n"), msize)),
        Cmd("head,-n,1,/etc/motd", 0, first),
        Cmd("head,-1,/etc/motd,/etc/motd", 0, "==> /etc/motd <==\n%s\n"
            "==> /etc/motd <==\n%s" % (first, first)),
    ]
    changes = [
        Cmd("grep,-c,e,/etc/motd", 0, "1\n"),
        Cmd("grep,-n,-i,VERN.ER,/etc/motd", 0, "1:" + first),
        Cmd("grep,-v,Wel,/etc/motd", 1, ""),
        Cmd("grep,W.l,/nope,/etc/motd", 2,
            "grep: /nope: %s\n/etc/motd:%s" % (enoent, first)),
        Cmd("mkdir,-p,/tmp/a/b,/tmp/c", 0, ""),
        Cmd("mkdir,/tmp/c,/tmp/x/y", 1, "mkdir: /tmp/c: File exists\n"
            "mkdir: /tmp/x/y: %s\n" % enoent),
        Cmd("ls,-l,/tmp,/tmp/a", 0, "/tmp:\nd          0 a\nd          0 c\n"
            "\n/tmp/a:\nd          0 b\n"),
        Cmd("rm,/tmp/a,/tmp/no", 1, "rm: /tmp/a: Is a directory\n"
            "rm: /tmp/no: %s\n" % enoent),
        Cmd("rm,-r,/tmp/a,/tmp/c", 0, ""),
        Cmd("rm,-f,/tmp/no", 0, ""),
        Cmd("ls,/tmp", 0, ""),
        Cmd("sleep,0.5", 0, "", min_s=0.5),
        Cmd("kill,99,abc", 1, "kill: 99: No such task or thread\n"
            "kill: abc: not a task id\n"),
    ]
    errors = [
        Cmd("echo,--,-n", 0, "-n\n"),
        Cmd("date", 0, DATE_RE),
        Cmd("date,-u,+today", 0, "today\n"),
        Cmd("date,now", 2, usage("date")),
        Cmd("poweroff", 1, "poweroff: Operation not permitted\n"),
        Cmd("reboot,now", 2, usage("reboot")),
        Cmd("sleep,1x", 2, usage("sleep", "sleep: 1x: not a number of "
                                 "seconds\n")),
        Cmd("ls,-x", 2, usage("ls", "ls: invalid option -- 'x'\n")),
        Cmd("grep", 2, usage("grep")),
        Cmd("head,-n,x", 2, usage("head", "head: x: not a line count\n")),
        Cmd("rm,-r,/,/bin/echo", 1, "rm: refusing to remove /\n"
            "rm: /bin/echo: Operation not permitted\n"),
        Cmd("kill", 2, usage("kill")),
        Cmd("wc,/nonexistent", 1, "wc: /nonexistent: %s\n" % enoent),
    ]
    helps = [Cmd(p + ",-h", 0, usage(p)) for p in PROGRAMS]
    return [("files", files), ("changes", changes), ("errors", errors),
            ("help", helps)]


# Standard input typed on COM1; the output leaves out the echoed lines.
TYPED = [
    Cmd("cat", 0, "hello\n", typed=(("hello\r", r"^hello$"), ("\x04", None))),
    Cmd("wc", 0, "      2       3      14\n",
        typed=(("one two\rthree\r\x04", None),)),
    Cmd("grep,-n,o", 0, "1:foo\n3:baz o\n",
        typed=(("foo\r", r"^1:foo$"), ("bar\r", r"^bar$"),
               ("baz o\r", r"^3:baz o$"), ("\x04", None))),
    Cmd("head,-n,1", 0, "first\n", typed=(("first\r", None),)),
    Cmd("cat,-,/etc/motd", 0, "x\nWelcome to Vernier.\n",
        typed=(("x\r\x04", None),)),
]


def blocks(events):
    """The runall blocks of a log ([(time, line)]), in order."""
    out, cur = [], None
    for t, line in events:
        m = START_RE.match(line)
        if cur is None:
            if m:
                cur = (m.group(1), [], t)
            continue
        m = END_RE.match(line)
        if m or CANNOT_RE.match(line):
            text = "".join(l + "\n" for l in cur[1])
            text += m.group(1) if m else ""
            status = int(m.group(3)) if m else None
            out.append(Block(cur[0], text, status, cur[2], t))
            cur = None
        else:
            cur[1].append(line)
    return out


def without_echo(text, typed):
    """text without the first occurrence of each line typed."""
    lines = text.split("\n")
    for t in "".join(typed).replace("\x04", "").split("\r")[:-1]:
        if t in lines:
            lines.remove(t)
    return "\n".join(lines)


def check_command(tap, name, cmd, block):
    """The command ran, exited with its status and wrote its output."""
    words = cmd.command.replace(",", " ")
    got = block.text if block else None
    if block and cmd.typed:
        got = without_echo(got, [t for t, _ in cmd.typed])
    if got is None:
        good = False
    elif isinstance(cmd.output, str):
        good = got == cmd.output
    else:
        good = cmd.output.fullmatch(got) is not None
    status_ok = block is not None and block.status == cmd.status
    ok = tap.ok(status_ok and good, "%s %s: status %d, output as expected"
                % (name, words, cmd.status))
    if not ok:
        tap.diag("%s expected status %d, output %r" % (
            name, cmd.status, getattr(cmd.output, "pattern", cmd.output)))
        what = ("status %s, output %r" % (block.status, got) if block
                else "nothing (it did not run)")
        tap.diag("%s got %s" % (name, what))
    if ok and cmd.min_s:
        took = block.end - block.start
        ok = tap.ok(took >= cmd.min_s, "%s %s took at least %.1f s (%.2f s)"
                    % (name, words, cmd.min_s, took))
    return ok


def check_runall(tap, name, cmds, r):
    """Each command's block, in order; the boot ended as it should."""
    found = blocks(r.events)
    passed = True
    for i, cmd in enumerate(cmds):
        block = found[i] if i < len(found) else None
        if block and block.command != cmd.command.replace(",", " "):
            block = None
        passed &= check_command(tap, name, cmd, block)
    passed &= tap.ok(len(found) == len(cmds), "%s runall ran %d commands"
                     % (name, len(cmds)))
    passed &= suite.check_clean_log(tap, name, r.lines)
    passed &= tap.ok(r.exit_code == suite.PASS_EXIT and not r.timed_out,
                     "%s runall exited 0, QEMU with the pass code" % name)
    if not passed:
        bt.show_tail(tap, r)


def typed_boot(iso):
    """Boot the typed commands' runall; type each one's input once it has
    started; the whole log."""
    g = Guest(iso, accel=bt.accel())
    wait = TIMEOUT
    for cmd in TYPED:
        start = r"^runall: \$ %s$" % re.escape(cmd.command.replace(",", " "))
        if not g.expect(start, timeout=wait):
            break
        wait = 60
        for text, until in cmd.typed:
            g.send(text)
            if until and not g.expect(until):
                break
    g.finish(timeout=60)
    return g.result()


def check_direct(tap, r):
    """"-- cat /nonexistent /etc/motd": output, init's line, fail code."""
    name = "[init cat]"
    ok = tap.ok(r.grep(r"^cat: /nonexistent: No such file or directory$")
                and r.grep(r"^Welcome to Vernier\.$"),
                "%s cat /nonexistent /etc/motd: the error, then the file"
                % name)
    ok &= tap.ok(r.grep(r"^init: /bin/cat \(task \d+\) exited with status 1$"),
                 "%s init reports exit status 1" % name)
    ok &= tap.ok(r.exit_code == suite.FAIL_EXIT,
                 "%s QEMU exit code %d (a command that failed)"
                 % (name, suite.FAIL_EXIT))
    if not ok:
        bt.show_tail(tap, r)


def check_power(tap, how, r):
    """"-- poweroff" / "-- reboot": QEMU ends by itself, cleanly."""
    name = "[init %s]" % how
    line = (r"^power: off \(ACPI S5\)$" if how == "poweroff"
            else r"^power: reboot$")
    ok = tap.ok(not r.timed_out and r.exit_code == 0,
                "%s QEMU ended by itself with status 0 (got %s)"
                % (name, r.exit_code))
    ok &= tap.ok(r.grep(line), "%s the kernel logged the request" % name)
    ok &= tap.ok(not r.grep(r"^init: /bin/%s " % how),
                 "%s %s did not return to init" % (name, how))
    if not ok:
        bt.show_tail(tap, r)


def check_long(tap, r):
    """LONG_LINE: both limits said, the words taken whole."""
    name = "[init long]"
    given = len(LONG_LINE)
    ok = tap.ok(r.grep(r"^vernier: warning: command line cut to %d of its %d bytes$"
                       % (CMDLINE_MAX, given)),
                "%s the kernel says it kept %d of the %d bytes" % (name, CMDLINE_MAX, given))
    ok &= tap.ok(r.grep(r'^kinit: warning: init gets only the first 14 words after "--"$'),
                 "%s kinit says init gets 14 words" % name)
    ok &= tap.ok(r.grep("^%s$" % " ".join(LONG_WORDS[:13])),
                 "%s echo printed its 13 words, the last one alone" % name)
    if not ok:
        bt.show_tail(tap, r)


def boot_job(iso):
    """A job for run_parallel: boot iso until QEMU ends."""
    return (bt.weight(2), lambda: vm.boot(iso, cpus=2, accel=bt.accel(),
                                          timeout=TIMEOUT))


def main():
    """Build the ISOs, boot them (run_parallel), check each."""
    tap = Tap()
    bt.need_file(tap, suite.KERNEL, "kernel")
    bt.need_file(tap, suite.INITRD, "initrd")
    ird = Initrd(suite.INITRD)
    boots = runall_boots(ird)
    lines = ["-- runall " + " ".join(c.command for c in cmds)
             for _, cmds in boots + [("typed", TYPED)]]
    assert all(len(cmds) <= MAX_COMMANDS for _, cmds in boots)
    assert all(len(line) <= CMDLINE_MAX for line in lines)
    with tempfile.TemporaryDirectory(prefix="vernier-commands.") as tmp:
        isos = [suite.make_iso(tmp, line) for line in lines]
        direct = [suite.make_iso(tmp, "-- " + c) for c in
                  ("cat /nonexistent /etc/motd", "poweroff", "reboot")]
        direct.append(suite.make_iso(tmp, LONG_LINE))
        jobs = [boot_job(iso) for iso in isos[:-1]]
        jobs.append((bt.weight(2), lambda: typed_boot(isos[-1])))
        jobs += [boot_job(iso) for iso in direct]
        results = list(bt.run_parallel(jobs))
    for (name, cmds), r in zip(boots + [("typed", TYPED)], results):
        check_runall(tap, "[%s]" % name, cmds, r)
    check_direct(tap, results[len(boots) + 1])
    for how, r in zip(("poweroff", "reboot"), results[len(boots) + 2:]):
        check_power(tap, how, r)
    check_long(tap, results[-1])
    tap.done()


if __name__ == "__main__":
    main()
