#!/bin/bash
# compare and report over a large database: 1,000 runs x 3 labels, 600
# ticks each (60 metrics a run, 16 charted series a tick), built with SQL.
# Each is timed beside sqlite3 doing the least the same answer needs, in
# the same run: the metric averages for compare, one pass over every tick's
# charted values for report.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${BENCH_RUNS_PER_LABEL:-1000}
TICKS=${BENCH_TICKS_PER_RUN:-600}
DIR=$(mktemp -d /tmp/pressmark-bench.XXXXXX)
trap 'rm -rf "$DIR"' EXIT
export PRESSMARK_DB="$DIR/big.db"
./pressmark record --quiet --label seed -- true            # creates the schema
sqlite3 "$PRESSMARK_DB" >/dev/null <<SQL
PRAGMA journal_mode=WAL;
BEGIN;
DELETE FROM tick; DELETE FROM tick_series; DELETE FROM metric; DELETE FROM run_meta; DELETE FROM run_source; DELETE FROM run;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3 * $RUNS)
INSERT INTO run(id, uuid, machine_id, label, workload, params, started_ns, ended_ns, interval_ns, status)
SELECT i, 'bench-' || i, (SELECT min(id) FROM machine), char(64 + 1 + (i - 1) % 3), 'swapout', '', i * 1000000000,
       i * 1000000000 + 600000000000, 1000000000, CASE WHEN i % 97 = 0 THEN 'failed' ELSE 'ok' END FROM n;
WITH RECURSIVE m(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM m WHERE k < 60)
INSERT INTO metric(run_id, name, value, unit, direction)
SELECT r.id, CASE m.k WHEN 1 THEN 'swapout.mb_per_s' WHEN 2 THEN 'stat.cpu.util_pct' WHEN 3 THEN 'stat.cpu.sys_user_ratio'
                      WHEN 4 THEN 'swap.in_kb' WHEN 5 THEN 'swap.out_kb' WHEN 6 THEN 'swap.io_kb' ELSE 'bench.m' || m.k END,
       500 + (r.id % 3) * 10 + (abs(random()) % 1000) / 100.0, 'x', 'higher'
FROM run r, m;
WITH RECURSIVE s(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM s WHERE k < 15)
INSERT INTO tick_series(run_id, idx, name)
SELECT r.id, s.k, CASE s.k WHEN 0 THEN 'vmstat.pswpin' WHEN 1 THEN 'vmstat.pswpout' WHEN 2 THEN 'stat.cpu.user'
    WHEN 3 THEN 'stat.cpu.nice' WHEN 4 THEN 'stat.cpu.system' WHEN 5 THEN 'stat.cpu.idle' WHEN 6 THEN 'stat.cpu.iowait'
    WHEN 7 THEN 'stat.cpu.irq' WHEN 8 THEN 'stat.cpu.softirq' WHEN 9 THEN 'stat.cpu.steal' WHEN 10 THEN 'meminfo.MemFree'
    WHEN 11 THEN 'meminfo.MemAvailable' WHEN 12 THEN 'meminfo.SwapFree' WHEN 13 THEN 'psi.memory.some.total'
    WHEN 14 THEN 'psi.memory.full.total' ELSE 'heartbeat.late_max_us' END
FROM run r, s;
WITH RECURSIVE t(q) AS (SELECT 0 UNION ALL SELECT q + 1 FROM t WHERE q < $TICKS - 1)
INSERT INTO tick(run_id, seq, t_ns, data)
SELECT r.id, t.q, t.q * 1000000000,
       json_array(t.q * 40, t.q * 90, t.q * 30, 0, t.q * 60, t.q * 100, t.q * 5, 0, t.q, 0, 400000 - t.q * 10,
                  500000 - t.q * 10, 200000 - t.q * 20, t.q * 30000, t.q * 10000, 100 + t.q % 7)
FROM run r, t;
COMMIT;
SQL
echo "database: $((3 * RUNS)) runs, $((3 * RUNS * TICKS)) ticks, $(du -h "$PRESSMARK_DB" | cut -f1)"
secs() { local s e; s=$(date +%s.%N); "$@" >/dev/null; e=$(date +%s.%N); awk -v s="$s" -v e="$e" 'BEGIN { printf "%.3f", e - s }'; }
peer_cmp=$(secs sqlite3 "$PRESSMARK_DB" "select r.label, m.name, avg(m.value) from run r join metric m on m.run_id = r.id where r.workload = 'swapout' and r.status = 'ok' and m.name in ('swapout.mb_per_s','stat.cpu.util_pct','stat.cpu.sys_user_ratio','swap.in_kb','swap.out_kb','swap.io_kb') group by 1, 2")
cmp=$(secs ./pressmark compare --workload swapout)
long=$(secs ./pressmark compare --workload swapout --long --format json)
peer_rep=$(secs sqlite3 "$PRESSMARK_DB" "select count(*), sum(json_extract(data, '\$[0]') + json_extract(data, '\$[1]') + json_extract(data, '\$[2]') + json_extract(data, '\$[4]') + json_extract(data, '\$[5]') + json_extract(data, '\$[10]') + json_extract(data, '\$[13]') + json_extract(data, '\$[15]')) from tick")
rep=$(secs ./pressmark report --out "$DIR/report")
awk -v c="$cmp" -v l="$long" -v pc="$peer_cmp" -v r="$rep" -v pr="$peer_rep" 'BEGIN {
    printf "compare (seed table):       %6.3f s (goal: under 1 s); sqlite3 averaging the same metrics: %.3f s, ratio %.1f\n", c, pc, c / pc
    printf "compare --long --format json: %4.3f s\n", l
    printf "report (tables, 5 charts, every run): %.3f s; sqlite3 reading 8 charted values of every tick once: %.3f s, ratio %.1f\n", r, pr, r / pr }'
