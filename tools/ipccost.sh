#!/usr/bin/env bash
# tools/ipccost.sh - where one IPC round trip's instructions go, by function
# (kernel and user), under QEMU -icount shift=0.
#
# Boots "-- bench -r RUNS FIGURE" (default ipc.roundtrip.samecpu) with a
# TCG plugin (tools/pccount.c, built here with the host cc) that counts
# every instruction by address from the figure's first run to
# ipc_teardown, and divides by the calls made meanwhile
# (tools/ipccost.py). Timer ticks in the window are included.
set -euo pipefail

prog=${0##*/}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=${BUILD:-$here/../build}

usage() {
    cat <<USAGE
Usage: $prog [--cpus N] [--runs N] [--timeout S] [--keep FILE] [FIGURE]

Print the instructions per round trip of bench's FIGURE (an ipc.roundtrip
figure, ipc.write64 / ipc.write64k, syscall.null: per call, or
ctxsw.thread / ctxsw.thread.offcpu: per switch; default
ipc.roundtrip.samecpu) by
function, under -icount shift=0. Needs build/kernel.elf and
build/initrd.tar (run make). --keep FILE keeps the per-address counts.
USAGE
}

bad() { echo "$prog: $*" >&2; usage >&2; exit 2; }

cpus=2 runs=3 timeout=900 figure=ipc.roundtrip.samecpu keep=''
while [[ $# -gt 0 ]]; do
    case $1 in
        -h|--help) usage; exit 0 ;;
        --cpus|--runs|--timeout|--keep)
            [[ $# -ge 2 ]] || bad "$1 needs an argument"
            case $1 in
                --cpus) cpus=$2 ;;
                --runs) runs=$2 ;;
                --timeout) timeout=$2 ;;
                --keep) keep=$2 ;;
            esac
            shift 2 ;;
        -*) bad "unknown option '$1'" ;;
        *) figure=$1; shift ;;
    esac
done
bench=$(find "$build/uspace" -name bench -type f | head -n 1)
. "$here/plugin-lib.sh"
plugin_setup pccount "$build/kernel.elf" "$build/initrd.tar" "${bench:-$build/uspace/bench}"

usym() { plugin_sym "$bench" "$1"; }
if [[ $figure == syscall.null ]]; then
    # From the first SYS_NULL to bench's next system call that is not one
    # (printing the figure: an IPC call to the console). Kernel addresses:
    # bench's low ones are other programs' too (init runs first).
    ksym() { plugin_sym "$build/kernel.elf" "$1"; }
    on=$(ksym sys_null) off=$(ksym sys_ipc_call_sync) mark=$(ksym sys_null)
elif [[ $figure == ctxsw.thread || $figure == ctxsw.thread.offcpu ]]; then
    # From run_ctxsw's first partner_switches (SYS_THREAD_STATS, right
    # before its yields; offcpu's 200 ms sleep is before it) to the
    # teardown, per context switch (the figure's unit: two a yield).
    ksym() { plugin_sym "$build/kernel.elf" "$1"; }
    on=$(ksym sys_thread_stats) off=$(usym ctxsw_teardown) mark=$(ksym arch_context_switch)
else
    if [[ $figure == ipc.write* ]]; then
        loop=run_${figure//./_} mark=ipc_data_write_n
    else
        loop=run_ipc_roundtrip mark=ipc_call_sync
    fi
    on=$(usym $loop) off=$(usym ipc_teardown) mark=$(usym $mark) restart=1
fi
# The vCPUs by the kernel's per-CPU pointer, bsp_cpu CPU 0 (qemuplugin.h:
# QEMU 10's own index is wrong under -icount's round robin).
args="on=$on,off=$off,mark=$mark,restart=${restart:-0},out=$tmp/out,cpu0=$(plugin_sym "$build/kernel.elf" bsp_cpu)"

plugin_boot pccount "$args" "-- bench -r $runs $figure"
tr -d '\r' <"$tmp/log" | grep -aE '^(ipc|syscall)\.' || true
python3 "$here/ipccost.py" "$tmp/out" "$build/kernel.elf" "$bench"
