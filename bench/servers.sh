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
[ "$(id -u)" = 0 ] || { not_measured "$G_REDIS" "needs root"; echo "bench/servers.sh: needs root (a cgroup, a swap file)" >&2; exit 2; }
mem=/sys/fs/cgroup/memory
[ -f "$mem/memory.limit_in_bytes" ] || mem=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
bench_tmpdir DIR
chmod 0711 "$DIR"   # the redis user reaches its socket directory below, nothing else
export PRESSMARK_DB="$DIR/bench.db"
PM=./pressmark
keys=$((DATA_MB * 1048576 / 4000))

# The data set as RESP SETs, made once: both sides load the same bytes'
# worth (pressmark's loader draws its own random values).
python3 - "$keys" > "$DIR/load.resp" <<'PY'
import os, sys
out = sys.stdout.buffer
for i in range(int(sys.argv[1])):
    k = b"key:%012d" % i
    v = os.urandom(4000)
    out.write(b"*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$4000\r\n%s\r\n" % (len(k), k, v))
PY

# by_hand: one run as a user would write it; prints redis-benchmark's GET/s.
by_hand() {
    local cg srv=$DIR/srv swap=$DIR/hand.swap pid rate
    mkdir -m 0700 "$srv" && chown redis:redis "$srv"
    dd if=/dev/zero of="$swap" bs=1M count=512 status=none && chmod 600 "$swap" && mkswap -q "$swap" && swapon "$swap"
    if [ -f "$mem/memory.limit_in_bytes" ]; then
        cg=$mem/pm-bench-hand.$$ && mkdir "$cg" && echo $((CAP_MB << 20)) > "$cg/memory.limit_in_bytes"
    else
        cg=$mem/pm-bench-hand.$$ && mkdir "$cg" && echo $((CAP_MB << 20)) > "$cg/memory.max"
    fi
    sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$cg" \
        setpriv --reuid redis --regid redis --init-groups -- redis-server --port 0 --unixsocket "$srv/s" \
        --unixsocketperm 700 --save '' --appendonly no --loglevel warning --dir "$srv" >"$DIR/hand.log" 2>&1 &
    pid=$!
    for _ in $(seq 100); do [ -S "$srv/s" ] && break; sleep 0.1; done
    setpriv --reuid redis --regid redis --init-groups -- redis-cli -s "$srv/s" --pipe < "$DIR/load.resp" > "$DIR/pipe.out"
    grep -q "errors: 0, replies: $keys" "$DIR/pipe.out" || { cat "$DIR/pipe.out" >&2; return 1; }
    rate=$(setpriv --reuid redis --regid redis --init-groups -- redis-benchmark -s "$srv/s" -t get -r "$keys" \
        -n "$REQUESTS" -c 50 -P 1 --csv | awk -F'"' '$2 == "GET" { print $4 }')
    setpriv --reuid redis --regid redis --init-groups -- redis-cli -s "$srv/s" info memory |
        awk -F: '$1 == "used_memory_rss" { printf "%d\n", $2 / 1048576 }' | tr -d '\r' >> "$DIR/hand.rss"
    kill "$pid"
    wait "$pid" || true   # redis-server ends on SIGTERM with its own status
    swapoff "$swap" && rm -f "$swap"
    rmdir "$cg"
    rm -rf "$srv"
    echo "$rate"
}
cleanup_add "swapoff '$DIR/hand.swap' 2>/dev/null; rmdir $mem/pm-bench-hand.$$ 2>/dev/null; pkill -u redis -f '$DIR/srv' || true"

pm_run() {
    "$PM" run redis --quiet --label bench --mem-cap "${CAP_MB}M" --swap 512M --dataset "${DATA_MB}M" \
        --requests "$REQUESTS" >/dev/null
    sqlite3 "$PRESSMARK_DB" "select cast(value / 1048576 as int) from metric where name = 'redis.used_memory_rss_bytes'
                             and run_id = (select max(id) from run)" >> "$DIR/pm.rss"
    sqlite3 "$PRESSMARK_DB" "select value from metric where name = 'redis_benchmark.get.requests_per_s'
                             and run_id = (select max(id) from run)"
}

: > "$DIR/pm" && : > "$DIR/hand"
for r in $(seq "$ROUNDS"); do
    if [ $((r % 2)) = 1 ]; then pm_run >> "$DIR/pm"; by_hand >> "$DIR/hand"
    else by_hand >> "$DIR/hand"; pm_run >> "$DIR/pm"; fi
    printf 'round %d: pressmark %s, by hand %s GET/s; the server resident after it: %s and %s MiB\n' "$r" \
        "$(tail -1 "$DIR/pm")" "$(tail -1 "$DIR/hand")" "$(tail -1 "$DIR/pm.rss")" "$(tail -1 "$DIR/hand.rss")"
done
ratio=$(python3 - "$DIR/pm" "$DIR/hand" <<'PY'
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
