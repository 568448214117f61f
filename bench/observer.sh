#!/bin/bash
# The observer effect: how much pressmark's own sampling disturbs what it
# measures. The chat's msg/s and a build's elapsed time, sampled at 1 s,
# 100 ms and 10 ms, against the same workload with the sampler off
# (--no-sample: wait4's figures only), interleaved round by round in one
# bench run, compared by pressmark compare (Welch's t-test): each as a
# ratio to "off" with its p-value. Goal: no significant difference at
# 100 ms; at most 1% at 10 ms.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-5}
DB=$(mktemp -d /tmp/pressmark-bench.XXXXXX)
trap 'rm -rf "$DB"' EXIT
export PRESSMARK_DB="$DB/bench.db"
PM=./pressmark
modes=(off 1s 100ms 10ms)
opts() { if [ "$1" = off ]; then echo --no-sample; else echo "--interval $1"; fi; }

echo "== chat (2 rooms x 20 users, 300 messages each), $ROUNDS rounds, modes interleaved: ${modes[*]}"
for r in $(seq "$ROUNDS"); do
    for m in "${modes[@]}"; do
        # shellcheck disable=SC2046
        $PM run chat --quiet --label "chat-$m" --rooms 2 --users 20 --messages 300 $(opts "$m") >/dev/null
    done
done
$PM compare chat-off chat-1s chat-100ms chat-10ms

echo
echo "== build (generated tree, 8 units of 1000 statements, make -j 2x CPUs), $ROUNDS rounds, modes interleaved: ${modes[*]}"
for r in $(seq "$ROUNDS"); do
    for m in "${modes[@]}"; do
        # shellcheck disable=SC2046
        $PM run build --quiet --label "build-$m" --files 8 --unit-size 1000 --jobs 2x $(opts "$m") >/dev/null
    done
done
$PM compare build-off build-1s build-100ms build-10ms
