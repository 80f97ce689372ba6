#!/usr/bin/env python3
"""test/profil.t - the classic profiler (profil, SYS_PROFILE/GETPROFILE).

The command lines of the MINIX assignment's "What to turn in" list (with
small arguments for fib so they are quick under TCG):
- profil -e 0x20 -s 0x300 fib: "Address range invalid", status 1;
- profil -i 128 fib while another profil runs in the background: the
  second says "Already profiling another process"; the first reports;
- profil fib.c (a text file): cannot execute, not an executable;
- profil -i 256 -e 0x8000 fib, profil -i 512 -s 0x200 -e 0 fib,
  profil -s 0x50 -i 0x1a -e 0x247 fib, profil -s 0x50 -e 0x247 -i 0x49
  fib, profil fib, profil -s 0x80 -e 0x1000 -i 128 fib (and the same
  options in another order), profil -i 0x100 /bin/ls -l /: the geometry the assignment computes, the
  report's layout, bins inside the range, counts that add up to the total;
- profil -f 2000 fib 34 0 1: the bins of fib() hold >= 90% of >= 200
  ticks (the samples count too: ticks alone would be ~30);
- -h and usage errors.

TAP on stdout, for prove.
"""

import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ in test/lib
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "lib"))

import boottest as bt  # noqa: E402
from guest import shell_session  # noqa: E402
from tap import Tap  # noqa: E402

FIB = "fib 25 200 25"             # a short run: fib, loop and overflow
BIN_RE = re.compile(r"^([0-9a-f]{4,})-([0-9a-f]{4,}) \(\s*([\d.]+)%\) : (\**)\s*"
                    r"\((\d+)\)\s+0x([0-9a-f]+) (\S+)$")
GEOM_RE = re.compile(r"^start_addr = (0x[0-9a-f]+|0), end_addr = (0x[0-9a-f]+|0), "
                     r"nr_bins = (\d+), bin_sz = (\d+)$")


def parse(out):
    """The report: {geometry, total, bins [(lo, hi, count, sym)], lines}."""
    r = {"lines": out or [], "bins": [], "total": None, "geom": None}
    for line in r["lines"]:
        m = GEOM_RE.match(line)
        if m:
            r["geom"] = tuple(int(x, 0) for x in m.groups())
        m = re.match(r"^Total ticks in all bins: (\d+)$", line)
        if m:
            r["total"] = int(m.group(1))
        m = BIN_RE.match(line)
        if m:
            r["bins"].append((int(m.group(1), 16), int(m.group(2), 16),
                              int(m.group(5)), m.group(7)))
    return r


def check_report(tap, sh, opts, start, end, nr_bins, bin_sz, args=FIB, busy=True):
    """Run profil with opts; check the report. busy: the range holds
    overflow(), where fib spends most of its time, so some ticks must fall
    in it (elsewhere there may be none)."""
    cmd = "profil %s %s" % (opts, args)
    r = parse(sh.run(cmd, timeout=120))
    status = sh.status()
    lines = r["lines"]
    tap.ok(status == 0 and lines and
           lines[0] == "************************* Output of 'fib' "
           "****************************" and
           any(l.startswith("fib(25) = 121393.000000") for l in lines) and
           any("Profile Statistics" in l for l in lines) and
           "1024 maximum bins" in lines,
           "%s: status %s, banners, fib's output" % (cmd, status))
    tap.ok(r["geom"] == (start, end, nr_bins, bin_sz) and
           "Bin Size: %d" % bin_sz in lines and "Bins used: %d" % nr_bins in lines,
           "%s: start %#x end %#x, %d bins of %d (%r)" %
           (cmd, start, end, nr_bins, bin_sz, r["geom"]))
    counts = sum(b[2] for b in r["bins"])
    inside = all(start <= lo <= hi < end and (lo - start) % bin_sz == 0
                 for lo, hi, _, _ in r["bins"])
    shown = "Percentage time in shown intervals: %s" % (
        "100.00" if r["total"] else "0.00")
    tap.ok(r["total"] is not None and (r["total"] > 0 or not busy) and
           counts == r["total"] and inside and shown in lines,
           "%s: %s ticks in %d bins inside the range, adding up" %
           (cmd, r["total"], len(r["bins"])))
    return r


def text_end(sh):
    """fib's text size (its __text_end offset, from profil fib's report)."""
    r = parse(sh.run("profil -i 0x1000 %s" % FIB, timeout=120))
    return r["geom"][1] if r["geom"] else 0


def check_geometry(tap, sh):
    end = text_end(sh)
    tap.ok(end > 0x8000, "fib's text is %#x bytes (> 0x8000)" % end)
    check_report(tap, sh, "-i 256 -e 0x8000", 0, 0x8000, 128, 256)
    check_report(tap, sh, "-i 512 -s 0x200 -e 0", 0x200, end,
                 -(-(end - 0x200) // 512), 512, busy=False)
    check_report(tap, sh, "-s 0x50 -i 0x1a -e 0x247", 0x50, 0x247, 20, 26)
    check_report(tap, sh, "-s 0x50 -e 0x247 -i 0x49", 0x50, 0x247, 7, 73)
    minimum = -(-end // 1024)
    check_report(tap, sh, "", 0, end, -(-end // minimum), minimum)
    check_report(tap, sh, "-s 0x80 -e 0x1000 -i 128", 0x80, 0x1000, 31, 128)
    check_report(tap, sh, "-i 128 -s 0x80 -e 0x1000", 0x80, 0x1000, 31, 128)


def check_errors(tap, sh):
    out = sh.run("profil -e 0x20 -s 0x300 " + FIB)
    tap.ok(out and "Profil Error: Address range invalid" in out and sh.status() == 1,
           "profil -e 0x20 -s 0x300 fib: address range invalid (%r)" % out)
    out = sh.run("profil -i 3 " + FIB)
    tap.ok(out and "Profil Error: Address range invalid" in out,
           "profil -i 3 fib: more than 1024 bins, address range invalid (%r)" % out)
    out = sh.run("profil -e 0x100000 " + FIB)
    tap.ok(out and "Profil Error: Address range invalid" in out,
           "profil -e 0x100000 fib: past the text, address range invalid (%r)" % out)
    sh.run("echo 'int main(void) { return 0; }' > /tmp/fib.c")
    sh.run("cd /tmp")
    out = sh.run("profil fib.c")
    tap.ok(out == ["Profil Error: cannot execute 'fib.c': not an executable"] and
           sh.status() == 1, "profil fib.c: not an executable (%r)" % out)
    sh.run("cd /")
    out = sh.run("profil nosuchprogram")
    tap.ok(out and out[0].startswith("Profil Error: cannot execute 'nosuchprogram'"),
           "profil nosuchprogram: cannot execute (%r)" % out)


def check_busy(tap, sh):
    # The second profil starts once the first one's fib runs (it is spawned
    # stopped, and started right after its profile is on), while that fib
    # has seconds of work left (fib 32 0 30: ~3.5 G instructions). Neither a
    # fixed sleep on the host nor one in the guest worked: under -icount
    # shift=auto on a loaded host the guest clock and the instruction rate
    # both follow the host, and the first profil sometimes had not started
    # its profile 1 s of guest time later.
    sh.run("profil -i 128 fib 32 0 30 > /tmp/bg.out &")
    for _ in range(100):
        if any(os.path.basename(l.split()[-1]) == "fib"
               for l in sh.run("tasks") or [] if l.split()):
            break
        sh.run("sleep 0.2")
    out = sh.run("profil -i 128 " + FIB)
    tap.ok(out and "Profil Error: Already profiling another process" in out and
           sh.status() == 1, "a second profil -i 128 fib: already profiling (%r)" % out)
    for _ in range(120):                # until the report's last line is there
        bg = sh.run("cat /tmp/bg.out") or []
        if any(l.startswith("Percentage time in shown intervals") for l in bg):
            break
        sh.run("sleep 1")
    r = parse(bg)
    tap.ok(r["total"] and r["geom"] and r["geom"][3] == 128 and
           any(l.startswith("fib(32) = 3524578.000000") for l in r["lines"]),
           "the first profil ran to its report (%s ticks)" % r["total"])
    check_report(tap, sh, "-i 128", 0, r["geom"][1] if r["geom"] else 0,
                 -(-r["geom"][1] // 128) if r["geom"] else 0, 128)


def check_ls(tap, sh):
    """The assignment's example with ls (Vernier's ls has no -R)."""
    out = sh.run("profil -i 0x100 /bin/ls -l /", timeout=120)
    r = parse(out)
    tap.ok(sh.status() == 0 and out and
           out[0].startswith("************************* Output of '/bin/ls'") and
           any(re.search(r"\bbin/?$", l) for l in out) and
           r["geom"] and r["geom"][0] == 0 and r["geom"][3] == 256 and
           r["total"] is not None and sum(b[2] for b in r["bins"]) == r["total"],
           "profil -i 0x100 /bin/ls -l /: ls's listing, then bins of 256 (%r, %s ticks)" %
           (r["geom"], r["total"]))


def check_hot(tap, sh):
    r = parse(sh.run("profil -f 2000 -s 0x20 -e 0x200 -i 16 fib 34 0 1", timeout=120))
    per = {}
    for _, _, n, sym in r["bins"]:
        name = re.sub(r"\+0x[0-9a-f]+$", "", sym)
        per[name] = per.get(name, 0) + n
    tap.ok(r["total"] and r["total"] >= 200 and
           per.get("fib", 0) * 10 >= r["total"] * 9,
           "profil -f 2000 fib 34: fib() has %s of %s ticks (want >= 90%%, >= 200)" %
           (per.get("fib"), r["total"]))


def check_usage(tap, sh):
    out = sh.run("profil -h")
    tap.ok(out and out[0].startswith("usage: profil [-h]") and sh.status() == 0,
           "profil -h: usage, status 0")
    for bad in ("profil", "profil -x fib", "profil -s zz fib", "profil -f 0 fib"):
        out = sh.run(bad)
        tap.ok(out and any(l.startswith("usage: profil") for l in out) and
               sh.status() == 2, "%s: usage, status 2 (%r)" % (bad, out))
    out = sh.run("fib -h")
    tap.ok(out and out[0].startswith("usage: fib [-h]") and sh.status() == 0,
           "fib -h: usage, status 0")


def main():
    tap = Tap()
    # One CPU: under QEMU 7.2's -icount a CPU-bound task on one vCPU can
    # starve the other (the shell then answers only after the background
    # fib of check_busy has ended, and there is nothing to be busy with).
    shell_session(tap, [check_usage, check_errors, check_geometry, check_busy,
                        check_ls, check_hot], cpus=1, icount=bt.PROFILE_ICOUNT)
    tap.done()


if __name__ == "__main__":
    main()
