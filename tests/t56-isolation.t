#!/bin/bash
# The isolation figures (what a cell keeps beside a sibling hog, as a share
# of the same cell without it): compare --suite's table, its JSON, CSV and
# the report's section, over a suite made in SQL with every value set by
# hand, so each share is checked against arithmetic done here; pairing
# outside suites; a cell without its cell without the hog; hostile labels
# and sibling specs. No run is made; reads and writes nothing but its own
# directory.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1
# Beside the tests that change the machine (FREE_TESTS): a state
# directory of its own, so no command here recovers their runs' leftovers.
export PRESSMARK_STATE_DIR="$TMP/state"
mkdir -m 700 "$PRESSMARK_STATE_DIR"
PY=/usr/bin/python3
export PRESSMARK_DB="$TMP/iso.db"
# The verdict pool's schema and machine, its runs replaced by the suite's.
cp "$ROOT/tests/fixtures/verdict-pool.db" "$PRESSMARK_DB"
chmod 600 "$PRESSMARK_DB"
# Suite "iso": chat with a sibling axis (none, usemem) and a protection
# axis (mem-low 0, 200M), three runs a cell; and usemem, whose every cell
# runs beside the hog, so none has a cell without it. Cell 3's label and
# its runs' sibling spec are hostile (markup, an escape sequence).
# msg/s: alone 90/100/110 (mean 100), alone-low 114/120/126 (120),
# hog 70/80/90 (80), hog-low 90/95/100 (95); p99 us (lower is better):
# alone 1000, alone-low 800, hog 2000, hog-low 1200 (means); the hog's
# passes/s: hog 1.8/2.0/2.2 (2.0), hog-low 0.4/0.5/0.6 (0.5); its MB/s:
# hog 1200, hog-low 400 (means).
q "PRAGMA foreign_keys = OFF;
DELETE FROM tick; DELETE FROM tick_series; DELETE FROM run_source; DELETE FROM latency_hist;
DELETE FROM metric; DELETE FROM run_meta; DELETE FROM run; DELETE FROM suite_run; DELETE FROM suite_cell; DELETE FROM suite;
INSERT INTO suite(id, uuid, name, path, digest, text, created_ns, seed, state) VALUES
 (1, '00000000-0000-4000-8000-000000000001', 'iso', 'iso.ini', '0123456789abcdef',
  '[global]
name = iso
runs = 3
baseline = alone

[chat]
workload = chat
rooms = 4
sibling = none, usemem --size 300M
mem-low = 0, 200M

[usemem]
workload = usemem
size = 100M
sibling = usemem --size 300M
mem-low = 0, 200M
', 1793500000000000000, 1, 'complete');
INSERT INTO suite_cell(suite_id, idx, label, workload, headline, axes) VALUES
 (1, 0, 'alone', 'chat', 'chat.msgs_per_s', '{\"sibling\":\"none\",\"mem-low\":\"0\"}'),
 (1, 1, 'alone-low', 'chat', 'chat.msgs_per_s', '{\"sibling\":\"none\",\"mem-low\":\"200M\"}'),
 (1, 2, 'hog', 'chat', 'chat.msgs_per_s', '{\"sibling\":\"usemem --size 300M\",\"mem-low\":\"0\"}'),
 (1, 3, 'hog-low <b>&amp;' || char(27) || '[31m', 'chat', 'chat.msgs_per_s',
  '{\"sibling\":\"usemem --size 300M\",\"mem-low\":\"200M\"}'),
 (1, 4, 'um', 'usemem', 'usemem.mb_per_s', '{\"mem-low\":\"0\"}'),
 (1, 5, 'um-low', 'usemem', 'usemem.mb_per_s', '{\"mem-low\":\"200M\"}');
CREATE TEMP TABLE spec(id INTEGER PRIMARY KEY, cell INTEGER, workload TEXT, head REAL, p99 REAL, pps REAL, hogmb REAL);
INSERT INTO spec(id, cell, workload, head, p99, pps, hogmb) VALUES
 (1, 0, 'chat', 90, 900, NULL, NULL), (2, 0, 'chat', 100, 1000, NULL, NULL), (3, 0, 'chat', 110, 1100, NULL, NULL),
 (4, 1, 'chat', 114, 760, NULL, NULL), (5, 1, 'chat', 120, 800, NULL, NULL), (6, 1, 'chat', 126, 840, NULL, NULL),
 (7, 2, 'chat', 70, 1800, 1.8, 1000), (8, 2, 'chat', 80, 2000, 2.0, 1200), (9, 2, 'chat', 90, 2200, 2.2, 1400),
 (10, 3, 'chat', 90, 1100, 0.4, 300), (11, 3, 'chat', 95, 1200, 0.5, 400), (12, 3, 'chat', 100, 1300, 0.6, 500),
 (13, 4, 'usemem', 500, NULL, 1.0, 700), (14, 4, 'usemem', 600, NULL, 1.2, 800),
 (15, 5, 'usemem', 700, NULL, 0.9, 600), (16, 5, 'usemem', 800, NULL, 1.1, 700);
INSERT INTO run(id, uuid, machine_id, label, workload, params, started_ns, ended_ns, interval_ns, status)
 SELECT s.id, printf('00000000-0000-4000-9000-%012d', s.id), 1, c.label, s.workload, '',
        1793500000000000000 + s.id * 1000000000, 1793500000500000000 + s.id * 1000000000, 1000000000, 'ok'
 FROM spec s JOIN suite_cell c ON c.idx = s.cell;
INSERT INTO run_meta(run_id, key, value) SELECT id, 'suite.uuid', '00000000-0000-4000-8000-000000000001' FROM spec;
INSERT INTO run_meta(run_id, key, value) SELECT id, 'suite.id', '1' FROM spec;
INSERT INTO run_meta(run_id, key, value) SELECT id, 'suite.cell_index', cell FROM spec;
INSERT INTO run_meta(run_id, key, value)
 SELECT id, 'sibling', CASE WHEN cell = 3 THEN 'usemem --size 300M <script>x</script> ' || char(27) || '[2J'
                       ELSE 'usemem --size 300M' END FROM spec WHERE cell >= 2;
INSERT INTO suite_run(suite_id, seq, round, cell, run_id) SELECT 1, id - 1, 1, cell, id FROM spec;
INSERT INTO metric(run_id, name, value, unit, direction)
 SELECT id, 'chat.msgs_per_s', head, 'msg/s', 'higher' FROM spec WHERE workload = 'chat';
INSERT INTO metric(run_id, name, value, unit, direction)
 SELECT id, 'chat.latency_p99_us', p99, 'us', 'lower' FROM spec WHERE workload = 'chat';
INSERT INTO metric(run_id, name, value, unit, direction)
 SELECT id, 'usemem.mb_per_s', head, 'MB/s', 'higher' FROM spec WHERE workload = 'usemem';
INSERT INTO metric(run_id, name, value, unit, direction)
 SELECT id, 'sibling.passes_per_s', pps, 'passes/s', 'higher' FROM spec WHERE pps IS NOT NULL;
INSERT INTO metric(run_id, name, value, unit, direction)
 SELECT id, 'sibling.passes', pps * 10, 'count', 'higher' FROM spec WHERE pps IS NOT NULL;
INSERT INTO metric(run_id, name, value, unit, direction)
 SELECT id, 'sibling.usemem.mb_per_s', hogmb, 'MB/s', 'higher' FROM spec WHERE hogmb IS NOT NULL;"
is "$(q "select count(*) from run")" 16 "the suite's 16 runs are in the database"

"$PM" compare --suite > text.txt 2> text.err
is "$?" 0 "compare --suite over a suite with sibling cells exits 0"
grep -q "^Isolation: what chat keeps beside a sibling hog, as a share of the same cell without it$" text.txt
is "$?" 0 "  its text has an Isolation table for chat"
HOG=$(grep '^hog  ' text.txt)
like "$HOG" '^hog +usemem --size 300M +alone +80\.0 % \[[0-9.]+, [0-9.]+\] +50\.0 % \[[0-9.]+, [0-9.]+\] +3/3 +2 +1,200\.0 MB/s +-$' \
     "  hog: msg/s 80/100 = 80.0 % kept, p99 1000/2000 = 50.0 % kept (lower is better: without/with), n 3/3, the hog's 2 passes/s and 1,200 MB/s, unprotected itself"
like "$(grep '^hog-low' text.txt)" 'alone-low +79\.2 % \[.*\] +66\.7 % \[.*\] +3/3 +0\.5 +400\.0 MB/s +25\.0 % \[[0-9.]+, [0-9.]+\]$' \
     "  hog-low: paired with alone-low (mem-low 200M), not alone: 95/120 = 79.2 % and 800/1200 = 66.7 % kept; its hog at 0.5/2.0 = 25.0 % of the unprotected cell's"
like "$(cat text.txt)" "um: not paired: no cell without the hog: none of usemem's cells has this cell's settings with sibling none" \
     "  a cell without its cell without the hog says so"
like "$(grep '^um  ' text.txt)" '^um +usemem --size 300M +\(none: see below\) +- +1\.1 +750\.0 MB/s +-$' \
     "  and shows no share for it, only its hog's progress"
like "$(cat text.txt)" "^kept: the cell's mean beside the hog as a share of the same cell's mean without it, oriented so that 100 % kept everything .*\[low, high\]: its 95 % interval, Welch's test inverted \(unbounded, or all but an interval, where" \
     "  a footnote says what a share is and how its interval was drawn"
is "$(grep -c $'\x1b' text.txt)" 0 "  no escape byte from the database reaches the terminal"
like "$(grep '^hog-low' text.txt)" 'hog-low <b>&amp;\\x1b\[31m +usemem --size 300M <script>x</script> \\x1b\[2J' \
     "  the hostile label and spec are shown with their control characters as \\\\xNN"
is "$(awk '/^Isolation: what chat/ { f = 1 } f && /^$/ && ++b == 2 { exit } f && /^(alone|hog)/ { print $1 }' text.txt | tr '\n' ' ')" "hog hog-low " \
   "  cells with sibling none are never rows of the isolation table"

# The JSON: the schema, the shares against arithmetic done here, the
# intervals, n and the hog.
"$PM" compare --suite --format json > iso.json
is "$?" 0 "compare --suite --format json exits 0"
is "$($PY "$ROOT/tests/json_check.py" compare < iso.json)" ok "  its JSON matches docs/json/compare.schema.json"
cat > check.py <<'PY'
import json, sys
from scipy import stats
d = json.load(open(sys.argv[1]))["isolation"]
cells = {c["cell"].split(" ")[0]: c for c in d["cells"]}
mean = lambda v: sum(v) / len(v)
want = {  # cell: (without, [(metric, share by hand)], hog passes/s, hog MB/s, hog share of unprotected)
    "hog": ("alone", [("chat.msgs_per_s", [90, 100, 110], [70, 80, 90]),
                      ("chat.latency_p99_us", [1800, 2000, 2200], [900, 1000, 1100])], 2.0, 1200, None),
    "hog-low": ("alone-low", [("chat.msgs_per_s", [114, 120, 126], [90, 95, 100]),
                              ("chat.latency_p99_us", [1100, 1200, 1300], [760, 800, 840])],
                0.5, 400, ([1.8, 2.0, 2.2], [0.4, 0.5, 0.6])),
}
# A share is mean(b) / mean(a) (rates: with / without; p99: without / with);
# its interval's ends are where Welch's statistic of b against end * a
# reaches the t of p = 0.05 at the degrees of freedom of Welch's test of b
# against a (scipy's), and 1 is outside it exactly when that test's p is
# below 0.05.
def welch_ends(what, a, b, low, high):
    ma, mb = mean(a), mean(b)
    va = sum((x - ma) ** 2 for x in a) / (len(a) - 1) / len(a)
    vb = sum((x - mb) ** 2 for x in b) / (len(b) - 1) / len(b)
    df = (va + vb) ** 2 / (va ** 2 / (len(a) - 1) + vb ** 2 / (len(b) - 1))
    c2 = stats.t.ppf(0.975, df) ** 2
    for end in (low, high):
        lhs, rhs = (mb - end * ma) ** 2, c2 * (vb + end * end * va)
        if abs(lhs - rhs) > 1e-7 * rhs:
            bad.append("%s: at the end %r, %r against %r" % (what, end, lhs, rhs))
    if (not low <= 1 <= high) != (stats.ttest_ind(b, a, equal_var=False).pvalue < 0.05):
        bad.append("%s: [%r, %r] and 1 against Welch's p" % (what, low, high))
bad = []
if sorted(cells) != ["hog", "hog-low", "um", "um-low"]:
    bad.append("cells %s" % sorted(cells))
for name, (base, shares, pps, mb, kept) in want.items():
    c = cells[name]
    if c["without_hog"] != base:
        bad.append("%s paired with %r" % (name, c["without_hog"]))
    got = [(s["metric"], s["share"]) for s in c["shares"]]
    byhand = [(m, mean(b) / mean(a)) for m, a, b in shares]
    if [g[0] for g in got] != [s[0] for s in byhand] or any(abs(g[1] - s[1]) > 1e-12 for g, s in zip(got, byhand)):
        bad.append("%s shares %r, by hand %r" % (name, got, byhand))
    for s, (m, a, b) in zip(c["shares"], shares):
        if not (s["low"] is not None and s["low"] < s["share"] < s["high"]):
            bad.append("%s %s interval [%r, %r] around %r" % (name, s["metric"], s["low"], s["high"], s["share"]))
        else:
            welch_ends("%s %s" % (name, m), a, b, s["low"], s["high"])
        if (s["n_with"], s["n_without"]) != (3, 3):
            bad.append("%s %s n %r/%r" % (name, s["metric"], s["n_with"], s["n_without"]))
    h = c["hog"]
    if abs(h["passes_per_s"] - pps) > 1e-12 or abs(h["headline"] - mb) > 1e-9 or h["metric"] != "sibling.usemem.mb_per_s":
        bad.append("%s hog %r" % (name, h))
    if kept is None and (h["protected"] or h["share_of_unprotected"] is not None):
        bad.append("%s unprotected, yet %r" % (name, h))
    if kept is not None:
        share = mean(kept[1]) / mean(kept[0])
        if (not h["protected"] or h["unprotected_cell"] != "hog" or abs(h["share_of_unprotected"] - share) > 1e-12
                or not h["low"] < share < h["high"]):
            bad.append("%s hog kept %r, by hand %r" % (name, h, share))
        else:
            welch_ends("%s hog" % name, kept[0], kept[1], h["low"], h["high"])
for name in ("um", "um-low"):
    c = cells[name]
    if c["without_hog"] is not None or c["shares"] or "no cell without the hog" not in c["not_paired"]:
        bad.append("%s invented a pair: %r" % (name, c))
if d["interval"] != "welch-inverted" or d["level"] != 0.95:
    bad.append("interval %r at %r" % (d["interval"], d["level"]))
print("\n".join(bad) if bad else "ok")
PY
is "$($PY check.py iso.json)" ok \
   "  shares as hand arithmetic gives them (rates with/without, p99 without/with), intervals around them whose ends Welch's p puts at 0.05 (scipy), n 3/3, the hog's progress and its share of the unprotected cell's; no pair invented"

# The intervals are drawn without resampling: --bootstrap and --seed do
# not move them.
"$PM" compare --suite --format json --bootstrap 500 --seed 7 > s7a.json
is "$($PY -c 'import json,sys; a=json.load(open(sys.argv[1]))["isolation"]; b=json.load(open(sys.argv[2]))["isolation"]
print(a == b, len(a["cells"]))' s7a.json iso.json)" "True 4" \
   "  --bootstrap and --seed leave the isolation intervals as they are"

# A cell without the hog whose mean cannot be told from 0 (msg/s 1, 299
# and 0: mean 100, its standard error 99): the share's set is every ratio
# but an interval, said as such in text and JSON, never a made-up [low, high].
cp "$PRESSMARK_DB" open.db
sqlite3 -batch open.db "UPDATE metric SET value = CASE run_id WHEN 1 THEN 1 WHEN 2 THEN 299 ELSE 0 END
    WHERE name = 'chat.msgs_per_s' AND run_id IN (1, 2, 3)"
like "$(PRESSMARK_DB=open.db "$PM" compare --suite | grep '^hog  ')" " 80\.0 % \[all but -23\.7 to 14\.3\] +50\.0 % \[" \
     "an open share: 80.0 % and all but an interval (-23.7 to 14.3 %: where Welch rejects), the p99 share an interval"
is "$(PRESSMARK_DB=open.db "$PM" compare --suite --format json | $PY -c '
import json,sys
c = [c for c in json.load(sys.stdin)["isolation"]["cells"] if c["cell"] == "hog"][0]
print([(s["share_shape"], round(s["low"], 3), round(s["high"], 3)) for s in c["shares"]])')" \
   "[('outside', -0.237, 0.143), ('interval', 0.383, 0.653)]" "  JSON: its shape and the interval it leaves out"

# CSV: the isolation figures alone (one table a file).
"$PM" compare --suite --isolation --format csv > iso.csv
is "$?" 0 "compare --suite --isolation --format csv exits 0"
is "$(head -1 iso.csv)" "workload,group,cell,sibling,without_hog,not_paired,metric,unit,direction,n_with,n_without,mean_with,mean_without,share,share_low,share_high,hog_n,hog_passes_per_s,hog_metric,hog_headline,hog_unit,protected,unprotected_cell,hog_share,hog_share_low,hog_share_high" \
   "  its header"
is "$($PY -c '
import csv, sys
r = list(csv.DictReader(open(sys.argv[1])))
print(len(r), {len(x) for x in r}, [(x["cell"], x["metric"], round(float(x["share"]), 4)) for x in r if x["cell"] == "hog"])' iso.csv)" \
   "6 {26} [('hog', 'chat.msgs_per_s', 0.8), ('hog', 'chat.latency_p99_us', 0.5)]" \
   "  a row per cell and figure (an unpaired cell one row), every row 26 fields"
"$PM" compare --suite --isolation > only.txt
is "$(head -1 only.txt)" "Isolation: what chat keeps beside a sibling hog, as a share of the same cell without it" \
   "  --isolation in text: the isolation tables alone"
"$PM" compare --suite --format csv > all.csv
is "$(head -1 all.csv | cut -d, -f1-4)" "workload,label,baseline,metric" "  without --isolation, compare's CSV is as it was"

# The report: the section, everything quoted.
"$PM" report --suite --out "$TMP/rep" > /dev/null 2> rep.err
is "$?" 0 "report --suite exits 0"
H="$TMP/rep/report.html"
is "$(grep -c '<h3>Isolation: what chat keeps beside a sibling hog' "$H")" 1 "  the report has the isolation section"
like "$(grep '<td>hog-low' "$H")" '<td>hog-low &lt;b&gt;&amp;amp;\\x1b\[31m</td><td>usemem --size 300M &lt;script&gt;x&lt;/script&gt; \\x1b\[2J</td><td>alone-low</td><td class="num">79\.2 % \[' \
     "  its hostile label and spec HTML-escaped, control characters written as \\xNN (the table's cells)"
is "$(grep -c '<script>x' "$H")" 0 "  no markup from the database"
is "$(grep -c $'\x1b' "$H")" 0 "  no escape byte"
like "$(grep 'class="unjudged">um: not paired' "$H")" "no cell without the hog" "  the unpaired cell says why"

# Outside suites: a hog label against the baseline label, which ran
# without one; a baseline that ran with one pairs nothing.
q "UPDATE run SET label = 'plain-alone' WHERE id IN (1, 2, 3); UPDATE run SET label = 'plain-hog' WHERE id IN (7, 8, 9)"
"$PM" compare --baseline plain-alone plain-hog --isolation > labels.txt
is "$?" 0 "compare --baseline A B --isolation (labels, no suite) exits 0"
like "$(grep '^plain-hog' labels.txt)" '^plain-hog +usemem --size 300M +plain-alone +80\.0 % \[.*\] +50\.0 % \[.*\] +3/3 ' \
     "  the hog label is held against the baseline label: the same shares"
"$PM" compare --baseline plain-hog plain-alone --isolation > rev.txt
like "$(cat rev.txt)" "plain-hog: not paired: no label without the hog to hold it against: the baseline plain-hog is this label" \
     "  a hog label as the baseline pairs nothing, and says so"

bad "--isolation with --history" "^pressmark compare: --history: judges each label's nights against its own history; it takes no --isolation$" \
    compare --history --isolation
done_testing
