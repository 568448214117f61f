#!/bin/bash
# The guest's side of tools/v2-host-check.sh (make v2-host-check): run by
# systemd as a service in a Debian 12 guest on the unified cgroup
# hierarchy, in the clone on /src. Says what host this is (kernel, process
# 1, the root cgroup's controllers, this service's own cgroup, swap), runs
# ./run.sh (set-up, build, the main job) and then each test of
# /src/tests.list under prove, for real, and writes a summary and a status
# to /src/v2-host-check/ (the host reads them from the disk), each line
# also on the console as it comes. The guest powers off when it ends
# (the unit's SuccessAction and FailureAction).
set -u
cd /src/pressmark || exit 1
out=/src/v2-host-check
rm -rf "$out"
mkdir -p "$out"
note() { printf 'v2-host-check: %s\n' "$*" | tee -a "$out/summary"; }
# Everything after the boot, as a user who logs in would find it.
state=$(systemctl is-system-running --wait 2>&1)

note "kernel: $(uname -r) ($(uname -v))"
note "process 1: $(cat /proc/1/comm) ($(systemctl --version | head -1)), system $state"
note "cgroup mounts: $(findmnt -rn -t cgroup,cgroup2 -o TARGET,FSTYPE | tr '\n' ' ')"
note "/sys/fs/cgroup/cgroup.controllers: $(cat /sys/fs/cgroup/cgroup.controllers)"
note "/sys/fs/cgroup/cgroup.subtree_control: $(cat /sys/fs/cgroup/cgroup.subtree_control)"
note "this check's cgroup: $(cat /proc/self/cgroup)"
note "swap: $(swapon --show=NAME,TYPE,SIZE --noheadings | tr -s ' ' | paste -sd ';')"
note "memory: $(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo), $(nproc) CPUs"
note "tree: $(git log -1 --format='%h %s' | cut -c1-72)"

# ./run.sh as a new user runs it: its set-up finds every package (the
# host installed them into the image), its build nothing to do (the host
# built this clone; a file rebuilt here is named), then the main job.
run_rc=0
if [ "$(cat /src/run-sh)" = yes ]; then
    touch "$out/before-run"
    t0=$SECONDS
    ./run.sh > "$out/run.log" 2>&1
    run_rc=$?
    rebuilt=$(find build pressmark -newer "$out/before-run" -type f \( -name '*.o' -o -name '*.a' -o -name pressmark \
              -o -name '*.t' -o -name '*.replay' \) | wc -l)
    note "./run.sh: exit $run_rc after $((SECONDS - t0)) s; files its build made here: $rebuilt"
    grep -E '^run\.sh: ' "$out/run.log" | sed 's/^/v2-host-check:   /' | tee -a "$out/summary"
    grep -E '^  --cap-method auto|^  cgroup v2 memory controller|^pressmark: suite .* complete|^cap (none|128M) |cap\.method' \
        "$out/run.log" | sed 's/^/v2-host-check:   main job: /' | tee -a "$out/summary"
else
    note "./run.sh: not run (--tests-only)"
fi

# What the tests leave (tools/machine-state.sh's cgroups, swaps, helpers
# and journal), before the first and after each.
tools/machine-state.sh host | grep -E '^(cgroups|swaps|helpers|journal):' | paste -sd ' ' > "$out/state-before"
note "machine before the tests: $(cat "$out/state-before")"

# Each test file under prove, its whole TAP in tNN.log; its summary here.
files=0 checks=0 failed=0 skipped=0 bad_files=
while read -r t; do
    t0=$SECONDS
    # (stdin not the list: a test that reads its input would eat the
    # tests after it, as t70 ate t81 once)
    PRESSMARK_BIN=/src/pressmark/build/pressmark prove -v "tests/$t.t" > "$out/$t.log" 2>&1 < /dev/null
    prc=$?
    files=$((files + 1))
    n_ok=$(grep -cE '^ok [0-9]+' "$out/$t.log")
    n_not=$(grep -cE '^not ok [0-9]+' "$out/$t.log")
    n_skip=$(grep -cE '^ok [0-9]+ # SKIP' "$out/$t.log")
    all=$(grep -E '^1\.\.0 # SKIP' "$out/$t.log" | head -1)
    checks=$((checks + n_ok + n_not))
    failed=$((failed + n_not))
    skipped=$((skipped + n_skip))
    if [ -n "$all" ]; then
        line="skipped whole: ${all#1..0 # SKIP }"
    elif [ "$prc" -eq 0 ]; then
        line="ok, $((n_ok + n_not)) checks${n_skip:+ ($n_skip skipped)}"
    else
        line="FAILED: $n_not of $((n_ok + n_not)) checks failed (prove exit $prc)"
        bad_files="$bad_files $t"
    fi
    [ "$n_skip" -eq 0 ] && line=${line/ (0 skipped)/}
    note "$(printf '%-24s %s, %d s' "$t" "$line" $((SECONDS - t0)))"
    if [ "$prc" -ne 0 ]; then
        # The failed checks with what they said (lib.sh's got/want lines).
        awk '/^not ok/ { p = 1; n++ } /^ok/ { p = 0 } p && n <= 8' "$out/$t.log" | head -40 |
            sed 's/^/v2-host-check:     /' | tee -a "$out/summary"
    fi
    # Whatever a test left behind shows in the next one's before-and-after;
    # name it here too.
    left=$(tools/machine-state.sh host | grep -E '^(cgroups|swaps|helpers|journal):' | paste -sd ' ')
    [ "$left" = "$(cat "$out/state-before")" ] && left=''
    [ -z "$left" ] || note "  after $t: $left"
done < /src/tests.list
note "tests: $files files, $checks checks, $failed failed, $skipped skipped; failed files:${bad_files:- none}"
status=0
listed=$(grep -c . /src/tests.list)
if [ "$files" -ne "$listed" ]; then
    note "tests: only $files of the $listed listed ran"
    bad_files="$bad_files (not run: $((listed - files)))"
fi
[ "$run_rc" -eq 0 ] && [ -z "$bad_files" ] || status=1
note "result: $([ "$status" -eq 0 ] && echo PASS || echo FAIL) (./run.sh exit $run_rc; $failed failed checks)"
# What is still in this service's cgroup besides this script (a test's
# leftover would hold up the service's stop, and so the power-off).
me=$(awk -F: '$1 == "0" { print $3 }' /proc/self/cgroup)
others=$(while read -r p; do
             [ "$p" = $$ ] || [ "$p" = "$BASHPID" ] || printf '%s(%s) ' "$p" "$(tr '\0' ' ' < "/proc/$p/cmdline" 2>/dev/null | cut -c1-60)"
         done < "/sys/fs/cgroup$me/cgroup.procs")
[ -z "$others" ] || note "still in $me: $others"
echo "$status" > "$out/status"
# The disk read-only before the power-off, so the host reads all of it
# from its image whatever the shutdown does.
cd /
sync
mount -o remount,ro /src || note "/src stays writable: $(fuser -vm /src 2>&1 | tr '\n' ' ' | cut -c1-200)"
# (to the console alone: the summary's disk is read-only now)
echo "v2-host-check: done"
exit 0
