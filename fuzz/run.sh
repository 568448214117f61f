#!/bin/bash
# make fuzz: each harness in turn under libFuzzer for SECONDS, starting from
# its committed corpus (fuzz/corpus/NAME) and the inputs found by earlier
# runs (build/fuzz/work/NAME). Afterwards the inputs that add coverage are
# merged into the committed corpus, and one line per harness says what it
# did. Exit 1 when a harness crashed, leaked or hung (its input is kept in
# build/fuzz/ as crash-*, leak-* or timeout-*).
# usage: fuzz/run.sh SECONDS NAME...
set -uo pipefail
cd "$(dirname "$0")/.."
secs=$1
shift
status=0
summary=()
for name in "$@"; do
    bin=build/fuzz/$name.fuzz
    corpus=fuzz/corpus/$name
    work=build/fuzz/work/$name
    mkdir -p "$corpus" "$work"
    dict=()
    [ -f "fuzz/$name.dict" ] && dict=(-dict="fuzz/$name.dict")
    # fuzz/NAME.options: more libFuzzer flags for one harness.
    [ -f "fuzz/$name.options" ] && read -r -a extra < "fuzz/$name.options" && dict+=("${extra[@]}")
    before=$(find "$corpus" -type f | wc -l)
    log=build/fuzz/$name.log
    echo "fuzz: $name for ${secs}s (log: $log)"
    # -timeout: an input that takes 10 s is a hang; -rss_limit_mb keeps a
    # leak from taking the machine.
    "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="build/fuzz/$name-" "${dict[@]}" "$work" "$corpus" >"$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    peak=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)
    # Merge: only inputs that add coverage go into the committed corpus.
    # (its artefacts go beside the run's, never into the working directory)
    "$bin" -merge=1 -timeout=10 -artifact_prefix="build/fuzz/$name-" "$corpus" "$work" >>"$log" 2>&1
    after=$(find "$corpus" -type f | wc -l)
    bytes=$(du -sb "$corpus" | cut -f1)
    if [ $rc -ne 0 ]; then
        status=1
        result="FAILED (exit $rc; see $log and build/fuzz/$name-*)"
    else
        result="0 crashes, 0 hangs, 0 leaks"
    fi
    summary+=("$(printf '%-8s %6ss %12s execs  corpus %4d -> %4d files (%s bytes)  peak RSS %s MB  %s' \
        "$name" "$secs" "${execs:-?}" "$before" "$after" "$bytes" "${peak:-?}" "$result")")
done
printf '%s\n' "${summary[@]}"
exit $status
