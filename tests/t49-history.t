#!/bin/bash
# A configuration across nights: pressmark history (its table, JSON, CSV
# and gnuplot chart), its change points, kernel and settings changes,
# compare --history's gate and JUnit, the report's history section, and
# bad input. The histories are the verdict pool's 80 real runs (a copy)
# made into 20 nights in SQL, each value set exactly: no run is made.
# Reads and writes nothing but its own directory.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1
# Beside the tests that change the machine (FREE_TESTS): a state
# directory of its own, so no command here recovers their runs' leftovers.
export PRESSMARK_STATE_DIR="$TMP/state"
mkdir -m 700 "$PRESSMARK_STATE_DIR"
PY=/usr/bin/python3

# history DB step|clean: each label's 40 runs, by id, two a night for 20
# nights from 2026-11-01 02:30 UTC, each night its own suite run (uuid
# ...0001 to ...0020, a suite row each): night N's chat runs start at
# 02:30:00 and 02:32:00 of 2026-11-N, its usemem runs at 02:31:00 and
# 02:33:00, so a night's id (its first run's start, to the second) is
# 2026-11-NNT023000Z for chat and 2026-11-NNT023100Z for usemem. The
# kernel 6.1.0-57 until night 12, 6.12.117 from night 13; chat's heap 32M
# until night 15, 64M from night 16; usemem's cap 512M until night 14,
# 256M from night 15; pressmark 1678317-dirty until night 17, 1679000
# from night 18. Every metric 49 and 51 a night (mean 50),
# chat.msgs_per_s 990 and 1010 (mean 1000), usemem.mb_per_s 196 and 204
# (mean 200); with step, chat's msg/s times 0.9 from night 13 (891 and
# 909: mean 900, 10 % lower).
history() {
    cp "$ROOT/tests/fixtures/verdict-pool.db" "$1" && chmod 600 "$1" || return 1
    local step=0
    [ "$2" = step ] && step=1
    sqlite3 -batch "$1" <<SQL
PRAGMA foreign_keys = OFF;
CREATE TEMP TABLE plan AS
  SELECT id, label, (row_number() OVER (PARTITION BY label ORDER BY id) - 1) / 2 AS night,
         (row_number() OVER (PARTITION BY label ORDER BY id) - 1) % 2 AS pos FROM run;
UPDATE run SET started_ns = (1793500200 + (SELECT night FROM plan p WHERE p.id = run.id) * 86400) * 1000000000
    + ((SELECT pos FROM plan p WHERE p.id = run.id) * 2 + (label = 'usemem')) * 60000000000;
UPDATE run_meta SET value = printf('00000000-0000-4000-8000-%012d', (SELECT night FROM plan p WHERE p.id = run_id) + 1)
    WHERE key = 'suite.uuid';
UPDATE run_meta SET value = (SELECT night FROM plan p WHERE p.id = run_id) + 1 WHERE key = 'suite.id';
UPDATE suite SET uuid = printf('00000000-0000-4000-8000-%012d', 1) WHERE id = 1;
WITH RECURSIVE k(n) AS (SELECT 2 UNION ALL SELECT n + 1 FROM k WHERE n < 20)
INSERT INTO suite(id, uuid, name, path, digest, text, created_ns, seed, state)
    SELECT n, printf('00000000-0000-4000-8000-%012d', n), name, path, digest, text,
           (1793500200 + (n - 1) * 86400) * 1000000000, seed, state FROM suite, k WHERE suite.id = 1;
INSERT INTO machine(hostname, kernel, proc_version, cmdline, cpu_model, cpus, mem_total_kb, page_size)
    SELECT hostname, '6.12.117', proc_version, cmdline, cpu_model, cpus, mem_total_kb, page_size FROM machine WHERE id = 1;
UPDATE machine SET kernel = '6.1.0-57' WHERE id = 1;
UPDATE run SET machine_id = (SELECT id FROM machine WHERE kernel = '6.12.117')
    WHERE id IN (SELECT id FROM plan WHERE night >= 12);
UPDATE metric SET value = 50 + (SELECT pos FROM plan p WHERE p.id = run_id) * 2 - 1;
UPDATE metric SET value = 990 + (SELECT pos FROM plan p WHERE p.id = run_id) * 20 WHERE name = 'chat.msgs_per_s';
UPDATE metric SET value = 196 + (SELECT pos FROM plan p WHERE p.id = run_id) * 8 WHERE name = 'usemem.mb_per_s';
UPDATE metric SET value = value * 0.9 WHERE $step AND name = 'chat.msgs_per_s'
    AND run_id IN (SELECT id FROM plan WHERE night >= 12);
UPDATE run SET params = replace(params, '--heap 32M', '--heap 64M')
    WHERE label = 'chat' AND id IN (SELECT id FROM plan WHERE night >= 15);
UPDATE run_meta SET value = '268435456' WHERE key = 'cap.limit_bytes'
    AND run_id IN (SELECT id FROM plan WHERE label = 'usemem' AND night >= 14);
UPDATE run_meta SET value = '1679000' WHERE key = 'pressmark.version' AND run_id IN (SELECT id FROM plan WHERE night >= 17);
SQL
}
setup "a 20-night history with a 10 % step at night 13" history "$TMP/step.db" step
setup "the same history without the step" history "$TMP/clean.db" clean
# noisy DB: the history without the step, chat's msg/s moved night by
# night by NOISE (each night's runs 990 and 1010 plus its offset, its mean
# 1000 plus it): noise of about 1.5 % and a step of about 3 % from night 17
# (4 nights after the new kernel): a change whose permutation p, about
# 0.02, the seed moves.
NOISE=(-3 6 0 -13 -16 -13 -2 -22 14 -4 -14 27 -2 -14 12 -5 -58 -39 -23 -21)
noisy() {
    cp "$TMP/clean.db" "$1" || return 1
    local values= i
    for i in "${!NOISE[@]}"; do values+="${values:+, }($i, ${NOISE[$i]})"; done
    sqlite3 -batch "$1" "WITH o(night, d) AS (VALUES $values)
        UPDATE metric SET value = value + (SELECT d FROM o, run r WHERE r.id = metric.run_id
            AND o.night = (r.started_ns / 1000000000 - 1793500200) / 86400)
        WHERE name = 'chat.msgs_per_s'"
}
setup "a noisy history with a 3 % step at night 17" noisy "$TMP/noisy.db"
export PRESSMARK_DB="$TMP/step.db"
N13=2026-11-13T023000Z
# json FILE EXPR: a Python expression over the document d.
json() { "$PY" -c "import json, sys; d = json.load(open(sys.argv[1])); print($2)" "$1" "${@:3}"; }

# The table: a row per night, exact means, the marks.
"$PM" history chat --change-points > "$TMP/h.txt" 2> "$TMP/h.err"
is "$?" 0 "history chat --change-points"
like "$(head -1 "$TMP/h.txt")" "^chat \(workload chat\): chat.msgs_per_s in msg/s, higher is better; 40 ok runs over 20 nights \(a night is a suite run\)$" \
    "  its first line: the cell, the metric, what a night is"
rows=$(awk '/^2026-11-/ { print $1 "|" $2 "|" $3 "|" $4 "|" $5 "|" $6 "|" $7 "|" $8 "|" $9 }' "$TMP/h.txt")
is "$(printf '%s\n' "$rows" | wc -l)" 20 "  a row per night"
is "$(printf '%s\n' "$rows" | sed -n 1p)" "2026-11-01T023000Z|verdict-pool|2|1,000.0|14.1|990.0|1,010.0|6.1.0-57|1678317-dirty" \
    "  night 1: suite, n, mean, sd, min, max, kernel, pressmark"
is "$(printf '%s\n' "$rows" | cut -d'|' -f4 | sort | uniq -c | awk '{ print $1 "x" $2 }' | tr '\n' ' ')" "12x1,000.0 8x900.0 " \
    "  nights 1-12 at 1,000.0, 13-20 at 900.0"
like "$(grep "^$N13" "$TMP/h.txt")" "6\.12\.117 +1678317-dirty +CHANGE -10\.0 % \(p=0\.005\), new kernel$" \
    "  night 13 marked: the change and the new kernel"
like "$(grep '^2026-11-16T' "$TMP/h.txt")" "new settings$" "  night 16 marked: new settings"
like "$(grep '^2026-11-18T' "$TMP/h.txt")" " 1679000 +new pressmark$" "  night 18 marked: a new pressmark"
is "$(grep -c 'CHANGE' "$TMP/h.txt")" 1 "  one change marked"
is "$(grep '^  change at' "$TMP/h.txt")" "  change at night $N13: mean 1,000 -> 900 msg/s (-10.0 %), p = 0.005" \
    "the change point listed: night, means before and after, change, p"
is "$(grep -A1 '^kernel changes:' "$TMP/h.txt" | tail -1)" "  kernel 6.1.0-57 -> 6.12.117 at night $N13" "the kernel change named"
is "$(grep -A1 '^settings changes:' "$TMP/h.txt" | tail -1)" \
    "  settings changed at night 2026-11-16T023000Z: --heap 32M -> --heap 64M" "the settings change named: the option that differs"
is "$(grep -A1 '^pressmark changes:' "$TMP/h.txt" | tail -1)" "  pressmark 1678317-dirty -> 1679000 at night 2026-11-18T023000Z" \
    "the pressmark change named"
like "$("$PM" history usemem | grep -A1 '^settings changes:' | tail -1)" \
    "^  settings changed at night 2026-11-15T023100Z: cap.limit_bytes=536870912 -> cap.limit_bytes=268435456$" \
    "  and a cap's: the key and its values (usemem's nights begin a minute later)"
"$PM" history chat > "$TMP/n.txt" 2>&1
is "$?" 0 "history chat without --change-points"
is "$(grep -c '^2026-11-[0-9]*T023000Z verdict-pool  2 ' "$TMP/n.txt")" 20 "  its 20 nights' rows"
is "$(sed -n '/^kernel changes:/,$p' "$TMP/n.txt")" "kernel changes:
  kernel 6.1.0-57 -> 6.12.117 at night $N13
settings changes:
  settings changed at night 2026-11-16T023000Z: --heap 32M -> --heap 64M
pressmark changes:
  pressmark 1678317-dirty -> 1679000 at night 2026-11-18T023000Z" "  the kernel, settings and pressmark changes under them, the last lines"
is "$(grep -cE 'CHANGE|change points' "$TMP/n.txt")" 0 "  and no change points looked for: no CHANGE mark, no list of them"

# JSON: the same numbers, exact, and the schema.
"$PM" history chat --change-points --format json > "$TMP/h.json"
is "$?" 0 "history --format json"
is "$("$PY" "$ROOT/tests/json_check.py" history < "$TMP/h.json")" ok "  matches docs/json/history.schema.json"
is "$(json "$TMP/h.json" "[n['mean'] for n in d['nights']] == [1000.0] * 12 + [900.0] * 8")" True "  the nights' means exactly"
is "$(json "$TMP/h.json" "[n['values'] for n in d['nights']][12]")" "[891.0, 909.0]" "  night 13's runs' values"
is "$(json "$TMP/h.json" "[(c['night'], c['night_index'], c['at'], c['mean_before'], c['mean_after'], round(c['change_pct'], 9), c['kernel_before'], c['kernel_after']) for c in d['change_points']['changes']]")" \
    "[('$N13', 12, 12, 1000.0, 900.0, -10.0, '6.1.0-57', '6.12.117')]" "  one change: at night 13, 1000 -> 900, -10 %, the kernels either side"
is "$(json "$TMP/h.json" "[(e['kind'], e['night_index'], e['before'], e['after']) for e in d['events']]")" \
    "[('kernel', 12, '6.1.0-57', '6.12.117'), ('settings', 15, '--heap 32M', '--heap 64M'), ('pressmark', 17, '1678317-dirty', '1679000')]" \
    "  the kernel, settings and pressmark changes"
is "$("$PM" history chat --format json | "$PY" "$ROOT/tests/json_check.py" history)" ok "  and without --change-points"
is "$("$PM" history chat --format csv | awk -F, 'NR == 14 { print $5, $11, $12, $16, $18 }')" "$N13 2 900 6.12.117 " \
    "CSV: a row per night (night 13: n, mean, kernel; the change only with --change-points)"
is "$("$PM" history chat --change-points --format csv | awk -F, 'NR == 14 { print ($18 < -9.99 && $18 > -10.01), $19 }')" "1 0.005" \
    "  with it, the change and its p"

# Without the step: no change point; the seed makes it the same each time.
"$PM" --db "$TMP/clean.db" history chat --change-points > "$TMP/c.txt"
is "$(grep -A1 '^change points' "$TMP/c.txt" | tail -1)" "  none" "no change point on the history without the step"
ok "  nor a CHANGE mark" sh -c "! grep -q CHANGE '$TMP/c.txt'"
is "$("$PM" --db "$TMP/clean.db" history chat --change-points --format json | json /dev/stdin "d['change_points']['changes']")" "[]" "  none in the JSON"
is "$("$PM" history chat --change-points --seed 7 | grep '^  change at')" "  change at night $N13: mean 1,000 -> 900 msg/s (-10.0 %), p = 0.005" \
    "another --seed finds the same step"

# The seed: said in the JSON, and it draws the permutations: a noisy
# step's p moves with it (only p: the same change, night and means).
cps() { "$PM" --db "$TMP/noisy.db" history chat --change-points --format json "$@" |
        json /dev/stdin "(d['change_points']['seed'], [(c['night'], c['at'], c['mean_before'], c['mean_after'], c['p']) for c in d['change_points']['changes']])"; }
is "$(cps)" "(20261202, [('2026-11-17T023000Z', 16, 996.9375, 964.75, 0.02)])" \
    "a noisy 3 % step at night 17: the default seed's, p = 0.02"
is "$(cps --seed 7)" "(7, [('2026-11-17T023000Z', 16, 996.9375, 964.75, 0.025)])" "  --seed 7: said, and p = 0.025"

# A night whose runs lack the metric (night 5) leaves it out of the
# change points' series: the step at night 13 is its 12th point, at 11,
# and still night 13 (index 12), the kernels either side its nights'.
cp "$TMP/step.db" "$TMP/gap.db"
sqlite3 "$TMP/gap.db" "DELETE FROM metric WHERE name = 'chat.msgs_per_s' AND run_id IN
    (SELECT id FROM run WHERE label = 'chat' AND (started_ns / 1000000000 - 1793500200) / 86400 = 4)"
"$PM" --db "$TMP/gap.db" history chat --change-points > "$TMP/gap.txt"
is "$(awk '/^2026-11-05T/ { print $3, $4 }' "$TMP/gap.txt")" "0 -" "a night without the metric: n 0, no mean"
is "$(grep '^  change at' "$TMP/gap.txt")" "  change at night $N13: mean 1,000 -> 900 msg/s (-10.0 %), p = 0.005" \
    "  the change still at night 13"
is "$("$PM" --db "$TMP/gap.db" history chat --change-points --format json | json /dev/stdin "[(c['night'], c['night_index'], c['at'], c['kernel_before'], c['kernel_after']) for c in d['change_points']['changes']]")" \
    "[('$N13', 12, 11, '6.1.0-57', '6.12.117')]" "  in the JSON: night index 12, point 11, the kernels either side"

# Nights seconds apart (a test of the nightly runs its nights back to
# back, nine within a minute): each night its own id, to the second.
cp "$TMP/clean.db" "$TMP/quick.db"
sqlite3 "$TMP/quick.db" "UPDATE run SET started_ns = 1793500200000000000 + ((started_ns / 1000000000 - 1793500200) / 86400 * 4
    + (started_ns / 1000000000 - 1793500200) % 86400 / 60) * 1000000000"
is "$("$PM" --db "$TMP/quick.db" history chat --format json | json /dev/stdin "(len(set(n['night'] for n in d['nights'])), [n['night'] for n in d['nights']][:3])")" \
    "(20, ['2026-11-01T023000Z', '2026-11-01T023004Z', '2026-11-01T023008Z'])" \
    "20 nights 4 seconds apart: 20 ids, to the second"

# Nights outside suites: UTC days; only ok runs count; a label of two workloads.
cp "$TMP/step.db" "$TMP/days.db"
sqlite3 "$TMP/days.db" "DELETE FROM run_meta WHERE key LIKE 'suite.%';
    UPDATE run SET status = 'failed' WHERE id = (SELECT min(id) FROM run WHERE label = 'chat');
    UPDATE run SET label = 'mixed' WHERE id IN (SELECT max(id) FROM run GROUP BY label)"
"$PM" --db "$TMP/days.db" history chat > "$TMP/d.txt"
like "$(head -1 "$TMP/d.txt")" "38 ok runs over 20 nights \(a night is a UTC day \(no suite runs\)\)" "runs outside suites: a night is a UTC day, said"
is "$(awk '/^2026-11-01 / { print $1, $2, $3, $4, $5 }' "$TMP/d.txt")" "2026-11-01 (day) 1 1,010.0 -" \
    "  the failed run is not counted (n 1, its night's mean the other run's)"
"$PM" --db "$TMP/days.db" history mixed > /dev/null 2> "$TMP/err"
is "$?" 2 "a label with runs of two workloads needs --workload"
like "$(cat "$TMP/err")" "^pressmark history: --workload: 'mixed' has runs of 2 workloads \(chat, usemem\); --workload picks one$" "  and says so"
is "$("$PM" --db "$TMP/days.db" history mixed --workload usemem | awk '/^20/ { print $1, $3, $4 }')" "2026-11-20 1 204.0" "  --workload picks one"

# Emulated runs: refused as compare refuses them, shown with the caveat.
cp "$TMP/step.db" "$TMP/emu.db"
sqlite3 "$TMP/emu.db" "INSERT INTO run_meta(run_id, key, value) SELECT min(id), 'emulated', 'yes' FROM run WHERE label = 'chat'"
"$PM" --db "$TMP/emu.db" history chat > /dev/null 2> "$TMP/err"
is "$?" 2 "a history with runs under TCG emulation is refused"
like "$(cat "$TMP/err")" "1 runs of chat ran under QEMU's TCG emulation .*accepted: --allow-emulated" "  naming --allow-emulated"
like "$("$PM" --db "$TMP/emu.db" history chat --allow-emulated | sed -n 2p)" "^caveat: some of these runs ran under QEMU's TCG emulation" \
    "  and shown with --allow-emulated, with its caveat"

# The chart: drawn by real gnuplot, change point, new settings, kernels.
if command -v gnuplot >/dev/null; then
    mkdir "$TMP/chart"
    "$PM" history chat --change-points --chart "$TMP/chart/chat.png" > /dev/null 2> "$TMP/err"
    is "$?" 0 "history --chart FILE.png"
    is "$(head -c 8 "$TMP/chart/chat.png" | od -An -tx1 | tr -d ' \n')" 89504e470d0a1a0a "  gnuplot drew a PNG"
    like "$(cat "$TMP/err")" "chart $TMP/chart/chat.png \(its gnuplot script $TMP/chart/chat.gp, data $TMP/chart/chat.dat\)" \
        "  and says where, with its script and data"
    ok "  the change point a line between nights 12 and 13" grep -q "^set arrow from 12.5, graph 0 to 12.5, graph 1 nohead dt 1 " "$TMP/chart/chat.gp"
    ok "  with its change" grep -q "^set label 2 'change -10.0 %' at 12.5" "$TMP/chart/chat.gp"
    ok "  new settings between nights 15 and 16" grep -q "^set label 3 'new settings' at 15.5" "$TMP/chart/chat.gp"
    ok "  the kernels on the top axis, where each began" grep -qF "set x2tics nomirror rotate by 25 left ('6.1.0-57' 1, '6.12.117' 13)" "$TMP/chart/chat.gp"
    is "$(awk '/^# block 1/ { on = 1; next } on && NF { print }' "$TMP/chart/chat.dat" | awk '{ print $2 }' | sort -n | uniq -c | awk '{ print $1 "x" $2 }' | tr '\n' ' ')" \
        "8x900 12x1000 " "  its data: the nights' means"
    is "$(awk '/^# block 0/ { on = 1; next } /^$/ { on = 0 } on' "$TMP/chart/chat.dat" | wc -l)" 40 "  and every run"
else
    for i in 1 2 3 4 5 6 7 8 9; do skip "gnuplot is not installed"; done
fi

# A hostile label and kernel: quoted for gnuplot, nothing runs.
HOSTILE=$'q"uote \'sq\' `touch pwned-bt` system("touch pwned-sys") \'.system(\'touch pwned-cat\').\'\nnl'
cp "$TMP/step.db" "$TMP/hostile.db"
sqlite3 "$TMP/hostile.db" "UPDATE run SET label = CAST(x'$(printf '%s' "$HOSTILE" | od -An -tx1 | tr -d ' \n')' AS TEXT) WHERE label = 'chat';
    UPDATE machine SET kernel = '6.12\`touch pwned-k\`''' WHERE kernel = '6.12.117'"
pwned() { find "$TMP" -name 'pwned*' | wc -l; }
if command -v gnuplot >/dev/null; then
    mkdir "$TMP/hchart"
    "$PM" --db "$TMP/hostile.db" history --change-points --chart "$TMP/hchart/h.svg" -- "$HOSTILE" > "$TMP/hh.txt" 2>/dev/null
    is "$?" 0 "a hostile label's history and chart"
    ok "  the SVG is drawn" grep -q '<svg' "$TMP/hchart/h.svg"
    is "$(pwned)" 0 "  and nothing in the label or the kernel ran (backticks, system(), a new script line)"
    ok "  the label reaches the chart as it is (but its newline)" grep -qF "q\"uote 'sq' \`touch pwned-bt\` system(\"touch pwned-sys\") '.system('touch pwned-cat').'nl (chat)" "$TMP/hchart/h.svg"
    (cd "$TMP/hchart" && gnuplot h.gp) 2> "$TMP/gp.err"
    is "$?" 0 "  gnuplot reads the saved script again without an error"
    is "$(pwned)" 0 "  and runs nothing either"
else
    for i in 1 2 3 4 5 6; do skip "gnuplot is not installed"; done
fi
like "$(head -1 "$TMP/hh.txt")" '^q"uote .sq. `touch pwned-bt` system\("touch pwned-sys"\) .*\\x0anl \(workload chat\)' \
    "  the text shows its newline as \\x0a"
is "$("$PM" --db "$TMP/hostile.db" history --format json -- "$HOSTILE" | json /dev/stdin "d['label'] == sys.argv[2]" "$HOSTILE" 2>&1)" "True" \
    "  the JSON carries it exactly"

# compare --history: the newest nights against the history.
"$PM" compare --history --fail-on-regression > "$TMP/g3.txt" 2>&1
is "$?" 0 "compare --history --fail-on-regression: the step, 8 nights old, is outside the default window of 5: exit 0"
like "$(grep '^  chat.msgs_per_s' "$TMP/g3.txt")" "change at night $N13: mean 1,000 -> 900 msg/s \(-10.0 %\), p = 0.005; kernel 6.1.0-57 before, 6.12.117 after; night 13 of 20: older than the window" \
    "  and says where it is"
is "$(tail -1 "$TMP/g3.txt")" "verdict: no regression of 2.5 % or more within the newest 5 nights" "  its verdict"
"$PM" compare --history --window 8 --fail-on-regression --junit "$TMP/j.xml" chat usemem > "$TMP/g8.txt" 2>&1
is "$?" 1 "with --window 8 the step is a regression: exit 1"
is "$(grep '^REGRESSION' "$TMP/g8.txt")" \
    "REGRESSION chat (chat): chat.msgs_per_s is 10.0 % worse from night $N13 (kernel 6.1.0-57 before, 6.12.117 after): 1,000 -> 900 msg/s, p = 0.005" \
    "  one finding: the night, the kernels either side, the means, the change, p"
is "$(grep -c 'no change point over 20 nights' "$TMP/g8.txt")" 10 "  the other judged metrics of both cells: no change"
is "$("$PY" -c "
import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot()
f = [(c.get('classname'), c.get('name'), c.find('failure').get('message')) for c in r.iter('testcase') if c.find('failure') is not None]
print(r.get('tests'), r.get('failures'), f)" "$TMP/j.xml")" \
    "11 1 [('pressmark.history.chat.chat', 'chat.msgs_per_s', 'chat.msgs_per_s is 10.0 % worse from night $N13 (kernel 6.1.0-57 before, 6.12.117 after): 1,000 -> 900 msg/s, p = 0.005')]" \
    "  JUnit: a failure naming the night and the kernels on both sides"
"$PM" compare --history --window 8 --fail-on-regression 15 > "$TMP/g15.txt" 2>&1
is "$?" 0 "  --fail-on-regression 15: the 10 % step is below it, exit 0"
is "$(tail -1 "$TMP/g15.txt")" "verdict: no regression of 15 % or more within the newest 8 nights" "  and says so"
"$PM" --db "$TMP/clean.db" compare --history --window 8 --fail-on-regression > /dev/null 2>&1
is "$?" 0 "  the history without the step: exit 0"
# --alpha is each change's level: the noisy step (p = 0.02 with the 199
# permutations 0.05 takes) is a regression at 0.05, and at 0.01 (999
# permutations: its p stays above 0.01) no change at all.
"$PM" --db "$TMP/noisy.db" compare --history --fail-on-regression --alpha 0.05 chat > "$TMP/a5.txt" 2>&1
is "$?" 1 "compare --history --alpha 0.05: the noisy step, p = 0.02, is a regression: exit 1"
is "$(grep '^REGRESSION' "$TMP/a5.txt")" \
    "REGRESSION chat (chat): chat.msgs_per_s is 3.2 % worse from night 2026-11-17T023000Z (kernel 6.12.117 before, 6.12.117 after): 996.938 -> 964.75 msg/s, p = 0.02; caveat: nothing recorded changed at that night (kernel, settings and pressmark as before), so the machine's drift would read the same; a control measured each night tells them apart" \
    "  the finding"
"$PM" --db "$TMP/noisy.db" compare --history --fail-on-regression --alpha 0.01 chat > "$TMP/a1.txt" 2>&1
is "$?" 0 "  --alpha 0.01: not significant at that level: exit 0"
is "$(grep -E '^  chat\.msgs_per_s|^verdict' "$TMP/a1.txt")" "  chat.msgs_per_s: no change point over 20 nights
verdict: no regression of 2.5 % or more within the newest 5 nights" "  no change point, no regression"
"$PM" compare --history --window 8 --fail-on-regression --format json > "$TMP/g.json" 2> "$TMP/g.err"
is "$?" 1 "compare --history --format json: exit 1 too"
is "$("$PY" "$ROOT/tests/json_check.py" compare < "$TMP/g.json")" ok "  matches docs/json/compare.schema.json"
is "$(json "$TMP/g.json" "[(c['label'], m['metric'], m['regression'], m['changes'][0]['night'] if m['changes'] else None) for c in d['history']['cells'] for m in c['metrics'] if m['changes']]")" \
    "[('chat', 'chat.msgs_per_s', 0, '$N13')]" "  its history object: the change, and the gate's find"
is "$(json "$TMP/g.json" "(d['verdict']['exit_status'], d['comparisons'], d['history']['window'])")" "(1, [], 8)" "  and the verdict"
like "$(cat "$TMP/g.err")" "^verdict: regression" "  the verdict's line on stderr"

# The gate's family (issue 43): the headline and each --metric are gated,
# Holm over them; the workload's other figures are judged and shown, never
# failing. p99.db: the history without the step, chat's p99 latency 10 %
# higher (worse) from night 13.
cp "$TMP/clean.db" "$TMP/p99.db"
sqlite3 "$TMP/p99.db" "UPDATE metric SET value = value * 1.1 WHERE name = 'chat.latency_p99_us'
    AND run_id IN (SELECT id FROM run WHERE started_ns >= (1793500200 + 12 * 86400) * 1000000000)"
"$PM" --db "$TMP/p99.db" compare --history --window 8 --fail-on-regression --junit "$TMP/p99.xml" chat > "$TMP/p99.txt" 2>&1
is "$?" 0 "a 10 % worse p99 latency, not gated (the headline is level): exit 0"
like "$(grep '^  chat\.latency_p99_us' "$TMP/p99.txt")" \
    "^  chat\.latency_p99_us \(not gated\): change at night $N13: mean 50 -> 55 us \(\+10\.0 %\), p = 0\.005;.*: worse within the window: reported, not gated \(--metric gates on it\)$" \
    "  shown with its change and why it does not fail"
like "$(head -1 "$TMP/p99.txt")" "of a gated metric \(the headline and each --metric\), significant at 0\.05 over them \(Holm\); the other metrics are reported, never failing$" \
    "  the gate's first line names its family"
like "$(grep '^chat (workload chat)' "$TMP/p99.txt")" ": 1 gated metric$" "  the cell's family: its headline"
is "$("$PY" -c 'import sys, xml.etree.ElementTree as E
s = E.parse(sys.argv[1]).getroot().find("testsuite")
c = [t for t in s.findall("testcase") if t.get("name") == "chat.latency_p99_us"][0]
print(s.get("failures"), s.get("skipped"), c.find("skipped").get("message"), c.find("failure"))' "$TMP/p99.xml")" \
    "0 5 reported, not gated (--metric gates on it) None" "  JUnit: a skipped case per metric not gated, no failure"
is "$("$PY" -c 'import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot(); print(r.get("tests"), r.get("failures"), r.get("errors"), r.get("skipped"))' "$TMP/p99.xml")" \
    "6 0 0 5" "  and the whole file's counts: 6 cases, 5 skipped"
"$PM" --db "$TMP/p99.db" compare --history --window 8 --fail-on-regression --format json chat > "$TMP/p99.json" 2>/dev/null
is "$(json "$TMP/p99.json" "[(m['metric'], m['gated'], m['candidate'], m['p_adjusted'], m['regression']) for m in d['history']['cells'][0]['metrics'][:2]], d['history']['cells'][0]['family'], d['history']['alpha']")" \
    "[('chat.msgs_per_s', True, None, None, None), ('chat.latency_p99_us', False, 0, None, None)] 1 0.05" \
    "  JSON: gated, the candidate, no adjusted p and no regression for a metric not gated"
"$PM" --db "$TMP/p99.db" compare --history --window 8 --fail-on-regression --metric chat.latency_p99_us chat > "$TMP/p99m.txt" 2>&1
is "$?" 1 "--metric chat.latency_p99_us gates on it: exit 1"
"$PM" --db "$TMP/p99.db" compare --history --window 8 --fail-on-regression --metric chat.latency_p99_us --format json chat \
    > "$TMP/p99m.json" 2>/dev/null
is "$(json "$TMP/p99m.json" "[(m['metric'], m['gated'], m['p_adjusted'], m['regression']) for m in d['history']['cells'][0]['metrics'][:2]], d['history']['cells'][0]['family']")" \
    "[('chat.msgs_per_s', True, None, None), ('chat.latency_p99_us', True, 0.005, 0)] 2" \
    "  JSON: both gated, a family of 2, the step's p (1/400) Holm-adjusted to 0.005"
is "$(grep '^REGRESSION' "$TMP/p99m.txt")" \
    "REGRESSION chat (chat): chat.latency_p99_us is 10.0 % worse from night $N13 (kernel 6.1.0-57 before, 6.12.117 after): 50 -> 55 us, p = 0.0025, Holm-adjusted 0.005 over 2 gated metrics" \
    "  its finding, Holm-adjusted over the 2 gated metrics (the headline, level, counts with p 1)"
# A gated metric that cannot be judged is said and never leaves the gate
# blind: the headline gone from every run, exit 2 (cannot judge), not 0.
cp "$TMP/p99.db" "$TMP/nohead.db"
sqlite3 "$TMP/nohead.db" "DELETE FROM metric WHERE name = 'chat.msgs_per_s'"
"$PM" --db "$TMP/nohead.db" compare --history --window 8 --fail-on-regression chat > "$TMP/nohead.txt" 2>&1
is "$?" 2 "the headline stored by no run: cannot judge, exit 2 (the p99 step, not gated, fails nothing)"
is "$(grep -E '^(cannot judge|chat \(workload)' "$TMP/nohead.txt")" \
    "chat (workload chat): 1 gated metric, 0 judged
cannot judge chat (chat) chat.msgs_per_s: no ok run of this cell stores it" "  saying which and why"
# A --metric some judged cells store and others do not: those say they
# cannot judge it, the others are judged, and a regression still fails.
"$PM" compare --history --window 8 --fail-on-regression --metric usemem.mb_per_s --metric chat.connections > "$TMP/mixed.txt" 2>&1
is "$?" 1 "--metric usemem.mb_per_s over chat and usemem: chat's step still fails the night (exit 1)"
is "$(grep -E '^(REGRESSION|cannot judge)' "$TMP/mixed.txt" | cut -c1-60)" \
    "REGRESSION chat (chat): chat.msgs_per_s is 10.0 % worse from
cannot judge chat (chat) usemem.mb_per_s: no ok run of this 
cannot judge chat (chat) chat.connections: it has no better 
cannot judge usemem (usemem) chat.connections: no ok run of " \
    "  a cell says which gated metrics it cannot judge (not stored, no better direction); usemem's own is judged"
is "$(grep -c '(not gated)' "$TMP/mixed.txt")" 9 \
    "  and with --metric the other metrics are still shown, not gated (chat's 5, usemem's 4)"
is "$(json "$TMP/p99.json" "[m['candidate_event'] for m in d['history']['cells'][0]['metrics'][:2]]")" "[None, True]" \
    "  JSON: the p99 step came with the new kernel (no drift caveat)"
"$PM" --db "$TMP/noisy.db" compare --history --fail-on-regression --format json chat 2>/dev/null > "$TMP/noisy.json"
is "$(json "$TMP/noisy.json" "d['history']['cells'][0]['metrics'][0]['candidate_event']")" "False" \
    "  the noisy step came with nothing recorded changing: the caveat's flag"
# A metric not gated that cannot be judged (p99 stored on 3 nights only)
# says so and changes nothing: the level headline, exit 0.
cp "$TMP/clean.db" "$TMP/p99few.db"
sqlite3 "$TMP/p99few.db" "DELETE FROM metric WHERE name = 'chat.latency_p99_us'
    AND run_id IN (SELECT id FROM run WHERE started_ns >= (1793500200 + 3 * 86400) * 1000000000)"
"$PM" --db "$TMP/p99few.db" compare --history --fail-on-regression chat > "$TMP/p99few.txt" 2>&1
is "$?" 0 "a metric not gated with too few nights: exit 0, the headline judged"
like "$(grep '^  chat\.latency_p99_us' "$TMP/p99few.txt")" "^  chat\.latency_p99_us \(not gated\): cannot judge: 3 nights with a value" \
    "  it says it cannot be judged, and why"
# Holm bites: the noisy step (p = 0.015 alone at --alpha 0.03) is no
# regression once a second metric is gated (0.018, adjusted 0.036).
"$PM" --db "$TMP/noisy.db" compare --history --fail-on-regression --alpha 0.03 chat > /dev/null 2>&1
is "$?" 1 "the noisy step at --alpha 0.03, the headline alone gated: a regression"
"$PM" --db "$TMP/noisy.db" compare --history --fail-on-regression --alpha 0.03 --metric chat.latency_p99_us chat > "$TMP/h2.txt" 2>&1
is "$?" 0 "  with a second gated metric: no regression, exit 0"
like "$(grep '^  chat\.msgs_per_s' "$TMP/h2.txt")" "night 17 of 20: worse within the window, but not significant over the gated metrics \(Holm-adjusted 0\.036\)$" \
    "  saying the change holds alone but not over the family"
cp "$TMP/step.db" "$TMP/short.db"
sqlite3 "$TMP/short.db" "DELETE FROM run WHERE started_ns >= (1793500200 + 3 * 86400) * 1000000000"
"$PM" --db "$TMP/short.db" compare --history --fail-on-regression chat > "$TMP/s.txt" 2>&1
is "$?" 2 "three nights are too few to judge: exit 2"
like "$(cat "$TMP/s.txt")" "cannot judge chat \(chat\) chat\.msgs_per_s: 3 nights with a value: change points need at least 4$" \
    "  saying why: 2 nights a side, 4 in all"

# The report: a history section when a label has more than one night.
"$PM" report --out "$TMP/rep" > /dev/null 2> "$TMP/err"
is "$?" 0 "report over the 20 nights$(sed 's/^/: /' "$TMP/err" | head -1)"
R="$TMP/rep/report.html"
is "$(grep -c '<section id="history">' "$R")" 1 "  has a history section"
ok "  in its contents" grep -q '<a href="#history">History' "$R"
is "$(sed -n '/<section id="history">/,/<\/section>/p' "$R" | grep -c '^<h3>')" 2 "  a history per label: chat and usemem"
ok "  the change point listed, with the kernels either side" \
    grep -qxF "<li>change at night $N13: mean 1,000 -&gt; 900 msg/s (-10.0 %), p = 0.005; kernel 6.1.0-57 before, 6.12.117 after</li>" "$R"
ok "  the kernel change listed" grep -qF "<li>kernel 6.1.0-57 -&gt; 6.12.117 at night $N13</li>" "$R"
is "$(sed -n '/<section id="history">/,/<\/section>/p' "$R" | grep -c '<td>2026-11-')" 40 "  20 nights a label"
if command -v gnuplot >/dev/null; then
    is "$(sed -n '/<section id="history">/,/<\/section>/p' "$R" | grep -c '<svg')" 2 "  each with its chart inlined"
else
    skip "gnuplot is not installed"
fi
"$PM" --db "$TMP/hostile.db" report --out "$TMP/hrep" > /dev/null 2>&1
ok "  a hostile label's section is escaped" grep -qF '<h3>q&quot;uote &#39;sq&#39; `touch pwned-bt`' "$TMP/hrep/report.html"
is "$(pwned)" 0 "  and its chart ran nothing"
cp "$ROOT/tests/fixtures/verdict-pool.db" "$TMP/one.db"
chmod 600 "$TMP/one.db"
"$PM" --db "$TMP/one.db" report --out "$TMP/rep1" > /dev/null 2>&1
unlike "$(cat "$TMP/rep1/report.html")" 'id="history"' "  one night: no history section (in a report written)"
"$PM" --db "$TMP/noisy.db" report --out "$TMP/nrep" > /dev/null 2>&1
is "$(grep -c '^<li>change at night' "$TMP/nrep/report.html")" 1 "  the noisy history's report: one change"
is "$(grep '^<li>change at night' "$TMP/nrep/report.html")" \
    "<li>change at night 2026-11-17T023000Z: mean 996.938 -&gt; 964.75 msg/s (-3.2 %), p = 0.02; kernel 6.12.117 before, 6.12.117 after</li>" \
    "  a change 4 nights after the new kernel names the kernels either side too"

# Bad input: one line naming the option, the value and what is accepted;
# nothing written.
mkdir "$TMP/none"
bad "a metric the cell does not store" "^pressmark history: --metric: 'nope.x' is not a metric the runs of chat \(chat\) store \(accepted: chat\.client_collections, .*chat\.msgs_per_s, .*, \.\.\. \([0-9]+ in all\)\)$" \
    history --metric nope.x --chart "$TMP/none/x.png" chat
bad "an unknown label" "^pressmark history: 'no-such' has no runs in $TMP/step.db \(see 'pressmark list'\)$" history no-such
bad "no label" "^pressmark history: a label is needed" history
bad "a seed that is not a number" "^pressmark history: --seed: 'abc' is not a seed \(accepted: a whole number from 1 to 4294967295\)$" history --seed abc chat
bad "seed 0" "^pressmark history: --seed: '0' is not a seed" history --seed 0 chat
bad "a chart that is neither png nor svg" "^pressmark history: --chart: 'x.jpg' is not a chart file \(accepted: a path ending .png or .svg" \
    history --chart x.jpg chat
bad "an unknown format" "^pressmark history: --format: 'xml' is not a format \(accepted: text, json, csv\)$" history --format xml chat
bad "two labels" "^pressmark history: unexpected argument 'usemem'" history chat usemem
bad "--window 0" "^pressmark compare: --window: '0' is not a night count \(accepted: a whole number from 1 to 10000\)$" \
    compare --history --window 0
bad "--window x" "^pressmark compare: --window: 'x' is not a night count" compare --history --window x
bad "--window without --history" "^pressmark compare: --window: '5' judges a history's newest nights; it needs --history$" compare --window 5
bad "--history with --baseline" "^pressmark compare: --history: judges each label's nights against its own history; it takes no --baseline$" \
    compare --history --baseline chat usemem
bad "--history as csv" "^pressmark compare: --format: 'csv' is not a format of --history \(accepted: text, json\)$" compare --history --format csv
bad "--history of an unknown label" "^pressmark compare: 'no-such' has no runs in" compare --history --junit "$TMP/none/j.xml" no-such
bad "--history with a metric the cell does not store" "^pressmark compare: --metric: 'nope.x' is not a metric the runs of chat \(chat\) store" \
    compare --history --metric nope.x chat
cp "$TMP/step.db" "$TMP/failed.db"
sqlite3 "$TMP/failed.db" "UPDATE run SET status = 'failed' WHERE label = 'chat'"
bad "a label whose runs all failed" "^pressmark history: 'chat' has no ok runs in $TMP/failed.db: a history counts only ok runs$" \
    --db "$TMP/failed.db" history chat
bad "--history of it" "^pressmark compare: --history: 'chat' has no ok runs in $TMP/failed.db: no history to judge$" \
    --db "$TMP/failed.db" compare --history chat
is "$(ls -A "$TMP/none")" "" "  no chart, script, data or JUnit file was written"
done_testing
