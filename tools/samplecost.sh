#!/usr/bin/env bash
# tools/samplecost.sh - where a profiling sample's instructions go, from the
# stub's entry to its iretq, by part (entry stub, GS decision, dispatch,
# source claim, RTC/CMOS, broadcast, prof_hit, chain walk, ring write, EOI,
# exit), for the timer (10 kHz) and rtc-nmi (8192 Hz) sources.
#
# It boots build/kernel.elf with "-- bench prof.path" (--chain:
# prof.path.chain, sessions with call chains) under QEMU -icount
# shift=0 with a TCG plugin (tools/insncount.c, built here with the host
# cc) that counts every kernel instruction between a stub's entry and its
# iretq, keeps the interrupts that called prof_hit or prof_hit_at (not those that also
# ran the scheduler's tick), and dumps some of them whole;
# tools/samplecost.py walks those with a shadow call stack. The plugin
# tells the vCPUs apart by the kernel's per-CPU pointer (cpu0= is
# bsp_cpu): QEMU 10's own vCPU index is wrong under -icount's round robin.
set -euo pipefail

prog=${0##*/}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${BUILD:-$here/../build}

usage() {
    cat <<EOF
Usage: $prog [--chain] [--cpus N] [--keep FILE] [--timeout S]

Boot "-- bench prof.path" under QEMU -icount shift=0 with the insncount
plugin and print, per source and CPU, the mean instructions of each part
of the sample path (stub entry to iretq) over 20 dumped samples, and the
median length of every sample taken. Needs build/kernel.elf and
build/initrd.tar (run make).

  --chain       sessions with call chains ("bench prof.path.chain")
  --cpus N      CPUs (default 2: the rtc-nmi broadcast is counted on CPU 0)
  --keep FILE   keep the plugin's raw output in FILE
  --timeout S   seconds before giving up (default 600)
  -h, --help    this help
EOF
}

bad() { echo "$prog: $*" >&2; usage >&2; exit 2; }

cpus=2 keep='' timeout=600 figure=prof.path
while [[ $# -gt 0 ]]; do
    case $1 in
        -h|--help) usage; exit 0 ;;
        --chain) figure=prof.path.chain; shift ;;
        --cpus|--keep|--timeout)
            [[ $# -ge 2 ]] || bad "$1 needs an argument"
            case $1 in
                --cpus) cpus=$2 ;;
                --keep) keep=$2 ;;
                --timeout) timeout=$2 ;;
            esac
            shift 2 ;;
        *) bad "unknown argument '$1'" ;;
    esac
done
[[ $cpus =~ ^[1-8]$ ]] || bad "--cpus wants 1..8"
. "$here/plugin-lib.sh"
plugin_setup insncount "$build/kernel.elf" "$build/initrd.tar"

sym() { plugin_sym "$build/kernel.elf" "$1"; }
# The iretq of each common stub: the last instruction before the next symbol.
iretq_of() {
    objdump -d --no-show-raw-insn "$build/kernel.elf" \
        --start-address=0x"$(sym "$1")" --stop-address=0x"$(sym "$2")" |
        awk '$2 == "iretq" { sub(":", "", $1); print $1 }'
}
lo=$(sym __text_start)
hi=$(nm -n "$build/kernel.elf" | awk '$2 ~ /^[tTwW]$/ { a = $1 } END { print a }')
hi=$(printf '%x' $((0x$hi + 0x1000)))
args="lo=$lo,hi=$hi,start=$(sym isr_2),start=$(sym isr_240)"
args+=",end=$(iretq_of isr_common isr_paranoid),end=$(iretq_of isr_paranoid isr_0)"
args+=",mark=$(sym prof_hit),mark=$(sym prof_hit_at),skip=$(sym tick_irq),trace=20,out=$tmp/out"
args+=",cpu0=$(sym bsp_cpu)"

plugin_boot insncount "$args" "-- bench $figure"
tr -d '\r' <"$tmp/log" | grep -aE '^prof\.(sample|handler)' || true
python3 "$here/samplecost.py" "$build/kernel.elf" "$tmp/out" 0=rtc-nmi 1=timer
