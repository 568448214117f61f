#!/bin/bash
# compare and report over a large database: 1,000 runs x 3 labels, 600
# ticks each (60 metrics a run). Each is timed beside sqlite3 doing the
# least the same answer needs, in the same run: the metric averages for
# compare, one pass over every tick for report.
#
# The database is built in SQL from a real run, so that its ticks are what
# pressmark stores and reads back: `pressmark record` samples every default
# source at 1 s for BENCH_SOURCE_SECS seconds, and each bench run gets a
# copy of that run's series (tick_series), sources and environment, and
# TICKS ticks whose stored bytes are the recorded ticks' (schema 5: each
# tick only the series that changed, as varints, store/tickcodec.h). The
# first recorded tick holds every value; the ones after it are replayed in
# turn, and a replayed change is as valid a change as the first time, so
# counters keep rising (rates stay the recorded ones) and levels drift by
# their change over the recording each time round. The runs' metrics are
# made up as before: 60 a run, the comparison's six the same for every
# run of a label but for noise, labels 1% apart.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
. bench/lib.sh
RUNS=${BENCH_RUNS_PER_LABEL:-1000}
TICKS=${BENCH_TICKS_PER_RUN:-600}
SOURCE_SECS=${BENCH_SOURCE_SECS:-12}
G_CMP="compare over $((3 * RUNS)) runs"
goal_plan "$G_CMP" '<' 1 s
bench_tmpdir DIR
export PRESSMARK_DB="$DIR/big.db"
./pressmark record --quiet --label recorded --interval 1s -- sleep "$SOURCE_SECS"
K=$(sqlite3 "$PRESSMARK_DB" "select count(*) from tick where run_id = (select max(id) from run)")
SERIES=$(sqlite3 "$PRESSMARK_DB" "select count(*) from tick_series where run_id = (select max(id) from run)")
[ "$K" -ge 2 ] || { echo "$BENCH_NAME: the recorded run has $K ticks; at least 2 are needed" >&2; exit 1; }
sqlite3 "$PRESSMARK_DB" >/dev/null <<SQL
PRAGMA journal_mode=WAL;
PRAGMA foreign_keys=OFF;
BEGIN;
-- The recorded run's ticks (numbered 0 to K - 1 in their order), series,
-- sources and environment, kept while everything else is cleared.
CREATE TEMP TABLE src_tick AS
    SELECT row_number() OVER (ORDER BY seq) - 1 AS k, data FROM tick WHERE run_id = (SELECT max(id) FROM run);
CREATE INDEX temp.src_tick_k ON src_tick(k);
CREATE TEMP TABLE src_series AS SELECT idx, name FROM tick_series WHERE run_id = (SELECT max(id) FROM run);
CREATE TEMP TABLE src_source AS SELECT source, path, note FROM run_source WHERE run_id = (SELECT max(id) FROM run);
CREATE TEMP TABLE src_meta AS SELECT key, value FROM run_meta WHERE run_id = (SELECT max(id) FROM run);
DELETE FROM tick; DELETE FROM tick_series; DELETE FROM metric; DELETE FROM run_meta; DELETE FROM run_source;
DELETE FROM latency_hist; DELETE FROM run;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3 * $RUNS)
INSERT INTO run(id, uuid, machine_id, label, workload, params, started_ns, ended_ns, interval_ns, status)
SELECT i, 'bench-' || i, (SELECT min(id) FROM machine), char(64 + 1 + (i - 1) % 3), 'swapout', '', i * 1000000000,
       i * 1000000000 + $TICKS * 1000000000, 1000000000, CASE WHEN i % 97 = 0 THEN 'failed' ELSE 'ok' END FROM n;
WITH RECURSIVE m(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM m WHERE k < 60)
INSERT INTO metric(run_id, name, value, unit, direction)
SELECT r.id, CASE m.k WHEN 1 THEN 'swapout.mb_per_s' WHEN 2 THEN 'stat.cpu.util_pct' WHEN 3 THEN 'stat.cpu.sys_user_ratio'
                      WHEN 4 THEN 'swap.in_kb' WHEN 5 THEN 'swap.out_kb' WHEN 6 THEN 'swap.io_kb' ELSE 'bench.m' || m.k END,
       500 + (r.id % 3) * 10 + (abs(random()) % 1000) / 100.0, 'x', 'higher'
FROM run r, m;
INSERT INTO tick_series(run_id, idx, name) SELECT r.id, s.idx, s.name FROM run r CROSS JOIN src_series s;
INSERT INTO run_source(run_id, source, path, ticks, note) SELECT r.id, s.source, s.path, $TICKS, s.note FROM run r CROSS JOIN src_source s;
INSERT INTO run_meta(run_id, key, value) SELECT r.id, s.key, s.value FROM run r CROSS JOIN src_meta s;
WITH RECURSIVE t(q) AS (SELECT 0 UNION ALL SELECT q + 1 FROM t WHERE q < $TICKS - 1)
INSERT INTO tick(run_id, seq, t_ns, data)
SELECT r.id, t.q, t.q * 1000000000, s.data
FROM run r CROSS JOIN t CROSS JOIN src_tick s
WHERE s.k = CASE WHEN t.q = 0 THEN 0 ELSE 1 + (t.q - 1) % ($K - 1) END;
COMMIT;
SQL
echo "database: $((3 * RUNS)) runs, $((3 * RUNS * TICKS)) ticks of $SERIES series (replaying a real recording of $K ticks), $(du -h "$PRESSMARK_DB" | cut -f1)"
secs() { local s e; s=$(date +%s.%N); "$@" >/dev/null || return; e=$(date +%s.%N); awk -v s="$s" -v e="$e" 'BEGIN { printf "%.6f", e - s }'; }
peer_cmp=$(secs sqlite3 "$PRESSMARK_DB" "select r.label, m.name, avg(m.value) from run r join metric m on m.run_id = r.id where r.workload = 'swapout' and r.status = 'ok' and m.name in ('swapout.mb_per_s','stat.cpu.util_pct','stat.cpu.sys_user_ratio','swap.in_kb','swap.out_kb','swap.io_kb') group by 1, 2")
cmp=$(secs ./pressmark compare --workload swapout)
long=$(secs ./pressmark compare --workload swapout --long --format json)
# The least a report's charts need: every stored tick's bytes read once
# (pressmark also decodes them and derives rates; sqlite3 only reads them).
peer_rep=$(secs sqlite3 "$PRESSMARK_DB" "select count(*), sum(length(data)) from tick")
rep=$(secs ./pressmark report --out "$DIR/report")
[ -z "${BENCH_KEEP_REPORT:-}" ] || cp -r "$DIR/report" "$BENCH_KEEP_REPORT"
awk -v c="$cmp" -v l="$long" -v pc="$peer_cmp" -v r="$rep" -v pr="$peer_rep" 'BEGIN {
    printf "compare (the reports'"'"' table): %6.3f s; sqlite3 averaging the same metrics: %.3f s, ratio %.1f\n", c, pc, c / pc
    printf "compare --long --format json: %6.3f s\n", l
    printf "report (tables, 5 charts, every run): %.3f s; sqlite3 reading every tick once: %.3f s, ratio %.1f\n", r, pr, r / pr }'
goal "$G_CMP" "$cmp"
