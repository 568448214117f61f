#!/bin/bash
# pressmark export: runs as CSV, JSON lines and line protocol for other
# programs. The runs are the fixture's two real recordings (321 series of a
# 6.18 kernel, PSI averages among them) merged into this test's database:
# no run is made here, so no cgroup either. Every value must be the sample
# view's, exactly; line protocol must be what push sends; hostile series
# names and labels stay data in every format; bad input is one line, exit 2
# and nothing written; and memory stays flat from a 10,000-tick run to a
# 20,000-tick one.
. "$(dirname "$0")/lib.sh"
# A state directory of its own, so no command here recovers another
# test's runs' leftovers.
export PRESSMARK_STATE_DIR="$TMP/state"
mkdir -m 700 "$PRESSMARK_STATE_DIR"
cd "$TMP" || exit 1
FIX="$ROOT/tests/fixtures/results-schema4.db"
# (A copy: SQLite leaves -wal and -shm beside a WAL database it reads.)
cp "$FIX" fixture.db
setup "the fixture's two recorded runs merged" "$PM" merge fixture.db
SAMPLES=$(q "select count(*) from sample")
TICKS1=$(q "select count(distinct seq) from sample where run_id = 1")
SERIES1=$(q "select count(distinct name) from sample where run_id = 1")

# The sample view through Python's sqlite3 (whole doubles, not the shell's
# 15 digits) beside what export wrote; text as bytes wherever it is read,
# so a name that is not UTF-8 is compared too.
cat > check.py <<'PY'
import csv, io, json, re, sqlite3, sys
def db(path):
    d = sqlite3.connect(path)
    d.text_factory = lambda b: b.decode("utf-8", "surrogateescape")
    return d
def samples(path, where="1"):
    return {(r, n, s): (t, v) for r, n, s, t, v in
            db(path).execute(f"select run_id, name, seq, t_ns, value from sample where {where}")}
def text(path):
    return open(path, "rb").read().decode("utf-8", "surrogateescape")
def rows(path):
    return list(csv.reader(io.StringIO(text(path), newline="")))
def same(value, field):
    """field is value written exactly: an integer as its digits, a real
    reading back as the same double, never an exponent."""
    if isinstance(value, int) or value.is_integer():
        return field == str(int(value))
    return re.fullmatch(r"-?[0-9]+\.[0-9]*[1-9]", field) is not None and float(field) == value
def unformula(field):
    """The text a CSV field stands for: an apostrophe before a formula's
    first character is export's, not the data's."""
    return field[1:] if field[:1] == "'" and field[1:2] in ("=", "+", "-", "@", "\t", "\r") else field
PY
export PYTHONPATH=$TMP

# CSV, long form: one row per (run, tick, series), every value the view's.
"$PM" export 1 2 > all.csv
is "$?" 0 "export of two runs exits 0"
csvcheck=$(python3 - "$PRESSMARK_DB" all.csv <<'PY'
import sys, decimal
from check import *
want = samples(sys.argv[1])
r = rows(sys.argv[2])
head, body = r[0], r[1:]
runs = {i: (u, l) for i, u, l in db(sys.argv[1]).execute("select id, uuid, label from run")}
bad = sum(1 for x in body if len(x) != 8)
got = {(int(x[0]), x[6], int(x[3])): x for x in body}
wrong = [k for k, (t, v) in want.items() if k not in got or not same(v, got[k][7]) or got[k][4] != str(t)
         or decimal.Decimal(got[k][5]) != decimal.Decimal(t) / decimal.Decimal(10**9)
         or (got[k][1], got[k][2]) != runs[k[0]]]
print(",".join(head), len(body), len(got), bad, len(wrong), wrong[:3])
PY
)
is "$csvcheck" "run,uuid,label,seq,t_ns,time_s,name,value $SAMPLES $SAMPLES 0 0 []" \
   "csv: the header, and a row for each of the sample view's $SAMPLES values: same run, uuid, label, seq, t_ns, value; time_s = t_ns / 1e9 exactly"
like "$(grep -c ',psi\.cpu\.some\.avg10,1\.68$' all.csv)" "^[1-9]" "a PSI average as stored (1.68, not 1.6799999999999999)"
is "$(grep -cE ',[0-9.e+-]*[eE][+-]?[0-9]+$|\.0$' all.csv)" 0 "no value in e-notation or with a bare .0"
like "$(grep -c ',9223372036854771712$' all.csv)" "^[1-9]" "a counter above 2^53 keeps every digit"

# Selecting runs: a label is each of its runs, a run named twice goes out
# once, none named is the newest, a UUID is its run.
"$PM" export old-format > label.csv
ok "a label exports each of its runs, oldest first (the same bytes as 1 2)" cmp -s label.csv all.csv
"$PM" export 1 old-format 1 > twice.csv
ok "a run named twice goes out once" cmp -s twice.csv all.csv
"$PM" export > newest.csv
is "$(tail -n +2 newest.csv | cut -d, -f1 | sort -u)" 2 "no argument: the newest run"
"$PM" export "$(q "select uuid from run where id = 2")" > uuid.csv
ok "a UUID selects its run" cmp -s uuid.csv newest.csv
"$PM" export -- 1 > dashdash.csv
is "$(tail -n +2 dashdash.csv | cut -d, -f1 | sort -u)" 1 "-- before the runs"

# --wide: a row per tick, a column per series; empty where there is none.
"$PM" export 1 --wide > wide.csv
widecheck=$(python3 - "$PRESSMARK_DB" wide.csv <<'PY'
import sys
from check import *
want = samples(sys.argv[1], "run_id = 1")
r = rows(sys.argv[2])
head, body = r[0], r[1:]
names = head[6:]
widths = {len(x) for x in r}
cells = {(1, n, int(x[3])): x[6 + i] for x in body for i, n in enumerate(names)}
wrong = [k for k, (t, v) in want.items() if not same(v, cells.get(k, ""))]
extra = [k for k, c in cells.items() if c != "" and k not in want]
print(",".join(head[:6]), len(names), len(set(names)), sorted(widths), len(body), len(wrong), len(extra))
PY
)
is "$widecheck" "run,uuid,label,seq,t_ns,time_s $SERIES1 $SERIES1 [$((6 + SERIES1))] $TICKS1 0 0" \
   "--wide: one column per series ($SERIES1), every row as wide, a row per tick, each cell the view's value"

# JSON lines: an object per tick, its values the view's; with metrics and
# meta, the run's own line first, holding the metric and run_meta tables.
"$PM" export 1 2 --format jsonl > all.jsonl
jsoncheck=$(python3 - "$PRESSMARK_DB" all.jsonl <<'PY'
import json, sys
from check import *
want = samples(sys.argv[1])
lines = text(sys.argv[2]).splitlines()
objs = [json.loads(l) for l in lines]
got = {(o["run"], n, o["seq"]): (o["t_ns"], v) for o in objs for n, v in o["values"].items()}
types = all(type(got[k][1]) is int for k, (t, v) in want.items() if k in got and isinstance(v, int))
print(len(objs), sorted({tuple(o) for o in objs}), got == want, types)
PY
)
is "$jsoncheck" "$(q "select count(*) from tick") [('run', 'uuid', 'label', 'seq', 't_ns', 'values')] True True" \
   "jsonl: a line per tick, each parsed by json, its values the view's (integers as integers)"
"$PM" export 1 --format jsonl --what metrics,meta,samples > run.jsonl
runcheck=$(python3 - "$PRESSMARK_DB" run.jsonl <<'PY'
import json, sys
from check import *
d = db(sys.argv[1])
lines = [json.loads(l) for l in text(sys.argv[2]).splitlines()]
first = lines[0]
metrics = {n: {"value": v, "unit": u, "direction": dr} for n, v, u, dr in
           d.execute("select name, value, unit, direction from metric where run_id = 1")}
meta = dict(d.execute("select key, value from run_meta where run_id = 1"))
run = d.execute("select r.uuid, r.label, r.workload, r.status, r.started_ns, m.hostname, m.kernel from run r join machine m on m.id = r.machine_id where r.id = 1").fetchone()
head = (first["uuid"], first["label"], first["workload"], first["status"], first["started_ns"], first["host"], first["kernel"])
print(first["metrics"] == metrics, first["metadata"] == meta, head == run, len(lines) - 1, all("values" in l for l in lines[1:]))
PY
)
is "$runcheck" "True True True $TICKS1 True" "jsonl --what metrics,meta,samples: the run's line (metrics with unit and direction, metadata, who and when) before its ticks"

# CSV of metrics and of metadata: the tables as they are.
"$PM" export 1 2 --what metrics > metrics.csv
"$PM" export 1 2 --what meta > meta.csv
tablecheck=$(python3 - "$PRESSMARK_DB" metrics.csv meta.csv <<'PY'
import sys
from check import *
d = db(sys.argv[1])
m = rows(sys.argv[2]); t = rows(sys.argv[3])
wm = {(r, n): (v, u, dr) for r, n, v, u, dr in d.execute("select run_id, name, value, unit, direction from metric")}
gm = {(int(x[0]), x[4]): x for x in m[1:]}
mok = len(gm) == len(wm) == len(m) - 1 and all(same(v, gm[k][5]) and (u, dr) == (gm[k][6], gm[k][7]) for k, (v, u, dr) in wm.items())
wt = {(r, k): v for r, k, v in d.execute("select run_id, key, value from run_meta")}
gt = {(int(x[0]), x[3]): x[4] for x in t[1:]}
print(",".join(m[0]), mok, ",".join(t[0]), gt == wt, len(gt))
PY
)
is "$tablecheck" "run,uuid,label,workload,name,value,unit,direction True run,uuid,label,key,value True $(q "select count(*) from run_meta")" \
   "csv --what metrics and --what meta: every row of the metric and run_meta tables, values exact"

# --series: shell patterns over the names, repeatable, commas between.
"$PM" export 1 2 --series 'psi.*,vmstat.pswp*' --series meminfo.MemFree > some.csv
seriescheck=$(python3 - "$PRESSMARK_DB" some.csv <<'PY'
import fnmatch, sys
from check import *
want = {k: v for k, v in samples(sys.argv[1]).items()
        if any(fnmatch.fnmatchcase(k[1], g) for g in ("psi.*", "vmstat.pswp*", "meminfo.MemFree"))}
got = {(int(x[0]), x[6], int(x[3])) for x in rows(sys.argv[2])[1:]}
print(len(want) > 0, got == set(want))
PY
)
is "$seriescheck" "True True" "--series keeps exactly the series its patterns match"
"$PM" export 1 --what metrics --series 'time.*' > tmetrics.csv
is "$(tail -n +2 tmetrics.csv | cut -d, -f5 | sort | tr '\n' ' ')" \
   "$(q "select name from metric where run_id = 1 and name glob 'time.*' order by name" | tr '\n' ' ')" \
   "--series filters metrics by the same patterns"

# Line protocol: byte for byte what push sends (a server on loopback that
# keeps the bodies it is sent).
cat > sink.py <<'PY'
import gzip, http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        with open(sys.argv[2], "ab") as f:
            f.write(body)
        self.send_response(204)
        self.send_header("Content-Length", "0")
        self.end_headers()
    def log_message(self, *a):
        pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
port=$(free_port)
python3 sink.py "$port" "$TMP/pushed.line" & SINK=$!
cleanup_add "stop_bg $SINK"
wait_for python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' "$port" 2>/dev/null
cp "$PRESSMARK_DB" push.db   # push remembers what it delivered: a copy of its own
"$PM" --db push.db push --samples "http://127.0.0.1:$port/write" > /dev/null
is "$?" 0 "push --samples to the loopback sink"
stop_bg $SINK
"$PM" export 1 2 --format line --what metrics,samples > all.line
ok "export --format line --what metrics,samples is byte for byte push --samples's body" cmp -s all.line pushed.line
"$PM" export 1 2 --format line > samples.line
is "$(grep -v '^pressmark_record_samples,' samples.line | wc -l) $(wc -l < samples.line)" "0 $(q "select count(*) from tick")" \
   "--format line alone: a point per tick, nothing else"
ok "and those are push's sample points" cmp -s samples.line <(grep '^pressmark_record_samples,' pushed.line)
start=$(q "select started_ns from run where id = 2")
last=$(q "select max(t_ns) from sample where run_id = 2")
is "$(tail -1 samples.line | awk '{ print $NF }')" "$((start + last))" "a point's time is the run's start + t_ns"

# --out: the file, whole; a symlink refused, its target untouched; a device
# or a FIFO written to, never replaced (as root, --out /dev/null must not
# become a file); a file replaced keeps its permissions.
"$PM" export 1 2 --out out.csv > out.stdout
ok "--out writes the file: the same bytes as standard output" cmp -s out.csv all.csv
is "$(wc -c < out.stdout)" 0 "and nothing on standard output"
echo target > target.txt
ln -s target.txt link.csv
bad "--out naming a symlink" "^pressmark export: --out: link\.csv: Too many levels of symbolic links$" export 1 --out link.csv
is "$(cat target.txt)" target "  not written through"
ok "  the link left as it was" test -L link.csv
is "$(ls -A | grep -c '\.tmp$\|\.csv\.')" 0 "no temporary file left beside it"
# (the reader there first: a FIFO nobody reads is refused, not waited on)
cat > reader.py <<'PY'
# reader.py FIFO READY OUT: open FIFO without waiting for a writer, say so
# (READY), then copy what comes to OUT until a writer has come and gone.
import os, select, sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
open(sys.argv[2], "w").close()
out = open(sys.argv[3], "wb")
p = select.poll()
p.register(fd, select.POLLIN)
while True:
    p.poll()
    try:
        b = os.read(fd, 65536)
    except BlockingIOError:
        continue
    if not b:
        break
    out.write(b)
PY
reader() { rm -f "$2"; python3 reader.py "$1" "$2" "$3" & wait_for test -e "$2"; }
mkfifo pipe.csv
reader pipe.csv reader.ready from-pipe.csv
"$PM" export 1 2 --out pipe.csv
wait
ok "--out naming a FIFO writes into it (a reader gets the export)" cmp -s from-pipe.csv all.csv
ok "  and leaves the FIFO a FIFO" test -p pipe.csv
if mknod chardev.csv c 1 3 2>"$TMP/mknod.err"; then
    "$PM" export 1 --out chardev.csv
    is "$?" 0 "--out naming a character device (a null device's node, here) writes to it"
    ok "  and leaves it a device" test -c chardev.csv
else
    # (as a user, or where the directory's filesystem is mounted nodev)
    why="mknod of a null device's node here failed: $(head -1 "$TMP/mknod.err")"
    skip "--out naming a character device: $why"
    skip "  and leaves it a device: $why"
fi
echo private > private.csv
chmod 600 private.csv
"$PM" export 1 --out private.csv
is "$(stat -c %a private.csv)" 600 "a file --out replaces keeps its permissions (0600 stays 0600)"
# Only the permission bits, only of a file of ours, and under the umask;
# a new file is 0666 under the umask.
echo mine > mine.csv
chmod 6777 mine.csv
(umask 022; "$PM" export 1 --out mine.csv)
is "$(stat -c %a mine.csv)" 755 "a 6777 file of ours replaced: 755 under umask 022 (no setuid or setgid bit)"
(umask 027; "$PM" export 1 --out new-027.csv)
is "$(stat -c %a new-027.csv)" 640 "a new file under umask 027: 640"
# Hostile: what another user plants at --out. A FIFO there held the open
# for ever; a 6777 file lent root's file its setuid bits.
mkfifo own.fifo
timeout 20 "$PM" export 1 --out own.fifo >/dev/null 2>err
is "$?:$(wc -l < err)" "2:1" "--out naming our FIFO nobody reads: exit 2 at once (not timeout's 124), one line"
like "$(cat err)" "^pressmark export: --out: own\.fifo is a FIFO that nobody reads \(owner $(id -u); accepted: a regular file, or a FIFO with a reader or a character device of this user's or root's\)$" \
    "  naming the file, what it is and what is accepted"
if [ "$(id -u)" -eq 0 ] && nobody=$(id -u nobody 2>/dev/null); then
    mkfifo planted.fifo && chown nobody planted.fifo
    timeout 20 "$PM" export 1 --out planted.fifo >/dev/null 2>err
    is "$?:$(wc -l < err)" "2:1" "--out naming a FIFO another user planted, nobody reading: exit 2 at once, one line"
    like "$(cat err)" "^pressmark export: --out: planted\.fifo is a FIFO of another user's \(owner $nobody; accepted: " "  saying whose it is"
    reader planted.fifo planted.ready from-planted.csv
    timeout 20 "$PM" export 1 --out planted.fifo >/dev/null 2>err
    is "$?" 2 "  refused with a reader on it too"
    exec 5>planted.fifo; exec 5>&-       # the reader's writer comes and goes: it ends
    wait
    is "$(wc -c < from-planted.csv)" 0 "  and nothing written into it"
    ok "  left a FIFO" test -p planted.fifo
    mknod planted.dev c 1 3 && chown nobody planted.dev
    "$PM" export 1 --out planted.dev >/dev/null 2>err
    is "$?:$(cat err)" "2:pressmark export: --out: planted.dev is a character device of another user's (owner $nobody; accepted: a regular file, or a FIFO with a reader or a character device of this user's or root's)" \
        "--out naming a character device another user planted: exit 2, one line"
    echo planted > planted.csv && chown nobody planted.csv && chmod 6777 planted.csv
    (umask 022; "$PM" export 1 --out planted.csv)
    is "$(stat -c '%a %u' planted.csv)" "644 0" "a 6777 file another user planted, replaced: root's 644 under umask 022, no setuid bit"
    ok "  holding the export" cmp -s planted.csv <("$PM" export 1)
    echo private > theirs.csv && chown nobody theirs.csv && chmod 600 theirs.csv
    (umask 022; "$PM" export 1 --out theirs.csv)
    is "$(stat -c '%a %u' theirs.csv)" "600 0" "another user's 0600 file, replaced by root: still 600, never wider than it was"
else
    skip "planting another user's FIFO, device and 6777 file needs root (chown) and a user nobody"
fi

# Bad input: one line naming the option, exit 2, nothing on standard
# output, --out neither made nor touched.
echo "keep me" > kept.csv
refused() {  # refused DESCRIPTION REGEX ARGS...
    local desc=$1 re=$2; shift 2
    bad "$desc" "$re" export "$@" --out "$TMP/never.csv"
    ok "$desc: --out not made" test ! -e "$TMP/never.csv"
    "$PM" export "$@" --out kept.csv >/dev/null 2>&1
    is "$(cat kept.csv)" "keep me" "$desc: an existing --out file left as it was"
    "$PM" export "$@" > "$TMP/stdout" 2>/dev/null
    is "$(wc -c < "$TMP/stdout")" 0 "$desc: nothing on standard output"
}
refused "an unknown format" "^pressmark export: --format: 'xml' is not a format \(accepted: csv, jsonl, line\)$" --format xml 1
refused "an unknown run" "^pressmark export: no run, UUID or label 'nosuch' in .*results\.db \(see 'pressmark list'\)$" 1 nosuch
refused "a pattern that matches nothing" "^pressmark export: --series: 'vmstat\.nosuch\*' matches no series of the runs exported" \
    --series 'psi.*,vmstat.nosuch*' 1 2
refused "an empty pattern" "^pressmark export: --series: an empty pattern" --series 'psi.*,' 1
refused "something a run does not hold" "^pressmark export: --what: 'ticks' is not something a run holds \(accepted: samples, metrics or meta" \
    --what samples,ticks 1
refused "two tables in one CSV" "^pressmark export: --what: CSV is one table a file" --what samples,metrics 1
refused "metadata as line protocol" "^pressmark export: --what: line protocol has no place for metadata" --format line --what meta 1
refused "--wide beyond csv samples" "^pressmark export: --wide: lays out samples in CSV" --wide --format jsonl 1
refused "an unknown option" "^pressmark export: unknown option or missing value '--frob'" --frob 1
bad "--out in a directory that is not there" "^pressmark export: --out: $TMP/no/such/x\.csv: No such file or directory$" \
    export 1 --out "$TMP/no/such/x.csv"
bad "--out naming a directory" "^pressmark export: --out: $TMP: Is a directory$" export 1 --out "$TMP"
"$PM" --db "$TMP/none.db" export 1 > /dev/null 2>"$TMP/err"
is "$?:$(wc -l < "$TMP/err")" "2:1" "no database: exit 2, one line"
ok "and none made" test ! -e "$TMP/none.db"

# Failing part way (a file size limit, with SIGXFSZ ignored, so the write
# itself fails; 128 KiB, above the 32 KiB of the database's -shm that
# SQLite maps, below the 300 KiB of the export): exit 2, the one line, and
# --out's file as it was.
( trap '' XFSZ; ulimit -f 128; "$PM" export 1 2 --out kept.csv ) 2>"$TMP/err"
is "$?" 2 "a write that fails part way: exit 2"
like "$(cat "$TMP/err")" "^pressmark export: writing the export: File too large$" "saying why, in one line"
is "$(cat kept.csv)" "keep me" "--out's file as it was"
is "$(ls -A | grep -c '\.tmp$\|kept\.csv\.')" 0 "and no temporary file left"
( trap '' XFSZ; ulimit -f 128; "$PM" export 1 2 > big.csv ) 2>"$TMP/err"
is "$?" 2 "to standard output too"
like "$(cat "$TMP/err")" "^pressmark export: writing the export: File too large \(the output above is incomplete\)$" \
   "the one line says the output is incomplete"

# Hostile names: series named with commas, quotes, line breaks, '=',
# spaces, formulas, escape sequences, a trailing backslash and bytes that
# are not UTF-8, and a label of the same kind. Every format stays what it
# claims to be and every name comes back whole.
cp "$PRESSMARK_DB" hostile.db
sqlite3 hostile.db <<'SQL'
UPDATE tick_series SET name = 'com,ma' WHERE run_id = 1 AND idx = 0;
UPDATE tick_series SET name = 'quo"te' WHERE run_id = 1 AND idx = 1;
UPDATE tick_series SET name = 'new' || char(10) || 'line' WHERE run_id = 1 AND idx = 2;
UPDATE tick_series SET name = 'eq=ual' WHERE run_id = 1 AND idx = 3;
UPDATE tick_series SET name = 'sp ace' WHERE run_id = 1 AND idx = 4;
UPDATE tick_series SET name = '=HYPERLINK("http://example.invalid","x")' WHERE run_id = 1 AND idx = 5;
UPDATE tick_series SET name = '+1+1' WHERE run_id = 1 AND idx = 6;
UPDATE tick_series SET name = 'esc' || char(27) || '[31mred' || char(27) || '[0m' WHERE run_id = 1 AND idx = 7;
UPDATE tick_series SET name = 'back\' WHERE run_id = 1 AND idx = 8;
UPDATE tick_series SET name = CAST(x'6e6f7475746638ff' AS TEXT) WHERE run_id = 1 AND idx = 9;
UPDATE tick_series SET name = 'cr' || char(13) || 'lf' || char(13) || char(10) WHERE run_id = 1 AND idx = 10;
UPDATE run SET label = '=cmd|'' /C calc''!A0,' || char(10) || 'x' WHERE id = 1;
SQL
H=(--db "$TMP/hostile.db")
"$PM" "${H[@]}" export 1 > h.csv && "$PM" "${H[@]}" export 1 --wide > hw.csv &&
"$PM" "${H[@]}" export 1 --format jsonl > h.jsonl && "$PM" "${H[@]}" export 1 --format line > h.line &&
"$PM" "${H[@]}" export 1 --what metrics > hm.csv
is "$?" 0 "every format exports the hostile run"
hostile=$(python3 - "$TMP/hostile.db" <<'PY'
import json, re, sys
from check import *
d = db(sys.argv[1])
names = [n for (n,) in d.execute("select name from tick_series where run_id = 1 order by idx")]
label = d.execute("select label from run where id = 1").fetchone()[0]
want = samples(sys.argv[1], "run_id = 1")
ticks = len({k[2] for k in want})
out = []
# CSV, long: 8 fields a row, names and label whole once the apostrophe
# before a formula is taken off, no field left a formula.
r = rows("h.csv")
formula = [c for x in r for c in x if c[:1] in ("=", "+", "@") or (c[:1] == "-" and not c[1:2].isdigit())]
got = {(1, x[6] and unformula(x[6]), int(x[3])) for x in r[1:]}
out.append(f"csv {all(len(x) == 8 for x in r)} {got == set(want)} {len(formula)} {all(unformula(x[2]) == label for x in r[1:])}")
# CSV, wide: the header as wide as every row, the names whole.
w = rows("hw.csv")
out.append(f"wide {len({len(x) for x in w})} {[unformula(c) for c in w[0][6:]] == names}")
# JSON lines: every line parses; names whole (a byte that is not UTF-8 as U+FFFD).
objs = [json.loads(l) for l in open("h.jsonl", encoding="utf-8")]
fix = lambda n: n.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
keys = {n for o in objs for n in o["values"]}
out.append(f"jsonl {len(objs) == ticks} {keys == {fix(n) for n in names}} {objs[0]['label'] == label}")
# Line protocol: a point a line; split at unescaped spaces into three
# parts, at unescaped commas into fields, each with one unescaped '='.
def split(s, sep):
    parts, cur, i = [], "", 0
    while i < len(s):
        if s[i] == "\\" and i + 1 < len(s):
            cur += s[i:i + 2]; i += 2; continue
        if s[i] == sep:
            parts.append(cur); cur = ""
        else:
            cur += s[i]
        i += 1
    return parts + [cur]
unesc = lambda s: re.sub(r"\\(.)", r"\1", s)
lines = text("h.line").split("\n")[:-1]
good, fkeys = True, set()
for l in lines:
    p = split(l, " ")
    good &= len(p) == 3 and p[2].isdigit()
    for f in split(p[1], ","):
        kv = split(f, "=")
        good &= len(kv) == 2
        fkeys.add(unesc(kv[0]))
out.append(f"line {len(lines) == ticks} {good} {fkeys == {n.replace(chr(10), ' ').replace(chr(13), ' ') for n in names}}")
print(" | ".join(out))
PY
)
is "$hostile" "csv True True 0 True | wide 1 True | jsonl True True True | line True True True" \
   "hostile names and label: csv rows keep their width and no formula, names whole; json parses; line protocol splits into its parts"
like "$(cat h.csv)" "\"'=HYPERLINK\(\"\"http" "a formula is quoted with an apostrophe in front"
is "$(python3 -c 'import sys; b = open(sys.argv[1], "rb").read(); print(b"\x1b" in b, b"esc\\u001B[31m" in b)' h.jsonl)" "False True" \
   "an escape sequence in JSON is \\u001B, never the byte itself"

# Streaming: memory does not grow with a run's length. The long runs are
# the fixture's run 2 with its ticks repeated, written as schema 4 stored
# them (a JSON array of every value a tick) and merged like any older
# database, so they do not depend on how ticks are stored now. Peak RSS of
# a 5-tick, a 10,000-tick and a 20,000-tick export: what is bounded but
# not fixed is SQLite's page cache (2 MiB at most, which the 10,000-tick
# database, 1.4 MB, does not fill) and the reader's blocks, so from 10,000
# ticks to 20,000 (3.2 million more CSV rows, 330 MB) it may grow by 3 MiB
# at most, and above 5 ticks by 8 MiB; holding the values alone would take
# 50 MB more, the output 660 MB.
if sanitized; then
    for i in $(seq 6); do skip "the sanitised build's allocator keeps freed memory: peak RSS says nothing there"; done
else
    long_db() {  # long_db N: long$N.db, its run 2 of N ticks
        cp "$FIX" long4.db
        sqlite3 long4.db "WITH RECURSIVE k(n) AS (SELECT 6 UNION ALL SELECT n + 1 FROM k WHERE n < $1 - 1)
                          INSERT INTO tick(run_id, seq, t_ns, data)
                          SELECT 2, n, n * 50000000, (SELECT data FROM tick WHERE run_id = 2 AND seq = n % 6) FROM k"
        "$PM" --db "$TMP/long$1.db" merge long4.db > /dev/null
        rm -f long4.db*
    }
    long_db 10000
    long_db 20000
    is "$("$PM" --db "$TMP/long20000.db" export 2 --series stat.cpu.user | tail -n +2 | cut -d, -f4 | sort -u | wc -l)" 20000 \
       "a merged run of 20,000 ticks"
    # Peak RSS as wait4 gives it (ru_maxrss) for the export alone, forked
    # by a wrapper of a few pages: the high-water mark a process execs
    # from is kept with its own, so a wrapper of python3's or perl's size
    # would hide an export smaller than itself. (/usr/bin/time did this;
    # run.sh does not install it, and gcc it does.)
    setup "a peak-RSS wrapper, compiled" ${CC:-cc} -O -o "$TMP/maxrss" -x c - <<'C'
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    pid_t pid = fork();
    if (pid == 0) {
        execv(argv[2], argv + 2);
        _exit(127);
    }
    int st;
    struct rusage ru;
    FILE *f = fopen(argv[1], "w");
    if (pid < 0 || !f || wait4(pid, &st, 0, &ru) != pid)
        return 1;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
        fprintf(f, "%ld\n", ru.ru_maxrss);
    else
        fprintf(f, "failed\n");
    return fclose(f) != 0;
}
C
    peak() {  # peak N ARGS...: the peak RSS in KB of exporting from long$N.db; its lines counted
        "$TMP/maxrss" "$TMP/rss" "$PM" --db "$TMP/long$1.db" export "${@:2}" | wc -l > "$TMP/lines"
        cat "$TMP/rss"
    }
    for fmt in "" "--wide" "--format jsonl" "--format line"; do
        short=$(peak 20000 1 $fmt)
        mid=$(peak 10000 2 $fmt)
        long=$(peak 20000 2 $fmt)
        lines=$(cat "$TMP/lines")
        ok "export ${fmt:---format csv} ($lines lines for 20,000 ticks): peak RSS $short KB for 5 ticks, $mid KB for 10,000, $long KB for 20,000" \
            test "$lines" -ge 20000 -a "$long" -le $((mid + 3072)) -a "$long" -le $((short + 8192))
    done
fi
# An integer a double cannot hold (2^53 + 1) goes out with every digit, in
# every format (a steady series of run 1 made to hold it).
big=9007199254740993
q "update tick_series set const_value = $big where run_id = 1 and idx = (select min(idx) from tick_series
   where run_id = 1 and const_value is not null and real = 0)"
bigname=$(q "select name from tick_series where run_id = 1 and const_value = $big")
is "$(q "select distinct value from sample where run_id = 1 and name = '$bigname'")" "$big" "the view holds $big ($bigname)"
is "$("$PM" export 1 --series "$bigname" | awk -F, 'NR > 1 { print $NF }' | sort -u)" "$big" "  csv gives it whole"
like "$("$PM" export 1 --series "$bigname" --format jsonl | head -1)" "\"$bigname\":$big}" "  and JSON lines"
like "$("$PM" export 1 --series "$bigname" --format line | head -1)" "$bigname=$big " "  and line protocol"
done_testing
