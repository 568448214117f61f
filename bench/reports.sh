#!/bin/bash
# compare and report over a large database: 1,000 runs x 3 labels of 600
# ticks at 1 s (390 series a tick, 60 metrics and 60 settings a run), each
# timed beside sqlite3 doing the least that gives the same answer, in the
# same run, and judged by the ratio.
#
# The database is written by bench/reports_fixture through pressmark's own
# writers (store/runs.h for the runs, store/ticks.h's tick writer for the
# ticks, as the sampler hands it a tick), so it is stored as a run stores
# it today and follows the format when that changes. Its values are made
# up but move as a run's do (see the fixture).
#
# The peers:
# - compare: the six compared metrics' n, mean, mean of squares, min and
#   max per label over the ok runs (checked against compare's JSON), each
#   label's runs by status, and the settings whose values differ between
#   the labels' latest ok runs (compare's environment differences).
# - report (compare's tables, then charts from every ok run's ticks):
#   compare's peer, then count, sum, min and max of every value of the
#   series the charts are made of (store/timeseries.c's raw series), per
#   run and series, read from a plain table of the sample view's rows for
#   those runs and series (run_id, name, seq, t_ns, value; keyed by run,
#   series, tick). That table for every run would hold 40 million rows: the
#   fixture gives run i the ticks of stream i % STREAMS, so the view is read
#   over a small database of STREAMS runs made with the same arguments, and
#   its rows stand for every run's. That pass is timed too, as a figure.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
. bench/lib.sh
RUNS=${BENCH_RUNS_PER_LABEL:-1000}
TICKS=${BENCH_TICKS_PER_RUN:-600}
SERIES=${BENCH_SERIES:-390}
STREAMS=${BENCH_STREAMS:-7}
ROUNDS=${BENCH_ROUNDS:-3}
FIXTURE=build/bench/reports_fixture
G_CMP="compare over $((3 * RUNS)) runs"
G_CMP_RATIO="compare / sqlite3, same answer"
G_REP_RATIO="report / sqlite3, same answer"
goal_plan "$G_CMP" '<' 1 s
goal_plan "$G_CMP_RATIO" '<=' 1.5
goal_plan "$G_REP_RATIO" '<=' 1.5
[ -x "$FIXTURE" ] || { echo "$BENCH_NAME: $FIXTURE is missing: make bench (or make $FIXTURE) builds it" >&2; exit 1; }
bench_tmpdir DIR
export PRESSMARK_DB="$DIR/big.db"
secs() { local s e; s=$(date +%s.%N); "$@" >/dev/null || return; e=$(date +%s.%N); awk -v s="$s" -v e="$e" 'BEGIN { printf "%.6f", e - s }'; }

t_fix=$(secs "$FIXTURE" "$PRESSMARK_DB" "$RUNS" "$TICKS" "$SERIES" "$STREAMS")
"$FIXTURE" "$DIR/streams.db" $(( (STREAMS + 2) / 3 )) "$TICKS" "$SERIES" "$STREAMS"
ticks=$(sqlite3 "$PRESSMARK_DB" "select count(*) from tick")
echo "database: $((3 * RUNS)) runs, $ticks ticks of $SERIES series, written by pressmark's tick writer in" \
     "$(printf '%.1f' "$t_fix") s, $(du -h "$PRESSMARK_DB" | cut -f1)"

# The series the report's charts are made of (store/timeseries.c raw_names).
NAMES="'vmstat.pswpin', 'vmstat.pswpout', 'stat.cpu.user', 'stat.cpu.nice', 'stat.cpu.system', 'stat.cpu.idle',
 'stat.cpu.iowait', 'stat.cpu.irq', 'stat.cpu.softirq', 'stat.cpu.steal', 'meminfo.MemFree', 'meminfo.MemAvailable',
 'meminfo.SwapFree', 'psi.memory.some.total', 'psi.memory.full.total', 'heartbeat.late_max_us', 'vmstat.pgscan_anon',
 'vmstat.pgscan_file', 'vmstat.pgsteal_anon', 'vmstat.pgsteal_file', 'vmstat.workingset_refault_anon',
 'vmstat.workingset_refault_file', 'workload.latency_p99_us'"
# The view's rows of the STREAMS runs, then every run's from its stream
# (run ids count from 1 in both databases, in the order the runs were made).
t_view=$(secs sqlite3 "$DIR/plain.db" "ATTACH '$DIR/streams.db' AS s;
    CREATE TABLE view_rows AS SELECT run_id, seq, t_ns, name, value FROM s.sample
     WHERE run_id <= $STREAMS AND name IN ($NAMES);")
view_rows=$(sqlite3 "$DIR/plain.db" "select count(*) from view_rows")
sqlite3 "$DIR/plain.db" >/dev/null <<SQL
ATTACH '$PRESSMARK_DB' AS b;
CREATE TABLE sample (run_id INTEGER NOT NULL, name TEXT NOT NULL, seq INTEGER NOT NULL, t_ns INTEGER NOT NULL, value,
                     PRIMARY KEY (run_id, name, seq)) WITHOUT ROWID;
INSERT INTO sample SELECT r.id, v.name, v.seq, v.t_ns, v.value
  FROM b.run r JOIN view_rows v ON v.run_id = (r.id - 1) % $STREAMS + 1
 ORDER BY r.id, v.name, v.seq;
DROP TABLE view_rows;
SQL
rows=$(sqlite3 "$DIR/plain.db" "select count(*) from sample")
[ "$rows" -eq $(( view_rows * 3 * RUNS / STREAMS )) ] ||
    { echo "$BENCH_NAME: the plain table has $rows rows, not $((view_rows / STREAMS)) for each of $((3 * RUNS)) runs" >&2; exit 1; }
echo "sample view (schema $(sqlite3 "$PRESSMARK_DB" "pragma user_version")): $view_rows rows of $STREAMS runs x" \
     "the charts' series in $(printf '%.1f' "$t_view") s ($(awk -v n="$view_rows" -v t="$t_view" 'BEGIN { printf "%.0f", n / t }')" \
     "rows/s); as a plain table for all runs: $rows rows, $(du -h "$DIR/plain.db" | cut -f1)"

CMP_SQL="SELECT r.label, m.name, count(*), avg(m.value), avg(m.value * m.value), min(m.value), max(m.value)
  FROM run r JOIN metric m ON m.run_id = r.id
 WHERE r.workload = 'swapout' AND r.status = 'ok'
   AND m.name IN ('swapout.mb_per_s', 'stat.cpu.util_pct', 'stat.cpu.sys_user_ratio', 'swap.in_kb', 'swap.out_kb', 'swap.io_kb')
 GROUP BY r.label, m.name;
SELECT label, status, count(*) FROM run WHERE workload = 'swapout' GROUP BY label, status;
WITH latest AS (SELECT label, max(id) AS id FROM run WHERE workload = 'swapout' AND status = 'ok' GROUP BY label),
env AS (SELECT l.id, e.key, e.value FROM latest l JOIN run_meta e ON e.run_id = l.id
        UNION ALL SELECT l.id, 'kernel', m.kernel FROM latest l JOIN run r ON r.id = l.id JOIN machine m ON m.id = r.machine_id)
SELECT key FROM env GROUP BY key HAVING count(DISTINCT value) > 1 OR count(*) < (SELECT count(*) FROM latest);"
REP_SQL="$CMP_SQL
ATTACH '$DIR/plain.db' AS p;
SELECT s.run_id, s.name, count(*), sum(s.value), min(s.value), max(s.value)
  FROM p.sample s
 WHERE s.run_id IN (SELECT id FROM run WHERE workload = 'swapout' AND status = 'ok') AND s.name IN ($NAMES)
 GROUP BY s.run_id, s.name;"

# ROUNDS rounds, each side in turn; each figure the median of its rounds.
for ((i = 1; i <= ROUNDS; i++)); do
    printf 'peer_cmp %s\n' "$(secs sqlite3 "$PRESSMARK_DB" "$CMP_SQL")"
    printf 'cmp %s\n' "$(secs ./pressmark compare --workload swapout)"
    printf 'long %s\n' "$(secs ./pressmark compare --workload swapout --long --format json)"
    printf 'peer_rep %s\n' "$(secs sqlite3 "$PRESSMARK_DB" "$REP_SQL")"
    rm -rf "$DIR/report"
    printf 'rep %s\n' "$(secs ./pressmark report --out "$DIR/report")"
done > "$DIR/times"
[ -z "${BENCH_KEEP_REPORT:-}" ] || cp -r "$DIR/report" "$BENCH_KEEP_REPORT"
# The same answer: compare's means and counts are sqlite3's.
./pressmark compare --workload swapout --format json > "$DIR/cmp.json"
sqlite3 -separator ' ' "$PRESSMARK_DB" "$CMP_SQL" > "$DIR/peer.txt"
python3 - "$DIR/cmp.json" "$DIR/peer.txt" <<'PY' || { echo "$BENCH_NAME: compare and its peer disagree" >&2; exit 1; }
import json, sys
peer = {}
for line in open(sys.argv[2]):
    f = line.split()
    if len(f) == 7:
        peer[(f[0], f[1])] = (int(f[2]), float(f[3]))
labels = json.load(open(sys.argv[1]))["comparisons"][0]["labels"]
got = {(l["label"], m): (v["n"], v["mean"]) for l in labels for m, v in l["metrics"].items()}
assert peer and all(got[k][0] == n and abs(got[k][1] - mean) <= 1e-9 * abs(mean) for k, (n, mean) in peer.items()), (peer, got)
PY
med() { awk -v k="$1" '$1 == k { print $2 }' "$DIR/times" | median; }
cmp=$(med cmp) peer_cmp=$(med peer_cmp) long=$(med long) rep=$(med rep) peer_rep=$(med peer_rep)
awk -v c="$cmp" -v pc="$peer_cmp" -v l="$long" -v r="$rep" -v pr="$peer_rep" -v n="$ROUNDS" 'BEGIN {
    printf "compare (the reports'"'"' table): %.3f s; sqlite3, the same metrics, failures and settings: %.3f s (median of %d)\n", c, pc, n
    printf "compare --long --format json: %.3f s\n", l
    printf "report (tables, 8 charts, every ok run'"'"'s ticks): %.3f s; sqlite3, the same and every value the charts read: %.3f s\n", r, pr }'
goal "$G_CMP" "$cmp"
goal "$G_CMP_RATIO" "$(awk -v a="$cmp" -v b="$peer_cmp" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "none" }')"
goal "$G_REP_RATIO" "$(awk -v a="$rep" -v b="$peer_rep" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "none" }')"
