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
figure, or ipc.write64 / ipc.write64k; default ipc.roundtrip.samecpu) by
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
for f in "$build/kernel.elf" "$build/initrd.tar" "$bench"; do
    [[ -f $f ]] || { echo "$prog: $f missing (run make)" >&2; exit 1; }
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vernier-ipccost.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cc -O2 -shared -fPIC -Wall -Wextra -Werror -o "$tmp/pccount.so" "$here/pccount.c"

usym() { nm "$bench" | awk -v n="$1" '$3 == n { print $1; f = 1 } END { exit !f }' ||
         { echo "$prog: no symbol $1 in $bench" >&2; exit 1; }; }
if [[ $figure == ipc.write* ]]; then
    loop=run_${figure//./_} mark=ipc_data_write_n
else
    loop=run_ipc_roundtrip mark=ipc_call_sync
fi
args="on=$(usym $loop),off=$(usym ipc_teardown),mark=$(usym $mark),out=$tmp/out"

"$here/mkiso.sh" --initrd "$build/initrd.tar" "$tmp/iso" "$build/kernel.elf" \
    "-- bench -r $runs $figure"
status=0
timeout "$timeout" "$here/qemu.sh" --iso "$tmp/iso" --cpus "$cpus" --icount 0 \
    --extra "-plugin $tmp/pccount.so,$args" >"$tmp/log" 2>"$tmp/err" || status=$?
if [[ $status -ne 1 ]] || [[ ! -s $tmp/out ]]; then
    echo "$prog: the run failed (QEMU exit status $status); last lines:" >&2
    tr -d '\r' <"$tmp/log" | tail -n 20 >&2
    cat "$tmp/err" >&2
    exit 1
fi
tr -d '\r' <"$tmp/log" | grep -aE '^ipc\.' || true
[[ -n $keep ]] && cp "$tmp/out" "$keep"
python3 "$here/ipccost.py" "$tmp/out" "$build/kernel.elf" "$bench"
