#!/usr/bin/env python3
"""tools/tracecheck.py - check a Chrome trace-event JSON timeline (vprof -F trace).

Usage: tracecheck.py [-h] [-q] FILE

Reads FILE (the object form {"traceEvents": [...], ...}, or a bare list of
events) and checks that:
  - it is valid JSON holding a list of events, each an object with "ph";
  - every complete slice (ph "X") has a numeric ts and a non-negative dur;
  - on each CPU track (the threads of the process named "CPUs" by its
    process_name metadata) no two slices overlap, and on every other
    track slices nest (none ends inside another it starts in);
  - every flow id (per cat) has exactly one start ("s") and one end ("f"),
    the start first, its steps ("t") between them;
  - every flow event lies within a "running" slice (or a CPU slice) of
    its pid/tid at its ts, within 0.001 us.
On success it prints `tracecheck: N slices, M flows, K samples` (K: the
instants of cat "sample") and exits 0; otherwise it names the first bad
event on stderr and exits 1. Exit 2 for bad usage or an unreadable FILE.
"""

import argparse
import json
import sys

EPS = 0.001                     # us: the export's resolution (3 decimals)


class Bad(Exception):
    """The first problem found: a message naming the event."""


def describe(i, e):
    return "event %d (ph %r, name %r, pid %r, tid %r, ts %r)" % (
        i, e.get("ph"), e.get("name"), e.get("pid"), e.get("tid"), e.get("ts"))


def events_of(doc):
    evs = doc.get("traceEvents") if isinstance(doc, dict) else doc
    if not isinstance(evs, list):
        raise Bad("no traceEvents list")
    for i, e in enumerate(evs):
        if not isinstance(e, dict) or "ph" not in e:
            raise Bad("event %d: not an object with a ph" % i)
    return evs


def number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def cpu_pids(evs):
    return {e.get("pid") for e in evs if e["ph"] == "M" and e.get("name") == "process_name"
            and (e.get("args") or {}).get("name") == "CPUs"}


def slices_of(evs):
    """The X events as (index, event), checked: numeric ts, dur >= 0."""
    out = []
    for i, e in enumerate(evs):
        if e["ph"] != "X":
            continue
        if not number(e.get("ts")) or not number(e.get("dur")) or e["dur"] < 0:
            raise Bad("%s: a slice without a numeric ts or with a negative dur (%r)" %
                      (describe(i, e), e.get("dur")))
        out.append((i, e))
    return out


def check_cpus(slices, cpus):
    tracks = {}
    for i, e in slices:
        if e.get("pid") in cpus:
            tracks.setdefault((e["pid"], e.get("tid")), []).append((e["ts"], e["dur"], i, e))
    for track in tracks.values():
        track.sort(key=lambda s: (s[0], s[2]))
        for a, b in zip(track, track[1:]):
            if b[0] < a[0] + a[1] - EPS:
                raise Bad("%s: overlaps %s on its CPU track" % (describe(b[2], b[3]),
                                                                 describe(a[2], a[3])))


def check_nesting(slices, cpus):
    tracks = {}
    for i, e in slices:
        if e.get("pid") not in cpus:
            tracks.setdefault((e.get("pid"), e.get("tid")), []).append(
                (e["ts"], -e["dur"], i, e))
    for track in tracks.values():
        track.sort(key=lambda s: (s[0], s[1], s[2]))
        open_ = []                      # (end, index, event) of the enclosing slices
        for ts, mdur, i, e in track:
            while open_ and open_[-1][0] <= ts + EPS:
                open_.pop()
            if open_ and ts - mdur > open_[-1][0] + EPS:
                raise Bad("%s: ends after %s, which it starts inside (slices must nest)" %
                          (describe(i, e), describe(open_[-1][1], open_[-1][2])))
            open_.append((ts - mdur, i, e))


def containers(slices, cpus):
    """(pid, tid) -> [(start, end)] of running and CPU slices."""
    out = {}
    for _i, e in slices:
        if e.get("name") == "running" or e.get("pid") in cpus:
            out.setdefault((e.get("pid"), e.get("tid")), []).append((e["ts"], e["ts"] + e["dur"]))
    return out


def check_inside(i, e, boxes):
    ts = e.get("ts")
    if not number(ts):
        raise Bad("%s: a flow event without a numeric ts" % describe(i, e))
    for a, b in boxes.get((e.get("pid"), e.get("tid")), ()):
        if a - EPS <= ts <= b + EPS:
            return
    raise Bad("%s: outside every running slice of its pid/tid" % describe(i, e))


def check_flows(evs, boxes):
    flows = {}
    for i, e in enumerate(evs):
        if e["ph"] not in ("s", "t", "f"):
            continue
        check_inside(i, e, boxes)
        flows.setdefault((e.get("cat"), e.get("id")), []).append((i, e))
    for (cat, fid), fl in flows.items():
        starts = [x for x in fl if x[1]["ph"] == "s"]
        ends = [x for x in fl if x[1]["ph"] == "f"]
        if len(starts) != 1 or len(ends) != 1:
            raise Bad("%s: flow %r (cat %r) has %d starts and %d ends (one each wanted)" %
                      (describe(*fl[0]), fid, cat, len(starts), len(ends)))
        s, f = starts[0][1]["ts"], ends[0][1]["ts"]
        for i, e in fl:
            if not s - EPS <= e["ts"] <= f + EPS:
                raise Bad("%s: flow %r event outside its start %r .. end %r" % (
                    describe(i, e), fid, s, f))
    return len(flows)


def check(doc):
    """(slices, flows, samples) of a good timeline; Bad otherwise."""
    evs = events_of(doc)
    cpus = cpu_pids(evs)
    slices = slices_of(evs)
    check_cpus(slices, cpus)
    check_nesting(slices, cpus)
    nflows = check_flows(evs, containers(slices, cpus))
    samples = sum(1 for e in evs if e["ph"] in ("i", "I") and e.get("cat") == "sample")
    return len(slices), nflows, samples


def main(argv):
    ap = argparse.ArgumentParser(prog="tracecheck.py",
                                 description="Check a Chrome trace-event JSON timeline "
                                 "(vprof -F trace).")
    ap.add_argument("-q", "--quiet", action="store_true", help="no summary line")
    ap.add_argument("file", help="the JSON file")
    a = ap.parse_args(argv)
    try:
        with open(a.file) as f:
            text = f.read()
    except OSError as e:
        print("tracecheck: %s" % e, file=sys.stderr)
        return 2
    try:
        doc = json.loads(text)
        n, m, k = check(doc)
    except ValueError as e:
        print("tracecheck: %s: not valid JSON: %s" % (a.file, e), file=sys.stderr)
        return 1
    except Bad as e:
        print("tracecheck: %s: %s" % (a.file, e), file=sys.stderr)
        return 1
    if not a.quiet:
        print("tracecheck: %d slices, %d flows, %d samples" % (n, m, k))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
