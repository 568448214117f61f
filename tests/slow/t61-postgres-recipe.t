#!/bin/bash
# The PostgreSQL recipe for real (make test-slow): suites/postgres-pgbench-
# quick.ini whole, read-only pgbench against a private PostgreSQL whose
# 96M data set stays fixed while its cap shrinks (160M, 80M, 48M), three
# runs a cell; each cell's report shows pgbench's tps and the server's own
# figures (its buffer hit % and temporary files) as they were stored, and
# compare --suite judges the caps against the loosest; nothing is left.
. "$(dirname "$0")/../lib.sh"
required_by PM_SLOW_REQUIRED   # make test-slow: a missing need fails it
need_root
quiet_machine    # (it measures)
memcg_hierarchy || skip_all "needs a memory cgroup hierarchy (cgroup v2 with memory, or v1's memory controller)"
real=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$real/postgres" ] && [ -x "$real/initdb" ] && [ -x "$real/pgbench" ] ||
    skip_all "needs PostgreSQL (apt-get install postgresql)"
getent passwd postgres >/dev/null || skip_all "needs the postgres user (apt-get install postgresql)"
pg_uid=$(id -u postgres)
parent=${TMPDIR:-/var/tmp}
dirs() { ls -d "$parent"/pressmark-postgres.* 2>/dev/null; }
dirs_before=$(dirs)
cleanup_add 'for d in $(dirs | grep -vxF "$dirs_before"); do rm -rf "$d"; done'
# The postgres user's processes but the system cluster's (its postmaster's
# pid file names it, and its children are its), and its SysV segments.
system_pids() {
    local f p
    for f in /var/lib/postgresql/*/main/postmaster.pid; do
        p=$(head -1 "$f" 2>/dev/null) && [ -n "$p" ] && { echo "$p"; pgrep -P "$p"; }
    done
}
leftovers() {
    ps -u postgres -o pid=,stat=,args= 2>/dev/null |
        awk -v sys=" $(system_pids | tr '\n' ' ') " '$2 !~ /^Z/ && index(sys, " " $1 " ") == 0'
}
segments() { awk -v u="$pg_uid" 'NR > 1 && $10 == u' /proc/sysvipc/shm | wc -l; }
before=$(machine_state)
segments_before=$(segments)
is "$(leftovers)" "" "no process of the postgres user's runs but the system cluster's"

suite=$ROOT/suites/postgres-pgbench-quick.ini
t0=$(date +%s)
"$PM" suite run "$suite" >"$TMP/suite.out" 2>"$TMP/suite.err"
is "$?" 0 "suites/postgres-pgbench-quick.ini runs ($(( $(date +%s) - t0 )) s)"
cells="cap 160M:ok,ok,ok cap 48M:ok,ok,ok cap 80M:ok,ok,ok"
is "$(q "select group_concat(x, ' ') from (select label || ':' || group_concat(status, ',') as x from run group by label order by label)")" \
   "$cells" "  three runs a cell, each ok"
is "$(q "select count(*) from metric where name = 'postgres.scale' and value = 6")" 9 \
   "every run's data set is pgbench's scale 6 (96M), whatever its cap"
is "$(q "select count(*) from run_meta where key = 'postgres.client_output' and value like '%transaction type: <builtin: select only>%' and value like '%number of clients: 4%' and value like '%duration: 10 s%'")" 9 \
   "  read by pgbench -S, 4 clients, 10 s in every run"
is "$(q "select group_concat(x, ' ') from (select distinct r.label || '=' || v.value as x from run_meta v join run r on r.id = v.run_id where v.key = 'cap.limit_bytes' order by r.label)")" \
   "cap 160M=167772160 cap 48M=50331648 cap 80M=83886080" "  under its cell's cap"
is "$(q "select count(*) from metric m join run r on r.id = m.run_id where m.name = 'memcg.limit_hits' and m.value >= 1 and r.label in ('cap 80M', 'cap 48M')")" 6 \
   "  which the server reached in every run of the caps below the data set"
# shared_buffers is a quarter of the cap (40M, 20M, 12M of the 96M): the
# share of block reads the buffers answered falls with the cap.
mean_of() { q "select avg(m.value) from metric m join run r on r.id = m.run_id where m.name = '$1' and r.label = '$2'"; }
h160=$(mean_of postgres.hit_pct 'cap 160M'); h80=$(mean_of postgres.hit_pct 'cap 80M'); h48=$(mean_of postgres.hit_pct 'cap 48M')
ok "the buffer hit % falls with the cap ($h160, $h80, $h48)" \
    awk -v a="$h160" -v b="$h80" -v c="$h48" 'BEGIN { exit !(a > b && b > c && c > 0) }'
is "$(q "select count(*) from metric where name = 'postgres.temp_files' and value = 0")" 9 \
   "no run's queries spilled to a temporary file (pgbench -S sorts nothing)"

# compare --suite: a row per cell, the headline and the server's figures.
cmp=$("$PM" compare --suite 2>"$TMP/cmp.err")
is "$?" 0 "compare --suite"
like "$cmp" "^postgres, suite 1 \(postgres-pgbench-quick\): 3 cells, baseline cap 160M" "  the suite's three cells against cap 160M"
like "$cmp" "^label +tps +change +latency ms +buffer hit % +temp files " "  its columns: tps, latency, buffer hit %, temp files"
like "$cmp" "^cap 160M +[0-9,.]+ ±[0-9,.]+ +base " "  cap 160M the baseline"
for c in 80M 48M; do
    like "$cmp" "^cap $c +[0-9,.]+ ±[0-9,.]+ +-[0-9.]+% p[=<][0-9.]+" "  cap $c judged against it, slower"
    like "$cmp" "^[0-9,.]+/[0-9,.]+ = [0-9.]+ %: .* cap $c .* postgres\.hit_pct [0-9.]+ against [0-9.]+ %" \
         "  and said in a sentence with its buffer hit %"
done
# The JSON of it holds each cell's runs as stored, figure by figure.
"$PM" compare --suite --format json >"$TMP/cmp.json" 2>>"$TMP/cmp.err"
is "$?" 0 "compare --suite --format json"
# (values as stored and as shown, sorted, each cell's: LABEL=V,V,V ...)
values() {
    python3 - "$1" "$2" "$PRESSMARK_DB" "$TMP/cmp.json" <<'PY'
import json, sqlite3, sys
what, m, db, js = sys.argv[1:]
if what == "stored":
    rows = sqlite3.connect(db).execute("select r.label, m.value from metric m join run r on r.id = m.run_id "
                                       "where m.name = ?", (m,)).fetchall()
else:
    rows = [(l["label"], v) for l in json.load(open(js))["comparisons"][0]["labels"] for v in l["metrics"][m]["values"]]
cells = {}
for label, v in rows:
    cells.setdefault(label, []).append(v)
if len(cells) != 3 or any(len(v) != 3 for v in cells.values()):
    sys.exit(print(what, "incomplete:", cells))
print(" ".join("%s=%s" % (l, ",".join("%.6f" % v for v in sorted(cells[l]))) for l in sorted(cells)))
PY
}
for m in pgbench.tps postgres.hit_pct postgres.temp_files; do
    is "$(values shown "$m")" "$(values stored "$m")" "  $m: each cell's three runs, as stored"
done

# report --suite: the HTML page's table, a row per cell, shows the same.
"$PM" report --suite --out "$TMP/report" >/dev/null 2>"$TMP/report.err"
is "$?" 0 "report --suite"
rows=$(python3 - "$TMP/report/report.html" "$TMP/cmp.json" <<'PY'
import html.parser, json, sys
class T(html.parser.HTMLParser):
    def __init__(s):
        super().__init__(); s.tables = []; s.row = None; s.cell = None
    def handle_starttag(s, tag, a):
        if tag == "table": s.tables.append([])
        elif tag == "tr": s.row = []
        elif tag in ("td", "th"): s.cell = ""
    def handle_endtag(s, tag):
        if tag in ("td", "th") and s.row is not None: s.row.append(" ".join(s.cell.split())); s.cell = None
        elif tag == "tr" and s.tables: s.tables[-1].append(s.row); s.row = None
    def handle_data(s, d):
        if s.cell is not None: s.cell += d
t = T(); t.feed(open(sys.argv[1]).read())
cmp = next(tb for tb in t.tables if tb and tb[0][:2] == ["label", "tps"])
head = cmp[0]
want = {l["label"]: l["metrics"] for l in json.load(open(sys.argv[2]))["comparisons"][0]["labels"]}
for r in cmp[1:]:
    out = [r[0]]
    for col, m in (("tps", "pgbench.tps"), ("buffer hit %", "postgres.hit_pct"), ("temp files", "postgres.temp_files")):
        shown = float(r[head.index(col)].split()[0].replace(",", ""))
        mean = want[r[0]][m]["mean"]
        # (shown to 4 or 5 significant digits)
        out.append("%s %s" % (col, "as stored" if abs(shown - mean) <= 1e-3 * abs(mean) + 0.05 else "%r != %r" % (shown, mean)))
    print(", ".join(out))
PY
)
is "$rows" "cap 160M, tps as stored, buffer hit % as stored, temp files as stored
cap 80M, tps as stored, buffer hit % as stored, temp files as stored
cap 48M, tps as stored, buffer hit % as stored, temp files as stored" \
   "  its table: each cell's tps, buffer hit % and temp files, the stored means"

# Nothing of the runs is left.
is "$(leftovers)" "" "no process of the runs' servers is left"
is "$(dirs)" "$dirs_before" "nor a directory of theirs"
is "$(segments)" "$segments_before" "nor a System V segment"
is "$(find "$CG_ROOT/pressmark" -maxdepth 1 -name 'run-*' 2>/dev/null)" "" "nor a cgroup"
is "$(machine_state)" "$before" "the machine is as it was"
done_testing
