#!/usr/bin/env python3
"""tools/ipccost.py - per-function instructions of one benchmark iteration
from tools/pccount.c's output (tools/ipccost.sh runs both).

Usage: ipccost.py OUT ELF [ELF...]   (the kernel first, then user programs)
Prints, per vCPU and in total, each function's instructions divided by the
window's mark count (the iterations), largest first, then the sums."""
import bisect
import sys

from elfsyms import symbols


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    tables = [(elf.rsplit("/", 1)[-1], symbols(elf)) for elf in sys.argv[2:]]
    marks, per = 0, {}
    for line in open(sys.argv[1]):
        f = line.split()
        if f[0] == "mark":
            marks = int(f[1])
            continue
        cpu, addr, n = int(f[1]), int(f[2], 16), int(f[3])
        name = "?"
        for tag, syms in tables:
            i = bisect.bisect_right(syms, (addr, "\xff")) - 1
            kernel = addr >= 1 << 47
            if i >= 0 and (tag == tables[0][0]) == kernel:
                name = ("" if kernel else "u:") + syms[i][1]
                break
        per.setdefault(cpu, {}).setdefault(name, 0)
        per[cpu][name] += n
    if not marks:
        sys.exit("ipccost: no iterations in the window")
    total = {}
    for cpu in sorted(per):
        s = sum(per[cpu].values())
        print(f"# vCPU {cpu}: {s / marks:.1f} instructions per iteration")
        for name, n in per[cpu].items():
            total[name] = total.get(name, 0) + n
    grand = sum(total.values())
    print(f"# iterations {marks}; all vCPUs {grand / marks:.1f} per iteration")
    for name, n in sorted(total.items(), key=lambda x: -x[1]):
        if n / marks >= 0.5:
            print(f"{n / marks:9.1f}  {name}")
    user = sum(n for k, n in total.items() if k.startswith("u:"))
    print(f"# user {user / marks:.1f}, kernel {(grand - user) / marks:.1f}")


main()
