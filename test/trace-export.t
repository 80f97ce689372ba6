#!/usr/bin/env python3
"""test/trace-export.t - vprof -F trace: the timeline of kernel trace events.

A synthetic v7 stream on two CPUs (TSC at 1 GHz: a microsecond is 1000
cycles): a client thread (task 1, thread 11) makes system call 5 and in it
call 100 to a server (task 2, thread 21), which forwards it to a backend
(task 3, thread 31), which answers; switches and wakeups move the three
between the CPUs and their states, an IRQ interrupts the backend, two
samples have symbolized stacks (nm files under the root), and two calls
are cut (99 ends without its start, 101 starts without its end). One
TRACE record of an unknown kind is skipped. Known from the stream: 23
slices (6 on the CPUs, 15 states, 2 pieces of the system call and the
IRQ), 1 flow (s, t, t, t, t, f), 2 flows left out, 2 samples, the
client's "waiting: ipc" of 11 us, the servers' running slices naming
origin 1.

Checked: vprof's report counts the events; vprof -F trace exits 0;
tools/tracecheck.py passes and reports the known counts; the slices,
flows, metadata and stacks are the known ones; the speedscope app in
headless chromium imports the JSON (its Chrome trace importer: page title
`trace.json - speedscope`, no console error, 5 profiles: one per track
with slices); the events come in time order, a slice before those inside
it; the same records in per-CPU chunks (CPU 1's first, as the kernel's
per-CPU buffers deliver them) draw the same timeline, and so do records
out of stream order as the kernel writes them (a CPU's samples after its
trace events, a deferred hand-off WAKEUP after the switch that follows
it): the timeline is by time; a planted bad timeline (the flow's end outside every slice, a CPU
overlap, a second start, a slice crossing its parent's end) makes
tracecheck.py exit 1 naming the event; its usage errors exit 2; vprof
refuses -C with -F trace.

TAP on stdout, for prove.
"""

import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import boottest as bt  # noqa: E402
from consumers import run, speedscope  # noqa: E402
from streamrec import load, rec, task  # noqa: E402
from tap import Tap  # noqa: E402

VPROF = os.path.join(bt.BUILD, "host", "vprof")
TRACECHECK = os.path.join(bt.TOP, "tools", "tracecheck.py")

MAGIC = 0x464F525056
KBASE = 0xffffffff80100000
US = 1000                               # TSC cycles per microsecond (1 GHz)
CPU_PID = 1000000000                    # trace.c's TR_CPU_PID

# PROF_TR_*, PROF_TS_*, WAIT_WHY_* (lib/include/abi/profile.h, wait.h).
SWITCH, WAKEUP, CALL, RECEIVE, FORWARD, ANSWER, ANSWERED = 1, 2, 3, 4, 5, 6, 7
IRQ_ENTER, IRQ_EXIT, SYSCALL_ENTER, SYSCALL_EXIT = 9, 10, 11, 12
RUNNABLE, WAITING, EXITED = 0, 1, 2
IPC, RECV = 3, 4
METHOD = (1 << 48) + 2                  # a libc protocol's method: "server.libc+2"

NM = {"bin/client.nm": "0000000000401000 T client_work\n0000000000401100 T client_main\n",
      "bin/server.nm": "0000000000401000 T server_main\n",
      "bin/backend.nm": "0000000000401200 T backend_serve\n",
      "boot/kernel.nm": "ffffffff80100000 T irq_handler\nffffffff80100100 T irq_entry\n"}

# ---------------------------------------------------------------- the stream


def header():
    body = struct.pack("<QIIIIIIQQQQ32s16s", MAGIC, 7, 4, 1000, 2, (1 << 3) | (1 << 4) | (1 << 5)
                       | (1 << 6) | 1, 8, 1000 * US * 1000, 0, KBASE, KBASE + 0x100000,
                       b"vernier trace test", b"timer")
    return rec(1, 16 + len(body), 0, 0) + body


def tr(us, cpu, kind, task_, thread, task2=0, thread2=0, call=0, method=0, origin=0,
       origin2=0, why=0, arg=0):
    """A TRACE record at us microseconds."""
    return rec(12, 88, cpu, int(us * US)) + struct.pack(
        "<HHIQQQQQQQQ", kind, why, arg, task_, thread, task2, thread2, call, method, origin,
        origin2)


def sample(us, cpu, task_, thread, mode, pc, chain, nkernel):
    return rec(2, 56 + 8 * len(chain), cpu, int(us * US)) + struct.pack(
        "<QQQBBHHHQ", task_, thread, pc, mode, 4, len(chain), nkernel, 0, 0) + \
        b"".join(struct.pack("<Q", a) for a in chain)


C, S, B = (1, 11), (2, 21), (3, 31)     # client, server, backend: (task, thread)

EVENTS = [
    tr(1, 0, SWITCH, 0, 0, *C),
    tr(1, 1, SWITCH, 0, 0, *S),
    tr(2, 1, SWITCH, *S, *B, why=RECV, arg=WAITING),
    tr(3, 1, SWITCH, *B, 0, 0, why=RECV, arg=WAITING),
    tr(3.5, 0, ANSWERED, *C, call=99),                           # its start is not here
    tr(4, 0, SYSCALL_ENTER, *C, arg=5),
    sample(4.5, 0, *C, 0, 0x401010, [0x401105], 0),
    tr(5, 0, CALL, *C, 2, 0, call=100, method=METHOD),
    tr(6, 0, WAKEUP, *S, *C),
    tr(7, 0, SWITCH, *C, 0, 0, why=IPC, arg=WAITING),
    tr(8, 1, SWITCH, 0, 0, *S),
    tr(9, 1, RECEIVE, *S, *C, call=100, method=METHOD, origin=1),
    tr(10, 1, FORWARD, *S, 3, 0, call=100, method=METHOD, origin=1),
    tr(11, 1, WAKEUP, *B, *S),
    tr(12, 1, SWITCH, *S, 0, 0, why=RECV, arg=WAITING),
    tr(13, 0, SWITCH, 0, 0, *B),
    tr(14, 0, RECEIVE, *B, *C, call=100, method=METHOD, origin=1),
    tr(15, 0, IRQ_ENTER, *B, arg=33, origin=1),
    sample(15.5, 0, *B, 1, KBASE + 0x10, [KBASE + 0x105, 0x401205], 1),
    tr(16, 0, IRQ_EXIT, *B, arg=33, origin=1),
    tr(17, 0, ANSWER, *B, *C, call=100, method=METHOD, origin=1),
    tr(18, 0, WAKEUP, *C, *B),
    tr(19, 0, SWITCH, *B, *C, why=RECV, arg=WAITING),
    tr(20, 0, ANSWERED, *C, call=100),
    tr(21, 0, SYSCALL_EXIT, *C, arg=5),
    tr(22, 0, CALL, *C, 2, 0, call=101, method=METHOD),          # its end is not here
    tr(25, 0, SWITCH, *C, 0, 0, arg=EXITED),
    tr(26, 0, 99, *C),                                           # an unknown kind
]
KNOWN = sum(1 for e in EVENTS if e[:2] == struct.pack("<H", 12)) - 1


def cpu_of(r):
    return struct.unpack("<I", r[4:8])[0]


def chunked():
    """EVENTS as the kernel's per-CPU buffers may deliver them: CPU 1's first."""
    return [r for r in EVENTS if cpu_of(r) == 1] + [r for r in EVENTS if cpu_of(r) == 0]


def is_sample(r):
    return struct.unpack("<H", r[:2])[0] == 2


def skewed():
    """EVENTS as the kernel may write them out of time order: each CPU's
    samples after its trace events (a buffer of their own), and the
    backend's WAKEUP (11, CPU 1) after the server's switch-out (12), as a
    deferred hand-off wakeup comes (abi/profile.h)."""
    out = [r for r in EVENTS if not is_sample(r)]
    wake = out.pop(12)              # WAKEUP at 11
    out.insert(13, wake)            # after the SWITCH at 12
    return out + [r for r in EVENTS if is_sample(r)]


def stream(events=None):
    head = [header(), task(1, "client"), task(2, "server"), task(3, "backend"),
            load(1, "/bin/client"), load(2, "/bin/server"), load(3, "/bin/backend")]
    end = rec(8, 48, 0, 30 * US) + struct.pack("<QQQII", 2, 0, 0, 1, 0)
    return b"".join(head + (events or EVENTS)) + end


def write_root(root):
    for path, text in NM.items():
        os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
        with open(os.path.join(root, path), "w") as f:
            f.write(text)

# ---------------------------------------------------------------- running


def tracecheck(path, *extra):
    return run([sys.executable, TRACECHECK] + list(extra) + [path])


def slices(doc, pid, tid):
    return [(e["name"], e["ts"], e["dur"], e.get("args", {})) for e in doc["traceEvents"]
            if e["ph"] == "X" and e["pid"] == pid and e["tid"] == tid]


def check_report(tap, tmp):
    rc, out, err = run([VPROF, "-r", os.path.join(tmp, "root"), os.path.join(tmp, "stream")])
    tap.ok(rc == 0 and "trace: %d events, 1 of unknown kinds skipped\n" % KNOWN in out,
           "vprof's report: trace: %d events, 1 of unknown kinds skipped (rc %d %s)" %
           (KNOWN, rc, err.strip()))


def export(tap, tmp, name="stream"):
    path = os.path.join(tmp, name + ".json")
    rc, _o, err = run([VPROF, "-r", os.path.join(tmp, "root"), "-F", "trace", "-o", path,
                       os.path.join(tmp, name)])
    tap.ok(rc == 0 and os.path.getsize(path) > 0, "vprof -F trace %s exits 0 (rc %d %s)" %
           (name, rc, err.strip()))
    try:
        with open(path) as f:
            return path, json.load(f)
    except (OSError, ValueError) as e:
        tap.ok(False, "the timeline is JSON: %s" % e)
        return path, {"traceEvents": [], "otherData": {}}


def check_tracecheck(tap, path):
    rc, out, err = tracecheck(path)
    tap.ok(rc == 0 and out.strip() == "tracecheck: 23 slices, 1 flows, 2 samples",
           "tracecheck.py passes: %r (rc %d %s)" % (out.strip(), rc, err.strip()))


def check_order(tap, doc):
    evs = doc["traceEvents"]
    meta = [e["ph"] == "M" for e in evs]
    key = [(e["ts"], -e.get("dur", 0)) for e in evs if e["ph"] != "M"]
    tap.ok(meta == sorted(meta, reverse=True) and key == sorted(key),
           "the events: metadata first, then by time, a slice before those inside it")


def check_tracks(tap, doc):
    od = doc.get("otherData", {})
    tap.ok(doc.get("displayTimeUnit") == "ns" and od.get("flows") == 1 and
           od.get("flows_left_out") == 2 and od.get("trace_events") == KNOWN and
           od.get("unknown_kinds") == 1,
           "otherData: 1 flow, 2 left out, %d events, 1 unknown kind (%s)" % (KNOWN, od))
    meta = {(e["name"], e["pid"], e.get("tid")): e["args"] for e in doc["traceEvents"]
            if e["ph"] == "M"}
    tap.ok(meta.get(("process_name", CPU_PID, 0)) == {"name": "CPUs"} and
           meta.get(("process_sort_index", CPU_PID, 0)) == {"sort_index": -1} and
           meta.get(("thread_name", CPU_PID, 1)) == {"name": "CPU 1"} and
           meta.get(("process_name", 3, 0)) == {"name": "backend"} and
           meta.get(("thread_name", 1, 11)) == {"name": "client:11"},
           "metadata: process CPUs first, CPU n threads, tasks and threads named")
    cpu0 = [(n, ts, d) for n, ts, d, _a in slices(doc, CPU_PID, 0)]
    cpu1 = [(n, ts, d) for n, ts, d, _a in slices(doc, CPU_PID, 1)]
    tap.ok(sorted(cpu0) == [("backend:31", 13, 6), ("client:11", 1, 6), ("client:11", 19, 6)] and
           sorted(cpu1) == [("backend:31", 2, 1), ("server:21", 1, 1), ("server:21", 8, 4)],
           "the CPU tracks: who ran when (%s | %s)" % (cpu0, cpu1))
    client = sorted((n, ts, d) for n, ts, d, _a in slices(doc, 1, 11))
    tap.ok(client == sorted([("running", 1, 6), ("waiting: ipc", 7, 11), ("runnable", 18, 1),
                             ("running", 19, 6), ("syscall 5", 4, 3), ("syscall 5", 19, 2)]),
           "the client's track: waiting: ipc for 11 us, the system call in two pieces (%s)" %
           client)
    run_s = [a for n, ts, _d, a in slices(doc, 2, 21) if n == "running" and ts == 8]
    run_b = [a for n, ts, _d, a in slices(doc, 3, 31) if n == "running" and ts == 13]
    tap.ok(run_s == [{"cpu": 1, "origin": 1, "origin_name": "client"}] and
           run_b == [{"cpu": 0, "origin": 1, "origin_name": "client"}],
           "the servers' running slices name the origin they serve (%s %s)" % (run_s, run_b))
    irq = [(ts, d) for n, ts, d, _a in slices(doc, 3, 31) if n == "irq 33"]
    tap.ok(irq == [(15, 1)], "the IRQ: a slice inside the backend's running one (%s)" % irq)


def check_flows(tap, doc):
    fl = [(e["ph"], e["pid"], e["tid"], e["ts"], e["id"], e["name"], e.get("bp"))
          for e in doc["traceEvents"] if e["ph"] in ("s", "t", "f")]
    name = "ipc server.libc+2"
    want = [("s", 1, 11, 5, 100, name, None), ("t", 2, 21, 9, 100, name, None),
            ("t", 2, 21, 10, 100, name, None), ("t", 3, 31, 14, 100, name, None),
            ("t", 3, 31, 17, 100, name, None), ("f", 1, 11, 20, 100, name, "e")]
    tap.ok(fl == want, "the flow of call 100: s at CALL, t at RECEIVE/FORWARD/RECEIVE/ANSWER, "
           "f (bp e) at ANSWERED; 99 and 101 left out (%s)" % fl)


def check_samples(tap, doc):
    got = [(e["pid"], e["tid"], e["ts"], e["name"], e["args"]["stack"])
           for e in doc["traceEvents"] if e["ph"] == "i" and e.get("cat") == "sample"]
    want = [(1, 11, 4.5, "client_work", ["client_work", "client_main"]),
            (3, 31, 15.5, "irq_handler [k]", ["irq_handler [k]", "irq_entry [k]",
                                              "backend_serve"])]
    tap.ok(got == want, "samples: instants with their stacks, innermost first (%s)" % got)


def check_speedscope(tap, tmp, path):
    r = speedscope(path, tmp)
    tap.ok(r.get("title") == "trace.json - speedscope" and not r.get("errors"),
           "speedscope's Chrome trace importer reads it: title %r, errors %s" %
           (r.get("title"), r.get("errors")))
    tap.ok(r.get("profiles") == 5, "speedscope: a profile per track with slices (2 CPUs, "
           "3 threads): %s" % r.get("profiles"))


def planted(tap, tmp, doc, what, change, want):
    bad = json.loads(json.dumps(doc))
    change(bad["traceEvents"])
    path = os.path.join(tmp, "bad.json")
    with open(path, "w") as f:
        json.dump(bad, f)
    rc, _out, err = tracecheck(path)
    tap.ok(rc == 1 and want in err, "tracecheck.py fails %s: rc %d, %s" % (what, rc, err.strip()))


def move_end(evs):
    for e in evs:
        if e["ph"] == "f":
            e["ts"] = 27.0


def overlap(evs):
    for e in evs:
        if e["ph"] == "X" and e["pid"] == CPU_PID and e["tid"] == 0 and e["ts"] == 13:
            e["ts"] = 6.5


def cross(evs):
    for e in evs:
        if e["ph"] == "X" and e["name"] == "irq 33":
            e["dur"] = 5.0                   # past the end of its running slice


def second_start(evs):
    evs.append(dict(next(e for e in evs if e["ph"] == "s")))


def events_set(doc):
    return sorted(json.dumps(e, sort_keys=True) for e in doc["traceEvents"])


def check_merge(tap, tmp, doc):
    """The stream in per-CPU chunks, or out of time order as the kernel
    writes it, draws the same timeline."""
    for name, events in (("chunked", chunked()), ("skewed", skewed())):
        with open(os.path.join(tmp, name), "wb") as f:
            f.write(stream(events))
    _p, chunk = export(tap, tmp, "chunked")
    tap.ok(events_set(chunk) == events_set(doc),
           "CPU 1's records before CPU 0's (per-CPU buffers): the same timeline")
    path, skew = export(tap, tmp, "skewed")
    rc, out, err = tracecheck(path)
    tap.ok(rc == 0 and events_set(skew) == events_set(doc),
           "out of stream order (samples after the trace events, a deferred WAKEUP): "
           "the same timeline, by time; tracecheck %s%s" % (out.strip(), err.strip()))


def check_checker(tap, tmp, doc):
    planted(tap, tmp, doc, "on a flow end outside every slice", move_end,
            "(ph 'f', name 'ipc server.libc+2', pid 1, tid 11, ts 27.0): outside every "
            "running slice")
    planted(tap, tmp, doc, "on overlapping CPU slices", overlap, "overlaps")
    planted(tap, tmp, doc, "on a flow with two starts", second_start, "2 starts and 1 ends")
    planted(tap, tmp, doc, "on a slice that ends outside the one it starts in", cross,
            "(slices must nest)")
    with open(os.path.join(tmp, "junk.json"), "w") as f:
        f.write("{\"traceEvents\": [")
    rc, _o, err = tracecheck(os.path.join(tmp, "junk.json"))
    tap.ok(rc == 1 and "not valid JSON" in err, "tracecheck.py: invalid JSON exits 1 (%s)" %
           err.strip())
    rc, out, _e = tracecheck("-h")
    rc2, _o, err2 = tracecheck(os.path.join(tmp, "stream.json"), "--bogus")
    tap.ok(rc == 0 and "usage:" in out and rc2 == 2 and "usage:" in err2,
           "tracecheck.py: -h prints its usage, a bad option exits 2")


def check_refusals(tap, tmp):
    rc, _o, err = run([VPROF, "-C", "-F", "trace", os.path.join(tmp, "stream")])
    tap.ok(rc == 2 and "-C is not for -F trace" in err, "vprof refuses -C with -F trace (rc %d)" %
           rc)
    rc, out, _e = run([VPROF, "-h"])
    tap.ok("trace (a timeline" in out, "vprof -h names the trace format")


def main():
    tap = Tap()
    tmp = tempfile.mkdtemp(prefix="vernier-trace-")
    try:
        write_root(os.path.join(tmp, "root"))
        with open(os.path.join(tmp, "stream"), "wb") as f:
            f.write(stream())
        check_report(tap, tmp)
        path, doc = export(tap, tmp)
        check_tracecheck(tap, path)
        check_order(tap, doc)
        check_tracks(tap, doc)
        check_flows(tap, doc)
        check_samples(tap, doc)
        check_speedscope(tap, tmp, path)
        check_merge(tap, tmp, doc)
        check_checker(tap, tmp, doc)
        check_refusals(tap, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    tap.done()


if __name__ == "__main__":
    main()
