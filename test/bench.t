#!/usr/bin/env python3
"""test/bench.t - tools/bench.sh's --compare mode (a before/after in one run).

- `--compare nonesuch`: not a revision, usage error (status 2);
- `--icount 0 --cpus 1 --compare HEAD syscall.null`: HEAD is built in a
  temporary worktree and both trees' figures come out joined, as
  "name HEAD-value this-value unit ratio"; under -icount shift=0 the same
  sources give the same instruction counts, so every ratio is 1 within
  2%; the temporary worktree is gone afterwards.

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
ROW_RE = re.compile(r"^(\S+) (\d+) (\d+) (\S+) (\d+\.\d{3})$")


def worktrees():
    out = subprocess.run(["git", "-C", bt.TOP, "worktree", "list"],
                         capture_output=True, text=True).stdout
    return len(out.splitlines())


def main():
    tap = Tap()
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
