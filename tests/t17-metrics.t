#!/bin/bash
# pressmark-metrics(7)'s catalogue against the code: every metric the
# sources name literally, with its unit and direction, is in 'pressmark help
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

# Literal names in run_metric() / metric_set_put() / put_*() calls, with
# the unit and direction they are stored with (the skeleton is a template,
# never registered).
cd "$ROOT" || exit 1
perl -0777 -ne '
    while (/(run_metric|metric_set_put|put_pct|put_delta|put_prefix_sum)\(\s*[^,()]+,\s*(?:t,\s*out,\s*"[^"]+",\s*)?"([a-z0-9_.]+)"([^;]*);/g) {
        my ($f, $n, $r) = ($1, $2, $3);
        my ($u, $d) = $r =~ /"([^"]*)"\s*,\s*PM_(\w+)/;
        ($u, $d) = ("%", $r =~ /PM_(\w+)/) if $f eq "put_pct";   # put_pct: always %
        next unless defined $u && defined $d;
        print "$n $u ", ($d eq "HIGHER" ? "higher" : $d eq "LOWER" ? "lower" : "-"), "\n";
    }
    # The vmstat counters derive.c copies by key, and the mTHP sums.
    while (/\{ "([a-z_]+)", "([a-z]+)", PM_(\w+) \}/g) {
        print "vmstat.$1 $2 ", ($3 eq "HIGHER" ? "higher" : $3 eq "LOWER" ? "lower" : "-"), "\n";
    }' $(git ls-files '*.c' | grep -v '^tests/\|^fuzz/\|^workloads/skeleton.c$') | LC_ALL=C sort -u > "$TMP/src"
ge "$(wc -l < "$TMP/src")" 140 "metrics found in the sources (140 or more)"
is "$(LC_ALL=C comm -23 "$TMP/src" "$TMP/cat")" "" "every metric of the sources is in the catalogue with its unit and direction"
ok "the vmstat counters copied by key are among them" grep -q '^vmstat.workingset_restore_file pages lower$' "$TMP/src"
is "$(grep -c '^reclaim.*%' "$TMP/src")" 4 "  and put_pct()'s four percentages"
done_testing
