#!/bin/bash
# compare, plot and report over runs made for the test with known differences.
. "$(dirname "$0")/lib.sh"
sw_opts=(); [ "$(id -u)" -eq 0 ] && sw_opts=(--sysctl vm.swappiness=$(( $(cat /proc/sys/vm/swappiness) == 33 ? 34 : 33 )))
# (slow: a second more than fast, a difference no noise of a loaded
# machine hides in three runs a side: with three, Welch's test alone
# judges, and one run late by x keeps p < 0.05 only while x < 0.57 s; a
# 0.3 s difference would fail on one run late by 0.17 s)
setup "3 fast runs" "$PM" record --quiet --label fast --runs 3 --interval 50ms -- sleep 0.2
setup "3 slow runs" "$PM" record --quiet --label slow --runs 3 --interval 50ms "${sw_opts[@]}" -- sleep 1.2
setup "a failed slow run (exit 1 is its result)" sh -c '"$1" record --quiet --label slow -- sh -c "exit 1"; [ $? -eq 1 ]' sh "$PM"
setup "a label with markup" "$PM" record --quiet --label '<script>alert(1)</script>' --runs 2 --interval 50ms -- sleep 0.1
# Outliers: a label of six runs, one far off, named in markup; its 4th run
# is recorded apart, long enough for more ticks than the report shows.
# (The others' times are set below: their sleeps need only be runs.)
DRIFT='drift<img src=x onerror=alert(2)>'
setup "3 runs of the drifting label" "$PM" record --quiet --label "$DRIFT" --runs 3 --interval 50ms -- sleep 0.1
setup "its 4th run, 10 ms ticks for 2.6 s" "$PM" record --quiet --label "$DRIFT" --interval 10ms -- sleep 2.6
setup "its 5th and 6th runs" "$PM" record --quiet --label "$DRIFT" --runs 2 --interval 50ms -- sleep 0.1
setup "3 runs of a label too small to judge" "$PM" record --quiet --label trio --runs 3 --interval 50ms -- true
# set_elapsed LABEL V...: the label's runs' elapsed times, in run order.
set_elapsed() {
    local l=$1 id; shift
    for id in $(q "select id from run where label = '$l' order by id"); do
        q "update metric set value = $1 where run_id = $id and name = 'time.elapsed_s'"
        shift
    done
}
# 10 11 9 30 12 8: median 10.5; |x - median| 0.5 0.5 1.5 1.5 2.5 19.5, so
# MAD 1.5; run 4's z = 0.6745 * 19.5 / 1.5 = 0.6745 * 13 = 8.7685, the
# next largest |z| 0.6745 * 2.5 / 1.5 = 1.12: one outlier, z = 8.8.
set_elapsed "$DRIFT" 10 11 9 30 12 8
# 10 10.1 30: as far off, but of three runs nothing is judged.
set_elapsed trio 10 10.1 30
far=$(q "select id from run where label = '$DRIFT' order by id limit 1 offset 3")
# The report of these runs, made now (nothing below changes them before
# it is checked) so that Chromium renders it in the background while the
# checks up to its own run; one Chromium for the DOM and the screenshot
# both (its start is seconds).
"$PM" report --out "$TMP/rep" > "$TMP/rep.out"
report_rc=$?
page="$TMP/rep/report.html"
if command -v chromium >/dev/null; then
    CHR=(chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
         --disable-component-update --disable-sync --user-data-dir="$TMP/chrome")
    # (a generous timeout: under TCG Chromium's start alone takes minutes)
    timeout 600 "${CHR[@]}" --window-size=1200,1600 --screenshot="$TMP/shot.png" --dump-dom "file://$page" \
        > "$TMP/dom.html" 2> "$TMP/chromium.err" &
    chromium_pid=$!
    cleanup_add "stop_bg $chromium_pid"
fi

out=$("$PM" compare --baseline fast slow)
is "$?" 0 "compare exits 0"
like "$out" "^record: 2 labels, baseline fast, alpha 0.05" "the table names workload, baseline and alpha"
like "$out" "label +elapsed +change +%CPU +%sys/%user +Total swpin +Total swpout +Total swapio +n +fail:runs" "the reports' columns"
# The means as stored, against what the table prints to its precision (the
# sleeps take longer on a slow machine, under TCG half as long again).
mean=$(q "select avg(m.value) from metric m join run r on r.id = m.run_id where r.label = 'slow' and r.status = 'ok' and m.name = 'time.elapsed_s'")
fmean=$(q "select avg(m.value) from metric m join run r on r.id = m.run_id where r.label = 'fast' and r.status = 'ok' and m.name = 'time.elapsed_s'")
as_printed() { awk -v p="$1" -v m="$2" 'BEGIN { d = index(p, ".") ? length(p) - index(p, ".") : 0; e = p - m; if (e < 0) e = -e
                                                  exit !(p != "" && e <= 0.5 * 10 ^ -d + 1e-12) }'; }
like "$out" "slow +[0-9.]+ ±[0-9.]+ +-[0-9.]+% p[=<][0-9.]+ \*" "slow is significantly worse, marked"
ok "  its mean is the stored runs' ($mean s)" as_printed "$(awk '$1 == "slow" { print $2; exit }' <<<"$out")" "$mean"
ok "  the sentence's baseline is fast's mean ($fmean s)" \
   as_printed "$(grep -oE '/[0-9.]+ = [0-9.]+ %: record runs' <<<"$out" | head -1 | sed 's,^/,,; s, .*,,')" "$fmean"
like "$out" "slow .* 3 +1:4" "n counts ok runs; fail:runs counts the failed one"
like "$out" "/[0-9.]+ = [0-9.]+ %: record runs [0-9.]+ % slower with slow than with fast \(p [=<] [0-9.]+(, adjusted [=<]? ?[0-9.]+ over [0-9]+ comparisons)?, n = 3/3\)" "the report's ratio sentence, raw p and, when more than one metric has something to test, adjusted over them"
like "$out" "runs not averaged in \(failed, oom, aborted\): slow 1 failed, 0 oom, 0 aborted of 4" "failed runs are counted, not averaged"
if [ ${#sw_opts[@]} -gt 0 ]; then
    like "$out" "sysctl.vm.swappiness: fast=[0-9]+, slow=[0-9]+" "environment differences list the changed sysctl"
else
    skip "not root: no sysctl difference to show"
fi

# Every format carries the same numbers.
"$PM" compare --baseline fast slow --format json > "$TMP/c.json"
"$PM" compare --baseline fast slow --format csv > "$TMP/c.csv"
check=$(python3 - "$TMP/c.json" "$TMP/c.csv" "$mean" <<'PY'
import csv, json, sys
j = json.load(open(sys.argv[1]))["comparisons"][0]
slow = [l for l in j["labels"] if l["label"] == "slow"][0]
e = slow["metrics"]["time.elapsed_s"]
rows = {(r["label"], r["metric"]): r for r in csv.DictReader(open(sys.argv[2]))}
c = rows[("slow", "time.elapsed_s")]
want = float(sys.argv[3])
same = abs(e["mean"] - want) < 1e-9 and abs(float(c["mean"]) - want) < 1e-9
same &= abs(float(c["p"]) - e["vs_baseline"]["p"]) < 1e-12 and abs(float(c["change_pct"]) - e["vs_baseline"]["change_pct"]) < 1e-9
same &= len(e["values"]) == 3 and e["n"] == 3 and c["n"] == "3" and c["failed"] == "1" and slow["failed"] == 1
same &= e["vs_baseline"]["significant"] and c["significant"] == "yes" and e["direction"] == "lower"
same &= e["vs_baseline"]["ci_low"] < e["mean"] - [l for l in j["labels"] if l["label"] == "fast"][0]["metrics"]["time.elapsed_s"]["mean"] < e["vs_baseline"]["ci_high"]
print("same" if same else "differ", slow["sentence"][:30])
PY
)
like "$check" "^same " "JSON, CSV and the database agree on mean, n, p, change, CI, failures and raw values"
md=$("$PM" compare --baseline fast slow --format markdown)
like "$md" "\| label \| elapsed \| change \|" "markdown renders a pipe table"
like "$("$PM" compare --baseline fast slow --format html)" "<table[ >]" "html renders a table"
long=$("$PM" compare --baseline fast slow --long)
for s in n mean stddev "CV%" min median max change "95% CI diff"; do like "$long" "  $s " "--long has $s"; done
like "$long" "time.elapsed_s \(s, lower is better\)" "--long says which direction is better"
like "$("$PM" compare --baseline fast slow --metric time.maxrss_kb --long)" "time.maxrss_kb" "--metric picks metrics"
two=$("$PM" compare --baseline fast '<script>alert(1)</script>')
# (real sleeps: whether the two differ, and how many metrics have
# something to test, is the machine's; t48 holds both exactly)
like "$two" "\(p [=<] [0-9.]+(, adjusted [<=]? ?[0-9.]+ over [0-9]+ comparisons)?, n = 2/3\)" "two runs against three still compare (n = 2/3)"
PRESSMARK_DB="$TMP/one.db" "$PM" record --quiet --label pair --runs 2 --interval 50ms -- sleep 0.1
PRESSMARK_DB="$TMP/one.db" "$PM" record --quiet --label single --interval 50ms -- sleep 0.1
one=$(PRESSMARK_DB="$TMP/one.db" "$PM" compare --baseline pair single)
like "$one" "n too small to judge single against pair \(n = 1/2; 2 runs a side at least\)" "one run against two says n too small, and why"

bad "compare with a baseline that has no runs" "--baseline: 'nosuch' has no runs in" compare --baseline nosuch slow
bad "compare --alpha out of range" "--alpha: '2' is not a significance level \(accepted: a number above 0 and at most 0\.5" compare --alpha 2
bad "compare --format unknown" "--format: 'xml' is not a format \(accepted: text, markdown, csv, json, html\)" compare --format xml
bad "plot --format unknown" "--format: 'gif' is not a chart format \(accepted: png, svg\)" plot --format gif

# show LABEL flags the far run, with its z, and no other; three runs none.
show=$("$PM" show "$DRIFT")
like "$show" "beat p99 +status +outlier$" "show: an outlier column when a run is flagged"
like "$show" "^$far +30\.00 s .* ok +z = 8\.8$" "  run $far (elapsed 30 s) is flagged, z = 8.8"
is "$(printf '%s\n' "$show" | grep -cE ' z = [0-9.-]+$')" 1 "  and no other run"
like "$show" "outlier \(modified z-score 0\.6745 \(x - median\) / MAD of time\.elapsed_s above 5\.54, the critical value among the label's 6 ok runs of record\): run $far \(z = 8\.8\); kept in the mean" \
    "  the rule is named under the table"
"$PM" show "$DRIFT" --format json > "$TMP/drift.json"
is "$(python3 "$ROOT/tests/json_check.py" show < "$TMP/drift.json")" ok "  its JSON matches docs/json/show.schema.json"
is "$(python3 -c '
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
flagged = [(r["id"], round(r["outlier"]["z"], 6), r["outlier"]["metric"], r["outlier"]["among"]) for r in runs if r["outlier"]]
print(len(runs), flagged, all(r["outlier"] is None for r in runs if r["id"] != int(sys.argv[2])))' "$TMP/drift.json" "$far")" \
    "6 [($far, 8.7685, 'time.elapsed_s', 6)] True" "  JSON: run $far's outlier has z = 8.7685 (0.6745 * 13), the others null"
trio=$("$PM" show trio)
like "$trio" "trio, workload record: 3 runs" "show of three runs"
is "$(printf '%s\n' "$trio" | grep -c 'outlier')" 0 "  flags none of them, though one is three times the others"
is "$("$PM" show trio --format json | python3 -c 'import json, sys; print([r["outlier"] for r in json.load(sys.stdin)["runs"]])')" \
    "[None, None, None]" "  JSON: every outlier null"

# Charts, in both formats, with their scripts re-run standalone.
"$PM" plot fast slow --out "$TMP/png" > "$TMP/plot.out"
is "$?" 0 "plot exits 0"
is "$(wc -l < "$TMP/plot.out")" 8 "plot names eight charts"
for c in swap cpu memory pressure reclaim headline stalls latency; do
    ok "record-$c.png is a PNG" sh -c "head -c 8 '$TMP/png/record-$c.png' | od -An -c | grep -q 'P   N   G'"
    ok "record-$c.gp and .dat are beside it" test -s "$TMP/png/record-$c.gp" -a -s "$TMP/png/record-$c.dat"
done
like "$(cat "$TMP/png/record-cpu.gp")" "set ylabel 'system \(% of all CPUs\)'" "axis labels carry units"
like "$(cat "$TMP/png/record-cpu.gp")" "record: CPU utilisation" "titles name the workload"
rm "$TMP/png/record-swap.png"
(cd "$TMP/png" && gnuplot record-swap.gp)
ok "record-swap.gp redraws its chart standalone" test -s "$TMP/png/record-swap.png"
"$PM" plot --format svg --per-run --out "$TMP/svg" >/dev/null
ok "svg charts, a line per run" grep -q '<svg' "$TMP/svg/record-swap.svg"
like "$(grep -c 'index' "$TMP/svg/record-swap.gp")" "^[1-9]" "the per-run script plots each run's block"
PATH=/nonexistent "$PM" plot --out "$TMP/none" >/dev/null 2>"$TMP/err"
is "$?" 2 "plot without gnuplot exits 2"
like "$(cat "$TMP/err")" "gnuplot is not installed" "and says so in one line"

# A gnuplot that fails (the test's own, first in PATH): the page is written
# with the reason where its charts would be, and the report is a failure.
mkdir -p "$TMP/badgp"
printf '#!/bin/sh\necho "gnuplot: out of order" >&2\nexit 1\n' > "$TMP/badgp/gnuplot"
chmod +x "$TMP/badgp/gnuplot"
PATH="$TMP/badgp:$PATH" "$PM" report --out "$TMP/rep-nochart" > "$TMP/rep-nochart.out" 2>"$TMP/err"
is "$?" 1 "report whose charts cannot be drawn exits 1"
like "$(cat "$TMP/err")" "^pressmark report: charts could not be drawn: .*gnuplot" "  and says why on stderr"
is "$(wc -l < "$TMP/err")" 1 "  in one line"
ok "  the page is written all the same" test -s "$TMP/rep-nochart/report.html"
ok "  and says there why it has no charts" grep -q 'charts could not be drawn' "$TMP/rep-nochart/report.html"

# The report (made above), rendered by headless Chromium.
is "$report_rc" 0 "report exits 0"
ok "the page exists" test -s "$page"
is "$(grep -c '<script' "$page")" 0 "no <script> in the page: the label is escaped"
ok "the label appears escaped" grep -q '&lt;script&gt;alert(1)&lt;/script&gt;' "$page"
ok "charts are inline SVG" grep -q '<svg' "$page"
ok "nothing is loaded from elsewhere" sh -c "! grep -Eq '(src|href)=\"(https?:)?//' '$page'"
# The outlier in the report: named under the summary table with a link to
# its row; the row anchored, marked and badged, its ticks a click away
# (at most 200 rows, evenly spaced); no other row marked.
DRIFT_HTML='drift&lt;img src=x onerror=alert\(2\)&gt;'
like "$(grep -o '<p class="outliers">outlier (a run.*' "$page")" \
    "<a href=\"#run-$far\">run $far</a> of $DRIFT_HTML \(30 s, z = 8\.8\)</p>$" "report: the summary names run $far, linked to its row, its label escaped"
is "$(grep -c '<img' "$page")" 0 "  no element comes of the label"
is "$(grep -oE '<tr id="run-[0-9]+"' "$page" | wc -l)" "$(q 'select count(*) from run')" "  every row of the Runs table has its anchor"
is "$(grep -oE '<tr id="run-[0-9]+" class="outlier">' "$page")" "<tr id=\"run-$far\" class=\"outlier\">" "  run $far's row alone is marked an outlier"
row=$(python3 - "$page" "$far" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
row = re.search(r'<tr id="run-%s".*?</details></td></tr>\n' % sys.argv[2], s, re.S).group(0)
badge = re.search(r'<span class="badge"[^>]*>([^<]*)</span>', row)
ticks = re.search(r'<details class="ticks"><summary>([^<]*)</summary>\n<p class="legend">([^<]*)</p>.*?<thead><tr>(.*?)</tr></thead>\n<tbody>\n(.*?)</tbody>', row, re.S)
print(badge.group(1) if badge else None)
print(ticks.group(1) if ticks else None)
print(re.sub(r"\d+ ticks", "N ticks", ticks.group(2)) if ticks else None)
print(re.sub(r"<[^>]+>", "|", ticks.group(3)) if ticks else None)
print(ticks.group(4).count("<tr>") if ticks else None)
PY
)
is "$(sed -n 1p <<<"$row")" "outlier, z = 8.8" "  its row has the badge"
is "$(sed -n 2p <<<"$row")" "ticks of this outlier" "  and its ticks in its details"
is "$(sed -n 3p <<<"$row")" "200 of its N ticks, evenly spaced (the first and the last among them); each a rate or level over the interval before it" \
    "  200 of them, saying so"
like "$(sed -n 4p <<<"$row")" "^\|time \(s\)\|\|.*\|user %\|\|system %\|.*\|MemFree MiB\|" "  time and the charts' series"
is "$(sed -n 5p <<<"$row")" 200 "  200 rows"
is "$(grep -c '<details class="ticks">' "$page")" 1 "  no other run's ticks are in the page"
if command -v chromium >/dev/null; then
    wait "$chromium_pid"
    ok "Chromium renders the page" test -s "$TMP/dom.html"
    [ -s "$TMP/dom.html" ] || diag "# chromium said: $(tail -n 5 "$TMP/chromium.err")"
    like "$(cat "$TMP/dom.html")" "record runs [0-9.]+ % slower with slow than with fast" "the rendered page carries the ratio sentence"
    like "$(cat "$TMP/dom.html")" "&lt;script&gt;alert\(1\)&lt;/script&gt;" "the hostile label is text in the DOM"
    is "$(grep -c '<script' "$TMP/dom.html")" 0 "and no script element came of it"
    is "$(grep -c '<img' "$TMP/dom.html")" 0 "nor an image of the outlier's label"
    like "$(cat "$TMP/dom.html")" "<a href=\"#run-$far\">run $far</a>" "the rendered summary links to the outlier's row"
    like "$(cat "$TMP/dom.html")" "<tr id=\"run-$far\" class=\"outlier\">" "  which is there, marked"
    # The eight charts in their order, each "svg" (drawn) or the title of
    # its all-zero line. Those that always have data are drawn; the swap
    # chart is drawn exactly when the runs swapped; record has no latency.
    seq=$(grep -oE '<svg|class="zero">[^:<]*' "$TMP/dom.html" | sed 's/^<svg$/svg/; s/^class="zero">//' | paste -sd'|')
    chart() { printf '%s' "$seq" | cut -d'|' -f"$1"; }
    is "$(printf '%s\n' "$seq" | tr '|' '\n' | wc -l)" 8 "the DOM holds the eight charts ($seq)"
    swapped=$(q "select count(*) from metric m join run r on r.id = m.run_id where r.status = 'ok' and m.name = 'swap.io_kb' and m.value > 0")
    is "$(chart 1)" "$([ "$swapped" -gt 0 ] && echo svg || echo 'swap rate')" "  the swap chart is drawn only if a run swapped ($swapped did)"
    is "$(chart 2)" svg "  CPU utilisation is drawn"
    is "$(chart 3)" svg "  free memory and free swap are drawn"
    like "$(chart 4)" "^(svg|PSI memory stall and heartbeat lateness)$" "  PSI and the heartbeat: drawn, or said to be zero"
    like "$(chart 5)" "^(svg|reclaim)$" "  reclaim: drawn, or said to be zero"
    is "$(chart 6)" svg "  the headline per run is drawn"
    is "$(chart 7)" "reclaim and compaction stall latency (--trace-reclaim)" "  no run traced reclaim: that chart is one line saying so"
    is "$(chart 8)" "the workload's own latency" "  record measures no latency: nor is that one drawn"
    ge "$(stat -c %s "$TMP/shot.png" 2>/dev/null || echo 0)" 20000 "a screenshot of the page has content"
else
    for i in $(seq 17); do skip "chromium is not installed"; done
fi
# The pressmark that measured each run is part of its environment.
like "$(q "select value from run_meta m join run r on r.id = m.run_id where r.label = 'fast' and m.key = 'pressmark.version' limit 1")" "^[0-9a-z.+~-]+" "every run stores the pressmark version that measured it"
q "UPDATE run_meta SET value = 'v0.9-old' WHERE key = 'pressmark.version' AND run_id IN (SELECT id FROM run WHERE label = 'fast')"
like "$("$PM" compare fast slow)" "pressmark.version: fast=v0.9-old, slow=" "compare lists a pressmark version difference among the environment's"
SEEDWORDS="[Ss]eeds? 00[0-9]\\b|[Ss]eeds'|[Ss]eed's|[Ss]eed tables?|[Tt]he seeds\\b"
is "$(cat "$TMP"/png/*.gp "$TMP"/png/*.dat "$page" | grep -cE "$SEEDWORDS")" 0 "charts, their scripts and the report never call the reference reports seeds"

# Like against like: a suite's parts of one workload that are set
# otherwise (usemem writing in sequence and reading at random; here a
# timeout) are two comparisons, each against its own part's cell with the
# baseline's axis values; a part with no such cell is shown side by side,
# unjudged, saying why; a part set as the baseline cell but for its own
# axis has the baseline cell itself. A suite of four parts of record, its
# runs relabelled as usemem's in robot-memory-quick's cells further down.
LIKE="$TMP/like.db"
cat > "$TMP/like.ini" <<'INI'
[global]
runs = 3
baseline = cap 60ms

[seq]
workload = record
command = true
interval = 50ms, 60ms
label = cap {interval}

[rand]
workload = record
command = true
timeout = 1h
interval = 50ms, 60ms
label = rand cap {interval}

[other]
workload = record
command = true
timeout = 2h
interval = 70ms, 80ms
label = other {interval}

[t]
workload = record
command = true
interval = 60ms
timeout = 1h, 2h
label = t {timeout}
INI
setup "a suite of four parts of one workload" env PRESSMARK_DB="$LIKE" "$PM" suite run --quiet "$TMP/like.ini"
lq() { sqlite3 -batch "$LIKE" "$1"; }
like_values() {  # like_values LABEL METRIC V1 V2 V3: the cell's runs' values, in run order
    local l=$1 m=$2 i=3 id
    for id in $(lq "select id from run where label = '$l' order by id"); do
        lq "insert into metric (run_id, name, value, unit, direction) values ($id, '$m', ${!i}, 's', 'lower')
            on conflict (run_id, name) do update set value = excluded.value"
        i=$((i + 1))
    done
}
like_values 'cap 60ms' time.elapsed_s 10 10.2 9.8
like_values 'cap 50ms' time.elapsed_s 10.1 9.9 10
like_values 'rand cap 60ms' time.elapsed_s 2 2.1 1.9
like_values 'rand cap 50ms' time.elapsed_s 4 4.1 3.9
like_values 'other 70ms' time.elapsed_s 3 3.1 2.9
like_values 'other 80ms' time.elapsed_s 5 5.1 4.9
like_values 't 1h' time.elapsed_s 10 10.2 9.8
like_values 't 2h' time.elapsed_s 20 20.1 19.9
lc=$("$PM" compare --db "$LIKE" --suite)
is "$?" 0 "compare --suite of parts set otherwise exits 0"
is "$(printf '%s\n' "$lc" | grep -c '^record (.*), suite 1 (like): ')" 4 "  four comparisons, one per part"
like "$lc" "^record \(seq\), suite 1 \(like\): 2 cells, baseline cap 60ms, alpha 0\.05 for a family of [0-9]+ comparisons;" "  the baseline cell's part against it"
like "$lc" "^record \(rand\), suite 1 \(like\): 2 cells, baseline rand cap 60ms, alpha 0\.05 for a family of [0-9]+ comparisons;" "  the other part against its own cell of the baseline's interval"
# (the family's size, and so the change its runs would find, depends on
# the real runs' %CPU columns: N and X here; t44 checks both exactly)
fam() { sed -E 's/over [0-9]+ comparisons/over N comparisons/g; s/family of [0-9]+ comparisons/family of N comparisons/g;
                s/find a change of [0-9.]+ %/find a change of X %/g'; }
is "$(printf '%s\n' "$lc" | grep '%: ' | fam)" "10/10 = 100.0 %: no significant difference between cap 50ms and cap 60ms (p = 1, adjusted 1 over N comparisons, n = 3/3); these runs would find a change of X % or more at 80 % power
4/2 = 200.0 %: record runs 100.0 % slower with rand cap 50ms than with rand cap 60ms (p < 0.001, adjusted < 0.001 over N comparisons, n = 3/3)
10/10 = 100.0 %: no significant difference between t 1h and cap 60ms (p = 1, adjusted 1 over N comparisons, n = 3/3); these runs would find a change of X % or more at 80 % power
20/10 = 200.0 %: record runs 100.0 % slower with t 2h than with cap 60ms (p < 0.001, adjusted < 0.001 over N comparisons, n = 3/3)" \
    "  each cell judged against its own part's baseline, and no other"
like "$lc" "^record \(t\), suite 1 \(like\): 3 cells, baseline cap 60ms, alpha 0\.05 for a family of [0-9]+ comparisons;" "  a part set as the baseline but for its axis: the baseline cell itself"
is "$(printf '%s\n' "$lc" | grep '^record (other)')" "record (other), suite 1 (like): 2 cells, no baseline, alpha 0.05; mean ±sd of ok runs" \
    "  a part without the baseline's interval has no baseline"
is "$(printf '%s\n' "$lc" | grep '^not judged')" "not judged: the baseline cap 60ms differs from these cells in more than their axes (timeout), and none of them has its interval=60ms" \
    "  and says why in one line"
is "$(printf '%s\n' "$lc" | sed -n '/^record (other)/,/^record (t)/p' | sed '$d' | grep -Ec ' base |change|p[=<]|%: ')" 0 "  its cells side by side: no base, no change, no sentence"
"$PM" compare --db "$LIKE" --suite --format json > "$TMP/like.json"
is "$(python3 "$ROOT/tests/json_check.py" compare < "$TMP/like.json")" ok "  the JSON matches docs/json/compare.schema.json"
is "$(python3 -c '
import json, sys
for c in json.load(open(sys.argv[1]))["comparisons"]:
    judged = [l["label"] for l in c["labels"] if "vs_baseline" in l["metrics"]["time.elapsed_s"] or "sentence" in l]
    print(c["workload"], c.get("group"), c["baseline"], c.get("not_judged", "-"), ",".join(judged))' "$TMP/like.json")" \
"record seq cap 60ms - cap 50ms
record rand rand cap 60ms - rand cap 50ms
record other None the baseline cap 60ms differs from these cells in more than their axes (timeout), and none of them has its interval=60ms 
record t cap 60ms - t 1h,t 2h" \
    "  JSON: each comparison's group and baseline, or why it has none, and only judged cells tested"
"$PM" compare --db "$LIKE" --suite --fail-on-regression --junit "$TMP/like.xml" > "$TMP/like.v" 2>&1
is "$?" 1 "  --fail-on-regression: the rand part regressed against its own baseline, exit 1"
is "$(grep -E '^(REGRESSION|cannot judge)' "$TMP/like.v" | fam)" "REGRESSION record (rand): time.elapsed_s elapsed is 100.0 % worse with rand cap 50ms than with rand cap 60ms (2 -> 4 s, p < 0.001, Holm-adjusted < 0.001 over N comparisons)
cannot judge record (other): the baseline cap 60ms differs from these cells in more than their axes (timeout), and none of them has its interval=60ms
REGRESSION record (t): time.elapsed_s elapsed is 100.0 % worse with t 2h than with cap 60ms (10 -> 20 s, p < 0.001, Holm-adjusted < 0.001 over N comparisons)" \
    "  the findings name the part and its baseline; the part without one cannot be judged"
is "$(grep -o '<testsuite name="[^"]*"' "$TMP/like.xml" | paste -sd' ')" \
    '<testsuite name="pressmark.record.seq" <testsuite name="pressmark.record.rand" <testsuite name="pressmark.record.other" <testsuite name="pressmark.record.t"' \
    "  JUnit: a testsuite per part, each its own name"
n=$(sed -n 's/.*<testsuite name="pressmark.record.other" tests="\([0-9]*\)" failures="0" errors="\1".*/\1/p' "$TMP/like.xml")
is "$(grep -c '<error type="unjudged" message="the baseline cap 60ms differs' "$TMP/like.xml"):${n:-none}" "12:12" \
    "  the unjudged part's 12 cases (2 cells x 6 metrics) are errors, each saying why"
"$PM" report --db "$LIKE" --suite --out "$TMP/like-rep" > /dev/null
is "$?" 0 "report --suite of parts set otherwise exits 0"
lp="$TMP/like-rep/report.html"
is "$(grep -o '<h3>record ([a-z]*): elapsed</h3>' "$lp" | paste -sd' ')" \
    "<h3>record (seq): elapsed</h3> <h3>record (rand): elapsed</h3> <h3>record (other): elapsed</h3> <h3>record (t): elapsed</h3>" \
    "  the summary: a table per part"
is "$(grep -c '<p class="unjudged">not judged: the baseline cap 60ms differs' "$lp")" 3 "  the unjudged part says why, in the summary and its section"
is "$(grep -o '<section id="w-[^"]*"' "$lp" | sort -u | wc -l)" 4 "  each part its own section"
ok "  and its own charts" test -s "$TMP/like-rep/charts/record.rand-headline.svg" -a -s "$TMP/like-rep/charts/record.other-headline.svg"
bad "compare --suite --workload with no cells" "^pressmark compare: --workload: suite 1 \(like\) has no cells of workload chat$" \
    compare --db "$LIKE" --suite --workload chat

# robot-memory-quick itself: its usemem-seq and usemem-rand parts, its
# baseline cap 512M (the runs above, relabelled as its usemem cells).
ROBOT="$TMP/robot.db"
cp "$LIKE" "$ROBOT"
sqlite3 -batch "$ROBOT" "update suite set text = readfile('$ROOT/suites/robot-memory-quick.ini'), name = 'robot-memory-quick';
    delete from suite_cell;
    update run set workload = 'usemem', label = replace(replace(label, '50ms', '256M'), '60ms', '512M');
    insert into metric (run_id, name, value, unit, direction)
        select run_id, 'usemem.mb_per_s', 200 - 10 * value, 'MB/s', 'higher' from metric where name = 'time.elapsed_s'"
i=0
for cell in 'usemem|cap 256M' 'usemem|cap 512M' 'usemem|rand cap 256M' 'usemem|rand cap 512M' 'pagefault|cap 256M' \
            'pagefault|cap 512M' 'stutter|cap 256M' 'stutter|cap 512M' 'filestream|cap 256M' 'filestream|cap 512M'; do
    sqlite3 -batch "$ROBOT" "insert into suite_cell (suite_id, idx, label, workload, headline, axes) values
        (1, $i, '${cell#*|}', '${cell%|*}', 'usemem.mb_per_s', '{\"mem-cap\":\"$(echo "${cell#*|}" | grep -o '[0-9]*M$')\"}')"
    i=$((i + 1))
done
rc=$("$PM" compare --db "$ROBOT" --suite --workload usemem)
is "$(printf '%s\n' "$rc" | grep -E '^usemem|%: ' | sed 's/; mean.*//' | fam)" \
"usemem (usemem-seq), suite 1 (robot-memory-quick): 2 cells, baseline cap 512M, alpha 0.05 for a family of N comparisons
100/100 = 100.0 %: no significant difference between cap 256M and cap 512M (p = 1, adjusted 1 over N comparisons, n = 3/3); these runs would find a change of X % or more at 80 % power
usemem (usemem-rand), suite 1 (robot-memory-quick): 2 cells, baseline rand cap 512M, alpha 0.05 for a family of N comparisons
160/180 = 88.9 %: usemem runs 11.1 % slower with rand cap 256M than with rand cap 512M (p < 0.001, adjusted < 0.001 over N comparisons, n = 3/3)" \
    "robot-memory-quick: usemem's random reads against rand cap 512M, never against the sequential cap 512M"
# A workload's own figures (a server's INFO, usemem's pages): --long ends
# with each of its table's, and the report's run details list them. In a
# database of their own, beside the record runs above.
own=(env PRESSMARK_DB="$TMP/own.db" "$PM")
setup "usemem runs of two labels" sh -c '"$@" run usemem --quiet --size 8M --runs 2 --interval 50ms --label u1 &&
    "$@" run usemem --quiet --size 8M --runs 2 --interval 50ms --label u2' sh "${own[@]}"
long=$("${own[@]}" compare --long u1 u2)
pages=$(( 8 * 1048576 / $(getconf PAGESIZE) ))
grouped=$(python3 -c 'import sys; print(f"{int(sys.argv[1]):,}")' "$pages")
like "$(grep -A1 '^usemem.pages_touched ' <<<"$long")" "mean +$grouped\.0 +$grouped\.0$" \
    "--long has the workload's own figures: usemem.pages_touched, $pages a run"
like "$long" "^usemem.bad_pages \(pages, lower is better\) +n +2 +2$" "  every one of its table's, usemem.bad_pages too"
unlike "$("${own[@]}" compare u1 u2)" "pages_touched" "  the default table keeps to the reports' columns"
"${own[@]}" report --out "$TMP/own-rep" >/dev/null
is "$(grep -c "^usemem: .*pages_touched $grouped pages" "$TMP/own-rep/report.html")" 4 \
   "the report's run details list each run's own figures"
# A database is data: a figure named with a line break, or with an escape
# in its unit, starts no line of its own in the details.
sqlite3 "$TMP/own.db" "insert into metric values (1, 'usemem.evil' || char(10) || 'FAKE LINE', 1, 'count', 'none');
    update metric set unit = 'x' || char(27) || '[2J' where run_id = 1 and name = 'usemem.bad_pages'"
"${own[@]}" report --out "$TMP/own-rep2" >/dev/null
is "$(grep -c '^FAKE LINE' "$TMP/own-rep2/report.html")" 0 "  a hostile figure's name starts no line of the page"
is "$(grep -c '^usemem: bad_pages 0, bytes' "$TMP/own-rep2/report.html")" 1 "  and a hostile unit is left out, its figure kept"

done_testing
