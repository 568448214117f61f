#!/bin/bash
# Kernels in VMs when things go wrong, for real (make test-slow: four
# boots and a half-minute hang, beyond what a fresh clone's make test can
# spend; t80 keeps the boots that work). A guest that hangs is killed at
# its timeout and its cells fail with the console's last lines while the
# next kernel, a bzImage with its modules directory as a built tree gives
# them, still runs; SIGINT during a boot ends it at once; SIGKILL during a
# boot and during an image's build leaves nothing after the next start,
# which continues the suite.
. "$(dirname "$0")/../lib.sh"
required_by PM_SLOW_REQUIRED   # make test-slow: a missing need fails it
vm_lane
before=$(machine_state)
case "$(uname -r)" in
    "$r61" | "$r612") skip_all "this machine runs $(uname -r), a kernel under test here" ;;
esac
e612=$(re "$k612")
chat_cell=$KERNEL_CHAT_CELL
vm_debs
[ -n "$deb61" ] || skip_all "no package file of $k61 (apt-get download failed: $TMP/apt-debs/download.log)"

# A guest that hangs: its root device never comes, so the initramfs
# waits for it (rootdelay=600: longer than the timeout, or it would give
# up after 30 s, panic and end the boot itself); the boot is killed at
# its part's timeout (30 s), its cells fail with the console's last
# lines, and the next kernel still runs, under the suite's (5m: a loaded
# machine once took more than 30 s to boot it under TCG). That one is a
# bzImage with its modules directory, as a built tree gives them (here
# taken out of the 6.1 package: its vmlinuz is a bzImage).
deb=$deb61
mkdir -p "$TMP/d"
setup "the 6.1 package unpacked as a built kernel" dpkg-deb -x "$deb" "$TMP/d/k"
# A .config three levels above its vmlinuz, outside any kernel tree (as
# /tmp/.config would be, anybody's): not the kernel's, never taken.
printf 'CONFIG_LRU_GEN=planted\n' > "$TMP/.config"
cat > hang.ini <<INI
[global]
runs = 1
vm-memory = 512M
vm-timeout = 5m

[stuck]
workload = chat
vm-timeout = 30s
kernel = $k612
vm-append = root=/dev/vdz rootdelay=600
rooms = 1
users = 5
messages = 50
heap = 16M

[after]
workload = chat
kernel = $TMP/d/k/boot/vmlinuz-$r61@$TMP/d/k
rooms = 1
users = 5
messages = 50
heap = 16M
INI
"$PM" suite run hang.ini > out 2> err
is "$?" 1 "a suite with a hung guest exits 1 (a run failed)"
if grep -Eq "the guest ended without results after [0-9.]+ s; console's last lines: .*Kernel panic" err; then
    # Debian's 6.12 under TCG now and then oopses early, while waiting
    # ("Fatal exception in interrupt": once in a fresh root, once in LAVA's
    # lab): the boot ended before its timeout, untried this time.
    skip "the hung kernel panicked before its timeout ($(grep -Eo 'Kernel panic[^|]*' err | head -1)): the kill at the timeout untried this time"
    like "$(q "select reason from run where label = 'stuck'")" "^kernel $e612: the guest ended without results after .*Kernel panic" \
        "  the reason holds the console's last lines (the panic's)"
else
    # (the guest waits for /dev/vdz; a machine loaded by other work
    # may not have got it past its init's udev within the 30 s)
    like "$(cat err)" "did not finish within 30 s; console's last lines: " "the hang is reported with the console"
    like "$(q "select reason from run where label = 'stuck'")" "^kernel $e612: the guest did not finish within 30 s; console's last lines: .*(vdz|root|Begin|Run /init|udev)" \
        "  the reason holds the console's last lines"
fi
is "$(q "select status from run where label = 'stuck'")" failed "the hung kernel's cell failed"
is "$(q "select status from run where label = 'after'")" ok "the next kernel still ran"
is "$(q "select value from run_meta m join run r on r.id = m.run_id where r.label = 'after' and m.key = 'kernel.source'")" bzImage "  a bzImage"
is "$(q "select r.id from run r join machine m on m.id = r.machine_id where r.label = 'after' and m.kernel = '$r61'" | wc -l)" 1 "  booted with its modules (the guest reached its run on $r61)"
like "$(q "select value from run_meta m join run r on r.id = m.run_id where r.label = 'after' and m.key = 'kernel.build_id'")" "^[0-9a-f]{16}$" "  its build id recorded"
is "$(q "select value from run_meta m join run r on r.id = m.run_id where r.label = 'after' and m.key = 'kconfig.CONFIG_LRU_GEN'")" y "  its config found beside it (not the .config planted three levels up)"
is "$(machine_state)" "$before" "no VM, overlay, scratch or mount left"

# SIGKILL during a boot: QEMU dies with pressmark; what is left is undone
# by the next invocation, which continues the suite.
cat > kill.ini <<INI
[global]
runs = 1
kernel = $k612
vm-memory = 512M
name = killed
order = sequential

$chat_cell
INI
# SIGINT during a boot: QEMU and its scratch go at once, exit 130.
"$PM" suite run kill.ini > out 2> err &
pid=$!
# A function, not "$(pgrep ...)" as an argument: that would be read once.
qemu_up() { pgrep -f 'qemu-system.* pressmark-vm-' >/dev/null; }
wait_for qemu_up || wait_for qemu_up
kill -INT $pid
wait $pid
is "$?" 130 "SIGINT during a boot: exit 130"
like "$(cat err)" "interrupted by SIGINT" "  saying so"
is "$(machine_state)" "$before" "  no VM, overlay or scratch left"

"$PM" suite run kill.ini > out 2> err &
pid=$!
wait_for grep -q "booting in a VM" err || wait_for grep -q "booting in a VM" err
wait_for qemu_up
ok "a VM is up" test -n "$(pgrep -f 'qemu-system.* pressmark-vm-')"
{ kill -9 $pid; wait $pid; } 2>/dev/null
wait_for sh -c "! pgrep -f 'qemu-system.* pressmark-vm-' >/dev/null"
is "$(pgrep -fc 'qemu-system.* pressmark-vm-')" 0 "QEMU ended with pressmark (SIGKILL)"
"$PM" suite run kill.ini > out 2> err
is "$?" 0 "the next invocation continues the suite, exit 0"
like "$(cat err)" "removed scratch directory .*pressmark-vm-" "  after removing what the killed one left"
is "$(q "select count(*) from run r join run_meta m on m.run_id = r.id and m.key = 'suite.name' and m.value = 'killed' where r.status = 'ok' and r.label = '$k612'")" 1 "  and its run is done"
is "$(machine_state)" "$before" "no VM, overlay, scratch or mount left after SIGKILL"

# SIGKILL while a kernel is installed into its image (an overlay is
# mounted then): the next invocation unmounts it and removes the build.
cp -a "$TMP/d/k" "$TMP/k2"
touch "$TMP/k2"        # another modules directory: another image to build
cat > build.ini <<INI
[global]
runs = 1
kernel = $TMP/k2/boot/vmlinuz-$r61@$TMP/k2
vm-memory = 512M
name = killbuild

$chat_cell
INI
"$PM" suite run build.ini > out 2> err &
pid=$!
wait_for grep -q "installing kernel" err || wait_for grep -q "installing kernel" err
wait_for grep -q "pressmark-build-.*/merged" /proc/mounts || wait_for grep -q "pressmark-build-.*/merged" /proc/mounts
ok "an overlay is mounted while the kernel is installed" grep -q "pressmark-build-.*/merged" /proc/mounts
{ kill -9 $pid; wait $pid; } 2>/dev/null
# Any command is the next invocation: every one undoes what a killed one left.
"$PM" suite status > out 2> err
is "$?" 0 "the next invocation (suite status) runs"
like "$(cat err)" "unmounted .*pressmark-build-.*/merged" "  after unmounting the killed build's overlay"
like "$(cat err)" "removed /var/cache/pressmark/vm/pressmark-build-" "  and removing its build directory"
is "$(machine_state)" "$before" "nothing of the killed build left"
# And the killed suite, run again, builds its image anew and runs its cell.
"$PM" suite run build.ini > out 2> err
is "$?" 0 "the killed suite, run again, completes"
like "$(cat err)" "installing kernel" "  building its image again"
is "$(q "select count(*) from run r join run_meta m on m.run_id = r.id and m.key = 'suite.name' and m.value = 'killbuild' where r.status = 'ok'")" 1 \
   "  and its run is done"
is "$(machine_state)" "$before" "  nothing of the build left after it"
done_testing
