#!/bin/bash
# Surviving and cleaning up: SIGINT, SIGKILL and recovery, VM settings restored, the balloon, the run lock.
. "$(dirname "$0")/lib.sh"
need_root
quiet_machine    # (the whole machine's memory is measured: no VM of t80's beside it)
memcg_hierarchy || skip_all "no memory cgroup controller (neither v1 nor v2) on this machine"
before=$(machine_state)
orig_swappiness=$(cat /proc/sys/vm/swappiness)
orig_thp=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled)
new_thp=never; [ "$orig_thp" = never ] && new_thp=madvise
new_sw=$(( orig_swappiness == 17 ? 18 : 17 ))
ENVOPTS=(--mem-cap 64M --swap 64M --sysctl vm.swappiness=$new_sw --thp $new_thp)
# (zram loaded, or a module a run loads: Debian's kernels)
have_zram=0; { [ -e /sys/class/zram-control/hot_add ] || modprobe -n -q zram 2>/dev/null; } && have_zram=1

# VM settings: applied during the run, restored after it, also after a failed run.
out=$("$PM" record --quiet --label knobs --sysctl vm.swappiness=$new_sw --thp $new_thp -- \
      sh -c 'cat /proc/sys/vm/swappiness /sys/kernel/mm/transparent_hugepage/enabled')
like "$out" "^$new_sw" "the workload sees the sysctl set for the run"
like "$out" "\[$new_thp\]" "the workload sees the THP mode set for the run"
is "$(q "select value from run_meta where run_id = 1 and key = 'set.vm.swappiness'")" "$new_sw (was $orig_swappiness)" "the setting and the old value are recorded"
is "$(q "select value from run_meta where run_id = 1 and key = 'sysctl.vm.swappiness'")" "$new_sw" "the run's metadata holds the value in force"
is "$(cat /proc/sys/vm/swappiness)" "$orig_swappiness" "swappiness restored after an ok run"
is "$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled)" "$orig_thp" "THP restored after an ok run"
"$PM" record --quiet --label knobs-fail --sysctl vm.swappiness=$new_sw --thp $new_thp -- false
is "$(q "select status from run where label = 'knobs-fail'")" failed "a failing workload"
is "$(cat /proc/sys/vm/swappiness)" "$orig_swappiness" "swappiness restored after a failed run"
is "$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled)" "$orig_thp" "THP restored after a failed run"
# An environment that fails half-way is undone, and the failed run says what
# was undone: the kernel refuses the second sysctl's value after the first
# was set (a value only the kernel can judge).
"$PM" record --quiet --label env-fail --sysctl vm.swappiness=$new_sw --sysctl vm.overcommit_ratio=notanumber -- true 2>"$TMP/err"
is "$?" 2 "an environment that cannot come up: exit 2"
is "$(q "select status from run where label = 'env-fail'")" failed "the run is stored as failed"
like "$(q "select reason from run where label = 'env-fail'")" "environment: writing 'notanumber' to /proc/sys/vm/overcommit_ratio: Invalid argument" "with the reason"
like "$(q "select value from run_meta m join run r on r.id = m.run_id where r.label = 'env-fail' and m.key = 'env.undone'")" \
     "restored /proc/sys/vm/swappiness to $orig_swappiness" "and env.undone names the sysctl put back"
is "$(cat /proc/sys/vm/swappiness)" "$orig_swappiness" "which is back"
if [ -e /sys/module/zswap/parameters/enabled ]; then
    z0=$(cat /sys/module/zswap/parameters/enabled); zw=on; [ "$z0" = Y ] && zw=off
    out=$("$PM" record --quiet --zswap $zw -- cat /sys/module/zswap/parameters/enabled)
    is "$out" "$([ $zw = on ] && echo Y || echo N)" "--zswap $zw is in force during the run"
    is "$(cat /sys/module/zswap/parameters/enabled)" "$z0" "zswap restored after the run"
else
    skip "no zswap in this kernel"; skip "no zswap in this kernel"
fi

# The workloads' sleeps last a time no other process here sleeps (a test
# beside this one, or anybody's "sleep 60"), so pgrep finds only ours.
NAP=$((600000 + $$ % 100000)) NAP2=$((700000 + $$ % 100000)) NAP3=$((800000 + $$ % 100000))

# SIGINT mid-run: the run ends aborted and cap, swap, zram, sysctls and THP are undone.
# SIGINT with a zram device (where there is zram), SIGKILL with a swap file.
extra=(); [ $have_zram = 1 ] && extra=(--swap zram:32M)
"$PM" record --quiet --label sigint "${ENVOPTS[@]}" "${extra[@]}" -- sleep $NAP 2> "$TMP/sigint.err" &
pid=$!
ok "the run's cgroup appears" wait_for sh -c 'ls -d "$1"/pressmark/run-* > /dev/null 2>&1' sh "$CG_ROOT"
ok "the journal lists what the run changed" test -s /run/pressmark/journal
kill -INT $pid; wait $pid
is "$?" 130 "SIGINT: pressmark exits 130"
is "$(tail -n 1 "$TMP/sigint.err")" "pressmark: interrupted by SIGINT; environment restored" "  saying the environment is restored, last"
is "$(q "select status from run where label = 'sigint'")" aborted "the interrupted run is aborted"
is "$(machine_state)" "$before" "after SIGINT: no cgroup, swap file, zram device, changed sysctl or THP left"

# SIGKILL mid-run, then the next invocation finds what was left and undoes it.
"$PM" record --quiet --label sigkill "${ENVOPTS[@]}" -- sleep $NAP &
pid=$!
ok "the killed run's cgroup appears" wait_for sh -c 'ls -d "$1"/pressmark/run-* > /dev/null 2>&1' sh "$CG_ROOT"
kill -KILL $pid; wait $pid 2>/dev/null
ok "a SIGKILL leaves the journal behind" test -s /run/pressmark/journal
is "$(cat /proc/sys/vm/swappiness)" "$new_sw" "and the sysctl still changed (nobody could undo it yet)"
ok "the workload died with pressmark (no orphan sleep)" wait_for sh -c '! pgrep -x -f "sleep $1" >/dev/null' sh $NAP
# (if not: which one, its parent, state and cgroup, for the record)
for p in $(pgrep -x -f "sleep $NAP"); do
    echo "#   left: $(ps -o pid=,ppid=,stat=,etime=,args= -p "$p") cgroup $(tr '\n' ' ' < /proc/"$p"/cgroup 2>/dev/null)"
done
"$PM" record --quiet --label after-kill -- true 2>"$TMP/err"
like "$(cat "$TMP/err")" "a previous pressmark was killed mid-run; removed cgroup" "the next invocation says what it undid (cgroup)"
like "$(cat "$TMP/err")" "restored /proc/sys/vm/swappiness to $orig_swappiness" "... and the sysctl"
like "$(cat "$TMP/err")" "removed swap file /var/lib/pressmark/swap/run-" "... and the swap file"
is "$(q "select status from run where label = 'sigkill'")" aborted "the killed run is marked aborted"
like "$(q "select reason from run where label = 'sigkill'")" "pressmark was killed during this run" "with the reason"
is "$(machine_state)" "$before" "after recovery: the machine is as it was"

# A second run on the same machine is refused; list and show work meanwhile.
# (The second waits two seconds for the lock before it is refused.)
"$PM" record --quiet --label long -- sleep 5 &
pid=$!
ok "the first run holds the lock" wait_for sh -c "grep -q 'pid $pid' /run/pressmark/lock"
"$PM" record --quiet --label second -- true 2>"$TMP/err"
is "$?" 2 "a second concurrent run exits 2"
like "$(cat "$TMP/err")" "another pressmark is running a workload on this machine \(pid $pid: record record, label long\)" \
     "with a clear message naming the holder"
is "$(q "select count(*) from run where label = 'second'")" 0 "and stores nothing"
"$PM" list >/dev/null; is "$?" 0 "list works during a run"
"$PM" show long >/dev/null; is "$?" 0 "show works during a run"
wait $pid

# Every command checks for a killed run's leftovers under the run lock, for
# a moment: a run starting then waits for the lock instead of being refused
# (t23's readers beside its runs once cost a run so).
flock -x /run/pressmark/lock sleep 0.5 &
holder=$!
ok "another process holds the run lock" wait_for sh -c '! flock -n -x /run/pressmark/lock true'
"$PM" record --quiet --label waited -- true 2>"$TMP/err"
is "$?" 0 "a run starting meanwhile waits for it and runs"
is "$(q "select count(*) from run where label = 'waited'")" 1 "  and is stored"
wait $holder

# The balloon: MemAvailable about the cap during the run, gone after. The
# cap is 1 GiB below what is available, so the balloon is 1 GiB whatever
# the machine's size (the mechanism is the same at 20 GiB, only slower).
avail_kb=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)
cap_mb=$(( avail_kb / 1024 - 1024 ))
if [ "$cap_mb" -ge 512 ]; then
    "$PM" record --quiet --label balloon --cap-method balloon --mem-cap ${cap_mb}M --interval 200ms -- sleep 1.5
    is "$(q "select status from run where label = 'balloon'")" ok "a balloon run ends ok"
    rid=$(q "select id from run where label = 'balloon'")
    med=$(q "select value from sample where run_id = $rid and name = 'meminfo.MemAvailable' order by seq limit 1 offset 3")
    ok "MemAvailable during the run ($med kB) is within 5% of the cap ($((cap_mb * 1024)) kB)" \
       awk -v a="$med" -v c=$((cap_mb * 1024)) 'BEGIN { d = a - c; if (d < 0) d = -d; exit !(d <= 0.05 * c) }'
    is "$(q "select value from run_meta where run_id = $rid and key = 'cap.method'")" balloon "the cap method is stored"
    diag=$(q "select value from run_meta where run_id = $rid and key = 'cap.balloon'"); echo "# $diag"
    is "$(pgrep -fc 'pressmark __balloon' || true)" 0 "the balloon is gone after the run"
    after_kb=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)
    ok "MemAvailable is back after the run ($after_kb kB)" test "$after_kb" -gt $(( avail_kb * 9 / 10 ))
    "$PM" record --quiet --label tiny --cap-method balloon --mem-cap 100M -- true 2>"$TMP/err"
    like "$(q "select reason from run where label = 'tiny'")" "below the safety floor of 256.0 MiB" "a balloon that would leave too little is refused"
else
    for i in 1 2 3 4 5 6; do skip "less than 1.5 GiB available: no room to test the balloon"; done
fi
# Uncapped runs too: what the workload starts, even a setsid() daemon, ends with the run.
"$PM" record --quiet --label daemon -- sh -c 'setsid sleep "$1" </dev/null >/dev/null 2>&1 & sleep 0.3' sh $NAP2
is "$(q "select status from run where label = 'daemon'")" ok "an uncapped run that leaves a daemon ends ok"
like "$(q "select value from run_meta m join run r on r.id = m.run_id where r.label = 'daemon' and m.key = 'track.cgroup'")" \
     "^$CG_ROOT/pressmark/run-[0-9]+$" "its processes were kept in a cgroup without limits"
ok "and the daemon is gone with the run" wait_for sh -c '! pgrep -x -f "sleep $1" >/dev/null' sh $NAP2
"$PM" record --quiet --label daemon-kill -- sh -c 'setsid sleep "$1" </dev/null >/dev/null 2>&1 & sleep 60' sh $NAP3 &
pid=$!
ok "an uncapped run's daemon is running" wait_for pgrep -x -f "sleep $NAP3"
kill -KILL $pid; wait $pid 2>/dev/null
"$PM" list >/dev/null 2>&1
ok "after a SIGKILL of pressmark, the next invocation ends it too" wait_for sh -c '! pgrep -x -f "sleep $1" >/dev/null' sh $NAP3
is "$(machine_state)" "$before" "at the end: the machine is as it was"
done_testing
