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
if [ $can_cap = yes ]; then
    echo
    echo "== seed 004 in miniature: swapout of 192M under a 64M cap with a 256M swap file, 3 runs"
    $PM run swapout --label capped --size 192M --mem-cap 64M --swap 256M --runs 3 --interval 100ms
    echo
    $PM show capped
else
    echo
    echo "(skipping the capped swapout: it needs root and a memory cgroup controller)"
fi
echo
echo "database: $PRESSMARK_DB  (./pressmark --db $PRESSMARK_DB list)"
