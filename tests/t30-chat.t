#!/bin/bash
# The chat workload: exact counts, the wire checked from outside, order, swapping under a cap, failures, network mode.
. "$(dirname "$0")/lib.sh"
quiet_machine    # (latencies are compared: no VM of t80's beside them)
PEER="$ROOT/tests/chat_peer.py"
last_run() { q "select max(id) from run"; }

# Exact counts at several shapes.
for shape in "1 2 1" "3 5 7" "10 20 10"; do
    set -- $shape
    "$PM" run chat --quiet --rooms $1 --users $2 --messages $3 --heap 8M --label "c$1x$2x$3" 2> "$TMP/shape.err"
    rc=$?
    id=$(last_run)
    is "$rc:$(q "select label || ':' || status from run where id = $id")" "0:c$1x$2x$3:ok" "$1 rooms x $2 users x $3 messages: ok"
    [ "$rc" -eq 0 ] || while IFS= read -r l; do diag "# $l"; done < <(tail -n 12 "$TMP/shape.err")
    is "$(imetric $id chat.sent)" $(( $1 * $2 * $3 )) "  sent = R x U x C = $(( $1 * $2 * $3 ))"
    is "$(imetric $id chat.received)" $(( $1 * $2 * $3 * ($2 - 1) )) "  received = R x U x C x (U-1) = $(( $1 * $2 * $3 * ($2 - 1) ))"
    is "$(imetric $id chat.order_errors)" 0 "  every user received the others' messages in send order"
    is "$(imetric $id chat.latency_samples)" $(( $1 * $2 * $3 * ($2 - 1) )) "  every delivery's latency was recorded, once"
    is "$(q "select sum(count) from latency_hist where run_id = $id and name = 'chat.latency'")" \
        $(( $1 * $2 * $3 * ($2 - 1) )) "  and its stored buckets hold as many"
    msgs=$(q "select value from metric where run_id = $id and name = 'chat.msgs_per_s'")
    ok "  msg/s is (sent + received) / elapsed ($msgs)" awk -v m="$msgs" \
        -v t="$(q "select value from metric where run_id = $id and name = 'chat.total'")" \
        -v e="$(q "select value from metric where run_id = $id and name = 'chat.elapsed_s'")" \
        'BEGIN { d = m - t / e; exit !(d < 1e-6 * m && d > -1e-6 * m) }'
done
show=$("$PM" show "$(q "select max(id) from run where label = 'c10x20x10'")")
like "$show" "chat: client_collections [0-9]+, .*server_collections [0-9]+" "show reports the heap collections per side, as the 2002 VolanoMark report counts GCs"
like "$show" "received 38,000, sent 2,000" "and the exact counts"
show=$("$PM" show c3x5x7)
like "$show" "msg/s +%CPU +%sys/%user +user +system +idle +Total swpin +Total swpout +Total swapio" "show prints the 2002 VolanoMark report's and 003's columns"

# Delivery latency against a second measurement: a relay written from the
# protocol document checks every frame pressmark's client sends byte by
# byte, holds each chat 20-200 ms, and times each delivery itself, from the
# send time in the text to handing the frame to the kernel. pressmark's
# receivers see it after that: never earlier than the relay's figure (less
# the histogram's 0.8%), at any percentile. How much later is the
# loopback's delivery and the receivers' scheduling: well under 1 ms here
# when idle, 2 to 3 ms in a guest under TCG emulation, and for some
# messages far more on a machine busy with other tests (p99 15 ms and max
# 28 ms later, with a sanitised prove beside). It is held at the median
# only (5 ms), where half the deliveries would have to be that late.
python3 "$PEER" relay "$TMP/relay.port" "$TMP/relay.lat" > "$TMP/relay.out" &
relay=$!
wait_for test -s "$TMP/relay.port"
"$PM" run chat --quiet --server "127.0.0.1:$(cat "$TMP/relay.port")" --rooms 1 --users 3 --pause 0.05 --duration 2s --label relayed
wait $relay
is "$?" 0 "every frame of pressmark's client passed the relay's byte checks"
id=$(last_run)
is "$(q "select status from run where id = $id")" ok "  the run against the relay: ok"
is "$(imetric $id chat.latency_samples)" "$(wc -l < "$TMP/relay.lat")" "  as many latencies recorded as the relay delivered ($(wc -l < "$TMP/relay.lat"))"
sort -n "$TMP/relay.lat" > "$TMP/relay.sorted"
for p in p50 p90 p99 max; do
    mine=$(q "select value * 1000 from metric where run_id = $id and name = 'chat.latency_${p}_us'")
    theirs=$(awk -v p=${p#p} '{ v[NR] = $1 } END { if (p == "max") { print v[NR]; exit } r = int(p / 100 * NR); if (r < p / 100 * NR) r++; print v[r] }' "$TMP/relay.sorted")
    if [ "$p" = p50 ]; then
        ok "  $p: ${mine%.*} ns against the relay's $theirs ns (at least -0.8%, at most +0.8% + 5 ms)" \
            awk -v a="$mine" -v b="$theirs" 'BEGIN { exit !(a >= b * 0.992 && a <= b * 1.008 + 5e6) }'
    else
        ok "  $p: ${mine%.*} ns, never below the relay's $theirs ns (less 0.8%)" \
            awk -v a="$mine" -v b="$theirs" 'BEGIN { exit !(a >= b * 0.992) }'
    fi
done

# --pause: every user chats on its own timer for --duration instead of taking turns.
"$PM" run chat --quiet --rooms 2 --users 3 --pause 0.1 --duration 1s --label paced
id=$(last_run)
is "$(q "select status from run where id = $id")" ok "--pause 0.1 --duration 1s: ok"
sent=$(imetric $id chat.sent)
ge "$sent" 6 "every user sent on its timer ($sent messages)"
is "$(imetric $id chat.received)" $(( sent * 2 )) "each message reached the two others in its room"

# The server, from an independent peer written from the protocol document.
"$PM" chat-server --listen 127.0.0.1:0 > "$TMP/server.out" 2>&1 &
srv=$!
cleanup_add "kill $srv"
ok "chat-server prints its port" wait_for grep -q '^port ' "$TMP/server.out"
port=$(awk '/^port/ { print $2 }' "$TMP/server.out")
out=$(python3 "$PEER" frames 127.0.0.1 "$port")
is "$?" 0 "the server's frames have the documented layout and sizes"
while IFS= read -r l; do like "$l" "^ok " "  ${l#ok }"; done <<< "$out"
python3 "$PEER" garbage 127.0.0.1 "$port" >/dev/null
is "$?" 0 "an unknown packet id ends that connection"
out=$(python3 "$PEER" frames 127.0.0.1 "$port")
is "$?" 0 "and the server goes on serving others"
kill -TERM $srv; wait $srv
is "$?" 0 "chat-server ends cleanly on SIGTERM"
like "$(tail -1 "$TMP/server.out")" "^server collections [0-9]+ connections 5 chats 2$" "and reports its connections and chats"

# Hostile clients: 2,000 connections opened and dropped (half frames, a
# string claiming 64K, unknown ids) while one sends a byte now and then.
"$PM" chat-server --listen 127.0.0.1:0 --heap 8M > "$TMP/storm.out" 2>&1 &
srv2=$!
cleanup_add "kill $srv2"
wait_for grep -q '^port ' "$TMP/storm.out"
port2=$(awk '/^port/ { print $2 }' "$TMP/storm.out")
python3 "$PEER" frames 127.0.0.1 "$port2" >/dev/null
rss0=$(awk '/^VmRSS:/ { print $2 }' /proc/$srv2/status)
like "$(python3 "$PEER" storm 127.0.0.1 "$port2" 2000)" "^ok storm of 2000 connections" "a storm of 2,000 hostile connections"
ok "the server is still there" kill -0 $srv2
"$PM" run chat --quiet --server "127.0.0.1:$port2" --rooms 2 --users 5 --messages 20 --label after-storm
id=$(last_run)
is "$(q "select status from run where id = $id")" ok "and serves a real chat afterwards"
is "$(imetric $id chat.received)" $(( 2 * 5 * 20 * 4 )) "  with exact counts"
rss1=$(awk '/^VmRSS:/ { print $2 }' /proc/$srv2/status)
if [ -n "${ASAN_OPTIONS:-}" ]; then
    # Freed memory sits in ASan's quarantine (256 MB by default): RSS tells
    # nothing here; LeakSanitizer checks the server's memory at its exit.
    skip "AddressSanitizer's quarantine holds freed memory; the plain run checks the bound ($rss0 -> $rss1 kB)"
else
    ok "its memory stayed bounded ($rss0 kB before, $rss1 kB after)" test "$rss1" -lt $(( rss0 + 65536 ))
fi
kill -TERM $srv2; wait $srv2
is "$?" 0 "and ends cleanly"

# pressmark's client against a server that sends garbage: failed, quickly, never a hang.
python3 "$PEER" badserver "$TMP/badport" "$TMP/badrelease" &
bad=$!
wait_for test -s "$TMP/badport"
timeout 300 "$PM" run chat --quiet --server "127.0.0.1:$(cat "$TMP/badport")" --rooms 1 --users 2 --messages 5 --label badserver
is "$?" 1 "a malformed frame from the server: exit 1"
is "$(q "select status from run where label = 'badserver'")" failed "the run is failed"
like "$(q "select reason from run where label = 'badserver'")" "Mark1 in Room1 disconnected from server" "with Mark's reason"
ok "on the frame, not on the server's close (the server still holds the connection)" kill -0 "$bad"
touch "$TMP/badrelease"
wait $bad

# The client killed mid-run: failed within a bounded time, nothing left behind.
before=$(machine_state)
"$PM" run chat --quiet --rooms 4 --users 10 --messages 100000 --heap 8M --label killed &
pm=$!
ok "the chat is running" wait_for pgrep -f 'pressmark __chat-client'
# Mid-chat: every one of the 40 users connected (the client's sockets).
connected() { [ "$(ls -l /proc/"$(pgrep -f 'pressmark __chat-client' | head -1)"/fd 2>/dev/null | grep -c socket)" -ge 40 ]; }
ok "  its 40 users are connected" wait_for connected
pkill -KILL -f 'pressmark __chat-client'
wait $pm
is "$?" 1 "a killed client: exit 1"
like "$(q "select status || ': ' || reason from run where label = 'killed'")" "^failed: the chat client was killed by SIGKILL" "the run is failed, saying why"
ok "the server went away by itself" wait_for sh -c "! pgrep -f 'pressmark __chat-serve[r]' >/dev/null"
is "$(machine_state)" "$before" "nothing is left behind"

# Under a cap: heaps several times the cap, a swap file: ok, exact, swapping.
if [ -n "${TSAN_OPTIONS:-}" ]; then
    for i in 1 2 3 4 5 6 7; do skip "ThreadSanitizer's shadow memory does not fit a 64M cap (make tsan checks the chat uncapped)"; done
elif sanitized; then
    # (what swaps under ASan is its quarantine, the freed memory it keeps,
    # as much as the heaps: the cap's claims are the plain build's)
    for i in 1 2 3 4 5 6 7; do skip "AddressSanitizer's quarantine is charged to the cap: the plain build's run (make test) checks the capped chat"; done
elif [ "$(id -u)" -eq 0 ] && memcg_hierarchy; then
    # 20,000 messages a side x 8K cycle each 128M heap at least once.
    "$PM" run chat --quiet --rooms 2 --users 10 --messages 100 --heap 128M --msg-alloc 8K --runs 3 --label uncapped
    "$PM" run chat --quiet --rooms 2 --users 10 --messages 100 --heap 128M --msg-alloc 8K --mem-cap 64M --swap 512M --runs 3 --label capped
    id=$(last_run)
    is "$(q "select count(*) from run where label = 'capped' and status = 'ok'")" 3 "heaps of 2 x 128M under a 64M cap: 3 runs ok"
    # (whether the latency's rise is significant at 3 runs a side depends on
    # the machine's load beside them: the line is held, not its verdict)
    like "$("$PM" compare uncapped capped)" "chat.latency_p99_us [0-9.,]+ against [0-9.,]+ us: [0-9.,]+ times \(p [<=] [0-9.]+, adjusted [<=]? ?[0-9.]+ over [0-9]+ comparisons(, (not )?significant)?\)" \
        "  compare judges the p99 delivery latency, adjusted over the comparison's family"
    # What the cap did to each run, from its own cgroup, not how fast the
    # machine was (a sanitised prove runs beside this one): each hit its
    # limit, and had its own pages back from swap.
    cap_hits() { q "select count(*) from run r where r.label = 'capped' and r.status = 'ok' and
        (select value from metric where run_id = r.id and name = 'memcg.limit_hits') > 0 and
        (select value from metric where run_id = r.id and name = 'memcg.refaults') > 0 and
        (select value from metric where run_id = r.id and name = 'memcg.pgmajfault') > 0"; }
    is "$(cap_hits)" 3 "  each capped run hit its cap and had its own pages back (its cgroup's limit hits, refaults and major faults)"
    is "$(imetric $id chat.received)" $(( 2 * 10 * 100 * 9 )) "  with exact counts"
    ge "$(imetric $id swap.out_kb)" 1 "  and swap-out above zero ($(imetric $id swap.out_kb) KB)"
    ge "$(imetric $id chat.client_collections)" 1 "  the client heap was collected"
    is "$(machine_state)" "$before" "  nothing left behind"
else
    for i in 1 2 3 4 5 6 7; do skip "needs root and a memory cgroup controller"; done
fi

# Network mode across two network namespaces (veth), never a real network.
if [ "$(id -u)" -eq 0 ] && command -v ip >/dev/null && ip netns add pm-srv-$$ 2>/dev/null; then
    cleanup_add "ip netns del pm-srv-$$"
    ip netns add pm-cli-$$; cleanup_add "ip netns del pm-cli-$$"
    ip link add pmv-s-$$ type veth peer name pmv-c-$$
    ip link set pmv-s-$$ netns pm-srv-$$; ip link set pmv-c-$$ netns pm-cli-$$
    ip -n pm-srv-$$ addr add 10.251.0.1/24 dev pmv-s-$$; ip -n pm-srv-$$ link set pmv-s-$$ up; ip -n pm-srv-$$ link set lo up
    ip -n pm-cli-$$ addr add 10.251.0.2/24 dev pmv-c-$$; ip -n pm-cli-$$ link set pmv-c-$$ up; ip -n pm-cli-$$ link set lo up
    ip netns exec pm-srv-$$ "$PM" chat-server --listen 10.251.0.1:8000 --once > "$TMP/ns.out" 2>&1 &
    nsrv=$!
    wait_for grep -q '^port 8000' "$TMP/ns.out"
    ip netns exec pm-cli-$$ "$PM" run chat --quiet --server 10.251.0.1:8000 --rooms 2 --users 5 --messages 10 --label netns
    id=$(last_run)
    is "$(q "select status from run where id = $id")" ok "client in one namespace, server in another: ok"
    is "$(imetric $id chat.received)" 400 "  exact counts across the veth"
    like "$(q "select params from run where id = $id")" "--server 10.251.0.1:8000" "  the server address is in the run's parameters"
    wait $nsrv
    is "$?" 0 "  the --once server exits when its clients are gone"
else
    for i in 1 2 3 4; do skip "network namespaces need root and iproute2"; done
fi
done_testing
