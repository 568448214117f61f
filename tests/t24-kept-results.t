#!/bin/bash
# When the database will not take a run's end (its file removed or replaced
# during the run, the disk full, the lock held past the wait), what the run
# measured is not lost: printed in full on stderr and kept beside the
# database (DB.unstored/UUID.json, private), and the next pressmark that
# runs something stores it. What it finds there is data from a file: links,
# FIFOs, broken or crafted records and a directory that is not private are
# refused with one line each, never followed, never blocking, and the run
# itself goes on. Runs wait on files the test makes, never on the clock.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1
KEPT="$PRESSMARK_DB.unstored"
pyjson() { python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print($1)" "$2"; }
# A workload that starts, says so, and ends when told.
GATE=(sh -c 'touch "$1"; until [ -e "$2" ]; do sleep 0.05; done' sh "$TMP/started" "$TMP/go")
gate_open() { wait_for test -e "$TMP/started"; }
gate_reset() { rm -f "$TMP/started" "$TMP/go"; }
# The metric names a text lists ("  NAME VALUE UNIT" lines), sorted.
said_names() { sed -n 's/^  \([^ ]*\) .*/\1/p' "$1" | sort; }

# 1. The database removed while a run goes on: SQLite writes on into the
# removed file, so the end is committed to nothing; pressmark notices.
"$PM" record --quiet --label first -- true
"$PM" record --quiet --label gone --interval 100ms -- "${GATE[@]}" 2>gone.err &
pid=$!
ok "the run has begun" gate_open
rm "$PRESSMARK_DB" "$PRESSMARK_DB-wal" "$PRESSMARK_DB-shm"
touch go
wait $pid
is "$?" 2 "a run whose database was removed ends with exit 2 (its end was not stored)"
like "$(head -1 gone.err)" "^pressmark: run 2 \[gone\]: its results could not be stored in $PRESSMARK_DB: $PRESSMARK_DB was removed or replaced while the run went on" \
    "stderr says why the end was not stored, also with --quiet"
is "$(ls -A "$KEPT" | wc -l)" 1 "one record is kept beside the database, and nothing else"
file=$(ls "$KEPT"/*.json 2>/dev/null)
is "$(sed -n 2p gone.err)" "pressmark: they are kept in $file; the next pressmark run, record or suite run stores them" \
    "stderr says where"
is "$(stat -c %a "$KEPT") $(stat -c %a "$file")" "700 600" "the directory and the record are private"
n=$(pyjson 'len(d["metrics"])' "$file")
ge "$n" 40 "the record holds the run's metrics ($n)"
is "$(sed -n 3p gone.err)" "pressmark: run 2 [gone] ok; its $n metrics:" "stderr counts them"
is "$(said_names gone.err)" "$(pyjson '"\n".join(sorted(m["name"] for m in d["metrics"]))' "$file")" \
    "and prints every one, by name"
like "$(grep '^  time.elapsed_s ' gone.err)" "^  time\.elapsed_s +[0-9.]+ s$" "each with its value and unit"
elapsed=$(pyjson 'repr([m["value"] for m in d["metrics"] if m["name"] == "time.elapsed_s"][0])' "$file")
cp "$file" "$TMP/kept.json"   # (stored, the record goes: its values are compared below)
uuid=$(basename "$file" .json)
is "$(pyjson 'd["run"]["uuid"] + " " + d["run"]["label"] + " " + d["run"]["status"]' "$file")" "$uuid gone ok" \
    "the record is the run's: its UUID, label and status"
nmeta=$(pyjson 'len(d["meta"])' "$file")
nsrc=$(pyjson 'len(d["sources"])' "$file")
like "$("$PM" list 2>&1 >/dev/null)" "^pressmark list: $PRESSMARK_DB: no results database here yet" "list finds no database"
"$PM" record --quiet --label first-again -- true 2>first.err
is "$?" 0 "the next run goes on"
is "$(cat first.err)" "pressmark: stored run 1 [gone] ok from $file, kept there when its store failed ($PRESSMARK_DB was removed or replaced while the run went on: what was written since went with the old file)" \
    "and stores the kept run first, saying so in one line"
"$PM" record --quiet --label next -- true 2>next.err
is "$(q "select count(*) from run where uuid = '$uuid' and label = 'gone' and status = 'ok'")" 1 \
    "the kept run is stored, with its UUID, label and status"
is "$(q "select count(*) from metric m join run r on r.id = m.run_id where r.uuid = '$uuid'")" "$n" "with every metric"
# (the double itself, read by Python from both: rounded to 6 places by
# SQLite's printf and by bash's, 0.0839155 came out 0.083916 and 0.083915)
is "$(python3 -c 'import json, sqlite3, sys
d = json.load(open(sys.argv[2]))
kept = [m["value"] for m in d["metrics"] if m["name"] == "time.elapsed_s"][0]
got = sqlite3.connect(sys.argv[1]).execute("select m.value from metric m join run r on r.id = m.run_id where r.uuid = ? and m.name = ?",
                                           (sys.argv[3], "time.elapsed_s")).fetchone()[0]
print(repr(got), "equal" if got == kept else "differs from %r" % kept)' "$PRESSMARK_DB" "$TMP/kept.json" "$uuid")" \
   "$elapsed equal" "with their values"
is "$(q "select count(*) from run_meta m join run r on r.id = m.run_id where r.uuid = '$uuid'")" "$((nmeta + 1))" \
    "with its metadata, and one key more:"
like "$(q "select value from run_meta m join run r on r.id = m.run_id where r.uuid = '$uuid' and m.key = 'store.kept'")" \
    "^beside the database when its store failed \(.* was removed or replaced" "store.kept, saying how it got there"
is "$(q "select count(*) from run_source s join run r on r.id = s.run_id where r.uuid = '$uuid'")" "$nsrc" "with its sources"
is "$(cat next.err)" "" "the invocation after that has nothing to say"
is "$(ls -A "$(dirname "$PRESSMARK_DB")" | grep -c unstored)" 0 "nothing is left beside the database"
is "$("$PM" list 2>&1 >/dev/null)" "" "and list has nothing to say of it"

# 1b. The database replaced (a copy moved over its path): the same. (The
# old file's WAL, left at the path, carries the end into the copy: the next
# run finds it stored.)
gate_reset
"$PM" record --quiet --label replaced -- "${GATE[@]}" 2>replaced.err &
pid=$!
ok "the run has begun" gate_open
cp "$PRESSMARK_DB" other.db
mv other.db "$PRESSMARK_DB"
touch go
wait $pid
is "$?" 2 "a run whose database was replaced ends with exit 2"
like "$(head -1 replaced.err)" "$PRESSMARK_DB was removed or replaced while the run went on" "saying so"
"$PM" record --quiet --label after-replace -- true 2>stored.err
like "$(cat stored.err)" "^pressmark: (stored run [0-9]+ \[replaced\] ok from $KEPT/[0-9a-f-]{36}\.json, kept|$KEPT/[0-9a-f-]{36}\.json: its run is stored already; removed$)" \
    "the next run stores it in the new file, or finds it there"
is "$(q "select count(*) from run where label = 'replaced' and status = 'ok' and exists (select 1 from metric where run_id = run.id and name = 'time.elapsed_s')")" 1 \
    "either way the run is there once, whole"

# 1c. The lock held past the wait (shortened for the test): the ticks
# that waited are lost, the run's figures are not.
gate_reset
PRESSMARK_TEST_RESULT_WAIT_MS=300 "$PM" record --quiet --label locked --interval 100ms -- "${GATE[@]}" 2>locked.err &
pid=$!
ok "the run has begun" gate_open
python3 -c 'import os, sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], timeout=10, isolation_level=None)
c.execute("BEGIN IMMEDIATE")
open(sys.argv[3], "w").close()
for i in range(1200):
    if os.path.isdir(sys.argv[2]) and os.listdir(sys.argv[2]):
        break
    time.sleep(0.05)
c.execute("COMMIT")' "$PRESSMARK_DB" "$KEPT" go
wait $pid
is "$?" 2 "a run that found the database locked past the wait ends with exit 2"
like "$(head -1 locked.err)" "^pressmark: run [0-9]+ \[locked\]: its results could not be stored in $PRESSMARK_DB: $PRESSMARK_DB: database is locked$" \
    "stderr says the database was locked"
like "$(sed -n 2p locked.err)" "^pressmark: they are kept in $KEPT/[0-9a-f-]{36}\.json; " "and where the results are kept"
"$PM" record --quiet --label after-lock -- true 2>stored.err
like "$(cat stored.err)" "^pressmark: stored run [0-9]+ \[locked\] failed from $KEPT/.*\(.*database is locked\)$" \
    "the next run stores it"
like "$(q "select reason from run where label = 'locked'")" "database is locked" \
    "as failed, as its samples were lost, saying why"
ge "$(q "select count(*) from metric m join run r on r.id = m.run_id where r.label = 'locked'")" 40 "with its metrics"

# 2. The disk full. Each case on a tmpfs of its own, filled while the run
# waits at its gate.
if [ "$(id -u)" -eq 0 ]; then
    mkdir small
    setup "a 600k tmpfs" mount -t tmpfs -o size=600k tmpfs "$TMP/small"
    cleanup_add umount -l "$TMP/small"
    SMALL="$TMP/small/r.db"
    fill() { mountpoint -q "$TMP/small" && dd if=/dev/zero of="$TMP/small/$1" bs=1k ${2:+count=$2} 2>/dev/null; }
    # The reserve is a file without a name: pressmark's descriptors show it.
    reserves() { find /proc/"$1"/fd -lname "$TMP/small/#*" 2>/dev/null | wc -l; }

    # 2a. Full at the end: the record takes the reserve's room, the rest of
    # the reserve is freed, and the end is stored after all.
    gate_reset
    PRESSMARK_DB=$SMALL "$PM" record --quiet --label first -- true
    PRESSMARK_DB=$SMALL "$PM" record --quiet --no-sample --label full -- "${GATE[@]}" 2>full.err &
    pid=$!
    ok "the run has begun" gate_open
    is "$(reserves $pid)" 1 "it holds a reserve on the database's filesystem"
    fill fill
    touch go
    wait $pid
    is "$?" 1 "a run whose end met a full disk ends with exit 1 (failed)"
    is "$(sqlite3 "$SMALL" "select status || ': ' || reason from run where label = 'full'")" \
       "failed: the filesystem of $SMALL is full: the run's results did not fit" "and is stored, saying why"
    ge "$(sqlite3 "$SMALL" "select count(*) from metric m join run r on r.id = m.run_id where r.label = 'full'")" 10 \
       "with its metrics"
    is "$(cat full.err)" "" "nothing needed saying (--quiet)"
    is "$(ls -A small | tr '\n' ' ')" "fill r.db " "no record is left beside it"

    # 2b. Full, and removed: the record goes into the reserve's blocks (the
    # only room there is), and stays there.
    gate_reset
    rm small/fill small/r.db*
    PRESSMARK_DB=$SMALL "$PM" record --quiet --label first -- true
    PRESSMARK_DB=$SMALL "$PM" record --quiet --no-sample --label both -- "${GATE[@]}" 2>both.err &
    pid=$!
    ok "the run has begun" gate_open
    rm small/r.db*
    fill fill
    touch go
    wait $pid
    is "$?" 2 "a run whose end met a full disk and a removed database ends with exit 2"
    kept=$(ls small/r.db.unstored/*.json 2>/dev/null)
    is "$(sed -n 2p both.err)" "pressmark: they are kept in $TMP/$kept; the next pressmark run, record or suite run stores them" \
        "its record is kept in the full filesystem"
    is "$(stat -c %a "$kept" 2>/dev/null)" 600 "privately"
    is "$(pyjson 'd["run"]["label"]' "$kept")" both "whole"

    # 2c. No room at all, not even for a reserve: the figures are on stderr.
    gate_reset
    rm -rf small/fill small/r.db*
    PRESSMARK_DB=$SMALL "$PM" record --quiet --label first -- true
    fill fill
    rm small/fill
    fill fill $(( $(df -k --output=avail small | tail -1) - 48 ))
    PRESSMARK_DB=$SMALL "$PM" record --quiet --no-sample --label nowhere -- "${GATE[@]}" 2>nowhere.err &
    pid=$!
    ok "the run has begun" gate_open
    is "$(reserves $pid)" 0 "there was no room for a reserve"
    fill fill2
    touch go
    wait $pid
    is "$?" 2 "a run whose end fits nowhere ends with exit 2"
    like "$(head -1 nowhere.err)" "^pressmark: run [0-9]+ \[nowhere\]: its results could not be stored in $SMALL: $SMALL: database or disk is full$" \
        "stderr says why the end was not stored"
    like "$(sed -n 2p nowhere.err)" "^pressmark: nor could they be kept beside it \($SMALL\.unstored/[0-9a-f-]{36}\.json: No space left on device\): these lines are all that is left of them$" \
        "that the record could not be kept either, and why"
    n=$(sed -n 's/^pressmark: run [0-9]* \[nowhere\] failed - the filesystem of .* is full: the run.s results did not fit; its \([0-9]*\) metrics:$/\1/p' nowhere.err)
    ge "$n" 10 "it gives the run's status, saying why, and counts the metrics"
    is "$(grep -c '^  [a-z]' nowhere.err)" "$n" "and prints every one"
    is "$(ls -A small | grep -c 'unstored\|#')" 0 "no empty directory or partial record is left"
    umount small
else
    skip "a full filesystem needs a tmpfs mount (root)"
fi

# 3. What is found beside the database is data. A real record to craft from:
PRESSMARK_DB="$TMP/src.db" "$PM" record --quiet --label src -- true
record() {  # record UUID [PYTHON-EDIT]: a kept record of the src run under UUID, edited
    python3 - "$1" "${2:-pass}" "$TMP/src.db" <<'EOF'
import json, sqlite3, sys
uuid, edit, db = sys.argv[1:4]
c = sqlite3.connect(db)
r = c.execute("select label, workload, params, interval_ns, started_ns from run").fetchone()
m = c.execute("select hostname, kernel, proc_version, cmdline, cpu_model, cpus, mem_total_kb, page_size from machine").fetchone()
d = {"format": "pressmark unstored run", "format_version": 1, "database": db, "why": "a test", "kept_ns": 1,
     "machine": dict(zip(["hostname", "kernel", "proc_version", "cmdline", "cpu_model", "cpus", "mem_total_kb", "page_size"], m)),
     "run": {"uuid": uuid, "label": "kept", "workload": r[1], "params": r[2], "interval_ns": r[3],
             "started_ns": r[4], "ended_ns": r[4] + 1, "status": "ok", "reason": None},
     "metrics": [{"name": n, "value": v, "unit": u, "direction": dd}
                 for n, v, u, dd in c.execute("select name, value, unit, direction from metric")],
     "meta": [["k", "v"]],
     "sources": [{"source": "vmstat", "path": "/proc/vmstat", "ticks": 7, "note": None},
                 {"source": "psi", "path": "/proc/pressure/memory", "ticks": 0, "note": "absent: a test"}],
     "histograms": [{"name": "x.latency", "buckets": [[1000, 3], [2048, 1]]}],
     "profile": [{"symbol": "clear_page_erms", "samples": 12, "pct_kernel": 40.0, "pct_all": 3.5},
                 {"symbol": "_raw_spin_lock", "samples": 6, "pct_kernel": 20.0, "pct_all": 1.75}]}
exec(edit)
print(json.dumps(d))
EOF
}
U1=11111111-1111-1111-1111-111111111111
U2=22222222-2222-2222-2222-222222222222
U3=33333333-3333-3333-3333-333333333333
U4=44444444-4444-4444-4444-444444444444
U5=55555555-5555-5555-5555-555555555555
U6=66666666-6666-6666-6666-666666666666
U7=77777777-7777-7777-7777-777777777777
mkdir -m 700 "$KEPT"
record $U1 > "$KEPT/$U1.json"                         # a good one
mkdir -m 700 decoys                                   # private: only not following the link keeps it out
record $U2 > decoys/record.json
ln -s "$TMP/decoys/record.json" "$KEPT/$U2.json"     # a link to a good one elsewhere
mkfifo "$KEPT/$U3.json"                              # a FIFO: must not block
printf '{"format_version": 1, "run": ' > "$KEPT/$U4.json"          # broken JSON
record $U1 > "$KEPT/$U5.json"                         # another run's record under this name
record $U6 'd["run"]["label"] = "--db=/tmp/x"' > "$KEPT/$U6.json"    # a label that is an option
record $U7 'd["run"]["status"] = "running\u001b[2J"; d["metrics"] = d["metrics"] * 3' > "$KEPT/$U7.json"
chmod 600 "$KEPT"/*.json decoys/record.json 2>/dev/null
before=$(md5sum decoys/record.json)
timeout 60 "$PM" record --quiet --label after -- true 2>hostile.err
is "$?" 0 "the next run goes on past them all (and is not blocked)"
is "$(wc -l < hostile.err)" 7 "one line for each of the seven"
is "$(grep "^pressmark: stored run" hostile.err)" "pressmark: stored run $(q "select id from run where uuid = '$U1'") [kept] ok from $KEPT/$U1.json, kept there when its store failed (a test)" \
    "the good record is stored"
is "$(q "select h.name || ' ' || lo || ' ' || hi || ' ' || count from latency_hist h join run r on r.id = h.run_id where r.uuid = '$U1' order by lo" | tr '\n' ',')" \
   "x.latency 1000 1007 3,x.latency 2048 2079 1," "with its histogram, bucket for bucket"
is "$(q "select rank || ' ' || symbol || ' ' || samples || ' ' || pct_kernel || ' ' || pct_all from profile p join run r on r.id = p.run_id where r.uuid = '$U1' order by rank" | tr '\n' ',')" \
   "1 clear_page_erms 12 40.0 3.5,2 _raw_spin_lock 6 20.0 1.75," "with its profile, rank for rank"
is "$(q "select source || ' ' || path || ' ' || ticks || ' ' || coalesce(note, '-') from run_source s join run r on r.id = s.run_id where r.uuid = '$U1' order by source" | tr '\n' ',')" \
   "psi /proc/pressure/memory 0 absent: a test,vmstat /proc/vmstat 7 -," "with its sources and their notes"
like "$(grep "$U2" hostile.err)" "$U2\.json: .* could not be stored: a symbolic link, not a file; the file stays$" "a link is not followed"
is "$(q "select count(*) from run where uuid = '$U2'")" 0 "the decoy it points to is not read"
is "$(md5sum decoys/record.json)" "$before" "nor touched"
like "$(grep "$U3" hostile.err)" "$U3\.json: .* could not be stored: not a regular file of this user's" "a FIFO is refused at once"
like "$(grep "$U4" hostile.err)" "$U4\.json: .* could not be stored: not JSON \(line 1: " "broken JSON is refused with its line"
like "$(grep "$U5" hostile.err)" "$U5\.json: .* could not be stored: its run's uuid '$U1' is not its file name's" \
    "a record under another run's name is refused"
like "$(grep "$U6" hostile.err)" "$U6\.json: .* could not be stored: the run's label is not one" "a label like an option is refused"
is "$(grep "$U7" hostile.err)" "pressmark: $KEPT/$U7.json: a run's results kept there could not be stored: \"status\" 'running\\x1b[2J' is not one of ok, failed, oom, aborted; the file stays" \
    "a status a finished run cannot have is refused, shown without its escape sequence"
is "$(q "select count(*) from run where uuid in ('$U3', '$U4', '$U5', '$U6', '$U7') or label = '--db=/tmp/x'")" 0 \
    "none of them reached the database"
is "$(ls -A "$KEPT" | sort | tr '\n' ' ')" "$U2.json $U3.json $U4.json $U5.json $U6.json $U7.json " \
    "the stored record is gone, the refused stay"
is "$("$PM" list 2>&1 >/dev/null)" "pressmark list: the results of 6 runs wait in $KEPT to be stored (the next pressmark run, record or suite run stores them)" \
    "list says how many records wait"

# The same good record again: its run is stored already.
rm "$KEPT"/*
record $U1 > "$KEPT/$U1.json"
"$PM" record --quiet --label again -- true 2>again.err
is "$(cat again.err)" "pressmark: $KEPT/$U1.json: its run is stored already; removed" "a record stored before is removed"
is "$(q "select count(*) from run where uuid = '$U1'")" 1 "and not stored twice"

# A directory that is not private, or a link to one, is not read at all.
record $U2 > decoys/$U2.json
chmod 600 decoys/$U2.json
ln -s "$TMP/decoys" "$KEPT"
"$PM" record --quiet --label linked -- true 2>linked.err
is "$?" 0 "a run goes on past a link in the directory's place"
is "$(cat linked.err)" "pressmark: results kept beside the database are not read: $KEPT: not a directory (a symbolic link or a file)" \
    "which is not followed, said in one line"
rm "$KEPT"
mkdir -m 777 "$KEPT"
cp decoys/$U2.json "$KEPT/"
"$PM" record --quiet --label open -- true 2>open.err
is "$?" 0 "a run goes on past a directory others can write"
like "$(cat open.err)" "^pressmark: results kept beside the database are not read: $KEPT is not a private directory of this user \(owner [0-9]+, mode 0777; accepted: yours, mode 0700\)$" \
    "which is not read, said in one line"
is "$(wc -l < open.err)" 1 "one line"
is "$(q "select count(*) from run where uuid = '$U2'")" 0 "nothing of either was stored"
done_testing
