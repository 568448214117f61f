#!/bin/bash
# Protection, MGLRU and zswap's controls inside guests, for real (make
# test-slow: a boot of each kernel line, beyond what a fresh clone's make
# test can spend; t80 keeps the cgroup v2 cap cells). On Debian's newest
# 6.1 and 6.12 cloud kernels, both on cgroup v2 in their guests: protection beside a sibling hog on counters (with
# memory.low the workload's cgroup is not scanned, without it is);
# memory.low above the cap is overcommitted and counted in
# memory.events low; MGLRU switched off and on and put back as each kernel
# has it (6.1 builds it in and leaves it off, 6.12 turns it on); zswap's
# controls refused by a kernel built without zswap, the run failing with
# the reason and the suite going on; VolanoMark's chat swapped out of a 48M
# cap with exact counts and its memcg reclaim stalls traced; and nothing
# left in the guests.
. "$(dirname "$0")/../lib.sh"
required_by PM_SLOW_REQUIRED   # make test-slow: a missing need fails it
vm_lane
before=$(machine_state)

state="sh -c 'cd /sys/fs/cgroup/pressmark&&echo pm-state: cg=\$(ls -d */|grep -vx \$(cut -d/ -f3 /proc/self/cgroup)/) sw=\$(tail -n+2 /proc/swaps|cut -d\" \" -f1) f=\$(ls /var/lib|grep -x pressmark)'"
cat > prot.ini <<INI
[global]
runs = 1
kernel = $k61, $k612
vm-memory = 512M
vm-timeout = 10m
name = protection-vms
order = sequential

[state-before]
workload = record
command = $state
label = state-before on {kernel}

[v2-chat]
workload = chat
rooms = 2
users = 10
messages = 100
heap = 64M
msg-alloc = 8K
mem-cap = 48M
swap = 256M
trace-reclaim = yes
interval = 100ms
label = v2-chat on {kernel}

[prot-off]
workload = usemem
size = 32M
pattern = rand
access = read
duration = 3s
mem-cap = 96M
swap = 256M
mem-low = 0
sibling = usemem --size 96M --passes 1
sibling-lead = 2s
interval = 100ms
label = prot-off on {kernel}

[prot-on]
workload = usemem
size = 32M
pattern = rand
access = read
duration = 3s
mem-cap = 96M
swap = 256M
mem-low = 64M
mem-min = 25%
sibling = usemem --size 96M --passes 1
sibling-lead = 2s
interval = 100ms
label = prot-on on {kernel}

[prot-over]
workload = usemem
size = 112M
mem-cap = 96M
swap = 256M
mem-low = 100%
interval = 100ms
label = prot-over on {kernel}

[lru-off]
workload = usemem
size = 64M
mem-cap = 48M
swap = 128M
lru-gen = off
interval = 100ms
label = lru-off on {kernel}

[lru-on]
workload = usemem
size = 64M
mem-cap = 48M
swap = 128M
lru-gen = on
lru-gen-min-ttl = 1000
interval = 100ms
label = lru-on on {kernel}

[zswap-ctl]
workload = usemem
size = 16M
mem-cap = 48M
zswap-max = 50%
zswap-writeback = off
interval = 100ms
label = zswap-ctl on {kernel}

[state-after]
workload = record
command = $state
label = state-after on {kernel}
INI
"$PM" suite run prot.ini > out 2> err
rc=$?
meta() { q "select m.value from run_meta m join run r on r.id = m.run_id where r.label = '$1' and m.key = '$2'"; }
no_zswap=0
for k in "$k61" "$k612"; do
    rel=${k#linux-image-}
    is "$(q "select count(*) from run r join machine m on m.id = r.machine_id where m.kernel = '$rel'")" 9 "$rel: its 9 cells ran in its guest"
    is "$(meta "v2-chat on $k" cap.method) $(meta "v2-chat on $k" cgroup.version)" "cgroup2 2" "  on cgroup v2"
    # The capped chat, as t25, t26 and t30 run it on the host's v1.
    is "$(q "select status from run where label = 'v2-chat on $k'")" ok "  v2-chat: VolanoMark's chat, heaps of 2 x 64M cycled 8K a message, under a 48M cap: ok"
    is "$(imetric "v2-chat on $k" chat.sent) $(imetric "v2-chat on $k" chat.received)" "2000 18000" "    exact counts: 2,000 sent, each received by the 9 others of its room"
    ge "$(imetric "v2-chat on $k" swap.out_kb)" 1024 "    its heaps swapped out ($(imetric "v2-chat on $k" swap.out_kb) KB)"
    # page_counter_try_charge adds a charge, then takes it back when it
    # would pass the limit: a reader may see one in flight, at most a
    # charge batch (64 pages). The chat's many threads and sockets make
    # that seen here (1 to 3 pages over, in some ticks).
    is "$(q "select count(*) from sample s join run r on r.id = s.run_id where r.label = 'v2-chat on $k' and s.name = 'memcg.memory.current' and s.value > $(((48 << 20) + (256 << 10)))")" 0 \
       "    never above its cap, but for a charge in flight, in any sample"
    ge "$(imetric "v2-chat on $k" stall.memcg.count)" 1 "    --trace-reclaim traced its memcg reclaim stalls ($(imetric "v2-chat on $k" stall.memcg.count))"
    is "$(imetric "v2-chat on $k" stall.lost_events)" 0 "    and lost no event"
    # Protection beside the hog (counters, not timings): the hog in its own
    # cgroup beside the workload's under the shared cap; without memory.low
    # the cap's reclaim scans the workload too, with it the workload is left
    # alone and the hog pays.
    for l in prot-off prot-on; do
        is "$(q "select status from run where label = '$l on $k'")" ok "  $l: usemem beside a usemem hog under one 96M cap: ok"
        is "$(meta "$l on $k" cgroup.workload) $(meta "$l on $k" cgroup.sibling)" \
           "$(meta "$l on $k" cap.cgroup)/workload $(meta "$l on $k" cap.cgroup)/sibling" "    the workload and the hog in the cap's two children"
        ge "$(imetric "$l on $k" sibling.memcg.pgscan)" 1 "    the hog's cgroup was reclaimed ($(imetric "$l on $k" sibling.memcg.pgscan) pages scanned)"
        ge "$(q "select count(*) from sample a join sample b on a.run_id = b.run_id and a.seq = b.seq join run r on r.id = a.run_id
                  where r.label = '$l on $k' and a.name = 'memcg.memory.current' and b.name = 'sibling.memcg.memory.current'")" 5 \
           "    both cgroups sampled in the same ticks"
        # Read one after the other, each CPU a charge batch ahead: 1M of slack.
        is "$(q "select count(*) from sample a join sample b on a.run_id = b.run_id and a.seq = b.seq join run r on r.id = a.run_id
                  where r.label = '$l on $k' and a.name = 'memcg.memory.current' and b.name = 'sibling.memcg.memory.current'
                  and a.value + b.value > $((97 << 20))")" 0 "    in no tick do the two together exceed the cap"
    done
    ge "$(imetric "prot-off on $k" memcg.pgscan)" 1 "  prot-off: without memory.low the workload is reclaimed too ($(imetric "prot-off on $k" memcg.pgscan) pages scanned)"
    ok "    and stalled on memory in its own cgroup ($(metric "prot-off on $k" memcg.psi_some_s) s of memory.pressure some)" \
       awk -v v="$(metric "prot-off on $k" memcg.psi_some_s)" 'BEGIN { exit !(v > 0) }'
    is "$(meta "prot-on on $k" cgroup.workload.memory.low) $(meta "prot-on on $k" cgroup.workload.memory.min)" "$((64 << 20)) $((24 << 20))" \
       "  prot-on: memory.low and memory.min (25% of the cap) as the kernel reads them back"
    ok "    with them, a tenth or less of that ($(imetric "prot-on on $k" memcg.pgscan) pages)" \
       test "$(( $(imetric "prot-on on $k" memcg.pgscan) * 10 ))" -le "$(imetric "prot-off on $k" memcg.pgscan)"
    is "$(imetric "prot-on on $k" memcg.low_events)" 0 "    protection not overcommitted: memory.events low stays 0"
    ok "    the hog still made progress ($(metric "prot-on on $k" sibling.passes) passes in the run)" \
       awk -v v="$(metric "prot-on on $k" sibling.passes)" 'BEGIN { exit !(v > 0) }'
    # Protection above what the cap can give: reclaimed below it, counted.
    is "$(meta "prot-over on $k" cgroup.workload.memory.low)" $((96 << 20)) "  prot-over: memory.low at 100% of the cap, read back"
    ge "$(imetric "prot-over on $k" memcg.low_events)" 1 "    overcommitted: memory.events low counts reclaim below it ($(imetric "prot-over on $k" memcg.low_events))"
    # MGLRU as this kernel has it: 6.1 builds it in and leaves it off.
    found=$([ "$(meta "v2-chat on $k" kconfig.CONFIG_LRU_GEN_ENABLED)" = y ] && echo 0x0007 || echo 0x0000)
    is "$(meta "lru-off on $k" set.lru_gen.enabled) $(meta "lru-off on $k" mglru.enabled)" "0x0000 (was $found) 0x0000" \
       "  lru-off: MGLRU off for the run (the kernel had $found), recorded"
    is "$(meta "lru-on on $k" set.lru_gen.enabled) $(meta "lru-on on $k" mglru.enabled)" "0x0007 (was $found) 0x0007" \
       "  lru-on: MGLRU on for the run, after lru-off's undo"
    is "$(meta "lru-on on $k" set.lru_gen.min_ttl_ms)" "1000 (was 0)" "    its min_ttl_ms set and read back"
    is "$(q "select group_concat(status) from run where label in ('lru-off on $k', 'lru-on on $k')")" ok,ok "    both runs ok"
    is "$(meta "state-after on $k" mglru.enabled) $(meta "state-after on $k" mglru.min_ttl_ms)" "$found 0" "  MGLRU as found after the last run"
    # zswap's controls: Debian's cloud kernels are built without zswap.
    if [ "$(meta "v2-chat on $k" kconfig.CONFIG_ZSWAP)" = y ]; then
        is "$(meta "zswap-ctl on $k" cgroup.run.memory.zswap.max) $(meta "zswap-ctl on $k" cgroup.run.memory.zswap.writeback)" \
           "$((24 << 20)) 0" "  zswap-ctl: memory.zswap.max (50% of 48M) and .writeback off, read back"
    else
        no_zswap=1
        like "$(q "select status || ': ' || reason from run where label = 'zswap-ctl on $k'")" \
             "^failed: environment: --zswap-max: this kernel has no zswap, so no memory.zswap.max \(/sys/module/zswap is missing; accepted: a kernel built with CONFIG_ZSWAP\)$" \
             "  zswap-ctl: a kernel without zswap refuses the run in its guest, with the reason"
    fi
    is "$(q "select group_concat(label) from run where status not in ('ok') and label like '% on $k'")" \
       "$([ $no_zswap = 1 ] && echo "zswap-ctl on $k")" "  no other run failed: the suite went on past it"
done
is "$rc" "$no_zswap" "the suite's exit status says a run failed ($rc)"
is "$(q "select group_concat(label) from (select r.label from run r join run_meta m on m.run_id = r.id and m.key = 'suite.seq'
         where r.label like '% on $k612' order by cast(m.value as int))")" \
   "$(sed -n 's/^\[\(.*\)\]$/\1 on '"$k612"'/p' prot.ini | grep -v '^global' | paste -sd,)" "the cells ran in the file's order"
is "$(cat "$PRESSMARK_DB".boots/*/guest.log 2>/dev/null | grep -a '^pm-state:' | tr '\n' '|')" \
   "pm-state: cg= sw= f=|pm-state: cg= sw= f=|pm-state: cg= sw= f=|pm-state: cg= sw= f=|" \
   "undo left nothing in either guest: no cgroup, swap or swap file before the runs or after them"
is "$(q "select count(*) from run_meta where key = 'env.undo_failed'")" 0 "no run's undoing failed"
is "$(machine_state)" "$before" "no VM, overlay, scratch or mount left"
done_testing
