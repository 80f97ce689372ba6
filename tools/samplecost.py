#!/usr/bin/env python3
"""tools/samplecost.py - the sample path's instructions by part, from the
output of tools/insncount.c (tools/samplecost.sh runs both).

Usage: samplecost.py KERNEL.elf INSNCOUNT.out [KIND=NAME...]

Each dumped segment (one interrupt, stub entry to iretq) is walked with a
shadow call stack; an instruction goes to the part of the innermost
function on the stack that has one (time_cycles called from prof_hit is
prof_hit's), the stubs split by instruction (GS decision, entry, exit).
Prints per source and CPU the mean instructions of each part over the
dumped segments, and the median and mean length of all counted segments.
"""
import collections
import re
import subprocess

from elfsyms import symbols
import sys

PARTS = ["entry stub", "GS decision", "dispatch", "source claim", "RTC/CMOS",
         "broadcast", "prof_hit", "chain walk", "ring write", "rearm", "EOI", "exit"]

FUNCS = {
    "dispatch": ["interrupt_dispatch", "nmi_dispatch", "arch_nmi_handle",
                 "nmi_ask_latching", "irq_dispatch", "irqlat_nmi_end",
                 "irqlat_off_begin", "irqlat_off_end", "acct_irq_enter",
                 "acct_irq_exit"],
    "source claim": ["prof_nmi", "prof_pmc_nmi", "prof_rtc_nmi", "prof_timer_irq",
                     "prof_rtc_ipi", "prof_rtc_irq"],
    "RTC/CMOS": ["cmos_read", "cmos_write"],
    "broadcast": ["prof_rtc_broadcast", "lapic_nmi_others_from_nmi",
                  "arch_send_ipi_others"],
    "prof_hit": ["prof_hit", "prof_hit_at", "prof_take", "prof_build", "prof_put",
                 "prof_throttle_account", "prof_wanted", "prof_target",
                 "prof_throttled", "profil_hit", "prof_throttle_step",
                 "prof_throttle_record", "prof_due", "prof_mode"],
    "chain walk": ["prof_walk", "arch_sample_stack", "arch_callchain", "arch_unwind",
                   "arch_stack_top", "arch_user_peek"],
    "ring write": ["ring_put", "ring_reserve", "ring_commit"],
    "rearm": ["prof_timer_arm_at", "lapic_timer_oneshot"],
    "EOI": ["lapic_eoi"],
    "exit": ["user_return_work", "sched_preempt_point"],
}
PART_OF = {f: p for p, fs in FUNCS.items() for f in fs}
STUBS = ("isr_common", "isr_paranoid")


def disasm(elf, lo, hi):
    """address -> (mnemonic, operands) for [lo, hi)."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "-M", "intel",
                          "--start-address=%#x" % lo, "--stop-address=%#x" % hi, elf],
                         capture_output=True, text=True, check=True).stdout
    ins = {}
    for line in out.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\s+(\S+)\s*(.*)", line)
        if m:
            ins[int(m.group(1), 16)] = (m.group(2), m.group(3))
    return ins


def stub_parts(syms, ins):
    """Part of each instruction of the two common stubs."""
    parts = {}
    addr = {n: a for a, n in syms}
    for stub in STUBS:
        lo = addr[stub]
        hi = min(a for a, n in syms if a > lo and not n.startswith(stub))
        body = sorted(a for a in ins if lo <= a < hi)
        call = next(a for a in body if ins[a][0] == "call")
        if stub == "isr_common":
            gs_in = (next(a for a in body if ins[a][0] == "test" and "rsp+0x90" in ins[a][1]),
                     addr[stub + ".kernel_in"])
            out_at = addr[stub + ".kernel_out"]
        else:
            gs_in = (next(a for a in body if ins[a][0] == "xor"), addr[stub + ".gs_ok"])
            out_at = addr[stub + ".out"]
        for a in body:
            if a < call:
                parts[a] = "GS decision" if gs_in[0] <= a < gs_in[1] else "entry stub"
            elif a == call or a >= out_at or ins[a][0] == "add":
                parts[a] = "entry stub" if a == call else "exit"
            else:
                parts[a] = "GS decision"
    return parts


def walk(trace, fn_of, ins, stub):
    """Instructions of one segment by part."""
    got = collections.Counter()
    stack = [None]
    call_pending = False
    for a in trace:
        f = fn_of(a)
        if call_pending:
            stack.append(f)
            call_pending = False
        stack[-1] = f
        if a in stub:
            part = stub[a]
        elif f.startswith("isr_"):
            part = "entry stub"
        else:
            part = next((PART_OF[g] for g in reversed(stack) if g in PART_OF), "other:" + f)
        got[part] += 1
        m = ins.get(a, ("?",))[0]
        if m == "call":
            call_pending = True
        elif m.startswith("ret") and len(stack) > 1:
            stack.pop()
    return got


def main(argv):
    if len(argv) < 3 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) > 1 and argv[1] in ("-h", "--help") else 2
    elf, path = argv[1], argv[2]
    names = dict(a.split("=", 1) for a in argv[3:])
    syms = symbols(elf)
    addrs = [a for a, _ in syms]
    import bisect

    def fn_of(a):
        i = bisect.bisect_right(addrs, a) - 1
        n = syms[i][1] if i >= 0 else "?"
        return n.split(".")[0]

    segs, traces, insn_lo, insn_hi = {}, collections.defaultdict(list), None, None
    with open(path) as fh:
        for line in fh:
            f = line.split()
            if f[0] == "seg":
                segs[(f[1], f[2])] = [int(x) for x in f[3:]]
            elif f[0] == "trace":
                t = [int(x, 16) for x in f[3:]]
                traces[(f[1], f[2])].append(t)
                insn_lo = min([insn_lo or t[0]] + t)
                insn_hi = max([insn_hi or t[0]] + t)
    ins = disasm(elf, insn_lo, insn_hi + 16) if traces else {}
    stub = stub_parts(syms, ins) if traces else {}
    for key in sorted(segs):
        counted, other, mn, med, mx = segs[key]
        name = names.get(key[0], "kind " + key[0])
        print("%s, CPU %s: %d samples (%d other interrupts), instructions "
              "min %d median %d max %d" % (name, key[1], counted, other, mn, med, mx))
        ts = traces.get(key, [])
        if not ts:
            continue
        total = collections.Counter()
        for t in ts:
            total.update(walk(t, fn_of, ins, stub))
        n = len(ts)
        for p in PARTS + sorted(k for k in total if k not in PARTS):
            if total.get(p):
                print("  %-14s %7.1f" % (p, total[p] / n))
        print("  %-14s %7.1f  (mean of %d dumped samples)" %
              ("all", sum(total.values()) / n, n))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
