#!/bin/bash
# How far a verdict can be trusted: false alarms (A/A) and power, measured
# on real runs rather than asserted. The runs are the fixture pool
# tests/fixtures/verdict-pool.db (tests/fixtures/verdict-pool.ini: 40 chat
# and 40 usemem runs of one configuration each, recorded interleaved on
# this machine), so this records nothing and needs no root: every label
# pair below is the same configuration twice, and every "significant" a
# false alarm unless a change was injected (bench/verdict_tool.c says how
# each figure is drawn).
#
#  1. A/A, random splits: two disjoint k-run labels (k = 3, 5, 8) drawn
#     DRAWS times per workload; Welch alone (the rule before the new
#     statistics), the new rule (reports/judge.h judge_p: Mann-Whitney when
#     a side has an outlier, else Welch) and the nightly's (the new rule and
#     more than 5% worse), each with a Wilson 95% interval.
#  2. Drift: each workload's trend over its runs in recording order, and
#     consecutive batches against each other as the nightly compares
#     tonight with last night, beside the same runs as interleaved labels.
#  3. Families: compare's default metrics of both workloads for one A/A
#     split judged at once; any false alarm raw, after Benjamini-Hochberg
#     and after Holm.
#  4. Power: the same draws as 1 with the second label's headline 2, 5, 10
#     (and 20) % worse, beside what stats_detectable_pct predicts from the
#     pool's CV; then what each reference suite's runs can see.
#  5. Welch alone against the new rule on the same draws.
#  6. The ratio's 95 % interval (what compare shows: Welch's test
#     inverted) and the BCa bootstrap's (--bootstrap): how often each
#     leaves out "no change" in A/A splits at 3, 5 and 10 runs a side
#     (COVER_DRAWS a size, default 4000), over this pool and the gate pool
#     (tests/fixtures/gate-pool.db: 60 runs of each workload in a row).
#  7. The outlier rule: how many clean samples of 3 to 10 runs it flags
#     (the pools' runs, and normal runs), against the fixed 3.5 before.
# Seeded: DRAWS (default 20000) and SEED print the same tables every time.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
. bench/lib.sh
DB=${VERDICT_POOL:-tests/fixtures/verdict-pool.db}
DRAWS=${DRAWS:-20000}
SEED=${SEED:-20261202}
TOOL=build/bench/verdict_tool
G_AA="A/A false alarms of the new rule, random splits, the worst workload and k: its Wilson 95% interval's low end (not above alpha when at most 5%)"
G_BH="family-wise false alarms after Benjamini-Hochberg, the worst k"
G_HOLM="family-wise false alarms after Holm, the worst k"
G_TIME="verdict_tool's time for every table"
G_COVER="the shown interval leaving out no change in A/A splits, the worst pool, workload and runs a side: its Wilson 95% interval's low end"
G_OUTLIER="clean normal samples of 4 to 10 runs the outlier rule flags, the worst size: its Wilson 95% interval's low end"
GATE_POOL=${GATE_POOL:-tests/fixtures/gate-pool.db}
COVER_DRAWS=${COVER_DRAWS:-4000}
goal_plan "$G_AA" '<=' 5.0 %
goal_plan "$G_BH" '<=' 5.0 %
goal_plan "$G_HOLM" '<=' 5.0 %
goal_plan "$G_TIME" '<=' 90 s
goal_plan "$G_COVER" '<=' 5.0 %
goal_plan "$G_OUTLIER" '<=' 5.0 %
bench_tmpdir D
[ -x "$TOOL" ] || { echo "$TOOL is not built (make $TOOL, or make bench)"; exit 1; }
[ -f "$DB" ] || { echo "$DB: no such pool"; exit 1; }

t0=$(date +%s.%N)
"$TOOL" splits "$DB" "$DRAWS" "$SEED" "$D/raw" > "$D/splits"
"$TOOL" drift "$DB" > "$D/drift"
"$TOOL" family "$DB" "$DRAWS" "$SEED" "$D/raw" > "$D/family"
"$TOOL" coverage "$DB" "$COVER_DRAWS" "$SEED" "$D/raw" > "$D/coverage"
"$TOOL" outliers "$DB" "$DRAWS" "$SEED" "$D/raw" > "$D/outliers"
if [ -f "$GATE_POOL" ]; then
    "$TOOL" coverage "$GATE_POOL" "$COVER_DRAWS" "$SEED" "$D/raw-gate" > "$D/coverage-gate"
    "$TOOL" outliers "$GATE_POOL" "$DRAWS" "$SEED" "$D/raw-gate" > "$D/outliers-gate"
fi
t1=$(date +%s.%N)

# section NAME FILE: the tool's table NAME, its "=== NAME: title" line a heading.
section() {
    awk -v name="$1" '/^=== / { on = ($2 == name ":") ; if (on) { sub(/^=== [a-z]+: /, ""); print "### " $0; next } }
                      on' "$2"
}

echo "$TOOL over $DB, $DRAWS draws, seed $SEED (bench/verdicts.sh)"
echo
echo "## 1. A/A, random splits"
echo
section aa "$D/splits"
echo "## 2. Drift: consecutive batches in recording order"
echo
section trend "$D/drift"
section nights "$D/drift"
section windows "$D/drift"
echo
echo "## 3. Families"
echo
section family "$D/family"
echo
echo "## 4. Power"
echo
section power "$D/splits"

# What a suite's runs can see: for each runs count a reference suite plans
# (a range's least and most), the measured share of comparisons that find
# each change (new rule), and the change 80% power needs as predicted.
runs_of() { sed -n 's/^runs *= *//p' "$1" | head -1; }
seen_at() {  # seen_at WORKLOAD K SUITES: one clause
    local wl=$1 k=$2 who=$3 pred
    pred=$("$TOOL" detectable "$DB" "$wl" "$k")
    awk -F'\t' -v wl="$wl" -v k="$k" -v who="$who" -v pred="$pred" '
        $1 == "split" && $2 == wl && $3 == k && $4 >= 5 {
            c = c (c ? ", " : "") $4; f = f (f ? ", " : "") sprintf("%.0f", 100 * $6) }
        END {
            printf "at %s runs a side (%s) ", k, who
            if (c) printf "a %s%% drop is found in %s%% of comparisons, and 80%% power needs about %s%%", c, f, pred
            else printf "80%% power needs about %s%% (predicted only: %s-run draws from 40 runs are not independent)",
                        pred, k }' "$D/raw"
}
suite_family() {  # suite_family WORKLOAD PATTERN: one sentence
    local wl=$1 pattern=$2 f name runs lo hi k sep=""
    local -A names=()
    for f in suites/"$pattern"*.ini; do
        name=$(basename "$f" .ini); runs=$(runs_of "$f")
        lo=${runs%%..*}; hi=${runs##*..}
        if [ "$lo" = "$hi" ]; then names[$lo]+="${names[$lo]:+, }$name"
        else
            names[$lo]+="${names[$lo]:+, }$name when it stops early"
            names[$hi]+="${names[$hi]:+, }$name at most"
        fi
    done
    printf -- '- %s* (%s, pool CV %s%%): ' "$pattern" "$wl" \
        "$(awk -F'\t' -v wl="$wl" '$1 == "cv" && $2 == wl { printf "%.1f", $3 }' "$D/raw")"
    for k in $(printf '%s\n' "${!names[@]}" | sort -n); do
        printf '%s%s' "$sep" "$(seen_at "$wl" "$k" "${names[$k]}")"
        sep="; "
    done
    echo "."
}
echo "What the reference suites' runs can see (the new rule at alpha 0.05; the pool's CV stands in for"
echo "each suite's cells):"
echo
suite_family chat volanomark-
suite_family usemem robot-memory-
echo
echo "## 5. Welch alone against the new rule"
echo
section agree "$D/splits"
echo
echo "## 6. The ratio's 95% interval: coverage in A/A splits ($COVER_DRAWS a size; $DB, then $GATE_POOL)"
echo
section coverage "$D/coverage"
[ ! -f "$D/coverage-gate" ] || section coverage "$D/coverage-gate"
echo
echo "## 7. The outlier rule on clean samples ($DRAWS a size; $DB, then $GATE_POOL)"
echo
section outliers "$D/outliers"
[ ! -f "$D/outliers-gate" ] || section outliers "$D/outliers-gate"

# The worst rate's Wilson interval: a rate of 5.01% over 20,000 draws is
# alpha within its own noise, so the goal holds the interval's low end.
worst_aa=$(awk -F'\t' -v n="$DRAWS" '$1 == "split" && $4 == 0 && $6 > w { w = $6 }
    END { z = 1.959964; c = w + z * z / (2 * n); h = z * sqrt(w * (1 - w) / n + z * z / (4 * n * n));
          printf "%.2f", 100 * (c - h) / (1 + z * z / n) }' "$D/raw")
worst_bh=$(awk -F'\t' '$1 == "family" && $4 > w { w = $4 } END { printf "%.2f", 100 * w }' "$D/raw")
worst_holm=$(awk -F'\t' '$1 == "family" && $5 > w { w = $5 } END { printf "%.2f", 100 * w }' "$D/raw")
echo
goal "$G_AA" "$worst_aa"
goal "$G_BH" "$worst_bh"
goal "$G_HOLM" "$worst_holm"
goal "$G_TIME" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')"
# coverage WL K DRAW(pool|normal) DRAWS BOOT_MISS WELCH_MISS; outliers WL N DRAW DRAWS NOW BEFORE
wilson_low() { awk -v x="$1" -v n="$2" 'BEGIN { w = x / n; z = 1.959964; c = w + z * z / (2 * n);
    h = z * sqrt(w * (1 - w) / n + z * z / (4 * n * n)); printf "%.2f", 100 * (c - h) / (1 + z * z / n) }'; }
worst_cover=$(cat "$D/raw" "$D/raw-gate" 2>/dev/null | awk -F'\t' '$1 == "coverage" && $4 == "pool" && $7 / $5 >= w { w = $7 / $5; x = $7; n = $5 }
    END { print x, n }')
goal "$G_COVER" "$(wilson_low $worst_cover)"
worst_out=$(awk -F'\t' '$1 == "outliers" && $4 == "normal" && $3 >= 4 && $6 / $5 >= w { w = $6 / $5; x = $6; n = $5 }
    END { print x, n }' "$D/raw")
goal "$G_OUTLIER" "$(wilson_low $worst_out)"
