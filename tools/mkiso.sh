#!/usr/bin/env bash
# tools/mkiso.sh - build a bootable GRUB ISO (BIOS and UEFI) for Vernier.
#
# Usage: tools/mkiso.sh OUT.iso KERNEL.elf "CMDLINE"
#
# The ISO holds /boot/vernier.elf (a copy of KERNEL.elf) and
# /boot/grub/grub.cfg made from boot/grub.cfg.in:
#   - empty CMDLINE: a 1-second menu ("Vernier", "Vernier self-test (ktest)")
#     on both the serial port (115200 8N1) and the screen;
#   - any other CMDLINE: a single entry booted at once with that command
#     line, no menu and no GRUB output on the serial port (for tests).
# grub-mkrescue makes both the BIOS (El Torito) and the UEFI boot image; the
# latter needs grub-efi-amd64-bin (tools/setup.sh installs it). Its output is
# shown only when it fails. The ISO is written atomically (temp file + mv).
set -euo pipefail

prog=${0##*/}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
template=$here/../boot/grub.cfg.in

usage() {
    cat <<EOF
Usage: $prog [--initrd INITRD.tar] OUT.iso KERNEL.elf "CMDLINE"

Build a GRUB rescue ISO (BIOS + UEFI) that boots KERNEL.elf as a multiboot2
kernel with CMDLINE. An empty CMDLINE gives the interactive ISO (1 s menu on
serial and screen); a non-empty one gives a quiet single-entry test ISO.
CMDLINE may contain letters, digits, spaces and . _ , = : / + -
EOF
}

die() { echo "$prog: $*" >&2; exit 1; }

initrd=''
case ${1:-} in
    -h|--help) usage; exit 0 ;;
    --initrd)
        [[ $# -ge 2 ]] || { usage >&2; exit 2; }
        initrd=$2; shift 2 ;;
    -*) usage >&2; exit 2 ;;
esac
[[ $# -eq 3 ]] || { usage >&2; exit 2; }
[[ -z $initrd || -f $initrd ]] || { echo "$prog: initrd '$initrd' not found" >&2; exit 1; }

out=$1 kernel=$2 cmdline=$3

[[ -f $kernel ]] || die "kernel '$kernel' not found"
[[ -f $template ]] || die "template '$template' not found"
[[ $cmdline =~ ^[A-Za-z0-9\ ._,=:/+-]*$ ]] ||
    die "command line '$cmdline' has characters GRUB would need quoted"
command -v grub-mkrescue >/dev/null || die "grub-mkrescue missing (run tools/setup.sh)"
command -v xorriso >/dev/null || die "xorriso missing (run tools/setup.sh)"
[[ -d /usr/lib/grub/i386-pc ]] || die "grub-pc-bin missing (run tools/setup.sh)"
[[ -d /usr/lib/grub/x86_64-efi ]] || die "grub-efi-amd64-bin missing (run tools/setup.sh)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vernier-mkiso.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

root=$tmp/root
mkdir -p "$root/boot/grub"
cp "$kernel" "$root/boot/vernier.elf"
if [[ -n $initrd ]]; then
    cp "$initrd" "$root/boot/initrd.tar"
    module='module2 /boot/initrd.tar initrd'
else
    module=''
fi

# Keep the lines of one mode (dropping the marker), drop the other mode's
# lines and the template's comments.
if [[ -z $cmdline ]]; then
    keep=MENU drop=SINGLE
else
    keep=SINGLE drop=MENU
fi
sed -e '/^#/d' -e "/^@$drop@/d" -e "s/^@$keep@//" -e "s|@CMDLINE@|$cmdline|g" -e "s|@MODULE@|$module|g" \
    "$template" | cat -s > "$root/boot/grub/grub.cfg"
# cat -s squeezes the blank lines left by the dropped ones; drop a leading one.
sed -i '1{/^$/d}' "$root/boot/grub/grub.cfg"

# Same content in, same file dates on the ISO.
find "$root" -exec touch -h -d @1700000000 {} +

if ! SOURCE_DATE_EPOCH=1700000000 grub-mkrescue --locales= --fonts= --themes= \
        -o "$tmp/out.iso" "$root" >"$tmp/log" 2>&1; then
    cat "$tmp/log" >&2
    die "grub-mkrescue failed"
fi

mkdir -p "$(dirname "$out")"
mv -f "$tmp/out.iso" "$out"
