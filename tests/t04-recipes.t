#!/bin/bash
# docs/guide/hacking.md's recipes, each applied to a copy of the tree as
# its table says, touching exactly the files it names and as many as it
# counts (t06 does the same for a workload):
#  - a sample source: collectors/src_skeleton.c (/proc/loadavg, compiled,
#    not registered) and one line in collectors/sources.h;
#  - a metric of a source: one file, the source's, as
#    tests/fixtures/recipes/metric.patch adds stat.procs_blocked_max;
#  - a compare format: reports/cmpfmt_skeleton.c (compiled, not
#    registered) and one line in reports/compare_fmt.c.
# The copy is built once; a run of it samples the new source and stores
# both new metrics (the strict check is on: each is in the catalogue with
# its unit and direction), help metrics lists them, and compare --format
# skeleton prints the new format. The tree's own pressmark has none of it.
. "$(dirname "$0")/lib.sh"
command -v make >/dev/null || skip_all "needs make"
command -v patch >/dev/null || skip_all "needs patch"
T=$TMP/tree
setup "a copy of the tree with the plain build's objects" tree_copy "$T"
sums() { (cd "$T" && find . -path ./build -prune -o -type f -print0 | sort -z | xargs -0 md5sum) > "$1"; }
# touched BEFORE AFTER: the files new or changed between two sums, a line each.
touched() { diff "$1" "$2" | sed -n 's/^> [0-9a-f]*  \.\///p'; }
# recipe NAME OWN TOUCHED: OWN files of the recipe's own (its skeleton, in
# the tree already) and the TOUCHED ones make the count hacking.md's table
# states for NAME, and its row names each touched file.
recipe() {
    local name=$1 own=$2 touched=$3 f
    is "$(( own + $(printf '%s' "$touched" | grep -c .) ))" "$(recipe_files "$name")" \
       "$name: as many files as docs/guide/hacking.md counts ($(recipe_files "$name"))"
    for f in $touched; do
        ok "  its row names $f" grep -qF "\`$f\`" <<<"$(recipe_names "$name")"
    done
}
sums "$TMP/0"

# A sample source: the skeleton's one line in the registry, after the last.
sed -i 's|^    X(workload)$|    X(workload)       \\\n    X(loadavg)|' "$T/collectors/sources.h"
ok "collectors/sources.h takes the line" grep -q '^    X(loadavg)$' "$T/collectors/sources.h"
sums "$TMP/1"
is "$(touched "$TMP/0" "$TMP/1")" "collectors/sources.h" "a sample source: no file but collectors/sources.h was touched"
recipe "a sample source" 1 "$(touched "$TMP/0" "$TMP/1")"

# A metric of an existing source: its row and derive lines, one file.
(cd "$T" && patch -p1 --quiet < "$ROOT/tests/fixtures/recipes/metric.patch")
is "$?" 0 "tests/fixtures/recipes/metric.patch applies"
sums "$TMP/2"
is "$(touched "$TMP/1" "$TMP/2")" "collectors/src_stat.c" "a metric: no file but collectors/src_stat.c was touched"
recipe "a metric of a source" 0 "$(touched "$TMP/1" "$TMP/2")"

# A compare format: the skeleton's one line in the registry, after the last.
sed -i 's|^    X(html)$|    X(html)               \\\n    X(skeleton)|' "$T/reports/compare_fmt.c"
ok "reports/compare_fmt.c takes the line" grep -q '^    X(skeleton)$' "$T/reports/compare_fmt.c"
sums "$TMP/3"
is "$(touched "$TMP/2" "$TMP/3")" "reports/compare_fmt.c" "a compare format: no file but reports/compare_fmt.c was touched"
recipe "a compare format" 1 "$(touched "$TMP/2" "$TMP/3")"
ge "$(wc -l < "$TMP/3")" 300 "  (of the tree's $(wc -l < "$TMP/3") files)"

out=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -j2 -C "$T" B=build build/pressmark 2>&1)
is "$?" 0 "the copy builds"
[ -x "$T/build/pressmark" ] || { diag "# $out"; done_testing; exit 1; }
NEW=$T/build/pressmark

# The source: sampled every tick, its metric derived and stored.
like "$("$NEW" record --help 2>&1)" '--collect .* workload loadavg \(default: all\)' "--collect's help lists loadavg, from the registry"
"$NEW" record --quiet --label a --runs 2 --interval 100ms -- sleep 0.5 2>"$TMP/err"
is "$?" 0 "pressmark record runs with the new source and metric (strict metrics on)"
is "$(q "select count(*) from run where label = 'a' and status = 'ok'")" 2 "its two runs are stored ok"
ge "$(q "select min(ticks) from run_source s join run r on r.id = s.run_id where r.label = 'a' and s.source = 'loadavg'")" 3 \
   "each run sampled /proc/loadavg, 3 ticks or more"
ge "$(q "select count(*) from sample s join run r on r.id = s.run_id where r.label = 'a' and s.name = 'loadavg.load1'")" 6 \
   "  its series stored tick by tick (loadavg.load1)"
is "$(q "select count(distinct s.name) from sample s join run r on r.id = s.run_id where r.label = 'a' and s.name like 'loadavg.%'")" 5 \
   "  all five: load1, load5, load15, running, tasks"
ok "loadavg.load1_max is stored, a load average" \
   awk -v v="$(metric a loadavg.load1_max)" 'BEGIN { exit !(v != "" && v >= 0 && v < 100000) }'
# Its numbers are /proc/loadavg's: the reader itself is running when it
# reads (1 or more), all tasks count it too, and load1_max is the
# highest load1 its run sampled.
is "$(q "select count(*) from sample s join run r on r.id = s.run_id where r.label = 'a' and s.name = 'loadavg.running' and s.value < 1")" 0 \
   "  every tick saw a task running at least (the reader)"
is "$(q "select count(*) from sample r1 join sample t on t.run_id = r1.run_id and t.seq = r1.seq join run r on r.id = r1.run_id where r.label = 'a' and r1.name = 'loadavg.running' and t.name = 'loadavg.tasks' and t.value < r1.value")" 0 \
   "  and never more running than tasks"
for id in $(q "select id from run where label = 'a'"); do
    ok "  run $id: loadavg.load1_max is the highest load1 it sampled" awk -v m="$(metric "$id" loadavg.load1_max)" \
       -v s="$(q "select max(value) from sample where run_id = $id and name = 'loadavg.load1'")" \
       'BEGIN { exit !(m != "" && s != "" && m - s < 1e-9 && s - m < 1e-9) }'
done
is "$(q "select unit || ' ' || direction from metric m join run r on r.id = m.run_id where r.label = 'a' and name = 'loadavg.load1_max' limit 1")" \
   "tasks lower" "  with the unit and direction it declares"
"$NEW" record --quiet --label off --collect -loadavg -- true 2>>"$TMP/err"
is "$?" 0 "record --collect -loadavg runs"
is "$(q "select count(*) from run_source s join run r on r.id = s.run_id where r.label = 'off' and s.source = 'loadavg'")" 0 \
   "--collect -loadavg switches it off: its name is the registry's word"

# The metric: stored by the same runs, listed with its unit and direction.
ok "stat.procs_blocked_max is stored, a count of tasks" \
   awk -v v="$(metric a stat.procs_blocked_max)" 'BEGIN { exit !(v != "" && v >= 0 && v == int(v)) }'
"$NEW" help metrics > "$TMP/help"
like "$(grep '^  stat.procs_blocked_max ' "$TMP/help")" '^  stat\.procs_blocked_max +tasks +lower +the most tasks blocked' \
   "help metrics lists stat.procs_blocked_max: tasks, lower"
is "$(grep -A1 '^loadavg metrics:$' "$TMP/help")" $'loadavg metrics:\n/proc/loadavg, the skeleton source' "help metrics has the source's group"
like "$(grep '^  loadavg.load1_max ' "$TMP/help")" '^  loadavg\.load1_max +tasks +lower +the highest 1-minute load average' \
   "  loadavg.load1_max: tasks, lower"

# The format: a line per comparison and per label, the count at the end.
"$NEW" record --quiet --label b --runs 2 --interval 100ms -- sleep 0.5 2>>"$TMP/err"
like "$("$NEW" compare --help 2>&1)" '--format F .*\(text[|]markdown[|]csv[|]json[|]html[|]skeleton; default text\)' \
   "compare --help lists skeleton among the formats, from the registry"
"$NEW" compare a b --format skeleton > "$TMP/cmp" 2>"$TMP/cmp.err"
is "$?" 0 "compare --format skeleton"
is "$(sed -n 1p "$TMP/cmp")" "skeleton: record, time.elapsed_s (s)" "  a line for the comparison: its workload and headline"
like "$(sed -n 2p "$TMP/cmp")" '^  a: [0-9.]+ ±[0-9.]+, base$' "  the baseline's mean ±sd"
like "$(sed -n 3p "$TMP/cmp")" '^  b: [0-9.]+ ±[0-9.]+, [-+][0-9.]+% ' "  the other label's, with its change and test"
is "$(sed -n '4,$p' "$TMP/cmp")" "skeleton: 1 comparison" "  and the count at the end"
is "$(cat "$TMP/cmp.err")" "" "  nothing on standard error"
# The gate: b made a hundred times slower (its stored elapsed time), so
# --fail-on-regression finds it, and the format shows the finding's line
# above the verdict.
q "update metric set value = value * 100 where name = 'time.elapsed_s' and run_id in (select id from run where label = 'b')"
"$NEW" compare --baseline a b --format skeleton --fail-on-regression > "$TMP/gate" 2>&1
is "$?" 1 "compare --format skeleton --fail-on-regression of a hundredfold time: exit 1"
like "$(cat "$TMP/gate")" '^REGRESSION record: time\.elapsed_s .* worse with b than with a' "  the finding's line is shown"
like "$(tail -n 1 "$TMP/gate")" '^verdict: regression' "  then the verdict"
# A label is data: one that clears the screen (set in the database, as a
# merged or crafted one could be) is shown escaped, never sent as it is
# (the skeleton quotes it, and a human format's standard output is
# compare's terminal stream, which quotes again).
q "update run set label = 'b' || char(27) || '[2J' where label = 'b'"
"$NEW" compare a "b"$'\e''[2J' --format skeleton > "$TMP/cmp" 2>"$TMP/cmp.err"
is "$?" 0 "compare --format skeleton of a label with an escape in it"
is "$(sed -n 3p "$TMP/cmp" | cut -d: -f1)" '  b\x1b[2J' "  the label shown with its escape as \\x1b"
is "$(grep -c $'\e' "$TMP/cmp")" 0 "  and no escape byte in the output"

# None of it is in the tree's own build: the lines are what register it.
unlike "$("$PM" help metrics)" '^  (loadavg\.|stat\.procs_blocked_max)' "the tree's own pressmark has neither metric"
"$PM" compare a b --format skeleton >/dev/null 2>"$TMP/own.err"
is "$?" 2 "  nor the skeleton format (exit 2)"
is "$(grep -c . "$TMP/err")" 0 "the runs said nothing on standard error"
done_testing
