#!/bin/bash
# Everything a run may change on the machine, as one comparable text: the
# tests (tests/lib.sh machine_state) and the benches (bench/run-all.sh)
# take it before and after, and a difference is something left behind.
#   tools/machine-state.sh [host|vm]
# host: what runs on this machine change (swaps, cgroups, knobs, tracefs,
# the journal, helpers); vm: what kernels in VMs leave (QEMU, scratch,
# image builds and their mounts). make test runs the VM tests beside the
# host's, so each lane compares its own; no argument gives both.
scope=${1:-all}
case $scope in host|vm|all) ;; *) echo "machine-state.sh: '$scope' is not a scope (accepted: host, vm)" >&2; exit 2 ;; esac
if [ "$scope" != vm ]; then
    echo "swaps: $(tail -n +2 /proc/swaps | awk '{print $1}' | sort | tr '\n' ' ')"
    echo "zram: $(ls -d /sys/block/zram* 2>/dev/null | sort | tr '\n' ' ')$(ls -d /sys/class/zram-control 2>/dev/null)"
    # pressmark's cgroups (HIERARCHY/pressmark and below, the benches'
    # pressmark-bench.*), not systemd's units of pressmark's name (the
    # nightly's, a suite's kexec unit, a check's), which a systemd host
    # shows in the same tree.
    echo "cgroups: $(find /sys/fs/cgroup -maxdepth 3 -type d \( -name pressmark -o -path '*/pressmark/*' -o -name 'pressmark-bench.*' \) \
                       2>/dev/null | sort | tr '\n' ' ')"
    echo "sysctl: $(cat /proc/sys/vm/swappiness /proc/sys/vm/overcommit_memory /proc/sys/vm/min_free_kbytes | tr '\n' ' ')"
    echo "thp: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"
    echo "zswap: $(cat /sys/module/zswap/parameters/enabled 2>/dev/null)"
    echo "lru_gen: $(cat /sys/kernel/mm/lru_gen/enabled /sys/kernel/mm/lru_gen/min_ttl_ms 2>/dev/null | tr '\n' ' ')"
    echo "swapfiles: $(ls /var/lib/pressmark/swap 2>/dev/null | tr '\n' ' ') $(ls -d /var/lib/pressmark 2>/dev/null)"
    # (not __complete: tab completion's, which a test beside may be running)
    echo "helpers: $(pgrep -fa 'pressmark __' | grep -vc 'pressmark __complete' || true)"
    # (not debugfs's tracing directory: where debugfs is mounted, as systemd
    # does, the kernel mounts tracefs there the first time it is looked at,
    # this script's own look below included; pressmark mounts none there)
    echo "tracefs: $(awk '$3 == "tracefs" && $2 != "/sys/kernel/debug/tracing" { print $2 }' /proc/mounts | sort | tr '\n' ' ')"
    echo "trace instances: $(ls -d /sys/kernel/tracing/instances/pressmark-* /sys/kernel/debug/tracing/instances/pressmark-* 2>/dev/null | tr '\n' ' ')"
    # run fio --ramdisk's: brd loaded, its ext4 mounted in a scratch directory
    echo "brd: $(ls -d /sys/module/brd 2>/dev/null) ramdisks: $(awk '$2 ~ /\/pressmark-[^\/]*\/ramdisk$/ { print $2 }' /proc/mounts | tr '\n' ' ')"
fi
# The undo journal of this pressmark's state directory (a test may keep one
# of its own).
echo "journal: $(ls "${PRESSMARK_STATE_DIR:-/run/pressmark}/journal" 2>/dev/null)"
if [ "$scope" != host ]; then
    echo "vms: $(pgrep -fc 'qemu-system.* pressmark-vm-' || true)"
    echo "vm scratch: $(ls -d /var/tmp/pressmark-vm-* ${TMPDIR:-/tmp}/pressmark-vm-* 2>/dev/null | tr '\n' ' ')"
    echo "image builds: $(ls -d /var/cache/pressmark/vm/pressmark-build-* 2>/dev/null | tr '\n' ' ')"
    echo "mounts: $(grep -c pressmark-build /proc/mounts || true)"
fi
