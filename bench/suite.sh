#!/bin/bash
# The suite runner's own overhead between runs: the time from one run's
# end to the next run's start (as the database records them), for N runs
# of a short command (a) planned by a suite and (b) started one by one by
# a shell loop of 'pressmark record', in the same bench run, alternating
# A B A B so drift falls on both. Goal: the suite at most 1.05 times the
# loop's gap.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${BENCH_SUITE_RUNS:-40}
ROUNDS=${BENCH_SUITE_ROUNDS:-3}
DIR=$(mktemp -d /tmp/pressmark-bench.XXXXXX)
trap 'rm -rf "$DIR"' EXIT
cat > "$DIR/gap.ini" <<INI
[global]
runs = $N

[gap]
workload = record
command = sleep 0.05
interval = 20ms
INI
# Mean gap in ms between consecutive runs of a label in a database.
gap() {
    sqlite3 "$1" "SELECT avg(b.started_ns - a.ended_ns) / 1e6 FROM run a JOIN run b ON b.id = a.id + 1
                  WHERE a.label = b.label AND a.label = '$2'"
}
suite_gaps=(); loop_gaps=()
for r in $(seq "$ROUNDS"); do
    db="$DIR/suite-$r.db"
    PRESSMARK_DB=$db ./pressmark suite run "$DIR/gap.ini" --quiet 2>/dev/null
    suite_gaps+=("$(gap "$db" gap)")
    db="$DIR/loop-$r.db"
    for i in $(seq "$N"); do
        PRESSMARK_DB=$db ./pressmark record --quiet --label gap --interval 20ms -- sleep 0.05
    done
    loop_gaps+=("$(gap "$db" gap)")
done
s=$(printf '%s\n' "${suite_gaps[@]}" | awk '{ s += $1 } END { print s / NR }')
l=$(printf '%s\n' "${loop_gaps[@]}" | awk '{ s += $1 } END { print s / NR }')
printf "suite runner, gap between runs:  %7.1f ms (rounds: %s)\n" "$s" "${suite_gaps[*]}"
printf "shell loop of record, same gap:  %7.1f ms (rounds: %s)\n" "$l" "${loop_gaps[*]}"
awk -v s="$s" -v l="$l" 'BEGIN { printf "ratio suite/loop: %.2f (goal: at most 1.05)\n", s / l }'
