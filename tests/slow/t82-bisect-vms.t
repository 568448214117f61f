#!/bin/bash
# pressmark bisect in VMs, for real (make test-slow: about three minutes
# of TCG boots, beyond what a fresh clone's make test can spend; t82 tests
# everything that boots nothing). --debs boots package files (TCG here),
# survives SIGKILL in the middle and resumes without repeating a finished
# step; --git drives git bisect in a private clone with a build command
# that unpacks one of two packages (a real git path without compiling a
# kernel) and serves as git bisect run's step; endpoints that do not
# differ end it with exit 1. The metric: the 6.1 kernels' classic LRU
# deactivates pages under a cgroup cap (vmstat.pgdeactivate in the
# thousands), 6.12's MGLRU never does (0).
. "$(dirname "$0")/../lib.sh"
required_by PM_SLOW_REQUIRED   # make test-slow: a missing need fails it
vm_lane
before=$(machine_state)

oldest61=$(apt-cache pkgnames linux-image-6.1.0- | grep -E '^linux-image-6\.1\.0-[0-9]+-cloud-amd64$' | sort -V | head -1)
vm_debs

# A small usemem cell under a cgroup cap with swap in the guest.
cat > cell.ini <<'INI'
[global]
vm-memory = 512M
vm-timeout = 5m

[reclaim]
workload = usemem
size = 64M
pattern = rand
passes = 2
mem-cap = 48M
swap = 256M
INI
M=(--metric vmstat.pgdeactivate)

# A git repository whose commits name the kernel the build unpacks.
git init -q repo
for i in 1 2 3 4 5 6; do
    if [ $i -le 3 ]; then echo 61 > repo/kernel; else echo 612 > repo/kernel; fi
    echo $i > repo/n
    git -C repo add kernel n && git -C repo -c user.name=t -c user.email=t@example.invalid commit -qm "c$i"
done
c=($(git -C repo rev-list --reverse HEAD))     # c[0] .. c[5]; c[3] is the first 6.12 one

[ -n "$deb61" ] && [ -n "$deb612" ] || skip_all "the packages $k61 and $k612: neither in /var/cache/pressmark/vm/debs (t80 downloads them) nor from apt-get download ($(tail -1 "$TMP/apt-debs/download.log" 2>/dev/null))"

# --debs: 6.1, 6.1, 6.12, 6.12 (the same two packages under four paths:
# cache hits for their images, four kernels to boot). SIGKILL once the
# first step is judged and the second boots; the same command again
# finishes it without booting the first step again.
for d in a b c e; do mkdir "$d"; done
cp "$deb61" a/; cp "$deb61" b/; cp "$deb612" c/; cp "$deb612" e/
A=$(ls "$TMP"/a/*.deb); B=$(ls "$TMP"/b/*.deb); C=$(ls "$TMP"/c/*.deb); E=$(ls "$TMP"/e/*.deb)
debs=(bisect "${M[@]}" --debs --good "$A" --bad "$E" cell.ini "$B" "$C")
"$PM" "${debs[@]}" > out 2> err &
pid=$!
qemu_up() { pgrep -f 'qemu-system.* pressmark-vm-' >/dev/null; }
for i in $(seq 600); do grep -q "step 2:" err && break; sleep 0.5; done
wait_for qemu_up
ok "a step's VM is up" qemu_up
{ kill -9 $pid; wait $pid; } 2>/dev/null
wait_for sh -c "! pgrep -f 'qemu-system.* pressmark-vm-' >/dev/null"
like "$(cat err)" "$(re "$B") is good" "before the kill: the first step, a 6.1 package, judged good"
"$PM" "${debs[@]}" > out 2> err
is "$?" 0 "the same command again finishes the bisection"
like "$(cat err)" "removed scratch directory .*pressmark-vm-" "  after removing what the killed one left"
ok "  without repeating the finished step" sh -c "! grep -q 'step [0-9]*: $B' err"
is "$(q "select count(*) from bisect_step where bisect_id = 1 and kernel = '$B'")" 1 "  which has one row of evidence"
like "$(cat out)" "first bad: $(re "$C")" "the first bad kernel: the first 6.12 package"
like "$(cat out)" "^good +$(re "$A") +3 +1 " "the evidence: the good kernel's 3 runs in one boot"
like "$(cat out)" "^1 +$(re "$B") +3 +1 +[0-9,.]+ +good " "  step 1: 3 runs, one boot, good"
like "$(cat out)" "^2 +$(re "$C") +3 +1 +0 +bad " "  step 2: 3 runs, one boot, bad (0 pages deactivated)"
like "$(cat out)" "boots: 4 \(the endpoints 2, the steps 2" "  4 boots in all"
like "$(cat out)" "CONFIG_LRU_GEN_ENABLED: n -> y" "  the MM configuration difference: MGLRU on by default"
is "$(q "select count(*) from run r where r.label = 'reclaim @ $B' and r.status = 'ok'")" 3 "the finished step's runs were not repeated (3)"
is "$(q "select count(*) from run r where r.label like 'reclaim @ %' and r.status = 'ok'")" 12 "12 runs in all, 3 a kernel, stored as suites' runs"
is "$(q "select count(*) from run_meta where key = 'suite.name' and value like 'bisect-%'")" 12 "  each carrying its batch suite's name"
is "$(machine_state)" "$before" "no VM, scratch, build or mount left after SIGKILL and resume"
runs_before=$(q "select count(*) from run")
"$PM" "${debs[@]}" > out 2> err
is "$?" 0 "the command a third time: the finished bisection"
like "$(cat err)" "bisect 1 is finished \(done\)" "  says it is finished"
is "$(q "select count(*) from run")" "$runs_before" "  and runs nothing"
json=$("$PM" bisect --continue --id 1 --format json cell.ini "$A" "$B" "$C" "$E" 2>/dev/null)
is "$(printf '%s' "$json" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["state"], d["first_bad"] == sys.argv[1], len(d["steps"]), d["boots"], d["kconfig_differences"]["CONFIG_LRU_GEN_ENABLED"]["first_bad"])' "$C")" \
   "done True 4 4 y" "--format json: the state, first bad, steps, boots and configuration differences"

# Endpoints that do not differ: pgrefill counts only global reclaim, and
# a cgroup cap's is not: 0 on both kernels. Their runs are reused.
"$PM" bisect --metric vmstat.pgrefill --debs --good "$A" --bad "$E" cell.ini "$B" "$C" > out 2> err
is "$?" 1 "endpoints that do not differ: exit 1"
like "$(cat err)" "the good and the bad kernel do not differ in vmstat\.pgrefill \(good: 0 in each of 3 runs; bad: 0 in each of 3 runs; p = 1, the same constant, alpha 0\.05\): nothing to bisect" \
    "  saying so, constants and all"
is "$(q "select count(*) from run")" "$runs_before" "  from the runs stored (no boot)"

# --git: the build unpacks the package its checkout names (once in a
# tree: a kernel must lie in the tree built or in PRESSMARK_BISECT_OUT)
# and prints BZIMAGE@MODULES; commits that build the same kernel in the
# clone reuse its runs, so only the endpoints boot.
cp "$deb61" deb-61.deb
cp "$deb612" deb-612.deb
cat > build.sh <<'SH'
#!/bin/sh
set -e
k=$(cat kernel)
here=$(dirname "$0")
dir=$PWD/.unpacked-$k
if [ ! -d "$dir" ]; then
    rm -rf "$dir.tmp"
    dpkg-deb -x "$here/deb-$k.deb" "$dir.tmp"
    mv "$dir.tmp" "$dir"
fi
echo "built $k into $PRESSMARK_BISECT_OUT (unused) for $PRESSMARK_BISECT_COMMIT" >&2
echo "$dir/boot/vmlinuz-$(ls "$dir/lib/modules")@$dir"
SH
chmod 755 build.sh
repo_before=$(git -C repo for-each-ref; git -C repo worktree list; git -C repo status --porcelain)
"$PM" bisect "${M[@]}" --git repo --build "$TMP/build.sh" --good "${c[0]}" --bad "${c[5]}" cell.ini > out 2> err
is "$?" 0 "--git: exit 0"
like "$(cat out)" "first bad: ${c[3]}" "  the first bad commit: the first that builds 6.12"
like "$(cat err)" "the first bad commit is ${c[3]}" "  as git bisect named it"
like "$(cat out)" "boots: 2 \(the endpoints 2, the steps 0" "  only the endpoints booted: the steps built kernels already measured"
is "$(ls -d /var/cache/pressmark/vm/pressmark-build-* 2>/dev/null | wc -l)" 0 "  its clone is gone"
is "$(git -C repo for-each-ref; git -C repo worktree list; git -C repo status --porcelain)" "$repo_before" \
   "  the repository as it was: no worktree, no bisect refs, nothing changed"

# git bisect run's step, in a checkout of the user's: 0 good, 1 bad, 125
# skip, judged against the bisection's stored endpoints.
git clone -q repo user
# It is given the suite file, the repository and the build command again:
# the stored bisection must hold the same.
STEP=(bisect --step --quiet --git "$TMP/repo" --build "$TMP/build.sh" "$TMP/cell.ini")
( cd user && git bisect start "${c[5]}" "${c[0]}" > /dev/null && git bisect run "$PM" "${STEP[@]}" ) > out 2> err
like "$(cat out)" "${c[3]} is the first bad commit" "git bisect run pressmark bisect --step finds it"
( cd user && git bisect reset > /dev/null 2>&1 && git checkout -q "${c[1]}" && exec "$PM" "${STEP[@]}" ) 2> err
is "$?" 0 "--step on a 6.1 commit: 0 (good)"
( cd user && git checkout -q "${c[4]}" && exec "$PM" "${STEP[@]}" ) 2> err
is "$?" 1 "--step on a 6.12 commit: 1 (bad)"
( cd user && git checkout -q -b broken "${c[1]}" && echo broken > kernel &&
  git -c user.name=t -c user.email=t@example.invalid commit -qam broken && exec "$PM" "${STEP[@]}" ) 2> err
is "$?" 125 "--step on a checkout whose build fails: 125 (skip)"
like "$(q "select reason from bisect_step where reason like 'the build of%' order by seq desc limit 1")" \
    "^the build of [0-9a-f]{12} exited with status [0-9]+: .*deb-broken\.deb" "  the build's last lines stored as the reason"
# A record cell whose step is planted (the guest's command reads the
# kernel's release and touches 64 MiB on 6.12, 1 MiB before:
# time.maxrss_kb above 64 MiB against about 15 MB), found at the first
# 6.12 file in four boots (44 s here under TCG, the images cached). It
# ran inside make test for a while: with it a fresh clone's ./run.sh test
# took 1003 s in CI against its 600 s (issue 43), and t80's boots are the
# VM lane's end to end.
cat > planted.ini <<'INI'
[global]
vm-memory = 512M
vm-timeout = 5m

[planted]
workload = record
command = sh -c "uname -r | grep -q '^6[.]12[.]' && exec dd if=/dev/zero of=/dev/null bs=64M count=1 || exec dd if=/dev/zero of=/dev/null bs=1M count=1"
INI
for d in pa pb pc pe; do mkdir "$d"; done
cp "$deb61" pa/; cp "$deb61" pb/; cp "$deb612" pc/; cp "$deb612" pe/
PA=$(ls "$TMP"/pa/*.deb); PB=$(ls "$TMP"/pb/*.deb); PC=$(ls "$TMP"/pc/*.deb); PE=$(ls "$TMP"/pe/*.deb)
export PRESSMARK_DB="$TMP/planted.db"
"$PM" bisect --metric time.maxrss_kb --debs --good "$PA" --bad "$PE" planted.ini "$PB" "$PC" > out 2> err
is "$?" 0 "a bisection in VMs with a planted step: exit 0"
like "$(cat out)" "first bad: $(re "$PC")" "  the first bad kernel: the first 6.12 package file, where the step is planted"
like "$(cat out)" "^1 +$(re "$PB") +3 +1 +[0-9,.]+ +good " "  step 1, a 6.1 file: 3 runs in one boot, good"
like "$(cat out)" "^2 +$(re "$PC") +3 +1 +[0-9,.]+ +bad " "  step 2, a 6.12 file: 3 runs in one boot, bad"
like "$(cat out)" "boots: 4 \(the endpoints 2, the steps 2" "  4 boots in all"
is "$(q "select count(*) from run where status = 'ok' and label like 'planted @ %'")" 12 "  12 ok runs stored, 3 a kernel"
is "$(q "select group_concat(n, ' ') from (select sum(m.value > 48000) || '/' || count(*) as n from run r join metric m on m.run_id = r.id
        and m.name = 'time.maxrss_kb' join machine k on k.id = r.machine_id group by k.kernel like '6.12.%' order by k.kernel like '6.12.%')")" \
   "0/6 6/6" "  the plant as each guest ran it: above 48 MB on the 6 runs under 6.12, on none of the 6 under 6.1"
export PRESSMARK_DB="$TMP/results.db"
is "$(machine_state)" "$before" "machine as it was"
done_testing
