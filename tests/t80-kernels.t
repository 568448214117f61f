#!/bin/bash
# Kernels under test: a suite's kernel axis. Two Debian kernel packages
# boot in QEMU VMs (TCG here: nested KVM fails), run a tiny chat cell
# twice each inside, and their runs come back into the host's database
# labelled by kernel and marked emulated; compare and report refuse the
# timings without --allow-emulated. The host's capped runs run again in a
# 6.12 guest, on cgroup v2. A hostile kernel package changes nothing on the
# host. (A guest that hangs, SIGINT and SIGKILL during a boot and during
# an image's build, and a built kernel's bzImage with its modules are
# make test-slow's: tests/slow/t80-kernels-faults.t. The host backend,
# which runs cells on this machine itself, is t81's.)
. "$(dirname "$0")/lib.sh"
# Beside the tests that change the host (make test's VM lane); the
# newest 6.1 and 6.12 cloud kernels this machine's apt knows ($k61, $k612).
# Sanitised it boots none (below), so holds up no test that measures the machine.
vm_lane $(sanitized && echo noboot)
before=$(machine_state)

case "$(uname -r)" in
    "$r61" | "$r612") skip_all "this machine runs $(uname -r), a kernel under test here: its cells would run on this machine, beside the host's tests (t81 tests the host backend)" ;;
esac
# The names as regular expressions ('.' and '+' are literal in them).
e61=$(re "$k61"); e612=$(re "$k612"); er61=$(re "$r61"); er612=$(re "$r612")
# What tables call them: the part of the name that tells one from the other.
s61=$(re "${r61%-cloud-amd64}"); s612=$(re "${r612%-cloud-amd64}")

# Bad kernels and machines: one line naming them and what is accepted,
# exit 2, before anything boots or is written.
bad_suite() {  # bad_suite DESCRIPTION REGEX CONTENT
    printf '%s\n' "$3" > bad.ini
    bad "$1" "^pressmark suite (run|plan): bad.ini:$2" suite run bad.ini
}
bad_suite "not a kernel" "3: kernel = foo: not a kernel \(accepted: running, a linux-image package name" \
    $'[a]\nworkload = swapout\nkernel = foo'
bad_suite "a package that does not exist" "3: kernel = linux-image-0\.0\.0-nosuch-amd64: no such package in this machine's apt sources \(accepted:" \
    $'[a]\nworkload = swapout\nkernel = running, linux-image-0.0.0-nosuch-amd64'
bad_suite "a bzImage that is not one" "3: kernel = /etc/hostname: not a bzImage \(no x86 boot header" \
    $'[a]\nworkload = swapout\nkernel = /etc/hostname'
bad_suite "a package file that is not one" "3: kernel = /etc/hostname.deb: not a Debian package file" \
    $'[a]\nworkload = swapout\nkernel = /etc/hostname.deb'
bad_suite "a VM too small for the guest" "3: vm-memory = 64M: not a VM size \(accepted: 256\.0 MiB to 1T" \
    $'[a]\nworkload = swapout\nvm-memory = 64M\nkernel = running'
bad_suite "an unknown backend" "2: backend = cloud: not a backend \(accepted: vm, " \
    $'[global]\nbackend = cloud\n[a]\nworkload = swapout'
bad_suite "an unknown accelerator" "2: vm-accel = hvf: not an accelerator \(accepted: auto, kvm, tcg\)" \
    $'[global]\nvm-accel = hvf\n[a]\nworkload = swapout'
printf '[a]\nworkload = swapout\n' > plain.ini
bad "--dry-run without --reboot" "^pressmark suite run: --dry-run goes with --reboot kexec" suite run --dry-run plain.ini
bad "next-kernel of a suite without kernels" "^pressmark suite next-kernel: plain.ini names no kernels" suite next-kernel plain.ini

chat_cell=$KERNEL_CHAT_CELL

# The VM boots run once, under the plain build (make test). Under make
# check the guest would run the sanitised binary under TCG emulation: QEMU's
# time, not pressmark's code, and slow enough to meet the boot timeout.
if sanitized; then
    skip "VM boots: run once, under make test"
else
cat > two.ini <<INI
[global]
runs = 2
kernel = $k61, $k612
vm-memory = 512M
vm-timeout = 5m
interval = 200ms
order-seed = 3

$chat_cell
INI
plan=$("$PM" suite plan two.ini)
like "$plan" "2 cells x 2 runs = 4 runs" "plan: a cell per kernel"
# (under umask 022: the boot directories' modes are pressmark's)
( umask 022; exec "$PM" suite run two.ini ) > out 2> err
is "$?" 0 "suite run with two kernels exits 0"
like "$(cat err)" "kernel $e61 \($er61\): booting in a VM \((TCG emulation|KVM)" "each kernel boots in a VM"
like "$(cat err)" "guest: pressmark-guest: $er612 up after" "the guest's own lines are relayed"
is "$(q "select count(*) from run where status = 'ok'")" 4 "4 ok runs in the host's database"
is "$(q "select group_concat(n) from (select count(*) n from run group by label order by label)")" "2,2" "2 per kernel"
is "$(q "select group_concat(distinct label) from (select label from run order by label)")" "$k61,$k612" "labelled by kernel"
is "$(q "select count(*) from run r join machine m on m.id = r.machine_id where m.kernel = substr(r.label, 13)")" 4 "each run ran on its own kernel (the machine's release)"
is "$(q "select count(*) from run_meta where key = 'emulated' and value = 'yes'")" 4 "each marked emulated"
is "$(q "select count(*) from run_meta where key = 'vm.accel' and value = 'tcg'")" 4 "  its accelerator TCG"
is "$(q "select group_concat(distinct value) from run_meta where key = 'kernel.release' order by value")" "$r61,$r612" "the kernel's release recorded"
like "$(q "select value from run_meta m join run r on r.id = m.run_id where key = 'kernel.version' and r.label = '$k612' limit 1")" "^6\.12\.[0-9]+-" "its package version recorded"
is "$(q "select count(distinct value) from run_meta where key = 'kconfig.CONFIG_MEMCG'")" 1 "its MM config options recorded (CONFIG_MEMCG)"
is "$(q "select group_concat(cast(value as int)) from metric where name = 'chat.sent'")" "250,250,250,250" "exact chat counts: 250 sent per run"
is "$(q "select group_concat(cast(value as int)) from metric where name = 'chat.received'")" "1000,1000,1000,1000" "  1000 received per run"
is "$(q "select count(*) from suite_run s join run r on r.id = s.run_id")" 4 "the runs are the suite's planned runs"
is "$(q "select count(distinct m.value) from run_meta m where m.key = 'suite.uuid'")" 1 "  all of one suite (the host's UUID)"
is "$(q "select group_concat(distinct value) from run_meta where key = 'suite.id'")" 1 "  with the host's suite id"
like "$("$PM" suite status)" "complete" "suite status: complete"
is "$(q "select count(*) from run_meta where key = 'suite.name' and value = 'two'")" 4 "the guests' runs carry the host suite's name"
ok "the boot's console is kept beside the database" test -s "$PRESSMARK_DB.boots/suite1-kernel1-boot1/console.log"
is "$(stat -c %a "$PRESSMARK_DB.boots" "$PRESSMARK_DB.boots/suite1-kernel1-boot1" | tr '\n' ' ')" "700 700 " \
   "  in private directories (a guest's results are unpacked there)"
is "$(find "$PRESSMARK_DB.boots/suite1-kernel1-boot1" -type f ! -perm 600 -name 'results.db' | wc -l)$(find "$PRESSMARK_DB.boots" ! -type f ! -type d | wc -l)" "00" \
   "  the guest's files taken as private regular files, nothing else"

"$PM" compare --suite > out 2> err
is "$?" 2 "compare refuses emulated runs as kernel results"
like "$(cat err)" "ran under QEMU's TCG emulation \(no KVM\).*--allow-emulated" "  and says why, in one line"
out=$("$PM" compare --suite --allow-emulated)
like "$out" "caveat: the runs of $e61, $e612 ran under QEMU's TCG emulation" "--allow-emulated: the table with the caveat"
like "$out" "^$s612 +[0-9.,]+ ±[0-9.,]+ +[-+][0-9.]+%" "  one row per kernel against the baseline kernel, named by its version"
like "$out" "short names: $s61 = $e61, $s612 = $e612" "  the package names in a legend under the table"
like "$out" "kernel configuration differences \(memory management\)" "  the kernels' MM config differences"
like "$out" "CONFIG_LRU_GEN_ENABLED: $e61=n, $e612=y" "  (6.12 enables MGLRU by default, 6.1 does not)"
"$PM" report --suite --out rep > out 2> err
is "$?" 2 "report refuses too"
ok "  writing nothing" test ! -e rep
"$PM" report --suite --allow-emulated --out rep > out 2> err
is "$?" 0 "report --allow-emulated"
like "$(cat rep/report.html)" "class=\"caveat\">caveat: the runs of" "  the page carries the emulation caveat"
like "$(cat rep/report.html)" "kernel configuration differences" "  and the kernels' config differences"

# cgroup v2 for real (this host has only v1's memory controller): the
# capped runs the host's tests make (t20's swapout, t55's usemem,
# filestream and stutter) once each inside the 6.12 guest, whose
# cgroup2 hierarchy has the memory controller, with the host's
# assertions on the merged runs, in a boot of their own.
# A cell more: a section here, its cap in v2_capped, its own lines after
# the suite (what make test cannot spend goes to
# tests/slow/t83-protection-vms.t). state-before and state-after (first and
# last: the suite is sequential) print what a run may leave in the guest,
# its own cgroup left out, into the guest's log, which comes back with its
# results.
v2_state="sh -c 'cd /sys/fs/cgroup/pressmark&&echo pm-state: cg=\$(ls -d */|grep -vx \$(cut -d/ -f3 /proc/self/cgroup)/) sw=\$(tail -n+2 /proc/swaps|cut -d\" \" -f1) f=\$(ls /var/lib|grep -x pressmark)'"
GUEST_V2_CELLS="[state-before]
workload = record
command = $v2_state

[v2-cap]
workload = swapout
size = 96M
mem-cap = 48M
swap = 128M
interval = 100ms

[v2-swapcap]
workload = swapout
size = 96M
mem-cap = 48M
swap = 128M
swap-cap = 16M
interval = 100ms

[v2-high]
workload = swapout
size = 64M
mem-cap = 48M
mem-high = 32M
swap = 128M
interval = 100ms

[v2-usemem]
workload = usemem
size = 96M
mem-cap = 48M
swap = 128M
interval = 100ms

[v2-usemem-oom]
workload = usemem
size = 64M
procs = 2
access = read
mem-cap = 48M
timeout = 60s
interval = 100ms

[v2-filestream]
workload = filestream
file-size = 128M
anon = 8M
mem-cap = 64M
drop-caches = yes
interval = 100ms

[v2-stutter]
workload = stutter
mem-cap = 64M
swap = 256M
probe-size = 1M
duration = 1s
interval = 100ms

[state-after]
workload = record
command = $v2_state"
# Each capped cell and its cap in bytes.
v2_capped="v2-cap:$((48 << 20)) v2-swapcap:$((48 << 20)) v2-high:$((48 << 20)) v2-usemem:$((48 << 20))
           v2-usemem-oom:$((48 << 20)) v2-filestream:$((64 << 20)) v2-stutter:$((64 << 20))
"

# The v2 cells in one boot of the 6.12 kernel, after a chat cell of its own.
cat > v2.ini <<INI
[global]
runs = 1
kernel = $k612
vm-memory = 512M
name = v2
order = sequential

$chat_cell

$GUEST_V2_CELLS
INI
"$PM" suite run v2.ini > out 2> err
is "$?" 1 "the v2 suite exits 1: runs in the guest ended oom (v2-swapcap's, v2-usemem-oom's), as they should"
is "$(q "select count(*) from run r join run_meta m on m.run_id = r.id and m.key = 'suite.name' and m.value = 'v2' where r.status = 'ok' and r.label = '$k612'")" 1 "  its chat run is done"
is "$(machine_state)" "$before" "no VM, overlay, scratch or mount left"

# The guest's cgroup v2 runs, as the host's tests assert them on v1.
v2meta() { q "select m.value from run_meta m join run r on r.id = m.run_id where r.label = '$1' and m.key = '$2'"; }
v2max() { q "select cast(max(s.value) as int) from sample s join run r on r.id = s.run_id where r.label = '$1' and s.name = '$2'"; }
for lc in $v2_capped; do
    l=${lc%%:*} cap=${lc#*:}
    is "$(v2meta "$l" cap.method) $(v2meta "$l" cgroup.version) $(v2meta "$l" cap.limit_bytes)" "cgroup2 2 $cap" \
       "$l: capped by cgroup v2 in the guest (auto chose it), at $((cap >> 20))M"
    ge "$(q "select count(*) from sample s join run r on r.id = s.run_id where r.label = '$l' and s.name = 'memcg.memory.current'")" 2 \
       "  memory.current sampled every tick"
    # An OOM victim's charges are forced past memory.max (mm/memcontrol.c
    # lets a dying task overshoot so it can exit): the cap holds in every
    # sample only of the runs that end ok.
    [ "$(q "select status from run where label = '$l'")" = oom ] && continue
    # A reader may see a charge in flight (page_counter_try_charge adds,
    # then takes back what would pass the limit): one charge batch, 64
    # pages, of slack (tests/slow/t83 sees 1 to 3 pages with the chat).
    is "$(q "select count(*) from sample s join run r on r.id = s.run_id where r.label = '$l' and s.name = 'memcg.memory.current' and s.value > $cap + 262144")" 0 \
       "  never above the cap, but for a charge in flight, in any sample"
done
is "$(q "select status from run where label = 'v2-cap'")" ok "v2-cap: swapout 96M under a 48M cap with swap: ok"
ge "$(imetric v2-cap memcg.limit_hits)" 1 "  it reached the cap (memory.events max: $(imetric v2-cap memcg.limit_hits))"
ge "$(imetric v2-cap swap.out_kb)" 40960 "  and swapped out at least 40 MB ($(imetric v2-cap swap.out_kb) KB)"
is "$(q "select status from run where label = 'v2-swapcap'")" oom "v2-swapcap: 96M in a 48M cap with 16M of swap allowed ends oom"
like "$(q "select reason from run where label = 'v2-swapcap'")" "^OOM killer: [0-9]+ kills? in the run's cgroup" "  the reason names the OOM killer"
ge "$(imetric v2-swapcap memcg.oom_kill)" 1 "  memcg.oom_kill (memory.events oom_kill) counts it"
is "$(v2meta v2-swapcap cap.swap_limit_bytes)" $((16 << 20)) "  memory.swap.max is recorded"
is "$(q "select count(*) from sample s join run r on r.id = s.run_id where r.label = 'v2-swapcap' and s.name = 'memcg.memory.swap.current' and s.value > $((16 << 20))")" 0 \
   "  memory.swap.current never above --swap-cap in any sample"
ge "$(v2max v2-swapcap memcg.memory.swap.current)" $((8 << 20)) "  after swapping up to it (the swap cap, not the swap file, ran out)"
is "$(q "select status from run where label = 'v2-high'")" ok "v2-high: swapout 64M under a 48M cap with memory.high at 32M: ok"
is "$(v2meta v2-high cap.high_bytes)" $((32 << 20)) "  memory.high is recorded"
ge "$(v2max v2-high memcg.memory.events.high)" 1 "  memory.events high counts its throttling ($(v2max v2-high memcg.memory.events.high))"
is "$(imetric v2-high memcg.high_events)" "$(v2max v2-high memcg.memory.events.high)" "  and memcg.high_events is that count"
ok "  which held it below the cap (at most $(v2max v2-high memcg.memory.current) bytes)" \
   test "$(v2max v2-high memcg.memory.current)" -lt $((48 << 20))
is "$(q "select status from run where label = 'v2-usemem'")" ok "v2-usemem: usemem 96M under a 48M cap with swap: ok"
ge "$(imetric v2-usemem swap.in_kb)" 1 "  swapped back in for the check ($(imetric v2-usemem swap.in_kb) KB)"
is "$(imetric v2-usemem usemem.verified_pages) $(imetric v2-usemem usemem.bad_pages)" "$(( 96 * 1048576 / 4096 )) 0" \
   "  every page verified after swap, none wrong"
like "$(q "select status || ': ' || reason from run where label = 'v2-usemem-oom'")" "^oom: OOM killer: [12] kills? in the run's cgroup" \
   "v2-usemem-oom: a worker OOM-killed during its fill without swap: oom, not hung"
ge "$(imetric v2-usemem-oom memcg.oom_kill)" 1 "  memcg.oom_kill counts it"
is "$(q "select status from run where label = 'v2-filestream'")" ok "v2-filestream: a 128M file under a 64M cap, caches dropped: ok"
is "$(imetric v2-filestream filestream.bytes_read)" $(( 128 * 1048576 )) "  bytes read exact"
ge "$(imetric v2-filestream memcg.limit_hits)" 1 "  its page cache charged to the cgroup, up to the cap"
is "$(q "select status from run where label = 'v2-stutter'")" ok "v2-stutter: stutter under a 64M cap, the hog sized from it: ok"
ge "$(imetric v2-stutter swap.out_kb)" 1 "  the hog swapped"
# (Protection beside a sibling hog, overcommitted protection, MGLRU off
# and on, zswap's controls and the capped chat under --trace-reclaim boot
# in tests/slow/t83-protection-vms.t.)
# Undo leaves nothing in the guest: what state-after saw is what
# state-before saw, and that is nothing (no cgroup but the checker's own,
# no swap, no swap file), and no run's undoing failed.
is "$(q "select group_concat(label) from (select r.label from run r join run_meta m on m.run_id = r.id and m.key = 'suite.seq'
         join run_meta n on n.run_id = r.id and n.key = 'suite.name' and n.value = 'v2' order by cast(m.value as int))")" \
   "$k612,$(printf '%s\n' "$GUEST_V2_CELLS" | sed -n 's/^\[\(.*\)\]$/\1/p' | paste -sd,)" \
   "the guest ran the cells in the file's order (sequential): state-before before the capped runs, state-after after them"
is "$(cat "$PRESSMARK_DB".boots/*/guest.log 2>/dev/null | grep -a '^pm-state:' | tr '\n' '|')" "pm-state: cg= sw= f=|pm-state: cg= sw= f=|" \
   "undo left nothing in the guest: no cgroup, swap or swap file before the capped runs or after them"
is "$(q "select count(*) from run_meta where key = 'env.undo_failed'")" 0 "  no run's undoing failed"

fi

# A kernel package is not trusted: its maintainer scripts run as root, in
# the guest's root, sandboxed. This one's postinst tries, each against a
# decoy of this test's own: to break out of the root (chroot twice, then
# climb), to leave a process running, to reach a server on the host's
# loopback, and to make the image take a host file as its initrd through
# a link. Nothing of it reaches the host, and the image is
# refused, its cells failed with one line.
evil_rel=9.9.9-pmevil
port=$(free_port)
python3 -c 'import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(5)
while True:
    c, _ = s.accept(); open(sys.argv[2], "a").write("connected\n"); c.close()' "$port" "$TMP/evil-connections" &
cleanup_add "stop_bg $!"
ok "the test's server on the host answers from the host" wait_for bash -c "exec 3<>/dev/tcp/127.0.0.1/$port" 2>/dev/null
ok "  (and counts it)" wait_for sh -c "[ \"\$(wc -l 2>/dev/null < '$TMP/evil-connections')\" = 1 ]"
echo "a host secret" > "$TMP/decoy-secret"
mkdir -p evil/DEBIAN evil/boot
printf 'Package: linux-image-%s\nVersion: 1\nArchitecture: amd64\nMaintainer: t <t@example.invalid>\nDescription: hostile\n' \
    "$evil_rel" > evil/DEBIAN/control
printf 'not a kernel' > "evil/boot/vmlinuz-$evil_rel"
cat > evil/DEBIAN/postinst <<POST
#!/bin/bash
perl -e 'mkdir "/pm-esc"; chroot "/pm-esc" or exit 1; chdir ".." for 1 .. 64; chroot "." or exit 1;
          open(my \$f, ">", "$TMP/pwned-escape") and print \$f "out\n"' 2>/dev/null
setsid sleep 1007 < /dev/null > /dev/null 2>&1 &
exec 3<>/dev/tcp/127.0.0.1/$port 2>/dev/null && echo hi >&3
ln -sf "$TMP/decoy-secret" "/boot/initrd.img-$evil_rel"
echo "PROBE proc=\$(ls /proc 2>/dev/null | wc -l) tty=\$(tty) token=\${PRESSMARK_PUSH_TOKEN:-none}"
setpriv -d | sed -n 's/^Capability bounding set: /PROBE bounding=/p'
exit 0
POST
chmod 755 evil/DEBIAN/postinst
dpkg-deb --build --root-owner-group evil "$TMP/evil.deb" > /dev/null
cleanup_add pkill -f "^sleep 1007\$"
cat > evil.ini <<INI
[global]
runs = 1
kernel = $TMP/evil.deb
vm-memory = 512M
vm-timeout = 1m

[c]
workload = record
command = true
label = evil
INI
PRESSMARK_PUSH_TOKEN=host-secret "$PM" suite run evil.ini > out 2> err
is "$?" 1 "a hostile kernel package: the suite ends with exit 1"
like "$(cat err)" "kernel $TMP/evil.deb: its VM image could not be made: .*boot/initrd.img-$evil_rel: a link \(refused: the guest's root is not trusted\)" \
    "  its image is refused: the initrd is a link"
is "$(q "select count(*) from run where label = 'evil' and status = 'failed'")" 1 "  its cell failed"
ok "  the postinst did not break out of the root" test ! -e "$TMP/pwned-escape"
is "$(pgrep -fc '^sleep 1007$' || true)" 0 "  nothing it started outlived the install"
is "$(wc -l < "$TMP/evil-connections")" 1 "  it reached no server on the host (the one connection is the test's own)"
probe=$(grep '^PROBE' /var/cache/pressmark/vm/last-failed-build.log | tr '\n' ' ')
is "$probe" "PROBE proc=0 tty=not a tty token=none PROBE bounding=chown,dac_override,fowner,fsetid,kill,setgid,setuid,setfcap " \
    "  in its sandbox: no /proc, no terminal, none of the host's environment, only the capabilities installing needs"
is "$(ls /var/cache/pressmark/vm | grep -c "$evil_rel")" 0 "  and no image of it is left in the cache"
ok "at most 8 kernel images stay cached (the least recently used go)" \
    test "$(ls -d /var/cache/pressmark/vm/kernel-* | wc -l)" -le 8
is "$(machine_state)" "$before" "machine as it was"
done_testing
