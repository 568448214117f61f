#!/bin/bash
# Tab completion's speed on a database of 1,000 runs (goal: under 100 ms a
# Tab): the installed completion function, driven through bash as a Tab
# would drive it, offering labels and run ids after `pressmark show`,
# beside the least work the same answer needs (sqlite3's CLI running the
# two queries), in the same run. 20 rounds each, the median.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
. bench/lib.sh
G_SHOW='Tab after "pressmark show "'
G_METRIC='Tab after "pressmark compare --metric "'
goal_plan "$G_SHOW" '<' 100 ms
goal_plan "$G_METRIC" '<' 100 ms
bench_tmpdir DIR
make -s install DESTDIR="$DIR/stage" PREFIX=/usr >/dev/null
PM="$DIR/stage/usr/bin/pressmark"
export PRESSMARK_DB="$DIR/bench.db"
"$PM" record --quiet --label firstrun -- true
# 999 more runs under 100 labels, copied in SQL (a run's rows as recorded).
sqlite3 "$PRESSMARK_DB" "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 999)
    INSERT INTO run (uuid, machine_id, label, workload, params, status, reason, started_ns, ended_ns, interval_ns)
    SELECT lower(hex(randomblob(16))), machine_id, 'label-' || (i % 100), workload, params, status, reason,
           started_ns + i, ended_ns + i, interval_ns FROM run, k WHERE run.id = 1"
# Each with the first run's metrics, for --metric's Tab.
sqlite3 "$PRESSMARK_DB" "INSERT INTO metric (run_id, name, value, unit, direction)
    SELECT r.id, m.name, m.value, m.unit, m.direction FROM run r, metric m WHERE m.run_id = 1 AND r.id > 1"
echo "runs: $(sqlite3 "$PRESSMARK_DB" 'select count(*) from run'), labels: $(sqlite3 "$PRESSMARK_DB" 'select count(distinct label) from run'), metric rows: $(sqlite3 "$PRESSMARK_DB" 'select count(*) from metric')"
# ms CMD...: its wall time in us; its failure is the bench's (a Tab that
# offers too little fails: below).
ms() { local t0 t1; t0=$(date +%s%N); "$@" >/dev/null || return; t1=$(date +%s%N); echo $(( (t1 - t0) / 1000 )); }
tab() {
    bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _pressmark; [ ${#COMPREPLY[@]} -gt 1000 ]' \
        bash "$DIR/stage/usr/share/bash-completion/completions/pressmark" "$PM" show ""
}
tab_metric() {
    bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _pressmark; [ ${#COMPREPLY[@]} -gt 50 ]' \
        bash "$DIR/stage/usr/share/bash-completion/completions/pressmark" "$PM" compare --metric ""
}
peer() { sqlite3 "$PRESSMARK_DB" "SELECT label FROM run GROUP BY label ORDER BY max(id) DESC; SELECT id FROM run ORDER BY id DESC"; }
: > "$DIR/tab"; : > "$DIR/peer"; : > "$DIR/metric"
for _ in $(seq 20); do
    ms tab >> "$DIR/tab" || echo "a Tab after \"pressmark show \" offered 1,000 or fewer words: left out"
    ms peer >> "$DIR/peer"
    ms tab_metric >> "$DIR/metric" || echo "a Tab after \"pressmark compare --metric \" offered 50 or fewer names: left out"
done
t=$(median < "$DIR/tab"); p=$(median < "$DIR/peer"); m=$(median < "$DIR/metric")
if [ -n "$t" ]; then
    awk -v a="$t" -v b="$p" -v n="$(wc -l < "$DIR/tab")" 'BEGIN {
        printf "Tab after \"pressmark show \": %.1f ms (median of %d)\n", a / 1000, n
        printf "sqlite3 running the same two queries: %.1f ms\n", b / 1000
        printf "ratio %.2f (a bash, two pressmark processes and the queries, against one sqlite3 process)\n", a / b }'
    goal "$G_SHOW" "$(awk -v a="$t" 'BEGIN { printf "%.6g", a / 1000 }')"
else
    not_measured "$G_SHOW" "no Tab offered the labels and run ids"
fi
if [ -n "$m" ]; then
    awk -v m="$m" -v n="$(wc -l < "$DIR/metric")" 'BEGIN { printf "Tab after \"pressmark compare --metric \": %.1f ms (median of %d)\n", m / 1000, n }'
    goal "$G_METRIC" "$(awk -v a="$m" 'BEGIN { printf "%.6g", a / 1000 }')"
else
    not_measured "$G_METRIC" "no Tab offered the metric names"
fi
