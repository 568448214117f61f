#!/bin/bash
# pressmark run redis: a private redis-server inside the cap, its data set
# loaded and read back at random by redis-benchmark from outside the cap;
# the server, the loader and redis-benchmark as the redis user, each with
# nothing of root's (descriptors, environment); the tool's figures as it
# printed them, the server's own INFO, the phases in the samples; nothing
# left after a run, a SIGKILL, a refused option, or what the redis user
# left in its directory.
. "$(dirname "$0")/lib.sh"
need_root

# Refusals before anything runs: they need no redis, no cgroup.
before_db=$(db_sum)
PATH=/nonexistent "$PM" run redis --label nopkg 2>"$TMP/err"
is "$?" 2 "without redis-server in PATH: exit 2"
is "$(cat "$TMP/err")" "pressmark run redis: redis-server is not installed (apt-get install redis-server redis-tools)" \
   "  one line naming it and the package"
# Every program is looked for, not only the first: a PATH with
# redis-server and setpriv alone lacks redis-benchmark.
mkdir -p "$TMP/some"
for p in redis-server setpriv; do ln -s /bin/true "$TMP/some/$p"; done
PATH="$TMP/some" "$PM" run redis --label nopkg 2>"$TMP/err"
is "$?" 2 "without redis-benchmark in PATH: exit 2"
is "$(cat "$TMP/err")" "pressmark run redis: redis-benchmark is not installed (apt-get install redis-server redis-tools)" \
   "  one line naming it"
is "$(db_sum)" "$before_db" "  nothing written"

memcg_hierarchy || skip_all "needs a memory cgroup hierarchy (cgroup v2 with memory, or v1's memory controller)"
for p in redis-server redis-benchmark; do
    command -v $p >/dev/null || skip_all "needs $p (apt-get install redis-server redis-tools)"
done
getent passwd redis >/dev/null || skip_all "needs the redis user (apt-get install redis-server)"
redis_uid=$(id -u redis)
before=$(machine_state)
dirs() { ls -d "${TMPDIR:-/tmp}"/pressmark-redis.* 2>/dev/null; }
servers() { pgrep -f 'redis-server.*pressmark-redis\.' 2>/dev/null; }
dirs_before=$(dirs)
# (the memory cgroup a process is in, as /proc/PID/cgroup names it: the
# kernel's word, not the run's record)
cg_of() { memcg_path "/proc/$1/cgroup" 2>/dev/null; }
uid_of() { awk '/^Uid:/ { print $2; exit }' "/proc/$1/status" 2>/dev/null; }
# the cgroup's memory limit as its file says it: "max" for none
limit_of() {
    if [ "$CG_VERSION" = 2 ]; then cat "$CG_ROOT$1/memory.max"
    else awk '{ print ($1 >= 2^60) ? "max" : $1 }' "$CG_ROOT$1/memory.limit_in_bytes"; fi
}
# pressmark's own loader, once it is pressmark (setpriv before it is root)
loader_pid() {
    local p
    for p in $(pgrep -f -- '__kv-load --proto'); do
        [ "$(cat "/proc/$p/comm" 2>/dev/null)" = pressmark ] && { echo "$p"; return 0; }
    done
    return 1
}

bad "--dataset larger than memory and swap" "^pressmark run redis: --dataset" \
    run redis --mem-cap 48M --dataset 1T --label huge
bad "--dataset a share with no cap" "^pressmark run redis: --dataset: '150%' is a share of the cap and there is none" \
    run redis --dataset 150% --label nocap
bad "--dataset beyond 1000%" "^pressmark run redis: --dataset: '1001%' is not a size .*up to 1000%" \
    run redis --mem-cap 48M --dataset 1001% --label toomuch
bad "--port 80" "^pressmark run redis: --port: '80' is a privileged port \(accepted: 0 for the run's own Unix socket, or a free port from 1024 to 65535\)$" \
    run redis --port 80 --label lowport

# redis-benchmark as a shim in the test's own directory: it keeps the
# tool's standard output and argv as the tool had them (the redis user
# runs it, so the directory is passable and its output directory the
# user's), then exits as the tool did.
chmod 0711 "$TMP"
mkdir -m 0755 "$TMP/bin" && mkdir -m 0700 "$TMP/shim" && chown redis: "$TMP/shim"
real=$(command -v redis-benchmark)
cat > "$TMP/bin/redis-benchmark" <<SHIM
#!/bin/sh
printf '%s\n' "\$@" > $TMP/shim/argv
env > $TMP/shim/env
$real "\$@" > $TMP/shim/stdout
rc=\$?
cat $TMP/shim/stdout
exit \$rc
SHIM
chmod 0755 "$TMP/bin/redis-benchmark"
# What root holds must not reach the server: a descriptor (9; 7 is the
# machine lane's lock, tests/lib.sh, and reopening it let the lock go) and
# a variable of pressmark's environment.
exec 9>"$TMP/leak"
echo precious > "$TMP/precious"; mkdir "$TMP/pdir"; touch "$TMP/pdir/keep"

# 64 MiB of values under a 48 MiB cap with swap: a quarter cannot be resident.
PATH="$TMP/bin:$PATH" PM_ROOT_ONLY=x "$PM" run redis --quiet --mem-cap 48M --swap 256M --dataset 64M \
    --interval 100ms --label rd 2>"$TMP/err" &
pid=$!
for i in $(seq 200); do lp=$(loader_pid) && break; sleep 0.05; done
ok "the loader runs" test -n "${lp:-}"
# Stopped while it is looked at: on a loaded machine its whole life can be
# shorter than the reading of its /proc.
kill -STOP "$lp"
cleanup_add "kill -CONT $lp 2>/dev/null"
loader_uid=$(uid_of "$lp"); loader_cg=$(cg_of "$lp"); loader_env=$(tr '\0' '\n' < "/proc/$lp/environ" | cut -d= -f1 | sort | tr '\n' ' ')
server=$(servers | head -1)
server_uid=$(uid_of "$server")
server_env=$(tr '\0' '\n' < "/proc/$server/environ" | sort | tr '\n' ' ')
server_fds=$(ls -l "/proc/$server/fd" 2>/dev/null)
# (session and tty_nr: the 4th and 5th fields after the command's ")")
sess_of() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{ print $4, $5 }'; }
server_sess=$(sess_of "$server"); server_in=$(readlink "/proc/$server/fd/0")
loader_sess=$(sess_of "$lp"); loader_in=$(readlink "/proc/$lp/fd/0")
kill -CONT "$lp"
srv=$(dirs | grep -vxF "$dirs_before" | head -1)/pressmark-srv
ok "the load generator starts" wait_for sh -c "pgrep -x redis-benchmark >/dev/null"
bench=$(pgrep -x redis-benchmark | tail -1)
bench_cg=$(cg_of "$bench"); bench_uid=$(uid_of "$bench"); bench_limit=$(limit_of "$bench_cg")
server_cg=$(cg_of "$server")
# The redis user leaves what it likes in its directory: files, a tree, links
# to root's things, and a child of its own that goes on writing there.
setpriv --reuid=redis --regid=redis --clear-groups sh -c "touch $srv/keepme; mkdir -p $srv/d/e; touch $srv/d/e/f;
    ln -s $TMP/precious $srv/link; ln -s $TMP/pdir $srv/dlink"
setpriv --reuid=redis --regid=redis --clear-groups setsid sh -c "while :; do touch $srv/again 2>/dev/null; sleep 0.05; done" \
    </dev/null >/dev/null 2>&1 &
writer=$!
echo "$writer" > "$CG_ROOT$server_cg/cgroup.procs"
wait $pid
is "$?" 0 "pressmark run redis under a 48M cap with swap: exit 0"
exec 9>&-
is "$(q "select status || ' ' || coalesce(reason, '') from run where label = 'rd'")" "ok " "its run is stored ok"
run=$(q "select id from run where label = 'rd'")
like "$server_cg" "^/pressmark/run-$run(/workload)?$" "the server ran in the run's capped cgroup ($server_cg)"
is "$server_uid" "$redis_uid" "the server ran as the redis user (its /proc status)"
# (PWD: the sh that puts it in the cgroup sets it, pressmark's directory)
is "$server_env" "HOME=$srv LANG=C PATH=/usr/sbin:/usr/bin:/sbin:/bin PWD=$PWD " \
   "  with an environment of its own, nothing of root's (PM_ROOT_ONLY)"
ok "  and none of root's descriptors (the test's 9)" sh -c "! printf '%s\n' \"\$1\" | grep -q -- '$TMP/leak'" sh "$server_fds"
# A server run as another user in root's session could type into root's
# terminal (TIOCSTI): it leads a session of its own, with no terminal.
is "$server_sess $server_in" "$server 0 /dev/null" "  in a session of its own, no terminal, /dev/null for stdin"
is "$loader_sess $loader_in" "$lp 0 /dev/null" "  and so is the loader"
is "$loader_uid" "$redis_uid" "the loader (pressmark __kv-load) ran as the redis user"
is "$loader_cg" "/pressmark/run-$run-client" "  outside the cap, in the run's client cgroup"
is "$loader_env" "HOME LANG PATH PRESSMARK_KV_AUTH PWD " "  its password in its environment, nothing of root's"
is "$bench_cg" "/pressmark/run-$run-client" "redis-benchmark ran outside the cap, in the run's client cgroup"
is "$bench_limit" max "  which has no memory limit"
is "$bench_uid" "$redis_uid" "  as the redis user"
is "$(q "select value from run_meta where run_id = $run and key = 'cgroup.client'")" "$CG_ROOT/pressmark/run-$run-client" \
   "  which the run's record names"
ok "the redis user's child in the server's cgroup is gone" sh -c "! kill -0 $writer 2>/dev/null"
is "$(cat "$TMP/precious"; ls "$TMP/pdir")" "precious
keep" "what the redis user's links named is untouched"

keys=$(( 64 * 1048576 / 4000 ))
is "$(imetric rd redis.load_sets)" "$keys" "the loader counted a +OK for every key of the data set ($keys x 4000 bytes)"
is "$(imetric rd redis.set_calls)" "$keys" "  the server executed as many SETs (INFO commandstats)"
is "$(imetric rd redis.load_errors)" 0 "  none refused"
is "$(imetric rd redis.keys)" "$keys" "the server holds them all (INFO keyspace)"
is "$(imetric rd redis.evicted_keys)" 0 "  none evicted (no --maxmemory)"
ge "$(imetric rd redis.used_memory_bytes)" $(( keys * 4000 )) "used_memory covers the data set ($(imetric rd redis.used_memory_bytes))"
ok "used_memory_rss is below used_memory: part of it is swapped out" \
   test "$(imetric rd redis.used_memory_rss_bytes)" -lt "$(imetric rd redis.used_memory_bytes)"
is "$(imetric rd redis.keyspace_hits)" $(( 2 * keys )) "every GET of the measured phase (twice the keys) found its key"
is "$(imetric rd redis.keyspace_misses)" 0 "  no miss"
ge "$(imetric rd swap.out_kb)" 1 "the run swapped out"

# The headline is redis-benchmark's own GET rps, as the tool wrote it.
is "$(tr '\n' ' ' < "$TMP/shim/argv")" "-s $srv/pm-redis.sock -t get -r $keys -n $(( 2 * keys )) -c 50 -P 1 --csv " \
   "redis-benchmark's argv: GETs at random over the keys, twice as many"
is "$(grep -c PRESSMARK_KV_AUTH "$TMP/shim/env")" 0 "  no password in its environment"
rps=$(awk -F'","' '/^"GET"/ { print $2 }' "$TMP/shim/stdout")
like "$rps" '^[0-9]+\.[0-9]+$' "redis-benchmark's CSV has the GET row ($rps req/s)"
is "$(q "select unit || ' ' || direction from metric where run_id = $run and name = 'redis_benchmark.get.requests_per_s'")" \
   "req/s higher" "the headline is stored as the parser declares it"
ok "  exactly the tool's figure" awk -v a="$(metric rd redis_benchmark.get.requests_per_s)" -v b="$rps" 'BEGIN { exit !(a == b + 0) }'
p99=$(awk -F'","' '/^"GET"/ { print $7 }' "$TMP/shim/stdout")
ok "its p99 latency too ($p99 ms)" awk -v a="$(metric rd redis_benchmark.get.latency_p99_ms)" -v b="$p99" 'BEGIN { exit !(a == b + 0) }'
shown=$("$PM" show rd 2>&1 | awk '$1 == "rd" { gsub(",", "", $2); print $2; exit }')
like "$("$PM" show rd 2>&1)" "^label +GET/s " "show leads with it (GET/s)"
ok "  and shows its value ($shown)" awk -v a="$shown" -v b="$rps" 'BEGIN { exit !(a + 0 > 0 && (a - b) ^ 2 < 1) }'
phases=$("$PM" export rd --series workload.phase 2>/dev/null | awk -F, 'NR > 1 { print $NF }' | uniq | tr '\n' ' ')
# (the server starts within a tick: the first sample may be the load's)
like "$phases" "^(0 )?1 2 0 $" "the samples mark the phases in order: (0,) 1 load, 2 measured, 0 ($phases)"

is "$(servers)" "" "no server is left"
is "$(dirs)" "$dirs_before" "nor its directory, whatever the redis user left there"
is "$(machine_state)" "$before" "the machine is as it was (no cgroup, swap file or journal left)"

# pressmark's own connection (INFO) goes only to the server: the redis user
# swaps its socket for a link to a socket only root may reach, which is
# never connected to.
python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(4)
print("up", flush=True)
while True:
    c, _ = s.accept(); print("connection", c.recv(100), flush=True)' "$TMP/root.sock" > "$TMP/root.log" &
rootsrv=$!
cleanup_add "stop_bg $rootsrv"
wait_for grep -q up "$TMP/root.log"
chmod 0700 "$TMP/root.sock"
PATH="$TMP/bin:$PATH" "$PM" run redis --quiet --mem-cap 48M --dataset 8M --requests 200000 --label swapped 2>"$TMP/err" &
pid=$!
ok "the measured phase of the run whose socket is swapped starts" wait_for sh -c "pgrep -x redis-benchmark >/dev/null"
bench=$(pgrep -x redis-benchmark | tail -1)
# (its 50 connections made: the swap is for pressmark's own connection after them)
ok "  redis-benchmark has its 50 connections" \
   wait_for sh -c "[ \$(ls -l /proc/$bench/fd 2>/dev/null | grep -c 'socket:') -ge 50 ]"
srv=$(dirs | grep -vxF "$dirs_before" | head -1)/pressmark-srv
setpriv --reuid=redis --regid=redis --clear-groups sh -c "mv $srv/pm-redis.sock $srv/real.sock; ln -s $TMP/root.sock $srv/pm-redis.sock"
wait $pid
is "$?" 1 "  it ends with exit 1: a failed run, stored"
is "$(q "select status || ' ' || coalesce(reason, '') from run where label = 'swapped'")" \
   "failed the server's own figures: connecting to $srv/pm-redis.sock: a symbolic link, not the server's socket" \
   "  failed: INFO's socket is a link, never followed"
is "$(grep -c connection "$TMP/root.log")" 0 "  the root-only socket got no connection"
is "$(dirs)" "$dirs_before" "  its directory is gone too"
stop_bg $rootsrv

# The default data set (150% of the cap) over TCP: the server listens on
# 127.0.0.1 alone while it runs, and the figures are exact.
port=$(free_port)
"$PM" run redis --quiet --mem-cap 48M --swap 256M --port "$port" --requests 200000 --label tcp 2>"$TMP/err" &
pid=$!
ok "the TCP run's measured phase starts" wait_for sh -c "pgrep -x redis-benchmark >/dev/null"
listening=$(ss -Hltn "sport = :$port" | awk '{ print $4 }' | tr '\n' ' ')
wait $pid
is "$?" 0 "pressmark run redis --port $port, no --dataset: exit 0 ($(tail -1 "$TMP/err"))"
is "$listening" "127.0.0.1:$port " "  the server listened on 127.0.0.1:$port alone"
keys=$(( 48 * 1048576 * 3 / 2 / 4000 ))
is "$(imetric tcp redis.dataset_bytes)" $(( keys * 4000 )) "  the data set is 150% of the cap ($keys keys)"
is "$(imetric tcp redis.keys)" "$keys" "  the server holds every key"
is "$(imetric tcp redis.keyspace_hits)" 200000 "  every GET found its key"
is "$(imetric tcp redis.keyspace_misses)" 0 "  no miss"
is "$(machine_state)" "$before" "  the machine is as it was"

# SIGKILL of pressmark mid-run: the next invocation removes it all. The
# server dies with pressmark (setpriv's parent-death signal); the journal
# knows it by the run's cgroup, never by a pid that could be reused.
"$PM" run redis --quiet --mem-cap 48M --swap 256M --dataset 64M --requests 10000000 --label killed 2>/dev/null &
pid=$!
ok "the server of the run to kill is up" wait_for sh -c 'pgrep -x redis-benchmark >/dev/null'
server=$(servers | head -1)
srv=$(dirs | grep -vxF "$dirs_before" | head -1)/pressmark-srv
sock=$srv/pm-redis.sock
ok "  with its socket in its own directory ($sock)" test -S "$sock"
ok "  alive ($server)" kill -0 "$server"
journal=$(cat "${PRESSMARK_STATE_DIR:-/run/pressmark}/journal")
killed=$(memcg_path "/proc/$server/cgroup" | sed -n 's|^/pressmark/run-\([0-9]*\)\(/workload\)\{0,1\}$|\1|p')
like "$journal" "$(printf 'cgroup\t%s' "$CG_ROOT/pressmark/run-$killed")" "  the journal names the run's cgroup, the server's"
unlike "$journal" "$(printf '^process\t')" "  and no process by its pid"
kill -KILL $pid; wait $pid 2>/dev/null
ok "the server died with pressmark" wait_for sh -c "! kill -0 $server 2>/dev/null"
"$PM" list >/dev/null 2>"$TMP/recover"
is "$?" 0 "the next invocation (pressmark list) succeeds"
like "$(cat "$TMP/recover")" "removed cgroup $CG_ROOT/pressmark/run-$killed(;|$)" "  the run's cgroup, and what was in it"
like "$(cat "$TMP/recover")" "removed scratch directory $srv" "  its directory"
like "$(cat "$TMP/recover")" "removed cgroup $CG_ROOT/pressmark/run-[0-9]+-client" "  the client's cgroup"
ok "no server process is left" wait_for sh -c '[ -z "$(pgrep -f "redis-server.*pressmark-redis\.")" ]'
ok "nor a load generator" wait_for sh -c '! pgrep -x redis-benchmark >/dev/null'
ok "nor its socket" test ! -e "$sock"
is "$(dirs)" "$dirs_before" "nor its directory"
is "$(find "$CG_ROOT/pressmark" -maxdepth 1 -name 'run-*' 2>/dev/null)" "" "nor a cgroup"
is "$(machine_state)" "$before" "the machine is as it was"

# A port in use is bad input.
busy_port
holder=$BUSY_PID port=$BUSY_PORT
bad "--port in use" "^pressmark run redis: --port: '$port': 127\.0\.0\.1:$port cannot be listened on \(Address already in use; accepted: a free port, 1024 to 65535\)$" \
    run redis --port "$port" --label inuse
stop_bg $holder
is "$(machine_state)" "$before" "at the end: the machine is as it was"
done_testing
