#!/bin/bash
# Every figure bench/ knows how to produce, one script after the other
# (BENCH_SCRIPTS="sampler.sh chat.sh" for some of them), then a summary:
# each goal met, missed or not measured (bench/lib.sh's goal lines), each
# script that failed, and anything a script left on the machine (the
# machine's state, tools/machine-state.sh, taken before and after each
# script, and its /tmp/pressmark-bench.* directories).
#
# Missed goals do not fail it: these machines are shared and noisy, and a
# miss is a figure to look at, not a broken bench. A script that failed or
# left something behind does: exit 1. A script's failure does not stop
# the others.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
SCRIPTS=${BENCH_SCRIPTS:-sampler.sh observer.sh chat.sh workloads.sh servers.sh completion.sh reports.sh samples.sh verdicts.sh changepoints.sh suite.sh vm.sh}
WORK=$(mktemp -d /tmp/pressmark-bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
# Stop after the script that is running (it cleans up on SIGINT itself),
# and still sum up what was measured.
interrupted=""
trap 'interrupted=1' INT
: > "$WORK/problems"; : > "$WORK/goals"
tmp_dirs() {  # the benches' own: directories of this user's (another's are not a bench's leftovers)
    find /tmp -maxdepth 1 -name 'pressmark-bench.*' -type d -user "$(id -u)" ! -path "$WORK" -printf '%f\n' | sort
}

for b in $SCRIPTS; do
    echo "### bench/$b"
    tools/machine-state.sh > "$WORK/before"
    tmp_dirs > "$WORK/tmp-before"
    BENCH_GOALS="$WORK/goals.$b" bench/"$b"
    rc=$?
    cat "$WORK/goals.$b" >> "$WORK/goals" 2>/dev/null
    [ "$rc" -eq 0 ] || echo "bench/$b failed (exit $rc)" >> "$WORK/problems"
    tools/machine-state.sh > "$WORK/after"
    # Line by line (each line is one kind of thing: "cgroups: ..."), what
    # is there now that was not before, and what went.
    paste -d '\n' "$WORK/before" "$WORK/after" | paste - - -d '\t' |
        awk -F'\t' -v b="bench/$b" '$1 != $2 { printf "%s left: %s (before: %s)\n", b, $2, $1 }' >> "$WORK/problems"
    tmp_dirs | comm -13 "$WORK/tmp-before" - | sed "s|^|bench/$b left: |" >> "$WORK/problems"
    echo
    if [ -n "$interrupted" ]; then
        echo "bench/run-all.sh: interrupted during bench/$b; the scripts after it did not run" >> "$WORK/problems"
        break
    fi
done

echo "### summary"
status() { sed -n 's/^goal .*): \(met\|missed\|not measured\)\( (.*)\)\{0,1\}$/\1/p' "$WORK/goals"; }
total=$(grep -c '^goal ' "$WORK/goals")
met=$(status | grep -cx met)
missed=$(status | grep -cx missed)
unmeasured=$(status | grep -cx 'not measured')
echo "$total goal$([ "$total" -eq 1 ] || echo s): $met met, $missed missed, $unmeasured not measured"
if [ "$missed" -gt 0 ]; then echo "missed:"; grep '): missed$' "$WORK/goals" | sed 's/^/  /'; fi
if [ "$unmeasured" -gt 0 ]; then echo "not measured:"; grep '): not measured' "$WORK/goals" | sed 's/^/  /'; fi
if [ -s "$WORK/problems" ]; then
    echo "problems:"
    sed 's/^/  /' "$WORK/problems"
fi
if [ -n "$interrupted" ]; then exit 130; fi
if grep -qv '^bench/run-all.sh: interrupted' "$WORK/problems"; then exit 1; fi
exit 0
