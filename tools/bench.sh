#!/usr/bin/env bash
# tools/bench.sh - boot Vernier with "-- bench" and print the benchmark
# figures (/bin/bench: "name value unit" lines, each the median of many
# runs). Benchmarks are not tests: this prints numbers, it judges nothing.
#
# Usage: tools/bench.sh [--accel tcg|kvm] [--cpus N] [--runs N] [--compare REV]
#                       [--kernel WORDS] [FIGURE...]
#
# The ISO is built from build/kernel.elf and build/initrd.tar (run `make`
# first) into a temporary directory. --accel kvm goes through tools/qemu.sh,
# which falls back to TCG with a warning when KVM is not usable.
set -euo pipefail

prog=${0##*/}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$here/..
build=${BUILD:-$top/build}

usage() {
    cat <<EOF
Usage: $prog [options] [FIGURE...]

Boot build/kernel.elf with "-- bench" in QEMU and print bench's figures
(default: every figure bench has, e.g. syscall.null ctxsw.thread spawn.exit;
tsc.hz is always printed).

  --accel tcg|kvm   accelerator (default tcg)
  --cpus N          CPUs (default 2)
  --runs N          runs per figure, the median is printed (default: bench's)
  --timeout S       seconds before giving up (default 300)
  --icount SHIFT    QEMU -icount shift=SHIFT: time from instructions (each
                    takes 2^SHIFT ns), so figures repeat run to run; every
                    "cycles" figure is also printed as NAME.instructions.
                    Also auto (shift=auto) or off. Default: off, but 3
                    when only prof figures are asked (exact samples on a
                    time base that follows instructions)
  --kernel WORDS    kernel command-line words before "-- bench" (e.g.
                    recorder=0: without the flight recorder)
  --log             print the whole serial log, not just the figures
  --compare REV     also build git revision REV (in a temporary worktree)
                    and print each figure as "name REV-value this-value unit
                    ratio" (ratio: this / REV), both from the same options
  -h, --help        this help
EOF
}

bad() { echo "$prog: $*" >&2; usage >&2; exit 2; }

accel=tcg cpus=2 runs='' timeout=300 log=0 figures=() icount='' compare='' args=() kwords=''
while [[ $# -gt 0 ]]; do
    case $1 in
        -h|--help) usage; exit 0 ;;
        --compare)
            [[ $# -ge 2 ]] || bad "$1 needs an argument"
            compare=$2
            shift 2; continue ;;
        --kernel)
            [[ $# -ge 2 ]] || bad "$1 needs an argument"
            [[ $2 =~ ^[A-Za-z0-9.,=_\ -]*$ ]] || bad "--kernel: bad words '$2'"
            kwords=$2
            args+=("$1" "$2")
            shift 2; continue ;;
        --accel|--cpus|--runs|--timeout|--icount)
            [[ $# -ge 2 ]] || bad "$1 needs an argument"
            args+=("$1" "$2")
            case $1 in
                --accel) accel=$2 ;;
                --cpus) cpus=$2 ;;
                --runs) runs=$2 ;;
                --timeout) timeout=$2 ;;
                --icount) icount=$2 ;;
            esac
            shift 2 ;;
        --log) log=1; args+=("$1"); shift ;;
        -*) bad "unknown option '$1'" ;;
        *) [[ $1 =~ ^[a-z0-9.]+$ ]] || bad "bad figure name '$1'"
           figures+=("$1"); args+=("$1"); shift ;;
    esac
done
[[ $accel == tcg || $accel == kvm ]] || bad "--accel is tcg or kvm, not '$accel'"
[[ $cpus =~ ^[1-9][0-9]*$ ]] || bad "--cpus wants a positive number"
[[ -z $runs || $runs =~ ^[1-9][0-9]*$ ]] || bad "--runs wants a positive number"
[[ $timeout =~ ^[1-9][0-9]*$ ]] || bad "--timeout wants seconds"
[[ -z $icount || $icount =~ ^([0-9]|auto|off)$ ]] || bad "--icount wants a shift 0..9, auto or off"
if [[ -z $icount ]]; then
    icount=off
    (( ${#figures[@]} )) && ! printf '%s\n' "${figures[@]}" | grep -qv '^prof' && icount=3
fi
extra=(--icount "$icount")
shift_n=''
[[ $icount =~ ^[0-9]$ ]] && shift_n=$icount

# --compare REV: build REV beside this tree, run both, join the figures.
compare_run() {
    (( log )) && bad "--log and --compare do not go together"
    git -C "$top" rev-parse --verify -q "$compare^{commit}" >/dev/null ||
        bad "--compare: '$compare' is not a revision of this repository"
    ctmp=$(mktemp -d "${TMPDIR:-/tmp}/vernier-compare.XXXXXX")
    trap 'git -C "$top" worktree remove --force "$ctmp/tree" >/dev/null 2>&1; rm -rf "$ctmp"' EXIT
    local tmp=$ctmp
    git -C "$top" worktree add -q --detach "$tmp/tree" "$compare" ||
        { echo "$prog: cannot check out $compare" >&2; exit 1; }
    echo "$prog: building $compare in $tmp/tree" >&2
    make -C "$tmp/tree" -j2 BUILD=build build/initrd.tar >"$tmp/make.log" 2>&1 ||
        { echo "$prog: building $compare failed:" >&2; tail -n 20 "$tmp/make.log" >&2; exit 1; }
    BUILD="$tmp/tree/build" "$here/bench.sh" "${args[@]}" >"$tmp/old" || exit 1
    BUILD="$build" "$here/bench.sh" "${args[@]}" >"$tmp/new" || exit 1
    awk -v rev="$compare" '
        NR == FNR { if ($0 !~ /^#/) old[$1] = $2; next }
        /^#/ { print; next }
        $1 in old { r = old[$1] != 0 ? $2 / old[$1] : 0
                    printf "%s %s %s %s %.3f\n", $1, old[$1], $2, $3, r; next }
        { printf "%s - %s %s -\n", $1, $2, $3 }' "$tmp/old" "$tmp/new"
    exit 0
}
[[ -n $compare ]] && compare_run

for f in "$build/kernel.elf" "$build/initrd.tar"; do
    [[ -f $f ]] || { echo "$prog: $f missing (run make)" >&2; exit 1; }
done

cmdline="${kwords:+$kwords }-- bench"
[[ -n $runs ]] && cmdline+=" -r $runs"
(( ${#figures[@]} )) && cmdline+=" ${figures[*]}"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vernier-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

"$here/mkiso.sh" --initrd "$build/initrd.tar" "$tmp/bench.iso" \
    "$build/kernel.elf" "$cmdline"
status=0
timeout "$timeout" "$here/qemu.sh" --iso "$tmp/bench.iso" --cpus "$cpus" \
    --accel "$accel" "${extra[@]}" >"$tmp/log" 2>"$tmp/err" || status=$?
tr -d '\r' <"$tmp/log" >"$tmp/clean"

if (( log )); then
    cat "$tmp/clean"
else
    # bench's figures ("name value unit"), complaints ("bench: ...") and
    # notes ("# ...", e.g. a figure skipped).
    # With --icount, cycles convert to instructions: the TSC counts
    # tsc.hz per virtual second and an instruction takes 2^SHIFT ns.
    grep -aE '^([a-z]+(\.[a-z0-9]+)* -?[0-9.]+ [^ ]+|bench: .*|# .*)$' "$tmp/clean" |
        awk -v shift="$shift_n" '
            { print }
            $1 == "tsc.hz" { hz = $2 }
            shift != "" && $3 == "cycles" && hz > 0 {
                printf "%s.instructions %.0f instructions\n", $1, $2 / (hz / 1e9 * 2 ^ shift)
            }' || true
fi
cat "$tmp/err" >&2
# init powers off with "pass" (QEMU exit code 1) when bench exited 0.
if [[ $status -ne 1 ]] || ! grep -aq '^tsc\.hz ' "$tmp/clean"; then
    echo "$prog: the benchmark run failed (QEMU exit status $status); last lines:" >&2
    tail -n 20 "$tmp/clean" >&2
    exit 1
fi
