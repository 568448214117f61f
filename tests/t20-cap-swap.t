#!/bin/bash
# Memory caps and swap for a run, with the swapout workload (issue: memory cap, swap, VM settings).
. "$(dirname "$0")/lib.sh"
need_root
memcg_hierarchy || skip_all "no memory cgroup controller (neither v1 nor v2) on this machine"
before=$(machine_state)

# 1. The issue's run: swapping inside a 64M cap with a 256M swap file.
"$PM" run swapout --quiet --size 192M --mem-cap 64M --swap 256M --interval 100ms --label swap >"$TMP/out" 2>&1
is "$?" 0 "swapout under a 64M cap with 256M of swap exits 0"
is "$(q "select status from run where label = 'swap'")" ok "and is stored ok"
so=$(q "select cast(value as int) from metric where name = 'swap.out_kb' and run_id = 1")
ge "$so" 102400 "it swapped out at least 100 MB ($so KB)"
timed=$(q "select cast(value as int) from metric where name = 'swapout.timed_swap_out_kb' and run_id = 1")
ge "$timed" 102400 "the timed part alone swapped out at least 100 MB ($timed KB)"
cap=$((64 << 20))
usage_name=memcg.$CG_USAGE
is "$(q "select value from run_meta where run_id = 1 and key = 'cap.method'")" "cgroup$CG_VERSION" \
   "--cap-method auto took this machine's memory controller (cgroup v$CG_VERSION at $CG_ROOT)"
ge "$(q "select count(*) from sample where run_id = 1 and name = '$usage_name'")" 2 "cgroup usage sampled every tick ($usage_name)"
is "$(q "select count(*) from sample where run_id = 1 and name = '$usage_name' and value > $cap")" 0 \
   "the cgroup's usage never exceeds the cap in any sample"
is "$(q "select value from run_meta where run_id = 1 and key = 'cap.limit_bytes'")" "$cap" "the cap in effect is stored"
like "$(q "select value from run_meta where run_id = 1 and key = 'cap.method'")" "^cgroup[12]$" "auto chose a cgroup method"
like "$(cat "$TMP/out")" "auto chose cgroup[12]" "and said which"
like "$(q "select value from run_meta where run_id = 1 and key = 'swap.added'")" "^file /var/lib/pressmark/swap/run-1.swap priority" \
   "the swap file is in the run's metadata"
mb=$(q "select value from metric where run_id = 1 and name = 'swapout.mb_per_s'")
ok "MB/s is stored and positive ($mb)" awk -v v="$mb" 'BEGIN { exit !(v > 0) }'
show=$("$PM" show 1)
like "$show" "cap: cgroup[12] 64.0 MiB" "show names the cap method and size"
like "$show" "MB/s .* Total swpout" "show uses MB/s as swapout's headline"
like "$show" "heartbeat: [0-9]+ beats, lateness" "show reports heartbeat lateness"
is "$(machine_state)" "$before" "after the run: same swap devices, cgroups, sysctls, THP, zswap; no journal, no helpers"

# 2. No swap allowed: the allocator is OOM-killed inside the cap, samples kept, and the next run goes on.
"$PM" run swapout --quiet --size 192M --mem-cap 64M --swap 256M --swap-cap 0 --runs 2 --interval 100ms --label noswap
is "$?" 1 "a run that ends oom exits 1"
is "$(q "select group_concat(status) from run where label = 'noswap'")" "oom,oom" "--swap-cap 0: both runs end oom (the second still ran)"
like "$(q "select reason from run where label = 'noswap' limit 1")" "OOM killer: [0-9]+ kills? in the run's cgroup" "the reason names the OOM killer"
ge "$(q "select count(*) from tick where run_id = (select min(id) from run where label = 'noswap')")" 2 "an oom run keeps its samples"
if [ "$(tail -n +2 /proc/swaps | wc -l)" -eq 0 ]; then
    "$PM" run swapout --quiet --size 192M --mem-cap 64M --interval 100ms --label nodevice
    is "$(q "select status from run where label = 'nodevice'")" oom "no swap device at all: oom"
else
    skip "the machine has swap devices of its own, so 'no swap at all' cannot be arranged"
fi
is "$(machine_state)" "$before" "after the OOM runs: nothing left behind"

# 3. zram swap, with a compressor. Where zram is a module nobody loaded
# (Debian's kernels: a stock host, make v2-host-check), the run loads it
# and unloads it after.
zram_module=no
[ -e /sys/class/zram-control ] || zram_module=yes
# (lz4: Debian's 6.12 builds zram without lzo, and this machine's kernel
# with lz4 and lzo)
"$PM" run swapout --quiet --size 192M --mem-cap 64M --swap zram:256M:lz4 --interval 100ms --label zram
is "$(q "select status from run where label = 'zram'")" ok "swapout on a zram device ends ok"
ge "$(q "select cast(value as int) from metric m join run r on r.id = m.run_id where r.label = 'zram' and m.name = 'swap.out_kb'")" 102400 \
   "and swapped out at least 100 MB to it"
like "$(q "select value from run_meta m join run r on r.id = m.run_id where r.label = 'zram' and key = 'swap.zram'")" "^zram[0-9]+ 268435456 bytes, lz4" \
   "the zram device, size and compressor are in the metadata"
is "$(machine_state)" "$before" "after the zram run: the device is gone"
if [ "$zram_module" = yes ]; then
    is "$(ls -d /sys/module/zram /sys/class/zram-control 2>/dev/null)" "" "  and the zram module it loaded is unloaded"
else
    skip "zram was loaded here before the run (a module nobody loaded: make v2-host-check's stock host)"
fi

# 5. cgroup v2 with memory.high, where this machine's v2 hierarchy has the memory controller.
if [ "$CG_VERSION" = 2 ]; then
    "$PM" run swapout --quiet --size 96M --cap-method cgroup2 --mem-cap 64M --mem-high 48M --swap 256M --label v2
    is "$(q "select status from run where label = 'v2'")" ok "cgroup2 with memory.high: ok"
    is "$(q "select value from run_meta m join run r on r.id = m.run_id where r.label = 'v2' and key = 'cap.high_bytes'")" $((48 << 20)) "memory.high is recorded"
    is "$(machine_state)" "$before" "after the cgroup2 run: nothing left behind"
else
    for i in 1 2 3; do skip "the cgroup v2 hierarchy here has no memory controller; v1 is tested above"; done
fi

# 4. Prefill: stopped processes holding touched memory, as the 2001 swap-out report's swap-bench-pause.
"$PM" run swapout --quiet --size 96M --prefill 48M --prefill-procs 3 --mem-cap 64M --swap 256M --interval 100ms --label prefill
is "$(q "select status from run where label = 'prefill'")" ok "prefill then swapout ends ok"
ge "$(q "select cast(value as int) from metric m join run r on r.id = m.run_id where r.label = 'prefill' and m.name = 'swap.out_kb'")" 40960 \
   "the prefill was pushed out to swap by the timed part"
is "$(pgrep -fc 'pressmark __hold' || true)" 0 "the holders are gone after the run"
is "$(machine_state)" "$before" "after the prefill run: nothing left behind"
done_testing
