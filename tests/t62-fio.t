#!/bin/bash
# pressmark run fio: fio's buffered I/O on a file sized against the cap,
# fio itself inside the capped cgroup; its figures stored exactly as its
# JSON gives them, the page cache charged to the run's cgroup, the layout
# and measured phases in the samples; the scratch directory, the job files
# and fio's file gone after a run and, after a SIGKILL, after the next
# invocation; bad input and a --target another user could change refused
# before anything is written.
. "$(dirname "$0")/lib.sh"
need_root

# Refusals before anything runs: they need no fio, no cgroup.
PATH=/nonexistent "$PM" run fio --label nopkg 2>"$TMP/err"
is "$?" 2 "without fio in PATH: exit 2"
is "$(cat "$TMP/err")" "pressmark run fio: fio is not installed (apt-get install fio)" "  one line naming it and the package"
is "$(db_sum)" absent "  no database made"

command -v fio >/dev/null || skip_all "needs fio (apt-get install fio)"
memcg_hierarchy || skip_all "needs a memory cgroup hierarchy (cgroup v2 with memory, or v1's memory controller)"
before=$(machine_state)
dirs() { ls -d "${TMPDIR:-/tmp}"/pressmark-fio.* 2>/dev/null; }
dirs_before=$(dirs)
# the measured phase's fio, once it runs (its job file names the phase)
# (called here, never through sh -c: a shell's command line holding the
# pattern would match it)
measured_fio() { pgrep -f -- 'fio --output-format=json --output=.*/pm-measured\.json' | head -1; }
measuring() { [ -n "$(measured_fio)" ]; }
cg_of() { memcg_path "/proc/$1/cgroup" 2>/dev/null; }
limit_of() {
    if [ "$CG_VERSION" = 2 ]; then cat "$CG_ROOT$1/memory.max"
    else cat "$CG_ROOT$1/memory.limit_in_bytes"; fi
}

bad "--rw not fio's" "^pressmark run fio: --rw: 'nope' is not a fio I/O pattern \(accepted: read, randread, write, randwrite, readwrite, randrw\)$" \
    run fio --rw nope --label x
bad "--bs not a multiple of 512" "^pressmark run fio: --bs: 1000 bytes is not a multiple of 512 \(accepted: 512 to 64M, a multiple of 512\)$" \
    run fio --bs 1000 --label x
bad "--bs below 512" "^pressmark run fio: --bs: '256' is not a size \(accepted: .*512 to 64M, a multiple of 512\)$" \
    run fio --bs 256 --label x
bad "--numjobs 0" "^pressmark run fio: --numjobs: '0' is not a job count \(accepted: a whole number from 1 to 256\)$" \
    run fio --numjobs 0 --label x
bad "--ioengine not fio's" "^pressmark run fio: --ioengine: 'aio' is not a fio I/O engine \(accepted: psync, sync, pvsync, pvsync2, io_uring, libaio, posixaio, mmap\)$" \
    run fio --ioengine aio --label x
bad "--iodepth with a synchronous engine" "^pressmark run fio: --iodepth 8: psync does one I/O at a time \(accepted: --iodepth 1, or --ioengine io_uring, libaio or posixaio\)$" \
    run fio --iodepth 8 --label x
bad "--dataset a share with no cap" "^pressmark run fio: --dataset: '150%' is a share of the cap and there is none" \
    run fio --dataset 150% --label x
bad "--dataset below one block" "^pressmark run fio: --dataset: 1\.0 KiB is less than one --bs block \(4\.0 KiB\)$" \
    run fio --dataset 1K --label x
bad "--dataset more than the place has free" "^pressmark run fio: --dataset: .* does not fit in /tmp: .* free there \(" \
    run fio --dataset 1000T --target /tmp --label x

# A --target another user could change, or a link to somewhere else: the
# decoys are the test's own, and nothing is made in any of them.
mkdir -m 0755 "$TMP/real" "$TMP/theirs" "$TMP/a:b"
ln -s "$TMP/real" "$TMP/link"
mkdir "$TMP/open" && chmod 0777 "$TMP/open" && mkdir -m 0755 "$TMP/open/below"
chown nobody "$TMP/theirs"
bad "--target a symbolic link" "^pressmark run fio: --target: '$TMP/link' is a symbolic link \(accepted: the directory itself" \
    run fio --target "$TMP/link" --label x
bad "--target a symbolic link, with a slash" "^pressmark run fio: --target: '$TMP/link/' is a symbolic link" \
    run fio --target "$TMP/link/" --label x
bad "--target writable by others" "^pressmark run fio: --target: '$TMP/open' is writable by other users \(mode 0777; accepted: a directory nobody else can write, or sticky as /tmp\)$" \
    run fio --target "$TMP/open" --label x
bad "--target below a directory others can write" "^pressmark run fio: --target: $TMP/open/below is below $TMP/open, which another user could change" \
    run fio --target "$TMP/open/below" --label x
bad "--target another user's" "^pressmark run fio: --target: '$TMP/theirs' is owned by uid $(id -u nobody) \(accepted: a directory of root's or this user's\)$" \
    run fio --target "$TMP/theirs" --label x
bad "--target a file" "^pressmark run fio: --target: '$TMP/err' is not a directory$" \
    run fio --target "$TMP/err" --label x
bad "--target a name fio's job file cannot hold" "^pressmark run fio: --target: '$TMP/a:b' cannot go into fio's job file" \
    run fio --target "$TMP/a:b" --label x
TMPDIR=$TMP/open bad "TMPDIR writable by others, no --target" "^pressmark run fio: TMPDIR: '$TMP/open' is writable by other users" \
    run fio --label x
is "$(ls -A "$TMP/real" "$TMP/theirs" "$TMP/open/below" "$TMP/a:b" | grep -v ':$' | grep -c .)" 0 "nothing was made in any decoy"
is "$(ls -A "$TMP/open")" below "  nor beside them"

# The default data set (150% of a 64M cap) read once at random, 4K at a
# time, from a file on the disk under the cap with swap.
"$PM" run fio --mem-cap 64M --swap 256M --interval 50ms --label f 2>"$TMP/err"
is "$?" 0 "pressmark run fio --mem-cap 64M --swap 256M: exit 0 ($(tail -1 "$TMP/err"))"
run=$(q "select id from run where label = 'f'")
is "$(q "select status || ' ' || coalesce(reason, '') from run where id = $run")" "ok " "its run is stored ok"
like "$(tail -1 "$TMP/err")" "^pressmark: run $run \[f\] ok: fio\.read_iops [0-9,.]+ ops/s, " "the run line leads with fio's read IOPS"
"$PM" show --output "$run" > "$TMP/f.json"
is "$(head -c 1 "$TMP/f.json")" "{" "show --output is fio's JSON, kept with the run"
# Each stored figure against the number in fio's JSON, as doubles.
python3 - "$PRESSMARK_DB" "$run" "$TMP/f.json" > "$TMP/cmp" <<'EOF'
import json, sqlite3, sys
db, run, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
stored = dict(sqlite3.connect(db).execute("select name, value from metric where run_id = ?", (run,)))
jobs = json.load(open(path))["jobs"]
r = jobs[0]["read"]
p = r["clat_ns"]["percentile"]
want = {
    "fio.read_iops": sum(j["read"]["iops"] for j in jobs), "fio.read_bw_kib_s": sum(j["read"]["bw"] for j in jobs),
    "fio.measured.read_iops": r["iops"], "fio.measured.read_bw_kib_s": r["bw"],
    "fio.measured.read_clat_p50_us": p["50.000000"] / 1000.0, "fio.measured.read_clat_p99_us": p["99.000000"] / 1000.0,
    "fio.measured.read_clat_p999_us": p["99.900000"] / 1000.0,
    "fio.read_io_bytes": sum(j["read"]["io_bytes"] for j in jobs),
}
print(len(jobs), jobs[0]["jobname"])
for name, v in want.items():
    print(name, "same" if stored.get(name) == float(v) else "differs (stored %r, JSON %r)" % (stored.get(name), v))
print("write figures:", sorted(n for n in stored if n.startswith("fio.") and "write" in n))
EOF
is "$(cat "$TMP/cmp")" "1 measured
fio.read_iops same
fio.read_bw_kib_s same
fio.measured.read_iops same
fio.measured.read_bw_kib_s same
fio.measured.read_clat_p50_us same
fio.measured.read_clat_p99_us same
fio.measured.read_clat_p999_us same
fio.read_io_bytes same
write figures: []" "every figure is fio's JSON's, exactly: IOPS, bandwidth, clat p50/p99/p99.9, io_bytes; a read has no write figures"
is "$(q "select value from run_meta where run_id = $run and key = 'headline'")" fio.read_iops "the run's headline is fio.read_iops"
is "$(q "select unit || ' ' || direction from metric where run_id = $run and name = 'fio.read_iops'")" "ops/s higher" \
   "  stored as the fio parser declares it"
is "$(q "select unit || ' ' || direction from metric where run_id = $run and name = 'fio.measured.read_clat_p99_us'")" "us lower" \
   "  and its latency"
is "$(imetric "$run" fio.read_io_bytes)" $(( 96 * 1048576 )) "one pass read the whole file: io_bytes = 96M, exactly"
is "$(imetric "$run" fio.dataset_bytes)" $(( 96 * 1048576 )) "  the file was 150% of the cap"
like "$(q "select params from run where id = $run")" "^--dataset 96\.0 MiB \(150% of the cap\) --rw randread --bs 4\.0 KiB --numjobs 1 --ioengine psync --iodepth 1$" \
     "its parameters say so"
job=$(q "select value from run_meta where run_id = $run and key = 'fio.job'")
like "$job" "direct=0" "the measured job was buffered (direct=0)"
like "$job" "invalidate=0" "  and kept what the layout left cached (invalidate=0)"
# (the cgroup's page cache, as its memory.stat counts it: v1's cache, v2's file)
stat=memcg.memory.stat.file; [ "$CG_VERSION" = 1 ] && stat=memcg.memory.stat.cache
cache=$("$PM" export "$run" --series "$stat" 2>/dev/null | awk -F, 'NR > 1 && $NF > m { m = $NF } END { printf "%d", m }')
ge "$cache" $(( 16 * 1048576 )) "the run's cgroup had the file's pages charged to it ($stat up to $cache bytes)"
ok "  and held at most the cap ($(imetric "$run" memcg.usage_max_bytes))" test "$(imetric "$run" memcg.usage_max_bytes)" -le $(( 64 * 1048576 ))
# fio would drop the file's cached pages as its job starts (invalidate=1,
# its default): the measured phase would then begin near none.
"$PM" export "$run" --series "workload.phase,$stat" --wide > "$TMP/wide.csv" 2>/dev/null
least=$(awk -F, -v s="$stat" 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "workload.phase") p = i; if ($i == s) c = i }; next }
    $p == 2 && $c != "" && (m == "" || $c + 0 < m) { m = $c + 0 } END { printf "%d", m }' "$TMP/wide.csv")
ge "$least" $(( 16 * 1048576 )) "  through the measured phase, which began with the layout's pages cached (at least $least bytes)"
phases=$("$PM" export "$run" --series workload.phase 2>/dev/null | awk -F, 'NR > 1 { print $NF }' | uniq | tr '\n' ' ')
like "$phases" "^(0 )?1 2 0 $" "the samples mark the phases in order: (0,) 1 layout, 2 measured, 0 ($phases)"
is "$(dirs)" "$dirs_before" "the scratch directory, the job files and fio's file are gone"
is "$(machine_state)" "$before" "the machine is as it was"

# Random writes by two jobs for a second: the headline is fio's write IOPS.
"$PM" run fio --quiet --mem-cap 64M --rw randwrite --numjobs 2 --dataset 16M --duration 1s --label fw 2>"$TMP/err"
is "$?" 0 "randwrite, 2 jobs, --duration 1s: exit 0"
run=$(q "select id from run where label = 'fw'")
is "$(q "select value from run_meta where run_id = $run and key = 'headline'")" fio.write_iops "  its headline is fio.write_iops"
like "$("$PM" show fw 2>&1)" "^label +ops/s " "  show leads with it"
ok "  the jobs wrote whole blocks ($(imetric "$run" fio.write_io_bytes) bytes)" \
   test "$(( $(imetric "$run" fio.write_io_bytes) % 4096 ))" -eq 0 -a "$(imetric "$run" fio.write_io_bytes)" -gt 0
is "$(q "select count(*) from metric where run_id = $run and name like 'fio.%read%'")" 0 "  and has no read figures"
like "$(q "select value from run_meta where run_id = $run and key = 'fio.job'")" "time_based=1
runtime=1000ms" "  time_based for 1000 ms"

# SIGKILL of pressmark in the measured phase, its file in a --target of
# the test's: fio is inside the run's capped cgroup meanwhile, and the next
# invocation removes the directory it was working in.
"$PM" run fio --quiet --mem-cap 64M --swap 256M --dataset 32M --duration 60s --target "$TMP/real" --label killed 2>/dev/null &
pid=$!
ok "the measured phase of the run to kill starts" wait_for measuring
fio=$(measured_fio)
cg=$(cg_of "$fio")
like "$cg" "^/pressmark/run-[0-9]+(/workload)?$" "fio runs inside the run's cgroup ($cg)"
limit=$(limit_of "$cg"); [ "$limit" = max ] && limit=$(limit_of "${cg%/workload}")
is "$limit" $(( 64 * 1048576 )) "  which is capped at 64M"
scratch=$(ls -d "$TMP"/real/pressmark-fio.* 2>/dev/null)
like "$scratch" "^$TMP/real/pressmark-fio\.[0-9a-f]{12}$" "its scratch directory is in --target ($scratch)"
is "$(stat -c %a "$scratch")" 700 "  private (0700)"
is "$(ls "$scratch" | tr '\n' ' ')" "pm-fio.data pm-layout.fio pm-layout.json pm-measured.fio pm-measured.json " \
   "  holding the job files, fio's JSON and fio's file"
is "$(stat -c %s "$scratch/pm-fio.data")" $(( 32 * 1048576 )) "  laid out whole (32M)"
like "$(cat "$scratch/pm-measured.fio")" "filename=$scratch/pm-fio.data" "  the job file names it"
journal=$(cat "${PRESSMARK_STATE_DIR:-/run/pressmark}/journal")
like "$journal" "$(printf 'scratch\t%s\t\\*' "$scratch")" "  the journal has the directory, its whole tree"
kill -KILL $pid; wait $pid 2>/dev/null
"$PM" list >/dev/null 2>"$TMP/recover"
is "$?" 0 "the next invocation (pressmark list) succeeds"
like "$(cat "$TMP/recover")" "removed scratch directory $scratch" "  it removed the scratch directory"
ok "no fio is left" wait_for eval '! measuring'
is "$(ls -A "$TMP/real")" "" "nothing is left in --target"
is "$(find "$CG_ROOT/pressmark" -maxdepth 1 -name 'run-*' 2>/dev/null)" "" "nor a cgroup"
is "$(dirs)" "$dirs_before" "nor a scratch directory anywhere else"
is "$(machine_state)" "$before" "the machine is as it was"
done_testing
