#!/bin/bash
# The main job of ./run.sh: a short demonstration of what pressmark records,
# in a database of its own under out/, then its summary.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${PRESSMARK_OUT:-out}
mkdir -p "$OUT"
export PRESSMARK_DB="$OUT/demo.db"
PM=./pressmark

echo "== pressmark doctor"
$PM doctor
echo
echo "== record: a CPU-bound command, sampled every 100 ms, 3 runs"
$PM record --label demo --interval 100ms --runs 3 -- \
    sh -c 'dd if=/dev/zero of=/dev/null bs=1M count=60000 2>/dev/null'
echo
$PM show demo
echo
echo "database: $PRESSMARK_DB (pressmark --db $PRESSMARK_DB list)"
