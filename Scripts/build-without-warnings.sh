#!/usr/bin/env bash
# The build of make test: `swift build` with its arguments, failing on a compiler warning as on an error.
#
# Usage: Scripts/build-without-warnings.sh SWIFT [ARGUMENT...]
# The package builds without a warning (the developers' guide). `-warnings-as-errors` would do it too, but as a flag
# of its own it would make every later `swift build` or `swift test` without it rebuild the whole package; reading
# the log costs nothing. The compiler prints a file's warnings only when it compiles the file, so an incremental
# build sees the files it recompiled, and a fresh clone (CI) all of them.
set -uo pipefail
swift_command=$1
shift
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$swift_command" build "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
[ "$status" -ne 0 ] && exit "$status"
if grep -qE '^[^ ]+\.swift:[0-9]+:[0-9]+: warning:' "$log"; then
    echo "build: the compiler warned; the package builds without a warning:"
    grep -E '^[^ ]+\.swift:[0-9]+:[0-9]+: warning:' "$log" | sort -u
    exit 1
fi
exit 0
