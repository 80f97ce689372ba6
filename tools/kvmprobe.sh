#!/usr/bin/env bash
# tools/kvmprobe.sh - can KVM here run what Vernier needs? Boots the tiny
# guest tools/kvmprobe.asm (built into $BUILD/kvmprobe.bin with nasm) under
# QEMU -accel kvm, one guest per step, and prints one line:
#
#   kvm: usable (steps cxah passed: ...)
#   kvm: unusable: REASON
#
# exit status 0 when usable, 1 when not. REASON names every step that
# failed and how ("a (SMAP clac/stac): KVM internal error (emulation
# failure)", "h (SYSCALL round trip, kernel in the top 2 GiB): #PF error
# 0x15 at rip ... cs 0x2b"), or why no guest could start (no /dev/kvm, not
# openable read-write, QEMU refuses -accel kvm).
#
# The answer of the default probe (default steps and CPU model) is cached
# in $VERNIER_KVM_PROBE_CACHE (default $BUILD/kvmprobe.txt) with a key (the
# host's boot id, the QEMU version, the probe's hash); a matching cache is
# answered at once. tools/check.sh points the cache at a file of its own
# run, so every `make check` probes once; --fresh ignores the cache.
set -euo pipefail

prog=${0##*/}
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# The steps Vernier needs (tools/kvmprobe.asm): CPUID, FXSAVE, SMAP's
# clac/stac (the probe skips it when CPUID has no SMAP), user mode and back
# through SYSCALL/SYSRET with the kernel where Vernier's is.
REQUIRED=cxah
declare -A WHAT=(
    [c]="CPUID" [f]="x87 fninit/fwait" [x]="fxsave64/fxrstor64"
    [a]="SMAP clac/stac" [u]="SYSCALL round trip, kernel at 1 MiB"
    [h]="SYSCALL round trip, kernel in the top 2 GiB" [t]="loop timing"
    [i]="int 0x80 round trip" [w]="user work first" [s]="user entry by SYSRET"
    [l]="Linux GDT layout" [p]="kernel alias at PML4 slot 256"
)

usage() {
    cat <<EOF
Usage: $prog [options]

Boot the probe guest under KVM, one guest per step, and say whether KVM is
usable for Vernier (exit 0) or not and why (exit 1).
  --steps LETTERS   steps to try, one guest per letter (default $REQUIRED; see
                    tools/kvmprobe.asm), or comma-separated groups of
                    letters, one guest per group (e.g. wu,su,lu)
  --cpu MODEL       QEMU CPU model (default host,-arch-capabilities)
  --timeout SECS    per guest (default 60)
  --fresh           ignore the cache
  --verbose         show each guest's output
  -h, --help        this help
Environment: BUILD (default build), VERNIER_KVM_PROBE_CACHE (cache file).
EOF
}

DEFAULT_CPU=host,-arch-capabilities
steps=$REQUIRED cpu=$DEFAULT_CPU timeout=60 fresh=0 verbose=0
while [[ $# -gt 0 ]]; do
    case $1 in
        -h|--help) usage; exit 0 ;;
        --steps) steps=${2:?}; shift 2 ;;
        --cpu) cpu=${2:?}; shift 2 ;;
        --timeout) timeout=${2:?}; shift 2 ;;
        --fresh) fresh=1; shift ;;
        --verbose) verbose=1; shift ;;
        *) echo "$prog: unknown option '$1'" >&2; usage >&2; exit 2 ;;
    esac
done
[[ $steps =~ ^[a-zA-Z,]+$ ]] || { echo "$prog: --steps wants letters" >&2; exit 2; }
[[ $timeout =~ ^[1-9][0-9]*$ ]] || { echo "$prog: --timeout wants seconds" >&2; exit 2; }

build=${BUILD:-$top/build}
qemu=qemu-system-x86_64
src=$top/tools/kvmprobe.asm
bin=$build/kvmprobe.bin
# qboot (QEMU's minimal firmware) reaches the probe in under a second here;
# SeaBIOS takes ~15 s under this kind of nested KVM (it is emulated).
qboot=/usr/share/qemu/qboot.rom
cache=${VERNIER_KVM_PROBE_CACHE:-$build/kvmprobe.txt}

# say: print the verdict, store it in the cache, exit 0 (usable) or 1.
say() {
    local verdict=$1
    if [[ -n ${key:-} ]]; then
        mkdir -p "$(dirname "$cache")"
        printf '%s\n%s\n' "$key" "$verdict" >"$cache.tmp.$$" && mv "$cache.tmp.$$" "$cache"
    fi
    echo "$verdict"
    [[ $verdict == "kvm: usable"* ]]
    exit $?
}

# What keeps an answer valid: this boot of this machine, QEMU, the probe.
probe_key() {
    local boot qver sum
    boot=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null || echo unknown)
    qver=$("$qemu" --version 2>/dev/null | head -1)
    sum=$(sha256sum "$src" | cut -c1-16)
    echo "key: boot $boot; $qver; probe $sum"
}

# Checks that need no guest (their verdicts are not cached: they are cheap).
[[ -c /dev/kvm ]] || { key=''; say "kvm: unusable: no /dev/kvm on this machine"; }
if ! { exec 3<>/dev/kvm; } 2>/dev/null; then
    key=''; say "kvm: unusable: /dev/kvm is not readable and writable for $(id -un)"
fi
exec 3>&-
command -v "$qemu" >/dev/null || { key=''; say "kvm: unusable: $qemu missing"; }
[[ -f $qboot ]] || { key=''; say "kvm: unusable: $qboot missing (package qemu-system-x86)"; }

key=$(probe_key)
[[ $steps == "$REQUIRED" && $cpu == "$DEFAULT_CPU" ]] || key=''   # not cached
cached() {
    [[ -n $key ]] && (( ! fresh )) && [[ -f $cache ]] && [[ $(head -1 "$cache") == "$key" ]]
}
if [[ -n $key ]]; then
    # One probe at a time (prove runs two test files at once): a second
    # caller waits for the first one's answer.
    mkdir -p "$(dirname "$cache")"
    exec 9>"$cache.lock"
    flock 9
fi
if cached; then
    sed -n 2p "$cache"
    [[ $(sed -n 2p "$cache") == "kvm: usable"* ]]
    exit $?
fi

if [[ ! -f $bin || $src -nt $bin ]]; then
    command -v nasm >/dev/null || { key=''; say "kvm: unusable: cannot build the probe (nasm missing)"; }
    mkdir -p "$build"
    nasm -f bin -o "$bin.tmp.$$" "$src" && mv "$bin.tmp.$$" "$bin"
fi

err=$(echo quit | timeout 20 "$qemu" -accel kvm -machine none -S -nodefaults \
      -display none -monitor stdio 2>&1 >/dev/null) ||
    say "kvm: unusable: QEMU does not start with -accel kvm: $(echo "$err" | head -1)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/kvmprobe.XXXXXX")
qpid=''
trap '[[ -n $qpid ]] && kill "$qpid" 2>/dev/null; rm -rf "$tmp"' EXIT

# run_step LETTER: boot the probe with that one step; echo "ok" or what
# went wrong. QEMU stops (it does not exit) on a KVM internal error, so the
# output is watched and QEMU killed then.
run_step() {
    local s=$1 out=$tmp/step-$1.txt t=0 what status=0
    "$qemu" -accel kvm -bios "$qboot" -cpu "$cpu" -smp 1 -m 32 -nodefaults -display none \
        -monitor none -serial stdio -no-reboot \
        -device isa-debug-exit,iobase=0xf4,iosize=0x04 \
        -kernel "$bin" -append "steps=$s" >"$out" 2>&1 &
    qpid=$!
    while kill -0 "$qpid" 2>/dev/null; do
        grep -q -e "KVM internal error" -e "^probe: all steps ok" -e "^probe: exception" "$out" 2>/dev/null &&
            { sleep 0.2; break; }
        sleep 0.2
        t=$((t + 1))
        (( t < timeout * 5 )) || break
    done
    kill "$qpid" 2>/dev/null || true
    wait "$qpid" 2>/dev/null || status=$?
    qpid=''
    (( verbose )) && sed "s/^/  [$s] /" "$out" >&2
    if grep -q '^probe: all steps ok' "$out"; then
        echo ok
    elif grep -q 'KVM internal error' "$out"; then
        what=$(grep -m1 -o 'emulation failure' "$out" || true)
        echo "KVM internal error${what:+ ($what)}"
    elif grep -q '^probe: exception' "$out"; then
        local f
        read -r -a f < <(grep -m1 '^probe: exception' "$out")
        printf 'exception %d error %#x at rip 0x%s cs %#x (CPL %d)' \
            "0x${f[2]}" "0x${f[4]}" "${f[6]#"${f[6]%%[1-9a-f]*}"}" "0x${f[8]}" $((0x${f[8]} & 3))
    elif (( t >= timeout * 5 )); then
        echo "timed out after $timeout s (last line: $(tail -1 "$out"))"
    else
        echo "QEMU ended with status $status (last line: $(tail -1 "$out"))"
    fi
}

t0=$(date +%s)
failed=() passed=()
if [[ $steps == *,* ]]; then
    IFS=, read -r -a groups <<<"$steps"
else
    groups=()
    for ((i = 0; i < ${#steps}; i++)); do groups+=("${steps:i:1}"); done
fi
for g in "${groups[@]}"; do
    [[ -n $g ]] || continue
    r=$(run_step "$g")
    desc=''
    for ((i = 0; i < ${#g}; i++)); do
        s=${g:i:1}
        d=${WHAT[${s,,}]:-step $s}
        [[ $s == [A-Z] ]] && d="$d, from the higher half"
        desc+="${desc:+, then }$d"
    done
    if [[ $r == ok ]]; then passed+=("$g"); else failed+=("$g ($desc): $r"); fi
done
secs=$(( $(date +%s) - t0 ))

if [[ ${#failed[@]} -eq 0 ]]; then
    say "kvm: usable (probe steps $steps passed in $secs s with -cpu $cpu)"
fi
reason=$(printf '%s; ' "${failed[@]}")
say "kvm: unusable: probe step ${reason%; } (-cpu $cpu, $secs s)"
