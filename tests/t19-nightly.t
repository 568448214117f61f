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
suite() {  # suite FILE [KEY = VALUE...]: the test's suite, label 'sweep' always
    { printf '[global]\nname = nightly-test\nruns = 5\ninterval = 200ms\n[sweep]\nworkload = usemem\nsize = 64M\npasses = 4\nlabel = sweep\n'
      shift; for kv in "$@"; do printf '%s\n' "$kv"; done; } > "$TMP/$1"
}
suite fast.ini
suite slow.ini "mem-cap = 40M" "swap = 256M"

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
sleep 1   # nights are named by the second
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

# Night 3: the same label under a 40M cap with swap: much slower.
mkdir "$TMP/nights/keepme"
sleep 1   # nights are named by the second
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
cat > "$TMP/pm-wrap" <<WRAP
#!/bin/sh
echo "\$*" >> "$TMP/pm-args"
"$PM" "\$@"; rc=\$?
case "\$*" in
    *"suite run"*) sqlite3 "\$2" "update run set label = '--baseline-db=$evil' where label = 'sweep' and id < 3;
                                 update run set label = '--help' where label = 'sweep'" ;;
esac
exit \$rc
WRAP
chmod +x "$TMP/pm-wrap"
sleep 1   # nights are named by the second
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

# Nights judged against their history (the default gate), with a control:
# a suite of two cells alike, 'control' and 'sweep', under a 48M cap with
# swap. Six nights as they are, then sweep's size grows from 32M to 96M
# (past the cap: it swaps) while the control stays. The history gate says
# nothing while the history is short or level, then fails the night the
# change is confirmed, naming its night and kernel; the control judges
# sweep against the control measured the same night.
cpsuite() {  # cpsuite FILE SWEEP_SIZE
    printf '[global]\nname = nightly-history\nruns = 3\ninterval = 200ms\nmem-cap = 48M\nswap = 256M\nworkload = usemem\npasses = 2\n[control]\nsize = 32M\nlabel = control\n[sweep]\nsize = %s\nlabel = sweep\n' "$2" > "$TMP/$1"
}
cpsuite level.ini 32M
cpsuite grown.ini 96M
unset PRESSMARK_NIGHTLY_GATE    # the default: change points over the history
# ALPHA 0.1 over the night's two pairs: each change point is tested at
# 0.05. A step needs 3 nights after it then (the smallest p a permutation
# test of 6 + 2 nights can give is 2/28 = 0.071, of 6 + 3 it is 2/84 =
# 0.024): the gate fails night 9, never 7 or 8, whatever the seed.
export PRESSMARK_NIGHTLY_DIR="$TMP/hnights" PRESSMARK_NIGHTLY_FAIL_PCT=50 PRESSMARK_NIGHTLY_CONTROL=control \
       PRESSMARK_NIGHTLY_ALPHA=0.1
first_fail=0
for night in 1 2 3 4 5 6 7 8 9; do
    ini=level.ini; [ "$night" -le 6 ] || ini=grown.ini
    sleep 1   # nights are named by the second
    PRESSMARK_NIGHTLY_SUITE="$TMP/$ini" "$NIGHTLY" > "$TMP/h$night.out" 2> "$TMP/h$night.err"
    rc=$?
    echo "# night $night ($ini): exit $rc: $(grep -c regressed: "$TMP/h$night.out") regressed lines"
    if [ "$night" -le 6 ]; then
        # (the control's Welch test may see noise on a level night: what
        # is held here is the history's silence, and that the night ran
        # whole: the exit status says so, 1 only for the control's test)
        is "$(grep -c '(its history;' "$TMP/h$night.out")" 0 "history night $night (level): no regression found in its history"
        want_rc=0
        grep -q '^pressmark-nightly: regressed: usemem, [a-z]* (against the control control;' "$TMP/h$night.out" && want_rc=1
        is "$rc" "$want_rc" "  exit $want_rc (0, or 1 where the control's same-night test alone regressed)"
        # (change points need two nights a side: nights 1 to 3 are too few)
        unjudged=0; [ "$night" -gt 3 ] || unjudged=2
        is "$(grep ' judged against their history in ' "$TMP/h$night.out")" \
            "pressmark-nightly: 2 judged against their history in $TMP/hnights/history.db: 0 regressed, $unjudged not judged" \
            "  both pairs judged by their history, $unjudged not judged"
    elif [ "$first_fail" -eq 0 ] && grep -q 'regressed: usemem, sweep (its history' "$TMP/h$night.out"; then
        first_fail=$night
        is "$rc" 1 "history night $night: the history gate fails it: exit 1"
    fi
done
hn=$(find "$TMP/hnights" -mindepth 1 -maxdepth 1 -type d -name '20*' -printf '%f\n' | LC_ALL=C sort)
is "$(printf '%s\n' "$hn" | wc -l)" 9 "nine nights' directories"
is "$(sqlite3 -batch "$TMP/hnights/history.db" "select count(*) from run where status = 'ok'")" 54 \
    "history.db holds every night's runs: 9 nights x 2 cells x 3"
like "$(cat "$TMP/h1.out")" "not judged: usemem, sweep \(its history" "night 1: too short a history to judge"
# Welch's test at 3 runs a side with the control's spread of one night
# (once 3,049 +-726 MB/s here) can miss even a 94 % drop: one of the three
# grown nights must see it.
cn=0
for night in 7 8 9; do
    grep -q 'regressed: usemem, sweep (against the control control' "$TMP/h$night.out" && { cn=$night; break; }
done
ok "a grown night finds sweep worse than the control measured the same night (night $cn)" test "$cn" -ge 7
ncn=$(printf '%s\n' "$hn" | sed -n "${cn}p")
is "$(grep -c '^== usemem, .* (against the control control)$' "$TMP/hnights/${ncn:-none}/compare.txt" 2>/dev/null)" 1 \
    "  one label judged against the control: sweep, never the control itself"
ok "  a JUnit file for the control's comparison" grep -q '<failure' "$TMP/hnights/${ncn:-none}/junit-control-1.xml"
is "$first_fail" 9 "the history gate fails the night the step is confirmed: the 9th, its 3rd"
shift_night=$(printf '%s\n' "$hn" | sed -n 7p)
fail_night=$(printf '%s\n' "$hn" | sed -n "${first_fail}p")
[ -n "$fail_night" ] || fail_night=none
like "$(cat "$TMP/h$first_fail.out" 2>/dev/null)" "regressed: usemem, sweep \(its history" "  by its history"
like "$(cat "$TMP/hnights/$fail_night/compare.txt" 2>/dev/null)" "usemem.mb_per_s: change at night [^;]*; kernel [^;]*; night 7 of $first_fail: REGRESSION" \
    "  compare.txt names the night the level moved: the 7th"
like "$(cat "$TMP/hnights/$fail_night/compare.txt" 2>/dev/null)" "REGRESSION .*usemem.mb_per_s is [0-9.]+ % worse from night ${shift_night:0:10}" \
    "  and says how much worse"
like "$(cat "$TMP/hnights/$fail_night/compare.txt" 2>/dev/null)" "kernel $(re "$(uname -r)") before, $(re "$(uname -r)") after" \
    "  and the kernels on both sides"
# (junit-N.xml follows the order of the night's pairs, which the suite's
# interleaving shuffles: the one of sweep's history)
jf=$(grep -l 'classname="pressmark\.history\.usemem\.sweep"' "$TMP/hnights/$fail_night"/junit-[0-9]*.xml 2>/dev/null | head -1)
ok "  its JUnit file carries the failure" grep -q '<failure' "${jf:-$TMP/none}"
ok "  the history's report names the change" grep -q 'change at night' "$TMP/hnights/$fail_night/history/report.html"
# Unset, only the headline is gated: one gated metric a label.
is "$(grep -cE ': 1 gated metric(, [0-9]+ judged)?$' "$TMP/hnights/$fail_night/compare.txt" 2>/dev/null)" 2 \
    "PRESSMARK_NIGHTLY_GATE_METRICS unset: each label's headline alone is gated"
# The tenth night gates a metric of usemem's beside the headline, and one
# of a workload that did not run.
sleep 1
PRESSMARK_NIGHTLY_SUITE="$TMP/level.ini" PRESSMARK_NIGHTLY_KEEP=1 PRESSMARK_NIGHTLY_CONTROL= \
    PRESSMARK_NIGHTLY_GATE_METRICS="usemem:time.elapsed_s chat:chat.latency_p99_us" "$NIGHTLY" > "$TMP/h10.out" 2>&1
is "$(find "$TMP/hnights" -mindepth 1 -maxdepth 1 -type d -name '20*' | wc -l) $(sqlite3 -batch "$TMP/hnights/history.db" 'select count(*) from run')" \
    "1 60" "pruning keeps the history: KEEP removes nights' directories, never history.db"
n10=$(find "$TMP/hnights" -mindepth 1 -maxdepth 1 -type d -name '20*' -printf '%f\n')
is "$(grep -cE ': 2 gated metrics(, [0-9]+ judged)?$' "$TMP/hnights/${n10:-none}/compare.txt" 2>/dev/null)" 2 \
    "PRESSMARK_NIGHTLY_GATE_METRICS=usemem:time.elapsed_s: each usemem label gates two metrics"
like "$(cat "$TMP/h10.out")" "PRESSMARK_NIGHTLY_GATE_METRICS: 'chat:chat\.latency_p99_us' gates nothing tonight: no label of workload chat ran" \
    "  a metric of a workload that did not run is said to gate nothing"
# A night whose runs cannot join the history (labels merge refuses, as
# night 4's): nothing of tonight is judged against a history without it.
sleep 1
PRESSMARK_NIGHTLY_PRESSMARK="$TMP/pm-wrap" PRESSMARK_NIGHTLY_SUITE="$TMP/level.ini" PRESSMARK_NIGHTLY_CONTROL= \
    "$NIGHTLY" > "$TMP/h11.out" 2>&1
is "$?" 0 "a night the history refuses: exit 0, nothing regressed"
like "$(cat "$TMP/h11.out")" "[23] not judged: tonight is not in $(re "$TMP")/hnights/history\.db" \
    "  every pair of tonight not judged, none against a history without tonight"
is "$(sqlite3 -batch "$TMP/hnights/history.db" 'select count(*) from run')" 60 "  and the history is as it was"
done_testing
