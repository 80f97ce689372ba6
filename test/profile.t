#!/usr/bin/env python3
"""test/profile.t - the profilers /bin/sprofile and /bin/profile from the shell.

One boot of the default ISO on 2 CPUs, with QEMU's COM2 going to a host
file, checks:
- usage: -h prints the usage to stdout with status 0; bad options (a bad
  number, an unknown source, -p over 100, -t without -c, no target,
  both -t and a PROGRAM) print it to stderr with status 2;
- the kernel names its sources (`sysinfo system.profiler.sources`: pmc,
  rtc, rtc-nmi, timer in its order); `sprofile` with no -s names the
  first usable one without NODEFAULT in its start line and report head,
  -s takes the kernel's names, an absent source is refused with the list
  of what the kernel has;
- `sprofile -d 2` prints the summary line `samples: T total, U user,
  K kernel, I idle, L lost` with T > 0 and T = U + K + I, status 0, and
  the shell reads the next line normally;
- `profile /bin/workload -d 2 alpha:1` prints `Samples:`, a row naming
  alpha and the task's exit status; with -g too;
- `profile -t ID` of a running `workload` that exits mid-session ends
  with a report and `task ID exited with status 0`;
- permissions: `restrict sprofile` and `restrict profile -t 1` get the
  permission message (status 1), `restrict profile /bin/hello` works
  (a parent may profile its child), `profile -t 99999`: no such task;
  `restrict -p profile sprofile -o com2` lacks the io permission;
- `sprofile -d 1 -o /tmp/p.dat` writes a stream (a multiple of 8 bytes,
  holding the magic);
- `sprofile -d 1 -o com2`: a line with what COM2 carried (KiB/s, samples/s
  with and without -g, from the writes timed) and a line with what the
  session asks of it (1000 samples/s of 48 bytes per CPU: "the line
  carries it"; `-g -f 10000 -d 0.3` asks 2.4 MiB/s, more than a TCG line
  carries: "expect about N% of the samples lost"); the host file of COM2
  holds the streams:
  the header record with the magic first, well-formed records, the END
  record last (and build/host/vprof, if built, reads it);
- keys: `sprofile` ends on q with its report; `profile` of a workload
  prints the table on p and, after e, again on p, and quits on q.

TAP on stdout, for prove.
"""

import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in test/lib
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))

import boottest as bt  # noqa: E402
from guest import PROMPT, shell_session  # noqa: E402
from tap import Tap  # noqa: E402

BOOT_WAIT = 120
SUMMARY_RE = re.compile(r"samples: (\d+) total, (\d+) user, (\d+) kernel, "
                        r"(\d+) idle, (\d+) lost")
EXIT_RE = r"^profile: task (\d+) exited with status 0$"
# Found anywhere in a line: on the console the status line ("\r"-rewritten
# on stderr) is erased with an escape, which the harness strips.
SAMPLES_RE = r"Samples: +\d+ total, +\d+ user, +\d+ kernel"
ROW_RE = r"0x[0-9a-f]+ +\d+ +\d+ +[\d.]+%% +\S*%s$"  # address samples ns % symbol
MAGIC = b"VPROF\0\0\0"
REC_HEADER, REC_END = 1, 8
BAD = ("sprofile -x", "sprofile -f 0", "sprofile -f 100001", "sprofile -s bogus",
       "sprofile -p 101", "sprofile -d abc", "sprofile -t 5", "profile",
       "profile -x hello", "profile -t abc", "profile -t 5 hello",
       "profile -s bogus hello", "profile -d 0 hello")
COM2 = os.path.join(tempfile.mkdtemp(prefix="vernier-profile-"), "com2.bin")


def has_usage(out, prog):
    return bool(out) and any(l.startswith("usage: " + prog) for l in out)


def check_usage(tap, sh):
    for prog in ("sprofile", "profile"):
        out = sh.run("%s -h" % prog)
        tap.ok(out and out[0].startswith("usage: " + prog) and sh.status() == 0,
               "%s -h: usage, status 0" % prog)
        out = sh.run("%s -h > /tmp/h.txt; wc -l < /tmp/h.txt" % prog)
        tap.ok(out and len(out) == 1 and int(out[0].strip()) >= 5,
               "%s -h: the usage goes to stdout (%r)" % (prog, out))
    for cmd in BAD:
        out = sh.run(cmd)
        prog = cmd.split()[0]
        tap.ok(has_usage(out, prog) and sh.status() == 2,
               "%s: usage, status 2 (%r)" % (cmd, (out or [])[:1]))
    out = sh.run("sprofile -x > /tmp/u.txt; wc -c < /tmp/u.txt")
    tap.ok(has_usage(out, "sprofile") and out[-1].strip() == "0",
           "a usage error goes to stderr, not stdout (%r)" % (out or [])[-1:])


SRC_AVAILABLE, SRC_NODEFAULT = 0x100, 0x4


def check_sources(tap, sh):
    """The kernel names its sources; tools take names and the default from it."""
    rows = [dict(re.findall(r'(\w+)=("[^"]*"|\S+)', line))
            for line in sh.run("sysinfo system.profiler.sources") or []]
    names = [r.get("name", "").strip('"') for r in rows]
    tap.ok(names == ["pmc", "rtc", "rtc-nmi", "timer"] and
           [r.get("id") for r in rows] == ["1", "2", "3", "4"],
           "system.profiler.sources: the kernel's sources in its order (%r)" % names)
    flags = {n: int(r.get("flags", "0"), 16) for n, r in zip(names, rows)}
    want = next((n for n in names if flags[n] & SRC_AVAILABLE and
                 not flags[n] & SRC_NODEFAULT), None)
    out = sh.run("sprofile -d 0.5", timeout=60)
    tap.ok(want and out and any("every CPU, %s at" % want in ln for ln in out) and
           any(("source: %s at" % want) in ln for ln in out),
           "the default is the first usable source without NODEFAULT, named in "
           "the start line and the report head (%s; %r)" % (want, (out or [])[:3]))
    out = sh.run("sprofile -s timer -d 0.5", timeout=60)
    tap.ok(out and any("every CPU, timer at" in ln for ln in out),
           "-s takes the kernel's name (%r)" % (out or [])[:1])
    missing = [n for n in names if not flags[n] & SRC_AVAILABLE]
    if missing:
        out = sh.run("sprofile -s %s -d 0.5" % missing[0], timeout=60)
        have = " ".join(n for n in names if flags[n] & SRC_AVAILABLE)
        tap.ok(out and any("source %s not available: this machine has %s" %
                           (missing[0], have) in ln for ln in out),
               "an absent source is refused with what the kernel has (%r)" % (out or [])[:2])
    else:
        tap.ok(flags and all(f & SRC_AVAILABLE for f in flags.values()),
               "every source usable here (%r)" % flags)


def summary(out):
    """The numbers of sprofile's summary line, or None."""
    for line in out or []:
        m = SUMMARY_RE.search(line)
        if m:
            return [int(x) for x in m.groups()]
    return None


def check_sprofile(tap, sh):
    out = sh.run("sprofile -d 2", timeout=60)
    s = summary(out)
    tap.ok(s and s[0] > 0, "sprofile -d 2: summary line with samples (%r)" % s)
    tap.ok(s and s[0] == s[1] + s[2] + s[3],
           "... total = user + kernel + idle (%r)" % s)
    tap.ok(sh.status() == 0, "... status 0, and the shell reads the next line")
    if not s:
        for line in (out or [])[-20:]:
            tap.diag("  " + line)


def has_samples(out):
    """Whether profile's report (its Samples: line) is in out."""
    return any(re.search(SAMPLES_RE, l) for l in out or [])


def has_row(out, name):
    """Whether a report row's symbol ends in name (work_alpha for alpha)."""
    return any(re.search(ROW_RE % name, l) for l in out or [])


def check_profile(tap, sh):
    out = sh.run("profile /bin/workload -d 2 alpha:1", timeout=60)
    tap.ok(has_samples(out), "profile /bin/workload: a Samples: line")
    tap.ok(has_row(out, "alpha"), "... a row naming alpha")
    tap.ok(out and any(re.match(EXIT_RE, l) for l in out) and sh.status() == 0,
           "... the task's exit status, status 0")
    if not has_row(out, "alpha"):
        for line in (out or [])[-20:]:
            tap.diag("  " + line)
    out = sh.run("profile -g workload -d 1 alpha:1 beta:1", timeout=60)
    tap.ok(has_samples(out) and has_row(out, "beta") and sh.status() == 0,
           "profile -g workload: a report naming beta, status 0")
    for line in (out or [])[-30:]:
        tap.diag("  " + line)


def check_attach(tap, sh):
    started = time.monotonic()
    out = sh.run("workload -d 3 alpha:1 &")
    m = re.match(r"^\[\d+\] (\d+)$", (out or [""])[-1])
    if not tap.ok(m, "workload -d 3 & starts (%r)" % out):
        return
    tid = m.group(1)
    time.sleep(0.5)
    t0 = time.monotonic()
    out = sh.run("profile -t %s" % tid, timeout=60)
    took = time.monotonic() - t0
    tap.ok(has_samples(out) and has_row(out, "alpha"),
           "profile -t %s: a report naming alpha" % tid)
    tap.ok(out and ("profile: task %s exited with status 0" % tid) in out,
           "... ended by the task's exit (%.1f s)" % took)
    tap.ok(sh.status() == 0, "... status 0")
    time.sleep(max(0, started + 4 - time.monotonic()))   # the workload is gone
    sh.run("echo")


def check_perms(tap, sh):
    out = sh.run("restrict sprofile -d 1")
    tap.ok(out and "sprofile: permission denied (needs the profile permission)"
           in out and sh.status() == 1,
           "restrict sprofile: permission denied, status 1 (%r)" % out)
    out = sh.run("restrict profile -t 1")
    tap.ok(out and "profile: permission denied (needs the profile permission)"
           in out and sh.status() == 1,
           "restrict profile -t 1: permission denied, status 1 (%r)" % out)
    out = sh.run("restrict profile /bin/hello", timeout=60)
    tap.ok(has_samples(out) and sh.status() == 0,
           "restrict profile /bin/hello: a parent may "
           "profile its child without the permission")
    out = sh.run("profile -t 99999")
    tap.ok(out == ["profile: no task 99999"] and sh.status() == 1,
           "profile -t 99999: no such task, status 1 (%r)" % out)
    out = sh.run("restrict -p profile sprofile -d 1 -o com2")
    tap.ok(out and any("com2: permission denied (needs the io permission)" in l
                       for l in out) and sh.status() == 1,
           "-o com2 without the io permission: an error, status 1 (%r)" % out)


def check_file(tap, sh):
    out = sh.run("sprofile -d 1 -o /tmp/p.dat", timeout=60)
    tap.ok(summary(out) and sh.status() == 0, "sprofile -d 1 -o /tmp/p.dat: status 0")
    out = sh.run("wc -c < /tmp/p.dat")
    size = int(out[0]) if out and out[0].strip().isdigit() else 0
    tap.ok(size > 128 and size % 8 == 0,
           "... the file is a stream of 8-byte multiples (%d bytes)" % size)
    out = sh.run("grep -c VPROF /tmp/p.dat")
    tap.ok(out and out[0].isdigit() and int(out[0]) >= 1,
           "... holding the magic (%r)" % out)


CPUS = 2
COM2_FIGURE_RE = re.compile(r"sprofile: com2 carries about (\d+) KiB/s here "
                            r"\((\d+) bytes timed.*: "
                            r"about (\d+) samples/s, (\d+)/s with -g")
NEED_RE = re.compile(r"sprofile: com2: this session asks about (\d+) KiB/s "
                     r"\((\d+) samples/s of (\d+) bytes\): (.*)$")


def need_line(out):
    """The match of sprofile's "this session asks" line in out, or None."""
    return next((NEED_RE.search(l) for l in out or [] if NEED_RE.search(l)), None)


def check_com2(tap, sh):
    out = sh.run("sprofile -d 1 -o com2", timeout=60)
    tap.ok(summary(out) and sh.status() == 0, "sprofile -d 1 -o com2: status 0")
    m = next((COM2_FIGURE_RE.search(l) for l in out or []
              if COM2_FIGURE_RE.search(l)), None)
    tap.ok(m and int(m.group(1)) > 0 and int(m.group(2)) > 0 and
           int(m.group(3)) > int(m.group(4)) > 0,
           "-o com2 says what the line carries (%s)"
           % (m.group(0) if m else out))
    n = need_line(out)
    tap.ok(n and int(n.group(2)) == 1000 * CPUS and int(n.group(3)) == 56 and
           n.group(4) == "the line carries it",
           "-o com2 says what the session asks and that it fits (%s)"
           % (n.group(0) if n else out))
    out = sh.run("sprofile -g -f 10000 -d 0.3 -o com2", timeout=120)
    n = need_line(out)
    tap.ok(n and int(n.group(2)) == 10000 * CPUS and int(n.group(3)) == 136 and
           re.match(r"expect about \d+% of the samples lost", n.group(4)),
           "-g -f 10000 -o com2: it says how much will be lost (%s)"
           % (n.group(0) if n else out))


def records(data):
    """[(type, size)] of a stream, or None where it is malformed."""
    recs, at = [], 0
    while at + 16 <= len(data):
        rtype, size = struct.unpack_from("<HH", data, at)
        if size < 16 or size % 8 or at + size > len(data):
            return None
        recs.append((rtype, size))
        at += size
    return recs if at == len(data) else None


def check_com2_file(tap):
    data = open(COM2, "rb").read() if os.path.exists(COM2) else b""
    tap.ok(data[16:24] == MAGIC and struct.unpack_from("<H", data)[0] == REC_HEADER,
           "COM2's host file starts with the header record and magic (%d bytes)"
           % len(data))
    recs = records(data)
    tap.ok(recs and recs[-1][0] == REC_END,
           "... well-formed records, the END record last (%s)" %
           (recs[-1:] if recs else "malformed"))
    vprof = os.path.join(bt.BUILD, "host", "vprof")
    if os.path.exists(vprof):
        r = subprocess.run([vprof, COM2], capture_output=True, text=True,
                           timeout=60)
        s = summary(r.stdout.splitlines())
        tap.ok(r.returncode == 0 and s and s[0] > 0,
               "build/host/vprof reads it: summary %r" % s)


def check_keys(tap, sh):
    g = sh.g
    g.seen = len(g.lines())
    g.send("sprofile\r")
    time.sleep(2)
    g.send("q")
    tap.ok(g.expect(SUMMARY_RE.pattern, timeout=60),
           "sprofile: q ends it and prints the report")
    tap.ok(g.expect(PROMPT, timeout=30, partial=True), "... the prompt comes back")
    g.seen = len(g.lines())
    g.send("profile workload -d 6 alpha:1\r")
    time.sleep(2)
    g.send("p")
    tap.ok(g.expect(SAMPLES_RE, timeout=30), "profile: p prints the table")
    g.send("e")
    tap.ok(g.expect(SAMPLES_RE, timeout=30) and
           g.expect(r"session ended; p prints the table again", timeout=30),
           "... e ends the session and prints the report")
    g.send("p")
    tap.ok(g.expect(SAMPLES_RE, timeout=30), "... then p prints it again")
    g.send("q")
    tap.ok(g.expect(PROMPT, timeout=30, partial=True), "... and q quits")
    tap.ok(g.expect(r"^workload: total ", timeout=30),
           "... leaving the workload running to its end")
    g.send("\r")                       # its lines took the prompt's line
    sh.prompt(timeout=10)
    out = sh.run("echo back")
    if not tap.ok(out and out[-1] == "back", "the shell works after the keys (%r)" % out):
        for line in g.lines()[-12:] + ["(unfinished) " + g.reader.partial()]:
            tap.diag("  log: " + line)


def main():
    tap = Tap()
    bt.need_file(tap, bt.ISO, "ISO")
    shell_session(tap, (check_usage, check_sources, check_sprofile, check_profile,
                        check_attach, check_perms, check_file, check_com2,
                        check_keys),
                  cpus=CPUS, boot_wait=BOOT_WAIT, extra="-serial file:" + COM2)
    check_com2_file(tap)
    shutil.rmtree(os.path.dirname(COM2), ignore_errors=True)
    tap.done()


if __name__ == "__main__":
    main()
