#!/usr/bin/env bash
# make test: runs each stage (a make target) in order, prints how long each took, and stops at the first that fails.
#
# Usage: Scripts/run-stages.sh MAKE STAGE...
# Each stage's time is printed as it ends, and a table of all of them (with the total) at the end, failing or not,
# so that a slow stage is seen in every CI log (issue 25: make test stays under six minutes on 2 cores).
set -uo pipefail
make_command=$1
shift
names=()
micros=() # per stage, in microseconds
# Microseconds since the epoch, from bash itself (5.0 and later): no bc or date needed.
now() { echo "${EPOCHREALTIME/./}"; }
tenths() { printf '%d.%d' $(($1 / 1000000)) $(($1 / 100000 % 10)); }
summary() {
    local total=0 i
    echo "make test: time per stage"
    for i in "${!names[@]}"; do
        printf '  %-20s %7s s\n' "${names[$i]}" "$(tenths "${micros[$i]}")"
        total=$((total + micros[i]))
    done
    printf '  %-20s %7s s\n' "total" "$(tenths "$total")"
}
for stage in "$@"; do
    start=$(now)
    $make_command --no-print-directory "$stage"
    status=$?
    names+=("$stage")
    micros+=($(($(now) - start)))
    echo "stage $stage: $(tenths "${micros[-1]}") s"
    if [ "$status" -ne 0 ]; then
        summary
        echo "make test: stage $stage failed (exit $status)"
        exit "$status"
    fi
done
summary
