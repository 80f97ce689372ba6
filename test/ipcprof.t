#!/usr/bin/env python3
"""test/ipcprof.t - IPC-aware profiling against ground truth (issue 16).

/bin/ipcload's ratio run has a server and two clients with equal local
work whose calls cost the server 3:1 of its CPU time (client 1 asks 3 *
US per call, client 2 US). With `sprofile -c` covering the whole run
(ipcload starts a second after it):
- the server takes at least 10,000 samples, and those serving calls are
  attributed to client 1 and client 2 (the report by origin's "[ipc
  ipcload.WORK]  SERVER  path C -> SERVER" rows) as the clients'
  imposed cycles split, within 1.5 percentage points (the kernel's exact
  accounting, which itself must lie within 3 points of the asked 75/25:
  the clients' real split, not the asked one, is what the samples must
  meet), on 1 and on 4 CPUs, with the rtc-nmi and the timer sources, both
  under -icount shift=0 (2 points on 4 CPUs: below). (Not plain TCG on 4 CPUs, as
  test/groundtruth.t does: on this loaded 2-core host TCG delivers the
  sample interrupts in bursts and late, and with calls of 5-20 ms client
  1's share came out 73.7 to 79.5%, while the cycle accounting of the
  same runs said 74-75%. Under -icount on 4 CPUs the timer gives 74.9%,
  rtc-nmi 75.7-76.5%, and the timer once 73.4% against 74.9% accounted:
  QEMU's vCPU turns still move the shares a little, hence 2 points on 4
  CPUs; on 1 CPU both are within 0.05 points.)
- the clients' imposed_cycles (the kernel's accounting, printed by each
  client after its last call) sum to the server's served_cycles within 1%.
The chain run (client -> S1 -> S2, 1 CPU): S2's samples are charged to
the client with the path client -> S1 -> S2 (the task ids ipcload names).
Origin stacks (1 CPU): `sprofile -c -g -o com2` of a ratio run lists
the clients' imposed samples by call site (do_calls among them); read on
the host by `vprof -C -F folded`: the server's serve_a samples sit under
`ipcload;...;do_calls;...;[ipc ipcload.WORK]`, the client's stack when it
made the call (PROF_REC_CALL).
A real server (4 CPUs): `profile -c -g -o com2 cat /boot/kernel`, read
by `vprof -C -F folded`, has the file service's stacks (ipc_server_loop;
fs_...) above `[ipc fs.READ]`, each under a stack of cat's through
fd_read.
Permissions (1 CPU): `profile -c wc /boot/kernel` gets the file
service's samples serving wc's reads, with their functions; under
`restrict` (no profile permission) every one of them is redacted to its
"[ipc ...]" frame.

Usage: ipcload -h (status 0), a bad option, value or mode (2);
sprofile -t without -c, or with a bad id (2).

TAP on stdout, for prove.
"""

import os
import re
import subprocess
import sys
import shutil
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in test/lib
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))

import boottest as bt  # noqa: E402
from guest import shell_session  # noqa: E402
from tap import Tap  # noqa: E402

TOLERANCE = 1.5               # percentage points: samples against the accounting
# 4 CPUs: QEMU's vCPU turns under -icount move the shares by about a point
# either way (see the docstring; clean-clone runs gave rtc-nmi 76.54%,
# timer 73.43% against 74.94% accounted).
TOLERANCE_4CPU = 2.0
ASKED_TOL = 3.0               # percentage points: the accounting against what was asked
MIN_SAMPLES = 10000
ACCT_TOL = 1.0                # percent: imposed against served cycles
RATIO_ARGS = "-n 250 -u 5000 -l 1000"   # server work 250 * 4 * 5 ms = 5 s
CHAIN_ARGS = "-n 40 -u 2000 -l 500"

CLIENT_RE = re.compile(r"ipcload: client (\d) task (\d+): (\d+) calls, (\d+) us asked, "
                       r"\d+ us local, imposed_cycles (\d+)")
SERVER_RE = re.compile(r"ipcload: server \S+ task (\d+): (\d+) calls, \d+ us served, "
                       r"served_cycles (\d+), (\d+) failed")
CHAIN_RE = re.compile(r"ipcload: chain done: client task (\d+) -> S1 task (\d+) -> "
                      r"S2 task (\d+)")
# A row of an origin's "imposed by server" part of sprofile -c.
IPC_ROW_RE = re.compile(r"^\s+(\d+)\s+\d+\s+[\d.]+%\s+\[ipc ipcload\.(\w+)\]\s+(\d+) \S+"
                        r"\s+path ([\d >-]+)$")

# A fixed shift, 0 (one instruction one ns): guest time follows
# instructions (issue 26 item 7). Under shift=auto the shares followed
# emulation speed (client 1 once had 72.63% against 75 on 1 CPU, and a
# 4-CPU run put 115 of 248 samples in serve_a); under shift=3 (QEMU 10,
# CI of 2026-12-02) the 4-CPU rtc-nmi run took 828 samples of the server
# (want >= 10,000) and the chain run none of S2, not understood; under
# shift=0 (2026-12-03) every share was within 0.2 points of the accounting.
ICOUNT = "0"


def ipc_rows(out):
    """[(samples, method, server, [hop ids])] of the report's ipcload rows."""
    rows = []
    for line in out or []:
        m = IPC_ROW_RE.match(line)
        if m:
            hops = [int(h) for h in m.group(4).split("->")]
            rows.append((int(m.group(1)), m.group(2), int(m.group(3)), hops))
    return rows


def run_profiled(sh, mode_args, src, hz, secs, log):
    """ipcload started by sprofile -c once its session has begun (sprofile
    PROGRAM: the session ends when it exits, or after secs); sprofile's
    output, with ipcload's lines in it, twice (report, ipcload's lines).
    Under a fixed -icount shift with sleep=off an idle guest's clock races
    ahead of the host while the harness types, so "sleep 1; ipcload &"
    before a typed sprofile once ran the whole chain before the session
    began (0 samples of it). log: kept for a look afterwards."""
    out = sh.run("sprofile -c -p 0 -s %s -f %d -d %s ipcload %s" % (src, hz, secs, mode_args),
                 timeout=600) or []
    return out, out


def check_usage(tap, sh):
    for cmd, status in (("ipcload -h", 0), ("ipcload", 2), ("ipcload -x ratio", 2),
                        ("ipcload -n 0 ratio", 2), ("ipcload nonsense", 2),
                        ("sprofile -t 5", 2), ("sprofile -c -t x", 2)):
        out = sh.run(cmd) or []
        got = sh.status()
        usage = any(l.startswith("usage: ") for l in out)
        tap.ok(got == status and usage, "%s: usage, status %s (%r)" % (cmd, got, out[:1]))


def check_ratio(tap, sh, cpus, src, hz, secs):
    what = "%d CPU%s, %s" % (cpus, "" if cpus == 1 else "s", src)
    report, out = run_profiled(sh, RATIO_ARGS + " ratio", src, hz, secs, "/tmp/ipcr.txt")
    clients = {}
    for line in out:
        m = CLIENT_RE.search(line)
        if m:
            clients[int(m.group(1))] = (int(m.group(2)), int(m.group(4)),
                                        int(m.group(5)))
    srv = [SERVER_RE.search(l) for l in out]
    srv = [m for m in srv if m]
    ok = len(clients) == 2 and len(srv) == 1 and srv[0].group(4) == "0"
    tap.ok(ok, "%s: ipcload ratio ran (%r)" % (what, out[-3:]))
    if not ok:
        for part in ("samples", "shares", "accounting"):
            tap.ok(False, "%s: %s: no run to check" % (what, part))
        return
    server = int(srv[0].group(1))
    asked = {i: clients[i][1] for i in clients}
    want = 100.0 * asked[1] / (asked[1] + asked[2])
    got = {i: 0 for i in clients}
    for count, method, s, hops in ipc_rows(report):
        for i in clients:
            if method == "WORK" and s == server and hops == [clients[i][0], server]:
                got[i] += count
    total = got[1] + got[2]
    tap.ok(total >= MIN_SAMPLES,
           "%s: %d samples of the server serving the clients (want >= %d)"
           % (what, total, MIN_SAMPLES))
    share = 100.0 * got[1] / total if total else 0.0
    imposed = clients[1][2] + clients[2][2]
    truth = 100.0 * clients[1][2] / imposed if imposed else 0.0
    tol = TOLERANCE_4CPU if cpus == 4 else TOLERANCE
    tap.ok(abs(share - truth) <= tol and abs(truth - want) <= ASKED_TOL,
           "%s: client 1 has %.2f%% of them (%d of %d); its imposed cycles %.2f%% "
           "(+- %.1f), asked %.2f%% (+- %.1f)"
           % (what, share, got[1], total, truth, tol, want, ASKED_TOL))
    served = int(srv[0].group(3))
    diff = 100.0 * abs(imposed - served) / served if served else 100.0
    tap.ok(served and diff <= ACCT_TOL,
           "%s: imposed_cycles %d + %d = %d, server's served_cycles %d (%.3f%% apart, "
           "want <= %.0f%%)" % (what, clients[1][2], clients[2][2], imposed, served,
                                diff, ACCT_TOL))


def check_chain(tap, sh):
    report, out = run_profiled(sh, CHAIN_ARGS + " chain", "timer", 1000, "5",
                               "/tmp/ipcc.txt")
    m = [CHAIN_RE.search(l) for l in out]
    m = [x for x in m if x]
    tap.ok(m and "(failed)" not in " ".join(out), "ipcload chain ran (%r)" % out[-2:])
    client, s1, s2 = (int(x) for x in m[0].groups()) if m else (0, 0, 0)
    rows = ipc_rows(report)
    via = sum(c for c, meth, s, hops in rows
              if meth == "WORK_B" and s == s2 and hops == [client, s1, s2])
    direct = sum(c for c, meth, s, hops in rows
                 if meth == "WORK" and s == s1 and hops == [client, s1])
    if not tap.ok(via > 0 and direct > 0,
                  "chain: S2's samples charged to the client through S1 (%d, path %d -> "
                  "%d -> %d), S1's directly (%d)" % (via, client, s1, s2, direct)):
        for line in (report or ["(no report: %r)" % report])[:40]:
            tap.diag("  report: " + line)
    # the STOP that ends S2 is its sender's work, not the chain's (a sample
    # once caught S2 printing its totals for it: path S1 -> S2)
    stray = [r for r in rows if r[2] == s2 and r[3] != [client, s1, s2] and r[1] != "STOP"]
    tap.ok(not stray, "chain: no S2 sample of the work with another path (%r)" % stray[:3])


IPC_SUM_RE = re.compile(r"^ipc: (\d+) samples serving calls, (\d+) redacted$")


def imposed_funcs(out):
    """The function names of the "imposed functions:" part of a -c report."""
    names, inside = [], False
    for line in out or []:
        if line.strip() == "imposed functions:":
            inside = True
        elif inside and re.match(r"^\s+\d+\s+\d+\s+[\d.]+%\s+", line):
            names.append(re.sub(r"^\s+\d+\s+\d+\s+[\d.]+%\s+", "", line))
        elif inside:
            inside = False
    return names


# Four reads of the kernel: under shift=0 (1 ns an instruction) one read
# of it at 4,000 Hz gave 0 samples of fs. -p 0: fs's functions each have
# well under the default 0.5% of wc's samples (wc counts every byte).
WC_FILES = " ".join(["/boot/kernel"] * 4)


def check_redacted(tap, sh):
    # wc reads /boot/kernel through the file service. profile -c of it
    # gets fs's samples serving wc's reads; restricted (no profile
    # permission, not fs's parent), they come without address or chain.
    for restricted in (False, True):
        cmd = "%sprofile -c -p 0 -f 10000 wc %s" % ("restrict " if restricted else "",
                                                    WC_FILES)
        out = sh.run(cmd, timeout=120) or []
        m = [IPC_SUM_RE.match(l) for l in out]
        m = [x for x in m if x]
        ipc, red = (int(m[0].group(1)), int(m[0].group(2))) if m else (0, -1)
        funcs = imposed_funcs(out)
        if restricted:
            tap.ok(ipc > 0 and red == ipc and funcs and
                   all(f.startswith("[ipc ") for f in funcs),
                   "%s: %d samples of fs for wc, all redacted to [ipc ...] frames (%r)"
                   % (cmd, ipc, funcs[:3]))
        else:
            tap.ok(ipc > 0 and red == 0 and any(not f.startswith("[ipc ") for f in funcs),
                   "%s: %d samples of fs for wc, with functions (%r)"
                   % (cmd, ipc, funcs[:3]))


COM2 = os.path.join(tempfile.mkdtemp(prefix="vernier-ipcprof-"), "com2.bin")
FOLDED_RE = re.compile(r"^(ipcload(?:-\d+)?);(.*)\[ipc ipcload\.WORK\];(.*) (\d+)$")


def check_origin_stacks(tap, sh):
    # sprofile -g streams to COM2 (a host file) while ipcload ratio runs;
    # afterwards vprof -C -F folded (check_folded) draws the clients'
    # stacks above the server's.
    # ipcload started by sprofile once the session runs (see run_profiled)
    out = sh.run("sprofile -c -g -f 500 -d 4 -o com2 ipcload -n 60 -u 2000 -l 500 ratio",
                 timeout=300) or []
    tap.ok(sh.status() == 0, "sprofile -c -g -o com2 while ipcload runs (%r)" % out[-1:])
    sites = [l for l in out if re.match(r"^\s+\d+\s+\d+\s+[\d.]+%\s+\S+ <- ", l)]
    tap.ok(any("do_calls" in l for l in sites),
           "sprofile -c -g: imposed samples by call site, do_calls among them (%r)"
           % sites[:3])


def check_folded(tap):
    vprof = os.path.join(bt.BUILD, "host", "vprof")
    r = subprocess.run([vprof, "-C", "-F", "folded", COM2], capture_output=True,
                       text=True, timeout=120)
    rows = [FOLDED_RE.match(l) for l in r.stdout.splitlines()]
    rows = [m for m in rows if m]
    total = sum(int(m.group(4)) for m in rows)
    under = sum(int(m.group(4)) for m in rows if m.group(2).endswith("do_calls;") or
                ";do_calls;" in ";" + m.group(2))
    leaf = sum(int(m.group(4)) for m in rows if m.group(3).endswith("serve_a"))
    tap.ok(r.returncode == 0 and total > 0 and under * 10 >= total * 9 and
           leaf * 2 >= total,
           "vprof -C -F folded: %d samples of [ipc ipcload.WORK] under a client, %d of "
           "them below its do_calls, %d in serve_a (e.g. %r)"
           % (total, under, leaf, rows[0].group(0)[:200] if rows else r.stderr[:200]))


COM2_CAT = os.path.join(os.path.dirname(COM2), "cat.bin")


def check_cat_stream(tap, sh):
    # A real server: cat's reads of /boot/kernel through the file service,
    # profiled as a task with call chains to COM2 (check_cat reads it).
    # Four reads of the file at 10 kHz (rtc-nmi: 8192): one read at 4 kHz
    # gave 9 to 15 samples serving calls, and once in a clean-clone run
    # no fs.READ stack at all.
    out = sh.run("profile -c -g -f 10000 -o com2 cat /boot/kernel /boot/kernel /boot/kernel "
                 "/boot/kernel > /tmp/k; echo status $?", timeout=300) or []
    # (profile's progress line ends without a newline: the echo may follow it)
    tap.ok(any(l.endswith("status 0") for l in out),
           "profile -c -g -o com2 cat /boot/kernel x4: status 0 (%r)" % out[-3:])


def check_cat(tap):
    vprof = os.path.join(bt.BUILD, "host", "vprof")
    r = subprocess.run([vprof, "-C", "-F", "folded", COM2_CAT], capture_output=True,
                       text=True, timeout=120)
    reads = [l for l in r.stdout.splitlines() if ";[ipc fs.READ];" in l]
    client = [l.split(";[ipc fs.READ];")[0] for l in reads]
    server = [l.split(";[ipc fs.READ];")[1] for l in reads]
    tap.ok(reads and all(c.startswith("cat;") and ";fd_read;" in c for c in client) and
           any("ipc_server_loop;fs_" in v for v in server),
           "cat /boot/kernel: the file service's read path ([ipc fs.READ];..."
           "ipc_server_loop;fs_...) under cat's fd_read, %d stacks (e.g. %r)"
           % (len(reads), reads[0][-160:] if reads else r.stderr[:200]))


def main():
    tap = Tap()
    shell_session(tap, [
        check_usage,
        lambda t, s: check_ratio(t, s, 1, "rtc-nmi", 4096, "9"),
        lambda t, s: check_ratio(t, s, 1, "timer", 4000, "9"),
        check_chain,
        check_redacted,
        check_origin_stacks,
    ], cpus=1, icount=ICOUNT, extra="-serial file:" + COM2)
    check_folded(tap)
    shell_session(tap, [
        lambda t, s: check_ratio(t, s, 4, "rtc-nmi", 4096, "9"),
        lambda t, s: check_ratio(t, s, 4, "timer", 4000, "9"),
        check_cat_stream,
    ], cpus=4, icount=ICOUNT,   # see the docstring: not plain TCG
       extra="-serial file:" + COM2_CAT)
    check_cat(tap)
    shutil.rmtree(os.path.dirname(COM2), ignore_errors=True)
    tap.done()


if __name__ == "__main__":
    main()
