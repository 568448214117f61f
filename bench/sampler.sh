#!/bin/bash
# The sampler's own cost, lateness and memory, each against a peer measured
# in the same run (these machines are shared and noisy: only ratios and
# same-run comparisons mean anything).
#
#  1. CPU per tick at 1 s, with every source on, beside vmstat 1 (procps):
#     pressmark records `vmstat 1 N` itself, so both tick for the same N
#     seconds on the same machine state. pressmark's side is its two
#     periodic threads, pm-sampler (the sources) and pm-heartbeat (the
#     heartbeat source's 100 ms beat), summed; vmstat's is its process.
#     Both are read from /proc/.../schedstat over the same N seconds,
#     after both have started and before either ends. Three rounds, the
#     median ratio; a round whose reading failed is said and left out.
#     Then each source's cost per read.
#  2. CPU seconds per 1,000 ticks at 10 ms (the densest interval).
#  3. Tick lateness p99 at 100 ms on an idle machine, beside the heartbeat
#     thread's lateness measured in the same run.
#  4. pressmark's own peak RSS while recording.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
. bench/lib.sh
N=${BENCH_TICKS:-20}
ROUNDS=${ROUNDS:-3}
COST=build/bench/sources_cost
G_RATIO="sampler CPU per tick / vmstat's, every default source"
G_STRETCH="sampler CPU per tick / vmstat's, every default source (stretch)"
G_LATE="sampler tick lateness p99 at 100 ms"
G_RSS="pressmark peak RSS while recording"
[ -n "${SKIP_ROUNDS:-}" ] || { goal_plan "$G_RATIO" '<=' 1.0; goal_plan "$G_STRETCH" '<=' 0.5; }
goal_plan "$G_LATE" '<' 1 ms
goal_plan "$G_RSS" '<' 16 MB
bench_tmpdir DB
export PRESSMARK_DB="$DB/bench.db"
PM=./pressmark
q() { sqlite3 -batch "$PRESSMARK_DB" "$1"; }
metric() { q "select value from metric where run_id = $1 and name = '$2'"; }

# A task's CPU time so far (ns), from the kernel's own account of it;
# nothing when it cannot be read (the task has gone).
sched_ns() { awk '{ print $1 }' "$1" 2>/dev/null || true; }
# The task directories of pressmark process $1's threads named $2.
thread_of() {
    local t
    for t in /proc/"$1"/task/*; do
        [ "$(cat "$t/comm" 2>/dev/null)" = "$2" ] && { echo "$t"; return 0; }
    done
    return 1
}
# Process $1 has run its start-up and its first tick and sleeps until
# the next: it has exec'd (its name is $2 now, not its launcher's) and
# waits in nanosleep (its wait channel says so, or the system call it is
# in: x86-64's nanosleep 35 or clock_nanosleep 230).
started() {
    [ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ] || return 1
    case "$(cat "/proc/$1/wchan" 2>/dev/null)" in *nanosleep*) return 0 ;; esac
    case "$(cut -d' ' -f1 "/proc/$1/syscall" 2>/dev/null)" in 35 | 230) return 0 ;; esac
    return 1
}
# The vmstat pressmark process $1 runs, once it has started (see started).
vmstat_child() {
    local c
    c=$(pgrep -P "$1" -x vmstat) || return 1
    started "$c" vmstat && echo "$c"
}
# pressmark process $1 runs vmstat and every thread named in $2.
all_up() {
    local name
    vmstat_child "$1" >/dev/null || return 1
    for name in $2; do thread_of "$1" "$name" >/dev/null || return 1; done
}

# A round's pressmark record runs in the background, started with SIGINT
# ignored (a shell without job control does that): when the bench ends
# early it is ended with SIGTERM, which it handles as it does SIGINT.
running=""
stop_running() { if [ -n "$running" ]; then kill -TERM "$running" 2>/dev/null; wait "$running" 2>/dev/null || true; running=""; fi; }
cleanup_add stop_running

# round R WHAT THREADS [--collect ...]: one round; prints the ratio on fd 3
# when its readings hold.
round() {
    local r=$1 what=$2 threads=$3 pm vm name why="" v0 v1 sum0=0 sum1=0 parts=""
    local -A tp=() p0=() p1=()
    shift 3
    $PM record --quiet --label "vmstat-beside-$r" --interval 1s "$@" -- vmstat 1 $((N + 4)) >/dev/null &
    pm=$! running=$!
    if ! wait_until 10 all_up "$pm" "$threads"; then
        echo "round $r: vmstat or pressmark's threads ($threads) were not all running within 10 s: left out"
        wait "$pm" || true
        running=""
        return 0
    fi
    vm=$(vmstat_child "$pm")
    # Half a second past vmstat's first tick: its ticks then fall inside
    # the window, N of them, none at its edges.
    sleep 0.5
    for name in $threads; do tp[$name]=$(thread_of "$pm" "$name") || true; done
    v0=$(sched_ns "/proc/$vm/schedstat")
    for name in $threads; do p0[$name]=$(sched_ns "${tp[$name]}/schedstat"); done
    sleep "$N"
    v1=$(sched_ns "/proc/$vm/schedstat")
    for name in $threads; do p1[$name]=$(sched_ns "${tp[$name]}/schedstat"); done
    wait "$pm" || echo "round $r: pressmark record exited $?"
    running=""
    if [ -z "$v0" ] || [ -z "$v1" ]; then
        why="vmstat's reading failed (its /proc/$vm/schedstat could not be read: it had ended)"
    elif [ "$v1" -le "$v0" ]; then
        why="vmstat's reading failed (no CPU time counted in $N s: $v0 -> $v1 ns)"
    fi
    for name in $threads; do
        [ -n "$why" ] && break
        if [ -z "${p0[$name]}" ] || [ -z "${p1[$name]}" ]; then
            why="pressmark's reading failed (its $name thread's schedstat could not be read)"
        elif [ "${p1[$name]}" -lt "${p0[$name]}" ]; then
            why="pressmark's reading failed ($name's CPU time went back)"
        else
            sum0=$((sum0 + p0[$name])); sum1=$((sum1 + p1[$name]))
            parts+="${parts:+ + }$name $(awk -v a="${p0[$name]}" -v b="${p1[$name]}" -v n="$N" 'BEGIN { printf "%.1f", (b - a) / n / 1e3 }')"
        fi
    done
    if [ -n "$why" ]; then
        echo "round $r: $why: left out"
        return 0
    fi
    local line v p ratio
    line=$(awk -v v0="$v0" -v v1="$v1" -v p0="$sum0" -v p1="$sum1" -v n="$N" 'BEGIN {
        v = (v1 - v0) / n / 1e3; p = (p1 - p0) / n / 1e3
        printf "%.1f %.1f %.6g", v, p, p / v }')
    read -r v p ratio <<< "$line"
    printf "round %d: vmstat 1 %7.1f us CPU per tick, pressmark %7.1f us (%s) (%s): ratio %.2f\n" \
        "$r" "$v" "$p" "$parts" "$what" "$ratio"
    echo "$ratio" >&3
}
# rounds WHAT THREADS [--collect ...]: $ROUNDS rounds; the median ratio in $med.
rounds() {
    local what=$1 threads=$2 r kept
    shift 2
    : > "$DB/ratios"
    for r in $(seq "$ROUNDS"); do round "$r" "$what" "$threads" "$@" 3>> "$DB/ratios"; done
    kept=$(wc -l < "$DB/ratios")
    med=$(median < "$DB/ratios")
    if [ "$kept" -gt 0 ]; then
        printf "ratio pressmark/vmstat, %s, median of %d rounds of %d: %.2f\n" "$what" "$kept" "$ROUNDS" "$med"
    else
        echo "ratio pressmark/vmstat, $what: no round's reading held"
    fi
}

if [ -z "${SKIP_ROUNDS:-}" ]; then
    echo "== pressmark's CPU per tick at 1 s beside vmstat 1, $N ticks each, $ROUNDS rounds, same runs"
    echo "(pressmark's side: its pm-sampler and pm-heartbeat threads, summed; vmstat's: its process)"
    rounds "every default source on: 16 files and the heartbeat" "pm-sampler pm-heartbeat"
    if [ -n "$med" ]; then goal "$G_RATIO" "$med"; goal "$G_STRETCH" "$med"
    else
        not_measured "$G_RATIO" "every round's reading failed"
        not_measured "$G_STRETCH" "every round's reading failed"
    fi
    # vmstat reads /proc/stat and /proc/vmstat each tick (meminfo once, at
    # its start): pressmark reading the same files, like for like (no
    # heartbeat: only the sampler thread runs).
    rounds "the files vmstat reads: stat, vmstat" pm-sampler \
        --collect -meminfo,-psi,-memcg,-heartbeat,-buddyinfo,-zoneinfo,-diskstats,-procs,-mthp
fi

echo "== what each source costs per read (bench/sources_cost: the collectors a capped run opens, read every 100 ms)"
# The memory cgroup a capped run's memcg source reads: this bench's own,
# with a process in it, removed at exit once that process has left it
# (an rmdir while it is still exiting fails with EBUSY).
# (cgroup files say size 0 whatever they hold: read them.)
cg_empty() { [ -z "$(cat "$1/cgroup.procs" 2>/dev/null)" ]; }
cg_in_use() { [ -n "$(cat "$1/cgroup.procs" 2>/dev/null)" ]; }
# The cgroup's holder ended and waited for, the cgroup emptied and removed:
# once, right after its use or at exit, whichever comes first.
cg="" holder=""
cg_done() {
    if [ -n "$holder" ]; then kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null || true; holder=""; fi
    [ -n "$cg" ] && [ -d "$cg" ] || return 0
    wait_until 10 cg_empty "$cg" || echo "$BENCH_NAME: $cg still holds $(tr '\n' ' ' < "$cg/cgroup.procs")after 10 s"
    rmdir "$cg" || echo "$BENCH_NAME: could not remove $cg"
    cg=""
}
if [ ! -x "$COST" ]; then
    echo "$COST is missing: run make bench, or make $COST"
else
    v=1
    if [ -d /sys/fs/cgroup/memory ]; then
        cg=$(mktemp -d /sys/fs/cgroup/memory/pressmark-bench.XXXXXX 2>/dev/null) || cg=""
    elif grep -qw memory /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then
        cg=$(mktemp -d /sys/fs/cgroup/pressmark-bench.XXXXXX 2>/dev/null) || cg=""
        v=2
    fi
    if [ -n "$cg" ]; then
        cleanup_add cg_done
        sh -c 'echo $$ > "$1/cgroup.procs"; exec sleep 600' sh "$cg" &
        holder=$!
        wait_until 5 cg_in_use "$cg" || echo "$BENCH_NAME: nothing entered $cg within 5 s"
        "$COST" "$cg" "$v" 100000 50
        cg_done
    else
        echo "(no memory cgroup could be made here: the memcg sources are left out)"
        "$COST" "" 1 100000 50
    fi
fi

echo "== sampler cost at 10 ms, 1,000 ticks"
$PM record --quiet --label dense --interval 10ms -- sleep 10
dense=$(q "select max(id) from run")
cpu=$(metric "$dense" sampler.cpu_s); ticks=$(metric "$dense" sampler.ticks)
if [ -n "$cpu" ] && [ -n "$ticks" ]; then
    awk -v c="$cpu" -v t="$ticks" \
        'BEGIN { printf "CPU seconds per 1,000 ticks (the sampler thread): %.3f (%d ticks)\n", c / (t - 1) * 1000, t }'
else
    echo "CPU seconds per 1,000 ticks: not measured (the run stored no sampler.cpu_s or sampler.ticks)"
fi

echo "== tick lateness at 100 ms on an idle machine, beside the heartbeat thread"
$PM record --quiet --label idle --interval 100ms -- sleep 20
idle=$(q "select max(id) from run")
late=$(metric "$idle" sampler.late_p99_ms)
if [ -n "$late" ]; then
    awk -v l="$late" -v m="$(metric "$idle" sampler.missed_ticks)" -v h="$(metric "$idle" heartbeat.late_p99_ms)" 'BEGIN {
        printf "sampler tick lateness p99: %.3f ms, missed ticks %d\n", l, m
        printf "heartbeat lateness p99:    %.3f ms (same run: the wake-up jitter of a thread doing nothing)\n", h }'
    goal "$G_LATE" "$(awk -v l="$late" 'BEGIN { printf "%.6g", l }')"
else
    not_measured "$G_LATE" "the run stored no sampler.late_p99_ms"
fi

echo "== pressmark's own memory while recording"
# vmstat's own high-water mark, read from /proc while it runs (after its
# first tick): a maxrss from wait4 would carry over its launcher's size
# across execve.
vmstat 1 3 >/dev/null &
vm=$!
vmhwm=""
if wait_until 5 started "$vm" vmstat; then vmhwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$vm/status" 2>/dev/null || true); fi
wait "$vm" || true
rss=$(metric "$idle" pressmark.maxrss_kb)
if [ -n "$rss" ]; then
    if [ -n "$vmhwm" ]; then
        awk -v p="$rss" -v v="$vmhwm" 'BEGIN {
            printf "peak RSS: %.1f MB; vmstat 1 (VmHWM) in the same bench: %.1f MB, ratio %.1f\n", p / 1024, v / 1024, p / v }'
    else
        awk -v p="$rss" 'BEGIN { printf "peak RSS: %.1f MB; vmstat 1 (VmHWM): could not be read\n", p / 1024 }'
    fi
    goal "$G_RSS" "$(awk -v p="$rss" 'BEGIN { printf "%.6g", p / 1024 }')"
else
    not_measured "$G_RSS" "the run stored no pressmark.maxrss_kb"
fi
