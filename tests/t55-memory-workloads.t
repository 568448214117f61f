#!/bin/bash
# The memory workloads kernel test robots report on: usemem (vm-scalability),
# pagefault (will-it-scale's page_fault1/2/3), stutter (mmtests' stutterp)
# and filestream (page cache against anonymous memory). Exact counts where
# counts are exact; under a cap, real swap and a real memory cgroup.
. "$(dirname "$0")/lib.sh"
export PRESSMARK_CACHE="$TMP/cache"
have_cap=no
[ "$(id -u)" -eq 0 ] && memcg_hierarchy && have_cap=yes
page=$(getconf PAGESIZE)
before=$(machine_state)

# usemem: 2 processes x 2 threads, 32M each, 3 passes: every page, every pass.
"$PM" run usemem --quiet --size 32M --procs 2 --threads 2 --passes 3 --label um
is "$(q "select status from run where label = 'um'")" ok "usemem 2 procs x 2 threads: ok"
pages=$(( 32 * 1048576 / page ))
is "$(imetric um usemem.pages_touched)" $(( 4 * pages * 3 )) "  pages touched = 4 workers x $pages pages x 3 passes"
is "$(imetric um usemem.verified_pages)" $(( 4 * pages )) "  every page of every worker verified"
is "$(imetric um usemem.bad_pages)" 0 "  none wrong"
is "$(imetric um usemem.bytes)" $(( 4 * pages * 3 * page )) "  bytes = pages touched x page size"
ge "$(imetric um usemem.mb_per_s)" 1 "  MB/s in total ($(imetric um usemem.mb_per_s))"
ok "  per worker: min <= mean <= max" awk -v a="$(metric um usemem.worker_mb_per_s_min)" \
    -v b="$(metric um usemem.worker_mb_per_s_mean)" -v c="$(metric um usemem.worker_mb_per_s_max)" 'BEGIN { exit !(a > 0 && a <= b && b <= c) }'
"$PM" run usemem --quiet --size 16M --pattern rand --access read --passes 2 --label um-rr
is "$(imetric um-rr usemem.pages_touched)" $(( 2 * 16 * 1048576 / page )) "rand read: every page of the shuffled order, twice"
ge "$(imetric um-rr usemem.fill_mb_per_s)" 1 "  the untimed fill reported apart"
"$PM" run usemem --quiet --size 8M --access rw --duration 300ms --label um-rw
passes=$(imetric um-rw usemem.passes_min)
ge "$passes" 1 "rw for 300ms: whole passes ($passes)"
is "$(( $(imetric um-rw usemem.pages_touched) % (8 * 1048576 / page) ))" 0 "  pages touched a whole number of sweeps"
is "$(imetric um-rw usemem.bad_pages)" 0 "  and every word as the last pass left it"
PRESSMARK_TEST_USEMEM_CORRUPT_PAGE=5 "$PM" run usemem --quiet --size 8M --label um-bad
is "$?" 1 "a page that reads back wrong: exit 1"
like "$(q "select status || ': ' || reason from run where label = 'um-bad'")" \
    "^failed: 1 pages came back wrong \(first: worker 0 page 5 word 3 read 0x[0-9a-f]+, wrote 0x[0-9a-f]+\)" "  the run is failed, naming the page"
# Four workers of a quarter of memory and swap each, plus a GiB: more
# than this machine holds, whatever its size.
big=$(awk '/^(MemTotal|SwapTotal):/ { kb += $2 } END { printf "%d", kb / 1048576 / 4 + 1 }' /proc/meminfo)
# (in the unit pressmark prints sizes in: TiB from 1,024 GiB)
want=$(awk -v g="$((4 * big))" 'BEGIN { if (g >= 1024) printf "%.1f TiB", g / 1024; else printf "%.1f GiB", g }')
bad "usemem larger than memory and swap" "^pressmark run usemem: --size x --procs x --threads \(4 workers\): ${want//./\\.} is more than this machine can hold even with swap \([0-9.]+ (GiB|TiB): MemTotal \+ swap\)$" \
    run usemem --size "${big}G" --procs 4
bad "usemem with zero threads" "^pressmark run usemem: --threads: '0' is not a thread count \(accepted: a whole number from 1 to 4096\)$" \
    run usemem --threads 0
bad "usemem --duration without a unit" "^pressmark run usemem: --duration: '3' is not a duration \(accepted: a number with ns" \
    run usemem --duration 3

# pagefault: phases of --threads, pages touched a whole number of mappings.
"$PM" run pagefault --quiet --threads 1,2 --size 16M --duration 300ms --label pf
is "$(q "select group_concat(label || ':' || status, ' ') from (select label, status from run where label like 'pf/%' order by id)")" \
   "pf/t1:ok pf/t2:ok" "pagefault --threads 1,2: a phase each"
per=$(( 16 * 1048576 / page ))
for t in 1 2; do
    touched=$(imetric pf/t$t pagefault.pages_touched)
    is "$touched" $(( $(imetric pf/t$t pagefault.mappings) * per )) "  t$t: pages touched = mappings x $per ($touched)"
    ge "$(imetric pf/t$t pagefault.minor_faults)" "$touched" "  t$t: the kernel counted at least one fault per page touched"
    ge "$(imetric pf/t$t pagefault.faults_per_s)" 1 "  t$t: faults/s ($(imetric pf/t$t pagefault.faults_per_s))"
done
is "$(imetric pf/t2 pagefault.threads)" 2 "  the second phase ran 2 threads"
"$PM" run pagefault --quiet --mapping file-private --size 8M --duration 200ms --label pf-priv
touched=$(imetric pf-priv pagefault.pages_touched)
ge "$(imetric pf-priv pagefault.minor_faults)" "$touched" "file-private (page_fault2): a copy-on-write fault per page"
like "$(q "select value from run_meta join run on run.id = run_id where label = 'pf-priv' and key = 'pagefault.test'")" "^page_fault2$" "  named as will-it-scale names it"
"$PM" run pagefault --quiet --shared --size 8M --duration 200ms --label pf-shared
is "$(imetric pf-shared pagefault.pages_touched)" $(( $(imetric pf-shared pagefault.mappings) * 8 * 1048576 / page )) "--shared (page_fault3): pages touched = mappings x pages"
like "$(q "select params from run where label = 'pf-shared'")" "--mapping file-shared" "  stored as --mapping file-shared"
bad "pagefault with zero threads" "^pressmark run pagefault: --threads: '0' is not a thread count \(accepted: N from 1 to 4096, half, max" \
    run pagefault --threads 0
bad "pagefault --duration without a unit" "^pressmark run pagefault: --duration: '5' is not a duration" run pagefault --duration 5

# stutter: the probe's rounds are its latency samples.
"$PM" run stutter --quiet --hog 64M --probe-size 1M --duration 1s --label st-free
is "$(q "select status from run where label = 'st-free'")" ok "stutter with a 64M hog: ok"
rounds=$(imetric st-free stutter.rounds)
ge "$rounds" 10 "  the probe ran rounds ($rounds)"
is "$(imetric st-free stutter.latency_samples)" "$rounds" "  one latency per round"
is "$(q "select sum(count) from latency_hist join run on run.id = run_id where label = 'st-free' and name = 'stutter.latency'")" "$rounds" "  stored bucket by bucket"
ge "$(imetric st-free stutter.hog_sweeps)" 1 "  the hog swept its memory while the probe ran"
like "$("$PM" show st-free)" "stutter.latency +$rounds +[0-9.]+ +[0-9.]+ +[0-9.]+" "show prints the probe's percentiles"
bad "stutter without a cap or --hog" "^pressmark run stutter: --hog: give the hog's size, or a --mem-cap" run stutter
bad "stutter --hog beyond memory and swap" "^pressmark run stutter: --hog \+ --probe-size: [0-9.]+ GiB is more than this machine can hold" \
    run stutter --hog 100G

# filestream: bytes read exact, every block where it belongs.
"$PM" run filestream --quiet --file-size 32M --anon 8M --passes 2 --label fs
is "$(q "select status from run where label = 'fs'")" ok "filestream 32M file x 2 passes with an 8M set: ok"
is "$(imetric fs filestream.bytes_read)" $(( 2 * 32 * 1048576 )) "  bytes read = 2 x the file"
is "$(imetric fs filestream.bad_blocks)" 0 "  every block held its own offset"
ge "$(imetric fs filestream.anon_pages_touched)" 1 "  the working set was touched meanwhile"
file=$(ls "$PRESSMARK_CACHE"/filestream/*.dat)
ok "  the file is kept in the cache, private" test "$(stat -c %a "$(dirname "$file")")" = 700
printf '\x01' | dd of="$file" bs=1 seek=$(( 5 * 4096 )) conv=notrunc status=none
"$PM" run filestream --quiet --file-size 32M --anon 0 --label fs-bad
is "$?" 1 "a block holding another offset's data: exit 1"
like "$(q "select reason from run where label = 'fs-bad'")" "^1 blocks read held another offset's data \(first at byte 20480\); the cached file is removed" "  the run says where"
"$PM" run filestream --quiet --file-size 32M --anon 0 --label fs-again 2>"$TMP/fs.err"
is "$(q "select status from run where label = 'fs-again'")" ok "  and the next run writes the file afresh"
like "$(cat "$TMP/fs.err")" "writing a 32.0 MiB file once" "  saying so"
bad "filestream --block not a multiple of 4K" "^pressmark run filestream: --block: 5000 bytes is not a multiple of 4K \(accepted: " \
    run filestream --block 5000

if [ -n "${TSAN_OPTIONS:-}" ]; then
    for i in $(seq 16); do skip "ThreadSanitizer's shadow memory does not fit these caps (make tsan checks the workloads uncapped)"; done
elif [ "$have_cap" = yes ]; then
    # Under a cap: swap out and back in, every page checked after.
    "$PM" run usemem --quiet --size 96M --mem-cap 48M --swap 256M --label um-capped
    is "$(q "select status from run where label = 'um-capped'")" ok "usemem 96M under a 48M cap with swap: ok"
    ge "$(imetric um-capped swap.out_kb)" 1 "  swapped out ($(imetric um-capped swap.out_kb) KB)"
    ge "$(imetric um-capped swap.in_kb)" 1 "  and back in for the check ($(imetric um-capped swap.in_kb) KB)"
    is "$(imetric um-capped usemem.verified_pages)" $(( 96 * 1048576 / page )) "  every page verified after swap"
    is "$(imetric um-capped usemem.bad_pages)" 0 "  none wrong"
    # A worker process OOM-killed during its fill, before the start: the
    # others are let go (they would wait for it for ever), the run is oom.
    # (--swap-cap 0: a machine with swap, as a stock install has, would
    # otherwise let the cgroup swap.)
    "$PM" run usemem --quiet --size 64M --procs 2 --access read --mem-cap 48M --swap-cap 0 --timeout 60s --label um-oom
    is "$?" 1 "usemem killed before its start under a cap without swap: exit 1"
    like "$(q "select status || ': ' || reason from run where label = 'um-oom'")" "^oom: OOM killer: [12] kills? in the run's cgroup" "  the run is oom, not hung"
    # stutter: the probe's p99 under the cap against the uncapped run.
    "$PM" run stutter --quiet --mem-cap 64M --swap 256M --probe-size 1M --duration 1s --label st-capped
    is "$(q "select status from run where label = 'st-capped'")" ok "stutter under a 64M cap, the hog sized from it: ok"
    like "$(q "select params from run where label = 'st-capped'")" "--hog 128.0 MiB \(the cap plus a quarter\)" "  hog = cap + max(a quarter, 64M)"
    # What the cap did to the run, from its cgroup's counters, not from
    # the probe's latency against the uncapped run's (a machine's speed:
    # under TCG the capped median was the lower, 6,324 against 10,027 us).
    ge "$(imetric st-capped memcg.limit_hits)" 1 "  the run's cgroup hit the cap ($(imetric st-capped memcg.limit_hits) times)"
    ge "$(imetric st-capped memcg.pgmajfault)" 1 "  and faulted pages back in ($(imetric st-capped memcg.pgmajfault))"
    ge "$(imetric st-capped swap.out_kb)" 1 "  the hog swapped"
    # filestream under a cap: the cache is charged to the cgroup.
    # (64M: an AddressSanitizer build's own memory fits beside the set.)
    "$PM" run filestream --quiet --file-size 128M --anon 8M --mem-cap 64M --drop-caches --label fs-capped
    is "$(q "select status from run where label = 'fs-capped'")" ok "filestream 128M file under a 64M cap, caches dropped: ok"
    is "$(imetric fs-capped filestream.bytes_read)" $(( 128 * 1048576 )) "  bytes read exact"
    ok "  the cgroup held at most the cap" test "$(imetric fs-capped memcg.usage_max_bytes)" -le $(( 64 * 1048576 ))
    is "$(machine_state)" "$before" "nothing left behind"
else
    for i in $(seq 16); do skip "needs root and a memory cgroup controller"; done
fi
done_testing
