#!/bin/bash
# record --figures and --figure: a tool's own figures read from what it
# wrote, stored as the run's metrics with their units and directions, its
# headline in the run line and the reports, what it wrote kept with the
# run (show --output), and a run whose figures are missing failed with
# none of them stored.
. "$(dirname "$0")/lib.sh"
FIX=$ROOT/tests/fixtures/figures
# The stored value and the number it came from, compared as doubles: the
# double SQLite holds (read by Python's sqlite3: SQLite's own printf gives
# 16 digits, not every one), the tool's text read by Python as by strtod.
same() { python3 -c 'import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(a != b)' "$1" "$2"; }
exact() {
    python3 -c 'import sqlite3, sys
r = sqlite3.connect(sys.argv[1]).execute("select value from metric where run_id = ? and name = ?", (int(sys.argv[2]), sys.argv[3])).fetchone()
print(repr(r[0]) if r else "")' "$PRESSMARK_DB" "$1" "$2"
}
figs() { q "select count(*) from metric where run_id = $1 and (name like 'app.%' or name like 'hackbench.%' or name like 'fio.%' or name like 'pgbench.%')"; }

# hackbench, a real run: the figure is the number its Time: line printed.
# (One group of 40 tasks, not the default ten: the same lines, a tenth of
# the processes; 500 loops, so that its Time: has digits to round.)
if command -v hackbench >/dev/null; then
    # Through tee: what hackbench wrote, raw, beside what the run kept.
    "$PM" record --label hb --figures hackbench -- sh -c "hackbench -g 1 -l 500 2>&1 | tee '$TMP/hb.raw'" 2>"$TMP/err"
    is "$?" 0 "record --figures hackbench -- hackbench -g 1 -l 500 exits 0"
    id=$(q "select max(id) from run")
    "$PM" show --output "$id" > "$TMP/hb.out"
    ok "  show --output is what hackbench wrote, byte for byte" cmp "$TMP/hb.out" "$TMP/hb.raw"
    printed=$(sed -n 's/^Time: *//p' "$TMP/hb.out")
    like "$printed" '^[0-9]+\.[0-9]+$' "show --output gives hackbench's Time: line ($printed)"
    ok "hackbench.time_s is the number hackbench printed ($(exact "$id" hackbench.time_s) = $printed)" \
       same "$(exact "$id" hackbench.time_s)" "$printed"
    is "$(q "select unit || ' ' || direction from metric where run_id = $id and name = 'hackbench.time_s'")" "s lower" \
       "  with its unit and direction"
    is "$(q "select value from run_meta where run_id = $id and key = 'headline'")" hackbench.time_s "  it is the run's headline"
    shown=$(sed -n "s/.*run $id \[hb\] ok: hackbench.time_s \([0-9.]*\) s,.*/\1/p" "$TMP/err")
    # The run line rounds to its significant digits (1.22 for 1.222).
    ok "  the run line shows it ($shown for $printed)" python3 -c 'import sys
s, p = sys.argv[1], float(sys.argv[2])
d = len(s.split(".")[1]) if "." in s else 0
sys.exit(not s or abs(float(s) - p) > 0.5 * 10 ** -d + 1e-12)' "${shown:-x}" "$printed"
    is "$(grep -c '^Running in process mode' "$TMP/hb.out")" 1 "  the output is kept whole (hackbench's header once)"
else
    skip "hackbench (rt-tests) is not installed"
fi

# sysbench, a real run of its cpu test: events/s and the 95th percentile
# are the numbers it printed. (400 events, a tenth of a second or so: it
# prints the same lines as a timed second does.)
if command -v sysbench >/dev/null; then
    "$PM" record --quiet --label sb --figures sysbench -- sysbench cpu --time=0 --events=400 --threads=1 run
    is "$?" 0 "record --figures sysbench -- sysbench cpu --events=400 run exits 0"
    id=$(q "select max(id) from run")
    "$PM" show --output "$id" > "$TMP/sb.out"
    printed=$(sed -n 's/^ *events per second: *//p' "$TMP/sb.out")
    like "$printed" '^[0-9]+\.[0-9]+$' "show --output gives sysbench's events per second ($printed)"
    ok "sysbench.events_per_s is the number sysbench printed ($(exact "$id" sysbench.events_per_s) = $printed)" \
       same "$(exact "$id" sysbench.events_per_s)" "$printed"
    p95=$(sed -n 's/^ *95th percentile: *//p' "$TMP/sb.out")
    ok "sysbench.latency_p95_ms is its 95th percentile ($(exact "$id" sysbench.latency_p95_ms) = $p95)" \
       same "$(exact "$id" sysbench.latency_p95_ms)" "$p95"
    is "$(q "select value from run_meta where run_id = $id and key = 'headline'")" sysbench.events_per_s "  the headline"
else
    skip "sysbench is not installed"
fi

# stress-ng, a real run of one stressor with --metrics --yaml FILE, read
# with --figures-from FILE: the bogo-ops/s are the YAML's. (200 bogo-ops,
# not a second's: the YAML is the same; --timeout only bounds a hang.)
if command -v stress-ng >/dev/null; then
    "$PM" record --quiet --label sn --figures stress-ng --figures-from "$TMP/sn.yaml" -- \
        stress-ng --cpu 1 --cpu-method int8 --cpu-ops 200 --timeout 60 --metrics --yaml "$TMP/sn.yaml"
    is "$?" 0 "record --figures stress-ng --figures-from FILE -- stress-ng --cpu 1 --cpu-ops 200 --metrics --yaml FILE exits 0"
    id=$(q "select max(id) from run")
    yaml_rate=$(python3 -c 'import sys, yaml
m = yaml.safe_load(open(sys.argv[1]))["metrics"]
print(repr(float(m[0]["bogo-ops-per-second-real-time"])))' "$TMP/sn.yaml")
    ok "stress_ng.cpu.bogo_ops_per_s is the YAML's bogo-ops-per-second-real-time ($yaml_rate)" \
       same "$(exact "$id" stress_ng.cpu.bogo_ops_per_s)" "$yaml_rate"
else
    skip "stress-ng is not installed"
fi

# fio, a real job of 4 MiB in the test's own directory.
if command -v fio >/dev/null; then
    "$PM" record --quiet --label fio --figures fio -- fio --name=seqread --filename="$TMP/fio.dat" --size=4M --rw=read \
        --bs=4k --ioengine=psync --output-format=json
    is "$?" 0 "record --figures fio of a 4 MiB read job exits 0"
    id=$(q "select max(id) from run")
    "$PM" show --output "$id" > "$TMP/fio.out"
    json_iops=$(python3 -c 'import json, sys
t = open(sys.argv[1]).read()
print(repr(json.loads(t[t.index("\n{") + 1 if not t.startswith("{") else 0:])["jobs"][0]["read"]["iops"]))' "$TMP/fio.out")
    ok "fio.read_iops is the JSON's read.iops ($(exact "$id" fio.read_iops) = $json_iops)" \
       same "$(exact "$id" fio.read_iops)" "$json_iops"
    ok "fio.seqread.read_iops too" same "$(exact "$id" fio.seqread.read_iops)" "$json_iops"
    is "$(q "select value from run_meta where run_id = $id and key = 'headline'")" fio.read_iops "  the headline is fio.read_iops"
    is "$(q "select count(*) from metric where run_id = $id and name like 'fio.%write%'")" 0 "  a read job has no write figures"
else
    skip "fio is not installed"
fi

# --figure: a pattern and a JSON path of the user's, exact values.
cmd='echo "rps: 1234.5"; echo "{\"stats\": {\"lat\": [1, 2.25]}}"'
"$PM" record --label user --figure 'app.rps:req/s:higher=^rps: ([0-9.]+)$' \
    --figure 'app.lat:ms:lower=json:stats.lat[1]' -- sh -c "$cmd" 2>"$TMP/err"
is "$?" 0 "record --figure REGEX and --figure json:PATH exit 0"
id=$(q "select max(id) from run")
is "$(q "select name || ' ' || value || ' ' || unit || ' ' || direction from metric where run_id = $id and name like 'app.%' order by name")" \
   "app.lat 2.25 ms lower
app.rps 1234.5 req/s higher" "both stored with the unit and direction given"
is "$(q "select value from run_meta where run_id = $id and key = 'headline'")" app.rps "the first --figure is the headline"
like "$(cat "$TMP/err")" "\[user\] ok: app.rps 1,234.5 req/s|\[user\] ok: app.rps 1234.5 req/s" "the run line shows it with its unit"
"$PM" record --quiet --label user2 --headline app.lat --figure 'app.rps:req/s:higher=^rps: ([0-9.]+)$' \
    --figure 'app.lat:ms:lower=json:stats.lat[1]' -- sh -c "$cmd"
is "$(q "select value from run_meta where run_id = $(q "select max(id) from run") and key = 'headline'")" app.lat \
   "--headline chooses another"

# What the command writes to its standard error is read and kept too.
"$PM" record --quiet --label err --figure 'app.e:s:lower=^e: ([0-9]+)$' -- sh -c 'echo e: 3 >&2'
is "$?:$(metric err app.e)" "0:3.0" "a figure on standard error is read"
is "$("$PM" show --output "$(q "select max(id) from run")")" "e: 3" "  and kept"

# A parser that finds nothing in a command that succeeded fails the run.
"$PM" record --quiet --label none --figures hackbench -- sh -c 'echo no time'
is "$?" 1 "--figures hackbench of an output with no Time: line exits 1"
id=$(q "select max(id) from run")
is "$(q "select status || ': ' || reason from run where id = $id")" \
   "failed: hackbench: no hackbench.time_s: no 'Time: S' line (the output says: no time)" "  failed, hackbench's reason"
is "$(figs "$id"):$(q "select count(*) from run_meta where run_id = $id and key = 'headline'")" "0:0" \
   "  no figure stored, no headline"

# --figures-from: the file the command wrote; one written before it ran is not its.
"$PM" record --quiet --label from --figures hackbench --figures-from "$TMP/hb.txt" -- \
    sh -c "echo 'Time: 1.5' > '$TMP/hb.txt'; echo 'not here'"
id=$(q "select max(id) from run")
is "$(q "select status from run where id = $id"):$(metric "$id" hackbench.time_s)" "ok:1.5" \
   "--figures-from reads the file the command wrote"
is "$("$PM" show --output "$id")" "==> output <==
not here

==> figures-from $TMP/hb.txt <==
Time: 1.5" "  show --output gives both texts, each named"
"$PM" record --quiet --label from --figures hackbench --figures-from "$TMP/hb.txt" -- true
id=$(q "select max(id) from run")
is "$(q "select status || ': ' || reason from run where id = $id")" \
   "failed: --figures-from $TMP/hb.txt: last written before the command started, not by this run" \
   "  a file the command did not write fails the run"

# What --figures-from reads as root: a regular file, not a link, owned by
# root or the user, in a directory no other user can change; each refused
# by name, the name escaped in the run line.
last() { q "select status || ': ' || reason from run where id = (select max(id) from run)"; }
from_fails() {  # from_fails PATH WANT DESC COMMAND: --figures-from PATH of COMMAND fails with WANT
    "$PM" record --label from --figures hackbench --figures-from "$1" -- sh -c "$4" 2>"$TMP/from.err"
    is "$?:$(last)" "1:failed: --figures-from $2" "$3"
}
from_fails "$TMP/link" "$TMP/link: a symbolic link (accepted: the file itself)" "a symbolic link is refused" \
    "echo 'Time: 1.5' > '$TMP/real'; ln -sf '$TMP/real' '$TMP/link'"
from_fails "$TMP/hard" "$TMP/hard: has 2 hard links (accepted: one)" "a file of two hard links is refused" \
    "echo 'Time: 1.5' > '$TMP/real2'; ln -f '$TMP/real2' '$TMP/hard'"
from_fails "$TMP/fifo" "$TMP/fifo: not a regular file" "a FIFO is refused (not opened, no hang)" \
    "rm -f '$TMP/fifo'; mkfifo '$TMP/fifo'"
from_fails "$TMP/theirs" "$TMP/theirs: owned by uid 65534 (accepted: root or uid $(id -u), who runs pressmark)" \
    "another user's file is refused" "echo 'Time: 1.5' > '$TMP/theirs'; chown 65534 '$TMP/theirs'"
mkdir -m 0777 "$TMP/open"
chmod 0777 "$TMP/open"
from_fails "$TMP/open/hb" "$TMP/open/hb: its directory is writable by others (accepted: not group or world writable, or sticky as /tmp)" \
    "a file in a world-writable directory is refused" "echo 'Time: 1.5' > '$TMP/open/hb'"
esc=$(printf '%s/e\033]0;x\007' "$TMP")
from_fails "$esc" "$TMP/e\\x1b]0;x\\x07: a symbolic link (accepted: the file itself)" "a hostile name is escaped in the reason" \
    "ln -sf '$TMP/real' \"\$(printf '%s/e\\033]0;x\\007' '$TMP')\""
like "$(cat "$TMP/from.err")" "failed - --figures-from $TMP/e\\\\x1b\]0;x\\\\x07: a symbolic link" "  and in the run line"
ok "  no escape byte in the run line" sh -c '! grep -q "$(printf "\033")" "$1"' sh "$TMP/from.err"

# --figures-log: pgbench's output and its per-transaction log (the
# fixtures of a real pgbench run, written by the command as pgbench would).
"$PM" record --quiet --label pg --figures pgbench --figures-log "$TMP/pg/pgbench_log.*" -- \
    sh -c "mkdir -p '$TMP/pg' && cp '$FIX/pgbench-15.18-log.txt' '$TMP/pg/pgbench_log.4242' && cat '$FIX/pgbench-15.18.txt'"
id=$(q "select max(id) from run")
is "$(q "select status from run where id = $id"):$(metric "$id" pgbench.latency_p50_us):$(metric "$id" pgbench.tps)" \
   "ok:918.0:1857.570762" "--figures-log: pgbench's percentiles from its log, its tps from its output"
is "$(q "select value from run_meta where run_id = $id and key = 'headline'")" pgbench.tps "  pgbench.tps is the headline"
"$PM" show --output "$id" > "$TMP/pg.out"
is "$(grep '^==> ' "$TMP/pg.out")" "==> output <==
==> figures-log $TMP/pg/pgbench_log.4242 <==" "  the output and the log kept, each named"
sed -n '/^==> figures-log /,$p' "$TMP/pg.out" | tail -n +2 > "$TMP/pg.log"
ok "  the log kept is the log written, byte for byte" cmp "$TMP/pg.log" "$FIX/pgbench-15.18-log.txt"
touch -d '2001-01-01' "$TMP/pg/pgbench_log.4242"
"$PM" record --quiet --label pg --figures pgbench --figures-log "$TMP/pg/pgbench_log.*" -- cat "$FIX/pgbench-15.18.txt"
is "$(last)" "failed: --figures-log $TMP/pg/pgbench_log.4242: last written before the command started, not by this run" \
   "a log written before the run started is refused"
"$PM" record --quiet --label pg --figures pgbench --figures-log "$TMP/many/l.*" -- \
    sh -c "mkdir -p '$TMP/many' && for i in \$(seq 65); do : > '$TMP/many/l.'\$i; done; cat '$FIX/pgbench-15.18.txt'"
is "$(last)" "failed: --figures-log: 65 files match (accepted: at most 64)" "more than 64 logs fail the run"
"$PM" record --quiet --label pg --figures pgbench --figures-log "$TMP/sl/l.*" -- \
    sh -c "mkdir -p '$TMP/sl' && cp '$FIX/pgbench-15.18-log.txt' '$TMP/sl/l.1' && ln -s /etc/passwd '$TMP/sl/l.2' && cat '$FIX/pgbench-15.18.txt'"
is "$(last)" "failed: --figures-log $TMP/sl/l.2: a symbolic link (accepted: the file itself)" "a log that is a symbolic link is refused"

# A figure the output lacks: the run failed, its reason naming it, none stored.
"$PM" record --quiet --label miss --figure 'app.rps:req/s:higher=^rps: ([0-9.]+)$' \
    --figure 'app.gone:ms:lower=^gone: ([0-9]+)$' -- sh -c 'echo "rps: 5"'
is "$?" 1 "a run whose output lacks a figure exits 1"
id=$(q "select max(id) from run")
is "$(q "select status || ': ' || reason from run where id = $id")" \
   "failed: --figure app.gone: no line of the output matches the pattern" "  failed, the reason naming the figure"
is "$(figs "$id")" 0 "  none of its figures stored (not app.rps either, never a 0)"
is "$(q "select count(*) from run_meta where run_id = $id and key = 'headline'")" 0 "  nor a headline"
"$PM" record --quiet --label miss --figures hackbench -- sh -c 'echo hackbench: cannot fork; exit 3'
id=$(q "select max(id) from run")
like "$(q "select status || ': ' || reason from run where id = $id")" "^failed: .*(exit|status).*3" \
   "a command that fails keeps its own reason"
is "$(figs "$id"):$("$PM" show --output "$id")" "0:hackbench: cannot fork" "  no figure, its output kept"

# Hostile output: a number beyond a double, escapes in the kept output.
"$PM" record --quiet --label hostile --figure 'app.rps:req/s:higher=^rps: (.*)$' -- sh -c 'echo "rps: 1e999"'
id=$(q "select max(id) from run")
is "$(q "select status || ': ' || reason from run where id = $id"):$(figs "$id")" \
   "failed: --figure app.rps: the group matched '1e999', not a number:0" "a figure of 1e999 is refused, none stored"
"$PM" record --quiet --label hostile --figure 'app.rps:req/s:higher=^rps: ([0-9]+)$' -- \
    sh -c 'printf "rps: 7\n\033]0;owned\007\033[2J\n"'
id=$(q "select max(id) from run")
"$PM" show --output "$id" > "$TMP/hostile.out"
is "$(cat "$TMP/hostile.out")" 'rps: 7
\x1b]0;owned\x07\x1b[2J' "show --output escapes what would move a terminal"
ok "  no escape byte reaches it" sh -c '! grep -q "$(printf "\033")" "$1"' sh "$TMP/hostile.out"
bad "show --output --format json" \
    "^pressmark show: --output: the run's texts are shown as text, escaped \(accepted: --output without --format json\)$" \
    show --output "$id" --format json

# An output over 64 MiB: kept cut there and said, no figure read from part
# of it; 72 MiB of it (8 beyond the cut: more takes longer, tells no more)
# go through a pipe, never to a file (TMPDIR names no directory: a file
# for the output could not be made).
TMPDIR=$TMP/none "$PM" record --quiet --label big --figure 'app.rps:req/s:higher=^rps: ([0-9]+)$' -- \
    sh -c 'echo "rps: 9"; head -c 75497472 /dev/zero | tr "\0" a'
is "$?" 1 "record of a command writing 72 MiB exits 1 (its figures not read), with TMPDIR unusable"
id=$(q "select max(id) from run")
is "$(q "select status || ': ' || reason from run where id = $id"):$(figs "$id")" \
   "failed: the output is over 64 MiB: kept cut there, and no figure is read from part of it:0" \
   "an output over 64 MiB fails the run, no figure stored"
is "$(q "select size || ' ' || cut from run_text where run_id = $id")" "67108864 1" "  its first 64 MiB kept, marked cut"
"$PM" show --output "$id" 2>"$TMP/err" >/dev/null
like "$(cat "$TMP/err")" "run $id's output was cut at 67108864 bytes" "  show --output says so"

# The headline in compare: two labels whose runs agree on it.
for v in 100 110; do
    "$PM" record --quiet --runs 2 --label "rate$v" --figure 'app.rate:req/s:higher=^rate: ([0-9]+)$' -- \
        sh -c "echo rate: $v"
done
"$PM" compare rate100 rate110 > "$TMP/cmp" 2>&1
is "$?" 0 "compare of two labels of figures"
like "$(cat "$TMP/cmp")" "req/s" "  the headline's unit is its column title"
"$PM" compare --format json rate100 rate110 > "$TMP/cmp.json"
is "$(python3 -c 'import json, sys
c = json.load(open(sys.argv[1]))
c = c[0] if isinstance(c, list) else c.get("comparisons", [c])[0] if "labels" not in c else c
m = [l["metrics"]["app.rate"] for l in c["labels"]]
print(c["headline"], list(c["labels"][0]["metrics"])[0], m[0]["unit"], m[0]["mean"], m[1]["mean"],
      c["labels"][1]["metrics"]["app.rate"]["vs_baseline"]["change_pct"])' "$TMP/cmp.json")" \
   "app.rate app.rate req/s 100.0 110.0 10.0" "  compared on app.rate (req/s, first): 100 against 110, +10 %"
like "$("$PM" show rate110)" "req/s" "show of the label has the column too"

# merge carries the kept texts with their runs.
"$PM" --db "$TMP/merged.db" merge "$PRESSMARK_DB" >/dev/null 2>"$TMP/err"
is "$?:$(cat "$TMP/err")" "0:" "merge of the figures' runs exits 0, silent"
first=$(q "select min(id) from run where label = 'user'")
uuid=$(q "select uuid from run where id = $first")
is "$("$PM" --db "$TMP/merged.db" show --output "$uuid")" "$("$PM" show --output "$first")" \
   "merge carries what the command wrote"
from=$(q "select uuid from run where label = 'from' and status = 'ok'")
is "$("$PM" --db "$TMP/merged.db" show --output "$from")" "==> output <==
not here

==> figures-from $TMP/hb.txt <==
Time: 1.5" "  a run's two texts merged whole, each named"

# A database is data: texts each within 64 MiB but more together (the
# zeros of a decompression bomb), a row claiming more than 64 MiB, or one
# inflating to less than it claims, are refused by show and merge, with
# the row's name quoted for the terminal.
"$PM" record --quiet --label bomb --figure 'app.b:s:lower=^b: ([0-9]+)$' -- sh -c 'echo b: 1'
bomb=$(q "select max(id) from run")
texts() {  # texts DB RUN-ID SIZE WHAT [CLAIM]: one more row of SIZE zeros, claiming CLAIM bytes
    python3 -c 'import sqlite3, sys, zlib
db = sqlite3.connect(sys.argv[1]); run, size = int(sys.argv[2]), int(sys.argv[3])
claim = int(sys.argv[5]) if len(sys.argv) > 5 else size
idx = db.execute("select coalesce(max(idx), -1) + 1 from run_text where run_id = ?", (run,)).fetchone()[0]
db.execute("insert into run_text(run_id, idx, what, size, cut, data) values (?,?,?,?,0,?)",
           (run, idx, sys.argv[4], claim, zlib.compress(bytes(size))))
db.commit()' "$@"
}
copy() { python3 -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).backup(sqlite3.connect(sys.argv[2]))' "$@"; }
copy "$PRESSMARK_DB" "$TMP/bomb.db"
# (33 MiB each: 66 together, over the 64 of the limit)
texts "$TMP/bomb.db" "$bomb" $((33 << 20)) one
texts "$TMP/bomb.db" "$bomb" $((33 << 20)) two
"$PM" --db "$TMP/bomb.db" show --output "$bomb" >"$TMP/bomb.out" 2>"$TMP/err"
is "$?:$(cat "$TMP/err"):$(wc -c <"$TMP/bomb.out")" \
   "2:pressmark show: the run keeps 3 texts of $((5 + (66 << 20))) bytes (at most 66 texts of 64 MiB together):0" \
   "show --output refuses a run's texts over 64 MiB together, printing none"
"$PM" --db "$TMP/m-bomb.db" merge "$TMP/bomb.db" >/dev/null 2>"$TMP/err"
is "$?:$(cat "$TMP/err"):$(sqlite3 "$TMP/m-bomb.db" 'select count(*) from run' 2>/dev/null || echo 0)" \
   "2:pressmark merge: $TMP/bomb.db: run $(q "select uuid from run where id = $bomb") keeps 3 texts of $((5 + (66 << 20))) bytes (at most 66 texts of 64 MiB together): nothing merged:0" \
   "  merge refuses the database, nothing merged"
copy "$PRESSMARK_DB" "$TMP/rows.db"
# (66 rows in one transaction: 66 commits cost half a minute)
python3 -c 'import sqlite3, sys, zlib
db = sqlite3.connect(sys.argv[1]); run = int(sys.argv[2])
idx = db.execute("select coalesce(max(idx), -1) + 1 from run_text where run_id = ?", (run,)).fetchone()[0]
db.executemany("insert into run_text(run_id, idx, what, size, cut, data) values (?,?,?,1,0,?)",
               [(run, idx + i, "r%d" % (i + 1), zlib.compress(bytes(1))) for i in range(66)])
db.commit()' "$TMP/rows.db" "$bomb"
"$PM" --db "$TMP/rows.db" show --output "$bomb" >/dev/null 2>"$TMP/err"
is "$?:$(cat "$TMP/err")" "2:pressmark show: the run keeps 67 texts of 71 bytes (at most 66 texts of 64 MiB together)" \
   "  and a run of more than 66 texts"
copy "$PRESSMARK_DB" "$TMP/claim.db"
texts "$TMP/claim.db" "$bomb" 1 big 67108865
"$PM" --db "$TMP/m-claim.db" merge "$TMP/claim.db" >/dev/null 2>"$TMP/err"
is "$?:$(cat "$TMP/err")" "2:pressmark merge: $TMP/claim.db: 1 kept text larger than a run keeps: nothing merged" \
   "a row claiming 67108865 bytes: merge refuses it"
copy "$PRESSMARK_DB" "$TMP/short.db"
texts "$TMP/short.db" "$bomb" 10 "$(printf 'log\033]0;x\007')" 11
"$PM" --db "$TMP/short.db" show --output "$bomb" >/dev/null 2>"$TMP/err"
is "$?:$(cat "$TMP/err")" "2:pressmark show: the run's text 'log\x1b]0;x\x07' does not inflate to its 11 bytes" \
   "a row claiming a byte more than it holds does not inflate, its name quoted"
ok "  no escape byte in the message" sh -c '! grep -q "$(printf "\033")" "$1"' sh "$TMP/err"

# Runs of one label that disagree on their headline: show and compare
# fall back to the workload's column (elapsed), not either run's figure.
"$PM" record --quiet --label dis --figure 'app.a:req/s:higher=^a: ([0-9]+)$' -- sh -c 'echo a: 1; echo b: 2'
"$PM" record --quiet --label dis --headline app.b --figure 'app.a:req/s:higher=^a: ([0-9]+)$' \
    --figure 'app.b:ms:lower=^b: ([0-9]+)$' -- sh -c 'echo a: 1; echo b: 2'
is "$(q "select group_concat(m.value, ' ') from run r join run_meta m on m.run_id = r.id and m.key = 'headline' where r.label = 'dis'")" \
   "app.a app.b" "two runs of a label, two headlines"
"$PM" show dis > "$TMP/dis.show"
like "$(head -n 3 "$TMP/dis.show")" "elapsed" "  show of the label: the workload's column (elapsed)"
unlike "$(cat "$TMP/dis.show")" "req/s|app\.[ab]" "  neither run's figure titles it"
"$PM" compare --format json rate100 dis > "$TMP/dis.json"
is "$(python3 -c 'import json, sys
c = json.load(open(sys.argv[1]))
c = c[0] if isinstance(c, list) else c.get("comparisons", [c])[0] if "labels" not in c else c
print(c["headline"])' "$TMP/dis.json")" "time.elapsed_s" "  compare of it with rate100: on time.elapsed_s"

# history and a suite's progress follow the runs' own headline.
"$PM" history rate110 > "$TMP/hist" 2>&1
is "$?" 0 "history of a label of figures exits 0"
like "$(cat "$TMP/hist")" "req/s" "  titled with the figure's unit"
like "$(cat "$TMP/hist")" "app.rate|110" "  on the figure"
cat > "$TMP/fig.ini" <<'INI'
[global]
runs = 1

[app]
workload = record
command = sh -c "echo rate: 110"
figure = app.rate:req/s:higher=^rate: ([0-9]+)$
INI
"$PM" suite run "$TMP/fig.ini" 2>"$TMP/suite.err" >/dev/null
is "$?" 0 "a suite of a record cell with --figure exits 0"
like "$(cat "$TMP/suite.err")" "app ok 110.0 req/s" "  its progress shows the figure and its unit"

# Bad input: one line, exit 2, and the database not even created.
NEW=$TMP/never.db
while IFS=$'\t' read -r re args; do
    [ -z "$re" ] && continue
    eval "set -- $args"
    bad "$args" "$re" --db "$NEW" record "$@" -- true
    ok "  $args: no database made" test ! -e "$NEW"
done <<'EOF_LIST'
^pressmark record: --figures: 'nope' is not a figures parser \(accepted: fio, stress-ng, redis-benchmark, pgbench, sysbench, hackbench, memcaslap\)$	--figures nope
^pressmark record: --figures: 'fio' after 'hackbench': one parser	--figures hackbench --figures fio
^pressmark record: --figure: 'bad': not NAME:UNIT:DIR=REGEX	--figure bad
^pressmark record: --figure: app.x: 'sideways' is not a direction \(accepted: higher, lower, none\)$	--figure 'app.x:ms:sideways=(1)'
^pressmark record: --figure: app.x: 'a"b' is not a unit	--figure 'app.x:a"b:lower=(1)'
^pressmark record: --figure: app.x: the pattern has no \(group\)	--figure 'app.x:ms:lower=1'
^pressmark record: --figure: app.x: named twice	--figure 'app.x=(1)' --figure 'app.x:s:lower=(2)'
^pressmark record: --figure: fio.read_iops: fio. names are the fio parser's$	--figure 'fio.read_iops=(1)'
^pressmark record: --figure time.elapsed_s: a metric pressmark declares	--figure 'time.elapsed_s:s:lower=(1)'
^pressmark record: --headline fio.nope: not a figure these runs read	--figures fio --headline fio.nope
^pressmark record: --headline app.y: no figures to choose from	--headline app.y
^pressmark record: --headline app.y: not a figure these runs read \(accepted: a --figure's name\)$	--figure 'app.x:ms:lower=(1)' --headline app.y
^pressmark record: --headline fio.read_iops: not a figure these runs read \(accepted: a --figure's name, or a figure of hackbench as 'pressmark help metrics' lists them\)$	--figures hackbench --headline fio.read_iops
^pressmark record: --figures-log x\*: fio takes no log \(accepted: with --figures pgbench\)$	--figures fio --figures-log 'x*'
^pressmark record: --figures-log x\*: no --figures parser to read it	--figures-log 'x*'
^pressmark record: --figures-log: 'x' twice	--figures pgbench --figures-log x --figures-log x
^pressmark record: --figures-from f: no figures to read from it	--figures-from f
^pressmark record: --headline: 'b' after 'a': a run has one headline	--headline a --headline b
EOF_LIST
done_testing
