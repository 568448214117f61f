#!/bin/bash
# Samples people can query: the sample view against a plain table of the
# same rows, the bytes a tick takes, and export against sqlite3 -csv, each
# against its peer in the same run (these machines are shared and noisy).
#
#  1. Storage: a run of the default sources under a memory cap with swap
#     in use (stress-ng's vm stressor, 200M in a 128M cap), at 100 ms and
#     at 1 s; the database's bytes a tick (its tick tables' pages, dbstat)
#     beside what schema 7 (each tick the changes as varints) took for the
#     same samples (bench/sample_tool v7size).
#  2. Queries: the 100 ms recording replayed into databases of 10 and of
#     100 runs of 1,000 ticks (bench/sample_tool replay: through
#     pressmark's own tick writer); one series of one run, and all series
#     of one run, from the sample view and from a plain table (run_id,
#     name, seq, t_ns, value) built from it with its primary key, both
#     timed interleaved in one process (the median of REPS).
#  3. Export: one run of an hour at 100 ms (36,000 ticks, replayed) to CSV,
#     against sqlite3 -csv over the plain table; peak RSS at 10 minutes
#     and at an hour.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
. bench/lib.sh
REPS=${REPS:-31}
PM=./pressmark
TOOL=build/bench/sample_tool
G_ONE="one series of one run, view / plain table (100 runs)"
G_ONE10="one series of one run, view / plain table (10 runs)"
G_ALL="all series of one run, view / plain table (100 runs)"
G_100MS="storage per tick at 100 ms"
G_1S="storage per tick at 1 s"
G_EXPORT="export csv of an hour at 100 ms / sqlite3 -csv"
G_RSS="export's peak RSS, an hour / 10 minutes"
goal_plan "$G_ONE" '<=' 2.0
goal_plan "$G_ONE10" '<=' 2.0
goal_plan "$G_ALL" '<=' 2.0
goal_plan "$G_100MS" '<=' 300 bytes
goal_plan "$G_1S" '<=' 300 bytes
goal_plan "$G_EXPORT" '<=' 2.0
goal_plan "$G_RSS" '<=' 1.1
bench_tmpdir D
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

# 1. Storage, from real runs.
record() {  # record NAME INTERVAL SECONDS
    if [ "$(id -u)" -ne 0 ]; then return 1; fi
    PRESSMARK_DB="$D/$1.db" $PM record --quiet --label "$1" --interval "$2" --mem-cap 128M --swap 512M -- \
        stress-ng --quiet --vm 1 --vm-bytes 200M --timeout "${3}s" > /dev/null
}
bytes_per_tick() {  # bytes_per_tick DB: the tick tables' pages over the ticks
    sqlite3 "$1" "select (select sum(pgsize) from dbstat where name like 'tick%' and name != 'tick_series')
                         / (select count(*) * 1.0 from tick)" | awk '{ printf "%.0f", $1 }'
}
echo "== storage: the default sources, stress-ng --vm 1 --vm-bytes 200M under a 128M cap with 512M of swap"
for spec in "s100ms 100ms 60 $G_100MS" "s1s 1s 120 $G_1S"; do
    read -r name iv secs gname <<< "$spec"
    if ! command -v stress-ng > /dev/null || ! record "$name" "$iv" "$secs"; then
        not_measured "$gname" "no recording at $iv (stress-ng missing, not root, or the run failed)"
        continue
    fi
    ticks=$(sqlite3 "$D/$name.db" "select count(*) from tick")
    now=$(bytes_per_tick "$D/$name.db")
    was=$($TOOL v7size "$D/$name.db" 1)
    echo "$iv: $ticks ticks, $now bytes a tick (schema 7: $was bytes a tick for the same samples; ratio $(ratio "$now" "$was"))"
    goal "$gname" "$now"
done

# 2. Queries over 10 and 100 runs.
src="$D/s100ms.db"
[ -f "$src" ] || { PRESSMARK_DB="$src" $PM record --quiet --label q --interval 100ms -- sleep 60 > /dev/null; }
one=vmstat.pgfree
for n in 10 100; do
    db="$D/q$n.db"
    $TOOL replay "$src" 1 "$db" "$n" 1000
    sqlite3 "$db" "create table plain (run_id integer, name text, seq integer, t_ns integer, value,
                                       primary key (run_id, name, seq)) without rowid;
                   insert into plain select run_id, name, seq, t_ns, value from sample;"
    r=$((n / 2))
    mapfile -t t < <($TOOL time "$db" "$REPS" \
        "select seq, t_ns, value from sample where run_id = $r and name = '$one'" \
        "select seq, t_ns, value from plain where run_id = $r and name = '$one'" \
        "select seq, value from sample where run_id = $r and name = '$one'" \
        "select seq, value from plain where run_id = $r and name = '$one'" \
        "select name, seq, t_ns, value from sample where run_id = $r" \
        "select name, seq, t_ns, value from plain where run_id = $r")
    read -r v1 rows1 <<< "${t[0]}"; read -r p1 prow1 <<< "${t[1]}"
    read -r v2 _ <<< "${t[2]}"; read -r p2 _ <<< "${t[3]}"
    read -r v3 rows3 <<< "${t[4]}"; read -r p3 prow3 <<< "${t[5]}"
    echo "$n runs: $one of run $r: view $v1 ms, plain $p1 ms ($rows1 and $prow1 rows): $(ratio "$v1" "$p1")x;" \
         "without t_ns $v2 against $p2 ms: $(ratio "$v2" "$p2")x"
    echo "$n runs: all series of run $r: view $v3 ms, plain $p3 ms ($rows3 and $prow3 rows): $(ratio "$v3" "$p3")x"
    [ "$rows1" = "$prow1" ] && [ "$rows3" = "$prow3" ] || { echo "the view and the plain table differ in rows"; exit 1; }
    if [ "$n" = 10 ]; then goal "$G_ONE10" "$(ratio "$v1" "$p1")"; else
        goal "$G_ONE" "$(ratio "$v1" "$p1")"; goal "$G_ALL" "$(ratio "$v3" "$p3")"; fi
done

# 3. Export of an hour at 100 ms.
for ticks in 6000 36000; do
    $TOOL replay "$src" 1 "$D/x$ticks.db" 1 "$ticks"
    /usr/bin/time -f '%e %M' -o "$D/rss$ticks" env PRESSMARK_DB="$D/x$ticks.db" $PM export replay > "$D/x$ticks.csv"
done
sqlite3 "$D/x36000.db" "create table plain (run_id integer, name text, seq integer, t_ns integer, value,
                                          primary key (run_id, name, seq)) without rowid;
                        insert into plain select run_id, name, seq, t_ns, value from sample;"
for i in 1 2 3; do
    s0=$(date +%s.%N); PRESSMARK_DB="$D/x36000.db" $PM export replay > /dev/null; s1=$(date +%s.%N)
    sqlite3 -csv "$D/x36000.db" "select run_id, seq, t_ns, name, value from plain" > /dev/null; s2=$(date +%s.%N)
    echo "$s0 $s1 $s2"
done > "$D/exp.times"
median() { sort -g | sed -n 2p; }   # of three
ex=$(awk '{ printf "%.3f\n", $2 - $1 }' "$D/exp.times" | median)
sq=$(awk '{ printf "%.3f\n", $3 - $2 }' "$D/exp.times" | median)
rows=$(($(wc -l < "$D/x36000.csv") - 1))
echo "export csv of 36,000 ticks ($rows rows): $ex s (median of 3), sqlite3 -csv over the plain table: $sq s"
goal "$G_EXPORT" "$(ratio "$ex" "$sq")"
read -r _ rss6 < "$D/rss6000"; read -r _ rss36 < "$D/rss36000"
echo "export's peak RSS: $rss6 KB for 6,000 ticks, $rss36 KB for 36,000"
goal "$G_RSS" "$(ratio "$rss36" "$rss6")"
