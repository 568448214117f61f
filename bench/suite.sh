#!/bin/bash
# The suite runner's own overhead between runs: the time from one run's
# end to the next run's start (as the database records them), for N runs
# of a short command (a) planned by a suite and (b) started one by one by
# a shell loop of 'pressmark record', in the same bench run, alternating
# A B A B so drift falls on both. Goal: the suite at most 1.05 times the
# loop's gap.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
. bench/lib.sh
N=${BENCH_SUITE_RUNS:-40}
ROUNDS=${BENCH_SUITE_ROUNDS:-3}
G_GAP="suite runner's gap between runs / a shell loop's"
goal_plan "$G_GAP" '<=' 1.05
bench_tmpdir DIR
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
# The mean of the rounds that measured a gap (a round without two runs of
# the label measured none); nothing when none did.
mean() { printf '%s\n' "$@" | awk 'NF { s += $1; n++ } END { if (n) print s / n }'; }
s=$(mean "${suite_gaps[@]}")
l=$(mean "${loop_gaps[@]}")
fmt1() { if [ -n "$1" ]; then printf '%.1f' "$1"; else echo none; fi; }
printf "suite runner, gap between runs:  %7s ms (rounds: %s)\n" "$(fmt1 "$s")" "${suite_gaps[*]}"
printf "shell loop of record, same gap:  %7s ms (rounds: %s)\n" "$(fmt1 "$l")" "${loop_gaps[*]}"
if [ -n "$s" ] && [ -n "$l" ] && awk -v l="$l" 'BEGIN { exit !(l > 0) }'; then
    goal "$G_GAP" "$(awk -v s="$s" -v l="$l" 'BEGIN { printf "%.6g", s / l }')"
else
    not_measured "$G_GAP" "no gap measured (suite: '$s' ms, loop: '$l' ms)"
fi
