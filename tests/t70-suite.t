#!/bin/bash
# Suites: files with axes become cells; runs interleaved per round from a
# recorded seed or one cell after another; fixed or adaptive run counts;
# resumed exactly after SIGINT and SIGKILL; progress on a terminal and in
# a pipe; bad files refused with FILE:LINE.
. "$(dirname "$0")/lib.sh"
need_root
cd "$TMP" || exit 1
before=$(machine_state)
orig_sw=$(cat /proc/sys/vm/swappiness)

# A two-axis suite: 2 x 2 cells, 3 runs each, interleaved.
cat > grid.ini <<'INI'
# sleep under two swappiness settings and two THP modes
[global]
runs = 3
question = Do swappiness and THP change a short sleep?
order-seed = 7

[nap]
workload = record
command = sleep 0.05
interval = 20ms
sysctl = vm.swappiness=11, vm.swappiness=99
thp = never, madvise
INI
plan=$("$PM" suite plan grid.ini)
is "$?" 0 "suite plan exits 0"
like "$plan" "suite grid \(grid.ini\): 4 cells x 3 runs = 12 runs, interleaved" "plan: the cells, the runs and the order"
like "$plan" "vm.swappiness=99 madvise +record +vm.swappiness=99 madvise +no earlier runs" "plan: a cell's label and axis values"
is "$(db_sum)" absent "plan runs nothing and writes nothing"
"$PM" suite run grid.ini > out 2> err
is "$?" 0 "suite run exits 0"
is "$(q "select count(*) from run r join run_meta m on m.run_id = r.id and m.key = 'suite.uuid' where r.status = 'ok'")" 12 "12 ok runs, each tagged with the suite"
is "$(q "select group_concat(n) from (select count(*) n from run r join run_meta m on m.run_id = r.id and m.key = 'suite.cell' group by m.value)")" "3,3,3,3" "3 per cell"
# Interleaved: every round holds each cell once, rounds one after another.
is "$(q "select group_concat(round, '') from suite_run order by seq")" "111122223333" "round by round"
is "$(q "select count(distinct cell) from suite_run group by round" | sort -u)" 4 "each round runs every cell once"
plan_order=$(printf '%s\n' "$plan" | sed -n 's/^  round 1: cells //p' | tr -d ' ')
is "$(q "select group_concat(cell, '') from (select cell from suite_run where suite_id = 1 and round = 1 order by seq)")" "$plan_order" "the order the plan showed for round 1 is the order that ran"
orders=$(q "select group_concat(cell, '') from (select round, cell from suite_run order by seq) group by round")
ok "rounds come in different orders (seeded shuffle)" test "$(printf '%s\n' "$orders" | sort -u | wc -l)" -gt 1
is "$(q "select value from run_meta m join run r on r.id = m.run_id where m.key = 'axis.thp' and r.label = 'vm.swappiness=11 madvise' limit 1")" madvise "the cell's axis values are stored with its runs"
is "$(q "select seed from suite")" 7 "the order's seed is recorded"
like "$(cat err)" "run 12 of 12 \(round 3\): .* ok " "plain progress: one line per finished run into a pipe"
is "$(grep -c $'\e' err)" 0 "  without escape sequences"
is "$(cat /proc/sys/vm/swappiness)" "$orig_sw" "swappiness put back"
status=$("$PM" suite status)
like "$status" "suite 1 \(grid, grid.ini\): complete, seed 7" "status: complete"
like "$status" "vm.swappiness=11 never +record +3 +0 +0 " "status: per cell ok, failed, left"
# The same file again: already complete; --again runs it anew.
"$PM" suite run grid.ini 2> err
is "$?" 0 "a complete suite run again exits 0"
like "$(cat err)" "suite 1 \(grid\) is complete" "and says it is complete"
is "$(q "select count(*) from run")" 12 "running nothing"
like "$("$PM" suite list)" "   1  .* grid +complete +4 +12/12" "suite list"

# Power before the runs: a plan of the same cells now finds their earlier
# runs, and says per cell the CV of its headline (elapsed), the smallest
# change its 3 runs a side detect with 80% power at the file's alpha, and
# the runs a side a change of 5% needs: the figures the statistics (t47
# holds them to scipy's) give for the cell's own runs.
TOOL=$(dirname "$PM")/tests/stats_tool
[ "$PM" != "$ROOT/pressmark" ] || TOOL=$ROOT/build/tests/stats_tool
sed -e 's/^runs = 3$/runs = 3\nalpha = 0.01\ndetect = 5%/' grid.ini > power.ini
plan=$("$PM" suite plan power.ini)
is "$?" 0 "a plan with alpha and detect exits 0"
like "$plan" "label .* estimate +CV +3 runs detect +5% needs" "  its table: CV, what 3 runs detect, what 5% needs"
like "$plan" "two-sided t-test at alpha 0.01" "  at the file's alpha"
power_check() {  # power_check PLAN-FILE: every cell's row against the statistics of its runs
    python3 - "$PRESSMARK_DB" "$TOOL" "$1" <<'PY'
import re, sqlite3, statistics, subprocess, sys
db, tool, plan = sys.argv[1:]
def tool_says(*args):
    return subprocess.run([tool] + [str(a) for a in args], capture_output=True, text=True, check=True).stdout.strip()
def pct(v):   # as the plan prints it: 2 digits below 10 %, else 3
    return "%.*g%%" % (2 if v < 10 else 3, v)
bad, rows = [], 0
for line in open(plan):
    m = re.match(r' *(\d+)  (vm\.swappiness=\d+ \w+) .*\((\d+) earlier runs?\) +(\S+) +(\S+) +(.*)$', line)
    if not m: continue
    rows += 1
    label, cv_s, det_s, needs = m.group(2), m.group(4), m.group(5), m.group(6).strip()
    v = [r[0] for r in sqlite3.connect(db).execute("select m.value from run r join metric m on m.run_id = r.id"
         " and m.name = 'time.elapsed_s' where r.label = ? and r.status = 'ok'", (label,))]
    cv = statistics.stdev(v) / statistics.mean(v) * 100
    det = float(tool_says("detectable", repr(cv), 3, 0.01, 0.8))
    need = int(tool_says("runs-needed", repr(cv), 5, 0.01, 0.8, 10000))
    want_needs = "more than 10000 runs" if need == 0 else "%d runs: 3 are %s" % (need, "enough" if need <= 3 else "too few")
    want = (m.group(3), pct(cv), pct(det), want_needs)
    got = (str(len(v)), cv_s, det_s, needs)
    if got != want: bad.append("%s: got %s, want %s" % (label, got, want))
print("\n".join(bad) if bad else "ok %d" % rows)
PY
}
printf '%s\n' "$plan" > power.plan
is "$(power_check power.plan)" "ok 4" "  each cell's CV, detectable change and runs needed, from its 3 earlier runs"

# The N-way comparison of the two-axis suite: a row per cell against its
# baseline cell, the two axes as rows x columns, a ratio sentence per cell.
out=$("$PM" compare --suite 1)
is "$?" 0 "compare --suite exits 0"
like "$out" "record, suite 1 \(grid\): 4 cells, baseline vm.swappiness=11 never" "a table of the suite's cells against the first"
like "$out" "sysctl \\\\ thp +never +madvise" "the two axes as rows and columns"
like "$out" "vm.swappiness=99 +[0-9.]+ ±[0-9.]+ \([+-][0-9.]+% p[=<][0-9.]+( \*)?\) +[0-9.]+ ±" "  each entry a cell's mean ±sd and its change"
is "$(printf '%s\n' "$out" | grep -c '%: .* vm.swappiness=11 never (p')" 3 "a ratio sentence for each other cell"
ok "json carries the layout" python3 -c 'import json,sys; g = json.load(sys.stdin)["comparisons"][0]["grid"]; assert g["rows_axis"] == "sysctl" and g["columns"] == ["never", "madvise"], g' <<< "$("$PM" compare --suite 1 --format json)"
is "$("$PM" compare --suite 1 --format json | python3 "$ROOT/tests/json_check.py" compare)" ok "  and matches docs/json/compare.schema.json"
is "$("$PM" compare --suite 1 | grep -c '^vm.swappiness')" 6 "4 rows of cells in the table, 2 in the grid"
"$PM" record --quiet --label 'vm.swappiness=11 never' --runs 2 -- sleep 0.05
like "$("$PM" compare --suite 1 | grep '^vm.swappiness=11 never ')" " 3 +0:3$" "runs of the same label outside the suite are not counted"
bad "--suite with labels" "^pressmark compare: --suite: compares the suite's cells" compare --suite 1 l
bad "--suite of a suite not there" "^pressmark compare: --suite: no suite 99 in " compare --suite 99

# The report of the suite: summary first, the question, a table per
# workload with each cell's CI, contents, charts in one colour per cell.
page=$("$PM" report --suite 1 --out "$TMP/rep")
is "$?" 0 "report --suite exits 0"
like "$(cat "$page")" "<p class=\"question\">Do swappiness and THP change a short sleep\?</p>" "the suite's question"
like "$(cat "$page")" "<h4>record by sysctl and thp" "the two-way table"
python3 - "$page" > colours.out 2>&1 <<'PY'
import re, sys
html = open(sys.argv[1], encoding='utf-8').read()
# The summary's swatch colour of each cell.
sw = dict((name, col) for col, name in re.findall(r'<span class="swatch" style="background:(#[0-9a-f]{6})"></span>([^<]+)</td>', html))
# Each chart's line colour per cell: gnuplot writes it on the plot's group.
seen, bad = {}, []
for block in re.split(r'<g id="gnuplot_plot_', html)[1:]:
    m = re.match(r'[^>]*><title>([^<]*)</title>', block)
    if not m or m.group(1).startswith('gnuplot_plot_'): continue   # error bars: notitle
    name = re.sub(r' \(mean of \d+ runs?\)$', '', m.group(1))
    cols = [c for c in re.findall(r'(?:color|stroke)=["\'](#[0-9a-fA-F]{6}|rgb\([^)]*\))["\']', block[:2000]) if c.upper() not in ('#FFFFFF', '#000000')]
    if not cols: continue
    c = cols[0].lower()
    if re.match(r'rgb', c):
        r, g, b = [int(x) for x in re.findall(r'\d+', c)]
        c = '#%02x%02x%02x' % (r, g, b)
    seen.setdefault(name, set()).add(c)
for name, cs in seen.items():
    if len(cs) != 1: bad.append('%s has colours %s' % (name, cs))
    if name in sw and sw[name] not in cs: bad.append('%s: swatch %s, lines %s' % (name, sw[name], cs))
if len(seen) != 4: bad.append('lines of %d cells' % len(seen))
if len(set(min(c) for c in seen.values())) != len(seen): bad.append('two cells share a colour')
print('\n'.join(bad) if bad else 'ok')
PY
is "$(cat colours.out)" ok "each cell has one colour in every chart, the colour of its swatch"
if command -v chromium >/dev/null; then
    # The page itself holds no script; a copy gets one that measures the
    # layout in a phone-sized window and writes what it found into the DOM.
    cp "$page" "$TMP/rep/measured.html"
    cat >> "$TMP/rep/measured.html" <<'JS'
<script>
var s = document.getElementById('summary').getBoundingClientRect();
var t = document.getElementById('toc').getBoundingClientRect();
var empty = 0, charts = document.querySelectorAll('.chart svg');
charts.forEach(function (svg) { if (svg.querySelectorAll('path').length < 5 || svg.getBoundingClientRect().height < 50) empty++; });
var pre = document.createElement('pre'); pre.id = 'measured';
pre.textContent = 'summary-top ' + Math.round(s.top) + ' fold ' + window.innerHeight + ' toc-after ' + (t.top > s.top) +
    ' charts ' + charts.length + ' empty ' + empty + ' zero ' + document.querySelectorAll('.zero').length +
    ' overflow ' + (document.documentElement.scrollWidth > window.innerWidth + 1);
document.body.appendChild(pre);
</script>
JS
    CHR=(chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
         --disable-component-update --disable-sync --user-data-dir="$TMP/chrome" --window-size=412,915)
    timeout 600 "${CHR[@]}" --dump-dom "file://$TMP/rep/measured.html" 2>/dev/null | grep -o '<pre id="measured">[^<]*' | sed 's/.*>//' > measured.txt
    read -r _ top _ fold _ after _ charts _ empty _ zero _ overflow < measured.txt
    ok "on a phone-sized screen the summary starts above the fold ($top of $fold px)" test "${top:-9999}" -lt "${fold:-0}"
    is "$after" true "the contents come after the summary"
    is "$empty" 0 "no chart drawn is empty"
    is "$((charts + zero))" 8 "eight charts, drawn or said to be all zero"
    is "$overflow" false "the page does not scroll sideways (wide tables scroll inside their box)"
    timeout 600 "${CHR[@]}" --screenshot="$TMP/shot.png" "file://$page" >/dev/null 2>&1
    ge "$(stat -c %s "$TMP/shot.png" 2>/dev/null || echo 0)" 10000 "a phone-sized screenshot of the page has content"
else
    for i in 1 2 3 4 5 6; do skip "chromium is not installed"; done
fi

# Sequential order and a changed file: a new suite, the difference shown.
sed -e 's/runs = 3/runs = 2\norder = sequential/' grid.ini > seq.ini
sed -i 's/^\[global\]/[global]\nname = grid/' seq.ini
"$PM" suite run seq.ini --quiet 2> err
like "$(cat err)" "changed since suite 1 started|suite 2 \(grid\)" "a changed file is a new suite"
is "$(q "select group_concat(cell, '') from suite_run where suite_id = 2 order by seq")" "00112233" "sequential: one cell's runs after another"

# Adaptive: a cell stops once its CI is within the target, or at the
# maximum, said not to converge (a steady cell usually stops at its
# minimum, a noisy one usually goes on; the check below holds either way,
# so the naps are short: 0.1 s, and 0.02 or 0.15 s, where 0.2 and 0.3 were).
cat > adapt.ini <<'INI'
[global]
runs = 3..8
target-ci = 10%

[steady]
workload = record
command = sleep 0.1
interval = 100ms

[noisy]
workload = record
command = python3 -c "import random, time; time.sleep(random.choice([0.02, 0.15]))"
interval = 100ms
INI
"$PM" suite run adapt.ini 2> err
is "$?" 0 "an adaptive suite exits 0"
sid=$(q "select max(id) from suite")
# The rule, checked against the cells' own numbers, whatever the machine's
# speed made them: a cell runs until the CI of its runs so far is first
# within 10 % of their mean (from its 3rd run), or to its 8th, each look's
# interval at 1 - 0.05/6 (Bonferroni over the 6 looks of runs 3..8, so the
# one it stops with is a 95% interval).
by_rule() {  # by_rule LABEL: "RUNS converged|not" as the rule has it
    python3 - "$PRESSMARK_DB" "$sid" "$1" <<'PY'
import math, sqlite3, statistics, sys
# Student's t at 1 - 0.05/12 by degrees of freedom (scipy.stats.t.ppf)
t_look = {2: 10.885867, 3: 6.231543, 4: 4.851008, 5: 4.219309, 6: 3.862991, 7: 3.635807}
db, sid, label = sys.argv[1:]
v = [r[0] for r in sqlite3.connect(db).execute(
    "select m.value from suite_run s join suite_cell c on c.suite_id = s.suite_id and c.idx = s.cell"
    " join metric m on m.run_id = s.run_id and m.name = 'time.elapsed_s'"
    " where s.suite_id = ? and c.label = ? order by s.seq", (int(sid), label))]
within = lambda n: t_look[n - 1] * statistics.stdev(v[:n]) / math.sqrt(n) <= 0.10 * abs(statistics.mean(v[:n]))
n = next((k for k in range(3, 9) if within(k)), 8)
print(n, "converged" if within(n) else "not")
PY
}
status=$("$PM" suite status $sid)
for cell in steady noisy; do
    n=$(q "select count(*) from suite_run s join suite_cell c on c.suite_id = s.suite_id and c.idx = s.cell where s.suite_id = $sid and c.label = '$cell'")
    rule=$(by_rule $cell)
    is "$n ${rule#* }" "$rule" "the $cell cell stopped where the rule says ($n runs)"
    case $rule in
        *converged) like "$status" "^ *[0-9]+ +$cell .* converged after $n runs$" "  status: converged after its $n runs" ;;
        *) like "$status" "^ *[0-9]+ +$cell .* at maximum, not converged$" "  status: at the maximum without converging" ;;
    esac
done

# SIGINT mid-run, then SIGKILL mid-run: suite run continues to exactly the
# planned runs, none repeated, the machine clean in between.
# The runs nap briefly, but for the one the test holds: echo N > hold lets
# N runs pass, and the next naps until a signal ends it, its pid in held.
# The signal is sent once that run is running, so it is sure to land
# mid-run, and the other runs need not last long enough to be caught
# (they took 0.6 s each).
cat > nap <<SH
#!/bin/sh
if [ -e '$TMP/hold' ]; then
    n=\$(cat '$TMP/hold')
    if [ "\$n" -gt 0 ]; then echo \$((n - 1)) > '$TMP/hold'; else rm '$TMP/hold'; echo \$\$ > '$TMP/held'; exec sleep 20; fi
fi
exec sleep 0.05
SH
chmod +x nap
held_running() {  # the run the test held naps, and is running
    wait_for sh -c "[ -s held ] && [ \$(sqlite3 '$PRESSMARK_DB' \"select count(*) from run where status = 'running'\") = 1 ]"
}
cat > long.ini <<INI
[global]
runs = 3
order-seed = 3

[long]
workload = record
command = $TMP/nap
interval = 100ms
sysctl = vm.swappiness=12, vm.swappiness=98
INI
finished() { q "select count(*) from suite_run s join run r on r.id = s.run_id where s.suite_id = (select max(id) from suite) and r.status = 'ok'"; }
echo 2 > hold
"$PM" suite run long.ini --quiet 2> err &
pid=$!
cleanup_add "stop_bg $pid"
ok "two runs finish" wait_for sh -c "[ \$(sqlite3 '$PRESSMARK_DB' \"select count(*) from suite_run s join run r on r.id = s.run_id where s.suite_id = (select max(id) from suite) and r.status = 'ok'\") -ge 2 ]"
ok "  and the next is running" held_running
kill -INT $pid; wait $pid
is "$?" 130 "SIGINT: suite run exits 130"
rm -f hold held
like "$(cat err)" "interrupted by SIGINT with [0-9]+ runs left; .*'pressmark suite run long.ini' continues it" "saying how to continue"
is "$(machine_state)" "$before" "the machine is clean after SIGINT"
is "$(q "select count(*) from run where status = 'aborted'")" 1 "the interrupted run is aborted"
n1=$(finished)
echo 1 > hold
"$PM" suite run long.ini --quiet 2> err &
pid=$!
cleanup_add "stop_bg $pid"
ok "after resuming, another run finishes" wait_for sh -c "[ \$(sqlite3 '$PRESSMARK_DB' \"select count(*) from suite_run s join run r on r.id = s.run_id where s.suite_id = (select max(id) from suite) and r.status = 'ok'\") -gt $n1 ]"
ok "  and the next is running" held_running
kill -KILL $pid; wait $pid 2>/dev/null
# (the killed pressmark's nap dies of its parent-death signal; one still
# there, and only a nap, goes)
held_pid=$(cat held)
[ "$(cat "/proc/$held_pid/comm" 2>/dev/null)" != sleep ] || kill -KILL "$held_pid"
rm -f hold held
like "$("$PM" suite status)" "unfinished" "after SIGKILL the suite is unfinished"
is "$(machine_state)" "$before" "and the machine is clean again once pressmark has recovered"
"$PM" suite run long.ini --quiet 2> err
is "$?" 0 "resumed to the end"
like "$(cat err)" "continuing suite" "  continuing the same suite"
sid=$(q "select max(id) from suite")
is "$(q "select group_concat(n) from (select count(*) n from suite_run s join run r on r.id = s.run_id where s.suite_id = $sid and r.status = 'ok' group by s.cell)")" "3,3" "exactly 3 ok runs per cell"
is "$(q "select count(*) from (select s.seq from suite_run s join run_meta m on m.key = 'suite.seq' and m.value = s.seq join run r on r.id = m.run_id and r.status = 'ok' join run_meta u on u.run_id = r.id and u.key = 'suite.id' and u.value = $sid where s.suite_id = $sid group by s.seq having count(*) > 1)")" 0 "no planned run was done twice"
ge "$(q "select count(*) from run r join run_meta m on m.run_id = r.id and m.key = 'suite.id' and m.value = $sid where r.status = 'aborted'")" 2 "the interrupted and the killed run stay, aborted"

# A changed file continues an unfinished suite only with --continue, and
# the difference is shown.
printf '[global]\nruns = 2\n\n[cont]\nworkload = record\ncommand = %s/nap\ninterval = 100ms\n' "$TMP" > cont.ini
echo 1 > hold
"$PM" suite run cont.ini --quiet 2> err &
pid=$!
cleanup_add "stop_bg $pid"
ok "one run of cont finishes" wait_for sh -c "[ \$(sqlite3 '$PRESSMARK_DB' \"select count(*) from run where label = 'cont' and status = 'ok'\") -ge 1 ]"
ok "  and the second is running" held_running
kill -INT $pid; wait $pid
rm -f hold held
sed -i 's/^runs = 2$/runs = 3/' cont.ini
"$PM" suite run cont.ini --continue --quiet 2> err
is "$?" 0 "--continue: the changed file continues the suite"
like "$(cat err)" "cont.ini changed since suite [0-9]+ started; continuing it \(--continue\)" "  saying so"
like "$(cat err)" "- runs = 2" "  with the line removed"
like "$(cat err)" "\+ runs = 3" "  and the line added"
is "$(q "select count(*) from suite where name = 'cont'")" 1 "  one suite"
is "$(q "select count(*) from run r join run_meta m on m.run_id = r.id and m.key = 'suite.name' and m.value = 'cont' where r.status = 'ok'")" 3 "  with the 3 runs the file now asks for"
sed -i 's/^runs = 3$/runs = 4/' cont.ini
"$PM" suite run cont.ini --quiet 2> err
like "$(cat err)" "suite [0-9]+ \(cont\): 1 cells" "a finished suite's changed file is a new suite"
is "$(q "select count(*) from suite where name = 'cont'")" 2 "  two suites now"

# A terminal gets a table redrawn in place (drawn as each run starts and
# ends: the runs need not last).
cat > tty.ini <<'INI'
[tty]
workload = record
command = sleep 0.05
interval = 100ms
runs = 2
INI
sed -i 's/^runs = 2$//' tty.ini; sed -i '1i [global]\nruns = 2' tty.ini
script -qefc "$PM suite run tty.ini" /dev/null > tty.out 2>&1
is "$?" 0 "suite run on a pseudo-terminal exits 0"
ok "redraws in place (cursor up, clear line)" grep -q $'\e\\[[0-9]*A' tty.out
ok "shows the run in progress" grep -q "this run: " tty.out
ok "logs each finished run above the table" grep -q "suite [0-9]* (tty): run 2 of 2 (round 2): tty ok " tty.out
# run --runs N shows the same on a terminal; into a pipe, a line per run.
script -qefc "$PM record --runs 2 --label ptyrec --interval 100ms -- sleep 0.05" /dev/null > rec.out 2>&1
ok "record --runs 2 on a terminal: the table" grep -q $'\e\\[[0-9]*A' rec.out
ok "  and a line per finished run with the mean so far" grep -q "record ptyrec: run 2 of 2: ptyrec ok [0-9.]* elapsed, cell mean [0-9.]* ±" rec.out
# The chat reports its messages as it goes: the table shows msg/s live.
# (two runs of some 2 s: the table, drawn for two runs or more, is redrawn
# every half second and its msg/s cleared at each run's start, so a run
# must outlast a second to show one; 4 to 6 lines with msg/s seen here,
# where one is needed, and 2 or 3 with 300 messages, too few on a faster
# machine)
script -qefc "$PM run chat --runs 2 --rooms 2 --users 10 --messages 600 --heap 16M --label livechat --interval 100ms" /dev/null > chat.out 2>&1
ok "a chat run on a terminal shows its msg/s while it runs" grep -q "this run: [0-9:]*, [1-9][0-9]* msg/s, swap in" chat.out
"$PM" record --runs 2 --label piperec --interval 100ms -- sleep 0.1 2>&1 | cat > pipe.out
is "$(grep -c '^pressmark: run [0-9]* \[piperec\] ok' pipe.out)" 2 "into a pipe: the plain line per run"
is "$(grep -c $'\e' pipe.out)" 0 "  and no escape sequences"

# Bad suite files: FILE:LINE, the key, the value, what is accepted; exit 2; nothing run or written.
bad_suite() {  # bad_suite DESCRIPTION REGEX CONTENT
    printf '%s\n' "$3" > bad.ini
    bad "$1" "^pressmark suite (run|plan): bad.ini:$2" suite run bad.ini
}
bad_suite "an unknown key" "3: 'colour' is not a key of a suite part running record \(accepted: workload, label, command, the options" \
    $'[a]\nworkload = record\ncolour = red\ncommand = true'
bad_suite "a value not accepted" "3: mem-cap: '5Q' is not a memory cap \(accepted:" $'[a]\nworkload = swapout\nmem-cap = 64M, 5Q'
bad_suite "an axis with an empty value" "3: 'thp = never,' has an empty or unclosed item" $'[a]\nworkload = swapout\nthp = never,'
bad_suite "no value" "2: 'runs' has no value" $'[global]\nruns =\n[a]\nworkload = swapout'
bad_suite "not INI" "2: not a suite line" $'[a]\nthis is not ini'
bad_suite "a range without a target" "2: runs = 3..9 needs target-ci" $'[global]\nruns = 3..9\n[a]\nworkload = swapout'
bad_suite "a suite key in a part" "3: 'runs' belongs in \[global\]" $'[a]\nworkload = swapout\nruns = 3'
bad_suite "the accelerator in a part" "3: 'vm-accel' belongs in \[global\]" $'[a]\nworkload = swapout\nvm-accel = tcg'
bad_suite "a part's boot limit that is none" "3: vm-timeout = 0s: not a time limit \(accepted: a duration of 1s or more" \
    $'[a]\nworkload = swapout\nvm-timeout = 0s'
bad_suite "a part's boot limit as an axis" "3: vm-timeout = 30s, 5m: one limit \(accepted: a duration" \
    $'[a]\nworkload = swapout\nvm-timeout = 30s, 5m'
bad_suite "an unknown workload" "2: workload = nosuch: not a workload \(accepted: record, " $'[a]\nworkload = nosuch'
bad_suite "a bad order" "2: order = random: not an order \(accepted: interleaved, sequential\)" $'[global]\norder = random\n[a]\nworkload = swapout'
bad_suite "an alpha above 0.5" "2: alpha = 0.7: not a significance level \(accepted: a number above 0 and at most 0.5, e.g. 0.05\)" \
    $'[global]\nalpha = 0.7\n[a]\nworkload = swapout'
bad_suite "an alpha of 0" "2: alpha = 0: not a significance level" $'[global]\nalpha = 0\n[a]\nworkload = swapout'
bad_suite "an alpha in percent" "2: alpha = 5%: not a significance level" $'[global]\nalpha = 5%\n[a]\nworkload = swapout'
bad_suite "a detect without %" "2: detect = 5: not a change to detect \(accepted: a percentage of the mean above 0 and below 100, e.g. 5%\)" \
    $'[global]\ndetect = 5\n[a]\nworkload = swapout'
bad_suite "a detect of 100%" "2: detect = 100%: not a change to detect" $'[global]\ndetect = 100%\n[a]\nworkload = swapout'
bad_suite "a detect of 0%" "2: detect = 0%: not a change to detect" $'[global]\ndetect = 0%\n[a]\nworkload = swapout'
bad_suite "a detect in a part" "3: 'detect' belongs in \[global\]" $'[a]\nworkload = swapout\ndetect = 5%'
bad_suite "a duplicate label" "4: two cells of workload swapout are labelled 'same'" $'[a]\nworkload = swapout\nthp = never, always\nlabel = same'
bad_suite "a key that is no name" "3: 'co lour' is not a key \(accepted: a name of letters" $'[a]\nworkload = record\nco lour = red'
bad_suite "a value commented out" "3: 'size =;64M': a value starting with ';'" $'[a]\nworkload = swapout\nsize =;64M'
bad_suite "a line too long" "3: a line longer than [0-9]+ characters" "$(printf '[a]\nworkload = record\ncommand = %0300d' 0)"
bad_suite "axes of too many cells" "6: \[a\]'s axes make more than 1024 cells with mem-cap" $'[a]\nworkload = swapout\nsize = 1M,2M,3M,4M,5M,6M\nchunk = 4K,8K,16K,32K,64K,128K\nprefill = 0,1M,2M,3M,4M,5M\nmem-cap = 64M,65M,66M,67M,68M,69M'
bad_suite "an indented key" "3: an indented line \(accepted: \[section\] and key = value at the start of a line" $'[a]\nworkload = chat\n  rooms = 2'
# A NUL byte would cut its line where C's strings end: refused, naming it.
printf '[global]\nquestion = why\0runs = 99\n[a]\nworkload = swapout\n' > nul.ini
bad "a NUL byte" "^pressmark suite run: nul.ini:2: a NUL byte \\(accepted: text\\)$" suite run nul.ini
printf '' > empty.ini
bad "an empty suite" "^pressmark suite run: empty.ini: an empty suite" suite run empty.ini
bad "a missing file" "^pressmark suite run: nosuch.ini: No such file" suite run nosuch.ini
bad "an unknown subcommand" "^pressmark suite: 'walk' is not a suite command" suite walk
# A cell of a named kernel is judged by that kernel when its run's
# environment comes up. In its guest (this machine standing in as group 0's)
# a knob that kernel lacks fails each run with the reason, and the suite
# goes on with its other cells.
if [ ! -e /sys/kernel/mm/lru_gen ]; then
    printf '[global]\nruns = 2\nkernel = linux-image-cloud-amd64\n[g]\nworkload = record\ncommand = true\nlru-gen = off, on\nlabel = guest {lru-gen}\n' > guest.ini
    "$PM" suite run guest.ini --quiet --guest-group 0 --guest-suite 0c0ffee0-0000-4000-8000-000000000032 \
        --guest-seed 1 >out 2>err
    is "$?" 1 "in the guest, a knob its kernel lacks fails those runs (exit 1), not the suite (2)"
    is "$(q "select group_concat(label || ': ' || status || ': ' || reason, '|') from (select * from run where label like 'guest %' order by label, id)")" \
        "$(for v in off off on on; do printf "guest %s: failed: environment: --lru-gen: '%s': this kernel has no /sys/kernel/mm/lru_gen/enabled (accepted: a kernel built with CONFIG_LRU_GEN)|" $v $v; done | sed 's/|$//')" \
        "each run of both cells failed with the reason"
else
    skip "this kernel has MGLRU"
fi
# A guest is handed the suite's order seed, any of 0 to 2^63 - 1 (one in
# 400 was refused above 9.2e18): the parser takes the largest and goes on
# to the next complaint.
"$PM" suite run --guest-seed 9223372036854775807 --dry-run grid.ini > out 2> err
like "$(cat err)" "^pressmark suite run: --dry-run goes with --reboot kexec" "--guest-seed takes the largest seed a suite makes"
# Every reference suite loads here: its keys, values and cells (a named
# kernel's cells are judged by that kernel, so here they only parse).
for f in "$ROOT"/suites/*.ini; do
    ok "suites/$(basename "$f") plans" "$PM" suite plan "$f"
done
is "$(machine_state)" "$before" "the machine as it was"
done_testing
