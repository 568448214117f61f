#!/bin/bash
# Everything a run may change on the machine, as one comparable text: the
# tests (tests/lib.sh machine_state) and the benches (bench/run-all.sh)
# take it before and after, and a difference is something left behind.
echo "swaps: $(tail -n +2 /proc/swaps | awk '{print $1}' | sort | tr '\n' ' ')"
echo "zram: $(ls -d /sys/block/zram* 2>/dev/null | sort | tr '\n' ' ')"
echo "cgroups: $(find /sys/fs/cgroup -maxdepth 3 -type d -name 'pressmark*' 2>/dev/null | sort | tr '\n' ' ')"
echo "sysctl: $(cat /proc/sys/vm/swappiness /proc/sys/vm/overcommit_memory /proc/sys/vm/min_free_kbytes | tr '\n' ' ')"
echo "thp: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"
echo "zswap: $(cat /sys/module/zswap/parameters/enabled 2>/dev/null)"
echo "journal: $(ls /run/pressmark/journal 2>/dev/null)"
echo "swapfiles: $(ls /var/lib/pressmark/swap 2>/dev/null | tr '\n' ' ') $(ls -d /var/lib/pressmark 2>/dev/null)"
echo "helpers: $(pgrep -fc 'pressmark __' || true)"
echo "vms: $(pgrep -fc 'qemu-system.* pressmark-vm-' || true)"
echo "vm scratch: $(ls -d /var/tmp/pressmark-vm-* ${TMPDIR:-/tmp}/pressmark-vm-* 2>/dev/null | tr '\n' ' ')"
echo "image builds: $(ls -d /var/cache/pressmark/vm/pressmark-build-* 2>/dev/null | tr '\n' ' ')"
echo "mounts: $(grep -c pressmark-build /proc/mounts || true)"
echo "tracefs: $(awk '$3 == "tracefs" { print $2 }' /proc/mounts | sort | tr '\n' ' ')"
echo "trace instances: $(ls -d /sys/kernel/tracing/instances/pressmark-* /sys/kernel/debug/tracing/instances/pressmark-* 2>/dev/null | tr '\n' ' ')"
