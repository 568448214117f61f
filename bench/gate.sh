#!/bin/bash
# The nightly history gate's false alarms and power (issue 43), measured
# the way the gate is used: every metric compare --history judges, on a
# real A/A pool, tests/fixtures/gate-pool.db (tests/fixtures/gate-pool.ini:
# 60 usemem runs, then 60 chat runs, of one configuration each, recorded
# in a row on one machine while other work ran on it: nothing changed, so
# every red label-night is a false alarm). bench/gate_tool.c says how each
# figure is drawn: nights in recording order (the recording's own drift,
# as the issue's histories were built) and nights drawn as blocks from
# random places (many histories, and a 5 % step of the headline from night
# 41 to find), each judged by today's gate (the headline, Holm over the
# gated metrics), by the gate before (every metric alone), and by two
# other families for comparison.
#
# Then the check that the tool's verdicts are compare --history's: the
# pool's nights in recording order (3 runs a night, a UTC day each) built
# into a database night by night and judged by pressmark itself, as the
# nightly judges them (--fail-on-regression 5, --window 5): every night's
# exit status must be the tool's verdict.
#
# Records nothing, needs no root. Seeded: HISTORIES (default 100 a
# scenario) and SEED print the same table every time. GATE_POOL=DB runs
# it over another pool (tests/fixtures/verdict-pool.db: the interleaved one).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
. bench/lib.sh
DB=${GATE_POOL:-tests/fixtures/gate-pool.db}
HISTORIES=${HISTORIES:-100}
SEED=${SEED:-20261206}
TOOL=build/bench/gate_tool
PM=${PRESSMARK_BIN:-./pressmark}
G_FA="today's gate: red label-nights per 100 with nothing changed, nights as blocks, the worst workload and runs a night: its 95% interval's high end"
G_SAME="a 5% headline step found within 3 nights, today's gate against the gate before, the worst workload and runs a night (percentage points)"
G_CLI="nights whose compare --history exit status differs from the tool's verdict"
goal_plan "$G_FA" '<=' 1.0 '/100 label-nights'
goal_plan "$G_SAME" '>=' -3 'points'
goal_plan "$G_CLI" '<=' 0 ''
bench_tmpdir D
[ -x "$TOOL" ] || { echo "$TOOL is not built (make $TOOL, or make bench)"; exit 1; }
[ -f "$DB" ] || { echo "$DB: no such pool"; exit 1; }

t0=$(date +%s.%N)
"$TOOL" table "$DB" "$HISTORIES" "$SEED" "$D/raw" > "$D/table"
t1=$(date +%s.%N)
echo "$TOOL table $DB $HISTORIES $SEED (bench/gate.sh), $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", b - a }') s"
echo
echo "Red label-nights per 100 (a label-night: one label judged on one night, from its 4th night on), with a 95%"
echo "interval (nights of a history are not independent, so it is too narrow); in recording order, K runs a"
echo "night from each offset; as blocks, $HISTORIES 60-night histories without a change and $HISTORIES with the headline"
echo "5 % worse from night 41 (found: the headline red on night 41, 42 or 43). \"red nights by metric\": which"
echo "metrics the red nights came from (a night may count several)."
echo
cat "$D/table"
echo

# row WL DRAW K RULE NIGHTS RED RED_HIGH HISTORIES FOUND (gate_tool's raw lines; RULE 0: every metric
# alone, the gate before; 2: the headline, today's)
fa=$(awk -F'\t' '$1 == "row" && $3 == "blocks" && $5 == 2 { if ($8 > w || !n) w = $8; n++ } END { printf "%.2f", w }' "$D/raw")
goal "$G_FA" "$fa"
same=$(awk -F'\t' '$1 == "row" && $3 == "blocks" { k = $2 " " $4; if ($5 == 0) b[k] = 100 * $10 / $9; if ($5 == 2) a[k] = 100 * $10 / $9 }
    END { for (k in a) { d = a[k] - b[k]; if (d < w || !n) w = d; n++ } printf "%.1f", w }' "$D/raw")
goal "$G_SAME" "$same"

# The pool's runs made into nights in recording order, K a night, one UTC
# day each (no suite: the runs' suite.uuid is dropped), from 2026-11-01.
K=3
cp "$DB" "$D/nights.db"
chmod 600 "$D/nights.db"
sqlite3 -batch "$D/nights.db" <<SQL
PRAGMA foreign_keys = OFF;
DELETE FROM run_meta WHERE key IN ('suite.uuid', 'suite.name', 'suite.id', 'suite.cell');
CREATE TABLE plan AS
  SELECT id, workload, (row_number() OVER (PARTITION BY workload ORDER BY id) - 1) / $K AS night,
         (row_number() OVER (PARTITION BY workload ORDER BY id) - 1) % $K AS pos FROM run WHERE status = 'ok';
UPDATE run SET started_ns = (1793500200 + (SELECT night FROM plan p WHERE p.id = run.id) * 86400) * 1000000000
    + ((SELECT pos FROM plan p WHERE p.id = run.id) * 2 + (workload = 'chat')) * 60000000000
    WHERE id IN (SELECT id FROM plan);
UPDATE run SET ended_ns = started_ns + 30000000000;
SQL
"$TOOL" nights "$DB" "$K" > "$D/tool-nights"
differ=0 judged=0
while read -r wl night red; do
    cp "$D/nights.db" "$D/tonight.db"
    # the nights after tonight, and the other workload, not there: their
    # runs "failed" (a history has only ok runs)
    sqlite3 -batch "$D/tonight.db" "UPDATE run SET status = 'failed', reason = 'bench/gate.sh: not yet'
        WHERE id IN (SELECT id FROM plan WHERE workload = '$wl' AND night >= $night) OR workload != '$wl';"
    rc=0
    PRESSMARK_DB="$D/tonight.db" "$PM" compare --history --window=5 --alpha=0.05 --fail-on-regression=5 \
        --workload="$wl" -- "$wl" > "$D/cmp.out" 2>&1 || rc=$?
    want=$red
    [ "$rc" -le 1 ] || { echo "night $night of $wl: compare --history exited $rc:"; cat "$D/cmp.out"; exit 1; }
    judged=$((judged + 1))
    if [ "$rc" != "$want" ]; then
        differ=$((differ + 1))
        echo "night $night of $wl: the tool says $want, compare --history exited $rc"
    fi
done < "$D/tool-nights"
echo "compare --history on the pool's nights in recording order ($K runs a night, nights 4 on): $judged label-nights judged, $differ differ from the tool"
goal "$G_CLI" "$differ"
