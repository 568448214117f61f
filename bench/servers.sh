#!/bin/bash
# Does run redis measure what redis-benchmark measures by hand? The same
# redis-server (Debian's, as the redis user) under the same memory cap
# with the same swap, the same data set loaded first, then the same
# redis-benchmark GET run from outside the cap: once by pressmark run
# redis, once by this script with a cgroup, a swap file and redis-cli
# --pipe of its own, round by round, each side's order alternating. The
# figure is the ratio of the medians of redis-benchmark's own GET rate.
# Goal: within 10 % (0.9 to 1.1), the run-to-run noise of a swapping
# server here.
#
# By hand is as a user would write it: no ACL (pressmark signs its
# loader in, redis-benchmark signs in as no one on both sides), the
# loader redis-cli --pipe (pressmark's own loader pipelines as it does),
# random 4000-byte values under the names redis-benchmark -r draws
# (key:000000000000 ...).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
. bench/lib.sh
ROUNDS=${ROUNDS:-5}
CAP_MB=${CAP_MB:-64}
DATA_MB=${DATA_MB:-96}
REQUESTS=${REQUESTS:-20000}
G_REDIS="run redis GET/s / redis-benchmark's by hand"
G_REDIS_HI="$G_REDIS, not above"
goal_plan "$G_REDIS" '>=' 0.9
goal_plan "$G_REDIS_HI" '<=' 1.1
need() {
    command -v "$1" >/dev/null && return 0
    not_measured "$G_REDIS" "$1 is missing"
    not_measured "$G_REDIS_HI" "$1 is missing"
    echo "bench/servers.sh: needs $1 (apt-get install $2)" >&2
    exit 2
}
need redis-server redis-server
need redis-benchmark redis-tools
need redis-cli redis-tools
[ "$(id -u)" = 0 ] || { not_measured "$G_REDIS" "needs root"; not_measured "$G_REDIS_HI" "needs root"; echo "bench/servers.sh: needs root (a cgroup, a swap file)" >&2; exit 2; }
# The cap by hand: cgroup v1's memory controller, else cgroup v2's with
# memory enabled for its children.
mem=/sys/fs/cgroup/memory
if [ ! -f "$mem/memory.limit_in_bytes" ]; then
    mem=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
    grep -qw memory "${mem:-/nonexistent}/cgroup.subtree_control" 2>/dev/null || {
        not_measured "$G_REDIS" "no memory cgroup controller"; not_measured "$G_REDIS_HI" "no memory cgroup controller"
        echo "bench/servers.sh: needs a memory cgroup controller (v1, or v2 with memory in cgroup.subtree_control)" >&2
        exit 2
    }
fi
bench_tmpdir DIR
chmod 0711 "$DIR"   # the redis user reaches its socket directory below, nothing else
PRIV=$DIR/private   # root's alone: the swap file, which holds whatever the machine swaps
mkdir -m 0700 "$PRIV"
export PRESSMARK_DB="$PRIV/bench.db"
PM=./pressmark
keys=$((DATA_MB * 1048576 / 4000))
as_redis() { setpriv --reuid redis --regid redis --init-groups --reset-env -- "$@"; }

# The data set as RESP SETs, made once: both sides load the same bytes'
# worth (pressmark's loader draws its own random values).
python3 - "$keys" > "$PRIV/load.resp" <<'PY'
import os, sys
out = sys.stdout.buffer
for i in range(int(sys.argv[1])):
    k = b"key:%012d" % i
    v = os.urandom(4000)
    out.write(b"*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$4000\r\n%s\r\n" % (len(k), k, v))
PY

# What a hand run made, undone in the order that cannot fail: the
# server and anything in its cgroup killed (by the cgroup, never by user
# or name), then the swap off, and only then the file removed, the cgroup
# and the socket's directory. Also on a failure or Ctrl-C (cleanup_add).
HAND_CG=$mem/pm-bench-hand.$$ HAND_SWAP=$PRIV/hand.swap HAND_SRV=$DIR/srv HAND_PID=
hand_teardown() {
    [ -z "$HAND_PID" ] || kill -KILL "$HAND_PID" 2>/dev/null || true
    [ -z "$HAND_PID" ] || wait "$HAND_PID" 2>/dev/null || true   # its status is SIGKILL's
    HAND_PID=
    local i p
    for i in $(seq 50); do
        [ -s "$HAND_CG/cgroup.procs" ] || break
        while read -r p; do kill -KILL "$p" 2>/dev/null || true; done < "$HAND_CG/cgroup.procs"
        sleep 0.1
    done
    if grep -q "^$HAND_SWAP " /proc/swaps; then swapoff "$HAND_SWAP" || echo "bench/servers.sh: swapoff $HAND_SWAP failed" >&2; fi
    grep -q "^$HAND_SWAP " /proc/swaps || rm -f "$HAND_SWAP"
    [ ! -d "$HAND_CG" ] || rmdir "$HAND_CG" || echo "bench/servers.sh: $HAND_CG is left" >&2
    rm -rf "$HAND_SRV"
}
cleanup_add hand_teardown

# by_hand: one run as a user would write it; prints redis-benchmark's GET/s.
by_hand() {
    local rate
    mkdir -m 0700 "$HAND_SRV" && chown redis:redis "$HAND_SRV"
    (umask 077 && dd if=/dev/zero of="$HAND_SWAP" bs=1M count=512 status=none) && mkswap -q "$HAND_SWAP" &&
        swapon "$HAND_SWAP"
    mkdir "$HAND_CG"
    if [ -f "$HAND_CG/memory.limit_in_bytes" ]; then echo $((CAP_MB << 20)) > "$HAND_CG/memory.limit_in_bytes"
    else echo $((CAP_MB << 20)) > "$HAND_CG/memory.max"; fi
    sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$HAND_CG" \
        setpriv --reuid redis --regid redis --init-groups --reset-env -- redis-server --port 0 --unixsocket "$HAND_SRV/s" \
        --unixsocketperm 700 --save '' --appendonly no --loglevel warning --dir "$HAND_SRV" >"$PRIV/hand.log" 2>&1 &
    HAND_PID=$!
    for _ in $(seq 100); do [ -S "$HAND_SRV/s" ] && break; sleep 0.1; done
    as_redis redis-cli -s "$HAND_SRV/s" --pipe < "$PRIV/load.resp" > "$PRIV/pipe.out"
    grep -q "errors: 0, replies: $keys" "$PRIV/pipe.out" || { cat -v "$PRIV/pipe.out" >&2; return 1; }
    rate=$(as_redis redis-benchmark -s "$HAND_SRV/s" -t get -r "$keys" -n "$REQUESTS" -c 50 -P 1 --csv |
        awk -F'"' '$2 == "GET" { print $4 }')
    as_redis redis-cli -s "$HAND_SRV/s" info memory |
        awk -F: '$1 == "used_memory_rss" { printf "%d\n", $2 / 1048576 }' >> "$PRIV/hand.rss"
    hand_teardown
    echo "$rate"
}

pm_run() {
    "$PM" run redis --quiet --label bench --mem-cap "${CAP_MB}M" --swap 512M --dataset "${DATA_MB}M" \
        --requests "$REQUESTS" >/dev/null
    sqlite3 "$PRESSMARK_DB" "select cast(value / 1048576 as int) from metric where name = 'redis.used_memory_rss_bytes'
                             and run_id = (select max(id) from run)" >> "$PRIV/pm.rss"
    sqlite3 "$PRESSMARK_DB" "select value from metric where name = 'redis_benchmark.get.requests_per_s'
                             and run_id = (select max(id) from run)"
}

: > "$PRIV/pm" && : > "$PRIV/hand"
for r in $(seq "$ROUNDS"); do
    if [ $((r % 2)) = 1 ]; then pm_run >> "$PRIV/pm"; by_hand >> "$PRIV/hand"
    else by_hand >> "$PRIV/hand"; pm_run >> "$PRIV/pm"; fi
    printf 'round %d: pressmark %s, by hand %s GET/s; the server resident after it: %s and %s MiB\n' "$r" \
        "$(tail -1 "$PRIV/pm")" "$(tail -1 "$PRIV/hand")" "$(tail -1 "$PRIV/pm.rss")" "$(tail -1 "$PRIV/hand.rss")"
done
ratio=$(python3 - "$PRIV/pm" "$PRIV/hand" <<'PY'
import statistics, sys
pm = [float(x) for x in open(sys.argv[1])]
hand = [float(x) for x in open(sys.argv[2])]
print("pressmark median %.1f (%s), by hand median %.1f (%s)" % (statistics.median(pm), ", ".join("%.0f" % x for x in pm),
      statistics.median(hand), ", ".join("%.0f" % x for x in hand)), file=sys.stderr)
print("%.3f" % (statistics.median(pm) / statistics.median(hand)))
PY
)
goal "$G_REDIS" "$ratio"
goal "$G_REDIS_HI" "$ratio"
