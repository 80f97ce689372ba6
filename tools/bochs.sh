#!/usr/bin/env bash
# tools/bochs.sh - boot a Vernier ISO in Bochs (Debian's bochs 2.7).
#
# Usage: tools/bochs.sh ISO NCPUS [--log FILE] [--timeout S] [--until REGEX]
#                                  [--mem MIB] [--cpu MODEL] [--display]
#
# The bochsrc is generated in a temp dir: NCPUS x corei7_skylake_x (long
# mode, x2APIC, SMEP, SMAP; --cpu picks another model of `bochs -help cpu`,
# e.g. tigerlake, which has UMIP too), the Bochs BIOS and LGPL VGA BIOS, the ISO on ata0-master as
# a CD-ROM, COM1 written to a file, port 0xE9 debug console on, clock
# sync=none (guest time follows the instruction count at ips=50M, about the
# speed Bochs emulates here, so GRUB's 1 s menu takes about 1 s).
# Debian's Bochs has the built-in debugger and the `term` display only, so
# Bochs runs under script(1) (it needs a terminal) with `-rc` on a file that
# says `c` (continue).
#
# Modes:
#   test mode (--until and/or --timeout): Bochs runs in the background with
#     its screen thrown away; the COM1 log is checked twice a second. Bochs
#     is killed as soon as the log matches REGEX (Perl regex, grep -P) or
#     after the timeout. Exit 0 if it matched (saying after how many seconds
#     on stderr), 1 if not (without --until: 0 at the timeout, else Bochs's
#     status).
#   interactive (make bochs; no --until/--timeout): COM1 is shown on this
#     terminal as it is written (tail -f) until Bochs stops; Ctrl-C stops it.
#   --display: interactive, but shows Bochs's own `term` display (the VGA
#     text screen) on this terminal instead; COM1 still goes to the log.
#     Ctrl-C there enters the Bochs debugger (`q` quits, `c` continues).
#
# Booting GRUB from the ISO to the kernel takes about 7 s here (1 s of it is
# the GRUB menu); Bochs runs at roughly 40-50 MIPS on this machine.
set -euo pipefail

prog=${0##*/}

usage() {
    cat <<EOF
Usage: $prog ISO NCPUS [options]

  --log FILE       write COM1 output to FILE (default: a temp file)
  --timeout S      stop Bochs after S seconds
  --until REGEX    stop Bochs once the COM1 log matches REGEX (grep -P);
                   exit 0 if it did, 1 if not
  --mem MIB        guest memory (default 256)
  --cpu MODEL      Bochs CPU model (default corei7_skylake_x)
  --display        show Bochs's term display (VGA text) instead of COM1
  -h, --help       this help

Without --until/--timeout, COM1 is shown here until Bochs stops (Ctrl-C).
EOF
}

die() { echo "$prog: $*" >&2; exit 1; }
bad() { echo "$prog: $*" >&2; usage >&2; exit 2; }

positional=() log='' timeout='' until='' mem=256 display=0 model=corei7_skylake_x
while [[ $# -gt 0 ]]; do
    case $1 in
        -h|--help) usage; exit 0 ;;
        --log|--timeout|--until|--mem|--cpu)
            [[ $# -ge 2 ]] || bad "$1 needs an argument"
            case $1 in
                --log) log=$2 ;;
                --timeout) timeout=$2 ;;
                --until) until=$2 ;;
                --mem) mem=$2 ;;
                --cpu) model=$2 ;;
            esac
            shift 2 ;;
        --display) display=1; shift ;;
        -*) bad "unknown option '$1'" ;;
        *) positional+=("$1"); shift ;;
    esac
done
[[ ${#positional[@]} -eq 2 ]] || bad "want ISO and NCPUS"
iso=${positional[0]} ncpus=${positional[1]}
[[ $ncpus =~ ^[1-9][0-9]*$ ]] || bad "NCPUS must be a positive number, not '$ncpus'"
[[ $mem =~ ^[1-9][0-9]*$ ]] || bad "--mem wants MiB as a number, not '$mem'"
[[ $model =~ ^[a-z0-9_]+$ ]] || bad "--cpu wants a Bochs CPU model name, not '$model'"
[[ -z $timeout || $timeout =~ ^[1-9][0-9]*$ ]] || bad "--timeout wants seconds, not '$timeout'"
[[ -f $iso ]] || die "ISO '$iso' not found (make builds build/vernier.iso)"
iso=$(realpath "$iso")

command -v bochs >/dev/null || die "bochs missing (run tools/setup.sh)"
command -v script >/dev/null || die "script missing (run tools/setup.sh)"
bios=/usr/share/bochs/BIOS-bochs-latest
vgabios=/usr/share/bochs/VGABIOS-lgpl-latest
[[ -f $vgabios ]] || vgabios=/usr/share/vgabios/vgabios.bin
[[ -f $bios ]] || die "$bios missing (install bochsbios)"
[[ -f $vgabios ]] || die "VGA BIOS missing (install vgabios)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vernier-bochs.XXXXXX")
script_pid='' tail_pid=''

# stop_bochs: end the script(1) we started and the Bochs under it.
stop_bochs() {
    local pid
    if [[ -n $script_pid ]] && kill -0 "$script_pid" 2>/dev/null; then
        # Bochs first: script(1) then reaps it and exits by itself. Bochs
        # takes ~2 s to act on SIGTERM; nothing of its state is worth that.
        pid=$(pgrep -P "$script_pid" || true)
        if [[ -n $pid ]]; then
            kill "$pid" 2>/dev/null || true
            sleep 0.2
            kill -0 "$script_pid" 2>/dev/null && { kill -9 "$pid" 2>/dev/null || true; }
            for _ in 1 2 3 4 5 6 7 8 9 10; do
                kill -0 "$script_pid" 2>/dev/null || break
                sleep 0.2
            done
        fi
        kill "$script_pid" 2>/dev/null || true
        for _ in 1 2 3 4 5; do
            kill -0 "$script_pid" 2>/dev/null || break
            sleep 0.2
        done
        if kill -0 "$script_pid" 2>/dev/null; then
            if [[ -n $pid ]]; then kill -9 "$pid" 2>/dev/null || true; fi
            kill -9 "$script_pid" 2>/dev/null || true
        fi
        wait "$script_pid" 2>/dev/null || true
    fi
    script_pid=
}

cleanup() {
    stop_bochs
    if [[ -n $tail_pid ]]; then kill "$tail_pid" 2>/dev/null || true; fi
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

[[ -n $log ]] || log=$tmp/com1.log
mkdir -p "$(dirname "$log")"
: > "$log"
log=$(realpath "$log")

cat > "$tmp/bochsrc" <<EOF
# Generated by tools/bochs.sh
megs: $mem
romimage: file=$bios
vgaromimage: file=$vgabios
cpu: model=$model, count=$ncpus, ips=50000000, reset_on_triple_fault=0
ata0: enabled=1, ioaddr1=0x1f0, ioaddr2=0x3f0, irq=14
ata0-master: type=cdrom, path="$iso", status=inserted
boot: cdrom
com1: enabled=1, mode=file, dev=$log
port_e9_hack: enabled=1
display_library: term
mouse: enabled=0
clock: sync=none, time0=local
magic_break: enabled=0
log: $tmp/bochs.log
panic: action=fatal
error: action=report
info: action=report
debug: action=ignore
EOF
echo c > "$tmp/rc"

bochs_cmd="exec bochs -f $tmp/bochsrc -rc $tmp/rc"

# show_bochs_log: Bochs's own last log lines, to explain a failure.
show_bochs_log() {
    if [[ -s $tmp/bochs.log ]]; then
        echo "$prog: last lines of Bochs's log:" >&2
        tail -n 15 "$tmp/bochs.log" | sed 's/^/  /' >&2
    fi
}

if (( display )); then
    echo "Bochs: COM1 goes to $log; Ctrl-C enters Bochs's debugger, 'q' quits" >&2
    sleep 1
    # In the background (so the traps below can stop it) but on this
    # terminal's input: an explicit redirection beats the /dev/null that
    # bash gives background jobs.
    script -qec "$bochs_cmd" /dev/null <&0 &
    script_pid=$!
    status=0
    wait "$script_pid" || status=$?
    script_pid=
    exit "$status"
fi

# Bochs in the background; its screen is not wanted here.
launched=$EPOCHREALTIME
TERM=xterm script -qec "$bochs_cmd" /dev/null </dev/null >/dev/null 2>&1 &
script_pid=$!

if [[ -z $until && -z $timeout ]]; then
    echo "Bochs: COM1 output follows (Bochs log: $tmp/bochs.log); Ctrl-C stops" >&2
    tail -n +1 -f "$log" &
    tail_pid=$!
    status=0
    wait "$script_pid" || status=$?
    script_pid=
    sleep 0.3
    exit "$status"
fi

# elapsed: seconds since Bochs was started, with one decimal.
elapsed() {
    local now=${EPOCHREALTIME/[.,]/} t0=${launched/[.,]/}
    local ms=$(( (now - t0) / 1000 ))
    printf '%d.%d' $((ms / 1000)) $((ms % 1000 / 100))
}

start=$SECONDS
while :; do
    if [[ -n $until ]] && grep -qP -- "$until" "$log"; then
        echo "$prog: COM1 matched '$until' after $(elapsed) s" >&2
        exit 0
    fi
    if ! kill -0 "$script_pid" 2>/dev/null; then
        status=0
        wait "$script_pid" || status=$?
        script_pid=
        if [[ -n $until ]]; then
            if grep -qP -- "$until" "$log"; then
                echo "$prog: COM1 matched '$until' after $(elapsed) s" >&2
                exit 0
            fi
            echo "$prog: Bochs stopped (status $status) before COM1 matched '$until'" >&2
            show_bochs_log
            exit 1
        fi
        exit "$status"
    fi
    if [[ -n $timeout ]] && (( SECONDS - start >= timeout )); then
        if [[ -n $until ]]; then
            echo "$prog: timed out after ${timeout}s before COM1 matched '$until'" >&2
            show_bochs_log
            exit 1
        fi
        exit 0
    fi
    sleep 0.5
done
