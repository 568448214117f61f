#!/bin/bash
# When the database will not take a run's end (its file removed during the
# run, the disk full), what the run measured is not lost: printed in full
# on stderr and kept beside the database (DB.unstored/UUID.json, private),
# and the next pressmark that runs something stores it. What it finds there
# is data from a file: links, FIFOs, broken or crafted records and a
# directory that is not private are refused with one line each, never
# followed, never blocking, and the run itself goes on.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1
KEPT="$PRESSMARK_DB.unstored"
pyjson() { python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print($1)" "$2"; }

# 1. The database removed while a run goes on: SQLite writes on into the
# removed file, so the end is committed to nothing; pressmark notices.
"$PM" record --quiet --label first -- true
"$PM" record --label gone --interval 100ms -- sleep 1.5 2>gone.err &
pid=$!
ok "the run has begun" wait_for sh -c "[ \"\$(sqlite3 '$PRESSMARK_DB' \"select count(*) from run where label = 'gone'\" 2>/dev/null)\" = 1 ]"
rm "$PRESSMARK_DB" "$PRESSMARK_DB-wal" "$PRESSMARK_DB-shm"
wait $pid
is "$?" 2 "a run whose database was removed ends with exit 2 (its end was not stored)"
like "$(head -1 gone.err)" "^pressmark: run 2 \[gone\]: its results could not be stored in $PRESSMARK_DB: $PRESSMARK_DB was removed or replaced while the run went on" \
    "stderr says why the end was not stored"
file=$(ls "$KEPT"/*.json 2>/dev/null)
is "$(ls "$KEPT" | wc -l)" 1 "one record is kept beside the database"
like "$(sed -n 2p gone.err)" "^pressmark: they are kept in $file; the next pressmark run, record or suite run stores them$" \
    "stderr says where"
is "$(stat -c %a "$KEPT") $(stat -c %a "$file")" "700 600" "the directory and the record are private"
n=$(pyjson 'len(d["metrics"])' "$file")
ge "$n" 40 "the record holds the run's metrics ($n)"
like "$(sed -n 3p gone.err)" "^pressmark: run 2 \[gone\] ok; its $n metrics:$" "stderr counts them"
is "$(grep -c '^  [a-z]' gone.err)" "$n" "and prints every one"
elapsed=$(pyjson 'repr([m["value"] for m in d["metrics"] if m["name"] == "time.elapsed_s"][0])' "$file")
like "$(grep '^  time.elapsed_s ' gone.err)" "^  time\.elapsed_s +[0-9.]+ s$" "each with its value and unit"
uuid=$(basename "$file" .json)
is "$(pyjson 'd["run"]["uuid"] + " " + d["run"]["label"] + " " + d["run"]["status"]' "$file")" "$uuid gone ok" \
    "the record is the run's: its UUID, label and status"
like "$("$PM" list 2>&1 >/dev/null)" "^pressmark list: $PRESSMARK_DB: no results database here yet" "list finds no database"
"$PM" record --quiet --label first-again -- true
"$PM" record --quiet --label next -- true 2>next.err
is "$?" 0 "the next run goes on"
# The first invocation after the failure stored it; the one after says nothing.
"$PM" record --quiet --label next -- true 2>next2.err
is "$(q "select count(*) from run where uuid = '$uuid' and label = 'gone' and status = 'ok'")" 1 \
    "the kept run is stored, with its UUID, label and status"
is "$(q "select count(*) from metric m join run r on r.id = m.run_id where r.uuid = '$uuid'")" "$n" \
    "with every metric"
is "$(q "select printf('%.6f', value) from metric m join run r on r.id = m.run_id where r.uuid = '$uuid' and m.name = 'time.elapsed_s'")" \
   "$(printf '%.6f' "$elapsed")" "with their values"
like "$(q "select value from run_meta m join run r on r.id = m.run_id where r.uuid = '$uuid' and m.key = 'store.kept'")" \
    "^beside the database when its store failed \(.* was removed or replaced" "its metadata says how it got there"
is "$(cat next.err next2.err)" "" "no invocation after the first had anything to say"
is "$(ls -d "$KEPT" 2>/dev/null)" "" "nothing is left beside the database"

# 2. The disk full at the run's end: the record goes into the reserve's
# room, the rest of the reserve is freed, and the end is stored after all.
if [ "$(id -u)" -eq 0 ]; then
    mkdir small
    mount -t tmpfs -o size=600k tmpfs small && cleanup_add umount -l "$TMP/small"
    SMALL="$TMP/small/r.db"
    PRESSMARK_DB=$SMALL "$PM" record --quiet --label first -- true
    PRESSMARK_DB=$SMALL "$PM" record --no-sample --label full -- sleep 1.5 2>full.err &
    pid=$!
    ok "the run has begun" wait_for test -e "$SMALL.reserve"
    dd if=/dev/zero of=small/fill bs=1k 2>/dev/null
    wait $pid
    is "$?" 1 "a run whose end met a full disk ends with exit 1 (failed)"
    is "$(sqlite3 "$SMALL" "select status || ': ' || reason from run where label = 'full'")" \
       "failed: the filesystem of $SMALL is full: the run's results did not fit" "and is stored, saying why"
    ge "$(sqlite3 "$SMALL" "select count(*) from metric m join run r on r.id = m.run_id where r.label = 'full'")" 10 \
       "with its metrics"
    is "$(ls small | tr '\n' ' ')" "fill r.db " "no reserve and no record are left beside it"

    # No room at all, not even for a reserve: the figures are on stderr.
    rm small/fill small/r.db*
    PRESSMARK_DB=$SMALL "$PM" record --quiet --label first -- true
    dd if=/dev/zero of=small/fill bs=1k 2>/dev/null
    rm small/fill
    dd if=/dev/zero of=small/fill bs=1k count=$(( $(df -k --output=avail small | tail -1) - 48 )) 2>/dev/null
    PRESSMARK_DB=$SMALL "$PM" record --no-sample --label nowhere -- sleep 1.5 2>nowhere.err &
    pid=$!
    ok "the run has begun" wait_for sh -c "[ \"\$(sqlite3 '$SMALL' \"select count(*) from run where label = 'nowhere'\" 2>/dev/null)\" = 1 ]"
    is "$(ls small | grep -c reserve)" 0 "there was no room for a reserve"
    dd if=/dev/zero of=small/fill2 bs=1k 2>/dev/null
    wait $pid
    is "$?" 2 "a run whose end fits nowhere ends with exit 2"
    like "$(sed -n 2p nowhere.err)" "^pressmark: nor could they be kept beside it \($SMALL\.unstored/[0-9a-f-]{36}\.json: No space left on device\): these lines are all that is left of them$" \
        "stderr says the record could not be kept, and why"
    n=$(sed -n 's/^pressmark: run [0-9]* \[nowhere\] failed - the filesystem of .* is full: the run.s results did not fit; its \([0-9]*\) metrics:$/\1/p' nowhere.err)
    ge "$n" 10 "it gives the run's status, saying why, and counts the metrics"
    is "$(grep -c '^  [a-z]' nowhere.err)" "$n" "and prints every one"
    is "$(ls -a small | grep -c 'unstored\|tmp\|reserve')" 0 "no empty directory, partial record or reserve is left"
    umount small
else
    skip "a full filesystem needs a tmpfs mount (root)"
fi

# 3. What is found beside the database is data. A real record to craft from:
PRESSMARK_DB="$TMP/src.db" "$PM" record --quiet --label src -- true
src_uuid=$(sqlite3 "$TMP/src.db" "select uuid from run")
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
     "meta": [["k", "v"]], "sources": [], "histograms": [{"name": "x.latency", "buckets": [[1000, 3], [2048, 1]]}],
     "profile": []}
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
mkdir decoys
record $U2 > decoys/record.json
ln -s "$TMP/decoys/record.json" "$KEPT/$U2.json"     # a link to a good one elsewhere
mkfifo "$KEPT/$U3.json"                              # a FIFO: must not block
printf '{"format_version": 1, "run": ' > "$KEPT/$U4.json"          # broken JSON
record $U1 > "$KEPT/$U5.json"                         # another run's record under this name
record $U6 'd["run"]["label"] = "--db=/tmp/x"' > "$KEPT/$U6.json"    # a label that is an option
record $U7 'd["run"]["status"] = "running"; d["metrics"] = d["metrics"] * 3' > "$KEPT/$U7.json"
chmod 600 "$KEPT"/*.json decoys/record.json 2>/dev/null
before=$(md5sum decoys/record.json)
timeout 60 "$PM" record --quiet --label after -- true 2>hostile.err
is "$?" 0 "the next run goes on past them all (and is not blocked)"
is "$(wc -l < hostile.err)" 7 "one line for each of the seven"
like "$(grep "$U1" hostile.err)" "^pressmark: stored run [0-9]+ \[kept\] ok from $KEPT/$U1\.json, kept there when its store failed \(a test\)$" \
    "the good record is stored"
is "$(q "select count(*) from latency_hist h join run r on r.id = h.run_id where r.uuid = '$U1'")" 2 "with its histogram"
like "$(grep "$U2" hostile.err)" "$U2\.json: .* could not be stored: a symbolic link, not a file; the file stays$" "a link is not followed"
is "$(q "select count(*) from run where uuid = '$U2'")" 0 "the decoy it points to is not read"
is "$(md5sum decoys/record.json)" "$before" "nor touched"
like "$(grep "$U3" hostile.err)" "$U3\.json: .* could not be stored: not a regular file of this user's" "a FIFO is refused at once"
like "$(grep "$U4" hostile.err)" "$U4\.json: .* could not be stored: not JSON \(line 1: " "broken JSON is refused with its line"
like "$(grep "$U5" hostile.err)" "$U5\.json: .* could not be stored: its run's uuid '$U1' is not its file name's" \
    "a record under another run's name is refused"
like "$(grep "$U6" hostile.err)" "$U6\.json: .* could not be stored: the run's label is not one" "a label like an option is refused"
like "$(grep "$U7" hostile.err)" "$U7\.json: .* could not be stored: \"status\" 'running' is not one of ok, failed, oom, aborted" \
    "a status a finished run cannot have is refused"
is "$(q "select count(*) from run where uuid in ('$U3', '$U4', '$U5', '$U6', '$U7') or label = '--db=/tmp/x'")" 0 \
    "none of them reached the database"
is "$(ls "$KEPT" | sort | tr '\n' ' ')" "$U2.json $U3.json $U4.json $U5.json $U6.json $U7.json " \
    "the stored record is gone, the refused stay"

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
like "$(cat linked.err)" "^pressmark: results kept beside the database are not read: $KEPT: not a directory \(a symbolic link or a file\)$" \
    "a link in the directory's place is not followed"
rm "$KEPT"
mkdir -m 777 "$KEPT"
cp decoys/$U2.json "$KEPT/"
"$PM" record --quiet --label open -- true 2>open.err
like "$(cat open.err)" "^pressmark: results kept beside the database are not read: $KEPT is not a private directory of this user \(owner [0-9]+, mode 0777" \
    "a directory others can write is not read"
is "$(q "select count(*) from run where uuid = '$U2'")" 0 "nothing of either was stored"
like "$("$PM" list 2>&1 >/dev/null)" "^pressmark list: the results of 1 run wait in $KEPT to be stored" "list says a record waits"
done_testing
