"""test/lib/tracestream.py - read a profiler stream's trace records (v7).

A second reader of lib/include/abi/profile.h's PROF_REC_TRACE, written
from the ABI header, not from vprof's code: trace.t checks the kernel's
events with it, and vprof's timeline against it.

    s = parse(data)        header, tasks {id: name}, end, trace (by tsc)
    running(s["trace"])    {thread: [(cpu, start, end)]} from SWITCH chains
    irqs(s["trace"])       {cpu: [(start, end)]} from IRQ_ENTER/EXIT pairs
    overlap(a, b)          cycles two sorted interval lists share
"""

import struct

REC_HEADER, REC_SAMPLE, REC_TASK, REC_EXIT, REC_END, REC_TRACE = 1, 2, 3, 5, 8, 12
SWITCH, WAKEUP, CALL, RECEIVE, FORWARD, ANSWER, ANSWERED, HANGUP = range(1, 9)
IRQ_ENTER, IRQ_EXIT, SYSCALL_ENTER, SYSCALL_EXIT = range(9, 13)
KINDS = ("?", "switch", "wakeup", "call", "receive", "forward", "answer", "answered",
         "hangup", "irq-enter", "irq-exit", "syscall-enter", "syscall-exit")
TS_RUNNABLE, TS_WAITING, TS_EXITED = 0, 1, 2
WHY = ("run", "runnable", "sleep", "ipc", "recv", "join", "child", "wait")
F_TRACE_SCHED, F_TRACE_IPC, F_TRACE_IRQ, F_TRACE_SYSCALL = 8, 16, 32, 64
TRACE_FIELDS = ("kind", "why", "arg", "task", "thread", "task2", "thread2", "call",
                "method", "origin", "origin2")
TRACE_SIZE = 16 + 8 + 8 * 8


def _header(data, off):
    version, source, hz, ncpus, flags, depth, tsc_hz, target = \
        struct.unpack_from("<IIIIIIQQ", data, off + 24)
    return dict(version=version, hz=hz, ncpus=ncpus, flags=flags, tsc_hz=tsc_hz,
                target=target)


def _trace(data, off, cpu, tsc, size):
    if size < TRACE_SIZE:
        raise ValueError("a trace record of %d bytes at %d" % (size, off))
    r = dict(zip(TRACE_FIELDS, struct.unpack_from("<HHIQQQQQQQQ", data, off + 16)))
    r.update(cpu=cpu, tsc=tsc)
    return r


def parse(data):
    """The stream's header, task names, END record and trace records
    (sorted by tsc; a CPU's own records keep their order)."""
    s = dict(header=None, tasks={}, end=None, trace=[], samples=0, bad=None)
    off = 0
    while off + 16 <= len(data):
        t, size, cpu, tsc = struct.unpack_from("<HHIQ", data, off)
        if size < 16 or size % 8 or off + size > len(data):
            s["bad"] = off
            break
        if t == REC_HEADER:
            s["header"] = _header(data, off)
        elif t == REC_TASK:
            task = struct.unpack_from("<Q", data, off + 16)[0]
            s["tasks"][task] = data[off + 32:off + 64].split(b"\0")[0].decode()
        elif t == REC_END:
            samples, lost, throttled, reason, lost_records = \
                struct.unpack_from("<QQQII", data, off + 16)
            s["end"] = dict(samples=samples, lost=lost, lost_records=lost_records,
                            reason=reason)
        elif t == REC_TRACE:
            s["trace"].append(_trace(data, off, cpu, tsc, size))
        elif t == REC_SAMPLE:
            s["samples"] += 1
        off += size
    s["trace"].sort(key=lambda r: r["tsc"])   # stable: a CPU's order stays
    return s


def switches_by_cpu(trace):
    """{cpu: [SWITCH records in order]}."""
    out = {}
    for r in trace:
        if r["kind"] == SWITCH:
            out.setdefault(r["cpu"], []).append(r)
    return out


def chain_breaks(trace):
    """SWITCH records whose leaving thread is not the one the CPU's
    previous SWITCH brought in (a lost or wrong record)."""
    bad = []
    for recs in switches_by_cpu(trace).values():
        for a, b in zip(recs, recs[1:]):
            if (a["task2"], a["thread2"]) != (b["task"], b["thread"]):
                bad.append(b)
    return bad


def running(trace):
    """{(task, thread): [(cpu, start, end)]}: when each thread ran, from
    one SWITCH that brought it in to the next on that CPU."""
    out = {}
    for cpu, recs in switches_by_cpu(trace).items():
        for a, b in zip(recs, recs[1:]):
            if a["thread2"]:
                out.setdefault((a["task2"], a["thread2"]), []).append(
                    (cpu, a["tsc"], b["tsc"]))
    return out


def irqs(trace):
    """{cpu: [(start, end)]}: interrupt handlers, from ENTER to EXIT."""
    out, open_at = {}, {}
    for r in trace:
        if r["kind"] == IRQ_ENTER:
            open_at[r["cpu"]] = r["tsc"]
        elif r["kind"] == IRQ_EXIT and r["cpu"] in open_at:
            out.setdefault(r["cpu"], []).append((open_at.pop(r["cpu"]), r["tsc"]))
    return out


def overlap(a, b):
    """Cycles the interval lists a and b (each sorted, (start, end)) share."""
    total, i, j = 0, 0, 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        total += max(0, hi - lo)
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return total


def last_states(trace):
    """{(task, thread): (state, why)} as each thread's last SWITCH away
    left it, or ("running", None) if a later SWITCH brought it in."""
    out = {}
    for r in trace:
        if r["kind"] == SWITCH:
            if r["thread"]:
                out[(r["task"], r["thread"])] = (r["arg"], r["why"])
            if r["thread2"]:
                out[(r["task2"], r["thread2"])] = ("running", None)
        elif r["kind"] == WAKEUP and r["thread"] and \
                out.get((r["task"], r["thread"]), (None,))[0] == TS_WAITING:
            out[(r["task"], r["thread"])] = (TS_RUNNABLE, 1)
    return out
