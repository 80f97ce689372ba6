# tools/plugin-lib.sh - sourced by tools/ipccost.sh and tools/samplecost.sh:
# build one of the TCG plugins here and boot a kernel command line under
# QEMU -icount shift=0 with it. The caller sets prog, here, build, cpus,
# timeout and keep; plugin_setup sets tmp.

# plugin_api: the plugin API version to declare for the QEMU tools/qemu.sh
# runs (tools/qemuplugin.h): 1 up to QEMU 8, 2 from QEMU 9.
plugin_api() {
    local major
    major=$("$here/qemu.sh" --version | sed -n 's/^QEMU emulator version \([0-9]*\)\..*/\1/p')
    [[ -n $major ]] || { echo "$prog: cannot tell the QEMU version" >&2; exit 1; }
    if (( major >= 9 )); then echo 2; else echo 1; fi
}

# plugin_setup NAME FILE...: every FILE must exist (else exit 1: run make);
# a temporary directory $tmp (removed at exit) with tools/NAME.c built in
# it as NAME.so (the host's cc) for the QEMU that will run.
plugin_setup() {
    local name=$1 f api
    shift
    for f in "$@"; do
        [[ -f $f ]] || { echo "$prog: $f missing (run make)" >&2; exit 1; }
    done
    api=$(plugin_api)
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/vernier-${prog%.sh}.XXXXXX")
    trap 'rm -rf "$tmp"' EXIT
    cc -O2 -shared -fPIC -Wall -Wextra -Werror -DQEMU_PLUGIN_API="$api" \
        -o "$tmp/$name.so" "$here/$name.c"
}

# plugin_sym FILE NAME: NAME's address in FILE (hex), or exit 1 saying so.
plugin_sym() {
    nm "$1" | awk -v n="$2" '$3 == n { print $1; f = 1 } END { exit !f }' ||
        { echo "$prog: no symbol $2 in ${1##*/}" >&2; exit 1; }
}

# plugin_boot NAME ARGS CMDLINE: boot build's kernel and initrd with
# CMDLINE and plugin NAME (its arguments ARGS, its output $tmp/out); the
# serial log in $tmp/log. Exits 1 with the log's tail if the guest did not
# pass or wrote nothing; copies the output to $keep if set.
plugin_boot() {
    local status=0
    "$here/mkiso.sh" --initrd "$build/initrd.tar" "$tmp/iso" "$build/kernel.elf" "$3"
    timeout "$timeout" "$here/qemu.sh" --iso "$tmp/iso" --cpus "$cpus" --icount 0 \
        --extra "-plugin $tmp/$1.so,$2" >"$tmp/log" 2>"$tmp/err" || status=$?
    if [[ $status -ne 1 ]] || [[ ! -s $tmp/out ]]; then
        echo "$prog: the run failed (QEMU exit status $status); last lines:" >&2
        tr -d '\r' <"$tmp/log" | tail -n 20 >&2
        cat "$tmp/err" >&2
        exit 1
    fi
    if [[ -n $keep ]]; then
        cp "$tmp/out" "$keep"
    fi
}
