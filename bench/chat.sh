#!/bin/bash
# The chat workload's msg/s at 10 rooms x 20 users x 100 messages,
# uncapped, and its CPU per delivered message beside hackbench -T -g 10
# -l 100 (rt-tests), measured in the same run and both through pressmark's
# own wait4 rusage. Each side's CPU is divided by its own deliveries:
#  - the chat's server passes each message to the 19 other users of its
#    room (never back to its sender): 10 rooms x 20 users x 100 messages
#    x 19 = 380,000 deliveries a run; chat.cpu_us_per_delivery is the
#    client's and the server's CPU over the messages the users received
#    (chat.received, printed beside it);
#  - hackbench's 10 groups each have 20 senders writing 100 messages to
#    each of the group's 20 receivers: 10 x 20 x 20 x 100 = 400,000,
#    over 400 threads.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
. bench/lib.sh
if ! command -v hackbench >/dev/null; then
    echo "bench/chat.sh: hackbench is missing (as root: apt-get install rt-tests)" >&2
    exit 2
fi
bench_tmpdir DB
export PRESSMARK_DB="$DB/bench.db"
q() { sqlite3 -batch "$PRESSMARK_DB" "$1"; }
RUNS=${BENCH_RUNS:-3}
ROOMS=10 USERS=20 MESSAGES=100 HB_GROUPS=10 FDS=20 LOOPS=100
CHAT_EXPECTED=$((ROOMS * USERS * MESSAGES * (USERS - 1)))
HB_DELIVERIES=$((HB_GROUPS * FDS * FDS * LOOPS))
./pressmark run chat --quiet --label chat --rooms $ROOMS --users $USERS --messages $MESSAGES --runs "$RUNS"
./pressmark record --quiet --label hackbench --runs "$RUNS" -- hackbench -T -g $HB_GROUPS -f $FDS -l $LOOPS >/dev/null
# Per label, the mean over its ok runs: msg/s, CPU per delivery, deliveries,
# the run's CPU (user + sys of each run, then their mean) and elapsed.
q "select r.label, count(distinct r.id),
          avg(case when m.name = 'chat.msgs_per_s' then m.value end),
          avg(case when m.name = 'chat.cpu_us_per_delivery' then m.value end),
          avg(case when m.name = 'chat.received' then m.value end),
          sum(case when m.name in ('time.user_s', 'time.sys_s') then m.value end) / count(distinct r.id),
          avg(case when m.name = 'time.elapsed_s' then m.value end)
   from run r join metric m on m.run_id = r.id where r.status = 'ok' group by r.label" > "$DB/means"
awk -F'|' -v hbn="$HB_DELIVERIES" -v chatn="$CHAT_EXPECTED" -v runs="$RUNS" '
    $1 == "chat"      { cn = $2; msgs = $3; chat = $4; recv = $5 }
    $1 == "hackbench" { hn = $2; hb = $6 / hbn * 1e6; hbel = $7 }
    END {
        if (cn == "") { print "chat: no ok run of " runs; exit }
        printf "chat 10 rooms x 20 users x 100 messages: %.0f msg/s (mean of %d ok runs of %d)\n", msgs, cn, runs
        printf "deliveries per run: chat %.0f received (10 x 20 x 100 x 19 others in the room = %d), ", recv, chatn
        printf "hackbench -T -g 10 -f 20 -l 100 10 x 20 senders x 20 receivers x 100 = %d\n", hbn
        if (hn == "") { print "hackbench: no ok run of " runs; exit }
        printf "CPU per delivered message: chat %.2f us (client + server, over its received), hackbench %.2f us (over its %d)\n", chat, hb, hbn
        printf "ratio chat/hackbench: %.2f  (hackbench elapsed %.2f s, mean of %d ok runs of %d)\n", chat / hb, hbel, hn, runs }' "$DB/means"
