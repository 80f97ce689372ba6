#!/usr/bin/env bash
# tools/soak.sh - the soak run: boot Vernier with "-- soak" for MINUTES of
# everything at once (sprofile at 10 kHz with call chains to COM2, workload
# on every CPU, ipctest stress, a spawn/kill storm, vfuzz, a memory toucher
# near the region limit), then check the invariants (test/soak.t: samples +
# lost = taken, every IPC call answered, frames/heap/kernel stacks/tasks/
# threads back at the baseline, no panic) and print the summary.
#
# Usage: tools/soak.sh [-s SEED] MINUTES [CPUS]    (make soak MINUTES= CPUS=)
set -euo pipefail

prog=${0##*/}
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

usage() {
    cat <<EOF
Usage: $prog [-s SEED] MINUTES [CPUS]

Boot build/kernel.elf and build/initrd.tar (run make first) in QEMU with
"-- soak -d MINUTES*60" on CPUS CPUs (default 2), show soak's progress on
stderr, check the invariants (TAP on stdout) and print the summary lines
("name value unit") at the end. Exit status 0 if every check passed.
  -s SEED     seed of the storm's delays and vfuzz's rounds (default: the clock)
  -h, --help  this help
Environment: VERNIER_ACCEL (tcg|kvm, default tcg), BUILD (default build).
EOF
}

bad() { echo "$prog: $*" >&2; usage >&2; exit 2; }

seed=$(date +%s)
while [[ $# -gt 0 ]]; do
    case $1 in
        -h|--help) usage; exit 0 ;;
        -s) [[ $# -ge 2 ]] || bad "-s needs a seed"; seed=$2; shift 2 ;;
        -*) bad "unknown option '$1'" ;;
        *) break ;;
    esac
done
[[ $# -ge 1 && $# -le 2 ]] || bad "MINUTES is required"
minutes=$1 cpus=${2:-2}
[[ $minutes =~ ^[1-9][0-9]*$ ]] || bad "MINUTES wants a positive number, not '$minutes'"
[[ $cpus =~ ^[1-9][0-9]*$ ]] || bad "CPUS wants a positive number, not '$cpus'"
[[ $seed =~ ^[0-9]+$ ]] || bad "-s wants a number, not '$seed'"
build=${BUILD:-$top/build}
[[ -f $build/kernel.elf && -f $build/initrd.tar ]] ||
    { echo "$prog: $build/kernel.elf or initrd.tar missing: run make first" >&2; exit 1; }

summary=$(mktemp "${TMPDIR:-/tmp}/vernier-soak-summary.XXXXXX")
trap 'rm -f "$summary"' EXIT
echo "$prog: $minutes min on $cpus CPUs, seed $seed" >&2
status=0
SOAK_SECONDS=$((minutes * 60)) SOAK_CPUS=$cpus SOAK_SEED=$seed SOAK_PROGRESS=1 \
    SOAK_SUMMARY=1 SOAK_SUMMARY_FILE=$summary BUILD=$build \
    python3 "$top/test/soak.t" || status=$?
echo "summary ($minutes min, $cpus CPUs, seed $seed):"
cat "$summary"
exit $status
