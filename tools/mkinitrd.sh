#!/usr/bin/env bash
# tools/mkinitrd.sh - build the initrd: a USTAR archive with /bin/<program>
# for every program given, /etc/motd and (with --kernel) the kernel's ELF
# as /boot/kernel, loaded by GRUB as a module. Programs and the kernel
# lose their debug sections (not their symbols) on the way in.
#
# Usage: tools/mkinitrd.sh [--root DIR] [--kernel ELF] OUT.tar PROGRAM...
# --root DIR stages the tree in DIR (replaced) and keeps it there, for host
# tools that want the guest's files (vprof -r DIR); else a temporary
# directory is used. Deterministic: fixed owner, mode and dates, names sorted.
set -euo pipefail

prog=${0##*/}
usage() {
    echo "Usage: $prog [--root DIR] [--kernel ELF] OUT.tar PROGRAM..."
    echo "Build a USTAR initrd holding bin/PROGRAM for each PROGRAM (an ELF file),"
    echo "etc/motd and, with --kernel, boot/kernel. --root DIR keeps the staged tree."
}
root=''
kernel=''
while [[ $# -gt 0 ]]; do
    case $1 in
        -h|--help) usage; exit 0 ;;
        --root|--kernel)
            [[ $# -ge 2 ]] || { usage >&2; exit 2; }
            if [[ $1 == --root ]]; then root=$2; else kernel=$2; fi
            shift 2 ;;
        -*) usage >&2; exit 2 ;;
        *) break ;;
    esac
done
[[ $# -ge 1 ]] || { usage >&2; exit 2; }
out=$1; shift

if [[ -n $root ]]; then
    tmp=$root
    rm -rf "$tmp"
    mkdir -p "$tmp"
else
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/vernier-initrd.XXXXXX")
    trap 'rm -rf "$tmp"' EXIT
fi
mkdir -p "$tmp/bin" "$tmp/etc"
dirs=(bin etc)
for p in "$@"; do
    [[ -f $p ]] || { echo "$prog: '$p' not found" >&2; exit 1; }
    cp "$p" "$tmp/bin/"
    # Debug sections stay in build/ for gdb; the symbol table stays for
    # backtraces and profilers.
    "${STRIP:-strip}" --strip-debug "$tmp/bin/${p##*/}"
done
if [[ -n $kernel ]]; then
    [[ -f $kernel ]] || { echo "$prog: '$kernel' not found" >&2; exit 1; }
    mkdir -p "$tmp/boot"
    cp "$kernel" "$tmp/boot/kernel"
    "${STRIP:-strip}" --strip-debug "$tmp/boot/kernel"
    dirs+=(boot)
fi
printf 'Welcome to Vernier.\n' > "$tmp/etc/motd"
mkdir -p "$(dirname "$out")"
tar --format=ustar --owner=0 --group=0 --numeric-owner --mtime=@1700000000 \
    --sort=name -C "$tmp" -cf "$out.tmp" "${dirs[@]}"
mv -f "$out.tmp" "$out"
