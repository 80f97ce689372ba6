#!/usr/bin/env python3
"""test/bench.t - tools/bench.sh's --compare mode (a before/after in one run),
and the instruction-counting tools beside it.

- `--compare nonesuch`: not a revision, usage error (status 2);
- `--icount 0 --cpus 1 --compare HEAD syscall.null`: HEAD is built in a
  temporary worktree and both trees' figures come out joined, as
  "name HEAD-value this-value unit ratio"; under -icount shift=0 the same
  sources give the same instruction counts, so every ratio is 1 within
  2%; the temporary worktree is gone afterwards;
- tools/ipccost.sh and tools/samplecost.sh (QEMU plugins): -h prints the
  usage (status 0), a bad option gives status 2; `ipccost.sh --cpus 1
  --runs 1` counts as many instructions per round trip as bench's own
  figure under -icount shift=0 (within 1%), and its per-function rows add
  up to that count; `samplecost.sh` splits a sample into parts, prof_hit
  among them, that add up to its "all" line, for both sources (timer and
  rtc-nmi).

TAP on stdout, for prove.
"""

import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in test/lib
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))

import boottest as bt  # noqa: E402
from tap import Tap  # noqa: E402

BENCH = os.path.join(bt.TOP, "tools", "bench.sh")
IPCCOST = os.path.join(bt.TOP, "tools", "ipccost.sh")
SAMPLECOST = os.path.join(bt.TOP, "tools", "samplecost.sh")
ROW_RE = re.compile(r"^(\S+) (\d+) (\d+) (\S+) (\d+\.\d{3})$")


def worktrees():
    out = subprocess.run(["git", "-C", bt.TOP, "worktree", "list"],
                         capture_output=True, text=True).stdout
    return len(out.splitlines())


def check_cost_usage(tap):
    for tool in (IPCCOST, SAMPLECOST):
        name = os.path.basename(tool)
        h = subprocess.run([tool, "-h"], capture_output=True, text=True)
        b = subprocess.run([tool, "--bogus"], capture_output=True, text=True)
        tap.ok(h.returncode == 0 and h.stdout.startswith("Usage:") and b.returncode == 2
               and "Usage:" in b.stderr,
               "%s: -h status %d, a bad option status %d" % (name, h.returncode,
                                                             b.returncode))


def check_ipccost(tap):
    r = subprocess.run([IPCCOST, "--cpus", "1", "--runs", "1"], capture_output=True,
                       text=True, timeout=600)
    fig = re.search(r"^ipc\.roundtrip\.samecpu (\d+) cycles$", r.stdout, re.M)
    tot = re.search(r"^# iterations \d+; all vCPUs ([\d.]+) per iteration$", r.stdout, re.M)
    rows = [float(l.split()[0]) for l in r.stdout.splitlines()
            if re.match(r"^ +[\d.]+  \S", l)]
    ok = r.returncode == 0 and fig and tot
    tap.ok(ok and abs(float(tot.group(1)) - int(fig.group(1))) <= int(fig.group(1)) / 100,
           "ipccost: %s instructions a round trip, bench says %s"
           % (tot and tot.group(1), fig and fig.group(1)))
    tap.ok(ok and abs(sum(rows) - float(tot.group(1))) <= 2,
           "ipccost: its %d function rows add up to it (%.1f)" % (len(rows), sum(rows)))


def cost_blocks(out):
    """samplecost's blocks: [(heading, {part: instructions})]."""
    blocks = []
    for line in out.splitlines():
        m = re.match(r"^  (\S.*?) +([\d.]+)(?:  \(.*)?$", line)
        if m and blocks:
            blocks[-1][1][m.group(1)] = float(m.group(2))
        elif not line.startswith(" "):
            blocks.append((line, {}))
    return [(h, p) for h, p in blocks if "all" in p]


def check_samplecost(tap):
    r = subprocess.run([SAMPLECOST], capture_output=True, text=True, timeout=600)
    blocks = cost_blocks(r.stdout)
    bad = [h for h, p in blocks if not p.get("prof_hit") or
           abs(sum(v for k, v in p.items() if k != "all") - p["all"]) > 1]
    # Both sources counted (the timer's samples call prof_hit_at: they were
    # once all taken for "other interrupts" and the timer had no block).
    sources = {h.split(",")[0] for h, _ in blocks}
    tap.ok(r.returncode == 0 and blocks and not bad and {"timer", "rtc-nmi"} <= sources,
           "samplecost: %d blocks (%s), each with prof_hit, parts add up to all (bad: %r)"
           % (len(blocks), ", ".join(sorted(sources)), bad))


def main():
    tap = Tap()
    check_cost_usage(tap)
    check_ipccost(tap)
    check_samplecost(tap)
    r = subprocess.run([BENCH, "--compare", "nonesuch", "syscall.null"],
                       capture_output=True, text=True)
    tap.ok(r.returncode == 2 and "not a revision" in r.stderr,
           "--compare nonesuch: a usage error, status 2 (%d)" % r.returncode)
    before = worktrees()
    r = subprocess.run([BENCH, "--icount", "0", "--cpus", "1", "--compare", "HEAD",
                        "syscall.null"], capture_output=True, text=True, timeout=1200)
    rows = {m.group(1): m for m in map(ROW_RE.match, r.stdout.splitlines()) if m}
    tap.ok(r.returncode == 0 and "syscall.null" in rows and
           "syscall.null.instructions" in rows,
           "--compare HEAD syscall.null: joined rows, status %d (%r)"
           % (r.returncode, r.stdout.splitlines()[:4] or r.stderr[-300:]))
    bad = [n for n, m in rows.items() if abs(float(m.group(5)) - 1.0) > 0.02]
    tap.ok(rows and not bad, "the same sources: every ratio 1 within 2%% (%r)" %
           [rows[n].group(0) for n in bad])
    m = rows.get("syscall.null.instructions")
    tap.ok(m and float(m.group(5)) == round(int(m.group(3)) / int(m.group(2)), 3),
           "the ratio is this / REV (%s)" % (m.group(0) if m else None))
    tap.ok(worktrees() == before, "the temporary worktree is gone")
    tap.done()


if __name__ == "__main__":
    main()
