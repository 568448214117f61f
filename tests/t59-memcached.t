#!/bin/bash
# pressmark run memcached: a private memcached inside the cap, its data set
# loaded and read back at random by pressmark's own client from outside
# the cap; the server, the loader and the client as the memcache user, each
# with nothing of root's (descriptors, environment), the client and
# pressmark's own connections talking only to the server; every get a hit
# of the loader's bytes, counted exactly; the client's figures as it
# reported them, the server's own stats, the phases in the samples;
# nothing left after a run, a SIGKILL, a refused option, or what the
# memcache user left in its directory; and the memcache user's processes
# outside the run's cgroups (Debian's own memcached runs as it) neither
# killed nor taken for the run's, nor able to hold pressmark up.
. "$(dirname "$0")/lib.sh"
need_root

# Refusals before anything runs: they need no memcached, no cgroup.
before_db=$(db_sum)
PATH=/nonexistent "$PM" run memcached --label nopkg 2>"$TMP/err"
is "$?" 2 "without memcached in PATH: exit 2"
is "$(cat "$TMP/err")" "pressmark run memcached: memcached is not installed (apt-get install memcached)" \
   "  one line naming it and the package"
is "$(db_sum)" "$before_db" "  nothing written"

memcg_hierarchy || skip_all "needs a memory cgroup hierarchy (cgroup v2 with memory, or v1's memory controller)"
command -v memcached >/dev/null || skip_all "needs memcached (apt-get install memcached)"
getent passwd memcache >/dev/null || skip_all "needs the memcache user (apt-get install memcached)"
mc_uid=$(id -u memcache)
pm_exe=$(readlink -f "$PM")
dirs() { ls -d "${TMPDIR:-/tmp}"/pressmark-memcached.* 2>/dev/null; }
# (by process name: the client's command line names the socket too)
servers() {
    local p
    for p in $(pgrep -x memcached); do
        tr '\0' ' ' < "/proc/$p/cmdline" 2>/dev/null | grep -q 'pressmark-memcached\.' && echo "$p"
    done
}
dirs_before=$(dirs)
# (the memory cgroup a process is in, as /proc/PID/cgroup names it: the
# kernel's word, not the run's record)
cg_of() { memcg_path "/proc/$1/cgroup" 2>/dev/null; }
uid_of() { awk '/^Uid:/ { print $2; exit }' "/proc/$1/status" 2>/dev/null; }
env_names() { tr '\0' '\n' < "/proc/$1/environ" | cut -d= -f1 | sort | tr '\n' ' '; }
# its RLIMIT_FSIZE, soft and hard, as /proc says it
fsize_of() { awk '/^Max file size/ { print $4, $5 }' "/proc/$1/limits" 2>/dev/null; }
# the cgroup's memory limit as its file says it: "max" for none
limit_of() {
    if [ "$CG_VERSION" = 2 ]; then cat "$CG_ROOT$1/memory.max"
    else awk '{ print ($1 >= 2^60) ? "max" : $1 }' "$CG_ROOT$1/memory.limit_in_bytes"; fi
}
# pressmark's own helper (__kv-load, __kv-get), once it is pressmark
# (setpriv and prlimit before it), among the processes of the runs' client
# cgroups: find_helper PATTERN [RUN-PID] sets found to its pid, with
# RUN-PID only the helper of that pressmark run (its child, or its
# grandchild under timeout), never a helper of another run. Without a
# fork (builtins alone): catch runs it at real-time priority.
find_helper() {
    local f p comm args
    found=
    for f in "$CG_ROOT"/pressmark/run-*-client/cgroup.procs; do
        [ -e "$f" ] || continue
        while read -r p; do
            read -r comm 2>/dev/null < "/proc/$p/comm" && [ "$comm" = pressmark ] || continue
            mapfile -d '' args 2>/dev/null < "/proc/$p/cmdline" || continue
            [[ " ${args[*]} " == *" $1"* ]] || continue
            if [ -n "${2:-}" ]; then
                ppid_of "$p"
                [ "$ppid" = "$2" ] || { ppid_of "$ppid"; [ "$ppid" = "$2" ]; } || continue
            fi
            found=$p
            return 0
        done 2>/dev/null < "$f"
    done
    return 1
}
# ppid_of PID: sets ppid to its parent's pid ('' when it is gone), no fork
ppid_of() { local k v; ppid=; while read -r k v; do [ "$k" = PPid: ] && { ppid=$v; return 0; }; done 2>/dev/null < "/proc/$1/status"; }
helper_pid() { find_helper "$@" && echo "$found"; }
client_pid() { helper_pid '__kv-get --server-pid='; }
# catch loader|client RUN-PID: wait for that run's helper (120 s at most)
# and stop it at once (SIGSTOP), its pid in caught; the test looks at it,
# then lets it go on (SIGCONT), or a cleanup does. Why real-time: on this
# two-core machine, loaded by other builds, the run's own client and
# server (8 busy threads, each side a session of its own) took both CPUs
# and every other process, this shell and pressmark itself among them,
# got none for the client's whole life: watched, a loop that only slept
# and read the clock stood still 55 s while a 6 s --client-timeout run
# took 59 s, and a catch polling at normal priority, however long it
# waited, first looked again once the client was gone. At SCHED_FIFO the
# look runs the moment its 10 ms tick ends, whatever the run's threads
# do; the look forks nothing, and sleeps in read -t. SCHED_RESET_ON_FORK
# (chrt -R): whatever is forked meanwhile all the same (a $(...), a trap's
# commands on a signal, the restoring chrt itself) runs at normal
# priority. A failed catch says what there was to find.
# rt_poll COMMAND...: run COMMAND (builtins alone) every 10 ms at
# SCHED_FIFO until it succeeds (0), 120 s at most, or gives up (2: what
# it waits for can no longer come); rt_looks and rt_gap (the longest wait
# between two looks, in us) say how it went. Where chrt is refused (no
# CAP_SYS_NICE, no real-time budget), it polls at normal priority, and
# rt_refused says why (a diag once, and in every failed catch's).
rt_refused= rt_refused_said=
rt_poll() {
    local t0 now st=1 tick me=$BASHPID err pol
    rt_looks=0 rt_gap=0
    rm -f "$TMP/.tick"
    mkfifo "$TMP/.tick" || return 1
    exec {tick}<>"$TMP/.tick" || return 1
    if ! err=$(chrt -R -f -p 1 "$me" 2>&1); then
        rt_refused="chrt -R -f -p 1 $me: ${err:-refused}"
        [ -n "$rt_refused_said" ] || { rt_refused_said=1; diag "# polling at normal priority: $rt_refused"; }
    fi
    t0=${EPOCHREALTIME//[!0-9]/} now=$t0 rt_gap=0
    for ((rt_looks = 1; ; rt_looks++)); do
        "$@"; st=$?
        [ "$st" = 1 ] || break
        (( ${EPOCHREALTIME//[!0-9]/} - now > rt_gap )) && rt_gap=$(( ${EPOCHREALTIME//[!0-9]/} - now ))
        now=${EPOCHREALTIME//[!0-9]/}
        (( now - t0 < 120000000 )) || break
        read -r -t 0.01 -u "$tick"
    done
    exec {tick}>&-
    chrt -o -p 0 "$me" >/dev/null 2>&1
    pol=$(chrt -p "$me" 2>&1)
    [[ $pol == *"policy: SCHED_OTHER"* ]] ||
        diag "# rt_poll: this shell ($me) is not back at normal priority: ${pol//$'\n'/; }"
    return $st
}
# alive PID: it exists and is no zombie (builtins alone)
alive() {
    local k v
    while read -r k v; do [ "$k" = State: ] && { [ "${v:0:1}" != Z ]; return; }; done 2>/dev/null < "/proc/$1/status"
    return 1
}
# stop_helper PATTERN RUN-PID: 0 once stopped (its pid in caught, its
# SIGCONT a cleanup at once), 2 when the run's pressmark has ended
stop_helper() {
    if find_helper "$1" "$2" && kill -STOP "$found" 2>/dev/null; then
        cleanup_add "kill -CONT $found 2>/dev/null"
        caught=$found
        return 0
    fi
    alive "$2" || { rt_ended="pressmark run $2 had ended"; return 2; }
    return 1
}
catch() {
    local what=$1 run=$2 pattern
    case $what in loader) pattern='__kv-load --proto=memcached' ;; *) pattern='__kv-get --server-pid=' ;; esac
    caught= rt_ended=
    rt_poll stop_helper "$pattern" "$run" && return 0
    catch_diag "$what" "$run" "$pattern" "$rt_looks" "$rt_gap"
    return 1
}
# What a failed catch had to look at: the client cgroups and what is in
# them, every process of a __kv- command line (its comm, state, parent and
# memory cgroup), the run's pressmark, and how long the catch was kept
# from looking.
catch_diag() {
    local f p line
    diag "# catch: no $1 of pressmark run $2 ($3) in $4 looks; the longest wait between two: $(( $5 / 1000 )) ms${rt_ended:+; gave up: $rt_ended}"
    [ -z "$rt_refused" ] || diag "# catch: at normal priority: $rt_refused"
    diag "# pressmark run $2: $(tr '\0' ' ' 2>/dev/null < "/proc/$2/cmdline" | cut -c1-120) $(grep -s '^State:' "/proc/$2/status" | tr -s '\t ' ' ')"
    for f in "$CG_ROOT"/pressmark/run-*; do
        [ -d "$f" ] && diag "# cgroup ${f#$CG_ROOT}: processes $(tr '\n' ' ' 2>/dev/null < "$f/cgroup.procs")"
    done
    [ -d "$CG_ROOT/pressmark" ] || diag "# no $CG_ROOT/pressmark"
    for p in /proc/[0-9]*; do
        line=$(tr '\0' ' ' 2>/dev/null < "$p/cmdline") || continue
        [[ $line == *__kv-* ]] || continue
        diag "# pid ${p#/proc/}: comm $(cat "$p/comm" 2>/dev/null), $(grep -s '^State:' "$p/status" | tr -s '\t ' ' '), ppid $(ppid_of "${p#/proc/}"; echo "$ppid"), memory cgroup $(cg_of "${p#/proc/}"): ${line:0:120}"
    done
}
no_servers() { [ -z "$(servers)" ]; }
no_client() { ! client_pid >/dev/null; }
wait_long() { local i; for i in $(seq 600); do "$@" >/dev/null && return 0; sleep 0.05; done; return 1; }
# as the memcache user; MC in the background, so that $! is the process
# itself (a function would run in a subshell of its own)
MC=(setpriv --reuid=memcache --regid=memcache --clear-groups)
as_mc() { "${MC[@]}" "$@"; }
# a run's status and reason, as stored
status_of() { q "select status || ' ' || coalesce(reason, '') from run where label = '$1'"; }

# A data set larger than memory and swap together, in the words and
# figures pressmark reads from /proc/meminfo (no --swap: none planned).
room=$(awk '/^(MemTotal|SwapTotal):/ { kb += $2 } END { print kb * 1024 }' /proc/meminfo)
room=$(python3 -c 'import sys
v, i, names = float(sys.argv[1]), 0, ["B", "KiB", "MiB", "GiB", "TiB"]
while v >= 1024 and i < 4: v, i = v / 1024, i + 1
print("%.1f %s" % (v, names[i]))' "$room")
bad "--dataset larger than memory and swap" \
    "^pressmark run memcached: --dataset: 1\.0 TiB is more than this machine can hold even with swap \($(re "$room"): MemTotal \+ swap\)$" \
    run memcached --mem-cap 48M --dataset 1T --label huge
bad "--key-dist" "^pressmark run memcached: --key-dist: 'zipf:1\.5' is not a key distribution \(accepted: uniform, or zipf:THETA with 0 < THETA < 1, e\.g\. zipf:0\.99\)$" \
    run memcached --key-dist zipf:1.5 --label baddist
bad "--maxmemory below memcached's unit" "^pressmark run memcached: --maxmemory: 524288 bytes is less than memcached's unit, 1M" \
    run memcached --maxmemory 512K --label tiny

# A port below 1024 is a system service's: root could bind it, so no
# check that it is free would stop it.
bad "--port 80" "^pressmark run memcached: --port: '80' is a privileged port \(accepted: 0 for the run's own Unix socket, or a free port from 1024 to 65535\)$" \
    run memcached --port 80 --label lowport
bad "--port 1023" "^pressmark run memcached: --port: '1023' is a privileged port \(accepted: 0 for the run's own Unix socket, or a free port from 1024 to 65535\)$" \
    run memcached --port 1023 --label lowport

# The memcache user has processes of its own outside the run's cgroups:
# Debian's memcached.service runs as it. One here, on a port of its own,
# must live through every run, SIGKILL and recovery below.
decoy_port=$(free_port)
"${MC[@]}" memcached -U 0 -l 127.0.0.1 -p "$decoy_port" -m 8 </dev/null >/dev/null 2>&1 &
decoy=$!
cleanup_add "stop_bg $decoy"
ok "the memcache user's own memcached listens on 127.0.0.1:$decoy_port" \
   wait_for sh -c "ss -Hltn 'sport = :$decoy_port' | grep -q LISTEN"
decoy_cg=$(cg_of "$decoy")
before=$(machine_state)

# What root holds must not reach the server or the client: a descriptor
# (9) and a variable of pressmark's environment.
exec 9>"$TMP/leak"
chmod 0711 "$TMP"
echo precious > "$TMP/precious"; mkdir "$TMP/pdir"; touch "$TMP/pdir/keep"

# 64 MiB of values under a 48 MiB cap with swap: a quarter cannot be
# resident. (Not less: under 24M the memcg OOM killer took memcached,
# its own resident footprint beside the values' part of the cap.)
PM_ROOT_ONLY=x "$PM" run memcached --quiet --mem-cap 48M --swap 256M --dataset 64M --interval 100ms --label mc \
    2>"$TMP/err" &
pid=$!
# (stopped while it is looked at, as t58's loader: catch)
ok "the loader runs" catch loader "$pid"
lp=$caught
loader_uid=$(uid_of "$lp"); loader_cg=$(cg_of "$lp"); loader_env=$(env_names "$lp"); loader_fsize=$(fsize_of "$lp")
server=$(servers | head -1)
ok "  beside its server ($server)" test -n "$server"
server_uid=$(uid_of "$server"); server_cg=$(cg_of "$server"); server_fsize=$(fsize_of "$server")
server_env=$(tr '\0' '\n' < "/proc/$server/environ" | sort | tr '\n' ' ')
server_argv=$(tr '\0' ' ' < "/proc/$server/cmdline")
server_fds=$(ls -l "/proc/$server/fd" 2>/dev/null | awk 'NR > 1 { print $NF }')
dir=$(dirs | grep -vxF "$dirs_before" | head -1)
srv=$dir/pressmark-srv
auth_mode=$(stat -c '%U:%G %a' "$dir/pm-memcached.auth")
kill -CONT "$lp"
# The memcache user leaves what it likes in its directory: files, a tree,
# links to root's things, and a child of its own that goes on writing there.
ok "the memcache user fills its directory" as_mc sh -c "touch $srv/keepme && mkdir -p $srv/d/e && touch $srv/d/e/f &&
    ln -s $TMP/precious $srv/link && ln -s $TMP/pdir $srv/dlink"
ok "  (a file, a tree, links to root's file and directory)" \
   sh -c "test -f $srv/keepme && test -f $srv/d/e/f && test -L $srv/link && test -L $srv/dlink"
"${MC[@]}" setsid sh -c "while :; do touch $srv/again 2>/dev/null; sleep 0.05; done" </dev/null >/dev/null 2>&1 &
writer=$!
cleanup_add "kill $writer"
ok "  a writer of its own, put in the server's cgroup" sh -c "echo $writer > '$CG_ROOT$server_cg/cgroup.procs'"
is "$(cg_of "$writer")" "$server_cg" "  which the kernel has there"
ok "  writing there" wait_for test -e "$srv/again"
ok "the client starts" catch client "$pid"
cp=$caught
client_uid=$(uid_of "$cp"); client_cg=$(cg_of "$cp"); client_env=$(env_names "$cp"); client_fsize=$(fsize_of "$cp")
client_limit=$(limit_of "$client_cg")
client_argv=$(tr '\0' ' ' < "/proc/$cp/cmdline")
# (the same user reads the server's environment, which is dumpable, and
# not the client's, which holds the password and its report pipe. Caught
# as it execs, the client may be stopped before its first step, which
# makes it undumpable: a sanitised build's start takes that long. So it
# goes on until the user cannot read it, alive and no zombie, or ends.)
server_readable=$(as_mc cat "/proc/$server/environ" 2>/dev/null | tr '\0' '\n' | grep -c '^HOME=')
kill -CONT "$cp"
client_alive() { grep -qs '^State:[[:space:]]*[^Z]' "/proc/$cp/status"; }
undumpable() { client_alive && ! as_mc cat "/proc/$cp/environ" >/dev/null 2>&1 && client_alive; }
client_readable=0; wait_long undumpable && client_readable=1
wait $pid
is "$?" 0 "pressmark run memcached under a 48M cap with swap: exit 0"
exec 9>&-
is "$(status_of mc)" "ok " "its run is stored ok"
run=$(q "select id from run where label = 'mc'")
like "$server_cg" "^/pressmark/run-$run(/workload)?$" "memcached ran in the run's capped cgroup ($server_cg)"
is "$server_uid" "$mc_uid" "memcached ran as the memcache user (its /proc status)"
is "$server_argv" "$(command -v memcached) -Y $dir/pm-memcached.auth -P $srv/pm-memcached.pid -U 0 -B ascii -s $srv/pm-memcached.sock -a 0700 -m 146 " \
   "  its command line: no UDP, the text protocol alone, its socket and its -m"
is "$auth_mode" "root:memcache 440" "  its password file root's, its group's to read alone"
# (PWD: the sh that puts it in the cgroup sets it, pressmark's directory)
is "$server_env" "HOME=$srv LANG=C PATH=/usr/sbin:/usr/bin:/sbin:/bin PWD=$PWD " \
   "  with an environment of its own, nothing of root's (PM_ROOT_ONLY)"
like "$server_fds" "$dir/pm-server\.log" "  its descriptors are its own: its log ($(printf '%s' "$server_fds" | wc -l) of them)"
unlike "$server_fds" "$TMP/leak" "  and none of root's (the test's 9)"
is "$server_fsize" "16777216 16777216" "  it writes no file over 16 MiB (RLIMIT_FSIZE): root's log stays bounded"
is "$loader_uid" "$mc_uid" "the loader (pressmark __kv-load) ran as the memcache user"
is "$loader_cg" "/pressmark/run-$run-client" "  outside the cap, in the run's client cgroup"
is "$loader_env" "HOME LANG PATH PRESSMARK_KV_AUTH PWD " "  its password in its environment, nothing of root's"
is "$loader_fsize" "16777216 16777216" "  no file over 16 MiB"
is "$client_uid" "$mc_uid" "the client (pressmark __kv-get) ran as the memcache user"
is "$client_cg" "/pressmark/run-$run-client" "  outside the cap, in the run's client cgroup"
is "$client_limit" max "  which has no memory limit"
is "$client_env" "HOME LANG PATH PRESSMARK_KV_AUTH PWD " "  its password in its environment, nothing of root's"
is "$client_fsize" "16777216 16777216" "  no file over 16 MiB"
is "$server_readable $client_readable" "1 1" \
   "  not dumpable: the memcache user reads the server's /proc/PID/environ, not the client's"
keys=$(( 64 * 1048576 / 4000 ))
gets=$(( 2 * keys ))
is "$client_argv" "$pm_exe __kv-get --server-pid=$server --socket=$srv/pm-memcached.sock --keys=$keys --value-size=4000 --clients=4 --requests=$gets --duration-ns=0 --zipf=0 " \
   "  its whole command line: the server's pid to check its socket's other end by, the loaded keys, uniform"
is "$(q "select value from run_meta where run_id = $run and key = 'memcached.user'")" memcache \
   "  the run's record names the user"
ok "the memcache user's child in the server's cgroup is gone" sh -c "! kill -0 $writer 2>/dev/null"
is "$(cat "$TMP/precious"; ls "$TMP/pdir")" "precious
keep" "what the memcache user's links named is untouched"

is "$(imetric mc memcached.load_sets)" "$keys" "the loader counted a STORED for every key of the data set ($keys x 4000 bytes)"
is "$(imetric mc memcached.set_calls)" "$keys" "  the server took as many sets (stats cmd_set)"
is "$(imetric mc memcached.load_errors)" 0 "  none refused"
is "$(imetric mc memcached.curr_items)" "$keys" "the server holds them all (stats curr_items)"
is "$(imetric mc memcached.evictions)" 0 "  none evicted (-m leaves room)"
# keys x (4000 + 96) x 5/4 is 85,898,240 bytes: 82 MiB, and 64 for pages
is "$(imetric mc memcached.limit_maxbytes)" $(( 146 * 1048576 )) "-m covers the data set: 146 MiB (stats limit_maxbytes)"
is "$(imetric mc memcached.client_gets)" "$gets" "the client sent twice the keys in gets"
is "$(imetric mc memcached.client_hits)" "$gets" "  every one a hit with the loader's bytes"
is "$(imetric mc memcached.client_misses)" 0 "  no miss"
is "$(imetric mc memcached.client_errors)" 0 "  no error reply"
is "$(imetric mc memcached.get_hits)" "$gets" "the server counted the same hits (stats get_hits)"
is "$(imetric mc memcached.get_misses)" 0 "  and no miss"
ge "$(imetric mc swap.out_kb)" 1 "the run swapped out"

# The headline is the client's own figure, as its report line said it,
# and that figure is its gets over its nanoseconds, to its three decimals.
said=$(q "select value from run_meta where run_id = $run and key = 'memcached.client_output'")
like "$said" "^gets $gets hits $gets misses 0 errors 0 ns [0-9]+ ops_per_s [0-9]+\.[0-9]{3}$" \
     "the client's report line is stored ($said)"
ns=$(printf '%s\n' "$said" | awk '{ print $10 }')
ops=$(printf '%s\n' "$said" | awk '{ print $12 }')
is "$ops" "$(python3 -c 'import sys; print("%.3f" % (int(sys.argv[1]) * 1e9 / int(sys.argv[2])))' "$gets" "$ns")" \
   "  its rate is its gets over its ns ($gets / $ns)"
is "$(q "select unit || ' ' || direction from metric where run_id = $run and name = 'memcached.ops_per_s'")" \
   "ops/s higher" "the headline is stored as declared"
is "$(q "select value = $ops from metric where run_id = $run and name = 'memcached.ops_per_s'")" 1 \
   "  exactly the client's figure"
is "$(q "select abs(value - $ns / 1e9) < 1e-9 from metric where run_id = $run and name = 'memcached.client_s'")" 1 \
   "  over the client's time as it reported it (memcached.client_s)"
is "$(imetric mc memcached.latency_samples)" "$gets" "every get's latency is in the histogram"
ok "  its p99 is a latency ($(metric mc memcached.latency_p99_us) us)" \
   awk -v a="$(metric mc memcached.latency_p99_us)" 'BEGIN { exit !(a > 0) }'
shown=$("$PM" show mc 2>&1 | awk '$1 == "mc" { gsub(",", "", $2); print $2; exit }')
like "$("$PM" show mc 2>&1)" "^label +get/s " "show leads with it (get/s)"
ok "  and shows its value ($shown)" awk -v a="$shown" -v b="$ops" 'BEGIN { exit !(a + 0 > 0 && (a - b) ^ 2 < 1) }'
phases=$("$PM" export mc --series workload.phase 2>/dev/null | awk -F, 'NR > 1 { print $NF }' | uniq | tr '\n' ' ')
# (the server starts within a tick: the first sample may be the load's)
like "$phases" "^(0 )?1 2 0 $" "the samples mark the phases in order: (0,) 1 load, 2 measured, 0 ($phases)"

is "$(servers)" "" "no server is left"
is "$(dirs)" "$dirs_before" "nor its directory, whatever the memcache user left there"
is "$(machine_state)" "$before" "the machine is as it was (no cgroup, swap file or journal left)"

# Under its own -m the server evicts: a get of an evicted key is a miss,
# counted as one by the client exactly as the server counts it. Nothing
# expires and nothing is deleted: every item stored is held or evicted.
"$PM" run memcached --quiet --dataset 32M --maxmemory 8M --requests 20000 --label evict 2>"$TMP/err"
is "$?" 0 "a 32M data set under --maxmemory 8M: exit 0"
ekeys=$(( 32 * 1048576 / 4000 ))
is "$(imetric evict memcached.load_sets) $(imetric evict memcached.load_errors)" "$ekeys 0" \
   "  every set stored ($ekeys), evicting to make room"
is "$(( $(imetric evict memcached.curr_items) + $(imetric evict memcached.evictions) ))" "$ekeys" \
   "  held and evicted together are the stored ($(imetric evict memcached.curr_items) + $(imetric evict memcached.evictions))"
ge "$(imetric evict memcached.evictions)" 1 "  it evicted"
is "$(imetric evict memcached.client_misses)" "$(imetric evict memcached.get_misses)" "  the client's misses are the server's get_misses"
is "$(imetric evict memcached.client_hits)" "$(imetric evict memcached.get_hits)" "  and its hits its get_hits"
is "$(( $(imetric evict memcached.client_hits) + $(imetric evict memcached.client_misses) ))" 20000 "  together every get"
is "$(imetric evict memcached.client_errors)" 0 "  no error reply"
ge "$(imetric evict memcached.client_misses)" 1 "  the client saw misses ($(imetric evict memcached.client_misses))"
is "$(imetric evict memcached.limit_maxbytes)" $(( 8 * 1048576 )) "  -m was 8 (stats limit_maxbytes)"

# The same under YCSB's zipfian keys, for a time rather than a count:
# the hottest keys are the first loaded, the first the server evicted, so
# more gets miss than uniform ones did.
# (2 s of 2 clients: the misses' share needs no more, and every second
# of a client at full speed is the machine's two cores)
"$PM" run memcached --quiet --dataset 32M --maxmemory 8M --key-dist zipf:0.99 --duration 2s --clients 2 --label zipf \
    2>"$TMP/err" &
pid=$!
ok "the zipfian run's client starts" catch client "$pid"
zipf_argv=$([ -n "$caught" ] && tr '\0' ' ' < "/proc/$caught/cmdline")
kill -CONT "$caught"
wait $pid
is "$?" 0 "a zipfian run of 2 s: exit 0 ($(tail -1 "$TMP/err"))"
like "$zipf_argv" " --keys=$ekeys --value-size=4000 --clients=2 --requests=0 --duration-ns=2000000000 --zipf=0\.98999999999999999 $" \
     "  its client draws zipf:0.99 over the keys, for 2 s and no count, with its 2 clients"
zgets=$(imetric zipf memcached.client_gets)
ok "  it ran its 2 s ($(metric zipf memcached.client_s) s) and ended" \
   awk -v s="$(metric zipf memcached.client_s)" 'BEGIN { exit !(s >= 2 && s < 600) }'
is "$(( $(imetric zipf memcached.client_hits) + $(imetric zipf memcached.client_misses) ))" "$zgets" \
   "  every get ($zgets) a hit or a miss"
is "$(imetric zipf memcached.client_hits) $(imetric zipf memcached.client_misses)" \
   "$(imetric zipf memcached.get_hits) $(imetric zipf memcached.get_misses)" "  as the server counted them"
# (uniform gets miss as often as keys were evicted, evictions/keys; the
# zipfian ones more than halfway from that to all of them)
zevict=$(imetric zipf memcached.evictions)
ok "  more of them missed than uniform gets would ($(imetric zipf memcached.client_misses)/$zgets; evicted $zevict/$ekeys)" \
   awk -v z="$(imetric zipf memcached.client_misses)" -v zg="$zgets" -v e="$zevict" -v k="$ekeys" \
   'BEGIN { exit !(zg > 0 && z / zg > (1 + e / k) / 2) }'
is "$(imetric zipf memcached.latency_samples)" "$zgets" "  every get's latency is in the histogram"

# The memcache user holds a helper's report pipe: another process of its
# reopens the helper's /proc/PID/fd/4 (here root opens it and hands it
# over, as a process of that user could have taken it in the moment
# before the helper made itself undumpable) outside the run's cgroups, and
# never lets go. pressmark neither hangs on it nor takes what it read:
# the run fails and says why (a hang would be ended by timeout, 124).
timeout -k 10 120 "$PM" run memcached --quiet --mem-cap 48M --swap 256M --dataset 64M --label heldload 2>"$TMP/err" &
pid=$!
ok "a run's loader runs" catch loader "$pid"
lp=$caught
"${MC[@]}" sleep 600 3>"/proc/$lp/fd/4" </dev/null >/dev/null 2>&1 &
holder=$!
cleanup_add "kill $holder"
ok "  the memcache user holds its report pipe, silent" \
   wait_for sh -c "[ \"\$(readlink /proc/$holder/fd/3)\" = \"\$(readlink /proc/$lp/fd/4)\" ]"
kill -CONT "$lp"
wait $pid
is "$?" 1 "  the run ends, failed"
is "$(status_of heldload)" "failed the loader (pressmark __kv-load)'s report did not end: its pipe was still open 5 s after it ended, held by a process outside the run's cgroups (its report is not taken)" \
   "  saying whose report did not end and why"
ok "  the holder, outside the run's cgroups, lives" kill -0 "$holder"
stop_bg "$holder"
# (1 s of 1 client: it is caught as it starts, stopped while the holder
# takes its pipe, and needs only to end after)
timeout -k 10 120 "$PM" run memcached --quiet --dataset 8M --duration 1s --clients 1 --label heldget 2>"$TMP/err" &
pid=$!
ok "a run's client runs" catch client "$pid"
cp=$caught
"${MC[@]}" sh -c 'while echo progress 0 >&3; do sleep 0.1; done' 3>"/proc/$cp/fd/4" </dev/null >/dev/null 2>&1 &
chatter=$!
cleanup_add "kill $chatter"
ok "  the memcache user holds its report pipe, writing on and on" wait_for test -e "/proc/$chatter/fd/3"
kill -CONT "$cp"
wait $pid
is "$?" 1 "  the run ends, failed"
is "$(status_of heldget)" "failed the client (pressmark __kv-get)'s report did not end: its pipe was still open 5 s after it ended, held by a process outside the run's cgroups (its report is not taken)" \
   "  saying so"
stop_bg "$chatter"

# pressmark decides a run's verdict, not the client's report: a "failed"
# line of the memcache user's (the client's report is its to write)
# while the client runs into --client-timeout leaves the timeout the
# reason, the line kept as data.
# (1 client, 6 s: stopped while the line is written, which at normal
# priority on a loaded machine can take seconds; its timeout, counted
# from its start, must not come first)
"$PM" run memcached --quiet --dataset 8M --requests 1000000000 --clients 1 --client-timeout 6s --label forged 2>"$TMP/err" &
pid=$!
ok "a run's client runs, to its --client-timeout" catch client "$pid"
cp=$caught
ok "  the memcache user writes 'failed all is well' into its report" \
   as_mc sh -c 'echo "failed all is well" >&3' 3>"/proc/$cp/fd/4"
kill -CONT "$cp"
wait $pid
is "$?" 1 "  the run ends, failed"
is "$(status_of forged)" "failed the client (pressmark __kv-get) did not finish within 6 s (--client-timeout, or the run's --timeout)" \
   "  by its timeout, as pressmark found it"
is "$(q "select value from run_meta r join run on run.id = r.run_id where label = 'forged' and key = 'memcached.client_output'")" \
   "failed all is well" "  the line kept as the client's output"

# A socket only root may reach, which records what reaches it (appending:
# the log is emptied between its uses).
python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(8)
print("up", flush=True)
while True:
    c, _ = s.accept(); print("connection", c.recv(100), flush=True)' "$TMP/root.sock" >> "$TMP/root.log" &
rootsrv=$!
cleanup_add "stop_bg $rootsrv"
wait_for grep -q up "$TMP/root.log"
chmod 0700 "$TMP/root.sock"

# The client talks only to the server it is told of: a socket whose other
# end is another process (here root's) gets a connection and not a byte.
"$PM" __kv-get --server-pid=$$ --socket="$TMP/root.sock" --keys=10 --value-size=10 --clients=2 --requests=10 \
    4>"$TMP/report" 2>/dev/null
is "$?" 1 "the client on a socket that is not its server's: exit 1"
like "$(cat "$TMP/report")" "^failed the socket's other end is pid [0-9]+ \(uid 0\), not the server \(pid $$, uid 0\)$" \
     "  its report says whose socket it is"
ok "  the socket got its connections" wait_for sh -c "[ \$(grep -c connection '$TMP/root.log') = 2 ]"
is "$(grep connection "$TMP/root.log" | sort -u)" "connection b''" "  and not a byte of them"
: > "$TMP/root.log"

# pressmark's own connection (stats) never follows a link: the memcache
# user swaps its socket for a link to that root-only socket once the
# client has its 4 connections, and root connects to nothing.
# (1 s: the client is stopped from its start until it has its 4
# connections, and again while its socket is swapped; it needs only to
# end after)
"$PM" run memcached --quiet --mem-cap 48M --dataset 8M --duration 1s --label swapped 2>"$TMP/err" &
pid=$!
ok "the measured phase of the run whose socket is swapped starts" catch client "$pid"
cp=$caught
# (stopped the moment it has them, looked for as catch looks: its
# socket: descriptors, and not the O_PATH one kv_connect holds on the
# socket's file before it connects, which is a socket to [ -S ] too)
four_then_stop() {
    local f n=0 k v sock
    alive "$pid" || { rt_ended="pressmark run $pid had ended"; return 2; }
    alive "$cp" || { rt_ended="its client $cp had ended"; return 2; }
    for f in /proc/$cp/fd/*; do
        [ -S "$f" ] || continue
        sock=1
        while read -r k v; do
            [ "$k" = flags: ] && { (( 8#$v & 8#10000000 )) && sock=0; break; }
        done 2>/dev/null < "/proc/$cp/fdinfo/${f##*/}"
        n=$((n + sock))
    done
    [ "$n" -ge 4 ] && kill -STOP "$cp" 2>/dev/null && return 0
    return 1
}
kill -CONT "$cp"
rt_ended=
four_conns() {
    rt_poll four_then_stop && return 0
    diag "# no 4 connections in $rt_looks looks (the longest wait between two: $(( rt_gap / 1000 )) ms)${rt_ended:+; gave up: $rt_ended}: $(ls -l "/proc/$cp/fd" 2>&1 | awk 'NR > 1 { print $NF }' | tr '\n' ' ')"
    [ -z "$rt_refused" ] || diag "# at normal priority: $rt_refused"
    return 1
}
ok "  its client has its 4 connections" four_conns
srv=$(dirs | grep -vxF "$dirs_before" | head -1)/pressmark-srv
ok "  the memcache user swaps the socket for a link" \
   as_mc sh -c "mv $srv/pm-memcached.sock $srv/real.sock && ln -s $TMP/root.sock $srv/pm-memcached.sock"
kill -CONT "$cp"
wait $pid
is "$?" 1 "  it ends with exit 1: a failed run, stored"
is "$(status_of swapped)" \
   "failed the server's own figures: connecting to $srv/pm-memcached.sock: a symbolic link, not the server's socket" \
   "  failed: the stats socket is a link"
is "$(grep -c connection "$TMP/root.log")" 0 "  the root-only socket got no connection"
is "$(dirs)" "$dirs_before" "  its directory is gone too"
stop_bg $rootsrv

# The default data set (150% of the cap) over TCP: the server listens on
# 127.0.0.1 alone while it runs, answers nobody who has not signed in,
# and the figures are exact. (Its loader stopped meanwhile: the server
# is up and idle. Not a 24M cap: the memcg OOM killer took memcached.)
port=$(free_port)
"$PM" run memcached --quiet --mem-cap 48M --swap 256M --port "$port" --label tcp 2>"$TMP/err" &
pid=$!
ok "the TCP run's loader starts" catch loader "$pid"
listening=$(ss -Hltn "sport = :$port" | awk '{ print $4 }' | tr '\n' ' ')
stranger=$(python3 -c 'import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), 5); s.settimeout(5)
s.sendall(b"stats\r\n"); print(s.recv(200).decode().strip())' "$port" 2>&1)
kill -CONT "$caught"
wait $pid
is "$?" 0 "pressmark run memcached --port $port, no --dataset: exit 0 ($(tail -1 "$TMP/err"))"
is "$listening" "127.0.0.1:$port " "  the server listened on 127.0.0.1:$port alone"
is "$stranger" "CLIENT_ERROR unauthenticated" "  a connection that has not signed in is told so, and nothing else"
keys=$(( 48 * 1048576 * 3 / 2 / 4000 ))
is "$(imetric tcp memcached.dataset_bytes)" $(( keys * 4000 )) "  the data set is 150% of the cap ($keys keys)"
is "$(imetric tcp memcached.curr_items)" "$keys" "  the server holds every key"
is "$(imetric tcp memcached.get_hits)" $(( 2 * keys )) "  every get found its key"
is "$(imetric tcp memcached.client_hits)" $(( 2 * keys )) "  and the client saw every hit"
is "$(imetric tcp memcached.get_misses)" 0 "  no miss"
is "$(machine_state)" "$before" "  the machine is as it was"

# SIGKILL of pressmark mid-run: the next invocation removes it all. The
# server dies with pressmark (setpriv's parent-death signal); the journal
# knows it by the run's cgroup alone, never by its pid: that pid, free
# again, may go to another process of the memcache user (here one that
# takes it on purpose, with the server's directory on its command line),
# which the next invocation must neither kill nor take for the server.
# (its client stopped from its start: killed with pressmark all the same,
# by its parent-death signal, and no CPU of the machine's meanwhile)
"$PM" run memcached --quiet --mem-cap 48M --swap 256M --dataset 8M --requests 100000000 --label killed 2>/dev/null &
pid=$!
ok "the run to kill reaches its measured phase" catch client "$pid"
server=$(servers | head -1)
srv=$(dirs | grep -vxF "$dirs_before" | head -1)/pressmark-srv
sock=$srv/pm-memcached.sock
killed=$(cg_of "$caught" | sed -n 's|^/pressmark/run-\([0-9]*\)-client$|\1|p')
ok "  with its socket in its own directory ($sock)" test -S "$sock"
ok "  alive ($server)" kill -0 "$server"
journal=$(cat "${PRESSMARK_STATE_DIR:-/run/pressmark}/journal")
like "$journal" "$(printf 'cgroup\t%s' "$CG_ROOT/pressmark/run-$killed")" "  the journal names the run's cgroup"
unlike "$journal" "$(printf '^process\t')" "  and no process by its pid"
like "$journal" "$(printf 'scratch\t%s\t\\*' "$srv")" "  and its directory, to be removed whole"
kill -KILL $pid; wait $pid 2>/dev/null
ok "the server died with pressmark" wait_for sh -c "! test -e /proc/$server"
ok "  and its client with it" wait_for sh -c "! test -e /proc/$caught"
# (ns_last_pid: the next fork gets the pid after the one written)
reuse_pid() {
    local i
    for i in $(seq 50); do
        echo $(( server - 1 )) > /proc/sys/kernel/ns_last_pid
        "${MC[@]}" sh -c 'while :; do sleep 1; done' "$srv/pm-memcached.pid" </dev/null >/dev/null 2>&1 &
        reuser=$!
        [ "$reuser" = "$server" ] && return 0
        stop_bg "$reuser"
    done
    return 1
}
setup "a process of the memcache user takes the server's pid ($server)" reuse_pid
cleanup_add "kill $reuser"
ok "  outside the run's cgroups, the server's directory on its command line" \
   sh -c "[ '$(cg_of "$reuser")' = '$decoy_cg' ] && tr '\\0' '\\n' < /proc/$reuser/cmdline | grep -qxF '$srv/pm-memcached.pid'"
"$PM" list >/dev/null 2>"$TMP/recover"
is "$?" 0 "the next invocation (pressmark list) succeeds"
like "$(cat "$TMP/recover")" "removed cgroup $CG_ROOT/pressmark/run-$killed(;|$)" "  the run's cgroup, and what was in it"
like "$(cat "$TMP/recover")" "removed scratch directory $srv" "  its directory"
like "$(cat "$TMP/recover")" "removed cgroup $CG_ROOT/pressmark/run-$killed-client" "  the client's cgroup"
ok "  the process that took the server's pid lives" kill -0 "$reuser"
unlike "$(cat "$TMP/recover")" "pid $server" "  and is not named"
stop_bg "$reuser"
ok "no memcached of ours is left" wait_for no_servers
ok "nor the client" wait_for no_client
ok "nor its socket" test ! -e "$sock"
is "$(dirs)" "$dirs_before" "nor its directory"
is "$(find "$CG_ROOT/pressmark" -maxdepth 1 -name 'run-*' 2>/dev/null)" "" "nor a cgroup"
is "$(machine_state)" "$before" "the machine is as it was"

# A port in use is bad input.
busy_port
holder=$BUSY_PID port=$BUSY_PORT
bad "--port in use" "^pressmark run memcached: --port: '$port': 127\.0\.0\.1:$port cannot be listened on \(Address already in use; accepted: a free port, 1024 to 65535\)$" \
    run memcached --port "$port" --label inuse
stop_bg $holder
is "$(dirs)" "$dirs_before" "  no directory made"

# The memcache user's own memcached, outside the run's cgroups, lived
# through all of it, every run's teardown and the recovery.
ok "the memcache user's own memcached lives" kill -0 "$decoy"
is "$(uid_of "$decoy") $(cg_of "$decoy")" "$mc_uid $decoy_cg" "  as that user, where it was"
stop_bg "$decoy"
is "$(machine_state)" "$before" "at the end: the machine is as it was"
done_testing
