#!/bin/bash
# The sampler's own cost, lateness and memory, each against a peer measured
# in the same run (these machines are shared and noisy: only ratios and
# same-run comparisons mean anything).
#
#  1. CPU per tick at 1 s, with every source on, beside vmstat 1 (procps):
#     pressmark records `vmstat 1 N` itself, so both tick for the same N
#     seconds on the same machine state. vmstat's per-tick cost is its
#     rusage minus that of `vmstat 1 1` (start-up), divided by N.
#  2. CPU seconds per 1,000 ticks at 10 ms (the densest interval).
#  3. Tick lateness p99 at 100 ms on an idle machine, beside the heartbeat
#     thread's lateness measured in the same run.
#  4. pressmark's own peak RSS while recording.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${BENCH_TICKS:-30}
DB=$(mktemp -d /tmp/pressmark-bench.XXXXXX)
trap 'rm -rf "$DB"' EXIT
export PRESSMARK_DB="$DB/bench.db"
PM=./pressmark
q() { sqlite3 -batch "$PRESSMARK_DB" "$1"; }
metric() { q "select value from metric where run_id = $1 and name = '$2'"; }

echo "== sampler cost at 1 s beside vmstat 1, $N ticks each, same run"
$PM record --quiet --label vmstat-startup -- vmstat 1 1 >/dev/null
$PM record --quiet --label vmstat-beside --interval 1s -- vmstat 1 $((N + 1)) >/dev/null
vm0=$(q "select sum(value) from metric where run_id = 1 and name in ('time.user_s','time.sys_s')")
vm=$(q "select sum(value) from metric where run_id = 2 and name in ('time.user_s','time.sys_s')")
pm_cpu=$(metric 2 sampler.cpu_s); pm_ticks=$(metric 2 sampler.ticks)
awk -v vm0="$vm0" -v vm="$vm" -v n="$N" -v c="$pm_cpu" -v t="$pm_ticks" 'BEGIN {
    v = (vm - vm0) / n * 1e6; p = c / (t - 1) * 1e6
    printf "vmstat 1:             %7.1f us CPU per tick\n", v
    printf "pressmark sampler:    %7.1f us CPU per tick (%d ticks, every source on)\n", p, t
    printf "ratio pressmark/vmstat: %.2f (goal: at most 0.50)\n", p / v }'

echo "== sampler cost at 10 ms, 1,000 ticks"
$PM record --quiet --label dense --interval 10ms -- sleep 10
awk -v c="$(metric 3 sampler.cpu_s)" -v t="$(metric 3 sampler.ticks)" \
    'BEGIN { printf "CPU seconds per 1,000 ticks: %.3f (%d ticks)\n", c / (t - 1) * 1000, t }'

echo "== tick lateness at 100 ms on an idle machine, beside the heartbeat thread"
$PM record --quiet --label idle --interval 100ms -- sleep 20
awk -v l="$(metric 4 sampler.late_p99_ms)" -v m="$(metric 4 sampler.missed_ticks)" -v h="$(metric 4 heartbeat.late_p99_ms)" 'BEGIN {
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
awk -v p="$(metric 4 pressmark.maxrss_kb)" -v v="$vmhwm" 'BEGIN {
    printf "peak RSS: %.1f MB (goal: under 16 MB); vmstat 1 (VmHWM) in the same bench: %.1f MB, ratio %.1f\n", p / 1024, v / 1024, p / v }'
