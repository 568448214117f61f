#!/bin/bash
# Does run redis (run memcached) measure what its client measures by
# hand? The same server (Debian's, as its own user) under the same memory
# cap with the same swap, the same data set loaded first, then the same
# client run from outside the cap: once by pressmark run, once by this
# script with a cgroup, a swap file and a loader of its own, round by
# round, each side's order alternating. The figure is the ratio of the
# medians of the client's own GET rate. Goal: within 10 % (0.9 to 1.1),
# the run-to-run noise of a swapping server here.
#
#   bench/servers.sh [redis] [memcached]     (both when none is named)
#
# By hand is as a user would write it. redis: no ACL (pressmark signs its
# loader in, redis-benchmark signs in as no one on both sides), the
# loader redis-cli --pipe (pressmark's own loader pipelines as it does),
# random 4000-byte values under the names redis-benchmark -r draws
# (key:000000000000 ...). memcached: its client is pressmark's own (Debian
# 12 packages no memcached client that reads back a data set another
# phase stored; docs/guide/workloads.md, "Why not memcaslap"), so by hand
# is that client (pressmark __kv-get) and its loader (__kv-load) started
# by hand against a memcached the script starts, caps and sizes itself,
# without signing in: the ratio is what pressmark's life around them
# (cgroups, phases, sampling, the server's checks) adds.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
. bench/lib.sh
ROUNDS=${ROUNDS:-5}
CAP_MB=${CAP_MB:-64}
DATA_MB=${DATA_MB:-96}
REQUESTS=${REQUESTS:-20000}
SERVERS=("$@")
[ ${#SERVERS[@]} -gt 0 ] || SERVERS=(redis memcached)
for s in "${SERVERS[@]}"; do
    case "$s" in
        redis | memcached) ;;
        *) echo "bench/servers.sh: unknown server '$s' (accepted: redis, memcached)" >&2; exit 2 ;;
    esac
done
declare -A G_LO=([redis]="run redis GET/s / redis-benchmark's by hand"
                 [memcached]="run memcached GET/s / its client's by hand")
declare -A G_HI=([redis]="${G_LO[redis]}, not above" [memcached]="${G_LO[memcached]}, not above")
for s in "${SERVERS[@]}"; do
    goal_plan "${G_LO[$s]}" '>=' 0.9
    goal_plan "${G_HI[$s]}" '<=' 1.1
done
unmeasured() {  # unmeasured WHY: every goal of this run, not measured
    local s
    for s in "${SERVERS[@]}"; do not_measured "${G_LO[$s]}" "$1"; not_measured "${G_HI[$s]}" "$1"; done
}
need() {
    command -v "$1" >/dev/null && return 0
    unmeasured "$1 is missing"
    echo "bench/servers.sh: needs $1 (apt-get install $2)" >&2
    exit 2
}
for s in "${SERVERS[@]}"; do
    case "$s" in
        redis) need redis-server redis-server; need redis-benchmark redis-tools; need redis-cli redis-tools ;;
        memcached) need memcached memcached ;;
    esac
done
[ "$(id -u)" = 0 ] || { unmeasured "needs root"; echo "bench/servers.sh: needs root (a cgroup, a swap file)" >&2; exit 2; }
# The cap by hand: cgroup v1's memory controller, else cgroup v2's with
# memory enabled for its children.
mem=/sys/fs/cgroup/memory
if [ ! -f "$mem/memory.limit_in_bytes" ]; then
    mem=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
    grep -qw memory "${mem:-/nonexistent}/cgroup.subtree_control" 2>/dev/null || {
        unmeasured "no memory cgroup controller"
        echo "bench/servers.sh: needs a memory cgroup controller (v1, or v2 with memory in cgroup.subtree_control)" >&2
        exit 2
    }
fi
bench_tmpdir DIR
chmod 0711 "$DIR"   # the server's user reaches its socket directory below, nothing else
PRIV=$DIR/private   # root's alone: the swap file, which holds whatever the machine swaps
mkdir -m 0700 "$PRIV"
export PRESSMARK_DB="$PRIV/bench.db"
PM=./pressmark
PM_ABS=$(readlink -f "$PM")
keys=$((DATA_MB * 1048576 / 4000))
as_user() { local u=$1; shift; setpriv --reuid "$u" --regid "$u" --init-groups --reset-env -- "$@"; }

# What a hand run made, undone in the order that cannot fail: the
# server and anything in its cgroup killed (by the cgroup, never by user
# or name), then the swap off, and only then the file removed, the cgroup
# and the socket's directory. Also on a failure or Ctrl-C (cleanup_add).
HAND_CG=$mem/pm-bench-hand.$$ HAND_SWAP=$PRIV/hand.swap HAND_SRV=$DIR/srv HAND_PID=
hand_teardown() {
    [ -z "$HAND_PID" ] || kill -KILL "$HAND_PID" 2>/dev/null || true
    [ -z "$HAND_PID" ] || wait "$HAND_PID" 2>/dev/null || true   # its status is SIGKILL's
    HAND_PID=
    local p
    for _ in $(seq 50); do
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

# hand_server USER ARGV...: the swap on, the cgroup capped, the server
# started in it as USER (HAND_PID, the shell that execs it, is its pid).
hand_server() {
    local user=$1; shift
    mkdir -m 0700 "$HAND_SRV" && chown "$user:$user" "$HAND_SRV"
    (umask 077 && dd if=/dev/zero of="$HAND_SWAP" bs=1M count=512 status=none) && mkswap -q "$HAND_SWAP" &&
        swapon "$HAND_SWAP"
    mkdir "$HAND_CG"
    if [ -f "$HAND_CG/memory.limit_in_bytes" ]; then echo $((CAP_MB << 20)) > "$HAND_CG/memory.limit_in_bytes"
    else echo $((CAP_MB << 20)) > "$HAND_CG/memory.max"; fi
    sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$HAND_CG" \
        setpriv --reuid "$user" --regid "$user" --init-groups --reset-env -- "$@" >"$PRIV/hand.log" 2>&1 &
    HAND_PID=$!
    for _ in $(seq 100); do [ -S "$HAND_SRV/s" ] && return 0; sleep 0.1; done
    echo "bench/servers.sh: the server by hand made no socket; it said:" >&2
    cat -v "$PRIV/hand.log" >&2
    return 1
}

# The redis data set as RESP SETs, made once: both sides load the same
# bytes' worth (pressmark's loader draws its own random values).
redis_data() {
    python3 - "$keys" > "$PRIV/load.resp" <<'PY'
import os, sys
out = sys.stdout.buffer
for i in range(int(sys.argv[1])):
    k = b"key:%012d" % i
    v = os.urandom(4000)
    out.write(b"*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$4000\r\n%s\r\n" % (len(k), k, v))
PY
}

# redis_hand: one run as a user would write it; prints redis-benchmark's GET/s.
redis_hand() {
    local rate
    hand_server redis redis-server --port 0 --unixsocket "$HAND_SRV/s" --unixsocketperm 700 --save '' \
        --appendonly no --loglevel warning --dir "$HAND_SRV"
    as_user redis redis-cli -s "$HAND_SRV/s" --pipe < "$PRIV/load.resp" > "$PRIV/pipe.out"
    grep -q "errors: 0, replies: $keys" "$PRIV/pipe.out" || { cat -v "$PRIV/pipe.out" >&2; return 1; }
    rate=$(as_user redis redis-benchmark -s "$HAND_SRV/s" -t get -r "$keys" -n "$REQUESTS" -c 50 -P 1 --csv |
        awk -F'"' '$2 == "GET" { print $4 }')
    as_user redis redis-cli -s "$HAND_SRV/s" info memory |
        awk -F: '$1 == "used_memory_rss" { printf "%d\n", $2 / 1048576 }' >> "$PRIV/hand.rss"
    hand_teardown
    echo "$rate"
}

# memcached_hand: memcached sized as run memcached sizes it (room for the
# whole data set: memcached.c's room_mb), loaded and read by pressmark's
# loader and client started by hand; prints the client's GET/s from its
# report on fd 4, as run memcached reads it.
memcached_hand() {
    local mb=$(( (keys * (4000 + 96) * 5 / 4 + 1048575) / 1048576 + 64 )) rate
    hand_server memcache memcached -U 0 -B ascii -s "$HAND_SRV/s" -a 0700 -m "$mb"
    as_user memcache "$PM_ABS" __kv-load --proto=memcached --socket="$HAND_SRV/s" --keys="$keys" \
        --value-size=4000 4> "$PRIV/load.rep"
    grep -q "^sets $keys errors 0 " "$PRIV/load.rep" || { cat -v "$PRIV/load.rep" >&2; return 1; }
    as_user memcache "$PM_ABS" __kv-get --server-pid="$HAND_PID" --socket="$HAND_SRV/s" --keys="$keys" \
        --value-size=4000 --clients=4 --requests="$REQUESTS" --duration-ns=0 --zipf=0 4> "$PRIV/get.rep"
    rate=$(awk '$1 == "gets" && $11 == "ops_per_s" { print $12 }' "$PRIV/get.rep")
    [ -n "$rate" ] || { echo "bench/servers.sh: the client by hand reported:" >&2; cat -v "$PRIV/get.rep" >&2; return 1; }
    python3 - "$HAND_SRV/s" >> "$PRIV/hand.rss" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b"stats\r\n")
buf = b""
while not buf.endswith(b"END\r\n"):
    buf += s.recv(65536)
print([int(int(l.split()[2]) / 1048576) for l in buf.split(b"\r\n") if l.startswith(b"STAT bytes ")][0])
PY
    hand_teardown
    echo "$rate"
}

# pm_run SERVER: one pressmark run; prints its client's GET/s.
pm_run() {
    local figure rss
    case "$1" in
        redis) figure=redis_benchmark.get.requests_per_s rss=redis.used_memory_rss_bytes ;;
        memcached) figure=memcached.ops_per_s rss=memcached.bytes ;;
    esac
    "$PM" run "$1" --quiet --label bench --mem-cap "${CAP_MB}M" --swap 512M --dataset "${DATA_MB}M" \
        --requests "$REQUESTS" >/dev/null
    sqlite3 "$PRESSMARK_DB" "select coalesce(max(cast(value / 1048576 as int)), '?') from metric
                             where name = '$rss' and run_id = (select max(id) from run)" >> "$PRIV/pm.rss"
    sqlite3 "$PRESSMARK_DB" "select value from metric where name = '$figure' and run_id = (select max(id) from run)"
}

for s in "${SERVERS[@]}"; do
    [ "$s" != redis ] || redis_data
    : > "$PRIV/pm" && : > "$PRIV/hand" && : > "$PRIV/pm.rss" && : > "$PRIV/hand.rss"
    for r in $(seq "$ROUNDS"); do
        if [ $((r % 2)) = 1 ]; then pm_run "$s" >> "$PRIV/pm"; "${s}_hand" >> "$PRIV/hand"
        else "${s}_hand" >> "$PRIV/hand"; pm_run "$s" >> "$PRIV/pm"; fi
        printf "%s round %d: pressmark %s, by hand %s GET/s; memory at the end (redis RSS, memcached its items' bytes): %s and %s MiB\n" "$s" "$r" \
            "$(tail -1 "$PRIV/pm")" "$(tail -1 "$PRIV/hand")" "$(tail -1 "$PRIV/pm.rss")" "$(tail -1 "$PRIV/hand.rss")"
    done
    ratio=$(python3 - "$PRIV/pm" "$PRIV/hand" "$s" <<'PY'
import statistics, sys
pm = [float(x) for x in open(sys.argv[1])]
hand = [float(x) for x in open(sys.argv[2])]
print("%s: pressmark median %.1f (%s), by hand median %.1f (%s)" % (sys.argv[3],
      statistics.median(pm), ", ".join("%.0f" % x for x in pm),
      statistics.median(hand), ", ".join("%.0f" % x for x in hand)), file=sys.stderr)
print("%.3f" % (statistics.median(pm) / statistics.median(hand)))
PY
)
    goal "${G_LO[$s]}" "$ratio"
    goal "${G_HI[$s]}" "$ratio"
done
