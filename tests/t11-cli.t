#!/bin/bash
# The command line: help, bad input (one line, exit 2, nothing written), list, show, doctor.
. "$(dirname "$0")/lib.sh"

out=$("$PM" help); is "$?" 0 "help exits 0"
for c in record run list show doctor; do like "$out" "^  $c " "help lists $c"; done
for c in record list show doctor run; do
    "$PM" $c --help >/dev/null; is "$?" 0 "$c --help exits 0"
done
like "$("$PM" help record)" "usage: pressmark record" "help COMMAND shows that command's help"

# Bad input starts from no database: none may be created.
rm -f "$PRESSMARK_DB"
bad "interval without unit" "^pressmark record: --interval: '5' is not a sampling interval \(accepted: .*100ms.*\)" \
    record --interval 5 -- true
bad "interval too small" "--interval: '1ms' .*from 10ms to 1h" record --interval 1ms -- true
bad "runs zero" "--runs: '0' is not a run count \(accepted: a whole number from 1 to 100000\)" record --runs 0 -- true
bad "gap junk" "--gap: 'soon' is not a duration" record --gap soon -- true
bad "unknown option" "unknown option or missing value '--frobnicate'" record --frobnicate -- true
bad "missing command" "a command is needed after --" record --
bad "command not found" "'no-such-cmd-xyz' is not a command found in PATH" record -- no-such-cmd-xyz
bad "unknown command" "^pressmark: 'frob' is not a command \(accepted: record, run, chat-server, suite, lava, bisect, list, show, compare, history, plot, report, merge, push, export, doctor, help\)\$" frob
bad "unknown workload" "^pressmark run: 'nope' is not a workload" run nope
bad "bad list format" "--format: 'xml' is not a format \(accepted: text, json\)" list --format xml
bad "cap junk" "--mem-cap: 'lots' is not a memory cap \(accepted: .*75%.*\)" record --mem-cap lots -- true
bad "cap too small" "--mem-cap: '1M' .*at least 4M" record --mem-cap 1M -- true
bad "cap percent above 100" "--mem-cap: '150%'" record --mem-cap 150% -- true
bad "cap at MemTotal caps nothing" "--mem-cap: '100%' is not below this machine's MemTotal of [0-9.]+ GiB" record --mem-cap 100% -- true
bad "cap far above MemTotal" "--mem-cap: '99999T' is not below this machine's MemTotal" record --mem-cap 99999T -- true
bad "a swap file bigger than its disk" "--swap: a swap file of 9000000.0 TiB does not fit in /[^ ]*: [0-9.]+ [KMGT]iB free there" \
    record --swap 9000000T -- true
bad "cap method junk" "--cap-method: 'magic' is not a cap method \(accepted: auto, cgroup2, cgroup1, balloon, none\)" record --cap-method magic --mem-cap 64M -- true
bad "sysctl outside vm" "--sysctl: 'kernel.panic=1' is not a VM setting \(accepted: vm.NAME=VALUE" record --sysctl kernel.panic=1 -- true
bad "sysctl unknown" "--sysctl: 'vm.no_such_knob=1': this kernel has no /proc/sys/vm/no_such_knob" record --sysctl vm.no_such_knob=1 -- true
bad "sysctl path escape" "--sysctl: 'vm.../kernel/panic=1' is not a VM setting" record --sysctl vm.../kernel/panic=1 -- true
bad "swap junk" "--swap: 'zram:lots' is not a swap set-up \(accepted: SIZE or file:SIZE for a swap file, zram:SIZE" record --swap zram:lots -- true
bad "zram algo junk" "--swap: 'zram:64M:l;z' is not a swap set-up" record --swap 'zram:64M:l;z' -- true
bad "thp junk" "--thp: 'sometimes' is not a THP mode \(accepted: always, madvise, never\)" record --thp sometimes -- true
bad "zswap junk" "--zswap: 'maybe' is not a zswap setting \(accepted: on, off\)" record --zswap maybe -- true
bad "mem-high alone" "--mem-high: needs --mem-cap" record --mem-high 32M -- true
bad "mem-high above cap" "--mem-high: .* is above the cap" record --mem-cap 64M --mem-high 128M -- true
bad "swap-cap alone" "--swap-cap: needs --mem-cap" record --swap-cap 0 -- true
bad "swapout size junk" "^pressmark run swapout: --size: 'big' is not a size" run swapout --size big
bad "swapout touch junk" "--touch: 'some' is not a touch mode \(accepted: every-byte, per-page\)" run swapout --touch some
bad "swapout prefill-procs" "--prefill-procs: '0' is not a process count \(accepted: a whole number from 1 to 64\)" run swapout --prefill-procs 0
# The memory controller is on one hierarchy at most: the other method is
# refused, naming what is there (v1 here; v2 on a stock systemd host).
memcg_hierarchy
if [ "$CG_VERSION" != 2 ]; then
    bad "cgroup2 where v2 has no memory controller" "--cap-method: 'cgroup2' is not available here \(.*\); accepted here: auto, " \
        record --cap-method cgroup2 --mem-cap 64M -- true
fi
if [ "$CG_VERSION" != 1 ]; then
    bad "cgroup1 where no v1 hierarchy has the memory controller" \
        "--cap-method: 'cgroup1' is not available here \(no v1 memory controller mounted\); accepted here: auto, $([ "$CG_VERSION" = 2 ] && echo 'cgroup2, ')balloon, none$" \
        record --cap-method cgroup1 --mem-cap 64M -- true
fi
bad "bad show format" "--format: 'yaml' is not a format \(accepted: text, json\)" show --format yaml

# Read-only commands never create a database.
rm -f "$PRESSMARK_DB"
"$PM" list >/dev/null 2>"$TMP/err"
is "$?" 2 "list without a database exits 2 (one exit status for what is not there)"
like "$(cat "$TMP/err")" "no results database here yet" "and says so"
ok "list created no database" test ! -e "$PRESSMARK_DB"
# Read-only commands never modify a database, not even an older one.
# (The schema-4 fixture, from the pressmark before ticks were re-encoded,
# made older still: the tables schemas 2 to 4 added are dropped.)
cp "$(dirname "$0")/fixtures/results-schema4.db" "$TMP/old.db"
sqlite3 "$TMP/old.db" "PRAGMA journal_mode = DELETE; DROP TABLE pushed; DROP TABLE profile; DROP TABLE suite_run; DROP TABLE suite_cell; DROP TABLE suite; PRAGMA user_version = 1"
oldsum=$(md5sum < "$TMP/old.db")
# (the migrated copies in a TMPDIR of the test's own: other tests' copies
# may be in /tmp meanwhile)
mkdir "$TMP/tmpdir"
for c in list show compare "plot --out $TMP/oldplots" "report --out $TMP/oldreport"; do
    # shellcheck disable=SC2086
    TMPDIR="$TMP/tmpdir" "$PM" --db "$TMP/old.db" $c >/dev/null 2>"$TMP/err"
    is "$?" 0 "$c reads a version-1 database$(sed 's/^/: /' "$TMP/err" | head -1)"
    is "$(md5sum < "$TMP/old.db")" "$oldsum" "  and leaves the file as it was"
done
is "$(sqlite3 "$TMP/old.db" 'PRAGMA user_version')" 1 "still version 1"
ok "no WAL file was made" test ! -e "$TMP/old.db-wal"
is "$(ls -A "$TMP/tmpdir")" "" "no migrated copy was left in TMPDIR"

# A copy made to read an older database has no name in any directory
# (SQLite's own database: its page cache, and past that a file SQLite
# unlinks as it opens it), so no signal can leave one behind. The file is
# padded to 8 MB so that its copy outgrows the page cache and spills into
# such a file. An export of it into a pipe read only for its first byte
# stops part way, its copy made and open: what it holds is looked at, then
# it is sent the signal. (env --default-signal: a background job of a
# script would ignore SIGINT; timeout: a command that failed at once would
# leave head waiting on a pipe the shell holds open.)
cp "$TMP/old.db" "$TMP/big.db"
sqlite3 "$TMP/big.db" "CREATE TABLE pad(b BLOB); WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n
    WHERE i < 2000) INSERT INTO pad SELECT randomblob(4096) FROM n"
mkfifo "$TMP/stall"
# held PID: its open files in TMPDIR counted by what they are, "N (deleted)
# MODE" for N files with no name, "N PATH MODE" for one that has (one line)
held() {
    local f l m
    for f in /proc/"$1"/fd/*; do
        l=$(readlink "$f")
        # (a descriptor closed between readlink and stat is not held: no torn line)
        case "$l" in "$TMP/tmpdir/"*) m=$(stat -L -c %a "$f" 2>/dev/null) && echo "${l##* } $m" ;; esac
    done | sort | uniq -c | sed 's/^ *//' | paste -sd,
}
# stalled DB: an export of DB into $TMP/stall (fd 3 its reader), stopped
# after its first byte; pid is its
stalled() {
    exec 3<>"$TMP/stall"
    TMPDIR="$TMP/tmpdir" env --default-signal "$PM" --db "$1" export 1 2 >"$TMP/stall" 2>/dev/null 3>&- &
    pid=$!
    got=$(timeout 60 head -c 1 <&3 | wc -c)
}
for sig in INT TERM KILL PIPE; do
    stalled "$TMP/big.db"
    like "$(held $pid)" "^[0-9]+ \(deleted\) 600$" "SIG$sig: mid-export, its copy is only in files with no name, 0600"
    is "$(ls -A "$TMP/tmpdir")" "" "SIG$sig:   and TMPDIR holds no name"
    # SIGPIPE as a pipe gives it: the reader goes
    if [ "$sig" = PIPE ]; then exec 3>&-; else kill -s "$sig" "$pid"; fi
    wait "$pid"
    is "$?" "$((128 + $(kill -l "$sig")))" "SIG$sig: the export ends by the signal"
    exec 3>&-
    is "$(ls -A "$TMP/tmpdir")" "" "SIG$sig:   and leaves nothing in TMPDIR"
done
TMPDIR="$TMP/tmpdir" env --default-signal "$PM" --db "$TMP/big.db" export 1 2 2>/dev/null | head -1 >/dev/null
is "${PIPESTATUS[0]}" 141 "export | head -1: the export ends by SIGPIPE"
is "$(ls -A "$TMP/tmpdir")" "" "  and leaves nothing in TMPDIR"
TMPDIR="$TMP/tmpdir" "$PM" --db "$TMP/big.db" list >/dev/null
is "$?:$(ls -A "$TMP/tmpdir")" "0:" "the next command: nothing there to clean, and it leaves nothing"
# Having nothing of its own there, pressmark removes nothing there: not a
# directory named like an older pressmark's copies, another user's, nor a
# link planted under such a name.
mkdir -p "$TMP/decoy" "$TMP/tmpdir/pressmark-foreign.AAAAAA" && echo decoy > "$TMP/decoy/copy.db"
cp "$TMP/decoy/copy.db" "$TMP/tmpdir/pressmark-foreign.AAAAAA/copy.db"
chown -R nobody "$TMP/tmpdir/pressmark-foreign.AAAAAA" 2>/dev/null
ln -s "$TMP/decoy" "$TMP/tmpdir/pressmark-foreign.BBBBBB"
TMPDIR="$TMP/tmpdir" "$PM" --db "$TMP/big.db" export 1 2 | head -1 >/dev/null
is "$(cd "$TMP/tmpdir" && find . | sort | paste -sd' ') $(cat "$TMP/decoy/copy.db")" \
   ". ./pressmark-foreign.AAAAAA ./pressmark-foreign.AAAAAA/copy.db ./pressmark-foreign.BBBBBB decoy" \
   "what others left in TMPDIR, a link among it, stays as it was"
rm -rf "$TMP/tmpdir/pressmark-foreign.AAAAAA" "$TMP/tmpdir/pressmark-foreign.BBBBBB"
# No copy at all where none is needed: a database one schema behind (9:
# schema 10 only added a table) is read as it is, the table it lacks made
# empty in the connection's TEMP schema. (The same 8 MB: a copy would
# spill as the ones above.)
cp "$TMP/big.db" "$TMP/v9.db"
"$PM" --db "$TMP/v9.db" record --quiet -- true
sqlite3 "$TMP/v9.db" "DROP TABLE lava_job; PRAGMA user_version = 9; PRAGMA journal_mode = DELETE" >/dev/null
v9sum=$(md5sum < "$TMP/v9.db")
stalled "$TMP/v9.db"
# (the export under way, its first byte out: not one that failed at once)
is "$got:$(kill -0 $pid 2>/dev/null && echo running)" "1:running" "schema 9: the export is under way"
is "$(held $pid):$(ls -A "$TMP/tmpdir")" ":" "schema 9, mid-export: no copy, nothing in TMPDIR"
exec 3>&-
wait $pid
TMPDIR="$TMP/tmpdir" "$PM" --db "$TMP/v9.db" list >/dev/null
is "$?:$(md5sum < "$TMP/v9.db")" "0:$v9sum" "  list reads it, and it stays as it was"
# Merge copies the file it checked into the database's connection, as a
# database of SQLite's own again: a merge killed while it waits for the
# write lock (a writer holds it here) leaves nothing either.
"$PM" --db "$TMP/dest.db" record --quiet -- true
coproc LOCK { python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("BEGIN IMMEDIATE"); print("locked", flush=True); sys.stdin.read()' "$TMP/dest.db"; }
read -r _ <&"${LOCK[0]}"
TMPDIR="$TMP/tmpdir" "$PM" --db "$TMP/dest.db" merge "$TMP/big.db" >/dev/null 2>&1 &
pid=$!
# Its copy is made in steps (SQLite's own temporary files come and go while
# it copies), so the state looked at is the one it settles in to wait.
# (all of SQLite's temporary files are unnamed 0600 ones too, so one, and
# the same for three looks in a row: the merge is at its lock)
copy_unnamed() { local i; for i in 1 2 3; do [ "$(held "$1")" = "1 (deleted) 600" ] || return 1; sleep 0.2; done; }
wait_for copy_unnamed $pid
like "$(held $pid)" "^1 \(deleted\) 600$" "merge, waiting for the lock: the file it merges is only in files with no name"
is "$(ls -A "$TMP/tmpdir")" "" "  and TMPDIR holds no name"
kill -s KILL $pid
wait $pid
is "$?:$(ls -A "$TMP/tmpdir")" "137:" "merge killed: nothing left in TMPDIR"
eval "exec ${LOCK[1]}>&-"
wait "$LOCK_PID"
is "$(sqlite3 "$TMP/dest.db" "SELECT count(*) FROM run")" 1 "  and nothing merged"

# --db and PRESSMARK_DB choose the database.
"$PM" --db "$TMP/other.db" record --quiet -- true
ok "global --db writes there" test -s "$TMP/other.db"
"$PM" record --quiet --db "$TMP/third.db" -- true
ok "per-command --db writes there" test -s "$TMP/third.db"
ok "PRESSMARK_DB untouched by --db runs" test ! -e "$PRESSMARK_DB"

setup "two runs labelled base" "$PM" record --quiet --label base --runs 2 --interval 100ms -- sh -c 'sleep 0.3'
setup "a failing run labelled 'new kernel'" sh -c '"$1" record --quiet --label "new kernel" --interval 100ms -- sh -c "exit 1"; [ $? -eq 1 ]' sh "$PM"
list=$("$PM" list)
is "$(printf '%s\n' "$list" | wc -l)" 5 "list: header, rule, one line per run"
like "$list" " 3 .* new kernel +record +failed .*sh exited with status 1" "list shows status and reason"
json=$("$PM" list --format json)
is "$(printf '%s' "$json" | python3 -c 'import json,sys; d=json.load(sys.stdin); r=d["runs"]; print(d["format_version"], len(r), r[0]["status"], r[2]["reason"])')" \
   "1 3 ok sh exited with status 1" "list --format json parses and carries its format version, status and reason"

show=$("$PM" show 1)
like "$show" "^run 1 " "show RUN starts with the run"
like "$show" "label +elapsed +%CPU +%sys/%user +Total swpin +Total swpout +Total swapio" "show prints the 2002 VolanoMark report's table header"
like "$show" "[0-9.]+user [0-9.]+system [0-9:.]+elapsed [0-9]+%CPU" "show prints the GNU time line"
like "$show" "heartbeat: [0-9]+ beats, lateness p50" "show prints heartbeat lateness"
like "$("$PM" show)" "^run 3 " "show without argument is the latest run"
lab=$("$PM" show base)
like "$lab" "label base, workload record: 2 runs" "show LABEL covers every run of it"
like "$lab" "Average elapsed = 0:00\.[0-9]+ \(2 ok runs\)" "show LABEL prints the 2004 objrmap report's average"
uuid=$(q "select uuid from run where id = 2")
like "$("$PM" show "$uuid")" "^run 2 " "show UUID"
"$PM" show nosuchlabel >/dev/null 2>"$TMP/err"
is "$?" 2 "show of an unknown selector exits 2 (not found is bad input)"
like "$(cat "$TMP/err")" "no run, UUID or label 'nosuchlabel'" "and says so"
"$PM" show 1 --format json > "$TMP/show.json"
check=$(python3 - "$TMP/show.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
m = d["metrics"]
srcs = {s["path"]: s["ticks"] for s in d["sources"]}
print(d["status"], m["swap.out_kb"]["unit"], m["swap.out_kb"]["direction"], "time.elapsed_s" in m,
      "sysctl.vm.swappiness" in d["metadata"], srcs["/proc/vmstat"] == d["ticks"], srcs["/proc/meminfo"] == d["ticks"])
PY
)
is "$check" "ok KB lower True True True True" "show --format json: metrics with units, metadata, ticks per source"
python3 -c 'import json,sys; d=json.load(sys.stdin); assert len(d["runs"]) == 2' < <("$PM" show base --format json)
is "$?" 0 "show LABEL --format json holds every run"
# Real output against the written-down schemas (docs/json), with
# python3-jsonschema: a key renamed or a type changed fails here.
is "$("$PM" show 1 --format json | python3 "$ROOT/tests/json_check.py" show)" ok "show RUN --format json matches docs/json/show.schema.json"
is "$("$PM" show base --format json | python3 "$ROOT/tests/json_check.py" show)" ok "show LABEL --format json matches it too"
is "$("$PM" list --format json | python3 "$ROOT/tests/json_check.py" list)" ok "list --format json matches docs/json/list.schema.json"
is "$("$PM" compare --long base "new kernel" --format json | python3 "$ROOT/tests/json_check.py" compare)" ok \
   "compare --format json matches docs/json/compare.schema.json"
is "$("$PM" list --format json | sed 's/"format_version": 1/"format_version": 2/' | python3 "$ROOT/tests/json_check.py" list)" \
   "invalid at /format_version: 1 was expected" "  and a document of another format version does not"

doc=$("$PM" doctor)
is "$?" 0 "doctor exits 0"
for w in "cgroup v2 memory controller" "cgroup v1 memory controller" "swap devices" zram zswap PSI gnuplot "--cap-method auto"; do
    like "$doc" "$w" "doctor reports $w"
done
# Words: what a user reads names the reports pressmark grew from by what
# they are, never by the file names they were handed over under ("seed
# 000"); the build generator's --seed and a suite's order seed are other
# words and stay.
SEEDWORDS="[Ss]eeds? 00[0-9]\\b|[Ss]eeds'|[Ss]eed's|[Ss]eed tables?|[Tt]he seeds\\b"
{
    "$PM" help
    for c in record run chat-server suite bisect list show compare history plot report merge push export doctor help; do "$PM" $c --help; done
    for w in $("$PM" run --help | awk '/^workloads:/ { on = 1; next } on && NF == 0 { exit } on { print $1 }'); do "$PM" run "$w" --help; done
} > "$TMP/helps" 2>&1
ge "$(wc -l < "$TMP/helps")" 300 "every command's and workload's help collected ($(wc -l < "$TMP/helps") lines)"
is "$(grep -cE "$SEEDWORDS" "$TMP/helps")" 0 "no help text calls the reference reports seeds"
is "$(grep -cE "$SEEDWORDS" "$ROOT/README.md" "$ROOT"/suites/* | awk -F: '{ n += $NF } END { print n }')" 0 "nor the README or the suite files"
done_testing
