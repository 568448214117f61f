#!/bin/bash
# The main job of ./run.sh: what this machine offers, then a reference
# experiment at a size that takes a minute or two here (a suite file from
# suites/), its comparison and its report. Everything goes to its own
# database under out/ (PRESSMARK_OUT moves it).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${PRESSMARK_OUT:-out}
mkdir -p "$OUT"
export PRESSMARK_DB="$OUT/results.db"
PM=./pressmark
rm -f "$PRESSMARK_DB" "$PRESSMARK_DB-wal" "$PRESSMARK_DB-shm"

echo "== pressmark doctor"
$PM doctor
# The VolanoMark memory-pressure comparison needs a memory cap (root and a
# memory cgroup controller); without one, the loopback convergence run.
suite=suites/volanomark-loopback-quick.ini
if [ "$(id -u)" -eq 0 ] && { [ -d /sys/fs/cgroup/memory ] || grep -qsw memory /sys/fs/cgroup/cgroup.controllers; }; then
    suite=suites/volanomark-capped-quick.ini
fi
echo
echo "== pressmark suite plan $suite"
$PM suite plan "$suite"
echo
echo "== pressmark suite run $suite"
$PM suite run "$suite"
echo
echo "== pressmark suite status"
$PM suite status
echo
echo "== pressmark compare --suite"
$PM compare --suite
echo
echo "== pressmark report --suite"
page=$($PM report --suite --out "$OUT/report")
echo "report:   $page"
echo "database: $PRESSMARK_DB  (./pressmark --db $PRESSMARK_DB suite list)"
