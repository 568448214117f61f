#!/bin/bash
# --trace-reclaim: reclaim and compaction stall latencies from a trace
# instance's binary buffers. A capped chat stalls in memcg reclaim (the
# cap on cgroup v1 or v2 drives it); the totals are checked against a
# second, independent reading: a trace instance of the test's own, read as
# text from trace_pipe, paired in awk. tracefs, mounted by pressmark when
# it is not, and its instance are gone after ok runs, SIGINT and SIGKILL.
. "$(dirname "$0")/lib.sh"
need_root
[ -d /sys/kernel/tracing ] || skip_all "no /sys/kernel/tracing (a kernel without tracefs)"
cd "$TMP" || exit 1
before=$(machine_state)
chat="--rooms 2 --users 20 --messages 200 --heap 64M --interval 200ms --quiet"
pre_mounted=$(awk '$3 == "tracefs"' /proc/mounts | wc -l)

# 1. The independent reader: the test's own instance, read as text from
# its trace_pipe once the run is over (a reader blocked on trace_pipe
# during the run would be woken at every event, and that wake-up delays the
# second instance's time stamps by some 20 us). It traces this script and
# every process it starts, pressmark among them, as pressmark traces itself
# and its workload. A kernel thread may reclaim on the capped cgroup's
# behalf (on cgroup v2, socket memory charged in softirq is reclaimed later
# by a kworker; khugepaged charges the pages it collapses): no task of the
# run waits in that stall, and pressmark does not count it. Traced
# machine-wide, a v2 guest's text held one pair more than the run's stalls
# (155 against 154).
T=/sys/kernel/tracing
mounted_here=0
if [ ! -d $T/instances ]; then mount -t tracefs nodev $T && mounted_here=1; fi
I=$T/instances/t26-$$
mkdir $I
echo mono > $I/trace_clock
echo 8192 > $I/buffer_size_kb
echo 1 > $I/options/event-fork
echo $$ > $I/set_event_pid
echo 1 > $I/events/vmscan/mm_vmscan_memcg_reclaim_begin/enable
echo 1 > $I/events/vmscan/mm_vmscan_memcg_reclaim_end/enable
"$PM" run chat $chat --mem-cap 128M --swap 512M --label capped --trace-reclaim > out 2>&1
is "$?" 0 "a capped chat with --trace-reclaim exits 0"
echo 0 > $I/tracing_on
dd if=$I/trace_pipe of="$TMP/pipe.txt" iflag=nonblock status=none 2>/dev/null
text_lost=$(awk '/^overrun:|^dropped events:/ { s += $NF } END { print s + 0 }' $I/per_cpu/cpu*/stats)
rmdir $I
[ $mounted_here = 1 ] && umount $T
is "$text_lost" 0 "  the text reader lost no event either"

count=$(imetric capped stall.memcg.count)
ge "$count" 10 "  memcg reclaim stalls were traced ($count)"
is "$(imetric capped stall.lost_events)" 0 "  no event was lost"
# The same pairing in awk: a task's stall runs from its outermost begin to
# the end that closes it (memcg reclaim can be entered again from inside).
read -r tcount ttotal tnested < <(awk '
    / mm_vmscan_memcg_reclaim_(begin|end):/ {
        if (!match($0, /-[0-9]+ +\[[0-9]+\]/)) next
        s = substr($0, RSTART + 1, RLENGTH - 1); split(s, a, / +/); pid = a[1]
        for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { ts = substr($i, 1, length($i) - 1); break }
        if ($0 ~ /_begin:/) { if (depth[pid] > 0 || pid in start) { depth[pid]++; nested++ } else start[pid] = ts }
        else if (depth[pid] > 0) depth[pid]--
        else if (pid in start) { n++; total += ts - start[pid]; delete start[pid] }
    }
    END { printf "%d %.6f %d\n", n, total * 1000, nested }' "$TMP/pipe.txt")
is "$count" "$tcount" "  the same count as the text of trace_pipe, paired in awk"
is "$(imetric capped stall.nested)" "$tnested" "  and the same nested reclaims ($tnested)"
total=$(q "select value from metric m join run r on r.id = m.run_id where r.label = 'capped' and m.name = 'stall.memcg.total_ms'")
ok "  total stall time $total ms within 0.5% of the text's $ttotal ms (microseconds, its own time stamps)" \
   awk -v a="$total" -v b="$ttotal" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= b * 0.005) }'
p50=$(q "select value from metric m join run r on r.id = m.run_id where r.label = 'capped' and m.name = 'stall.memcg.p50_us'")
p99=$(q "select value from metric m join run r on r.id = m.run_id where r.label = 'capped' and m.name = 'stall.memcg.p99_us'")
mx=$(q "select value from metric m join run r on r.id = m.run_id where r.label = 'capped' and m.name = 'stall.memcg.max_us'")
ok "  p50 <= p99 <= max ($p50, $p99, $mx us)" awk -v a="$p50" -v b="$p99" -v c="$mx" 'BEGIN { exit !(a > 0 && a <= b && b <= c) }'
is "$(q "select sum(count) from latency_hist h join run r on r.id = h.run_id where r.label = 'capped' and h.name = 'stall.memcg'")" "$count" \
   "  the stored histogram's buckets hold every stall"
is "$(q "select count(*) from latency_hist where hi < lo or lo < 0")" 0 "  buckets are ranges [lo, hi]"
is "$(q "select value from run_meta m join run r on r.id = m.run_id where r.label = 'capped' and key = 'trace.clock'")" mono "  the trace clock is recorded (mono)"

show=$("$PM" show capped)
like "$show" "reclaim stalls \(traced\)" "show prints the stall section"
like "$show" "memcg +$count +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+" "  a row for memcg reclaim with count, total and percentiles"
like "$show" "lost events 0" "  and says how many events were lost"

# 2. Uncapped: no memcg stall, and tracefs is left as it was found.
"$PM" run chat $chat --label uncapped --trace-reclaim > out 2>&1
is "$?" 0 "the same chat uncapped, traced"
is "$(imetric uncapped stall.memcg.count)" 0 "  no memcg reclaim stall"
# Direct reclaim is the machine's business (none on a roomy idle machine,
# some on a small busy one); its traced stalls are among the entries
# vmstat counted during the run, never more.
d=$(imetric uncapped stall.direct.count); as=$(imetric uncapped vmstat.allocstall)
ok "  its direct reclaim stalls ($d) are no more than vmstat's entries into direct reclaim ($as)" test "$d" -le "$as"
is "$(awk '$3 == "tracefs"' /proc/mounts | wc -l)" "$pre_mounted" "  tracefs mounted only while the run traced"
"$PM" plot capped uncapped --out "$TMP/charts" > /dev/null
is "$?" 0 "plot draws the stall latency chart"
ok "  chat-stalls.png drawn" test -s "$TMP/charts/chat-stalls.png"
is "$(awk '/^# memcg: capped/ { on = 1; next } /^#/ { on = 0 } on && NF == 2 { last = $2 } END { print last }' "$TMP/charts/chat-stalls.dat")" \
   "100.0000" "  the capped label's memcg CDF reaches 100%"
out=$("$PM" compare capped uncapped --long)
like "$out" "stall.memcg.count" "compare --long carries the stall counts"

# 3. SIGINT and SIGKILL mid-run: no instance, no mount left.
"$PM" record --quiet --label sigint --trace-reclaim -- sleep 30 &
pid=$!
ok "a traced run's instance appears" wait_for sh -c 'ls -d /sys/kernel/tracing/instances/pressmark-* >/dev/null 2>&1'
kill -INT $pid; wait $pid
is "$?" 130 "SIGINT: exit 130"
is "$(machine_state)" "$before" "  no trace instance, no tracefs mount left"
"$PM" record --quiet --label sigkill --trace-reclaim -- sleep 30 &
pid=$!
ok "a traced run's instance appears" wait_for sh -c 'ls -d /sys/kernel/tracing/instances/pressmark-* >/dev/null 2>&1'
kill -KILL $pid; wait $pid 2>/dev/null
pkill -KILL -x -f 'sleep 30'
ok "SIGKILL leaves the instance behind" sh -c 'ls -d /sys/kernel/tracing/instances/pressmark-* >/dev/null 2>&1'
"$PM" record --quiet --label after -- true 2>"$TMP/err"
like "$(cat "$TMP/err")" "removed trace instance /sys/kernel/tracing/instances/pressmark-$pid" "the next invocation removes it"
is "$(machine_state)" "$before" "  and the machine is as it was"
done_testing
