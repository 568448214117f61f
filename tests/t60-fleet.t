#!/bin/bash
# Nightly CI and fleets: regression exit codes and JUnit, baselines over HTTP, merge, push.
. "$(dirname "$0")/lib.sh"
export PRESSMARK_CACHE="$TMP/cache"

# VictoriaMetrics, for push below, starts meanwhile (a second or so).
if command -v victoria-metrics >/dev/null; then
    vport=$(free_port)
    start_vm() {
        victoria-metrics -storageDataPath="$TMP/vm" -httpListenAddr=127.0.0.1:$vport -retentionPeriod=100y \
            -search.latencyOffset=0s -search.disableCache >"$TMP/vm.log" 2>&1 &
        VM=$!
    }
    vm_up() { wait_for curl -sf "http://127.0.0.1:$vport/health" -o /dev/null; }
    start_vm
    # The server is still writing its data directory until it has exited:
    # wait for it, or removing $TMP races with it.
    cleanup_add 'stop_bg $VM'
fi

# Databases with known differences: last night (fast) and tonight (slow).
# (Their elapsed times are set below: the sleeps give the runs a few ticks
# each, for the samples merged and pushed, and need be no longer.)
NIGHT="$TMP/night.db"
setup "last night's runs" "$PM" --db "$NIGHT" record --quiet --label nightly --runs 3 -- sleep 0.1
setup "tonight's slower runs" "$PM" record --quiet --label tonight --runs 3 -- sleep 0.1
setup "runs as fast as last night's" "$PM" record --quiet --label same --runs 3 -- sleep 0.1
setup "a single run" "$PM" record --quiet --label single -- sleep 0.1
setup "two ok runs of a flaky label" "$PM" record --quiet --label flaky --runs 2 -- sleep 0.1
setup "and one that fails (exit 1 is its result)" sh -c '"$1" record --quiet --label flaky -- sh -c "exit 1"; [ $? -eq 1 ]' sh "$PM"
setup "the flaky label last night, all ok" "$PM" --db "$NIGHT" record --quiet --label flaky --runs 2 -- sleep 0.1
# The elapsed times made exact, so the differences are the ones meant and
# not the machine's noise: each label's runs 1 % apart around 0.2 s, and
# tonight's around 0.3 s (50 % slower).
known() {  # known DB LABEL SECONDS
    sqlite3 "$1" "update metric set value = $3 * (0.99 + 0.01 * (select count(*) from run r where r.label = '$2' and r.id < metric.run_id))
                  where name = 'time.elapsed_s' and run_id in (select id from run where label = '$2' and status = 'ok')"
}
for l in nightly flaky; do setup "last night's $l at known times" known "$NIGHT" "$l" 0.2; done
for l in same single flaky; do setup "$l at known times" known "$PRESSMARK_DB" "$l" 0.2; done
setup "tonight at known times" known "$PRESSMARK_DB" tonight 0.3
M=(--metric time.elapsed_s)

# The CI contract: 1 regressed, 0 not, 2 cannot judge; the verdict is the last line.
"$PM" compare --baseline-db "$NIGHT" --baseline nightly tonight "${M[@]}" --fail-on-regression 5 --junit "$TMP/j.xml" > "$TMP/out" 2>"$TMP/err"
is "$?" 1 "tonight is 50 % slower than last night: exit 1"
like "$(tail -1 "$TMP/out")" "^verdict: regression: a metric is worse than the baseline by more than 5 %" "the last line says so"
like "$(cat "$TMP/out")" "REGRESSION record: time.elapsed_s elapsed is [0-9.]+ % worse with tonight than with nightly \(.*night.db\)" "naming metric, labels and numbers"
"$PM" compare --baseline-db "$NIGHT" --baseline nightly same "${M[@]}" --fail-on-regression 5 > "$TMP/out" 2>/dev/null
is "$?" 0 "the same workload: exit 0"
like "$(tail -1 "$TMP/out")" "^verdict: no regression beyond 5 %" "the last line says so"
"$PM" compare --baseline-db "$NIGHT" --baseline nightly tonight "${M[@]}" --fail-on-regression 80 > /dev/null 2>&1
is "$?" 0 "a 50 % slowdown passes a threshold of 80 %"
"$PM" compare --baseline-db "$NIGHT" --baseline nightly single "${M[@]}" --fail-on-regression 5 > "$TMP/out" 2>/dev/null
is "$?" 2 "one run against three: exit 2"
like "$(cat "$TMP/out")" "cannot judge record: single: n too small \(1 ok runs against 3" "saying why"
"$PM" compare --baseline-db "$NIGHT" --baseline flaky flaky "${M[@]}" --fail-on-regression 5 > "$TMP/out" 2>/dev/null
is "$?" 2 "a failed run where the baseline had none: exit 2"
like "$(cat "$TMP/out")" "flaky: 1 failed and 0 oom runs where the baseline had none" "saying why"
"$PM" compare --baseline nosuch tonight --fail-on-regression 5 > /dev/null 2>&1
is "$?" 2 "a missing baseline: exit 2"
"$PM" compare --baseline same tonight "${M[@]}" --fail-on-regression 5 --format json > "$TMP/v.json" 2>/dev/null
is "$?" 1 "--format json keeps the exit status"
is "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"]["exit_status"])' "$TMP/v.json")" 1 "and carries the verdict"
junit=$(python3 - "$TMP/j.xml" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites"
suites = root.findall("testsuite")
cases = [c for s in suites for c in s.findall("testcase")]
fails = [f for c in cases for f in c.findall("failure")]
s = suites[0]
ok = (len(suites) == 1 and s.get("name") == "pressmark.record" and int(s.get("tests")) == len(cases) == 1
      and int(s.get("failures")) == len(fails) == 1 and cases[0].get("classname").startswith("pressmark.record.tonight")
      and cases[0].get("name") == "time.elapsed_s" and "mean=" in fails[0].text and "slower with tonight" in fails[0].text
      and "worse than" in fails[0].get("message"))
print("valid" if ok else "invalid")
PY
)
is "$junit" valid "JUnit: testsuites/testsuite/testcase/failure with the numbers and the ratio sentence"

# Baselines over HTTP: fetched once, then revalidated (304); clear errors.
mkdir -p "$TMP/www"
cp "$NIGHT" "$TMP/www/base.db"
printf 'this is not a database\n' > "$TMP/www/junk.db"
port=$(free_port)
(cd "$TMP/www" && exec python3 -m http.server "$port" --bind 127.0.0.1) > "$TMP/http.log" 2>&1 &
cleanup_add "stop_bg $!"
wait_for curl -sf "http://127.0.0.1:$port/base.db" -o /dev/null
URL="http://127.0.0.1:$port/base.db"
"$PM" compare --baseline-db "$URL" --baseline nightly tonight "${M[@]}" --fail-on-regression 5 >/dev/null 2>"$TMP/err"
is "$?" 1 "a baseline fetched over HTTP compares the same: exit 1"
like "$(cat "$TMP/err")" "baseline database $URL \(downloaded, HTTP 200\)" "fetched the first time"
"$PM" compare --baseline-db "$URL" --baseline nightly same "${M[@]}" --fail-on-regression 5 >/dev/null 2>"$TMP/err"
is "$?" 0 "and again: exit 0 for an unchanged workload"
like "$(cat "$TMP/err")" "\(from the cache, 304 Not Modified\)" "the second time from the cache"
like "$(grep -c '"GET /base.db HTTP/1.1" 304' "$TMP/http.log")" "^[1-9]" "the server answered 304"
bad_db() {  # bad_db URL REGEX DESCRIPTION (a hang is ended at 300 s: exit 124, not 2)
    timeout 300 "$PM" compare --baseline-db "$1" tonight --fail-on-regression 5 >/dev/null 2>"$TMP/err"
    is "$?" 2 "$3: exit 2"
    is "$(wc -l < "$TMP/err")" 1 "$3: one line"
    like "$(cat "$TMP/err")" "$2" "$3: $(cat "$TMP/err")"
}
bad_db "http://127.0.0.1:$port/nothing.db" "HTTP 404 Not Found" "404"
dead_port
bad_db "http://127.0.0.1:$DEAD_PORT/base.db" "connection refused" "refused connection"
bad_db "http://127.0.0.1:$port/junk.db" "not an SQLite database" "a body that is not SQLite"
bad_db "http://no-such-host.invalid/base.db" "cannot resolve host no-such-host.invalid" "a name that does not resolve"
NEWER="$TMP/newer.db"; cp "$NIGHT" "$NEWER"; sqlite3 "$NEWER" "PRAGMA user_version = 99"
bad_db "$NEWER" "schema version 99 is newer than this pressmark's" "a newer schema"

# Hostile baselines: shapes that are not pressmark's are refused before they are read.
hostile() {  # hostile NAME SQL: a copy of last night's database, changed
    cp "$NIGHT" "$TMP/www/$1.db"; sqlite3 "$TMP/www/$1.db" "$2"
}
hostile nulls "PRAGMA foreign_keys = OFF; CREATE TABLE run_new AS SELECT * FROM run; DROP TABLE run;
               ALTER TABLE run_new RENAME TO run; UPDATE run SET status = NULL WHERE id = 1"
hostile view "PRAGMA foreign_keys = OFF; PRAGMA legacy_alter_table = ON; ALTER TABLE run RENAME TO run_old;
              CREATE VIEW run AS WITH RECURSIVE r(id) AS (SELECT 1 UNION ALL SELECT id + 1 FROM r) SELECT id, '' AS uuid,
              0 AS machine_id, '' AS label, '' AS workload, '' AS params, 0 AS started_ns, 0 AS ended_ns, 0 AS interval_ns,
              'ok' AS status, '' AS reason FROM r"
hostile trigger "CREATE TRIGGER t AFTER INSERT ON metric BEGIN DELETE FROM run; END"
hostile columns "PRAGMA foreign_keys = OFF; ALTER TABLE run DROP COLUMN reason"
hostile long "UPDATE run SET label = printf('%.300c', 'x') WHERE id = 1"
hostile virtual "PRAGMA foreign_keys = OFF; PRAGMA legacy_alter_table = ON; ALTER TABLE run RENAME TO run_old;
                 CREATE VIRTUAL TABLE run USING fts5(id, uuid, machine_id, label, workload, params, started_ns, ended_ns,
                 interval_ns, status, reason); INSERT INTO run SELECT * FROM run_old"
hostile vside "CREATE VIRTUAL TABLE notes USING fts5(body)"
# (SQLite parses a schema row with its tokenizer: any spelling is one)
hostile vspelt "CREATE VIRTUAL TABLE notes USING fts5(body); PRAGMA writable_schema = ON;
                UPDATE sqlite_schema SET sql = replace(sql, 'CREATE VIRTUAL', 'CREATE/**/VIRTUAL') WHERE name = 'notes'"
bad_db "http://127.0.0.1:$port/nulls.db" "1 run with a NULL or oversized uuid, label, workload, status" "a NULL status"
# (read, its rows never end: refused from the schema, before any row)
bad_db "http://127.0.0.1:$port/view.db" "'run' is not a table there" "a run table replaced by a recursive view"
bad_db "http://127.0.0.1:$port/trigger.db" "has triggers" "a trigger"
bad_db "http://127.0.0.1:$port/columns.db" "its run table lacks columns pressmark reads" "a run table without a column"
bad_db "http://127.0.0.1:$port/long.db" "NULL or oversized" "a 300-character label"
bad_db "http://127.0.0.1:$port/virtual.db" "has virtual tables" "a run table that is a virtual table (fts5)"
bad_db "http://127.0.0.1:$port/vside.db" "has virtual tables" "a virtual table beside pressmark's"
bad_db "http://127.0.0.1:$port/vspelt.db" "has virtual tables" "a virtual table spelt CREATE/**/VIRTUAL"
head -c 3000000 /dev/zero > "$TMP/www/big.db"; printf 'SQLite format 3\0' | dd of="$TMP/www/big.db" conv=notrunc 2>/dev/null
"$PM" compare --baseline-db "http://127.0.0.1:$port/big.db" --baseline-max-size 1M tonight >/dev/null 2>"$TMP/err"
is "$?" 2 "a download over --baseline-max-size: exit 2"
like "$(cat "$TMP/err")" "the answer is larger than the limit of 1048576 bytes" "  saying so"
is "$(find "$PRESSMARK_CACHE/baselines" -name '*.part*' 2>/dev/null | wc -l)" 0 "  and nothing partial is kept"
# A download killed part way leaves nothing either: it is written into a
# file with no name (O_TMPFILE), named once whole. This server promises
# 4 MiB, sends the SQLite header and 1 MiB, then waits for the client to go.
cat > "$TMP/stall.py" <<'PY'
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Length", str(4 << 20))
        self.end_headers()
        self.wfile.write(b"SQLite format 3\0" + bytes((1 << 20) - 16))
        self.wfile.flush()
        while self.rfile.read(1):
            pass
    def log_message(self, *args):
        pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
sport=$(free_port)
python3 "$TMP/stall.py" "$sport" & cleanup_add "stop_bg $!"
# (bash's own connect: a Python a poll cost more than the wait)
wait_for bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1"' sh "$sport" 2>/dev/null
# downloading PID: it holds 1 MB or more of a file in the baselines cache
downloading() {
    local f
    for f in /proc/"$1"/fd/*; do
        case "$(readlink "$f")" in "$PRESSMARK_CACHE/baselines/"*) [ "$(stat -L -c %s "$f")" -ge 1000000 ] && return 0 ;; esac
    done
    return 1
}
cached=$(ls -A "$PRESSMARK_CACHE/baselines" | paste -sd" ")
for sig in TERM KILL; do
    "$PM" compare --baseline-db "http://127.0.0.1:$sport/stall.db" tonight >/dev/null 2>&1 &
    pid=$!
    wait_for downloading $pid
    is "$(ls -l /proc/$pid/fd | grep -c "$PRESSMARK_CACHE/baselines/.* (deleted)\$")" 1 "SIG$sig: mid-download, the file has no name"
    is "$(ls -A "$PRESSMARK_CACHE/baselines" | paste -sd" ")" "$cached" "SIG$sig:   and the cache no new name"
    kill -s "$sig" $pid
    wait $pid
    is "$?:$(ls -A "$PRESSMARK_CACHE/baselines" | paste -sd" ")" "$((128 + $(kill -l "$sig"))):$cached" "SIG$sig: killed, nothing left in the cache"
done

# https: a server with a private CA, trusted through PRESSMARK_CA_FILE; a
# redirect from it to plain http is refused, not followed.
# (an EC key: an RSA one's primes cost a CPU-second on a loaded machine)
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
    -keyout "$TMP/tls.key" -out "$TMP/tls.pem" >/dev/null 2>&1
tport=$(free_port)
python3 - "$tport" "$TMP/tls.pem" "$TMP/tls.key" "$port" "$TMP/www" > "$TMP/https.log" 2>&1 <<'PY' &
import functools, http.server, ssl, sys
port, cert, key, plain, root = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
class H(http.server.SimpleHTTPRequestHandler):
    def do_GET(self):
        if self.path.startswith('/down/'):
            self.send_response(302)
            self.send_header('Location', 'http://127.0.0.1:%s/%s' % (plain, self.path[6:]))
            self.end_headers()
        else:
            super().do_GET()
srv = http.server.ThreadingHTTPServer(('127.0.0.1', port), functools.partial(H, directory=root))
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER); ctx.load_cert_chain(cert, key)
srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
srv.serve_forever()
PY
cleanup_add "stop_bg $!"
wait_for curl -sf --cacert "$TMP/tls.pem" "https://127.0.0.1:$tport/base.db" -o /dev/null
TURL="https://127.0.0.1:$tport"
bad_db "$TURL/base.db" "^pressmark compare: .*TLS: .*certificate" "a certificate from an unknown CA"
PRESSMARK_CA_FILE=$TMP/tls.pem "$PM" compare --baseline-db "$TURL/base.db" --baseline nightly tonight "${M[@]}" \
    --fail-on-regression 5 >/dev/null 2>"$TMP/err"
is "$?" 1 "with PRESSMARK_CA_FILE the https baseline is fetched and compared: exit 1"
like "$(cat "$TMP/err")" "baseline database $TURL/base.db \(downloaded, HTTP 200\)" "  downloaded over TLS"
export PRESSMARK_CA_FILE=$TMP/tls.pem
plain_before=$(grep -c 'GET /base.db' "$TMP/http.log")
bad_db "$TURL/down/base.db" "redirected away from https \(refused" "a redirect from https to http"
unset PRESSMARK_CA_FILE
is "$(grep -c 'GET /base.db' "$TMP/http.log")" "$plain_before" "  the plain http server saw no request from it"

# merge: idempotent, machines kept, older schemas migrated (in a copy).
OTHER="$TMP/other.db"; cp "$NIGHT" "$OTHER"
sqlite3 "$OTHER" "UPDATE machine SET hostname = 'othermachine', kernel = '2.6.5-anon_mm'"
OLD="$TMP/old.db"
# A schema-4 database written by an older pressmark (two runs), made older
# still: the tables schemas 2 to 4 added are dropped.
cp "$(dirname "$0")/fixtures/results-schema4.db" "$OLD"
sqlite3 "$OLD" "DROP TABLE profile; DROP TABLE pushed; DROP TABLE suite_run; DROP TABLE suite_cell; DROP TABLE suite; PRAGMA user_version = 1"
oldsum=$(md5sum < "$OLD")
before=$(q "select count(*) from run")
out=$("$PM" merge "$OTHER" "$OLD")
is "$?" 0 "merge exits 0"
like "$out" "other.db: 5 runs added, 0 already here" "the other machine's runs are added"
like "$out" "old.db: 2 runs added" "an older-schema database imports"
is "$(q "select count(*) from run")" $(( before + 7 )) "seven runs more"
is "$(q "select group_concat(distinct m.hostname || ' ' || m.kernel) from run r join machine m on m.id = r.machine_id where r.label = 'nightly'")" \
   "othermachine 2.6.5-anon_mm" "merged runs keep their machine and kernel"
ge "$(q "select count(*) from tick t join run r on r.id = t.run_id where r.label = 'nightly'")" 3 "their samples come along"
is "$(q "select count(*) from sample s join run r on r.id = s.run_id where r.label = 'old-format'")" \
   "$(sqlite3 -batch "$(fixture_copy results-schema4.db)" "select count(*) from sample")" \
   "the older runs' samples come along, every value (re-encoded)"
is "$(md5sum < "$OLD")" "$oldsum" "the older file itself is untouched"
out=$("$PM" merge "$OTHER" "$OLD")
like "$out" "other.db: 0 runs added, 5 already here" "merging twice adds nothing (by run UUID)"
is "$(q "select count(*) from run")" $(( before + 7 )) "the count is unchanged"

# push: a real VictoriaMetrics on loopback, its own data directory.
if command -v victoria-metrics >/dev/null; then
    export_once() {
        curl -sf "http://127.0.0.1:$vport/internal/force_flush" >/dev/null
        curl -sf "http://127.0.0.1:$vport/api/v1/export" -d "match[]=$1" | grep -c '"__name__"'
    }
    export_count() {  # export_count MATCH: how many series match, once the index has settled
        local a b i
        a=$(export_once "$1")
        for i in $(seq 30); do
            sleep 0.3
            b=$(export_once "$1")
            [ "$a" = "$b" ] && break
            a=$b
        done
        echo "$a"
    }
    vm_up
    W="http://127.0.0.1:$vport/write"
    out=$("$PM" push "$W")
    is "$?" 0 "push exits 0"
    n=$(q "select count(*) from run where status != 'running'")
    like "$out" "^pushed $n runs \($n lines\) to $W" "every run is one point"
    uuid=$(q "select uuid from run where label = 'tonight' limit 1")
    nm=$(q "select count(*) from metric m join run r on r.id = m.run_id where r.uuid = '$uuid'")
    is "$(export_count "{run=\"$uuid\"}")" "$nm" "a run's metrics come back as its series"
    v=$(curl -sf "http://127.0.0.1:$vport/api/v1/export" -d "match[]={__name__=\"pressmark_record_time.elapsed_s\",run=\"$uuid\"}" |
        python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["values"][0])')
    want=$(q "select value from metric m join run r on r.id = m.run_id where r.uuid = '$uuid' and m.name = 'time.elapsed_s'")
    ok "the value comes back ($v = $want)" awk -v a="$v" -v b="$want" 'BEGIN { exit !((a - b) < 1e-9 && (b - a) < 1e-9) }'
    tags=$(curl -sf "http://127.0.0.1:$vport/api/v1/export" -d "match[]={run=\"$uuid\"}" | head -1 |
           python3 -c 'import json,sys; m = json.loads(sys.stdin.readline())["metric"]; print(m["label"], m["workload"], m["kernel"] != "", m["host"] != "", m["status"])')
    is "$tags" "tonight record True True ok" "tags: label, workload, kernel, host, status"
    total=$(export_count '{__name__=~"pressmark_.*"}')
    out=$("$PM" push "$W")
    like "$out" "^pushed 0 runs" "pushing again sends nothing"
    is "$(export_count '{__name__=~"pressmark_.*"}')" "$total" "and the series count is unchanged"
    # The server goes away: runs are queued, then delivered when it is back.
    # Each tries 4 times over 3.5 s: the push starts once the run is
    # stored (it must have it to send), and both wait out their retries
    # at once.
    stop_bg $VM
    "$PM" record --quiet --label offline --push "$W" -- true >"$TMP/offline.out" 2>"$TMP/offline.err" &
    offline=$!
    cleanup_add "stop_bg $offline"
    offline_stored() { [ "$(q "select count(*) from run where label = 'offline' and status = 'ok'")" = 1 ]; }
    ok "the offline run is stored before the push" wait_for offline_stored
    PRESSMARK_PUSH_TOKEN=sekrit-token-123 "$PM" push "$W" > /dev/null 2>"$TMP/err"
    is "$?" 1 "push to a stopped server exits 1"
    like "$(cat "$TMP/err")" "connection refused" "saying why"
    wait $offline
    is "$?" 0 "a run with --push while the server is down still ends ok"
    like "$(cat "$TMP/offline.err")" "push: .*connection refused.*stays queued" "and says the run stays queued"
    ok "the token never appears in the error" sh -c "! grep -q sekrit-token-123 '$TMP/err'"
    ok "nor in the database" sh -c "! grep -q sekrit-token-123 '$PRESSMARK_DB' '$PRESSMARK_DB-wal' 2>/dev/null"
    is "$(q "select count(*) from run r where not exists (select 1 from pushed p where p.run_id = r.id)")" 1 "the offline run is remembered as not pushed"
    start_vm
    vm_up
    echo sekrit-token-123 > "$TMP/token"; chmod 600 "$TMP/token"   # a token file others can read is refused
    out=$("$PM" push "$W" --token-file "$TMP/token")
    like "$out" "^pushed 1 run " "when the server is back, the queued run is delivered"
    ouuid=$(q "select uuid from run where label = 'offline'")
    ge "$(export_count "{run=\"$ouuid\"}")" 1 "and can be queried back"
    out=$("$PM" push "http://127.0.0.1:$vport/write?db=samples" --samples)
    ticks=$(q "select count(*) from tick t join run r on r.id = t.run_id where r.status != 'running'")
    like "$out" "pushed $(( n + 1 )) runs \($(( n + 1 + ticks )) lines\)" "--samples adds a point per tick"
    ge "$(export_count "{__name__=\"pressmark_record_samples_meminfo.MemFree\",run=\"$uuid\"}")" 1 "the samples come back"
    "$PM" push "http://127.0.0.1:$vport/no-such-api" > /dev/null 2>"$TMP/err"
    like "$(cat "$TMP/err")" "HTTP 4[0-9][0-9]" "a 4xx is reported at once, with its status"
else
    for i in $(seq 20); do skip "victoria-metrics is not installed"; done
fi

# The Grafana dashboards parse and, those over pushed data, ask for what
# pressmark pushes (pressmark-sqlite.json reads results.db itself: t46).
for d in "$ROOT"/grafana/*.json; do
    ok "$(basename "$d") is JSON with panels" python3 -c 'import json,sys; d = json.load(open(sys.argv[1])); assert d["panels"]' "$d"
    case $d in */pressmark-sqlite.json) continue ;; esac
    like "$(cat "$d")" "pressmark_chat" "$(basename "$d") queries the pushed measurements"
done
done_testing
