#!/usr/bin/env bash
# tools/qemu.sh - boot a Vernier ISO in QEMU (x86-64), for people and tests.
#
# Non-interactive (the default, used by the test harness): the guest's COM1
# is QEMU's stdout, there is no display and no monitor, and the guest ends
# QEMU through isa-debug-exit at port 0xf4 (QEMU exits with (value<<1)|1).
# --interactive (make run) puts COM1 and the QEMU monitor on this terminal
# (Ctrl-A X quits, Ctrl-A C toggles the monitor). --gdb (make debug) waits
# for gdb on :1234 (see tools/gdbinit.in).
#
# --icount makes guest time follow the instructions executed (-icount, with
# -rtc clock=vm so the CMOS RTC follows it too): timer interrupts then land
# on exact instruction counts, so profiles are exact, but the vCPUs run
# round-robin on one host thread (slower with several CPUs). `auto` lets
# QEMU pick the rate (guest time tracks host time, sleep=on); a fixed shift
# N makes one instruction take 2^N ns of guest time, with sleep=off (idle
# time skips ahead) unless --interactive. The default is off: plain
# multi-threaded TCG, fast but profiles are biased to translation-block
# starts (the kernel detects it and the profile reports say so).
#
# --accel kvm is used only when tools/kvmprobe.sh says a guest can really
# run what Vernier needs under KVM here (its tiny guest goes to user mode
# and back through SYSCALL; the answer is cached); otherwise this falls
# back to TCG with a warning giving the probe's reason. --force-kvm (or
# VERNIER_KVM_FORCE=1 in the environment) skips the probe, to study a KVM
# that fails it.
# --qemu (or VERNIER_QEMU) picks the binary: `10` (the default: QEMU 10,
# the system's where it is 10 or newer, as on Debian 13, else
# bookworm-backports' unpacked by tools/qemu-fetch.sh, run with its own
# firmware and module folders; its -icount round-robin is fair), `system`
# (the distribution's qemu-system-x86_64 whatever its version: 7.2 on
# Debian 12, the supported old target, `make check-qemu7`), or a path to a
# qemu-system-x86_64.
# The script exec's QEMU, so its exit status and pid are QEMU's.
set -euo pipefail

prog=${0##*/}

usage() {
    cat <<EOF
Usage: $prog --iso ISO [options]

  --iso ISO              ISO image to boot (required)
  --cpus N               number of CPUs (default 2)
  --mem MIB              memory in MiB (default 256)
  --accel tcg|kvm        accelerator (default tcg; kvm falls back to tcg
                         with a warning when tools/kvmprobe.sh says KVM
                         can't run Vernier here)
  --force-kvm            with --accel kvm: no probe, no fallback
  --firmware bios|uefi   SeaBIOS or OVMF (default bios)
  --cpu MODEL            CPU model (default: max for tcg,
                         host,-arch-capabilities for kvm)
  --icount auto|off|N    guest time from instruction counts (-icount
                         shift=auto or shift=N, N 0..9, plus -rtc clock=vm)
                         for exact profiles (default off; tcg only)
  --qemu system|10|PATH  which QEMU (default \$VERNIER_QEMU, else 10:
                         QEMU 10, on Debian 12 the one tools/setup.sh
                         unpacks from backports; system: the
                         distribution's, 7.2 on Debian 12)
  --interactive          serial console and monitor on this terminal
                         (Ctrl-A X quits)
  --gdb                  start stopped, gdb stub on tcp::1234
  --extra "ARGS"         more QEMU arguments (split on spaces)
  --dry-run              print the QEMU command instead of running it
  --version              print the chosen QEMU's version line (no --iso)
  -h, --help             this help

Environment: VERNIER_HOST_LOCK=FILE (set by tools/check.sh): wait for a
flock on FILE first, exclusive if the guest has more vCPU threads than
twice the host's cores, shared otherwise, and with more threads than
cores FILE.wide shared too (--dry-run prints which).
Exit status: QEMU's (isa-debug-exit value v gives (v<<1)|1).
EOF
}

die() { echo "$prog: $*" >&2; exit 1; }
bad() { echo "$prog: $*" >&2; usage >&2; exit 2; }

iso='' cpus=2 mem=256 accel=tcg firmware=bios cpu='' interactive=0 gdb=0 extra='' dry=0
version=0
force_kvm=0
[[ ${VERNIER_KVM_FORCE:-0} == 1 ]] && force_kvm=1
icount=off
pick=${VERNIER_QEMU:-10}
while [[ $# -gt 0 ]]; do
    case $1 in
        -h|--help) usage; exit 0 ;;
        --iso|--cpus|--mem|--accel|--firmware|--cpu|--extra|--icount|--qemu)
            [[ $# -ge 2 ]] || bad "$1 needs an argument"
            opt=${1#--}; val=$2; shift 2
            case $opt in
                iso) iso=$val ;;
                cpus) cpus=$val ;;
                mem) mem=$val ;;
                accel) accel=$val ;;
                firmware) firmware=$val ;;
                cpu) cpu=$val ;;
                icount) icount=$val ;;
                qemu) pick=$val ;;
                extra) extra=$val ;;
            esac ;;
        --interactive) interactive=1; shift ;;
        --gdb) gdb=1; shift ;;
        --dry-run) dry=1; shift ;;
        --version) version=1; shift ;;
        --force-kvm) force_kvm=1; shift ;;
        *) bad "unknown option '$1'" ;;
    esac
done

[[ -n $iso ]] || (( version )) || bad "--iso is required"
[[ $cpus =~ ^[1-9][0-9]*$ ]] || bad "--cpus wants a positive number, not '$cpus'"
[[ $mem =~ ^[1-9][0-9]*$ ]] || bad "--mem wants MiB as a number, not '$mem'"
[[ $accel == tcg || $accel == kvm ]] || bad "--accel is tcg or kvm, not '$accel'"
[[ $firmware == bios || $firmware == uefi ]] || bad "--firmware is bios or uefi, not '$firmware'"
[[ $icount =~ ^(off|auto|[0-9])$ ]] || bad "--icount is auto, off or a shift 0..9, not '$icount'"
[[ -f $iso ]] || (( version )) || die "ISO '$iso' not found (make builds build/vernier.iso)"

[[ $pick == system || $pick == 10 || $pick == */* ]] ||
    bad "--qemu is system, 10 or a path, not '$pick'"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
qemu_args=()
case $pick in
    system) qemu="qemu-system-x86_64" ;;
    10) qemu=$("$here/qemu-fetch.sh" --print) || die "no QEMU 10 (run tools/setup.sh)" ;;
    *) qemu=$pick ;;
esac
command -v "$qemu" >/dev/null || die "$qemu missing (run tools/setup.sh)"
# An unpacked tree (.../usr/bin/qemu-system-x86_64): its own firmware,
# modules and libraries first.
root=$(dirname "$(dirname "$(dirname "$(command -v "$qemu")")")")
if [[ $root != / && -d $root/usr/share/qemu ]]; then
    qemu_args+=(-L "$root/usr/share/qemu")
    [[ -d $root/usr/share/seabios ]] && qemu_args+=(-L "$root/usr/share/seabios")
    export QEMU_MODULE_DIR=$root/usr/lib/x86_64-linux-gnu/qemu
    export LD_LIBRARY_PATH=$root/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi

if (( version )); then
    "$qemu" --version | head -n 1
    exit
fi

if [[ $accel == kvm ]] && (( ! force_kvm )); then
    if ! verdict=$("$here/kvmprobe.sh" 2>&1); then
        echo "$prog: warning: ${verdict:-KVM probe failed}; falling back to TCG" >&2
        accel=tcg
    fi
fi

if [[ -z $cpu ]]; then
    if [[ $accel == kvm ]]; then cpu=host,-arch-capabilities; else cpu=max; fi
fi

args=("${qemu_args[@]}" -accel "$accel" -cpu "$cpu" -smp "$cpus" -m "$mem"
      -display none -monitor none -no-reboot
      -device "isa-debug-exit,iobase=0xf4,iosize=0x04"
      -cdrom "$iso" -boot d)

if [[ $firmware == uefi ]]; then
    ovmf=/usr/share/ovmf/OVMF.fd
    [[ -f $ovmf ]] || die "$ovmf missing (run tools/setup.sh)"
    args+=(-bios "$ovmf" -net none)
fi

if (( interactive )); then
    args+=(-serial mon:stdio)
else
    args+=(-serial stdio)
fi

if [[ $icount != off ]]; then
    if [[ $accel != tcg ]]; then
        echo "$prog: warning: --icount needs TCG, ignored with $accel" >&2
    elif [[ $icount == auto ]] || (( interactive )); then
        args+=(-icount "shift=$icount,sleep=on" -rtc clock=vm)
    else
        args+=(-icount "shift=$icount,sleep=off" -rtc clock=vm)
    fi
    # The guest cannot tell shift=auto from a fixed shift: tell it (the
    # kernel's fw_cfg reader, arch/x86_64/pc/fwcfg.c; reports warn on auto).
    [[ $accel == tcg ]] && args+=(-fw_cfg "name=opt/vernier/icount,string=$icount")
fi

(( gdb )) && args+=(-s -S)

if [[ -n $extra ]]; then
    read -r -a more <<<"$extra"
    args+=("${more[@]}")
fi


# host_lock: with VERNIER_HOST_LOCK set (tools/check.sh sets it), share
# the host's cores fairly between the guests of parallel test jobs: a guest
# with more vCPU threads than twice the host's cores (plain TCG or KVM, -smp
# above that) runs alone (an exclusive flock), the others together (a
# shared one). (Up to twice: a 4-CPU and a 2-CPU ktest boot on 2 cores
# together took 33.2 s, one after the other 35.2 s, QEMU 10; with 4 CPUs
# exclusive, make check's other job waited 580 s for them and their
# turns.) Under -icount TCG runs every vCPU on one thread. Without
# this a 4-CPU guest beside a busy core ran 8 times slower (a vCPU holding
# a guest lock is descheduled while the others spin on it). A turnstile
# lock lets a waiting exclusive guest in before new shared ones. A guest
# with more threads than cores (a "wide" one) also holds FILE.wide shared
# (fd 7): Bochs (test/bochs.t, one thread that must keep a core) takes it
# exclusively, so it shares the host with narrow guests only. QEMU holds
# fds 9 and 7 until it exits.
host_lock() {
    local threads=$cpus mode=-s wide=''
    [[ -n ${VERNIER_HOST_LOCK:-} ]] || return 0
    command -v flock >/dev/null || return 0
    [[ $icount != off && $accel == tcg ]] && threads=1
    (( threads > 2 * $(nproc) )) && mode=-x
    [[ $mode == -s ]] && (( threads > $(nproc) )) && wide=' wide'
    (( dry )) && echo "$prog: host lock: $([[ $mode == -x ]] && echo exclusive || echo shared)$wide" >&2
    exec 8>>"$VERNIER_HOST_LOCK.turnstile" 9>>"$VERNIER_HOST_LOCK"
    flock 8
    flock -w 3600 "$mode" 9 || echo "$prog: warning: no host lock after an hour" >&2
    flock -u 8
    exec 8>&-
    if [[ -n $wide ]]; then     # after the turnstile: others pass while Bochs runs
        exec 7>>"$VERNIER_HOST_LOCK.wide"
        flock -w 3600 -s 7 || echo "$prog: warning: no wide lock after an hour" >&2
    fi
}

host_lock
if (( dry )); then
    echo "$qemu ${args[*]}"
    exit 0
fi

(( interactive )) && echo "QEMU: Ctrl-A X to quit" >&2
exec "$qemu" "${args[@]}"
