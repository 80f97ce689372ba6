#!/usr/bin/env bash
# tools/check.sh - run Vernier's tests through prove (what `make check` runs
# after the build).
#
# Runs the host unit test binaries (build/host/test/test_*, executables that
# print TAP) and the test scripts test/*.t (executable python3 scripts), two
# files at a time (-j2, this machine has 2 cores), with per-file times. Each
# boot test file then runs its QEMU boots one at a time
# (VERNIER_TEST_SLOTS=1) so that no more than two guests share the two host
# cores. The slow files go first so that the two prove jobs end together.
# Exits nonzero if anything fails, after printing each failed test line
# and its diagnostics again; the last line is prove's "Result: ...".
set -euo pipefail

prog=${0##*/}
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

usage() {
    cat <<EOF
Usage: $prog [-v] [TEST...]

Run the unit test binaries and test/*.t through prove (-j2 --timer), or
only the TESTs given (paths of test files or unit test binaries).
  -v          verbose: show every TAP line
  -h, --help  this help
Environment: BUILD (default build), VERNIER_TEST_SLOTS (boots run at once
within one test file, default 1 here), VERNIER_ACCEL (tcg|kvm, default tcg),
VERNIER_HOST_LOCK (default /tmp/vernier-hostlock.UID, one for the host:
guests with more vCPU threads than twice the host cores run alone, see tools/qemu.sh).
The KVM probe (tools/kvmprobe.sh) runs once a run: its answer is kept in
build/test-logs/kvmprobe.txt for the run.
EOF
}

verbose=()
files=()
while [[ $# -gt 0 ]]; do
    case $1 in
        -h|--help) usage; exit 0 ;;
        -v) verbose=(-v); shift ;;
        -*) echo "$prog: unknown option '$1'" >&2; usage >&2; exit 2 ;;
        *) files+=("$1"); shift ;;
    esac
done

command -v prove >/dev/null || { echo "$prog: prove missing (run tools/setup.sh)" >&2; exit 1; }
cd "$top"
build=${BUILD:-build}

if [[ ${#files[@]} -eq 0 ]]; then
    # Slowest first (seconds on 2 cores, TCG, clean-clone CI of 2026-12-03):
    # user 300, gtsmp 194, fuzz 160, soak 151, failinj 149, ktest ~150,
    # bochs 139, bench 113, offcpu 96, srvfuzz 91, profilevm 77, shell 66,
    # ipc 66, gtloop 64, cprof 63, boot 62; the unit tests take a few seconds.
    # Not ipcprof.t (110): under -icount auto its 4-CPU shares follow
    # emulation speed, and beside the heavy files at the start it failed
    # twice (#34, 2.9 and 6.3 points off); later in the run it passed.
    for t in test/user.t test/gtsmp.t test/fuzz.t test/soak.t test/failinj.t test/ktest.t \
             test/bochs.t test/bench.t test/offcpu.t test/srvfuzz.t \
             test/profilevm.t test/shell.t test/ipc.t test/gtloop.t test/cprof.t test/boot.t \
             test/harness.t; do
        [[ -f $t ]] && files+=("$t")
    done
    for t in test/*.t; do
        [[ " ${files[*]} " == *" $t "* ]] || files+=("$t")
    done
    for t in "$build"/host/test/test_*; do
        [[ -f $t && -x $t ]] && files+=("$t")
    done
fi
[[ ${#files[@]} -gt 0 ]] || { echo "$prog: no tests found" >&2; exit 1; }

export VERNIER_TEST_SLOTS=${VERNIER_TEST_SLOTS:-1}
export BUILD="$top/$build"
[[ $build == /* ]] && BUILD=$build
logs=$BUILD/test-logs
mkdir -p "$logs"
# Guests with more vCPU threads than twice the host's cores run alone (see
# host_lock in tools/qemu.sh); one lock for the host, whichever checkout
# a run comes from.
export VERNIER_HOST_LOCK=${VERNIER_HOST_LOCK:-/tmp/vernier-hostlock.$(id -u)}

# failures: each failed test of this run's logs with the diagnostics under
# it (CI shows the end of the output, and prove's summary names only numbers).
failures() {
    local f log
    for f in "${files[@]}"; do
        log=$logs/${f##*/}.log
        [[ -f $log ]] && grep -q '^not ok' "$log" || continue
        echo "--- ${log##*/}"
        awk '/^not ok/ { n = 12 } n > 0 && (/^not ok/ || /^#/) { print; n-- }' "$log" | head -40
    done
}

# Every file runs as a program (unit binaries and python .t files alike),
# not through perl, by tools/tap-tee.sh, which keeps each one's TAP in
# $logs for reading a failure afterwards. On a failure the failed tests
# are printed again, then prove's result line, so that it stays the last.
for f in "${files[@]}"; do rm -f "$logs/${f##*/}.log"; done
# One KVM probe per run (tools/kvmprobe.sh; test/kvm.t, qemu.sh --accel kvm).
export VERNIER_KVM_PROBE_CACHE=$logs/kvmprobe.txt
mkdir -p "$logs"
rm -f "$VERNIER_KVM_PROBE_CACHE"
status=0
prove --exec "$top/tools/tap-tee.sh" -j2 --timer "${verbose[@]}" "${files[@]}" || status=$?
if [[ $status -ne 0 ]]; then
    echo "Failed tests, from $logs:"
    failures
    echo "Result: FAIL"
fi
exit $status
