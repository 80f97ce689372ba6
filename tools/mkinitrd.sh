#!/usr/bin/env bash
# tools/mkinitrd.sh - build the initrd: a USTAR archive with /bin/<program>
# for every program given (and /etc/motd), loaded by GRUB as a module.
# Programs lose their debug sections (not their symbols) on the way in.
#
# Usage: tools/mkinitrd.sh OUT.tar PROGRAM...
# Deterministic: fixed owner, mode and dates, names sorted.
set -euo pipefail

prog=${0##*/}
usage() {
    echo "Usage: $prog OUT.tar PROGRAM..."
    echo "Build a USTAR initrd holding bin/PROGRAM for each PROGRAM (an ELF file)."
}
case ${1:-} in
    -h|--help) usage; exit 0 ;;
    -*|"") usage >&2; exit 2 ;;
esac
out=$1; shift

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vernier-initrd.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin" "$tmp/etc"
for p in "$@"; do
    [[ -f $p ]] || { echo "$prog: '$p' not found" >&2; exit 1; }
    cp "$p" "$tmp/bin/"
    # Debug sections stay in build/ for gdb; the symbol table stays for
    # backtraces and profilers.
    "${STRIP:-strip}" --strip-debug "$tmp/bin/${p##*/}"
done
printf 'Welcome to Vernier.\n' > "$tmp/etc/motd"
mkdir -p "$(dirname "$out")"
tar --format=ustar --owner=0 --group=0 --numeric-owner --mtime=@1700000000 \
    --sort=name -C "$tmp" -cf "$out.tmp" bin etc
mv -f "$out.tmp" "$out"
