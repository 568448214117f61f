#!/bin/bash
# pressmark run redis: a private redis-server inside the cap, its data set
# loaded and read back at random by redis-benchmark from outside the cap;
# the tool's figures as it printed them, the server's own INFO, the phases
# in the samples; nothing left after a run, a SIGKILL, a refused option.
. "$(dirname "$0")/lib.sh"
need_root
memcg_hierarchy || skip_all "needs a memory cgroup hierarchy (cgroup v2 with memory, or v1's memory controller)"
for p in redis-server redis-benchmark; do
    command -v $p >/dev/null || skip_all "needs $p (apt-get install redis-server redis-tools)"
done
before=$(machine_state)
dirs() { ls -d "${TMPDIR:-/tmp}"/pressmark-redis.* 2>/dev/null; }
servers() { pgrep -f 'redis-server.*pressmark-redis\.' 2>/dev/null; }
dirs_before=$(dirs)
# (the memory cgroup a process is in, as /proc/PID/cgroup names it: the
# kernel's word, not the run's record, which names the client's cgroup
# whether or not the client was put in it)
cg_of() { memcg_path "/proc/$1/cgroup" 2>/dev/null; }

# 64 MiB of values under a 48 MiB cap with swap: a quarter cannot be resident.
"$PM" run redis --quiet --mem-cap 48M --swap 256M --dataset 64M --interval 100ms --label rd 2>"$TMP/err" &
pid=$!
ok "the load generator starts" wait_for sh -c "pgrep -x redis-benchmark >/dev/null"
bench=$(pgrep -x redis-benchmark | head -1)
server=$(servers | head -1)
bench_cg=$(cg_of "$bench")
server_cg=$(cg_of "$server")
wait $pid
is "$?" 0 "pressmark run redis under a 48M cap with swap: exit 0"
is "$(q "select status || ' ' || coalesce(reason, '') from run where label = 'rd'")" "ok " "its run is stored ok"
run=$(q "select id from run where label = 'rd'")
like "$server_cg" "^/pressmark/run-$run(/workload)?$" "the server ran in the run's capped cgroup ($server_cg)"
is "$bench_cg" "/pressmark/run-$run-client" "redis-benchmark ran outside the cap, in the run's client cgroup"
is "$(q "select value from run_meta where run_id = $run and key = 'cgroup.client'")" "$CG_ROOT/pressmark/run-$run-client" \
   "  which the run's record names"
is "$(q "select value from run_meta where run_id = $run and key = 'redis.user'")" redis "the server ran as the redis user"

keys=$(( 64 * 1048576 / 4000 ))
is "$(imetric rd redis.load_sets)" "$keys" "the load phase set every key of the data set ($keys x 4000 bytes)"
is "$(imetric rd redis.load_errors)" 0 "  none refused"
is "$(imetric rd redis.keys)" "$keys" "the server holds them all (INFO keyspace)"
is "$(imetric rd redis.evicted_keys)" 0 "  none evicted (no --maxmemory)"
ge "$(imetric rd redis.used_memory_bytes)" $(( keys * 4000 )) "used_memory covers the data set ($(imetric rd redis.used_memory_bytes))"
ok "used_memory_rss is below used_memory: part of it is swapped out" \
   test "$(imetric rd redis.used_memory_rss_bytes)" -lt "$(imetric rd redis.used_memory_bytes)"
is "$(imetric rd redis.keyspace_hits)" $(( 2 * keys )) "every GET of the measured phase (twice the keys) found its key"
is "$(imetric rd redis.keyspace_misses)" 0 "  no miss"
ge "$(imetric rd swap.out_kb)" 1 "the run swapped out"

# The headline is redis-benchmark's own GET rps, as its CSV said it.
csv=$(q "select value from run_meta where run_id = $run and key = 'redis.client_output'")
rps=$(printf '%s\n' "$csv" | awk -F'","' '/^"GET"/ { print $2 }')
like "$rps" '^[0-9]+\.[0-9]+$' "redis-benchmark's CSV has the GET row ($rps req/s)"
is "$(q "select unit || ' ' || direction from metric where run_id = $run and name = 'redis_benchmark.get.requests_per_s'")" \
   "req/s higher" "the headline is stored as the parser declares it"
ok "  exactly" awk -v a="$(metric rd redis_benchmark.get.requests_per_s)" -v b="$rps" 'BEGIN { exit !(a == b + 0) }'
p99=$(printf '%s\n' "$csv" | awk -F'","' '/^"GET"/ { print $7 }')
ok "its p99 latency too ($p99 ms)" awk -v a="$(metric rd redis_benchmark.get.latency_p99_ms)" -v b="$p99" 'BEGIN { exit !(a == b + 0) }'
like "$("$PM" show rd 2>&1)" "^label +GET/s " "show leads with it (GET/s)"
phases=$("$PM" export rd --series workload.phase 2>/dev/null | awk -F, 'NR > 1 { print $NF }' | sort -u | tr '\n' ' ')
is "$phases" "0 1 2 " "the samples mark the phases: 1 load, 2 measured, 0 around them"

is "$(servers)" "" "no server is left"
is "$(dirs)" "$dirs_before" "nor its directory"
is "$(machine_state)" "$before" "the machine is as it was (no cgroup, swap file or journal left)"

# SIGKILL of pressmark mid-run: the next invocation stops and removes it all.
"$PM" run redis --quiet --mem-cap 48M --swap 256M --dataset 64M --requests 10000000 --label killed 2>/dev/null &
pid=$!
ok "the server of the run to kill is up" wait_for sh -c 'pgrep -x redis-benchmark >/dev/null'
sock=$(ls "$(dirs | grep -vxF "$dirs_before" | head -1)"/pressmark-srv/pm-redis.sock 2>/dev/null)
ok "  with its socket in its own directory ($sock)" test -S "$sock"
kill -KILL $pid; wait $pid 2>/dev/null
"$PM" list >/dev/null 2>"$TMP/recover"
like "$(cat "$TMP/recover")" "a previous pressmark was killed mid-run; (killed )?pressmark /[^ ]*/pressmark-redis\.[^ ]*/pressmark-srv \(pid [0-9]+\)" \
     "the next invocation undoes the journal: the server"
like "$(cat "$TMP/recover")" "removed scratch directory /[^ ]*/pressmark-redis\.[^ ]*/pressmark-srv" "  its directory"
like "$(cat "$TMP/recover")" "removed cgroup $CG_ROOT/pressmark/run-[0-9]+-client" "  the client's cgroup"
ok "no server process is left" wait_for sh -c '[ -z "$(pgrep -f "redis-server.*pressmark-redis\.")" ]'
ok "nor a load generator" wait_for sh -c '! pgrep -x redis-benchmark >/dev/null'
ok "nor its socket" test ! -e "$sock"
is "$(dirs)" "$dirs_before" "nor its directory"
is "$(find "$CG_ROOT/pressmark" -maxdepth 1 -name 'run-*' 2>/dev/null)" "" "nor a cgroup"
is "$(machine_state)" "$before" "the machine is as it was"

# A port in use is bad input; so is a missing package.
python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
print(s.getsockname()[1], flush=True); time.sleep(60)' > "$TMP/port" &
holder=$!
cleanup_add "kill $holder"
wait_for test -s "$TMP/port"
port=$(cat "$TMP/port")
bad "--port in use" "^pressmark run redis: --port: '$port': 127\.0\.0\.1:$port cannot be listened on \(Address already in use; accepted: a free port, 1 to 65535\)$" \
    run redis --port "$port" --label inuse
stop_bg $holder
before_db=$(db_sum)
PATH=/nonexistent "$PM" run redis --label nopkg 2>"$TMP/err"
is "$?" 2 "without redis-server in PATH: exit 2"
is "$(cat "$TMP/err")" "pressmark run redis: redis-server is not installed (apt-get install redis-server redis-tools)" \
   "  one line naming it and the package"
is "$(db_sum)" "$before_db" "  nothing written"
is "$(machine_state)" "$before" "at the end: the machine is as it was"
done_testing
