#!/bin/bash
# pressmark-nightly's default gate, for real (make test-slow: eleven
# nights of a two-cell suite, beyond what a fresh clone's make test can
# spend; t19 keeps the nights judged against last night's database, the
# settings and the labels that are data). Nights judged against their
# history, with a control: the history gate says nothing while the history
# is short or level, fails the night a step is confirmed, names its night
# and kernel; the control judges sweep against the control measured the
# same night; KEEP prunes nights' directories, never the history; a night
# the history refuses is judged against nothing.
. "$(dirname "$0")/../lib.sh"
required_by PM_SLOW_REQUIRED   # make test-slow: a missing need fails it
quiet_machine    # (the grown nights' slowdown is measured: no VM beside them)
NIGHTLY="$ROOT/nightly/pressmark-nightly"
unset PRESSMARK_NIGHTLY_GATE PRESSMARK_NIGHTLY_WINDOW PRESSMARK_NIGHTLY_CONTROL PRESSMARK_NIGHTLY_GATE_METRICS \
      PRESSMARK_NIGHTLY_SUITE PRESSMARK_NIGHTLY_FAIL_PCT PRESSMARK_NIGHTLY_BASELINE PRESSMARK_NIGHTLY_KEEP \
      PRESSMARK_NIGHTLY_PUSH_URL PRESSMARK_NIGHTLY_TOKEN_FILE PRESSMARK_NIGHTLY_ALPHA
export PRESSMARK_NIGHTLY_PRESSMARK="$PM"
# A pressmark that gives the night's runs labels merge refuses.
evil="$TMP/evil.db"
nightly_label_wrap "$evil"

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
