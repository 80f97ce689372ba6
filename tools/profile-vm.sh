#!/usr/bin/env bash
# tools/profile-vm.sh - one host command from boot to profile files
# (`make profile` runs it).
#
# Boots the ISO in QEMU (1 CPU and -icount shift=0 by default: one
# instruction is one ns of guest time, so samples follow instructions even
# for a program with phases, where shift=auto follows emulation speed; on
# a QEMU before 8.1, 7.2's -icount is off with more CPUs, because its
# uneven round-robin lets a busy vCPU starve the others)
# with COM2 going to a file, runs CMD in the guest's shell under `sprofile -d SECS
# -o com2 ARGS` (the whole system; CMD runs in the background) or, with
# --task, under `profile -o com2 ARGS CMD` (only CMD's task, until it
# exits), powers the guest off and leaves in OUT (default build/profile):
#   stream.vprof   the raw profiler stream (lib/include/abi/profile.h)
#   report.txt     vprof's report of it (with -g when ARGS has -g)
#   console.log    the guest's console
#   and one file per format of PROFILE_FORMATS that this vprof writes
#   (vprof -F FORMAT -o FILE; formats it lacks are skipped with a note).
# A progress line shows while the guest runs (tools/profile_guest.py); the
# paths are printed at the end.
set -euo pipefail

prog=${0##*/}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/.." && pwd)

# FORMAT:FILE pairs written besides report.txt, where vprof has -F FORMAT.
# gmon:PREFIX writes PREFIX.NAME per binary (vprof names them on stdout).
PROFILE_FORMATS=${PROFILE_FORMATS:-"folded:flame.folded svg:flame.svg pprof:profile.pb.gz callgrind:callgrind.out speedscope:speedscope.json gmon:gmon.out perf:perf.data"}

usage() {
    cat <<EOF
Usage: $prog [options] [CMD]

Boot Vernier in QEMU, profile CMD (default: '$default_cmd') and leave
the stream, report.txt and the other formats in OUT.
  --cpus N        guest CPUs (default 1)
  --secs S        how long sprofile records (default 5; ignored with --task)
  --args "ARGS"   more options for sprofile/profile, e.g. "-g -f 4096"
  --task          profile only CMD's task (profile -o com2 ARGS CMD)
  --out DIR       output directory (default BUILD/profile)
  --build DIR     the build directory (default build): ISO and vprof
  --icount MODE   auto, off or a shift 0..9 (tools/qemu.sh; default 0,
                  or off with more than 1 CPU on a QEMU before 8.1)
  -h, --help      this help
Environment: PROFILE_FORMATS (FORMAT:FILE pairs, default "$PROFILE_FORMATS").
EOF
}

die() { echo "$prog: $*" >&2; exit 1; }

# The default --icount: 0, except off on SMP with a QEMU before 8.1.
default_icount() {
    local v
    v=$("$here/qemu.sh" --version 2>/dev/null) || true
    if (( cpus > 1 )) && [[ $v =~ version\ ([0-9]+)\.([0-9]+) ]] &&
       (( BASH_REMATCH[1] * 100 + BASH_REMATCH[2] < 801 )); then
        echo off
    else
        echo 0
    fi
}
bad() { echo "$prog: $*" >&2; usage >&2; exit 2; }

default_cmd='workload -d 5 alpha:2 beta:1'
cpus=1 secs=5 args='' task=0 out='' build=$top/build icount='' cmd=''
while [[ $# -gt 0 ]]; do
    case $1 in
        -h|--help) usage; exit 0 ;;
        --cpus|--secs|--args|--out|--build|--icount)
            [[ $# -ge 2 ]] || bad "$1 needs an argument"
            opt=${1#--}; val=$2; shift 2
            case $opt in
                cpus) cpus=$val ;;
                secs) secs=$val ;;
                args) args=$val ;;
                out) out=$val ;;
                build) build=$val ;;
                icount) icount=$val ;;
            esac ;;
        --task) task=1; shift ;;
        --) shift; cmd="$*"; break ;;
        -*) bad "unknown option '$1'" ;;
        *) cmd="$*"; break ;;
    esac
done

cmd=${cmd:-$default_cmd}
out=${out:-$build/profile}
[[ $cpus =~ ^[1-9][0-9]*$ ]] || bad "--cpus wants a positive number, not '$cpus'"
[[ $secs =~ ^[0-9]+(\.[0-9]+)?$ && ! $secs =~ ^0+(\.0*)?$ ]] ||
    bad "--secs wants seconds like 5 or 0.5, not '$secs'"
[[ -n $icount ]] || icount=$(default_icount)
[[ $icount =~ ^(off|auto|[0-9])$ ]] || bad "--icount is auto, off or a shift 0..9, not '$icount'"
[[ $cmd =~ ^[A-Za-z0-9\ ._,=:/+-]+$ ]] || bad "CMD '$cmd' has characters the guest shell would take specially"
[[ $args =~ ^[A-Za-z0-9\ ._,=:/+-]*$ ]] || bad "ARGS '$args' has characters the guest shell would take specially"
[[ $out != *" "* ]] || bad "OUT must not contain spaces (QEMU's -serial file:)"
iso=$build/vernier.iso vprof=$build/host/vprof
[[ -f $iso ]] || die "$iso not found (make builds it)"
[[ -x $vprof ]] || die "$vprof not found (make builds it)"
vprof=$(cd "${vprof%/*}" && pwd)/vprof

mkdir -p "$out"
out=$(cd "$out" && pwd)
stream=$out/stream.vprof
rm -f "$stream" "$out/report.txt" "$out/console.log"

guest=(python3 "$here/profile_guest.py" --iso "$iso" --cpus "$cpus" --icount "$icount"
       --com2 "$stream" --log "$out/console.log" --secs "$secs" "--args=$args")
(( task )) && guest+=(--task)
"${guest[@]}" -- "$cmd" || die "the guest run failed (console: $out/console.log)"
[[ -s $stream ]] || die "the guest wrote no stream to COM2 (console: $out/console.log)"

vargs=()
[[ " $args " == *" -g "* ]] && vargs+=(-g)
rc=0
"$vprof" "${vargs[@]}" "$stream" > "$out/report.txt" || rc=$?
(( rc == 0 || rc == 3 )) || die "vprof could not read $stream (status $rc)"

files=("$stream" "$out/report.txt" "$out/console.log")
if "$vprof" -h 2>/dev/null | grep -q -- '-F FORMAT'; then
    for pair in $PROFILE_FORMATS; do
        fmt=${pair%%:*} file=$out/${pair#*:}
        # From OUT, so the files name the stream "stream.vprof" (titles).
        if (cd "$out" && "$vprof" -F "$fmt" -o "$file" stream.vprof) >"$out/$fmt.list" \
               2>"$out/$fmt.err"; then
            if [[ $fmt == gmon ]]; then
                while IFS=: read -r made _; do files+=("$made"); done < "$out/$fmt.list"
            else
                files+=("$file")
            fi
            rm -f "$out/$fmt.err" "$out/$fmt.list"
        else
            echo "$prog: vprof -F $fmt failed (see $out/$fmt.err)" >&2
        fi
    done
else
    echo "$prog: note: this vprof has no -F: only the report is written" >&2
fi

echo "$prog: the profile of '$cmd':"
for f in "${files[@]}"; do
    echo "  $f"
done
