#!/bin/bash
# Numbers people read are never in e-notation, and tables fit their page.
# Runs whose means are in the hundreds of millions (with a spread in the
# tens of millions) and in the millionths, with p below 1e-4, go through
# every output a person reads: compare in its readable formats and its
# long view, the verdict lines and JUnit, the report's page, show, list,
# suite plan and status. A kernel suite's cells ("chat on
# linux-image-6.12-cloud-amd64") get short names in the tables, the full
# ones in a legend and in tooltips, and its chat table fits 1,300 px.
# No root needed: uncapped runs of true, numbers set in SQL (as root each
# run still makes its tracking cgroup: make test runs it in the lane of
# the tests that change the machine).
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1
# printf's %g and %e: 1.23457e+08, 1.23e-05, 1e-05 (a run's UUID is no number).
ENOTE='(^|[^0-9A-Za-z])[0-9]+(\.[0-9]*)?[eE][+-][0-9]'
UUID='[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}'

for l in big-a big-b tiny-a tiny-b; do
    setup "3 runs of $l" "$PM" record --quiet --label $l --runs 3 --interval 50ms -- true
done
# set_values LABEL METRIC V1 V2 V3: the label's runs' values, in run order
# (made where a run too short for a tick has none: %CPU comes from ticks).
set_values() {
    local l=$1 m=$2 i=3 id
    for id in $(q "select id from run where label = '$l' order by id"); do
        q "insert into metric (run_id, name, value, unit, direction) values ($id, '$m', ${!i},
               coalesce((select unit from metric where name = '$m' limit 1), '%'), 'lower')
           on conflict (run_id, name) do update set value = excluded.value"
        i=$((i + 1))
    done
}
set_values big-a time.elapsed_s 123456789 98765432 150000000
set_values big-b time.elapsed_s 223456789 198765432 250000000
set_values big-a swap.in_kb 1234567890123 1334567890123 1134567890123
set_values big-b swap.in_kb 2234567890123 2334567890123 2134567890123
set_values big-a stat.cpu.util_pct 0.0000123 0.0000124 0.0000122
set_values big-b stat.cpu.util_pct 0.0000246 0.0000247 0.0000245
set_values tiny-a time.elapsed_s 0.0000123 0.0000124 0.0000122
set_values tiny-b time.elapsed_s 0.0000246 0.0000247 0.0000245
# Their CPU figures set too: what runs of true measure varies, and with it
# the family of comparisons the sentences count.
set_values tiny-a stat.cpu.util_pct 50 52 51
set_values tiny-b stat.cpu.util_pct 50 51 52
set_values tiny-a stat.cpu.sys_user_ratio 1 1.2 1.1
set_values tiny-b stat.cpu.sys_user_ratio 1.1 1 1.2

# A kernel suite boots VMs; its tables are what matters here, so a suite
# over a harmless axis has its cells and runs relabelled as one's.
cat > k.ini <<'INI'
[global]
runs = 2..3
target-ci = 0.00001%
question = Does Debian's 6.12 kernel handle the chat better than its 6.1?

[chat]
workload = record
command = true
interval = 50ms, 60ms
label = chat on {interval}
INI
setup "a suite of two cells" "$PM" suite run --quiet k.ini
relabel() {  # relabel OLD KERNEL: the cell and its runs as the kernel's
    q "update suite_cell set axes = '{\"kernel\":\"$2\"}', label = 'chat on $2', workload = 'chat',
           headline = 'chat.msgs_per_s' where label = '$1';
       update run set label = 'chat on $2', workload = 'chat' where label = '$1'"
}
relabel 'chat on 50ms' linux-image-cloud-amd64
relabel 'chat on 60ms' linux-image-6.12-cloud-amd64
# The chat's figures as a capped run gives them: the seed report's table.
for id in $(q "select id from run where workload = 'chat'"); do
    q "insert or replace into metric values ($id, 'chat.msgs_per_s', 51824.3 + $id * 1234.5, 'msg/s', 'higher');
       insert or replace into metric values ($id, 'chat.latency_p99_us', 123456.7 + $id * 10000, 'us', 'lower');
       update metric set value = 1987024 + $id * 12345 where run_id = $id and name in ('swap.in_kb', 'swap.out_kb');
       update metric set value = 3974048 + $id * 24690 where run_id = $id and name = 'swap.io_kb';
       update metric set value = 98.7 where run_id = $id and name = 'stat.cpu.util_pct'"
done

# The text a person reads of an HTML or XML page: its text, not its markup.
text_of() {
    python3 -c '
import html.parser, sys
class P(html.parser.HTMLParser):
    skip = 0
    out = []
    def handle_starttag(self, tag, attrs): self.skip += tag in ("style", "script")
    def handle_endtag(self, tag): self.skip -= tag in ("style", "script") and self.skip > 0
    def handle_data(self, d):
        if not self.skip: self.out.append(d)
p = P(); p.feed(open(sys.argv[1], encoding="utf-8").read()); print("\n".join(p.out))' "$1"
}
# no_enote DESCRIPTION FILE: no number in FILE is in e-notation.
no_enote() {
    local hits
    hits=$(sed -E "s/$UUID/UUID/g" "$2" | grep -Eo "[^ ]*$ENOTE[^ ]*" | head -3 | tr '\n' ' ')
    is "$hits" "" "$1: no number in e-notation"
}
out() {  # out NAME ARGS...: pressmark ARGS into NAME (its exit status kept in NAME.rc)
    local name=$1; shift
    "$PM" "$@" > "$name" 2>&1
    echo $? > "$name.rc"
}

for pair in "big-a big-b" "tiny-a tiny-b"; do
    set -- $pair
    for fmt in text markdown html; do
        out c.$1.$fmt compare --baseline $1 $2 --format $fmt
        out l.$1.$fmt compare --baseline $1 $2 --format $fmt --long
    done
    text_of c.$1.html > c.$1.html.txt
    text_of l.$1.html > l.$1.html.txt
    for f in c.$1.text c.$1.markdown c.$1.html.txt l.$1.text l.$1.markdown l.$1.html.txt; do
        no_enote "compare $1 $2 ($f)" $f
    done
    # (each a table, not an error message without numbers)
    for f in c.$1.text c.$1.markdown c.$1.html l.$1.text l.$1.markdown l.$1.html; do
        ok "  compare $1 $2 ($f): exit 0, with $2's row" sh -c '[ "$(cat "$1.rc")" = 0 ] && grep -q -- "$2" "$1"' sh "$f" "$2"
    done
    out v.$1 compare --baseline $1 $2 --fail-on-regression 5 --junit j.$1.xml
    is "$(cat v.$1.rc)" 1 "compare $1 $2 --fail-on-regression: a regression, exit 1"
    no_enote "  its REGRESSION and verdict lines" v.$1
    text_of j.$1.xml > j.$1.txt
    no_enote "  its JUnit messages and numbers" j.$1.txt
done
like "$(cat c.big-a.text)" "big-b +224,074,074 ±25,622,861 " "a mean of 224 million and its sd as the table groups digits"
like "$(cat c.big-a.text)" "2,234,567,890,123 ±100,000,000,000 KB" "  KB whole and grouped"
like "$(cat c.big-a.text)" " 0\.0000246 ±0\.0000[0-9]+ " "a mean of millionths stays decimal, three significant digits"
like "$(cat c.big-a.text)" "^224,074,074/124,074,074 = 180\.6 %" "the ratio sentence groups its means as the table does"
like "$(cat l.tiny-a.text)" "-100\.0% p<0\.001 \*" "a p below 0.001 is p<0.001 in a table"
like "$(cat l.tiny-a.text)" "\[0\.0000121, 0\.0000125\]" "  the CI of the difference in decimals"
# (the family: elapsed and %CPU; the three swap columns held 0 on both
# sides, nothing to test)
like "$(cat c.tiny-a.text)" "\(p < 0\.001, adjusted < 0\.001 over 3 comparisons, n = 3/3\); caveat: the two ran one after the other, not interleaved, so a drift of the machine between them would read the same$" \
    "  and p < 0.001 in the sentence, raw and adjusted over elapsed, %CPU and %sys/%user; the labels ran one after the other, which it says"
like "$(cat v.tiny-a)" "REGRESSION record: .* \(0\.0000123 -> 0\.0000246 s, p < 0\.001, Holm-adjusted < 0\.001 over 3 comparisons; caveat: the two ran one after the other, not interleaved, so a drift of the machine between them would read the same\)$" "the REGRESSION line: means and p as people read them, and the caveat drift brings"
like "$(cat c.big-a.html)" "124,074,074</span> <span>±25,622,861" "html: the same numbers, mean and sd each kept on a line"
out v.alpha compare --baseline tiny-a tiny-b --alpha 0.00001 --fail-on-regression 0.000001
like "$(tail -1 v.alpha)" "more than 0\.000001 % \(significant at alpha 0\.00001 for the family, Holm\)$" "the verdict gives small settings in decimals"

out rep.out report --out rep
is "$(cat rep.out.rc)" 0 "report exits 0"
text_of rep/report.html > rep.txt
no_enote "report" rep.txt
out srep.out report --suite --out srep
is "$(cat srep.out.rc)" 0 "report --suite exits 0"
text_of srep/report.html > srep.txt
no_enote "report --suite" srep.txt
like "$(grep -o '±[^<]*' rep/report.html | head -1)" "^±[0-9,.]+ s \(±[0-9.]+%\)" "the summary's 95% CI in the unit of its column"
for cmd in "show big-b" "show tiny-a" "show 1" "list" "suite status" "suite plan k.ini"; do
    out o $cmd
    is "$(cat o.rc)" 0 "$cmd exits 0"
    no_enote "  $cmd" o
done

# Long cells: short names in the tables, the full ones in a legend and tooltips.
out cs compare --suite
like "$(cat cs)" "^chat on k1 +[0-9,]+ ±" "a kernel cell's row is named chat on k1"
like "$(cat cs)" "^chat on k2 +[0-9,]+ ±" "  the other chat on k2 (k: the kernel axis)"
like "$(cat cs)" "short names: k1 = linux-image-cloud-amd64, k2 = linux-image-6\.12-cloud-amd64" "  a legend under the table says what they stand for"
like "$(cat cs)" "no significant difference between chat on linux-image-6\.12-cloud-amd64 and chat on linux-image-cloud-amd64" \
    "  the sentences keep the full names"
page=srep/report.html
like "$(cat $page)" "<td class=\"name\" title=\"chat on linux-image-6\.12-cloud-amd64\">chat on k2</td>" "html: the short name, the full one as its tooltip"
like "$(cat $page)" "<td title=\"chat on linux-image-cloud-amd64\"><span class=\"swatch\"[^>]*></span>chat on k1</td>" "  in the summary too"
like "$(cat $page)" "<p class=\"legend\">short names: k1 = linux-image-cloud-amd64, k2 = linux-image-6\.12-cloud-amd64</p>" "  and the legend"
is "$(grep -c '<td[^>]*>chat on linux-image' $page)" 0 "no table cell holds a long cell name"
PRESSMARK_DB="$TMP/deb.db" "$PM" record --quiet --label linux-image-6.1.0-37-cloud-amd64 --runs 2 -- true
PRESSMARK_DB="$TMP/deb.db" "$PM" record --quiet --label 'linux-image-6.12.48+deb12-cloud-amd64' --runs 2 -- true
out deb compare --db "$TMP/deb.db" --format html
like "$(cat deb)" "<td class=\"name\" title=\"linux-image-6\.12\.48\+deb12-cloud-amd64\">6\.12\.48\+deb12</td>" \
    "pinned kernels are named by their versions"
PRESSMARK_DB="$TMP/deb.db" "$PM" record --quiet --label 'chat on x<"a&b">-linux-image-6.13-rc1-amd64' --runs 2 -- true
out deb compare --db "$TMP/deb.db" --format html
like "$(cat deb)" "<td class=\"name\" title=\"chat on x&lt;&quot;a&amp;b&quot;&gt;-linux-image-6\.13-rc1-amd64\">chat on v3</td>" \
    "a label's tooltip is quoted for HTML"

# No two rows may look alike: beside two kernels whose short names would
# be "chat on 6.1" and "chat on 6.12", a label that is "chat on 6.12"
# itself keeps the kernel its full name (one row each, each tooltip its own).
SN="$TMP/sn.db"
for l in 'chat on linux-image-6.1-cloud-amd64' 'chat on linux-image-6.12-cloud-amd64' 'chat on 6.12'; do
    PRESSMARK_DB=$SN "$PM" record --quiet --label "$l" --runs 2 -- true
done
out sn compare --db "$SN" --format text
is "$(sed -n 's/^\(chat on [^ ]*\) .*/\1/p' sn | sort | uniq -d)" "" "no two rows of the table share a name"
out snh compare --db "$SN" --format html
is "$(grep -o '<td class="name"[^>]*>chat on 6\.12</td>' snh)" '<td class="name">chat on 6.12</td>' \
   "  the label 'chat on 6.12' is itself, with no kernel's tooltip"
# A label with a newline cannot start a line of its own in the legend.
LF="$TMP/lf.db"
PRESSMARK_DB=$LF "$PM" record --quiet --label 'run on linux-image-aaaaaaaaaaaa-cloud' --runs 2 -- true
PRESSMARK_DB=$LF "$PM" record --quiet --label 'run on linux-image-bbbbbbbbbbbb-cloud' --runs 2 -- true
sqlite3 "$LF" "update run set label = 'run on linux-image-bbbbbbbbbbbb-cloud' || char(10) || 'verdict: no regression' where label like '%bbbb%'"
out lf compare --db "$LF" --format text
unlike "$(cat lf)" '^verdict: no regression' "a newline in a label stays inside its line (written as \\x0a)"
like "$(cat lf)" '\\x0averdict: no regression' "  where it is written as \\x0a"

# The chat table of the kernel suite's page fits 1,300 px (it was 1,335 px
# wide in a 1,200 px column, its cell names wrapped into six lines).
if command -v chromium >/dev/null; then
    { cat $page; printf '%s\n' '<script>' \
        'var o = []; document.querySelectorAll("table").forEach(function (t) {' \
        '  if (t.scrollWidth > t.parentElement.clientWidth) o.push(t.scrollWidth + " > " + t.parentElement.clientWidth); });' \
        'var p = document.createElement("pre"); p.id = "widths"; p.textContent = "over:" + o.join(","); document.body.appendChild(p);' \
        '</script>'; } > measure.html
    timeout 600 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
        --disable-component-update --disable-sync --user-data-dir="$TMP/chrome" --window-size=1300,1400 \
        --dump-dom "file://$TMP/measure.html" > dom.html 2>/dev/null
    like "$(grep -o 'id="widths">over:[^<]*' dom.html)" ">over:$" "at 1,300 px every table of the suite's page fits its column"
else
    skip "chromium is not installed"
fi
done_testing
