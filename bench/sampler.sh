#!/bin/bash
# The sampler's own cost, lateness and memory, each against a peer measured
# in the same run (these machines are shared and noisy: only ratios and
# same-run comparisons mean anything).
#
#  1. CPU per tick at 1 s, with every source on, beside vmstat 1 (procps):
#     pressmark records `vmstat 1 N` itself, so both tick for the same N
#     seconds on the same machine state. vmstat's per-tick cost is its
#     rusage minus that of `vmstat 1 1` (start-up), divided by N. Three
#     rounds, the median ratio. Then each source's cost per read.
#  2. CPU seconds per 1,000 ticks at 10 ms (the densest interval).
#  3. Tick lateness p99 at 100 ms on an idle machine, beside the heartbeat
#     thread's lateness measured in the same run.
#  4. pressmark's own peak RSS while recording.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${BENCH_TICKS:-20}
DB=$(mktemp -d /tmp/pressmark-bench.XXXXXX)
trap 'rm -rf "$DB"' EXIT
export PRESSMARK_DB="$DB/bench.db"
PM=./pressmark
q() { sqlite3 -batch "$PRESSMARK_DB" "$1"; }
metric() { q "select value from metric where run_id = $1 and name = '$2'"; }

if [ -z "${SKIP_ROUNDS:-}" ]; then
echo "== sampler cost at 1 s beside vmstat 1, $N ticks each, ${ROUNDS:=3} rounds, same runs"
# Each round records vmstat 1 under pressmark at 1 s: both tick for the same
# seconds on the same machine state. The CPU each spends over N ticks is
# read from the kernel's own account of it (/proc/PID/schedstat, ns),
# after both have started and before either ends: start-up and exit are
# left out, for both alike. The machine is shared and noisy: each round's
# ratio is kept, the median reported.
sched_ns() { awk '{ print $1 }' "$1" 2>/dev/null || echo 0; }
sampler_task() {
    local t
    for t in /proc/"$1"/task/*; do
        [ "$(cat "$t/comm" 2>/dev/null)" = pm-sampler ] && { echo "$t"; return; }
    done
}
# $1: what the rounds measure; the rest: pressmark's --collect, if any.
rounds() {
    local what=$1 r; shift
    ratios=()
    for r in $(seq "$ROUNDS"); do
        $PM record --quiet --label "vmstat-beside-$r" --interval 1s "$@" -- vmstat 1 $((N + 4)) >/dev/null &
        pm=$!
        sleep 1.5
        vmpid=$(pgrep -n -x vmstat)
        task=$(sampler_task "$pm")
        v0=$(sched_ns "/proc/$vmpid/schedstat"); p0=$(sched_ns "$task/schedstat")
        sleep "$N"
        v1=$(sched_ns "/proc/$vmpid/schedstat"); p1=$(sched_ns "$task/schedstat")
        wait $pm
        line=$(awk -v v0="$v0" -v v1="$v1" -v p0="$p0" -v p1="$p1" -v n="$N" 'BEGIN {
            v = (v1 - v0) / n / 1e3; p = (p1 - p0) / n / 1e3
            printf "%.1f %.1f %.2f", v, p, (v > 0 ? p / v : 0) }')
        read -r v p ratio <<< "$line"
        printf "round %d: vmstat 1 %7.1f us CPU per tick, pressmark's sampler thread %7.1f us (%s): ratio %s\n" "$r" "$v" "$p" "$what" "$ratio"
        ratios+=("$ratio")
    done
    printf '%s\n' "${ratios[@]}" | sort -g | awk -v what="$what" '{ a[NR] = $1 } END {
        printf "ratio pressmark/vmstat, %s, median of %d rounds: %.2f\n", what, NR, a[int((NR + 1) / 2)] }'
}
rounds "every default source on: 16 files and the heartbeat"
# vmstat reads /proc/stat and /proc/vmstat each tick (meminfo once, at its
# start): pressmark reading the same files, like for like.
rounds "the files vmstat reads: stat, vmstat" --collect -meminfo,-psi,-memcg,-heartbeat,-buddyinfo,-zoneinfo,-diskstats,-procs,-mthp
echo "(goal: at most 1.0 with every default source on; stretch 0.5)"

fi
echo "== what each source costs per read (bench/sources_cost: the collectors a capped run opens, read every 100 ms)"
cg=$(mktemp -d /sys/fs/cgroup/memory/pressmark-bench.XXXXXX 2>/dev/null || true)
if [ -n "$cg" ]; then
    sh -c 'echo $$ > "$1/cgroup.procs"; exec sleep 8' sh "$cg" &
    holder=$!
    sleep 0.2
    build/bench/sources_cost "$cg" 1 100000 50
    kill $holder 2>/dev/null; wait $holder 2>/dev/null || true
    rmdir "$cg"
else
    build/bench/sources_cost "" 1 100000 50
fi

echo "== sampler cost at 10 ms, 1,000 ticks"
$PM record --quiet --label dense --interval 10ms -- sleep 10
dense=$(q "select max(id) from run")
awk -v c="$(metric "$dense" sampler.cpu_s)" -v t="$(metric "$dense" sampler.ticks)" \
    'BEGIN { printf "CPU seconds per 1,000 ticks: %.3f (%d ticks)\n", c / (t - 1) * 1000, t }'

echo "== tick lateness at 100 ms on an idle machine, beside the heartbeat thread"
$PM record --quiet --label idle --interval 100ms -- sleep 20
idle=$(q "select max(id) from run")
awk -v l="$(metric "$idle" sampler.late_p99_ms)" -v m="$(metric "$idle" sampler.missed_ticks)" -v h="$(metric "$idle" heartbeat.late_p99_ms)" 'BEGIN {
    printf "sampler tick lateness p99: %.3f ms (goal: under 1 ms), missed ticks %d\n", l, m
    printf "heartbeat lateness p99:    %.3f ms (same run: the wake-up jitter of a thread doing nothing)\n", h }'

echo "== pressmark's own memory while recording"
# vmstat's own high-water mark, read from /proc while it runs: a maxrss
# from wait4 would carry over its launcher's size across execve.
vmstat 1 3 >/dev/null &
vm=$!
sleep 1.5
vmhwm=$(awk '/^VmHWM:/ { print $2 }' /proc/$vm/status)
wait $vm
awk -v p="$(metric "$idle" pressmark.maxrss_kb)" -v v="$vmhwm" 'BEGIN {
    printf "peak RSS: %.1f MB (goal: under 16 MB); vmstat 1 (VmHWM) in the same bench: %.1f MB, ratio %.1f\n", p / 1024, v / 1024, p / v }'
