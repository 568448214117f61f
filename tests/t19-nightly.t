#!/bin/bash
# pressmark-nightly, the script pressmark-nightly.service runs, for real:
# three nights of a small usemem suite. The first has no baseline and
# becomes it; the second is compared, pushed and becomes the baseline; the
# third runs under a cap with swap (its label unchanged), is judged a
# regression, and with BASELINE=if-clean leaves the baseline alone; KEEP
# prunes the oldest night. Bad settings get one line and exit 2.
. "$(dirname "$0")/lib.sh"
quiet_machine    # (night 3's slowdown is measured: no VM of t80's beside it)
NIGHTLY="$ROOT/nightly/pressmark-nightly"
export PRESSMARK_NIGHTLY_PRESSMARK="$PM" PRESSMARK_NIGHTLY_DIR="$TMP/nights"
unset PRESSMARK_NIGHTLY_GATE PRESSMARK_NIGHTLY_WINDOW PRESSMARK_NIGHTLY_CONTROL PRESSMARK_NIGHTLY_GATE_METRICS
# Nights 1 to 4 are judged against last night's database.
export PRESSMARK_NIGHTLY_GATE=last-night
unset PRESSMARK_NIGHTLY_SUITE PRESSMARK_NIGHTLY_FAIL_PCT PRESSMARK_NIGHTLY_BASELINE PRESSMARK_NIGHTLY_KEEP \
      PRESSMARK_NIGHTLY_PUSH_URL PRESSMARK_NIGHTLY_TOKEN_FILE PRESSMARK_NIGHTLY_ALPHA
# 5 runs a night: the gate judges every metric it shows as one family
# (Holm), and with 3 runs a side night 3's slowdown could fall short of it.
# 32M swept twice: a run of 0.2 s, 0.7 s under night 3's cap (some 3.5
# times slower; 64M swept 4 times took 0.4 s and 2.5 s, the cap's nights
# most of this test's time).
suite() {  # suite FILE [KEY = VALUE...]: the test's suite, label 'sweep' always
    { printf '[global]\nname = nightly-test\nruns = 5\ninterval = 200ms\n[sweep]\nworkload = usemem\nsize = 32M\npasses = 2\nlabel = sweep\n'
      shift; for kv in "$@"; do printf '%s\n' "$kv"; done; } > "$TMP/$1"
}
suite fast.ini
suite slow.ini "mem-cap = 20M" "swap = 256M"

nightly_bad() {  # nightly_bad DESCRIPTION REGEX [VAR=VALUE...] [-- ARGS]
    local desc=$1 re=$2; shift 2
    local vars=() args=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do vars+=("$1"); shift; done
    [ "${1:-}" = -- ] && { shift; args=("$@"); }
    env "${vars[@]}" "$NIGHTLY" "${args[@]}" > "$TMP/out" 2> "$TMP/err"
    is "$?:$(wc -l < "$TMP/err")" "2:1" "$desc: exit 2, one line"
    like "$(cat "$TMP/err")" "$re" "$desc: names the setting and what is accepted"
}
nightly_bad "no suite" "PRESSMARK_NIGHTLY_SUITE is not set"
nightly_bad "a suite not there" "PRESSMARK_NIGHTLY_SUITE=$TMP/none.ini: not a readable file" PRESSMARK_NIGHTLY_SUITE="$TMP/none.ini"
nightly_bad "a bad percentage" "PRESSMARK_NIGHTLY_FAIL_PCT=five: not a percentage" PRESSMARK_NIGHTLY_SUITE="$TMP/fast.ini" PRESSMARK_NIGHTLY_FAIL_PCT=five
nightly_bad "a bad policy" "PRESSMARK_NIGHTLY_BASELINE=sometimes: accepted: always or if-clean" PRESSMARK_NIGHTLY_SUITE="$TMP/fast.ini" PRESSMARK_NIGHTLY_BASELINE=sometimes
nightly_bad "an alpha above 0.5" "PRESSMARK_NIGHTLY_ALPHA=0\.6: not a significance level \(accepted: a number above 0 and at most 0\.5" PRESSMARK_NIGHTLY_SUITE="$TMP/fast.ini" PRESSMARK_NIGHTLY_ALPHA=0.6
nightly_bad "an unknown gate" "PRESSMARK_NIGHTLY_GATE=tonight: accepted: change-points or last-night" PRESSMARK_NIGHTLY_SUITE="$TMP/fast.ini" PRESSMARK_NIGHTLY_GATE=tonight
nightly_bad "a window of no nights" "PRESSMARK_NIGHTLY_WINDOW=0: not a number of nights \\(accepted: 1 to 999\\)" PRESSMARK_NIGHTLY_SUITE="$TMP/fast.ini" PRESSMARK_NIGHTLY_WINDOW=0
nightly_bad "no nights kept" "PRESSMARK_NIGHTLY_KEEP=0: not a number of nights" PRESSMARK_NIGHTLY_SUITE="$TMP/fast.ini" PRESSMARK_NIGHTLY_KEEP=0
nightly_bad "a gated metric without its workload" \
    "^pressmark-nightly: PRESSMARK_NIGHTLY_GATE_METRICS: 'usemem\.mb_per_s' is not WORKLOAD:METRIC \(accepted: words such as chat:chat\.latency_p99_us\)$" \
    PRESSMARK_NIGHTLY_SUITE="$TMP/fast.ini" PRESSMARK_NIGHTLY_GATE_METRICS="usemem:time.elapsed_s usemem.mb_per_s"
nightly_bad "a gated metric with a shell's expansion in it" 'PRESSMARK_NIGHTLY_GATE_METRICS: .usemem:\$\(id\). is not WORKLOAD:METRIC' \
    PRESSMARK_NIGHTLY_SUITE="$TMP/fast.ini" PRESSMARK_NIGHTLY_GATE_METRICS='usemem:$(id)'
nightly_bad "a relative directory" "PRESSMARK_NIGHTLY_DIR=nights: not an absolute path" PRESSMARK_NIGHTLY_SUITE="$TMP/fast.ini" PRESSMARK_NIGHTLY_DIR=nights
mkdir "$TMP/elsewhere"; ln -s "$TMP/elsewhere" "$TMP/link"
nightly_bad "a symlinked directory" "PRESSMARK_NIGHTLY_DIR=$TMP/link: a symlink" PRESSMARK_NIGHTLY_SUITE="$TMP/fast.ini" PRESSMARK_NIGHTLY_DIR="$TMP/link"
ok "  nothing written through it" test -z "$(ls -A "$TMP/elsewhere")"
nightly_bad "an argument" "'--now' is not an option" -- --now
ok "  no night was begun by bad settings" test ! -e "$TMP/nights"

uuids() { sqlite3 -batch "$1" "select uuid from run order by uuid" | tr '\n' ' '; }
night_dirs() { find "$TMP/nights" -mindepth 1 -maxdepth 1 -type d -name '20*' -printf '%f\n' | LC_ALL=C sort; }
# Nights are named by the UTC second they begin in (as pressmark-nightly
# names them): the next night waits until the newest one's second is over,
# a moment at most (a night takes longer than a second), not a whole second.
next_second() {
    local last; last=$(night_dirs | tail -1)
    while [ "$(date -u +%Y-%m-%dT%H%M%SZ)" = "$last" ]; do sleep 0.05; done
}

# Night 1: nothing to compare with; it becomes the baseline.
PRESSMARK_NIGHTLY_SUITE="$TMP/fast.ini" "$NIGHTLY" > "$TMP/n1.out" 2> "$TMP/n1.err"
is "$?" 0 "night 1: exit 0"
like "$(tr "\n" " " < "$TMP/n1.out")" "no baseline yet .*tonight is the baseline now" "  no baseline yet: tonight becomes it"
n1=$(night_dirs | tail -1)
is "$(sqlite3 -batch "$TMP/nights/$n1/results.db" "select count(*) || ' ' || group_concat(distinct status) from run")" "5 ok" "  its five runs in a database of its own"
is "$(uuids "$TMP/nights/baseline.db")" "$(uuids "$TMP/nights/$n1/results.db")" "  baseline.db holds exactly them"
ok "  its report" grep -q '<html' "$TMP/nights/$n1/report.html"
ok "  nothing compared" test ! -e "$TMP/nights/$n1/compare.txt"

# Night 2: compared (a threshold no noise reaches), pushed, the baseline.
next_second
port=$(free_port)
python3 - "$port" "$TMP/pushed" > "$TMP/push.log" 2>&1 <<'PY' &
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        with open(sys.argv[2], "ab") as f:
            f.write(b"%s %d\n" % (self.path.encode(), len(body)))
        self.send_response(204)
        self.end_headers()
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
cleanup_add "stop_bg $!"
wait_for curl -s -o /dev/null "http://127.0.0.1:$port/"   # up: any answer (a GET gets 501)
PRESSMARK_NIGHTLY_SUITE="$TMP/fast.ini" PRESSMARK_NIGHTLY_FAIL_PCT=1000 PRESSMARK_NIGHTLY_PUSH_URL="http://127.0.0.1:$port/write" \
    "$NIGHTLY" > "$TMP/n2.out" 2> "$TMP/n2.err"
is "$?" 0 "night 2: exit 0 (nothing worse by 1,000 %)"
n2=$(night_dirs | tail -1)
like "$(cat "$TMP/n2.out")" "1 compared with $TMP/nights/baseline.db: 0 regressed, 0 not judged" "  usemem, sweep compared with last night's sweep"
like "$(cat "$TMP/nights/$n2/compare.txt")" "verdict: no regression beyond 1,000 %" "  compare.txt has the table and the verdict"
ok "  a JUnit file" grep -q '<testsuite' "$TMP/nights/$n2/junit-1.xml"
like "$(cat "$TMP/n2.out")" "pushed 5 runs" "  pushed"
is "$(grep -c '^/write ' "$TMP/pushed")" 1 "  the server got one write"
is "$(uuids "$TMP/nights/baseline.db")" "$(uuids "$TMP/nights/$n2/results.db")" "  night 2 is the baseline now"

# Night 3: the same label under a 20M cap with swap: much slower.
mkdir "$TMP/nights/keepme"
next_second
PRESSMARK_NIGHTLY_SUITE="$TMP/slow.ini" PRESSMARK_NIGHTLY_BASELINE=if-clean PRESSMARK_NIGHTLY_KEEP=2 \
    "$NIGHTLY" > "$TMP/n3.out" 2> "$TMP/n3.err"
is "$?" 1 "night 3: exit 1, regressed"
n3=$(night_dirs | tail -1)
like "$(cat "$TMP/n3.out")" "regressed: usemem, sweep" "  says which"
like "$(cat "$TMP/nights/$n3/compare.txt")" "REGRESSION usemem: usemem.mb_per_s MB/s is [0-9.]+ % worse" "  compare.txt names the metric"
ok "  the JUnit file carries a failure" grep -q '<failure' "$TMP/nights/$n3/junit-1.xml"
is "$(uuids "$TMP/nights/baseline.db")" "$(uuids "$TMP/nights/$n2/results.db")" "  if-clean: night 2 stays the baseline"
is "$(night_dirs | tr '\n' ' ')" "$n2 $n3 " "  KEEP=2: night 1 is removed"
ok "  a directory not named as a night is left alone" test -d "$TMP/nights/keepme"

# Night 4: labels are data. The night's runs carry labels that are options
# (as a guest or a merge could have brought before labels were checked
# there): one names a decoy baseline database that would judge it clean,
# one is --help, which exits 0. Each is compared as the label it is: no
# baseline holds it, so neither is judged, and neither enters the baseline.
evil="$TMP/evil.db"
cp "$TMP/nights/$n2/results.db" "$evil"
sqlite3 "$evil" "update run set label = '--baseline-db=$evil'"
nightly_label_wrap "$evil"
next_second
PRESSMARK_NIGHTLY_PRESSMARK="$TMP/pm-wrap" PRESSMARK_NIGHTLY_SUITE="$TMP/fast.ini" PRESSMARK_NIGHTLY_KEEP=9 \
    "$NIGHTLY" > "$TMP/n4.out" 2> "$TMP/n4.err"
n4=$(night_dirs | tail -1)
like "$(cat "$TMP/n4.out")" "2 compared with $TMP/nights/baseline.db: 0 regressed, 2 not judged" \
    "night 4: labels that look like options are compared as labels (not judged: no baseline has them)"
is "$(grep -c "'--baseline-db=$evil' has no runs\|'--help' has no runs" "$TMP/nights/$n4/compare.txt")" 2 \
    "  compare.txt says why, for each"
like "$(cat "$TMP/n4.out")" "2 pairs judged as one family: alpha 0\.05 over them, 0\.025 each" \
    "  the night's pairs are one family: each compared at alpha / pairs"
is "$(grep -c -- ' compare .*--alpha=0\.025 ' "$TMP/pm-args")" 2 "  both compares were given alpha 0.025"
like "$(cat "$TMP/n4.out")" "the baseline could not be replaced; it stays last night's" \
    "  and labels --label would refuse do not enter the baseline (merge refuses them)"
is "$(uuids "$TMP/nights/baseline.db")" "$(uuids "$TMP/nights/$n2/results.db")" "  night 2 is still the baseline"

# (The default gate, nights judged against their history with a control,
# is make test-slow's: tests/slow/t19-history-nights.t.)
done_testing
