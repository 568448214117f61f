#!/bin/bash
# pressmark-metrics(7)'s catalogue against the code: every metric the
# sources declare, with its unit and direction, is in 'pressmark help
# metrics' as written. (Names built at run time are checked on every run the
# tests make: lib.sh sets PRESSMARK_TEST_STRICT_METRICS=1.)
. "$(dirname "$0")/lib.sh"
"$PM" help metrics > "$TMP/cat.txt"
is "$?" 0 "pressmark help metrics"
# name unit better, one line per entry
awk '/^  metric  / { on = 1; next } on && /^  [^ ]/ { print $1, $2, $3 }' "$TMP/cat.txt" | LC_ALL=C sort > "$TMP/cat"
ge "$(wc -l < "$TMP/cat")" 150 "the catalogue lists every metric (150 or more)"
is "$(awk '{ print $1 }' "$TMP/cat" | uniq -d)" "" "no metric twice"
is "$(awk '$3 != "higher" && $3 != "lower" && $3 != "-"' "$TMP/cat")" "" "each has a direction: higher, lower or -"

# The metrics as the sources declare them (METRIC and LATENCY_METRIC rows
# of the producers' tables), with their units and directions (the
# skeletons, workloads/skeleton.c and collectors/src_skeleton.c, are
# templates, never registered; figures/ declares what a tool's output
# gives, which record --figures stores).
cd "$ROOT" || exit 1
perl -0777 -ne '
    sub dir { $_[0] eq "HIGHER" ? "higher" : $_[0] eq "LOWER" ? "lower" : "-" }
    while (/(?<![A-Z_])METRIC\(\s*"([a-z0-9_.<>]+)",\s*"([^"]*)",\s*PM_(\w+)/g) { print "$1 $2 ", dir($3), "\n" }
    # A latency family: the seven metrics run_latency stores.
    while (/LATENCY_METRIC\(\s*"([a-z0-9_.]+)"/g) {
        print "$1_samples count -\n";
        print "$1_$_ us lower\n" for qw(p50_us p90_us p99_us p999_us max_us mean_us);
    }' $(git ls-files '*.c' | grep -v '^tests/\|^fuzz/\|^workloads/skeleton.c$\|^collectors/src_skeleton.c$') | LC_ALL=C sort -u > "$TMP/src"
ge "$(wc -l < "$TMP/src")" 140 "metrics found in the sources (140 or more)"
is "$(LC_ALL=C comm -23 "$TMP/src" "$TMP/cat")" "" "every metric of the sources is in the catalogue with its unit and direction"
ok "the vmstat counters copied by key are among them" grep -q '^vmstat.workingset_restore_file pages lower$' "$TMP/src"
is "$(grep -c '^reclaim.*%' "$TMP/src")" 4 "  and put_pct()'s four percentages"

# The generated metric_names.h has a macro for every declaration (reports and
# headlines name metrics through it): the awk misses none.
GEN=$(dirname "$PM")/gen/metric_names.h
[ -f "$GEN" ] || GEN=$ROOT/build/gen/metric_names.h
awk '{ print $1 }' "$TMP/src" | LC_ALL=C sort -u > "$TMP/declared"
sed -n 's/^#define MN_[A-Za-z0-9_]*\(([a-z]*)\)\? "\([^"]*\)"\( [a-z]* "\([^"]*\)"\)\?$/\2<word>\4/p' "$GEN" |
    LC_ALL=C sort -u > "$TMP/macros"
like "$(wc -l < "$TMP/macros")" '^1[4-9][0-9]$|^[2-9][0-9][0-9]$' "metric_names.h defines a macro a metric ($(wc -l < "$TMP/macros"))"
is "$(sed 's/<[a-z_]*>/<word>/' "$TMP/declared" | sed 's/<word>$//' | LC_ALL=C sort -u | LC_ALL=C comm -23 - <(sed 's/<word>$//' "$TMP/macros"))" "" \
   "every declared metric has its macro in metric_names.h"
done_testing
