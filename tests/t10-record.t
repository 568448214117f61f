#!/bin/bash
# pressmark record: a real command under the samplers, and what the database then holds.
. "$(dirname "$0")/lib.sh"
quiet_machine    # (its bytes per tick are measured: no VM of t80's beside it)

t0=$(date +%s%N)
out=$("$PM" record --interval 100ms --label demo -- sh -c 'sleep 1.2' 2>"$TMP/err")
rc=$?
outer_ns=$(( $(date +%s%N) - t0 ))
is "$rc" 0 "record of a successful command exits 0"
like "$(cat "$TMP/err")" "run 1 \[demo\] ok" "a line per run on stderr"
is "$(q "select status from run")" ok "the run is stored as ok"
is "$(q "select label || ' ' || workload from run")" "demo record" "label and workload stored"
is "$(q "select params from run")" "sh -c 'sleep 1.2'" "the command is stored re-runnable, quoted"
ticks=$(q "select count(*) from tick where run_id = 1")
last_ns=$(q "select max(t_ns) from tick where run_id = 1")
# Each 100 ms deadline up to the last tick was either sampled or counted as
# missed, whatever the machine's speed: ticks + missed = deadlines + the
# first and the final tick (the deadline due as the run ended may have been
# passed by the final tick instead: one less then).
acct=$(( ticks + $(imetric 1 sampler.missed_ticks) - last_ns / 100000000 ))
ok "every 100 ms deadline is a tick or a missed tick ($ticks ticks, last at $last_ns ns: $acct more than the deadlines)" \
   test "$acct" -eq 2 -o "$acct" -eq 1
is "$(imetric 1 sampler.ticks)" "$ticks" "sampler.ticks counts the ticks stored"
ge "$last_ns" 1200000000 "the final tick is at the run's end (the command slept 1.2 s)"
for src in stat.cpu.user vmstat.pswpout meminfo.MemFree psi.memory.some.total psi.io.full.total heartbeat.late_max_us; do
    n=$(q "select count(*) from sample where run_id = 1 and name = '$src'")
    is "$n" "$ticks" "every tick has $src"
done
per_tick=$(q "select count(*) from sample where run_id = 1 and seq = 0")
ge "$per_tick" 250 "a tick stores every vmstat and meminfo key (>= 250 values)"
# (In a fresh clone's ./run.sh test, twice in December 2026, two of 394
# series had no value in the first tick; never reproduced alone, even
# under stress-ng. Which ones is printed, until it is understood: at most
# two may come a tick late.)
late=$(q "select group_concat(name, ' ') from tick_series ts where run_id = 1 and not exists
          (select 1 from sample s where s.run_id = 1 and s.seq = 0 and s.name = ts.name)")
[ -z "$late" ] || diag "# series without a value in the first tick: $late"
ok "the first tick holds a value for every series of the run (but for at most two: ${late:-none})" \
   test "$(q "select count(*) from tick_series where run_id = 1")" -le "$(( $(q "select count(*) from sample where run_id = 1 and seq = 0") + 2 ))"
# A finished run's ticks are all in blocks (none left open), each block's
# pieces within a b-tree page, and a constant series costs one piece a
# block, not a value a tick.
is "$(q "select count(*) from tick_open where run_id = 1")" 0 "a finished run leaves no open ticks"
is "$(q "select sum(n) from tick_block where run_id = 1")" "$ticks" "its blocks hold every tick"
is "$(q "select count(*) from tick_piece p join tick_series s on s.run_id = p.run_id and s.idx = p.idx
         where p.run_id = 1 and s.name = 'meminfo.MemTotal' and (p.vals is not null or p.runs is not null)")" 0 \
   "a series that never changes (MemTotal) is a constant in every block"
per=$(q "select (select sum(length(coalesce(vals, runs, '')) + 24) from tick_piece where run_id = 1) / count(*) from tick where run_id = 1")
ok "ticks take $per bytes each in pieces (at most 400 at 100 ms on a quiet machine)" awk -v b="$per" 'BEGIN { exit !(b > 0 && b <= 400) }'
# The view and pressmark's own reader (what plot, report, push and export
# read) agree on every series at every tick of the run, value for value,
# and on which ticks each series has: read apart, compared in Python.
"$PM" export 1 --format csv --out "$TMP/run1.csv"
same=$(python3 - "$PRESSMARK_DB" "$TMP/run1.csv" <<'PY'
import csv, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
view = {(n, s): (t, v) for n, s, t, v in db.execute("select name, seq, t_ns, value from sample where run_id = 1")}
rows = list(csv.DictReader(open(sys.argv[2])))
read = {(r["name"], int(r["seq"])): (int(r["t_ns"]), float(r["value"]) if "." in r["value"] else int(r["value"]))
        for r in rows}
diff = [k for k in view.keys() | read.keys() if view.get(k) != read.get(k)]
print(len(view), len(rows), len(diff))
PY
)
read -r nview nread ndiff <<< "$same"
is "$ndiff" 0 "the sample view and pressmark's reader agree on all $nview values of the run ($nread read)"
is "$nview" "$nread" "  and on how many there are"
is "$(q "select value from sample where run_id = 1 and seq = 0 and name = 'meminfo.MemTotal'")" "$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)" \
   "the sample view gives raw values back by name (MemTotal in kB)"
is "$(q "select count(*) from tick t1 join tick t2 on t2.run_id = t1.run_id and t2.seq = t1.seq + 1 where t1.run_id = 1 and t2.t_ns <= t1.t_ns")" 0 \
   "tick times strictly increase"
# On the grid: no tick but the final one before its deadline (the k-th
# is at k x 100 ms or later), and no two of them in one 100 ms slot.
is "$(q "select count(*) from tick where run_id = 1 and seq < $ticks - 1 and t_ns < seq * 100000000")" 0 \
   "no tick is taken before its deadline (the final one is taken at the end)"
is "$(q "select count(*) from tick t1 join tick t2 on t2.run_id = t1.run_id and t2.seq = t1.seq + 1
         where t1.run_id = 1 and t2.seq < $ticks - 1 and t2.t_ns / 100000000 <= t1.t_ns / 100000000")" 0 \
   "ticks follow the 100 ms grid: one per slot"
el=$(q "select value from metric where run_id = 1 and name = 'time.elapsed_s'")
ok "elapsed is the command's time: at least its 1.2 s, at most pressmark's whole life ($el s, $outer_ns ns)" \
   awk -v e="$el" -v o="$outer_ns" 'BEGIN { exit !(e >= 1.2 && e * 1e9 <= o) }'
for mname in time.user_s time.sys_s time.cpu_pct time.majflt time.minflt time.nvcsw time.nivcsw \
             stat.cpu.util_pct stat.cpu.user_pct stat.cpu.system_pct stat.cpu.iowait_pct \
             swap.in_kb swap.out_kb swap.io_kb vmstat.pgmajfault vmstat.pgscan_kswapd vmstat.pgscan_direct \
             vmstat.pgsteal_kswapd vmstat.pgsteal_direct vmstat.allocstall vmstat.oom_kill \
             psi.memory.some_s psi.memory.full_s heartbeat.late_p50_ms heartbeat.late_p99_ms \
             heartbeat.late_max_ms heartbeat.skipped; do
    is "$(q "select count(*) from metric where run_id = 1 and name = '$mname'")" 1 "metric $mname stored"
done
is "$(q "select unit || ' ' || direction from metric where run_id = 1 and name = 'swap.out_kb'")" "KB lower" "units and direction stored"
is "$(imetric 1 sampler.store_deferred)" 0 "with no other writer, the sampler's ticks never waited"
# The heartbeat's 100 ms: each period of the run is a beat or a skipped
# beat (within one at either end, as it starts and stops beside the sampler).
beats=$(( $(imetric 1 heartbeat.beats) + $(imetric 1 heartbeat.skipped) ))
ok "heartbeat: beats + skipped beats = the run's 100 ms periods ($beats; last tick $last_ns ns, pressmark's life $outer_ns ns)" \
   awk -v b="$beats" -v p="$(( last_ns / 100000000 ))" -v o="$(( outer_ns / 100000000 ))" 'BEGIN { exit !(b >= p - 1 && b <= o && b > 0) }'
is "$(q "select value from run_meta where run_id = 1 and key = 'sysctl.vm.swappiness'")" "$(cat /proc/sys/vm/swappiness)" \
   "vm sysctls stored in the run's metadata"
is "$(q "select value from run_meta where run_id = 1 and key = 'thp.enabled'")" \
   "$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled)" "THP mode stored"
is "$(q "select count(*) from run_meta where run_id = 1 and key = 'swap.devices'")" 1 "swap devices stored"
is "$(q "select count(*) from machine")" 1 "the machine is stored once"
is "$(q "select kernel from machine")" "$(uname -r)" "machine kernel is uname -r"
is "$(q "select page_size from machine")" "$(getconf PAGESIZE)" "page size stored"

# A failing command is a failed run with the reason, and a non-zero exit.
"$PM" record --quiet -- sh -c 'exit 3'
is "$?" 1 "record of a failing command exits 1"
is "$(q "select status || ': ' || reason from run where id = 2")" "failed: sh exited with status 3" "failed run keeps the reason"

# Repeated runs are all kept, and the label defaults to uname -r.
"$PM" record --quiet --runs 3 -- true
is "$(q "select count(*) from run where params = 'true' and label = '$(uname -r)'")" 3 "--runs 3 stores three runs under uname -r"

# A command killed by a signal is failed, with the signal named.
"$PM" record --quiet -- sh -c 'kill -KILL $$'
is "$(q "select reason from run where id = 6")" "sh was killed by SIGKILL" "a signal death names the signal"

# --timeout ends a run that takes too long.
"$PM" record --quiet --timeout 300ms -- sleep 30
is "$?" 1 "a timed-out run exits 1"
like "$(q "select status || ': ' || reason from run where id = 7")" "^failed: sleep did not finish within the timeout of 0.3 s" "timeout is a failed run"

# SIGINT mid-run: the run ends aborted, pressmark exits 130.
"$PM" record --quiet --interval 100ms -- sleep 31.5 2> "$TMP/int.err" &
pid=$!
ok "the workload runs" wait_for pgrep -f '^sleep 31.5$'
kill -INT $pid
wait $pid
is "$?" 130 "SIGINT ends pressmark with 130"
is "$(cat "$TMP/int.err")" "pressmark: interrupted by SIGINT; environment restored" "  saying so, in one line"
is "$(q "select status || ': ' || reason from run where id = 8")" "aborted: interrupted by INT" "the interrupted run is aborted"
ok "the interrupted workload is gone" wait_for sh -c '! pgrep -f "^sleep 31.5$" >/dev/null'
ge "$(q "select count(*) from tick where run_id = 8")" 2 "an aborted run keeps its samples (the first and the final)"
is "$(q "select count(*) from tick where run_id = 8")" "$(imetric 8 sampler.ticks)" "  every one it took"

# A concurrent writer (a merge, say) holding the database for 1.5 s: the
# sampler does not wait for it; its ticks wait in memory and are written
# once the database is free, and it goes on sampling to the end of the run.
"$PM" record --quiet --label busy --interval 100ms -- sleep 3 &
pid=$!
wait_for sh -c "[ \"\$(sqlite3 '$PRESSMARK_DB' \"select count(*) from run where label = 'busy'\")\" = 1 ]"
python3 -c 'import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], timeout=10, isolation_level=None)
c.execute("BEGIN IMMEDIATE"); time.sleep(1.5); c.execute("COMMIT")' "$PRESSMARK_DB"
wait $pid
is "$?" 0 "a run while another writer held the database for 1.5 s ends ok"
busy=$(q "select id from run where label = 'busy'")
ge "$(q "select max(t_ns) from tick where run_id = $busy")" "$(q "select cast(value * 1e9 as int) from metric where run_id = $busy and name = 'time.elapsed_s'")" \
   "its sampler went on to the run's end (the last tick after the command's elapsed time)"
is "$(q "select max(seq) + 1 = count(*) from tick where run_id = $busy")" 1 "every tick it took is stored"
ge "$(imetric $busy sampler.store_deferred)" 1 "its ticks waited in memory while the database was held"
is "$(imetric $busy sampler.ticks)" "$(q "select count(*) from tick where run_id = $busy")" "and all of them were written after"

# A full disk mid-run: the run fails with the reason, the ticks taken are
# kept, its end (status, metrics) is still written, in the room of a
# reserve held for it on the database's filesystem (a file without a name).
if [ "$(id -u)" -eq 0 ]; then
    mkdir -p "$TMP/small"
    mount -t tmpfs -o size=600k tmpfs "$TMP/small" && cleanup_add umount -l "$TMP/small"
    SMALL="$TMP/small/r.db"
    PRESSMARK_DB=$SMALL "$PM" record --quiet --label first -- true
    # The disk fills while the run samples: once its first tick is stored,
    # everything left is taken.
    PRESSMARK_DB=$SMALL "$PM" record --quiet --label full --interval 10ms -- sleep 3 2>"$TMP/full.err" &
    fullpid=$!
    wait_for sh -c "[ \"\$(sqlite3 '$SMALL' \"select count(*) from tick t join run r on r.id = t.run_id where r.label = 'full'\" 2>/dev/null)\" -ge 1 ]"
    dd if=/dev/zero of="$TMP/small/fill" bs=1k 2>/dev/null
    wait $fullpid
    is "$?" 1 "a run that fills the database's filesystem ends with exit 1 (the run failed)"
    reason=$(sqlite3 "$SMALL" "select status || ': ' || reason from run where label = 'full'")
    like "$reason" "^failed: the filesystem of $SMALL is full: sampling stopped after [0-9]+ ticks, of which the first [0-9]+ are kept$" "stored as failed, saying why"
    n=$(printf '%s' "$reason" | sed -E 's/.* the first ([0-9]+) are kept.*/\1/')
    ge "$n" 1 "some ticks were kept from before the disk filled"
    is "$(sqlite3 "$SMALL" "select count(*) from tick t join run r on r.id = t.run_id where r.label = 'full'")" "$n" "and exactly those are kept"
    ge "$(sqlite3 "$SMALL" "select count(*) from metric m join run r on r.id = m.run_id where r.label = 'full'")" 20 "its metrics are stored"
    is "$(ls -A "$TMP/small" | grep -c "reserve\|unstored\|#")" 0 "no reserve or kept record is left beside the database"
    umount "$TMP/small"
else
    skip "a full filesystem needs a tmpfs mount (root)"
fi

# SIGKILL mid-run: list and show say aborted at once, before any run records it.
"$PM" record --quiet --label killed --interval 100ms -- sleep 32.5 &
pid=$!
ok "the run is stored as running" wait_for sh -c "[ \"\$(sqlite3 '$PRESSMARK_DB' \"select status from run where label = 'killed'\")\" = running ]"
like "$("$PM" list --label killed)" " killed +record +running" "while its pressmark lives, list says running"
kill -KILL $pid; wait $pid 2>/dev/null
pkill -KILL -f '^sleep 32.5$'
like "$("$PM" list --label killed)" " killed +record +aborted .*pressmark is gone: it was killed during this run" "then list says aborted, and why"
like "$("$PM" show killed)" "aborted" "and show"
is "$(q "select status from run where label = 'killed'")" running "the database itself is left to the next run"
"$PM" record --quiet -- true 2>/dev/null
is "$(q "select status from run where label = 'killed'")" aborted "which records it"

# --no-sample: the observer's baseline. No sampler, heartbeat or source:
# no tick, no derived counter, wait4's figures kept.
"$PM" record --quiet --label unobserved --no-sample -- sh -c 'sleep 0.3'
is "$?" 0 "--no-sample records a run"
is "$(q "select count(*) from tick t join run r on r.id = t.run_id where r.label = 'unobserved'")" 0 "  with no tick"
is "$(q "select count(*) from run_source s join run r on r.id = s.run_id where r.label = 'unobserved'")" 0 "  no source"
is "$(q "select count(*) from metric m join run r on r.id = m.run_id where r.label = 'unobserved' and (m.name like 'vmstat.%' or m.name like 'heartbeat.%' or m.name like 'sampler.%')")" 0 \
   "  no derived counter, heartbeat or sampler figure"
ok "  wait4's elapsed time is there" test "$(q "select count(*) from metric m join run r on r.id = m.run_id where r.label = 'unobserved' and m.name = 'time.elapsed_s'")" = 1
like "$("$PM" show unobserved)" "sampler off \(--no-sample\): no samples, heartbeat or derived counters" "  and show says why"

# A database of schema 4 (ticks as JSON arrays of every value, written by
# the pressmark of before) is migrated when a run writes to it: the sample
# view gives back the very values it gave before, tick for tick.
old="$TMP/schema4.db"
cp "$(dirname "$0")/fixtures/results-schema4.db" "$old"
view="select run_id || '|' || seq || '|' || name || '|' || value from sample order by run_id, seq, name"
# Schema 4 printed PSI's averages of 0.00 as 0: compare numbers, not spellings.
norm() { sed -E 's/\|([0-9-]+)\.0$/|\1/'; }
sqlite3 -batch "$old" "$view" | norm > "$TMP/before.txt"
ge "$(wc -l < "$TMP/before.txt")" 3000 "the schema-4 fixture's sample view has its rows"
PRESSMARK_DB="$old" "$PM" list > "$TMP/list4.txt" 2>&1
is "$?" 0 "list reads a schema-4 database (through a migrated copy)"
is "$(sqlite3 -batch "$old" "pragma user_version")" 4 "  without changing it"
PRESSMARK_DB="$old" "$PM" record --quiet --label after -- true
is "$?" 0 "a run writes to the schema-4 database"
schema=$(awk '/define PM_SCHEMA_VERSION/ { print $3 }' "$(dirname "$0")/../store/schema.h")
is "$(sqlite3 -batch "$old" "pragma user_version")" "$schema" "  which migrates it to the current schema ($schema)"
sqlite3 -batch "$old" "$view" | norm | awk -F'|' '$1 <= 2' > "$TMP/after.txt"
ok "  its old runs' samples are the same, value for value ($(wc -l < "$TMP/after.txt") rows)" cmp -s "$TMP/before.txt" "$TMP/after.txt"
is "$(sqlite3 -batch "$old" "select (select count(*) from tick where run_id <= 2) - (select sum(n) from tick_block where run_id <= 2)")" 0 \
   "  every tick is in a block"
ok "  and takes far less room" test "$(sqlite3 -batch "$old" "select sum(length(coalesce(vals, runs, '')) + 24) from tick_piece where run_id <= 2")" -lt \
   "$(sqlite3 -batch "$(fixture_copy results-schema4.db)" "select sum(length(data)) / 3 from tick")"

# Schema 7 (each tick the changes since the last, as varints; its sample
# view decoded them in SQL) likewise: the view of the migrated database
# gives what schema 7's own view gave, value for value, and pressmark's
# reader reads it.
old7="$TMP/schema7.db"
cp "$(dirname "$0")/fixtures/results-schema7.db" "$old7"
sqlite3 -batch "$old7" "$view" > "$TMP/before7.txt"
ge "$(wc -l < "$TMP/before7.txt")" 100000 "the schema-7 fixture's sample view has its rows (330 ticks, one run over a block)"
PRESSMARK_DB="$old7" "$PM" record --quiet --label after -- true
is "$(sqlite3 -batch "$old7" "pragma user_version")" "$schema" "a run migrates a schema-7 database to schema $schema"
sqlite3 -batch "$old7" "$view" | awk -F'|' '$1 <= 2' > "$TMP/after7.txt"
ok "  its runs' samples are the same, value for value ($(wc -l < "$TMP/after7.txt") rows)" cmp -s "$TMP/before7.txt" "$TMP/after7.txt"
ge "$(sqlite3 -batch "$old7" "select count(*) from tick_block where run_id = 1")" 2 "  the 330-tick run is in blocks, more than one"
PRESSMARK_DB="$old7" "$PM" plot seven --out "$TMP/plot7" > "$TMP/plot7.txt" 2>&1
is "$?" 0 "  plot reads its migrated samples"

# merge carries every value: this test's runs (an aborted one among them)
# and the migrated schema-7 runs, merged into a new database, give the
# view the same rows by run UUID.
by_uuid="select r.uuid || '|' || s.seq || '|' || s.t_ns || '|' || s.name || '|' || s.value from sample s
         join run r on r.id = s.run_id where r.status != 'running' order by 1"
"$PM" --db "$TMP/merged.db" merge "$PRESSMARK_DB" > /dev/null && "$PM" --db "$TMP/merged.db" merge "$old7" > /dev/null
is "$?" 0 "both databases merge into a new one"
{ sqlite3 -batch "$PRESSMARK_DB" "$by_uuid"; sqlite3 -batch "$old7" "$by_uuid"; } | sort > "$TMP/src.rows"
sqlite3 -batch "$TMP/merged.db" "$by_uuid" | sort > "$TMP/merged.rows"
ge "$(wc -l < "$TMP/merged.rows")" 100000 "  the merged view has their rows"
ok "  value for value, tick for tick, by run UUID ($(wc -l < "$TMP/src.rows") rows)" cmp -s "$TMP/src.rows" "$TMP/merged.rows"
done_testing
