#!/bin/bash
# pressmark run fio: fio's buffered I/O on a file sized against the cap,
# fio itself inside the capped cgroup; its figures stored exactly as its
# JSON gives them, the page cache charged to the run's cgroup, the layout
# and measured phases in the samples; the scratch directory, the job files
# and fio's file gone after a run, a failed one and a SIGINT, and after a
# SIGKILL by the next invocation (without following a link planted there,
# crossing a mount or emptying what is not pressmark's); no fio outlives a
# SIGKILL, with a cap or without; bad input, a --target another user could
# change, a data set the disk cannot hold, and a --ramdisk too small for
# the file or on a kernel without brd as a module (or with a brd someone
# else loaded) refused before anything is written.
. "$(dirname "$0")/lib.sh"
need_root

# Refusals before anything runs: they need no fio, no cgroup, and leave
# the machine as it was though the command asks for a cap and swap.
before=$(machine_state)
PATH=/nonexistent "$PM" run fio --mem-cap 64M --swap 256M --label nopkg >"$TMP/out" 2>"$TMP/err"
is "$?" 2 "without fio in PATH: exit 2"
is "$(cat "$TMP/err")" "pressmark run fio: fio is not installed (apt-get install fio)" "  one line naming it and the package"
is "$(cat "$TMP/out")" "" "  nothing on standard output"
is "$(db_sum)" absent "  no database made"
is "$(machine_state)" "$before" "  the machine is as it was (no cap, no swap made)"
# An empty or relative PATH entry is the working directory: a fio there is
# never the one root runs.
mkdir -p "$TMP/cwd/rel"
printf '#!/bin/sh\ntouch %s/ran\n' "$TMP" > "$TMP/cwd/fio"
cp "$TMP/cwd/fio" "$TMP/cwd/rel/fio"
chmod +x "$TMP/cwd/fio" "$TMP/cwd/rel/fio"
(cd "$TMP/cwd" && PATH=":rel:/nonexistent" "$PM" run fio --label relpath >"$TMP/out" 2>"$TMP/err")
is "$?" 2 "fio only in an empty and a relative PATH entry: exit 2"
is "$(cat "$TMP/err")" "pressmark run fio: fio is not installed (apt-get install fio)" "  as if there were none"
ok "  neither was run" test ! -e "$TMP/ran"

REAL_FIO=$(command -v fio)
case $REAL_FIO in
    /*) ;;
    *) skip "needs fio (apt-get install fio)"; done_testing; exit ;;
esac
if ! memcg_hierarchy; then
    skip "needs a memory cgroup hierarchy (cgroup v2 with memory, or v1's memory controller)"; done_testing; exit
fi
# Where scratch directories go by default, and this test's view of them.
DEF=${TMPDIR:-/var/tmp}
dirs() { ls -d "$DEF"/pressmark-fio.* /pressmark-fio.* 2>/dev/null; }
dirs_before=$(dirs)
new_dirs() { dirs | while read -r d; do printf '%s\n' "$dirs_before" | grep -qxF -- "$d" || echo "$d"; done; }
# A file system's type as run fio's metadata names it, from stat -f.
fs_named() {
    local t; t=$(stat -f -c %t "$1")
    case $t in ef53) echo "ext2/3/4 (0x$t)" ;; 1021994) echo "tmpfs (0x$t)" ;; 58465342) echo "xfs (0x$t)" ;;
        9123683e) echo "btrfs (0x$t)" ;; *) echo "another (0x$t)" ;; esac
}
# the measured phase's fio, once it runs (its job file names the phase)
# (called here, never through sh -c: a shell's command line holding the
# pattern would match it)
# (fio's own command line, not the prelude's sh -c before it execs fio)
measured_fio() { pgrep -f -- '^([^ ]*/)?fio --output-format=json --output=.*/pm-measured\.json' | head -1; }
measuring() { [ -n "$(measured_fio)" ]; }
any_fio() { pgrep -f -- '^([^ ]*/)?fio --output-format=json --output=' >/dev/null; }
# (the bytes a process has read through read(2) and pread(2), its threads'
# with it; a child process's are its own)
rchar() { awk '$1 == "rchar:" { print $2 }' "/proc/$1/io" 2>/dev/null; }
# the measured phase's fio has read 8M, whichever of its processes did:
# its job is running (not still being started, when killing fio's first
# process alone would leave nothing behind in any design)
fio_reading() {
    local p r t=0
    for p in $(pgrep -f -- '^([^ ]*/)?fio --output-format=json --output=.*/pm-measured\.json'); do
        r=$(rchar "$p"); t=$(( t + ${r:-0} ))
    done
    [ "$t" -gt $(( 8 << 20 )) ]
}
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
bad "fio's buffers more than the machine holds" "^pressmark run fio: --numjobs x --iodepth x --bs: 64\.0 TiB is more than this machine can hold even with swap" \
    run fio --numjobs 256 --iodepth 4096 --bs 64M --ioengine libaio --label x
bad "--dataset a share with no cap" "^pressmark run fio: --dataset: '150%' is a share of the cap and there is none" \
    run fio --dataset 150% --label x
bad "--dataset a share in hex" "^pressmark run fio: --dataset: '0x10%' is not a size \(accepted: .* or a percentage of --mem-cap up to 1000% such as 150%\)$" \
    run fio --dataset 0x10% --mem-cap 64M --label x
bad "--dataset a share with an exponent" "^pressmark run fio: --dataset: '1e3%' is not a size" \
    run fio --dataset 1e3% --mem-cap 64M --label x
bad "--dataset below one block" "^pressmark run fio: --dataset: 1\.0 KiB is less than one --bs block \(4\.0 KiB\)$" \
    run fio --dataset 1K --label x

# --ramdisk: its size first, then what this machine has. A kernel without
# brd as a module (this host's 6.18) refuses the run in one line saying
# so and what would do, before any cap, swap or module; a brd someone
# else loaded is refused and left loaded (and on decoys: unit_ramdisk).
# The ramdisk itself is made, used and undone in a 6.12 guest
# (tests/slow/t62-fio-mglru.t).
accepted='\(accepted: 64M to 1T, a multiple of 4K; 0 for none\)'
bad "--ramdisk below 64M" "^pressmark run fio: --ramdisk: 32\.0 MiB is less than 64M $accepted$" \
    run fio --ramdisk 32M --label x
bad "--ramdisk not whole pages" "^pressmark run fio: --ramdisk: 67109888 bytes is not a multiple of 4K $accepted$" \
    run fio --ramdisk 65537K --label x
bad "--ramdisk above 1T" "^pressmark run fio: --ramdisk: '2T' is not a size \(accepted: .*; 64M to 1T, a multiple of 4K; 0 for none\)$" \
    run fio --ramdisk 2T --label x
bad "--ramdisk too small for the file" "^pressmark run fio: --ramdisk: 100\.0 MiB holds 88\.9 MiB of files at most \(ext4's tables and journal take the rest\), less than --dataset's 96\.0 MiB \(accepted: 108\.0 MiB or more\)$" \
    run fio --ramdisk 100M --mem-cap 64M --label x
before=$(machine_state)
if [ -e /sys/module/brd ]; then
    bad "--ramdisk where brd is loaded already" "^pressmark run fio: --ramdisk 256\.0 MiB: brd is loaded already \(/sys/module/brd: built in, or loaded by someone else" \
        run fio --ramdisk 256M --mem-cap 64M --swap 256M --label x
    ok "  and it is left loaded" test -e /sys/module/brd
elif modprobe --dry-run --quiet brd 2>/dev/null; then
    skip "this kernel has brd as a module (its ramdisk runs in tests/slow/t62-fio-mglru.t's guest)"
    skip "(nothing to refuse here)"; skip "(nothing to refuse here)"; skip "(nothing to refuse here)"; skip "(nothing to refuse here)"
else
    bad "--ramdisk where this kernel has no brd" "^pressmark run fio: --ramdisk 256\.0 MiB: this kernel \($(re "$(uname -r)")\) has no brd module that modprobe finds \(accepted: a kernel whose brd is a module, CONFIG_BLK_DEV_RAM=m, as Debian's 6\.12; without one the nearest is a tmpfs, whose files are shmem, not page cache\)$" \
        run fio --ramdisk 256M --mem-cap 64M --swap 256M --label x
fi
is "$(machine_state)" "$before" "  refused before any cap, swap, module or mount"

# A --target another user could change, or a link to somewhere else: the
# decoys are the test's own, and nothing is made in any of them.
mkdir -m 0755 "$TMP/real" "$TMP/real/sub" "$TMP/theirs" "$TMP/a:b"
ln -s "$TMP/real" "$TMP/link"
mkdir "$TMP/open" && chmod 0777 "$TMP/open" && mkdir -m 0755 "$TMP/open/below"
esc=$(printf 'e\033[31mx') nl=$(printf 'n\nl')
mkdir -m 0755 "$TMP/$esc" "$TMP/$nl"
chown nobody "$TMP/theirs"
for d in real theirs open/below a:b "$esc" "$nl"; do touch "$TMP/$d/keep"; done
touch "$TMP/open/keep"
decoys() { for d in real real/sub theirs open open/below a:b "$esc" "$nl"; do stat -c '%n %u %a' "$TMP/$d"; ls -A "$TMP/$d"; done; }
decoys_before=$(decoys)
bad "--target a symbolic link" "^pressmark run fio: --target: '$TMP/link' is a symbolic link \(accepted: the directory itself" \
    run fio --target "$TMP/link" --label x
bad "--target a symbolic link, with a slash" "^pressmark run fio: --target: '$TMP/link/' is a symbolic link" \
    run fio --target "$TMP/link/" --label x
bad "--target through a symbolic link" "^pressmark run fio: --target: '$TMP/link/sub' passes through a symbolic link \(it is $TMP/real/sub; accepted: a path with none\)$" \
    run fio --target "$TMP/link/sub" --label x
bad "--target through a link and back up" "^pressmark run fio: --target: '$TMP/link/sub/\.\.' passes through a symbolic link" \
    run fio --target "$TMP/link/sub/.." --label x
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
bad "--target with an escape sequence, shown escaped" "^pressmark run fio: --target: '$TMP/e\\\\x1b\[31mx' cannot go into fio's job file" \
    run fio --target "$TMP/$esc" --label x
bad "--target with a line break, on one line" "^pressmark run fio: --target: '$TMP/n\\\\x0al' cannot go into fio's job file" \
    run fio --target "$TMP/$nl" --label x
long=$TMP/long/$(printf 'd%.0s' $(seq 120))/$(printf 'e%.0s' $(seq 120))/$(printf 'f%.0s' $(seq 120))/$(printf 'g%.0s' $(seq 120))
mkdir -p -m 0755 "$long"
bad "--target too long for the journal" "^pressmark run fio: --target: '$(re "$TMP")/long/d+\.\.\.' is too long a path for the files below it \(accepted: at most 464 bytes\)$" \
    run fio --target "$long" --label x
is "$(find "$TMP/long" -type f | wc -l)" 0 "  nothing was made there"
TMPDIR=$TMP/open bad "TMPDIR writable by others, no --target" "^pressmark run fio: TMPDIR: '$TMP/open' is writable by other users" \
    run fio --label x
TMPDIR=$TMP/link bad "TMPDIR a link, named as TMPDIR" "^pressmark run fio: TMPDIR: '$TMP/link' is a symbolic link" \
    run fio --label x
is "$(decoys)" "$decoys_before" "nothing was made in any decoy, nor beside them; none changed owner or mode"

# A --target with less room than the data set and the spare a disk keeps
# (1% of what is free and 64 MiB): a 128M tmpfs of the test's, 20M of it
# taken.
mkdir -m 0755 "$TMP/small"
setup "a 128M tmpfs in $TMP/small" mount -t tmpfs -o size=128M,mode=0755 pm-t62-small "$TMP/small"
cleanup_add "umount '$TMP/small'"
setup "20M of it taken" dd if=/dev/zero of="$TMP/small/fill" bs=1M count=20 status=none
bad "--dataset more than --target has room for" "^pressmark run fio: --dataset: 48\.0 MiB does not fit in $TMP/small: [0-9.]+ MiB free there \(accepted: what leaves 1% and 64 MiB of it free, or a --target with room\)$" \
    run fio --dataset 48M --target "$TMP/small" --label x
before=$(machine_state)
bad "  the same under a cap with swap" "^pressmark run fio: --dataset: 48\.0 MiB does not fit in $TMP/small: " \
    run fio --dataset 48M --target "$TMP/small" --mem-cap 64M --swap 256M --label x
is "$(machine_state)" "$before" "  refused before any cap or swap was made"
# The run's swap file and fio's file on one file system: together they
# must fit (each alone here would, by 512M). The data set is most of the
# disk: a soft limit on the size of a file (2G: above the swap file's,
# below the disk's room) keeps a check that let it through from filling
# the disk, fio dying of SIGXFSZ instead.
# The swap file goes to /var/lib/pressmark/swap, so the target is on that
# file system: $TMP where it is (this machine), else a directory of the
# test's own beside it (where /tmp is a tmpfs of its own, as on many
# hosts and in make fresh-root's root).
# (one a killed t62 left is removed first: the machine lane is this test's)
rm -rf /var/lib/pm-t62-disk.*
swapfs=/var/lib/pressmark; [ -d "$swapfs" ] || swapfs=/var/lib
one=$TMP/real
if [ "$(stat -c %d "$TMP/real")" != "$(stat -c %d "$swapfs")" ]; then
    one=$(mktemp -d /var/lib/pm-t62-disk.XXXXXX) || { echo "Bail out! no directory beside /var/lib/pressmark"; exit 1; }
    cleanup_add "rm -rf '$one'"
fi
ulimit -S -f $(( 2 << 20 ))
avail=$(df --output=avail -B1 "$one" | tail -1)
ds=$(( (avail - avail / 100 - (64 << 20) - (512 << 20)) >> 20 ))
bad "--dataset and --swap's file on one disk" "^pressmark run fio: --dataset: .* and --swap's file of 1\.0 GiB do not fit in $one: " \
    run fio --dataset "${ds}M" --target "$one" --swap 1G --label x
printf '[global]\nruns = 1\n[fit]\nworkload = fio\ndataset = %sM\ntarget = %s\n' "$ds" "$one" > "$TMP/fit.ini"
PRESSMARK_DB=$TMP/plan.db "$PM" suite plan "$TMP/fit.ini" >"$TMP/plan.out" 2>"$TMP/plan.err"
is "$?" 0 "  the data set alone fits ($ds MiB: suite plan checks its cell; $(head -1 "$TMP/plan.err"))"
ulimit -S -f unlimited

# Two jobs on the tmpfs, one pass each: the file read twice, exactly; the
# run's metadata says where it was.
"$PM" run fio --quiet --dataset 4M --numjobs 2 --target "$TMP/small" --label twice 2>"$TMP/err"
is "$?" 0 "two jobs over a 4M file on a tmpfs: exit 0 ($(tail -1 "$TMP/err"))"
is "$(q "select status || ' ' || coalesce(reason, '') from run where label = 'twice'")" "ok " "  its run is ok"
is "$(imetric twice fio.read_io_bytes)" $(( 2 * 4 << 20 )) "  one pass each read the file twice over: 8M"
fs=$(q "select value from run_meta m join run r on r.id = m.run_id where r.label = 'twice' and key = 'fio.target_fs'")
is "$fs" "$(fs_named "$TMP/small")" "  its metadata names the file system, a tmpfs (stat -f's type)"
is "${fs%% *}" tmpfs "  (which is a tmpfs)"
is "$(ls -A "$TMP/small")" fill "  and nothing is left in the place"

# The default data set (150% of a 64M cap) read once at random, 4K at a
# time, from a file on the disk under the cap with swap. The fio run is
# the first in PATH's absolute directories: a wrapper of the test's that
# runs the real one and keeps a copy of each JSON it wrote.
mkdir -m 0700 "$TMP/wrap" "$TMP/copies"
cat > "$TMP/wrap/fio" <<EOF
#!/bin/sh
"$REAL_FIO" "\$@"; rc=\$?
for a; do case \$a in --output=*) cp "\${a#--output=}" "$TMP/copies/";; esac; done
exit \$rc
EOF
chmod 0755 "$TMP/wrap/fio"
before=$(machine_state)
PATH="$TMP/wrap:$PATH" "$PM" run fio --mem-cap 64M --swap 256M --interval 50ms --label f >"$TMP/out" 2>"$TMP/err"
is "$?" 0 "pressmark run fio --mem-cap 64M --swap 256M: exit 0 ($(tail -1 "$TMP/err"))"
run=$(q "select id from run where label = 'f'")
meta() { q "select value from run_meta where run_id = $1 and key = '$2'"; }
is "$(q "select status || ' ' || coalesce(reason, '') from run where id = $run")" "ok " "its run is stored ok"
like "$(tail -1 "$TMP/err")" "^pressmark: run $run \[f\] ok: fio\.read_iops [1-9][0-9,.]* ops/s, " "the run line leads with fio's read IOPS"
is "$(meta "$run" fio.path)" "$TMP/wrap/fio" "fio was the first in PATH, by its absolute path"
is "$(ls "$TMP/copies" | tr '\n' ' ')" "pm-layout.json pm-measured.json " "  which kept both of fio's JSON files"
"$PM" show --output "$run" > "$TMP/f.json"
ok "show --output is fio's measured JSON byte for byte" cmp -s "$TMP/f.json" "$TMP/copies/pm-measured.json"
# Each stored figure against the number in fio's own JSON, as doubles.
python3 - "$PRESSMARK_DB" "$run" "$TMP/copies/pm-measured.json" > "$TMP/cmp" <<'EOF'
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
o = jobs[0]["job options"]
print(" ".join("%s=%s" % (k, o.get(k)) for k in ("rw", "bs", "size", "numjobs", "direct", "invalidate", "thread",
                                                  "norandommap", "random_distribution", "ioengine", "iodepth")))
print("total_ios", r["total_ios"], "write total_ios", jobs[0]["write"]["total_ios"])
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
write figures: []
rw=randread bs=4096 size=100663296 numjobs=1 direct=0 invalidate=0 thread=1 norandommap=1 random_distribution=random ioengine=psync iodepth=1
total_ios 24576 write total_ios 0" \
   "every figure is fio's own JSON's, exactly; a read has no write figures; fio ran the job asked (its job options), 96M / 4K reads"
is "$(meta "$run" headline)" fio.read_iops "the run's headline is fio.read_iops"
is "$(q "select unit || ' ' || direction from metric where run_id = $run and name = 'fio.read_iops'")" "ops/s higher" \
   "  stored as the fio parser declares it"
is "$(q "select unit || ' ' || direction from metric where run_id = $run and name = 'fio.measured.read_clat_p99_us'")" "us lower" \
   "  and its latency"
is "$(imetric "$run" fio.read_io_bytes)" $(( 96 * 1048576 )) "one pass read the whole file: io_bytes = 96M, exactly"
is "$(imetric "$run" fio.dataset_bytes)" $(( 96 * 1048576 )) "  the file was 150% of the cap"
is "$(q "select params from run where id = $run")" "--dataset 96.0 MiB (150% of the cap) --rw randread --bs 4.0 KiB --numjobs 1 --ioengine psync --iodepth 1" \
   "its parameters say so"
ob=$(imetric "$run" time.oublock)
ok "the measured phase wrote next to nothing (time.oublock $ob, the file is $(( 96 * 2048 )) blocks)" \
   test -n "$ob" -a "${ob:-0}" -lt $(( 96 * 2048 / 16 ))
ok "  the layout phase took a time (fio.layout_s $(metric "$run" fio.layout_s))" \
   python3 -c 'import sys; sys.exit(not float(sys.argv[1]) > 0)' "$(metric "$run" fio.layout_s)"
is "$(meta "$run" fio.target_fs)" "$(fs_named "$DEF")" "  its metadata names the default place's file system"
job=$(meta "$run" fio.job)
is "$(printf '%s\n' "$job" | grep -c '^filename=')" 1 "the measured job names one file"
filename=$(printf '%s\n' "$job" | sed -n 's/^filename=//p')
like "$filename" "^$(re "$DEF")/pressmark-fio\.[0-9a-f]{12}/pm-fio\.data$" "  in a scratch directory of the default place ($filename)"
ok "  which is gone with it" test ! -e "${filename%/pm-fio.data}"
is "$(printf '%s\n' "$job" | grep -cx 'direct=0')" 1 "the measured job was buffered (direct=0)"
is "$(printf '%s\n' "$job" | grep -cx 'invalidate=0')" 1 "  and kept what the layout left cached (invalidate=0)"
is "$(printf '%s\n' "$job" | grep -cx 'thread=1')" 1 "  its jobs threads of one process (thread=1)"
is "$(meta "$run" fio.layout_job)" "$(printf '%s\n' "; pressmark run fio, the layout phase: the file written once, start to end, and synced." \
    "; Written by pressmark from numbers and fixed words." "[layout]" "size=100663296" "bs=1048576" "rw=write" \
    "ioengine=psync" "direct=0" "invalidate=0" "end_fsync=1" "thread=1" "filename=$filename")" \
   "the layout job, exactly: the same file written whole in 1M blocks, buffered, synced, one process"
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
# The phases in the samples: each lasts as long as fio did, so one that
# took less than two ticks may fall between them; then only their order
# is held, and the diagnosis says why.
"$PM" export "$run" --series workload.phase 2>/dev/null | awk -F, 'NR > 1 { print $NF }' > "$TMP/phases"
phases=$(uniq < "$TMP/phases" | tr '\n' ' ')
ticks=$(sort "$TMP/phases" | uniq -c | awk '{ printf "phase %s: %d ticks; ", $2, $1 }')
short=$(for p in 1 2; do [ "$(grep -cx "$p" "$TMP/phases")" -ge 2 ] || echo "$p"; done | tr '\n' ' ')
if [ -z "$short" ]; then
    like "$phases" "^(0 )?1 2 0 $" "the samples mark the phases in order: (0,) 1 layout, 2 measured, 0 ($phases; $ticks)"
else
    echo "# phase(s) $short had fewer than 2 ticks of 50ms ($ticks layout $(metric "$run" fio.layout_s) s): their order only"
    like "$phases" "^(0 )?(1 )?(2 )?0 $" "the samples mark the phases in order where they caught them ($phases; $ticks)"
fi
is "$(dirs)" "$dirs_before" "no scratch directory is left"
is "$(machine_state)" "$before" "the machine is as it was"

# Random writes by two jobs for a second: the headline is fio's write
# IOPS, every write figure fio's own.
rm -f "$TMP"/copies/*
PATH="$TMP/wrap:$PATH" "$PM" run fio --quiet --mem-cap 64M --rw randwrite --numjobs 2 --dataset 16M --duration 1s --label fw 2>"$TMP/err"
is "$?" 0 "randwrite, 2 jobs, --duration 1s: exit 0"
run=$(q "select id from run where label = 'fw'")
is "$(q "select status from run where id = $run")" ok "  its run is ok"
is "$(meta "$run" headline)" fio.write_iops "  its headline is fio.write_iops"
"$PM" show --format json fw > "$TMP/fw-show.json"
python3 - "$PRESSMARK_DB" "$run" "$TMP/copies/pm-measured.json" "$TMP/fw-show.json" > "$TMP/cmp" <<'EOF'
import json, sqlite3, sys
db, run, path, shown = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
stored = dict(sqlite3.connect(db).execute("select name, value from metric where run_id = ?", (run,)))
doc = json.load(open(path))
jobs = doc["jobs"]
w = jobs[0]["write"]
p = w["clat_ns"]["percentile"]
want = {
    "fio.write_iops": sum(j["write"]["iops"] for j in jobs), "fio.write_bw_kib_s": sum(j["write"]["bw"] for j in jobs),
    "fio.measured.write_iops": w["iops"], "fio.measured.write_bw_kib_s": w["bw"],
    "fio.measured.write_clat_p50_us": p["50.000000"] / 1000.0, "fio.measured.write_clat_p99_us": p["99.000000"] / 1000.0,
    "fio.measured.write_clat_p999_us": p["99.900000"] / 1000.0,
    "fio.write_io_bytes": sum(j["write"]["io_bytes"] for j in jobs),
}
print(len(jobs), jobs[0]["jobname"])
for name, v in want.items():
    print(name, "same" if stored.get(name) == float(v) else "differs (stored %r, JSON %r)" % (stored.get(name), v))
print("read figures:", sorted(n for n in stored if n.startswith("fio.") and "read" in n))
o = jobs[0]["job options"]
print(" ".join("%s=%s" % (k, o.get(k)) for k in ("rw", "numjobs", "time_based", "runtime", "thread", "group_reporting")))
print("whole blocks", w["io_bytes"] % 4096 == 0 and w["io_bytes"] > 0, "read total_ios", jobs[0]["read"]["total_ios"])
s = json.load(open(shown))
print("show: headline", s["metadata"]["headline"], "value", "same" if s["metrics"]["fio.write_iops"]["value"] == stored["fio.write_iops"] else "differs")
EOF
is "$(cat "$TMP/cmp")" "1 measured
fio.write_iops same
fio.write_bw_kib_s same
fio.measured.write_iops same
fio.measured.write_bw_kib_s same
fio.measured.write_clat_p50_us same
fio.measured.write_clat_p99_us same
fio.measured.write_clat_p999_us same
fio.write_io_bytes same
read figures: []
rw=randwrite numjobs=2 time_based=1 runtime=1000ms thread=1 group_reporting=1
whole blocks True read total_ios 0
show: headline fio.write_iops value same" \
   "  every write figure is fio's JSON's (one report for both jobs), no read figure; time_based for 1000 ms; show --format json heads with fio.write_iops"
job=$(meta "$run" fio.job)
is "$(printf '%s\n' "$job" | grep -cx 'time_based=1')" 1 "  its job is time_based"
is "$(printf '%s\n' "$job" | grep -cx 'runtime=1000ms')" 1 "  for 1000 ms"

# fio failing: a stand-in first in PATH lays the file out with the real
# fio, then ends the measured phase its way.
mkdir -m 0700 "$TMP/stub"
cat > "$TMP/stub/fio" <<EOF
#!/bin/sh
case "\$*" in *pm-layout.fio) exec "$REAL_FIO" "\$@" ;; esac
case "\$PM_T62_STUB" in
exit1) echo "fio: pm-t62: engine psync failed to load" >&2; exit 1 ;;
other) for a; do case \$a in --output=*) cp "$ROOT/tests/fixtures/figures/fio-3.33.json" "\${a#--output=}";; esac; done ;;
esac
EOF
chmod 0755 "$TMP/stub/fio"
before=$(machine_state)
PM_T62_STUB=exit1 PATH="$TMP/stub:$PATH" "$PM" run fio --quiet --mem-cap 64M --dataset 4M --target "$TMP/real" --label stub1 2>/dev/null
is "$(q "select status || ': ' || reason from run where label = 'stub1'")" \
   "failed: fio exited with status 1: fio: pm-t62: engine psync failed to load" "fio exiting 1: the run failed, quoting fio"
is "$(ls -A "$TMP/real" | tr '\n' ' ')" "keep sub " "  its scratch directory is gone"
PM_T62_STUB=other PATH="$TMP/stub:$PATH" "$PM" run fio --quiet --mem-cap 64M --dataset 4M --target "$TMP/real" --label stub2 2>/dev/null
is "$(q "select status || ': ' || reason from run where label = 'stub2'")" \
   "failed: one pass of 1 job over 4194304 bytes read 15654912 bytes, not 4194304" \
   "fio's JSON of another job: the bytes of one pass do not add up, and the run fails saying so"
is "$(ls -A "$TMP/real" | tr '\n' ' ')" "keep sub " "  its scratch directory is gone"
is "$(machine_state)" "$before" "  the machine is as it was"

# SIGINT in the measured phase: the run is aborted, and the same
# invocation removes its directory; no fio is left.
"$PM" run fio --quiet --mem-cap 64M --dataset 16M --duration 60s --target "$TMP/real" --label interrupted 2>/dev/null &
pid=$!
ok "the measured phase of the run to interrupt starts" wait_for measuring
kill -INT $pid; wait $pid
is "$?" 130 "SIGINT ends it (exit 130)"
is "$(q "select status from run where label = 'interrupted'")" aborted "  its run is aborted"
is "$(ls -A "$TMP/real" | tr '\n' ' ')" "keep sub " "  its scratch directory is gone when it exits"
ok "  and no fio is left" test -z "$(any_fio && echo left)"
is "$(machine_state)" "$before" "  the machine is as it was"

# SIGKILL of pressmark in the measured phase, its file in a sticky
# --target of the test's: fio is inside the run's capped cgroup meanwhile,
# and dies with pressmark; the next invocation removes the directory it
# was working in, but only what is pressmark's.
mkdir -m 1777 "$TMP/sticky"
"$PM" run fio --quiet --mem-cap 64M --swap 256M --dataset 16M --duration 60s --target "$TMP/sticky" --label killed 2>/dev/null &
pid=$!
ok "the measured phase of the run to kill starts" wait_for measuring
fio=$(measured_fio)
cg=$(cg_of "$fio")
like "$cg" "^/pressmark/run-[0-9]+(/workload)?$" "fio runs inside the run's cgroup ($cg)"
limit=$(limit_of "$cg"); [ "$limit" = max ] && limit=$(limit_of "${cg%/workload}")
is "$limit" $(( 64 * 1048576 )) "  which is capped at 64M"
ok "  fio itself reads the file (its job's reads are its own: a thread of it)" \
   wait_for eval '[ "$(rchar "$fio")" -gt $((8 << 20)) ]'
is "$(cat "$CG_ROOT$cg/cgroup.procs")" "$fio" "  and fio alone is in the cgroup, one process"
scratch=$(ls -d "$TMP"/sticky/pressmark-fio.* 2>/dev/null)
like "$scratch" "^$(re "$TMP")/sticky/pressmark-fio\.[0-9a-f]{12}$" "its scratch directory is in --target ($scratch)"
is "$(stat -c '%a %u' "$scratch")" "700 0" "  root's and private (0700)"
ok "  fio has written its JSON there" wait_for test -e "$scratch/pm-measured.json"
is "$(ls "$scratch" | tr '\n' ' ')" "pm-fio.data pm-layout.fio pm-layout.json pm-measured.fio pm-measured.json " \
   "  holding the job files, fio's JSON and fio's file"
is "$(stat -c %s "$scratch/pm-fio.data")" $(( 16 * 1048576 )) "  laid out whole (16M)"
is "$(grep -c '^filename=' "$scratch/pm-measured.fio") $(grep -cx "filename=$scratch/pm-fio.data" "$scratch/pm-measured.fio")" "1 1" \
   "  the job file names it, and only it"
journal=$(cat "${PRESSMARK_STATE_DIR:-/run/pressmark}/journal")
is "$(printf '%s\n' "$journal" | grep -cxF "$(printf 'scratch\t%s\t*' "$scratch")")" 1 "  the journal has the directory, its whole tree"
cgdirs=$(printf '%s\n' "$journal" | awk -F'\t' '$1 == "cgroup" { print $2 }')
like "$cgdirs" "^$(re "$CG_ROOT")/pressmark/run-[0-9]+(/workload)?$" "  and the run's cgroups ($(echo $cgdirs))"
kill -KILL $pid; wait $pid 2>/dev/null
ok "fio dies with pressmark" wait_for eval '! measuring'
# What recovery must not touch: a victim a link planted in the directory
# points to; the directory itself while another user owns it (in a place
# others may write); a file system mounted inside it.
mkdir -m 0755 "$TMP/victim" && echo precious > "$TMP/victim/file"
ln -s "$TMP/victim" "$scratch/dirlink"; ln -s "$TMP/victim/file" "$scratch/filelink"
mkdir "$scratch/mnt"
setup "a tmpfs mounted in the killed run's directory" mount -t tmpfs -o size=1M pm-t62-inner "$scratch/mnt"
cleanup_add "umount '$scratch/mnt'"
echo inner > "$scratch/mnt/file"
chown nobody "$scratch"
"$PM" list >/dev/null 2>"$TMP/recover"
like "$(cat "$TMP/recover")" "did not empty $(re "$scratch"): owned by uid $(id -u nobody) with mode 0700, in a directory others may write" \
   "a directory of another user's at the journalled path (in a sticky place) is not emptied"
is "$(ls "$scratch" | tr '\n' ' ')" "dirlink filelink mnt pm-fio.data pm-layout.fio pm-layout.json pm-measured.fio pm-measured.json " \
   "  everything in it is there"
chown root "$scratch"
"$PM" list >/dev/null 2>"$TMP/recover"
like "$(cat "$TMP/recover")" "could not empty $(re "$scratch"): Invalid cross-device link \(kept in the journal" \
   "pressmark's own again: emptied but for the mount, which keeps it in the journal"
is "$(cat "$scratch/mnt/file" 2>&1) $(ls -A "$scratch" | tr '\n' ' ')" "inner mnt " "  the mounted file system untouched"
umount "$scratch/mnt"
"$PM" list >/dev/null 2>"$TMP/recover"
is "$?" 0 "the next invocation (pressmark list) succeeds"
like "$(cat "$TMP/recover")" "removed scratch directory $(re "$scratch")" "  and removes the scratch directory"
is "$(cat "$TMP/victim/file") $(ls -A "$TMP/victim")" "precious file" "  no link was followed: the victim is whole"
ok "no fio is left" test -z "$(any_fio && echo left)"
is "$(ls -A "$TMP/sticky")" "" "nothing is left in --target"
for c in $cgdirs; do ok "  nor the run's cgroup ${c#$CG_ROOT}" test ! -e "$c"; done
is "$(dirs)" "$dirs_before" "nor a scratch directory anywhere else"
is "$(machine_state)" "$before" "the machine is as it was"

# Without a cap no cgroup holds fio: the parent-death signal alone must
# end it, its jobs (threads) with it. In / itself: a journal line with no
# doubled slash, which recovery takes.
"$PM" run fio --quiet --dataset 16M --duration 60s --target / --label uncapped 2>/dev/null &
pid=$!
ok "the measured phase of an uncapped run starts, its job reading" wait_for fio_reading
scratch=$(new_dirs)
cleanup_add "rm -rf -- '$scratch'"
like "$scratch" "^/pressmark-fio\.[0-9a-f]{12}$" "its scratch directory is in / with one slash ($scratch)"
kill -KILL $pid; wait $pid 2>/dev/null
ok "fio dies with pressmark, with no cgroup to kill it" wait_for eval '! any_fio'
"$PM" list >/dev/null 2>"$TMP/recover"
like "$(cat "$TMP/recover")" "removed scratch directory $(re "$scratch")$" "the next invocation removes it"
ok "  it is gone" test ! -e "$scratch"
is "$(dirs)" "$dirs_before" "no scratch directory is left"
is "$(machine_state)" "$before" "the machine is as it was"
done_testing
