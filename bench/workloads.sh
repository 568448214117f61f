#!/bin/bash
# Does the workload set the pace, or pressmark? usemem's MB/s against
# stress-ng's vm stressor writing the same size (write64, memory kept
# mapped), and pagefault's faults/s against stress-ng's fault and mmap
# stressors, each pair interleaved round by round in the same bench run,
# as ratios of medians. Goal: usemem within 10% of stress-ng.
#
# Like for like, each side over its working loop only:
#  - usemem's MB/s are its timed sweeps'. stress-ng's vm bogo op is 1 MiB
#    written (the counter counts 256-byte rows and is shifted down by 12
#    at the end: stress-vm.c, VM_BOGO_SHIFT), and its
#    bogo-ops-per-second-real-time is over the stressor's own run, not the
#    stress-ng process's start-up and exit: MiB/s of its loop.
#  - pagefault's faults/s are the kernel's count over its timed loop.
#    stress-ng's fault and mmap stressors report no fault count of their
#    own, so theirs is the kernel's (wait4's minflt, through pressmark
#    record) for the whole process, which includes stress-ng's start-up,
#    its stressor's set-up and everyone's exit. Each is therefore run
#    twice a round, for 1 s and for SECS, and its rate taken from the
#    difference: (minflt(SECS) - minflt(1 s)) / (elapsed(SECS) -
#    elapsed(1 s)). Start-up and exit cost the same in both runs and
#    cancel out; what is left is SECS - 1 seconds of the stressor's loop.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
. bench/lib.sh
ROUNDS=${ROUNDS:-3}
SECS=${SECS:-4}
SIZE=${SIZE:-256M}
G_USEMEM="usemem MB/s / stress-ng --vm's"
goal_plan "$G_USEMEM" '>=' 0.9
command -v stress-ng >/dev/null || {
    not_measured "$G_USEMEM" "stress-ng is missing"
    echo "bench/workloads.sh: needs stress-ng (apt-get install stress-ng)" >&2
    exit 2
}
[ "$SECS" -ge 2 ] 2>/dev/null || { echo "bench/workloads.sh: SECS must be a whole number of seconds, 2 or more (got '$SECS')" >&2; exit 2; }
bench_tmpdir DIR
export PRESSMARK_DB="$DIR/bench.db"
PM=./pressmark
q() { sqlite3 -batch "$PRESSMARK_DB" "$1"; }
# The latest run of a label: metric $2 / metric $3.
latest_ratio() {
    q "select m1.value / m2.value from metric m1 join metric m2 on m1.run_id = m2.run_id join run r on r.id = m1.run_id
       where r.label = '$1' and m1.name = '$2' and m2.name = '$3' and m2.value > 0 order by r.id desc limit 1"
}
latest() {
    q "select m.value from metric m join run r on r.id = m.run_id where r.label = '$1' and m.name = '$2' order by r.id desc limit 1"
}
whole() { if [ -n "$1" ]; then printf '%.0f' "$1"; else echo none; fi; }
per_round() { if [ -s "$1" ]; then xargs printf '%.0f ' < "$1"; else echo "(none)"; fi; }

echo "== usemem --size $SIZE --duration ${SECS}s against stress-ng --vm 1 --vm-bytes $SIZE --vm-method write64 --vm-keep, $ROUNDS rounds"
: > "$DIR/um"; : > "$DIR/sng"
for r in $(seq "$ROUNDS"); do
    $PM run usemem --quiet --no-sample --size "$SIZE" --duration "${SECS}s" --label usemem
    latest usemem usemem.mb_per_s >> "$DIR/um"
    rm -f "$DIR/vm.yaml"
    stress-ng --vm 1 --vm-bytes "$SIZE" --vm-method write64 --vm-keep -t "$SECS" --metrics --yaml "$DIR/vm.yaml" >/dev/null 2>&1 ||
        echo "round $r: stress-ng --vm exited $?"
    awk '/bogo-ops-per-second-real-time:/ { print $2 }' "$DIR/vm.yaml" 2>/dev/null >> "$DIR/sng" || true
done
um=$(median < "$DIR/um"); sng=$(median < "$DIR/sng")
printf 'usemem     MB/s per round: %s (median %s)\n' "$(per_round "$DIR/um")" "$(whole "$um")"
printf 'stress-ng  MB/s per round: %s (median %s)\n' "$(per_round "$DIR/sng")" "$(whole "$sng")"
if [ -z "$um" ] || [ -z "$sng" ]; then
    not_measured "$G_USEMEM" "no usable round: usemem ${um:-stored no usemem.mb_per_s}, stress-ng ${sng:-wrote no bogo-ops-per-second-real-time}"
else
    goal "$G_USEMEM" "$(awk -v a="$um" -v b="$sng" 'BEGIN { printf "%.6g", a / b }')"
fi

echo
echo "== pagefault --threads 1 --duration ${SECS}s against stress-ng --fault 1 and --mmap 1 --mmap-bytes 128M, $ROUNDS rounds"
echo "(faults/s from the kernel's minflt: pagefault's over its timed loop; stress-ng's from its runs of 1 s and ${SECS} s, the difference)"
: > "$DIR/pf"; : > "$DIR/fault"; : > "$DIR/mmap"
for r in $(seq "$ROUNDS"); do
    $PM run pagefault --quiet --no-sample --threads 1 --duration "${SECS}s" --label pagefault
    latest_ratio pagefault pagefault.minor_faults pagefault.elapsed_s >> "$DIR/pf"
    for s in fault mmap; do
        extra=()
        [ $s = mmap ] && extra=(--mmap-bytes 128M)
        for t in 1 "$SECS"; do
            $PM record --quiet --no-sample --label "sng-$s-$t" -- stress-ng --$s 1 "${extra[@]}" -t "$t" >/dev/null 2>&1 ||
                echo "round $r: stress-ng --$s -t $t under pressmark record exited $?"
        done
        f1=$(latest "sng-$s-1" time.minflt); e1=$(latest "sng-$s-1" time.elapsed_s)
        fs=$(latest "sng-$s-$SECS" time.minflt); es=$(latest "sng-$s-$SECS" time.elapsed_s)
        if [ -z "$f1" ] || [ -z "$e1" ] || [ -z "$fs" ] || [ -z "$es" ]; then
            echo "round $r: stress-ng --$s: a run stored no time.minflt or time.elapsed_s: left out"
        elif awk -v a="$e1" -v b="$es" 'BEGIN { exit !(b - a > 0.5) }'; then
            awk -v f1="$f1" -v e1="$e1" -v fs="$fs" -v es="$es" 'BEGIN { printf "%.1f\n", (fs - f1) / (es - e1) }' >> "$DIR/$s"
        else
            echo "round $r: stress-ng --$s: the ${SECS} s run took $es s, the 1 s run $e1 s: no difference to measure: left out"
        fi
    done
done
pf=$(median < "$DIR/pf"); fault=$(median < "$DIR/fault"); mmap=$(median < "$DIR/mmap")
printf 'pagefault           faults/s per round: %s (median %s)\n' "$(per_round "$DIR/pf")" "$(whole "$pf")"
printf 'stress-ng --fault   faults/s per round: %s (median %s)\n' "$(per_round "$DIR/fault")" "$(whole "$fault")"
printf 'stress-ng --mmap    faults/s per round: %s (median %s)\n' "$(per_round "$DIR/mmap")" "$(whole "$mmap")"
ratio() { if [ -n "$1" ] && [ -n "$2" ]; then awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; else echo "not measured"; fi; }
echo "pagefault / stress-ng --fault = $(ratio "$pf" "$fault"); pagefault / stress-ng --mmap = $(ratio "$pf" "$mmap")"
