#!/usr/bin/env bash
# tools/setup.sh - install the Debian packages Vernier's build and tests need.
#
# Idempotent and silent when nothing is missing (one dpkg-query call). When
# packages are missing it runs `apt-get update` and installs them without
# recommends, logging apt's output to a temp file that is shown only when
# apt fails. Needs root, or sudo when not root; without either it prints the
# missing packages and exits 1.
set -euo pipefail

prog=${0##*/}

# Package                What for
PACKAGES=(
    gcc make binutils     # kernel and host tests
    nasm                  # kernel assembly
    python3 python3-pexpect  # test harness (test/lib), tools/psf2c.py
    perl                  # prove (TAP runner)
    grub-pc-bin           # BIOS GRUB image for the ISO
    grub-efi-amd64-bin    # UEFI GRUB image for the ISO
    grub-common           # grub-mkrescue
    xorriso mtools        # used by grub-mkrescue
    qemu-system-x86       # QEMU
    ovmf                  # UEFI firmware for QEMU
    bochs bochsbios vgabios bochs-term  # Bochs with its BIOS, VGA BIOS, term display
    console-setup-linux   # /usr/share/consolefonts/Lat15-VGA16.psf.gz (kernel font)
    gdb                   # make debug
    util-linux            # script(1), to give Bochs a terminal
    valgrind              # callgrind: the ground truth of test/gtcallgrind.t;
                          # callgrind_annotate reads vprof -F callgrind
    libdevel-nytprof-perl # flamegraph.pl reads vprof -F folded (test/export.t)
    golang-go             # go tool pprof reads vprof -F pprof
    linux-perf            # perf report/script/annotate read vprof -F perf (test/perfdata.t)
    hotspot               # the perf GUI opens vprof -F perf's file (test/hotspot.t)
    xvfb                  # an X server for hotspot's window; -fbdir is the screenshot
    tesseract-ocr         # OCR of that screenshot (test/hotspot.t)
    chromium              # headless: the speedscope app, vprof -F svg
    nodejs                # node and npm: test/js (speedscope, ajv-cli, playwright-core)
)

usage() {
    cat <<EOF
Usage: $prog [--check]

Install the Debian packages Vernier needs, test/js's npm packages and,
on Debian 12, QEMU 10 from bookworm-backports into a cache directory
(tools/qemu-fetch.sh; silent if all are there).
  --check     only report missing packages (exit 1 if any)
  -h, --help  this help
EOF
}

check_only=0
case ${1:-} in
    "") ;;
    --check) check_only=1 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "$prog: unknown option '$1'" >&2; usage >&2; exit 2 ;;
esac
[[ $# -le 1 ]] || { usage >&2; exit 2; }

# missing_packages: print the packages of PACKAGES not fully installed.
missing_packages() {
    local -A ok=()
    local name status
    # Unknown packages make dpkg-query complain and exit 1: that is expected.
    while read -r name status; do
        [[ $status == ii* ]] && ok[${name%%:*}]=1
    done < <(dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' \
                 "${PACKAGES[@]}" 2>/dev/null || true)
    for name in "${PACKAGES[@]}"; do
        [[ -n ${ok[$name]:-} ]] || echo "$name"
    done
}

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# npm_setup: the JavaScript consumers of vprof's exports (test/export.t and
# test/trace-export.t), installed by `npm ci` into test/js/node_modules
# from the committed lock file; nothing to do when that install is newer
# than the lock file.
npm_setup() {
    local dir=$top/test/js log
    [[ -f $dir/node_modules/.package-lock.json &&
       ! $dir/package-lock.json -nt $dir/node_modules/.package-lock.json ]] && return 0
    if (( check_only )); then
        echo "$prog: test/js/node_modules missing (npm ci)" >&2
        return 1
    fi
    command -v npm >/dev/null || { echo "$prog: npm not found (nodejs)" >&2; return 1; }
    log=$(mktemp "${TMPDIR:-/tmp}/vernier-npm.XXXXXX.log")
    if ! (cd "$dir" && npm ci --no-audit --no-fund) >"$log" 2>&1; then
        cat "$log" >&2
        echo "$prog: npm ci in test/js failed (log above, kept in $log)" >&2
        return 1
    fi
    rm -f "$log"
}

# qemu_setup: QEMU 10 from bookworm-backports, unpacked into a cache
# directory outside build/ on Debian 12 (tools/qemu-fetch.sh; nothing on
# Debian 13, whose own QEMU is 10).
qemu_setup() {
    if (( check_only )); then
        "$top/tools/qemu-fetch.sh" --check
    else
        "$top/tools/qemu-fetch.sh"
    fi
}

command -v dpkg-query >/dev/null ||
    { echo "$prog: dpkg-query not found: this script is for Debian" >&2; exit 1; }

mapfile -t missing < <(missing_packages)
if [[ ${#missing[@]} -eq 0 ]]; then
    npm_setup
    qemu_setup
    exit
fi

if (( check_only )); then
    echo "$prog: missing packages: ${missing[*]}" >&2
    exit 1
fi

if [[ $(id -u) -eq 0 ]]; then
    sudo=()
elif command -v sudo >/dev/null; then
    sudo=(sudo)
else
    echo "$prog: missing packages: ${missing[*]}" >&2
    echo "$prog: not root and no sudo: install them as root (apt-get install ...)" >&2
    exit 1
fi

echo "$prog: installing ${missing[*]}" >&2
log=$(mktemp "${TMPDIR:-/tmp}/vernier-setup.XXXXXX.log")
if ! { "${sudo[@]}" apt-get update -qq &&
       "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
           apt-get install -y -qq --no-install-recommends "${missing[@]}"; } \
       >"$log" 2>&1; then
    cat "$log" >&2
    echo "$prog: apt-get failed (log above, kept in $log)" >&2
    exit 1
fi
rm -f "$log"

mapfile -t still < <(missing_packages)
if [[ ${#still[@]} -gt 0 ]]; then
    echo "$prog: still missing after apt-get: ${still[*]}" >&2
    exit 1
fi
npm_setup
qemu_setup
