#!/bin/bash
# The sibling hog (--sibling) on this machine's memory cgroups (v1 here,
# v2 on a stock systemd host: make v2-host-check): a second workload in
# run-N/sibling under the same cap as the measured one in run-N/workload,
# its passes counted over the measured run, both cgroups sampled (their
# usage together never above the cap), everything gone after ok, SIGINT
# and SIGKILL; bad hogs refused before anything runs. (memory.low beside
# a hog: the guests' cells in tests/slow/t83.)
. "$(dirname "$0")/lib.sh"
need_root
memcg_hierarchy || skip_all "no memory cgroup controller on this machine"
[ -d "$CG_ROOT/pressmark" ] && skip_all "a pressmark cgroup is in use on this machine"
before=$(machine_state)
cap=$((160 << 20))
hog='usemem --size 96M --passes 1'

# 1. A hog beside usemem under a 160M cap with swap.
"$PM" run usemem --quiet --size 96M --duration 2s --mem-cap 160M --swap 512M --interval 100ms \
    --sibling "$hog" --sibling-lead 1s --label beside >"$TMP/out" 2>&1
is "$?" 0 "usemem beside a usemem hog exits 0"
is "$(q "select status from run where label = 'beside'")" ok "and is stored ok"
id=$(q "select id from run where label = 'beside'")
is "$(q "select value from run_meta where run_id = $id and key = 'sibling'")" "$hog" "the hog's spec is stored with the run"
top=$(q "select value from run_meta where run_id = $id and key = 'cap.cgroup'")
is "$(q "select value from run_meta where run_id = $id and key = 'cgroup.workload'")" "$top/workload" \
    "the workload ran in the cap's child workload"
is "$(q "select value from run_meta where run_id = $id and key = 'cgroup.sibling'")" "$top/sibling" \
    "the hog in its sibling"
passes=$(metric "$id" sibling.passes)
ok "the hog's passes during the run are counted ($passes)" awk -v v="$passes" 'BEGIN { exit !(v > 0) }'
total=$(q "select value from run_meta where run_id = $id and key = 'sibling.passes_total'")
# (fewer, not one fewer: under emulation its first pass outlasts the lead)
ok "fewer than all its passes: those of its lead are not the run's ($passes of $total)" \
    awk -v v="$passes" -v t="$total" 'BEGIN { exit !(v < t) }'
ok "the pass under way when the run began counts by its share ($passes is not whole)" \
    awk -v v="$passes" 'BEGIN { exit !(v != int(v)) }'
ok "its rate is stored" awk -v v="$(metric "$id" sibling.passes_per_s)" 'BEGIN { exit !(v > 0) }'
is "$(imetric "$id" sibling.failed_passes)" 0 "none of its passes failed"
is "$(q "select unit || ' ' || direction from metric where run_id = $id and name = 'sibling.usemem.mb_per_s'")" \
    "MB/s higher" "its headline is stored as usemem declares it"
ge "$(imetric "$id" sibling.memcg.usage_max_bytes)" $((64 << 20)) "its cgroup is sampled: it held 64M or more"
ge "$(imetric "$id" memcg.usage_max_bytes)" $((32 << 20)) "and the workload's"
ws=memcg.$CG_USAGE
ss=sibling.memcg.$CG_USAGE
ge "$(q "select count(*) from sample where run_id = $id and name = '$ss'")" 5 "the hog's usage is a series of its own"
# The cap is the parent's: in every tick both together stay within it.
# The two files are read one after the other, and each CPU may hold a
# charge batch of 64 pages ahead (MEMCG_CHARGE_BATCH): 1M of slack.
ge "$(q "select count(*) from sample a join sample b on a.run_id = b.run_id and a.seq = b.seq
          where a.run_id = $id and a.name = '$ws' and b.name = '$ss'")" 5 "both cgroups sampled in the same ticks"
is "$(q "select count(*) from sample a join sample b on a.run_id = b.run_id and a.seq = b.seq
          where a.run_id = $id and a.name = '$ws' and b.name = '$ss' and a.value + b.value > $cap + 1048576")" 0 \
    "in no tick do the workload and the hog together exceed the cap"
ge "$(q "select count(*) from sample a join sample b on a.run_id = b.run_id and a.seq = b.seq
          where a.run_id = $id and a.name = '$ws' and b.name = '$ss' and a.value > 32 << 20 and b.value > 32 << 20")" 1 \
    "and in some tick each held more than 32M of it at once (the hog presses)"
like "$("$PM" help metrics)" "sibling.passes_per_s" "help metrics lists the hog's figures"
is "$(machine_state)" "$before" "after the run: no cgroup, swap or helper left"

# 2. Where the processes are: the measured command sees itself in the
# workload's cgroup and the hog's processes in the sibling's.
"$PM" record --quiet --mem-cap 160M --sibling 'usemem --size 32M --duration 5s' --sibling-lead 1s --label where -- \
    sh -c 'cp /proc/self/cgroup "$1/where.cgroup"; for f in "$2"/pressmark/run-*/sibling/cgroup.procs; do
           n=$(grep -c . "$f") && echo "hog procs: $n"; done; true' sh "$TMP" "$CG_ROOT" >"$TMP/where" 2>&1
is "$?" 0 "a command beside a hog exits 0"
wid=$(q "select id from run where label = 'where'")
is "$(memcg_path "$TMP/where.cgroup")" "/pressmark/run-$wid/workload" "the command ran in run-$wid/workload"
like "$(cat "$TMP/where")" "hog procs: [1-9]" "while the hog's processes were in the sibling cgroup"
ok "a hog pass longer than the run counts nothing" awk -v v="$(metric "$wid" sibling.passes)" 'BEGIN { exit !(v == 0) }'
is "$(machine_state)" "$before" "after it: nothing left"

# A hog larger than the cap without swap: each of its passes is OOM-killed
# inside the cap, none counted as done; the measured command, small, ends
# ok.
"$PM" record --quiet --mem-cap 96M --swap-cap 0 --sibling 'usemem --size 128M --passes 1' --sibling-lead 2s \
    --label oomhog -- sleep 3 >"$TMP/oomhog" 2>&1
is "$?" 0 "a command beside a hog the OOM killer ends exits 0"
# (How many of its passes fail inside the run varies: twice none did, once
# in a fresh root; unit_sibling holds the counting of failed passes.)
ok "and none as done ($(metric oomhog sibling.passes))" awk -v v="$(metric oomhog sibling.passes)" 'BEGIN { exit !(v != "" && v == 0) }'
is "$(machine_state)" "$before" "after it: nothing left"

# 3. SIGINT and SIGKILL while the hog runs: the hog and its cgroups go.
interrupt() {  # interrupt SIGNAL LABEL
    "$PM" run usemem --quiet --size 32M --duration 60s --mem-cap 160M --sibling 'usemem --size 64M --duration 60s' \
        --sibling-lead 1s --label "$2" >"$TMP/int" 2>&1 &
    local pid=$!
    wait_for sh -c 'cat "$1"/pressmark/run-*/sibling/cgroup.procs 2>/dev/null | grep -q .' sh "$CG_ROOT"
    ok "$1: the hog is running" sh -c 'cat "$1"/pressmark/run-*/sibling/cgroup.procs | grep -q .' sh "$CG_ROOT"
    sleep 1
    kill -"$1" "$pid"
    wait "$pid"
    echo $? > "$TMP/rc"
}
interrupt INT intr
is "$(cat "$TMP/rc")" 130 "SIGINT: exit 130"
is "$(q "select status from run where label = 'intr'")" aborted "the run is stored aborted"
is "$(machine_state)" "$before" "SIGINT: the hog and both cgroups are gone"
interrupt KILL killed
is "$(cat "$TMP/rc")" 137 "SIGKILL: pressmark dies"
wait_for sh -c '! pgrep -f "pressmark [_]_sibling" >/dev/null'
is "$(pgrep -fc 'pressmark [_]_sibling')" 0 "the hog's helper died with it"
"$PM" list >/dev/null 2>"$TMP/recover"
like "$(cat "$TMP/recover")" "removed cgroup .*/sibling" "the next pressmark undoes the journal, the hog's cgroup first"
is "$(machine_state)" "$before" "SIGKILL: after the next start, nothing left"

# 4. Bad hogs: one line, exit 2, nothing written.
bad "a hog without a cap" "^pressmark run usemem: --sibling: needs --mem-cap" run usemem --sibling "$hog"
bad "a hog that is not a workload" "^pressmark run usemem: --sibling: 'hogwash' is not a workload \(accepted: .*usemem" \
    run usemem --mem-cap 160M --sibling hogwash
bad "an option the hog's workload lacks" "^pressmark run usemem: --sibling: '--nosuch' is not an option of usemem" \
    run usemem --mem-cap 160M --sibling 'usemem --nosuch 1'
bad "a bad value of the hog's option" "^pressmark run usemem: --sibling: usemem --size: 'lots' is not" \
    run usemem --mem-cap 160M --sibling 'usemem --size lots'
bad "a command as the hog" "^pressmark run usemem: --sibling: record takes a command" \
    run usemem --mem-cap 160M --sibling 'record'
bad "a hog under the balloon" "^pressmark run usemem: --sibling: needs a cgroup cap \(cgroup1 or cgroup2\), not --cap-method balloon" \
    run usemem --mem-cap 160M --cap-method balloon --sibling "$hog"
bad "a hog that journals" "^pressmark run usemem: --sibling: shmio keeps a scratch directory in the run's undo journal" \
    run usemem --mem-cap 160M --sibling 'shmio'
bad "a hog of several phases" "^pressmark run usemem: --sibling: build: a list of values makes phases, and the hog runs one configuration" \
    run usemem --mem-cap 160M --sibling 'build --jobs 1,2'
bad "a hog on two lines" "^pressmark run usemem: --sibling: 'usemem\\\\x0a--size 1M' is not a hog" \
    run usemem --mem-cap 160M --sibling $'usemem\n--size 1M'
is "$(machine_state)" "$before" "the machine as found"
done_testing
