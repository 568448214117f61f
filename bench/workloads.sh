#!/bin/bash
# Does the workload set the pace, or pressmark? usemem's MB/s against
# stress-ng's vm stressor writing the same size (write64, memory kept
# mapped), and pagefault's faults/s against stress-ng's fault and mmap
# stressors, each pair interleaved round by round in the same bench run,
# as ratios of medians. Goal: usemem within 10% of stress-ng.
#
# stress-ng's vm bogo op is 1 MiB written (the counter counts 256-byte
# rows and is shifted down by 12 at the end: stress-vm.c, VM_BOGO_SHIFT),
# so its bogo ops per second are MiB/s. Its fault and mmap stressors'
# faults are the kernel's count (wait4's minflt, through pressmark record)
# over their wall time; pagefault reports the same for its own threads.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-3}
SECS=${SECS:-4}
SIZE=${SIZE:-256M}
command -v stress-ng >/dev/null || { echo "bench/workloads.sh: needs stress-ng (apt-get install stress-ng)" >&2; exit 2; }
DIR=$(mktemp -d /tmp/pressmark-bench.XXXXXX)
trap 'rm -rf "$DIR"' EXIT
export PRESSMARK_DB="$DIR/bench.db"
PM=./pressmark
q() { sqlite3 -batch "$PRESSMARK_DB" "$1"; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "== usemem --size $SIZE --duration ${SECS}s against stress-ng --vm 1 --vm-bytes $SIZE --vm-method write64 --vm-keep, $ROUNDS rounds"
: > "$DIR/um"; : > "$DIR/sng"
for r in $(seq "$ROUNDS"); do
    $PM run usemem --quiet --no-sample --size "$SIZE" --duration "${SECS}s" --label usemem
    q "select value from metric m join run r on r.id = m.run_id where r.label = 'usemem' and m.name = 'usemem.mb_per_s' order by r.id desc limit 1" >> "$DIR/um"
    stress-ng --vm 1 --vm-bytes "$SIZE" --vm-method write64 --vm-keep -t "$SECS" --metrics --yaml "$DIR/vm.yaml" >/dev/null 2>&1
    awk '/bogo-ops-per-second-real-time:/ { print $2 }' "$DIR/vm.yaml" >> "$DIR/sng"
done
um=$(median < "$DIR/um"); sng=$(median < "$DIR/sng")
printf 'usemem     MB/s per round: %s (median %.0f)\n' "$(tr '\n' ' ' < "$DIR/um")" "$um"
printf 'stress-ng  MB/s per round: %s (median %.0f)\n' "$(tr '\n' ' ' < "$DIR/sng")" "$sng"
awk -v a="$um" -v b="$sng" 'BEGIN { printf "usemem / stress-ng = %.3f (goal: 0.9 or more)\n", a / b }'

echo
echo "== pagefault --threads 1 --duration ${SECS}s against stress-ng --fault 1 and --mmap 1 --mmap-bytes 128M, $ROUNDS rounds (faults/s from the kernel's minflt)"
: > "$DIR/pf"; : > "$DIR/fault"; : > "$DIR/mmap"
for r in $(seq "$ROUNDS"); do
    $PM run pagefault --quiet --no-sample --threads 1 --duration "${SECS}s" --label pagefault
    q "select m1.value / m2.value from metric m1 join metric m2 on m1.run_id = m2.run_id join run r on r.id = m1.run_id where r.label like 'pagefault%' and m1.name = 'pagefault.minor_faults' and m2.name = 'pagefault.elapsed_s' order by r.id desc limit 1" >> "$DIR/pf"
    for s in fault mmap; do
        extra=""; [ $s = mmap ] && extra="--mmap-bytes 128M"
        # shellcheck disable=SC2086
        $PM record --quiet --no-sample --label "sng-$s" -- stress-ng --$s 1 $extra -t "$SECS" >/dev/null 2>&1
        q "select m1.value / m2.value from metric m1 join metric m2 on m1.run_id = m2.run_id join run r on r.id = m1.run_id where r.label = 'sng-$s' and m1.name = 'time.minflt' and m2.name = 'time.elapsed_s' order by r.id desc limit 1" >> "$DIR/$s"
    done
done
pf=$(median < "$DIR/pf"); fault=$(median < "$DIR/fault"); mmap=$(median < "$DIR/mmap")
printf 'pagefault           faults/s per round: %s (median %.0f)\n' "$(xargs printf '%.0f ' < "$DIR/pf")" "$pf"
printf 'stress-ng --fault   faults/s per round: %s (median %.0f)\n' "$(xargs printf '%.0f ' < "$DIR/fault")" "$fault"
printf 'stress-ng --mmap    faults/s per round: %s (median %.0f)\n' "$(xargs printf '%.0f ' < "$DIR/mmap")" "$mmap"
awk -v a="$pf" -v b="$fault" -v c="$mmap" 'BEGIN { printf "pagefault / stress-ng --fault = %.3f; pagefault / stress-ng --mmap = %.3f\n", a / b, a / c }'
