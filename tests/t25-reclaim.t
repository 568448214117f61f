#!/bin/bash
# Why a run was slow: reclaim's efficiency, its direct share and velocity,
# what came back (refaults), compaction and THP, derived from /proc/vmstat
# and the run's cgroup. A capped chat reclaims and refaults; the same chat
# uncapped on this 24 GiB machine has none of its own pages reclaimed.
. "$(dirname "$0")/lib.sh"
need_root
quiet_machine    # (the whole machine's memory is measured: no VM of t80's beside it)
cd "$TMP" || exit 1
before=$(machine_state)
chat="--rooms 2 --users 20 --messages 200 --heap 64M --interval 200ms --quiet"

"$PM" run chat $chat --mem-cap 128M --swap 512M --label capped > out 2>&1
is "$?" 0 "a capped chat run (two 64M heaps in 128M) exits 0"
ge "$(imetric capped vmstat.pgscan_total)" 1 "  reclaim scanned pages"
ge "$(imetric capped vmstat.pgsteal_total)" 1 "  and stole some"
ge "$(imetric capped reclaim.refaults)" 1 "  evicted pages that were needed came back (refaults)"
eff=$(imetric capped reclaim.efficiency_pct)
ok "  efficiency is a percentage (got $eff)" test "$eff" -ge 1 -a "$eff" -le 100
is "$(q "select round(value, 6) from metric m join run r on r.id = m.run_id where r.label = 'capped' and m.name = 'reclaim.efficiency_pct'")" \
   "$(q "select round(100.0 * s.value / c.value, 6) from metric s join metric c on c.run_id = s.run_id join run r on r.id = s.run_id where r.label = 'capped' and s.name = 'vmstat.pgsteal_total' and c.name = 'vmstat.pgscan_total'")" \
   "  efficiency = stolen / scanned, exactly"
is "$(q "select round(value, 6) from metric m join run r on r.id = m.run_id where r.label = 'capped' and m.name = 'reclaim.scan_velocity'")" \
   "$(q "select round(s.value / e.value, 6) from metric s join metric e on e.run_id = s.run_id join run r on r.id = s.run_id where r.label = 'capped' and s.name = 'vmstat.pgscan_total' and e.name = 'time.elapsed_s'")" \
   "  scan velocity = scanned / elapsed"
# The monitors of the same run: the swap file's disk, the largest process,
# fragmentation and the watermarks, each run's sources listed.
ge "$(imetric capped swapdev.reads)" 1 "  the swap device read pages back (diskstats of the swap file's disk)"
ge "$(imetric capped swapdev.write_kb)" 1 "  and wrote them out"
ge "$(imetric capped procs.rss_max_kb)" 20000 "  the largest process held tens of MB (procs, top 5 by RSS)"
ge "$(imetric capped procs.swap_max_kb)" 1 "  and had some of it swapped out"
is "$(q "select count(*) from metric m join run r on r.id = m.run_id where r.label = 'capped' and m.name in
      ('frag.unusable_o9_max_pct', 'zone.below_low_max_pages', 'zone.below_min_max_pages')")" 3 "  fragmentation and watermark metrics"
is "$(q "select count(distinct name) from tick_series s join run r on r.id = s.run_id where r.label = 'capped' and s.name like 'procs.top_.rss_kb'")" 5 \
   "  five largest processes sampled each tick"
show=$("$PM" show capped)
like "$show" "reclaim efficiency \(stolen/scanned\): kswapd [-0-9.%]+, direct [-0-9.%]+, overall [0-9.]+%; direct share of scanning [-0-9.%]+; scan velocity [0-9]+ pages/s" "show: the reclaim efficiency line"
like "$show" "came back: refaults [1-9][0-9]* pages \(anon [0-9]+, file [0-9]+; activated" "show: the refaults line"
like "$show" "compaction stalls [0-9]+ \(failed [0-9]+, succeeded [0-9]+\); THP faults [0-9]+, fallbacks [0-9]+; swap readahead" "show: compaction, THP and swap readahead"
like "$show" "swap devices: [1-9][0-9]* reads \([0-9]+ KB\), [0-9]+ writes \([0-9]+ KB\), await [0-9.]+ ms per request" "show: the swap devices' I/O"
like "$show" "largest process: [1-9][0-9]* KB RSS at most" "show: the largest process"
like "$show" "collected: stat vmstat meminfo psi memcg heartbeat buddyinfo zoneinfo diskstats procs" "show: the sources collected"

"$PM" record --quiet --label fewer --collect "-buddyinfo,-zoneinfo -procs" -- true
is "$?" 0 "--collect switches sources off (words separated by commas or spaces)"
is "$(q "select count(*) from tick_series s join run r on r.id = s.run_id where r.label = 'fewer' and (s.name like 'buddyinfo.%' or s.name like 'zoneinfo.%' or s.name like 'procs.%')")" 0 \
   "  none of their series is stored"
like "$("$PM" show fewer)" "switched off: buddyinfo zoneinfo procs" "  and show says which"
before_db=$(db_sum)
"$PM" record --quiet --label bad --collect -buddy -- true 2>"$TMP/err"
is "$?" 2 "--collect with a word that is no source exits 2"
like "$(cat "$TMP/err")" "^pressmark record: --collect: '-buddy' is not a source \(accepted: .*buddyinfo, zoneinfo, diskstats, procs, mthp, workload\)$" "  one line naming the word and what is accepted"
is "$(db_sum)" "$before_db" "  and nothing was written"
"$PM" record --quiet --label bad --collect "-procs," -- true 2>"$TMP/err"
is "$?" 2 "--collect ending in a comma exits 2"
like "$(cat "$TMP/err")" "--collect: '' is not a source" "  naming the empty word"

"$PM" run chat $chat --label uncapped > out 2>&1
is "$?" 0 "the same chat uncapped"
# What the run itself did is its cgroup's: /proc/vmstat is the machine's,
# and moves with whatever runs beside it (other lanes' tests allocate, the
# page cache grows and kswapd scans it).
# (A file page the capped run's cap evicted may come back in this run,
# and count in its cgroup; an anon page of its own cannot.)
memcg_hierarchy
is "$(imetric uncapped memcg.limit_hits) $(q "select value from sample s join run r on r.id = s.run_id where r.label = 'uncapped'
      and s.name = 'memcg.memory.stat.workingset_refault_anon' order by s.seq desc limit 1")" "0 0" \
   "  its cgroup: no limit hit, none of its anon pages came back"
ok "  where the capped run's cgroup hit its limit and had its own pages back ($(imetric capped memcg.limit_hits) hits, $(imetric capped memcg.refaults) refaults, $(imetric capped memcg.pgmajfault) major faults)" \
   test "$(imetric capped memcg.limit_hits)" -ge 1 -a "$(imetric capped memcg.refaults)" -ge 1 -a "$(imetric capped memcg.pgmajfault)" -ge 1
if [ "$CG_VERSION" = 2 ]; then
    is "$(imetric uncapped memcg.pgscan) $(imetric uncapped memcg.pgsteal)" "0 0" "  its cgroup's reclaim scanned and stole nothing"
    ok "  where the capped run's scanned ($(imetric capped memcg.pgscan) pages)" test "$(imetric capped memcg.pgscan)" -ge 1
else
    skip "  its cgroup's reclaim scanned nothing: cgroup v1's memory.stat counts no reclaim of a cgroup's own"
    skip "  where the capped run's scanned: cgroup v1's memory.stat counts no reclaim of a cgroup's own"
fi
# Efficiency is of what the machine's reclaim scanned: there exactly when
# it scanned (unit_derive holds that nothing scanned makes none).
scan=$(imetric uncapped vmstat.pgscan_total)
is "$(q "select count(*) from metric m join run r on r.id = m.run_id where r.label = 'uncapped' and m.name = 'reclaim.efficiency_pct'")" \
   "$([ "${scan:-0}" -gt 0 ] && echo 1 || echo 0)" "  an efficiency exactly where the machine's reclaim scanned ($scan pages)"
# show's '-': the run as a machine that scanned nothing stores it.
sqlite3 "$PRESSMARK_DB" ".backup noscan.db"
sqlite3 noscan.db "delete from metric where run_id = (select id from run where label = 'uncapped') and name in
    ('reclaim.efficiency_pct', 'reclaim.kswapd_efficiency_pct', 'reclaim.direct_efficiency_pct', 'reclaim.direct_scan_pct')"
like "$("$PM" --db noscan.db show uncapped)" "kswapd -, direct -, overall -; direct share of scanning -" "show: '-' where nothing was scanned"

out=$("$PM" compare --long capped uncapped)
like "$out" "reclaim.refaults" "compare --long carries the reclaim metrics"
like "$out" "reclaim.scan_velocity" "  the scan velocity too"
# The reclaim chart: per tick, pages scanned and stolen per second and
# refaults per second; their sum over the run is the run's total.
"$PM" plot capped uncapped --out "$TMP/charts" > /dev/null
is "$?" 0 "plot draws the reclaim chart"
dat="$TMP/charts/chat-reclaim.dat"
ok "  chat-reclaim.png drawn" test -s "$TMP/charts/chat-reclaim.png"
peak=$(awk '!/^#/ && NF > 1 && $2 != "NaN" && $2 > m { m = $2 } END { print m + 0 }' "$dat")
ok "  the capped line has a positive scan rate (peak $peak pages/s)" awk -v p="$peak" 'BEGIN { exit !(p > 0) }'
is "$(machine_state)" "$before" "machine as it was"
done_testing
