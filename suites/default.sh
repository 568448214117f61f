#!/bin/bash
# The main job of ./run.sh: the seeds' experiments in miniature, each in a
# database of its own under out/, then their summaries.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${PRESSMARK_OUT:-out}
mkdir -p "$OUT"
export PRESSMARK_DB="$OUT/results.db"
PM=./pressmark
rm -f "$PRESSMARK_DB" "$PRESSMARK_DB-wal" "$PRESSMARK_DB-shm"

echo "== pressmark doctor"
$PM doctor
echo
echo "== record: a command sampled every 100 ms, 3 runs (label demo)"
$PM record --label demo --interval 100ms --runs 3 -- \
    sh -c 'dd if=/dev/zero of=/dev/null bs=1M count=60000 2>/dev/null'
echo
$PM show demo

can_cap=no
if [ "$(id -u)" -eq 0 ] && { [ -d /sys/fs/cgroup/memory ] || grep -qsw memory /sys/fs/cgroup/cgroup.controllers; }; then
    can_cap=yes
fi
echo
echo "== seed 000 in miniature: VolanoMark chat, 2 rooms x 20 users x 200 messages, uncapped, 3 runs"
$PM run chat --label uncapped --rooms 2 --users 20 --messages 200 --heap 128M --runs 3 --interval 200ms
if [ $can_cap = yes ]; then
    echo
    echo "== the same with both 128M heaps under a 96M cap and a 512M swap file, 3 runs"
    $PM run chat --label capped --rooms 2 --users 20 --messages 200 --heap 128M --mem-cap 96M --swap 512M \
        --runs 3 --interval 200ms
    echo
    echo "== seed 004 in miniature: swapout of 192M under a 64M cap with a 256M swap file, 3 runs"
    $PM run swapout --label swapout --size 192M --mem-cap 64M --swap 256M --runs 3 --interval 100ms
fi
echo
echo "== seed 002 in miniature: make -j of a generated tree, uncapped then under a 48M cap with swap, 3 runs each"
$PM run build --label build --files 4 --unit-size 600 --headers 4 --jobs 2 --runs 3 --interval 200ms
if [ $can_cap = yes ]; then
    $PM run build --label build-capped --files 4 --unit-size 600 --headers 4 --jobs 2 --runs 3 --interval 200ms \
        --mem-cap 48M --swap 256M
fi
echo
echo "== seed 001 in miniature: 16 processes alternating disk writes with shared memory, 5 s, kernel profile"
profile=(); command -v perf >/dev/null && [ "$(id -u)" -eq 0 ] && profile=(--profile)
$PM run shmio --label shmio --procs 16 --duration 5s --interval 500ms "${profile[@]}"
echo
$PM show uncapped
echo
$PM show build
echo
$PM show shmio
if [ $can_cap = yes ]; then
    echo
    $PM show capped
    echo
    $PM show swapout
    echo
    $PM show build-capped
else
    echo
    echo "(skipped the capped runs: they need root and a memory cgroup controller)"
fi
echo
if [ $can_cap = yes ]; then
    echo "== compare: seed 000's table and ratio sentence, capped against uncapped"
    $PM compare --baseline uncapped capped
    echo
fi
echo "== plot and report"
$PM plot --out "$OUT/plots" >/dev/null
$PM report --out "$OUT/report" >/dev/null
echo "charts:   $OUT/plots/ (each .png with its .gp and .dat)"
echo "report:   $OUT/report/report.html"
echo "database: $PRESSMARK_DB  (./pressmark --db $PRESSMARK_DB list)"
