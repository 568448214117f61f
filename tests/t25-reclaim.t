#!/bin/bash
# Why a run was slow: reclaim's efficiency, its direct share and velocity,
# what came back (refaults), compaction and THP, derived from /proc/vmstat
# and the run's cgroup. A capped chat reclaims and refaults; the same chat
# uncapped on this 24 GiB machine reclaims nothing and refaults no anon page.
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
is "$(imetric uncapped vmstat.pgscan_total)" 0 "  scans nothing"
is "$(imetric uncapped vmstat.pgsteal_total)" 0 "  steals nothing"
# Refaults are system-wide: a file page some earlier test's pressure
# evicted may come back while this run goes on, but no anon page can
# (no swap is left), and nothing like the capped run's count.
is "$(imetric uncapped vmstat.workingset_refault_anon)" 0 "  refaults no anon page"
ok "  and far fewer pages than the capped run" test "$(imetric uncapped reclaim.refaults)" -lt "$(( $(imetric capped reclaim.refaults) / 10 ))"
is "$(q "select count(*) from metric m join run r on r.id = m.run_id where r.label = 'uncapped' and m.name = 'reclaim.efficiency_pct'")" 0 "  and has no efficiency (nothing was scanned)"
like "$("$PM" show uncapped)" "overall -; direct share of scanning -" "show: '-' where nothing was scanned"

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
