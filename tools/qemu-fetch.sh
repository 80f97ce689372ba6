#!/usr/bin/env bash
# tools/qemu-fetch.sh - a QEMU 10 for Debian 12 without touching the system.
#
# Debian 12 ships QEMU 7.2; bookworm-backports has Debian 13's QEMU 10.
# This fetches its qemu-system-x86, qemu-system-common and
# qemu-system-data, plus every dependency the installed system does not
# satisfy (seabios, for one), with apt-get on a private sources list and
# private state (the system's own Debian mirror, read from apt at run
# time), and unpacks them with dpkg -x into a cache directory:
#   ${VERNIER_QEMU_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/vernier/qemu}
# It lives outside build/ so that `make clean` keeps it and every work
# tree and clone on the machine shares one copy (about 90 MB). Where the
# system's own QEMU is already 10 or newer (Debian 13), nothing is done.
# Idempotent and silent when the tree is there.
set -euo pipefail

prog=${0##*/}

usage() {
    cat <<EOF
Usage: $prog [--check | --print]

Fetch and unpack bookworm-backports' QEMU into the cache directory
(silent when it is there; nothing to do where the system QEMU is >= 10).
  --check     only say whether it is there (exit 1 if not)
  --print     print the qemu-system-x86_64 to use as QEMU 10 (exit 1 if none)
  -h, --help  this help
Environment: VERNIER_QEMU_CACHE (the cache directory).
EOF
}

mode=fetch
case ${1:-} in
    "") ;;
    --check) mode=check ;;
    --print) mode=print ;;
    -h|--help) usage; exit 0 ;;
    *) echo "$prog: unknown option '$1'" >&2; usage >&2; exit 2 ;;
esac
[[ $# -le 1 ]] || { usage >&2; exit 2; }

cache=${VERNIER_QEMU_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/vernier/qemu}
tree=$cache/root
binary=$tree/usr/bin/qemu-system-x86_64
PACKAGES=(qemu-system-x86 qemu-system-common qemu-system-data)

# system_major: the system qemu-system-x86_64's major version, or 0.
system_major() {
    local v
    v=$(qemu-system-x86_64 --version 2>/dev/null | head -1) || true
    [[ $v =~ version\ ([0-9]+)\. ]] && echo "${BASH_REMATCH[1]}" || echo 0
}

if (( $(system_major) >= 10 )); then
    case $mode in
        print) command -v qemu-system-x86_64 ;;
    esac
    exit 0
fi

case $mode in
    check)
        [[ -x $binary ]] || { echo "$prog: no QEMU 10 in $tree" >&2; exit 1; }
        exit 0 ;;
    print)
        [[ -x $binary ]] || { echo "$prog: no QEMU 10 in $tree (run tools/setup.sh)" >&2; exit 1; }
        echo "$binary"; exit 0 ;;
esac
[[ -x $binary ]] && exit 0

# shellcheck disable=SC1091
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
[[ $codename == bookworm ]] ||
    { echo "$prog: system QEMU < 10 on '$codename': only Debian 12 (bookworm) is handled" >&2; exit 1; }

# mirror: the Repo-URI of the system's main component of the release itself.
mirror() {
    apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(COMPONENT) $(TARGET_OF)' 2>/dev/null |
        awk -v rel="$codename" '$2 == rel && $3 == "main" && $4 == "deb" { print $1; exit }'
}

work=$(mktemp -d "${TMPDIR:-/tmp}/vernier-qemu.XXXXXX")
trap 'rm -rf "$work"' EXIT
log=$work/log
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/parts" "$work/debs"
url=$(mirror)
[[ -n $url ]] || { echo "$prog: no Debian mirror for $codename in the apt sources" >&2; exit 1; }
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
echo "deb [signed-by=$keyring] $url $codename-backports main" >"$work/sources.list"
apt_opts=(-q -o "Dir::Etc::SourceList=$work/sources.list" -o "Dir::Etc::SourceParts=$work/parts"
          -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache"
          -o "Dir::Etc::Preferences=/dev/null" -o "Dir::Etc::PreferencesParts=$work/parts")

# unsatisfied PKG...: the dependencies of PKG... (first alternatives) that
# the installed system does not satisfy, one name a line.
unsatisfied() {
    apt-cache "${apt_opts[@]}" show "${@/%//$codename-backports}" 2>>"$log" |
        sed -n 's/^Depends: //p' | tr ',' '\n' | sed 's/|.*//; s/^ *//; s/ *$//' |
        while read -r name op ver; do
            [[ -n $name ]] || continue
            ver=${ver%)}; op=${op#(}
            [[ " ${PACKAGES[*]} " == *" $name "* ]] && continue
            have=$(dpkg-query -W -f='${Version}' "$name" 2>/dev/null) || have=''
            if [[ -z $have ]] || { [[ -n $op ]] && ! dpkg --compare-versions "$have" "$op" "$ver"; }; then
                echo "$name"
            fi
        done | sort -u
}

fail() {
    cat "$log" >&2
    echo "$prog: $* (log above)" >&2
    exit 1
}

echo "$prog: fetching QEMU from $codename-backports into $cache" >&2
apt-get "${apt_opts[@]}" update >>"$log" 2>&1 || fail "apt-get update failed"
mapfile -t extra < <(unsatisfied "${PACKAGES[@]}")
wanted=("${PACKAGES[@]}" "${extra[@]}")
(cd "$work/debs" && apt-get "${apt_opts[@]}" download "${wanted[@]/%//$codename-backports}") \
    >>"$log" 2>&1 || fail "apt-get download ${wanted[*]} failed"
rm -rf "$cache/root.new"
mkdir -p "$cache/root.new"
for deb in "$work"/debs/*.deb; do
    dpkg -x "$deb" "$cache/root.new" || fail "dpkg -x $deb failed"
done
(cd "$work/debs" && ls) >"$cache/root.new/PACKAGES"
rm -rf "$tree"
mv "$cache/root.new" "$tree"
"$binary" --version | head -1 >&2
