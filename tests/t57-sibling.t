#!/bin/bash
# The sibling hog (--sibling) on this machine's memory cgroups (v1 here,
# v2 on a stock systemd host: make v2-host-check): a second workload in
# run-N/sibling under the same cap as the measured one in run-N/workload,
# its passes counted over the measured run, both cgroups sampled (their
# usage together never above the cap), everything gone after ok, SIGINT
# and SIGKILL; bad hogs refused before anything runs. (memory.low beside
# a hog: the guests' cells in tests/slow/t83.)
. "$(dirname "$0")/lib.sh"
need_root
memcg_hierarchy || skip_all "no memory cgroup controller on this machine"
[ -d "$CG_ROOT/pressmark" ] && skip_all "a pressmark cgroup is in use on this machine"
before=$(machine_state)
cap=$((160 << 20))
hog='usemem --size 96M --passes 1'
# hogwatch MODE N OUT [HOLD_MB [MIN_S]]: a measured command that ends on
# what its run's hog did, never before it, however slow the machine:
# "passes N", when N of the hog's passes ended since it began (its
# helper's (N+1)th child seen in the sibling cgroup); "ooms N", when the
# sibling's OOM kills rose by N. It holds HOLD_MB meanwhile, lasts MIN_S
# at least (ticks to sample on a fast machine), and writes to OUT whether
# a pass was under way when it began: one begun before it, there at its
# first look, which bash takes with builtins alone (a few ms) before
# python3 starts (tens of ms, longer than a pass here).
cat > "$TMP/hogwatch.py" <<'PY'
import glob, os, sys, time
mode, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
hold, min_s = (int(a) for a in (sys.argv[4:] + ["0", "0"])[:2])
t0 = time.monotonic()
root = os.environ["CG_ROOT"]
held = bytearray(hold << 20)
for i in range(0, len(held), 4096):
    held[i] = 1
def stat(pid):
    f = open("/proc/%s/stat" % pid).read().rsplit(")", 1)[1].split()
    return f[1], int(f[19])            # ppid, starttime
me = stat("self")[1]
sib, = glob.glob(root + "/pressmark/run-*/sibling")    # (one run at a time here)
# bash's first look: the sibling's processes' stat lines, the pass's
# process the one whose parent (the helper) is there too
first = [l.rsplit(")", 1)[1].split() for l in open(os.environ["HOGWATCH_FIRST"])]
there = {f for f in open(os.environ["HOGWATCH_PIDS"]).read().split()}
# (starttime counts 10 ms ticks: a pass begun in the command's own tick
# followed one that ended in it, under way when the run began)
# (strictly earlier only: one begun in the command's own tick may have
# followed a pass that ended before the run began, so that tick is unsure)
starts = [int(f[19]) for f in first if f[1] in there]
under_way = "yes" if any(t < me for t in starts) else "unsure" if me in starts else "no"
def pass_children():
    pids = open(sib + "/cgroup.procs").read().split()
    helper = [p for p in pids if b"__sibling" in open("/proc/%s/cmdline" % p, "rb").read()]
    kids = {}
    for p in pids:
        try:
            ppid, began = stat(p)
        except OSError:
            continue
        if helper and ppid == helper[0]:
            kids[p] = began
    return kids
def ooms():
    for f in ("memory.events", "memory.oom_control"):
        if os.path.exists(sib + "/" + f):
            return int(dict(l.split() for l in open(sib + "/" + f)).get("oom_kill", 0))
def helper_there():
    for p in open(sib + "/cgroup.procs").read().split():
        try:
            if b"__sibling" in open("/proc/%s/cmdline" % p, "rb").read():
                return True
        except OSError:
            pass
    return False
seen, k0 = {}, ooms()
deadline = time.monotonic() + 600
while time.monotonic() < deadline:
    # (a hog whose helper is gone makes no more passes: say so, not wait)
    if not helper_there():
        open(out, "w").write("helper gone\n")
        sys.exit("hogwatch: the hog's helper is gone from its cgroup")
    if mode == "passes":
        try:
            kids = pass_children()
        except OSError:
            kids = {}
        seen.update(kids)
        if len(seen) > n and time.monotonic() - t0 >= min_s:
            break
    elif ooms() - k0 >= n and time.monotonic() - t0 >= min_s:
        break
    time.sleep(0.01)
else:
    sys.exit("hogwatch: the hog did not get that far in 600 s")
open(out, "w").write("under way %s\n" % under_way)
PY
export CG_ROOT HOGWATCH_FIRST="$TMP/first.stat" HOGWATCH_PIDS="$TMP/first.pids"
cat > "$TMP/hogwatch" <<'SH'
#!/bin/bash
# hogwatch's first look, with builtins alone: the stat line of each of the
# sibling's processes (its pids to fd 3)
for f in "$CG_ROOT"/pressmark/run-*/sibling/cgroup.procs; do
    while read -r p; do echo "$p" >&3; read -r l < "/proc/$p/stat" && echo "$l"; done < "$f" 2>/dev/null
done > "$HOGWATCH_FIRST" 3> "$HOGWATCH_PIDS"
exec python3 "${0%/*}/hogwatch.py" "$@"
SH
chmod +x "$TMP/hogwatch"

# 1. A hog beside a command under a 160M cap with swap: the command holds
# 48M and ends when two of the hog's passes have ended since it began, 2 s
# at least, so the hog's passes inside the run are what they are however
# fast or slow the machine.
"$PM" record --quiet --mem-cap 160M --swap 512M --interval 100ms --sibling "$hog" --sibling-lead 1s --label beside -- \
    "$TMP/hogwatch" passes 2 "$TMP/beside.watch" 48 2 >"$TMP/out" 2>&1
is "$?" 0 "a command beside a usemem hog exits 0"
is "$(q "select status from run where label = 'beside'")" ok "and is stored ok"
id=$(q "select id from run where label = 'beside'")
is "$(q "select value from run_meta where run_id = $id and key = 'sibling'")" "$hog" "the hog's spec is stored with the run"
top=$(q "select value from run_meta where run_id = $id and key = 'cap.cgroup'")
is "$(q "select value from run_meta where run_id = $id and key = 'cgroup.workload'")" "$top/workload" \
    "the workload ran in the cap's child workload"
is "$(q "select value from run_meta where run_id = $id and key = 'cgroup.sibling'")" "$top/sibling" \
    "the hog in its sibling"
passes=$(metric "$id" sibling.passes)
ok "the hog's passes during the run are counted: two ended inside it, at least one whole ($passes)" \
    awk -v v="$passes" 'BEGIN { exit !(v >= 1) }'
total=$(q "select value from run_meta where run_id = $id and key = 'sibling.passes_total'")
# A pass under way when the run began is the lead's in part: counted by
# its share. Where the hog's helper had not begun one in the 1 s lead (a
# slow emulated machine), no pass straddles the start.
if [ "$(cat "$TMP/beside.watch" 2>/dev/null)" = "under way yes" ]; then
    ok "fewer than all its passes: the lead's part is not the run's ($passes of $total)" \
        awk -v v="$passes" -v t="$total" 'BEGIN { exit !(v < t) }'
    ok "the pass under way when the run began counts by its share ($passes is not whole)" \
        awk -v v="$passes" 'BEGIN { exit !(v != int(v)) }'
else
    why="no hog pass was under way when the run began ($(cat "$TMP/beside.watch" 2>/dev/null): its first began after the 1 s lead)"
    skip "fewer than all its passes: $why"
    skip "the pass under way when the run began counts by its share: $why"
fi
ok "its rate is stored" awk -v v="$(metric "$id" sibling.passes_per_s)" 'BEGIN { exit !(v > 0) }'
is "$(imetric "$id" sibling.failed_passes)" 0 "none of its passes failed"
is "$(q "select unit || ' ' || direction from metric where run_id = $id and name = 'sibling.usemem.mb_per_s'")" \
    "MB/s higher" "its headline is stored as usemem declares it"
ge "$(imetric "$id" sibling.memcg.usage_max_bytes)" $((64 << 20)) "its cgroup is sampled: it held 64M or more"
ge "$(imetric "$id" memcg.usage_max_bytes)" $((32 << 20)) "and the workload's"
ws=memcg.$CG_USAGE
ss=sibling.memcg.$CG_USAGE
ge "$(q "select count(*) from sample where run_id = $id and name = '$ss'")" 5 "the hog's usage is a series of its own"
# The cap is the parent's: in every tick both together stay within it.
# The two files are read one after the other, and each CPU may hold a
# charge batch of 64 pages ahead (MEMCG_CHARGE_BATCH): 1M of slack.
ge "$(q "select count(*) from sample a join sample b on a.run_id = b.run_id and a.seq = b.seq
          where a.run_id = $id and a.name = '$ws' and b.name = '$ss'")" 5 "both cgroups sampled in the same ticks"
is "$(q "select count(*) from sample a join sample b on a.run_id = b.run_id and a.seq = b.seq
          where a.run_id = $id and a.name = '$ws' and b.name = '$ss' and a.value + b.value > $cap + 1048576")" 0 \
    "in no tick do the workload and the hog together exceed the cap"
ge "$(q "select count(*) from sample a join sample b on a.run_id = b.run_id and a.seq = b.seq
          where a.run_id = $id and a.name = '$ws' and b.name = '$ss' and a.value > 32 << 20 and b.value > 32 << 20")" 1 \
    "and in some tick each held more than 32M of it at once (the hog presses)"
like "$("$PM" help metrics)" "sibling.passes_per_s" "help metrics lists the hog's figures"
is "$(machine_state)" "$before" "after the run: no cgroup, swap or helper left"

# 2. Where the processes are: the measured command sees itself in the
# workload's cgroup and the hog's processes in the sibling's.
"$PM" record --quiet --mem-cap 160M --sibling 'usemem --size 32M --duration 5s' --sibling-lead 1s --label where -- \
    sh -c 'cp /proc/self/cgroup "$1/where.cgroup"
           # (first a pass past its prelude with its worker forked, however slow the machine: 60 s at most)
           for i in $(seq 600); do k=0
               for p in $(cat "$2"/pressmark/run-*/sibling/cgroup.procs); do
                   [ "$(tr "\0" "\n" < /proc/$p/cmdline 2>/dev/null | sed -n 2p)" = __usemem ] && k=$((k + 1)); done
               [ "$k" -ge 2 ] && break; sleep 0.1; done
           for f in "$2"/pressmark/run-*/sibling/cgroup.procs; do
           n=$(grep -c . "$f") && echo "hog procs: $n"
           while read -r p; do echo "adj $(cat /proc/$p/oom_score_adj) $(tr "\0" " " < /proc/$p/cmdline)"; done < "$f" >> "$1/where.adj"
           done; true' sh "$TMP" "$CG_ROOT" >"$TMP/where" 2>&1
is "$?" 0 "a command beside a hog exits 0"
wid=$(q "select id from run where label = 'where'")
is "$(memcg_path "$TMP/where.cgroup")" "/pressmark/run-$wid/workload" "the command ran in run-$wid/workload"
like "$(cat "$TMP/where")" "hog procs: [1-9]" "while the hog's processes were in the sibling cgroup"
# The OOM killer's choice in the hog's cgroup is a pass's process, never
# the helper that starts the next: the helper keeps 0, the rest 1000.
is "$(grep -c '^adj 0 .*__sibling' "$TMP/where.adj")" 1 "the hog's helper keeps oom_score_adj 0"
is "$(grep -c '^adj 1000 .*__usemem' "$TMP/where.adj")" 2 "  its pass's processes (usemem and its worker) have 1000"
is "$(grep -vc '^adj 1000 \|__sibling' "$TMP/where.adj")" 0 "  and none else is there ($(paste -sd'|' "$TMP/where.adj"))"
ok "a hog pass longer than the run counts nothing" awk -v v="$(metric "$wid" sibling.passes)" 'BEGIN { exit !(v == 0) }'
is "$(machine_state)" "$before" "after it: nothing left"

# A hog larger than the cap without swap: each of its passes is OOM-killed
# inside the cap, counted as failed, none as done; the measured command,
# small, ends ok when the hog's helper has started its third pass since
# the command began (so a killed pass began and ended inside the run: two
# OOM kills may fall in one pass, its usemem and its worker both 1000).
"$PM" record --quiet --mem-cap 96M --swap-cap 0 --sibling 'usemem --size 128M --passes 1' --sibling-lead 1s \
    --label oomhog -- "$TMP/hogwatch" passes 2 "$TMP/oomhog.watch" >"$TMP/oomhog" 2>&1
is "$?" 0 "a command beside a hog the OOM killer ends exits 0"
ge "$(imetric oomhog sibling.memcg.oom_kill)" 1 "the OOM killer killed in the hog's cgroup ($(imetric oomhog sibling.memcg.oom_kill) times)"
is "$(imetric oomhog memcg.oom_kill)" 0 "  never in the command's"
ge "$(imetric oomhog sibling.failed_passes)" 1 "its passes ended inside the run are counted as failed"
ok "and none as done ($(metric oomhog sibling.passes))" awk -v v="$(metric oomhog sibling.passes)" 'BEGIN { exit !(v != "" && v == 0) }'
is "$(machine_state)" "$before" "after it: nothing left"

# 3. SIGINT and SIGKILL while the hog runs: the hog and its cgroups go.
interrupt() {  # interrupt SIGNAL LABEL
    "$PM" run usemem --quiet --size 32M --duration 60s --mem-cap 160M --sibling 'usemem --size 64M --duration 60s' \
        --sibling-lead 1s --label "$2" >"$TMP/int" 2>&1 &
    local pid=$!
    wait_for sh -c 'cat "$1"/pressmark/run-*/sibling/cgroup.procs 2>/dev/null | grep -q .' sh "$CG_ROOT"
    ok "$1: the hog is running" sh -c 'cat "$1"/pressmark/run-*/sibling/cgroup.procs | grep -q .' sh "$CG_ROOT"
    sleep 1
    kill -"$1" "$pid"
    wait "$pid"
    echo $? > "$TMP/rc"
}
interrupt INT intr
is "$(cat "$TMP/rc")" 130 "SIGINT: exit 130"
is "$(q "select status from run where label = 'intr'")" aborted "the run is stored aborted"
is "$(machine_state)" "$before" "SIGINT: the hog and both cgroups are gone"
interrupt KILL killed
is "$(cat "$TMP/rc")" 137 "SIGKILL: pressmark dies"
wait_for sh -c '! pgrep -f "pressmark [_]_sibling" >/dev/null'
is "$(pgrep -fc 'pressmark [_]_sibling')" 0 "the hog's helper died with it"
"$PM" list >/dev/null 2>"$TMP/recover"
like "$(cat "$TMP/recover")" "removed cgroup .*/sibling" "the next pressmark undoes the journal, the hog's cgroup first"
is "$(machine_state)" "$before" "SIGKILL: after the next start, nothing left"

# 4. Bad hogs: one line, exit 2, nothing written.
bad "a hog without a cap" "^pressmark run usemem: --sibling: needs --mem-cap" run usemem --sibling "$hog"
bad "a hog that is not a workload" "^pressmark run usemem: --sibling: 'hogwash' is not a workload \(accepted: .*usemem" \
    run usemem --mem-cap 160M --sibling hogwash
bad "an option the hog's workload lacks" "^pressmark run usemem: --sibling: '--nosuch' is not an option of usemem" \
    run usemem --mem-cap 160M --sibling 'usemem --nosuch 1'
bad "a bad value of the hog's option" "^pressmark run usemem: --sibling: usemem --size: 'lots' is not" \
    run usemem --mem-cap 160M --sibling 'usemem --size lots'
bad "a command as the hog" "^pressmark run usemem: --sibling: record takes a command" \
    run usemem --mem-cap 160M --sibling 'record'
bad "a hog under the balloon" "^pressmark run usemem: --sibling: needs a cgroup cap \(cgroup1 or cgroup2\), not --cap-method balloon" \
    run usemem --mem-cap 160M --cap-method balloon --sibling "$hog"
bad "a hog that journals" "^pressmark run usemem: --sibling: shmio keeps a scratch directory in the run's undo journal" \
    run usemem --mem-cap 160M --sibling 'shmio'
bad "a hog of several phases" "^pressmark run usemem: --sibling: build: a list of values makes phases, and the hog runs one configuration" \
    run usemem --mem-cap 160M --sibling 'build --jobs 1,2'
bad "a hog on two lines" "^pressmark run usemem: --sibling: 'usemem\\\\x0a--size 1M' is not a hog" \
    run usemem --mem-cap 160M --sibling $'usemem\n--size 1M'
is "$(machine_state)" "$before" "the machine as found"
done_testing
