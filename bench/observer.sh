#!/bin/bash
# The observer effect: how much pressmark's own sampling disturbs what it
# measures. The chat's msg/s and a build's elapsed time, sampled at 1 s,
# 100 ms and 10 ms, against the same workload with the sampler off
# (--no-sample: wait4's figures only), interleaved round by round in one
# bench run, compared by pressmark compare (Welch's t-test): each as a
# ratio to "off" with its p-value, read from compare --format json (the
# workload's headline, its change against "off" signed so that + is
# better, and p). Goals: no significant difference at 100 ms (p at least
# compare's alpha); at most 1% worse at 10 ms (the mean's change).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
. bench/lib.sh
ROUNDS=${ROUNDS:-5}
WORKLOADS=${BENCH_OBSERVER_WORKLOADS:-chat build}
ALPHA=0.05
for w in $WORKLOADS; do
    goal_plan "observer $w at 100 ms: p of the difference from off" '>=' "$ALPHA"
    goal_plan "observer $w at 10 ms: slower than off by" '<=' 1 %
done
bench_tmpdir DB
export PRESSMARK_DB="$DB/bench.db"
PM=./pressmark
modes=(off 1s 100ms 10ms)
opts() { if [ "$1" = off ]; then echo --no-sample; else echo "--interval $1"; fi; }

# judge W: W's compare table, then one line per mode (ratio, change, p)
# and its goals.
judge() {
    local w=$1 mode ratio change p n why base_n
    $PM compare --alpha "$ALPHA" "$w-off" "$w-1s" "$w-100ms" "$w-10ms"
    $PM compare --alpha "$ALPHA" --format json "$w-off" "$w-1s" "$w-100ms" "$w-10ms" > "$DB/$w.json"
    # Per label: label, ok runs, ratio of means to off, change % (+ better), p ("-" when untested).
    python3 - "$DB/$w.json" "$w-off" > "$DB/$w.tsv" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for c in doc["comparisons"]:
    base = next((l for l in c["labels"] if l["label"] == sys.argv[2]), None)
    bm = base["metrics"].get(c["headline"], {}).get("mean") if base else None
    for l in c["labels"]:
        m = l["metrics"].get(c["headline"], {})
        vs = m.get("vs_baseline", {})
        mean = m.get("mean")
        ratio = mean / bm if mean is not None and bm else None
        p = vs.get("p") if vs.get("tested") else None
        f = lambda v: "-" if v is None else "%.6g" % v
        print("\t".join([l["label"], str(l["ok"]), c["headline"], f(ratio), f(vs.get("change_pct")), f(p)]))
PY
    echo "headline $(cut -f3 "$DB/$w.tsv" | head -1): each mode against $w-off"
    base_n=$(grep "^$w-off"$'\t' "$DB/$w.tsv" | cut -f2 || true)
    for mode in 1s 100ms 10ms; do
        IFS=$'\t' read -r _ n _ ratio change p < <(grep "^$w-$mode"$'\t' "$DB/$w.tsv" || true)
        printf '  %-6s ratio to off %s, change %s%% (+ is better), p %s, %s ok runs\n' \
            "$mode" "${ratio:--}" "${change:--}" "${p:--}" "${n:-0}"
        why=""
        [ "${n:-0}" -ge 2 ] && [ "${base_n:-0}" -ge 2 ] || why="fewer than 2 ok runs a side: no t-test"
        case $mode in
            100ms)
                if [ -n "$why" ] || [ "${p:--}" = - ]; then
                    not_measured "observer $w at 100 ms: p of the difference from off" "${why:-compare gave no p}"
                else goal "observer $w at 100 ms: p of the difference from off" "$p"; fi ;;
            10ms)
                if [ "${change:--}" = - ]; then
                    not_measured "observer $w at 10 ms: slower than off by" "compare gave no change against off"
                else goal "observer $w at 10 ms: slower than off by" "$(awk -v c="$change" 'BEGIN { printf "%.6g", -c }')"; fi ;;
        esac
    done
}

# rounds W ARGS...: $ROUNDS rounds of pressmark run W ARGS, the modes
# interleaved within each round, each mode its own label W-MODE.
rounds() {
    local w=$1 m
    shift
    for _ in $(seq "$ROUNDS"); do
        for m in "${modes[@]}"; do
            # shellcheck disable=SC2046
            $PM run "$w" --quiet --label "$w-$m" "$@" $(opts "$m") >/dev/null
        done
    done
}

for w in $WORKLOADS; do
    case $w in
        chat)
            echo "== chat (2 rooms x 20 users, 300 messages each), $ROUNDS rounds, modes interleaved: ${modes[*]}"
            rounds chat --rooms 2 --users 20 --messages 300 ;;
        build)
            echo "== build (generated tree, 8 units of 1000 statements, make -j 2x CPUs), $ROUNDS rounds, modes interleaved: ${modes[*]}"
            rounds build --files 8 --unit-size 1000 --jobs 2x ;;
        *) echo "$BENCH_NAME: no workload '$w' here (chat, build)" >&2; exit 2 ;;
    esac
    judge "$w"
    echo
done
