#!/usr/bin/env python3
"""test/ipcstream.t - IPC origins in the kernel's own outputs (issue 16).

One boot of the default ISO on 2 CPUs, QEMU's COM2 to a host file. What
is checked is what the kernel writes, read here byte by byte (the tools'
reports are tested in ipcprof.t and the unit tests):

- `profile -g -o com2 wc /bin/sh` (a task session on wc, with the
  profile permission): samples of the file service serving wc's calls
  reach the session; each carries the v3 origin block: hops wc -> fs
  (origin first, the sampled task last), the origin thread, the method,
  a full pc and call chain (a kernel-mode sample in a switch window
  may lack the chain: see check_chains); each names an origin stack that came earlier
  in the stream as a PROF_REC_CALL of wc's, with user addresses.
- The same under `restrict -p io` (no profile permission): fs's samples
  still come, with the origin block but no pc, chain or stack words;
  wc's own samples keep their user chains.
- `profile -w -g ... ipcload wallchain` (S1 waits for S2 while serving
  the client): the servers' off-CPU records reach the task session with
  their stacks, and under `restrict -p io` with none (a broken redaction
  made this fail: stacks of 12-24 frames came through).
- Every kernel sample in the entry stubs has a call chain (under a
  ksyscall workload).
- sysinfo after the runs: system.ipc.pairs has a (wc, fs) pair with
  calls and cycles; per server, its served_cycles lie between the sums
  of its pairs' cycles read just before and just after (they come from
  the same charges), per origin likewise its imposed_cycles; a server's
  served cycles are at most its own CPU time; typing the next command
  charged the console's work to the shell (the (sh, console) pair grew).
"""

import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))

import boottest as bt  # noqa: E402

with open(os.path.join(bt.TOP, "lib", "include", "abi", "profile.h")) as _f:
    PROF_VERSION = int(re.search(r"#define PROF_VERSION (\d+)", _f.read()).group(1))
from guest import shell_session  # noqa: E402
from tap import Tap  # noqa: E402

COM2 = os.path.join(tempfile.mkdtemp(prefix="vernier-ipcstream-"), "com2.bin")
REC_HEADER, REC_SAMPLE, REC_TASK, REC_CALL, REC_OFFCPU = 1, 2, 3, 9, 10
WALL_CMD = "ipcload -n 4 -u 20000 -l 1000 wallchain"
USER_END = 0x800000000000
# Each file twice: a clean-clone CI once saw only 4 samples of fs for one
# pass (15 to 17 as a rule); two passes keep the count far above 5.
CMD = "wc " + " ".join(["/bin/sh /bin/utest /bin/vfuzz /bin/top"] * 2)


def com2_size():
    return os.path.getsize(COM2) if os.path.exists(COM2) else 0


def parse(data):
    """The records of a stream: a list of (type, fields) dicts."""
    recs, off = [], 0
    while off + 16 <= len(data):
        t, size, cpu, tsc = struct.unpack_from("<HHIQ", data, off)
        if size < 16 or size % 8 or off + size > len(data):
            break
        r = {"type": t, "size": size}
        if t == REC_HEADER:
            r["version"] = struct.unpack_from("<I", data, off + 24)[0]
            r["target"] = struct.unpack_from("<Q", data, off + 56)[0]
        elif t == REC_TASK:
            r["task"] = struct.unpack_from("<Q", data, off + 16)[0]
            r["name"] = data[off + 32:off + 64].split(b"\0")[0].decode()
        elif t == REC_SAMPLE:
            parse_sample(data, off, size, r)
        elif t == REC_OFFCPU:
            task, thread, _, _, why, nch, nk = struct.unpack_from("<QQQQIHH", data, off + 16)
            r.update(task=task, thread=thread, why=why, nchain=nch, nkernel=nk)
        elif t == REC_CALL:
            st, task, thread, n = struct.unpack_from("<QQQH", data, off + 16)
            r.update(stack=st, task=task, thread=thread,
                     chain=list(struct.unpack_from("<%dQ" % n, data, off + 48)))
        recs.append(r)
        off += size
    return recs


def parse_sample(data, off, size, r):
    task, thread, pc, mode, src, nch, nk, ntop = struct.unpack_from(
        "<QQQBBHHH", data, off + 16)
    weight = struct.unpack_from("<Q", data, off + 48)[0]     # v5
    r.update(task=task, thread=thread, pc=pc, mode=mode, nchain=nch, ntop=ntop,
             weight=weight)
    body = 56 + 8 * (nch + ntop)
    if size >= body + 72:
        call, oth, method, nhops, depth = struct.unpack_from("<QQQHH", data, off + body)
        hops = struct.unpack_from("<4Q", data, off + body + 32)[:nhops]
        stack = struct.unpack_from("<Q", data, off + body + 64)[0]
        r["ipc"] = dict(call=call, thread=oth, method=method, hops=list(hops),
                        depth=depth, stack=stack)


def run_profile(tap, sh, prefix, label):
    """Run profile -g -o com2 on CMD; the records it wrote, the target's id."""
    start = com2_size()
    out = sh.run(prefix + "profile -g -f 10000 -o com2 " + CMD, timeout=120)
    ok = any("exited with status 0" in l for l in out or [])
    tap.ok(ok, "%s: profile %s ran (%s)" % (label, CMD, (out or ["-"])[-1]))
    with open(COM2, "rb") as f:
        f.seek(start)
        recs = parse(f.read())
    head = [r for r in recs if r["type"] == REC_HEADER]
    tap.ok(head and head[0]["version"] == PROF_VERSION,
           "%s: the stream is version %d, abi/profile.h's (%r)" % (label, PROF_VERSION, head[:1]))
    return recs, head[0]["target"] if head else 0


def served(recs, target):
    """Samples of other tasks doing work for target."""
    return [r for r in recs if r["type"] == REC_SAMPLE and r["task"] != target
            and "ipc" in r]


def check_chains(tap, imp):
    """Served samples keep pc and chain. A kernel-mode one may have no
    chain: in the scheduler between `current = next` and the stack switch
    the sample is the next thread's while rsp is still on the previous
    thread's stack, which the walker does not follow (a clean-clone run
    met one such fs sample)."""
    user = [r for r in imp if r["mode"] == 0]
    kern = [r for r in imp if r["mode"] != 0]
    bare = [hex(r["pc"]) for r in kern if not r["nchain"]]
    tap.ok(imp and all(r["pc"] for r in imp) and all(r["nchain"] for r in user),
           "privileged: they keep pc, and chains in user mode (%d user, %d kernel)"
           % (len(user), len(kern)))
    tap.ok(len(bare) * 2 <= len(kern),
           "privileged: most kernel-mode ones keep their chains (none at: %s)" % bare[:5])


def check_privileged(tap, sh):
    recs, target = run_profile(tap, sh, "", "privileged")
    names = {r["task"]: r["name"] for r in recs if r["type"] == REC_TASK}
    imp = served(recs, target)
    tap.diag("privileged: %d samples in the stream" % sum(r["type"] == REC_SAMPLE for r in recs))
    tap.ok(len(imp) >= 5, "privileged: %d samples of servers working for wc" % len(imp))
    bad = [r for r in imp if r["ipc"]["hops"][0] != target or r["ipc"]["hops"][-1] != r["task"]
           or len(r["ipc"]["hops"]) < 2 or not r["ipc"]["method"] or not r["ipc"]["thread"]]
    tap.ok(imp and not bad, "privileged: each names wc first and its own task last, "
           "a method and the origin thread (bad: %r)" % bad[:2])
    check_chains(tap, imp)
    stacks, late = {}, []
    for r in recs:
        if r["type"] == REC_CALL:
            stacks[r["stack"]] = r
        elif r["type"] == REC_SAMPLE and "ipc" in r and r["ipc"]["stack"] \
                and r["ipc"]["stack"] not in stacks:
            late.append(r["ipc"]["stack"])
    named = [r for r in imp if r["ipc"]["stack"]]
    tap.ok(named and not late, "privileged: %d samples name an origin stack, each sent "
           "before them (missing: %r)" % (len(named), late[:3]))
    own = [s for s in stacks.values() if s["task"] == target and len(s["chain"]) >= 2
           and all(0 < a < USER_END for a in s["chain"])]
    tap.ok(stacks and len(own) == len(stacks),
           "privileged: %d origin stacks, all wc's, of user addresses" % len(stacks))
    tap.diag("servers: %s" % sorted({names.get(r["task"], r["task"]) for r in imp}))


def check_unprivileged(tap, sh):
    recs, target = run_profile(tap, sh, "restrict -p io ", "unprivileged")
    imp = served(recs, target)
    tap.diag("unprivileged: %d samples in the stream" % sum(r["type"] == REC_SAMPLE for r in recs))
    tap.ok(len(imp) >= 5, "unprivileged: %d samples of servers working for wc" % len(imp))
    tap.ok(imp and all(not r["pc"] and not r["nchain"] and not r["ntop"] for r in imp),
           "unprivileged: they carry no pc, chain or stack words")
    tap.ok(imp and all(r["ipc"]["hops"][0] == target for r in imp),
           "unprivileged: they keep the origin block")
    own = [r for r in recs if r["type"] == REC_SAMPLE and r["task"] == target
           and r["mode"] == 0]
    tap.ok(own and any(r["nchain"] for r in own),
           "unprivileged: wc's own user samples keep their chains (%d)" % len(own))


def si_records(sh, path):
    out = sh.run("sysinfo " + path) or []
    recs = []
    for line in out:
        fields = dict(f.split("=", 1) for f in line.split() if "=" in f)
        if fields:
            recs.append(fields)
    return recs


def pair_sum(pairs, key, tid):
    return sum(int(p["cycles"]) for p in pairs if p[key] == tid)


def check_sysinfo(tap, sh):
    # Printing one read's output is work the console serves: read the
    # pairs before and after the tasks, so each counter is bracketed.
    before = si_records(sh, "system.ipc.pairs")
    tasks = {t["id"]: t for t in si_records(sh, "system.tasks")}
    after = si_records(sh, "system.ipc.pairs")
    wcfs = [p for p in after if p["origin_name"] == '"wc"' and p["server_name"] == '"fs"']
    tap.ok(wcfs and all(int(p["calls"]) > 0 and int(p["cycles"]) > 0 for p in wcfs),
           "sysinfo: system.ipc.pairs has (wc, fs) pairs with calls and cycles (%d)" % len(wcfs))
    bad = []
    for tid, t in tasks.items():
        for key, field in (("server", "served_cycles"), ("origin", "imposed_cycles")):
            lo, hi = pair_sum(before, key, tid), pair_sum(after, key, tid)
            if not lo <= int(t[field]) <= hi:
                bad.append((t["name"], field, lo, t[field], hi))
        if int(t["served_cycles"]) > int(t["user_cycles"]) + int(t["kernel_cycles"]):
            bad.append((t["name"], "served more than its CPU time"))
    tap.ok(before and not bad, "sysinfo: each task's served and imposed cycles lie between "
           "its pairs' sums read before and after, served within CPU time (bad: %r)" % bad[:3])
    fs = [t for t in tasks.values() if t["name"] == '"fs"']
    tap.ok(fs and int(fs[0]["served_cycles"]) > 0, "sysinfo: fs served others")
    # Typing into the shell: its echo and its programs' output are calls
    # the console serves for the shell.
    shcon = [p for p in after if p["origin_name"] == '"sh"' and p["server_name"] == '"console"']
    grew = [p for p in shcon for q in before if q["origin"] == p["origin"]
            and q["server"] == p["server"] and int(p["cycles"]) > int(q["cycles"])]
    tap.ok(grew, "sysinfo: typing a command charged the console's work to the shell (%r)"
           % [(p["calls"], p["cycles"]) for p in shcon])


def run_wall(tap, sh, prefix, label):
    """profile -w -g of WALL_CMD to com2: (records, target id, named tasks)."""
    start = com2_size()
    out = sh.run(prefix + "profile -w -g -f 1000 -o com2 " + WALL_CMD, timeout=180)
    tap.ok(any("exited with status 0" in l for l in out or []),
           "%s: profile -w %s ran (%s)" % (label, WALL_CMD, (out or ["-"])[-1]))
    with open(COM2, "rb") as f:
        f.seek(start)
        recs = parse(f.read())
    head = [r for r in recs if r["type"] == REC_HEADER]
    names = {r["task"]: r["name"] for r in recs if r["type"] == REC_TASK}
    return recs, head[0]["target"] if head else 0, names


def check_offcpu_redacted(tap, sh):
    """The servers' off-CPU records that reach a task session (their waits
    while serving its calls, S1 waiting for S2) keep their stacks for a
    session that may profile them, and carry none for one that may not
    (issue 17: no server's stack through an unprivileged session)."""
    for prefix, label in (("", "wall privileged"), ("restrict -p io ", "wall unprivileged")):
        recs, target, names = run_wall(tap, sh, prefix, label)
        srv = [r for r in recs if r["type"] == REC_OFFCPU and r["task"] != target]
        tap.ok(len(srv) >= 2, "%s: %d off-CPU records of servers (%s)"
               % (label, len(srv), sorted({names.get(r["task"], r["task"]) for r in srv})))
        if prefix:
            tap.ok(srv and all(not r["nchain"] for r in srv),
                   "%s: none carries a stack (%r)" % (label, [r["nchain"] for r in srv][:8]))
        else:
            tap.ok(any(r["nchain"] for r in srv),
                   "%s: they carry the servers' stacks (%r)"
                   % (label, [r["nchain"] for r in srv][:8]))


def entry_ranges():
    """[(name, lo, hi)] of the kernel's entry stubs (isr_common through the
    next global symbol after isr_paranoid, syscall_entry to the next), from nm."""
    out = subprocess.run(["nm", "-n", os.path.join(bt.BUILD, "kernel.elf")],
                         capture_output=True, text=True, check=True).stdout
    syms = [(int(a, 16), n) for a, t, n in (l.split() for l in out.splitlines()
                                            if len(l.split()) == 3) if t == "T"]
    ranges = []
    for i, (addr, name) in enumerate(syms[:-1]):
        if name == "isr_common" and syms[i + 1][1] == "isr_paranoid":
            ranges.append((name, addr, syms[i + 2][0]))
        elif name == "syscall_entry":
            ranges.append((name, addr, syms[i + 1][0]))
    return ranges


def check_entry_chains(tap, sh):
    """Samples in the entry and exit stubs keep their chain: on the way
    out the stub dropped its fake frame and rbp pointed below rsp until
    the registers came back, so a sample there had no chain at all."""
    ranges = entry_ranges()
    tap.ok(len(ranges) == 2, "the entry stubs' ranges from nm: %r" % ranges)
    start = com2_size()
    out = sh.run("profile -g -f 10000 -o com2 workload -d 3 ksyscall:1", timeout=120)
    tap.ok(any("exited with status 0" in l for l in out or []),
           "entry: profile workload ksyscall ran (%s)" % (out or ["-"])[-1])
    with open(COM2, "rb") as f:
        f.seek(start)
        recs = parse(f.read())
    stub = [r for r in recs if r["type"] == REC_SAMPLE and r["mode"] == 1
            and any(lo <= r["pc"] < hi for _, lo, hi in ranges)]
    bare = [hex(r["pc"]) for r in stub if not r["nchain"]]
    tap.ok(len(stub) >= 20, "entry: %d kernel samples in the entry stubs" % len(stub))
    tap.ok(stub and not bare, "entry: each has a call chain (none at %d: %s)"
           % (len(bare), sorted(set(bare))[:6]))


def main():
    tap = Tap()
    bt.need_file(tap, bt.ISO, "ISO")
    shell_session(tap, (check_privileged, check_unprivileged, check_sysinfo,
                        check_entry_chains, check_offcpu_redacted),
                  cpus=2, extra="-serial file:" + COM2)
    shutil.rmtree(os.path.dirname(COM2), ignore_errors=True)
    tap.done()


if __name__ == "__main__":
    main()
