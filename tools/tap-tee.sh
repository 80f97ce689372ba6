#!/usr/bin/env bash
# tools/tap-tee.sh - run one test program for prove (tools/check.sh) and keep
# a copy of its TAP output in $BUILD/test-logs/NAME.log, so a failure in a
# non-verbose `make check` can be read afterwards. Exit status: the test's.
set -uo pipefail
dir=${BUILD:-build}/test-logs
mkdir -p "$dir"
"$@" | tee "$dir/$(basename "$1").log"
