#!/bin/bash
# A kernel in a VM against the same cell on this machine, in one suite:
# kernel = running (runs here) and a Debian kernel package (boots in a
# QEMU VM with the accelerator pressmark chooses: KVM when it works, TCG
# emulation when it does not). Figures:
#   boot to first run  from QEMU's start to the guest's first run starting,
#                      against one run of the cell on this machine;
#   per-run overhead   the guest's mean run time against this machine's.
# Both as ratios against the host cell measured in the same bench run.
# Root; the first run builds the guest image (about a minute).
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "bench/vm.sh: needs root (VMs)"; exit 0; }
KERNEL=${BENCH_VM_KERNEL:-linux-image-6.12-cloud-amd64}
RUNS=${BENCH_VM_RUNS:-5}
# shellcheck source=bench/lib.sh
. bench/lib.sh
bench_tmpdir DIR
cat > "$DIR/vm.ini" <<INI
[global]
runs = $RUNS
kernel = running, $KERNEL
vm-memory = 1G
vm-cpus = 2
order = sequential

[chat]
rooms = 2
users = 10
messages = 200
heap = 32M
label = {kernel}
INI
PRESSMARK_DB=$DIR/r.db ./pressmark suite run "$DIR/vm.ini" > "$DIR/out" 2> "$DIR/err" || true
line=$(grep -E "runs from the VM \(up after" "$DIR/err" | tail -1)
accel=$(grep -oE "booting in a VM \((KVM|TCG emulation)" "$DIR/err" | tail -1 | sed 's/.*(//')
up=$(printf '%s\n' "$line" | sed -E 's/.*up after ([0-9.]+) s.*/\1/')
first=$(printf '%s\n' "$line" | sed -E 's/.*first run at ([0-9.]+) s.*/\1/')
mean() { sqlite3 "$DIR/r.db" "SELECT avg((ended_ns - started_ns) / 1e9) FROM run WHERE status = 'ok' AND label = '$1'"; }
host=$(mean running)
guest=$(mean "$KERNEL")
if [ -z "$host" ] || [ -z "$guest" ] || [ -z "$first" ]; then
    echo "bench/vm.sh: the suite did not finish:"; tail -5 "$DIR/err"; exit 1
fi
printf "accelerator: %s; kernel in the VM: %s; host kernel: %s\n" "$accel" "$KERNEL" "$(uname -r)"
printf "boot to the guest's init:   %6.2f s\n" "$up"
printf "boot to its first run:      %6.2f s\n" "$first"
printf "a run on this machine:      %6.3f s (mean of %s)\n" "$host" "$RUNS"
printf "a run in the VM:            %6.3f s (mean of %s)\n" "$guest" "$RUNS"
awk -v f="$first" -v h="$host" -v g="$guest" 'BEGIN {
    printf "ratio boot-to-first-run / host run: %.1f\n", f / h
    printf "ratio VM run / host run (per-run overhead): %.2f\n", g / h }'
