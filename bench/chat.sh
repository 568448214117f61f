#!/bin/bash
# The chat workload's msg/s at 10 rooms x 20 users x 100 messages,
# uncapped, and its CPU per delivered message beside hackbench -T -g 10
# -l 100 (rt-tests: the same 400,000 deliveries among 400 threads),
# measured in the same run and both through pressmark's own wait4 rusage.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v hackbench >/dev/null; then
    echo "bench/chat.sh: hackbench is missing (as root: apt-get install rt-tests)" >&2
    exit 2
fi
DB=$(mktemp -d /tmp/pressmark-bench.XXXXXX)
trap 'rm -rf "$DB"' EXIT
export PRESSMARK_DB="$DB/bench.db"
q() { sqlite3 -batch "$PRESSMARK_DB" "$1"; }
RUNS=${BENCH_RUNS:-3}
./pressmark run chat --quiet --label chat --rooms 10 --users 20 --messages 100 --runs "$RUNS"
./pressmark record --quiet --label hackbench --runs "$RUNS" -- hackbench -T -g 10 -l 100 >/dev/null
q "select r.label,
          avg(case when m.name = 'chat.msgs_per_s' then m.value end),
          avg(case when m.name = 'chat.cpu_us_per_delivery' then m.value end),
          avg(case when m.name in ('time.user_s', 'time.sys_s') then m.value end) * 2,
          avg(case when m.name = 'time.elapsed_s' then m.value end)
   from run r join metric m on m.run_id = r.id where r.status = 'ok' group by r.label" |
awk -F'|' '
    $1 == "chat"      { msgs = $2; chat = $3 }
    $1 == "hackbench" { hb = $4 / 400000 * 1e6; hbel = $5 }
    END {
        printf "chat 10 rooms x 20 users x 100 messages: %.0f msg/s (mean of the ok runs)\n", msgs
        printf "CPU per delivered message: chat %.2f us (client + server), hackbench -T -g 10 -l 100 %.2f us\n", chat, hb
        printf "ratio chat/hackbench: %.2f  (hackbench elapsed %.2f s)\n", chat / hb, hbel }'
