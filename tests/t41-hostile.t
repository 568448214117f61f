#!/bin/bash
# Strings from a database are data in every output: labels, workload names,
# units and reasons that try to run commands (gnuplot backticks, system()),
# escape --out, inject script lines, pass as spreadsheet formulas, break
# JSON, HTML or markdown, or drive the terminal.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1
BT='bt `touch pwned-backtick`'
SQ="sq'; system('touch pwned-system'); print '"
NL=$'nl\nsystem("touch pwned-newline")'
ESC=$'esc \e]0;owned\a\e[31mred\e[0m'
FORMULA='=HYPERLINK("http://example.invalid","x")'
# gnuplot 5.4 misreads doubled quotes that follow each other or open a string.
QQ="''lead''and''''runs'"
setup "a plain baseline" "$PM" record --quiet --label base --runs 2 --interval 50ms -- sleep 0.1
for l in "$BT" "$SQ" "$NL" "$ESC" "$FORMULA" "$QQ"; do
    setup "two runs labelled $(printf %q "$l")" "$PM" record --quiet --label "$l" --runs 2 --interval 50ms -- sleep 0.1
done
q "UPDATE metric SET unit = 's,\"x' WHERE name = 'time.user_s'"
q "UPDATE run SET reason = '$(printf '\e[2J')cleared' WHERE id = 1"
pwned() { find "$TMP" -name 'pwned*' | wc -l; }
LABELS=(base "$BT" "$SQ" "$NL" "$ESC" "$FORMULA" "$QQ")

# gnuplot: charts drawn, nothing run, nothing written outside --out.
"$PM" plot "${LABELS[@]}" --out "$TMP/plots" > "$TMP/plot.out" 2>"$TMP/plot.err"
is "$?" 0 "plot draws the hostile labels"
is "$(pwned)" 0 "and no label ran a command (backticks, system(), a new script line)"
is "$(ls "$TMP/plots"/*.png | wc -l)" 8 "eight charts"
"$PM" plot "${LABELS[@]}" --out "$TMP/svg" --format svg >/dev/null 2>&1
for gp in "$TMP"/svg/*.gp; do
    (cd "$TMP/svg" && gnuplot "$(basename "$gp")") 2>>"$TMP/gp.err"
done
is "$(grep -v "^Warning: empty . range" "$TMP/gp.err")" "" "gnuplot reads every saved script without an error"
ok "and the quotes reach the chart as they are" grep -qF "$QQ" "$TMP"/svg/record-cpu.svg
is "$(pwned)" 0 "the saved .gp scripts, run by gnuplot again, run nothing either"
"$PM" report --out "$TMP/report" >/dev/null 2>"$TMP/report.err"
is "$?" 0 "report draws them too"
is "$(pwned)" 0 "and runs nothing"

# A workload name that is not a workload (a merged or fetched database).
cp "$PRESSMARK_DB" "$TMP/wl.db"
# (Two levels up from --out is still inside this test's directory, so even a
# pressmark that followed the name would write nowhere else.)
sqlite3 "$TMP/wl.db" "UPDATE run SET workload = '../../escape\"; system(\"touch pwned-wl\") #' WHERE label = 'base'"
"$PM" --db "$TMP/wl.db" plot --out "$TMP/wl/a/plots" >/dev/null 2>"$TMP/err"
is "$?" 2 "plot refuses a workload name no workload has: exit 2"
is "$(wc -l < "$TMP/err")" 1 "one line"
like "$(cat "$TMP/err")" "not a workload this pressmark knows" "saying so"
is "$(find "$TMP" -name 'escape*' | wc -l)" 0 "no file named after it anywhere"
"$PM" --db "$TMP/wl.db" compare >/dev/null 2>&1
is "$?" 2 "compare refuses it too"
is "$(pwned)" 0 "nothing ran"

# compare in every format: each parses as what it claims to be.
"$PM" compare --baseline base "${LABELS[@]:1}" --format json > "$TMP/c.json"
ok "json parses" python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$TMP/c.json"
"$PM" compare --baseline base "${LABELS[@]:1}" --format csv --metric time.user_s > "$TMP/c.csv"
csvcheck=$(python3 - "$TMP/c.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
width = len(rows[0])
bad = [r for r in rows if len(r) != width]
formula = [c for r in rows[1:] for c in r if c[:1] in ("=", "+", "@") or (c[:1] == "-" and not c[1:2].isdigit())]
units = {r[4] for r in rows[1:] if r[3] == "time.user_s"}
print(len(bad), len(formula), sorted(units))
PY
)
is "$csvcheck" "0 0 ['s,\"x']" "csv: every row as wide as the header, no field a formula, a hostile unit kept whole"
like "$(cat "$TMP/c.csv")" "\"'=HYPERLINK" "the formula label is neutralised with an apostrophe"
"$PM" compare --baseline base "${LABELS[@]:1}" --format html > "$TMP/c.html"
htmlcheck=$(python3 - "$TMP/c.html" <<'PY'
import html.parser, sys
class P(html.parser.HTMLParser):
    tags = []
    def handle_starttag(self, tag, attrs): self.tags.append(tag)
p = P(); p.feed(open(sys.argv[1]).read())
print("script" in p.tags, "\x1b" in open(sys.argv[1]).read())
PY
)
is "$htmlcheck" "False False" "html: no element or escape sequence from a label"
# The gate's findings name the label too: a regressing one (the golden
# database's 32M-like label, renamed) is quoted in the page, not a tag.
sqlite3 -batch -bail "$TMP/gate.db" ".read $ROOT/tests/fixtures/golden.sql"
SCRIPT='<script>alert(1)</script>'
sqlite3 "$TMP/gate.db" "UPDATE run SET label = '$SCRIPT' WHERE label LIKE 'o''dd%'"
"$PM" --db "$TMP/gate.db" compare --baseline 'chat heap 64M' "$SCRIPT" --format html --fail-on-regression \
    > "$TMP/gate.html" 2>&1
is "$?" 1 "compare --format html --fail-on-regression with a label $SCRIPT: a regression, exit 1"
ok "  no <script in the page (findings and verdict quoted)" sh -c "! grep -q '<script' '$TMP/gate.html'"
like "$(grep -A1 '<pre class="verdict">' "$TMP/gate.html")" \
    'REGRESSION chat: .* with &lt;script&gt;alert\(1\)&lt;/script&gt; than' "  the finding shows it escaped"
"$PM" compare --baseline base "${LABELS[@]:1}" --format markdown > "$TMP/c.md"
ok "markdown: every table row is one line (no raw newline from a label)" \
    sh -c "! grep -q '^system(' '$TMP/c.md'"
for fmt in text markdown; do
    "$PM" compare --baseline base "${LABELS[@]:1}" --format $fmt > "$TMP/c.$fmt"
    ok "compare --format $fmt: no escape byte reaches the terminal" sh -c "! grep -q \$(printf '\\033') '$TMP/c.$fmt'"
done
"$PM" list > "$TMP/list"
ok "list: no escape byte reaches the terminal" sh -c "! grep -q \$(printf '\\033') '$TMP/list'"
like "$(cat "$TMP/list")" 'esc \\x1b\]0;owned\\x07' "it is shown escaped instead"
"$PM" show 1 > "$TMP/show"
ok "show: neither (a hostile reason)" sh -c "! grep -q \$(printf '\\033') '$TMP/show'"
is "$(pwned)" 0 "in all of it, nothing ran"

# Sizes from a database are data too: what reading or merging a crafted one
# costs is bounded by what it holds. A schema-4 database with one series
# at position 999,999 and 20,000 ticks (its migration cost positions times
# ticks: 55 s of CPU for 356 KB) is refused by name, as is merging ticks
# larger than a run writes or runs whose positions do not run from 0.
FIX="$ROOT/tests/fixtures/results-schema4.db"
cp "$FIX" "$TMP/sparse4.db"
sqlite3 "$TMP/sparse4.db" "delete from tick_series where run_id = 1 and idx > 0;
    update tick_series set idx = 999999 where run_id = 1;
    with recursive n(i) as (select 100 union all select i + 1 from n where i < 20099)
    insert into tick(run_id, seq, t_ns, data) select 1, i, i * 1000000, '[]' from n"
before=$(md5sum < "$TMP/sparse4.db")
PRESSMARK_DB="$TMP/sparse4.db" "$PM" list > "$TMP/out" 2> "$TMP/err"
is "$?" 2 "list of a schema-4 database with a series at position 999,999: exit 2"
is "$(cat "$TMP/err")" "pressmark list: $TMP/sparse4.db: run 1: series positions are not 0 to 0 (at most 10000 series)" \
    "  refused in one line, naming the run"
is "$(md5sum < "$TMP/sparse4.db")" "$before" "  the file untouched"
cp "$FIX" "$TMP/bigtick.db"
PRESSMARK_DB="$TMP/bigtick.db" "$PM" record --quiet --label big -- true
sqlite3 "$TMP/bigtick.db" "insert into tick_open(run_id, seq, vals) select max(id), 1000000, '[' || printf('%.*c', 2 * 1048576, '1') || ']' from run"
bad "merging a database with a 2 MiB tick" "bigtick.db: 1 tick or block piece larger than a run writes: nothing merged" \
    merge "$TMP/bigtick.db"
PRESSMARK_DB="$TMP/optlabel.db" "$PM" record --quiet --label plain -- true
sqlite3 "$TMP/optlabel.db" "update run set label = '--baseline-db=x'"
bad "merging a database whose label is an option" \
    "optlabel.db: 1 run with a label --label would refuse \(empty, over 255 bytes or starting with '-'; e.g. '--baseline-db=x'\): nothing merged" \
    merge "$TMP/optlabel.db"
PRESSMARK_DB="$TMP/gap.db" "$PM" record --quiet --label gap -- true
sqlite3 "$TMP/gap.db" "update tick_series set idx = idx + 1000 where idx > 10"
bad "merging runs whose series positions skip" "gap.db: 1 run whose series positions are not 0 to n - 1 \(at most 10000 series\): nothing merged" \
    merge "$TMP/gap.db"
# Blocks of pieces that claim what they do not hold: a piece whose bytes are
# not what pressmark writes, a piece for a series the run does not have
# (position 999,999), a block of a billion ticks, a run of a billion
# ticks, a runs piece of 20,000 runs each claiming the whole block, an
# open row of 100,000 values. pressmark's reader refuses each in one line
# naming the file, run and block (export, plot, merge); the sample view
# costs what is there: at most 256 rows (TICK_BLOCK_MAX) for each piece
# or run present, one per value of an open row, whatever n and len say.
PRESSMARK_DB="$TMP/blocks.db" "$PM" record --quiet --label blocks --interval 10ms -- sleep 5
rows0=$(sqlite3 "$TMP/blocks.db" "select count(*) from sample")
ticks0=$(sqlite3 "$TMP/blocks.db" "select count(*) from tick")
ge "$ticks0" 260 "a run of $ticks0 ticks to corrupt, longer than a block ($rows0 sample rows)"
# (block 0's: the lines below name it; "order by idx" alone may pick a
# later block's piece of the same series, as a fresh root's run did)
dense="(select run_id, blk, idx from tick_piece where width > 0 and blk = 0 order by idx limit 1)"
hostile() {  # hostile NAME SQL: a copy of blocks.db with SQL applied
    cp "$TMP/blocks.db" "$TMP/$1.db"
    sqlite3 "$TMP/$1.db" "$2" || fail "crafting $1.db"
}
hostile malformed "update tick_piece set vals = zeroblob(5000) where (run_id, blk, idx) = $dense"
hostile farseries "insert into tick_piece values (1, 0, 999999, 0, 0, 5, 1, null, null)"
hostile billion "update tick_block set n = 1000000000"
hostile longrun "update tick_piece set runs = '[[0,1000000000,5]]', vals = null, width = 0 where (run_id, blk, idx) = $dense"
hostile overlap "update tick_piece set vals = null, width = 0, runs = (with recursive n(i) as (select 1 union all select i + 1
    from n where i < 20000) select '[' || group_concat('[0,1000000000,5]') || ']' from n) where (run_id, blk, idx) = $dense"
hostile wideopen "insert into tick values (1, 100000, 99999999999); insert into tick_open select 1, 100000, '[' || (with recursive
    n(i) as (select 1 union all select i + 1 from n where i < 100000) select group_concat(i) from n) || ']'"
# (a series' name has capitals and parentheses: meminfo.Active(anon),
# buddyinfo.node0.DMA.order0)
csv_rows='^run,uuid,label,seq,t_ns,time_s,name,value$|^1,[0-9a-f-]{36},blocks,[0-9]+,[0-9]+,[0-9.]+,[A-Za-z0-9_.()-]+,[-0-9.e+]+$'
for c in "malformed|block 0 series [0-9]+: not a piece as pressmark writes it" \
         "farseries|block 0: a piece for series 999999, which has none there" \
         "billion|run 1: tick 0 is in no block and has no open row \(not as pressmark writes\)" \
         "longrun|block 0 series [0-9]+: not a piece as pressmark writes it" \
         "overlap|block 0 series [0-9]+: not a piece as pressmark writes it" \
         "wideopen|run 1 tick 100000: not an open tick as pressmark writes it"; do
    name=${c%%|*} re=${c#*|}
    # (export streams to stdout: its header, and the rows of the ticks
    # before a bad one, are out before the bad part is read)
    PRESSMARK_DB="$TMP/$name.db" bad_out="$csv_rows" bad "export of a run with a $name block" "$name.db: .*$re" export blocks
    PRESSMARK_DB="$TMP/$name.db" bad "plot of a run with a $name block" "$name.db: .*$re" plot blocks --out "$TMP/p-$name"
    # merge refuses pieces longer than a run writes before reading them
    bad "merging a database with a $name block" \
        "$name.db: .*($re.*|block pieces? larger than a run writes|blocks? or pieces? not as pressmark writes them): nothing merged" \
        merge "$TMP/$name.db"
done
# Pieces that start a billion ticks before their block, in blocks after
# the run's last tick (which no reading of its ticks reaches), and a
# tick_piece without its key (every seek a scan): merge refuses each whole.
hostile negoff "update tick_piece set off = -1000000000 where (run_id, blk, idx) = $dense;
    insert into tick_block values (1, 100000, 10); insert into tick_piece select 1, 100000, idx, -1000000000, 0, 5, 1, null, null
    from tick_series where run_id = 1"
bad "merging a database with pieces before their blocks" "negoff.db: [0-9]+ blocks or pieces not as pressmark writes them: nothing merged" \
    merge "$TMP/negoff.db"
hostile unkeyed "drop view sample; create table tp as select * from tick_piece; drop table tick_piece;
    alter table tp rename to tick_piece"
bad "merging a database whose pieces have no key" \
    "unkeyed.db: its table tick_piece is not keyed by \(run_id,blk,idx\) \(not a pressmark results file\)" merge "$TMP/unkeyed.db"
view_rows() { timeout 120 sqlite3 "$TMP/$1.db" "select count(*) from sample"; }
ok "the view of pieces that claim to start a billion ticks early yields at most 256 rows a piece" \
    test "$(view_rows negoff)" -le $((rows0 + 256 * $(sqlite3 "$TMP/blocks.db" "select count(*) from tick_series")))
for name in malformed farseries longrun; do
    is "$(view_rows "$name")" "$rows0" "the view of the $name database gives the run's $rows0 rows, no more"
done
pieces=$(sqlite3 "$TMP/blocks.db" "select count(*) from tick_piece")
bn=$(view_rows billion)
ok "the view of blocks claiming a billion ticks yields at most 256 rows a piece ($bn rows, $rows0 before, $pieces pieces)" \
    test "$bn" -le $((rows0 + 256 * pieces))
ov=$(view_rows overlap)
ok "the view of 20,000 overlapping runs yields at most 256 rows a run ($ov rows)" test "$ov" -le $((rows0 + 20000 * 256))
is "$(view_rows wideopen)" "$((rows0 + $(sqlite3 "$TMP/blocks.db" "select count(*) from tick_series")))" \
   "the view of a 100,000-value open row gives a row per series of the run, no more"
done_testing
