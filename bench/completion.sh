#!/bin/bash
# Tab completion's speed on a database of 1,000 runs (goal: under 100 ms a
# Tab): the installed completion function, driven through bash as a Tab
# would drive it, offering labels and run ids after `pressmark show`,
# beside the least work the same answer needs (sqlite3's CLI running the
# two queries), in the same run. 20 rounds each, the median.
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=$(mktemp -d /tmp/pressmark-bench.XXXXXX)
trap 'rm -rf "$DIR"' EXIT
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
ms() { local t0 t1; t0=$(date +%s%N); "$@" >/dev/null; t1=$(date +%s%N); echo $(( (t1 - t0) / 1000 )); }
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
for r in $(seq 20); do ms tab >> "$DIR/tab"; ms peer >> "$DIR/peer"; ms tab_metric >> "$DIR/metric"; done
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
t=$(median < "$DIR/tab"); p=$(median < "$DIR/peer"); m=$(median < "$DIR/metric")
awk -v a="$t" -v b="$p" -v m="$m" 'BEGIN {
    printf "Tab after \"pressmark show \": %.1f ms (median of 20; goal: under 100 ms)\n", a / 1000
    printf "sqlite3 running the same two queries: %.1f ms\n", b / 1000
    printf "ratio %.2f (a bash, two pressmark processes and the queries, against one sqlite3 process)\n", a / b
    printf "Tab after \"pressmark compare --metric \": %.1f ms (median of 20)\n", m / 1000 }'
