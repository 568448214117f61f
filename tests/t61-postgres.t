#!/bin/bash
# pressmark run postgres: pgbench against a private PostgreSQL server
# inside the cap, its data set made by pgbench -i and run by pgbench from
# outside the cap; the server, initdb and pgbench as the postgres user,
# each with nothing of root's; pgbench's figures as it printed them and
# its log held them, the server's own counters, the phases in the
# samples; its cluster private (a socket in its own directory, its
# configuration root's); nothing left after a run, a SIGKILL, a refused
# option, or what the postgres user left in its directory.
. "$(dirname "$0")/lib.sh"
need_root

# Refusals before anything runs: they need no PostgreSQL, no cgroup.
# Without the package: Debian's directory hidden in a mount namespace.
before_db=$(db_sum)
hide='[ ! -d /usr/lib/postgresql ] || mount -t tmpfs -o mode=0755 none /usr/lib/postgresql || exit 99'
unshare -m sh -c "$hide"' && PATH=/usr/sbin:/usr/bin:/sbin:/bin exec "$@"' sh "$PM" run postgres --label nopkg 2>"$TMP/err"
is "$?" 2 "without PostgreSQL's programs: exit 2"
is "$(cat "$TMP/err")" "pressmark run postgres: postgres is not installed (apt-get install postgresql)" \
   "  one line naming it and the package"
# Every program is looked for: a version's directory without pgbench.
half='mkdir -p /usr/lib/postgresql/15/bin && ln -s /bin/true /usr/lib/postgresql/15/bin/postgres &&
      ln -s /bin/true /usr/lib/postgresql/15/bin/initdb'
unshare -m sh -c "$hide && $half"' && PATH=/usr/sbin:/usr/bin:/sbin:/bin exec "$@"' sh "$PM" run postgres --label nopkg \
    2>"$TMP/err"
is "$?" 2 "without pgbench: exit 2"
is "$(cat "$TMP/err")" "pressmark run postgres: pgbench is not installed (apt-get install postgresql)" "  one line naming it"
is "$(db_sum)" "$before_db" "  nothing written"

memcg_hierarchy || skip_all "needs a memory cgroup hierarchy (cgroup v2 with memory, or v1's memory controller)"
real=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$real/postgres" ] && [ -x "$real/pgbench" ] || skip_all "needs PostgreSQL (apt-get install postgresql)"
getent passwd postgres >/dev/null || skip_all "needs the postgres user (apt-get install postgresql)"
pg_uid=$(id -u postgres)
as_pg() { setpriv --reuid=postgres --regid=postgres --clear-groups "$@"; }
before=$(machine_state)
parent=${TMPDIR:-/var/tmp}
dirs() { ls -d "$parent"/pressmark-postgres.* 2>/dev/null; }
servers() { pgrep -f -- "postgres -D $parent/pressmark-postgres\." 2>/dev/null; }
# the System V segments the postgres user made (PostgreSQL's interlock)
segments() { awk -v u="$pg_uid" 'NR > 1 && $10 == u' /proc/sysvipc/shm | wc -l; }
dirs_before=$(dirs)
segments_before=$(segments)
# The system's own cluster (Debian's main, made when the package was
# installed) and its run directory: nothing there may change.
touch "$TMP/stamp"
system() { find /etc/postgresql/*/main /var/lib/postgresql/*/main /var/run/postgresql -newer "$TMP/stamp" 2>/dev/null; }
cg_of() { memcg_path "/proc/$1/cgroup" 2>/dev/null; }
uid_of() { awk '/^Uid:/ { print $2; exit }' "/proc/$1/status" 2>/dev/null; }
# pgbench's pid, the real one's (not the test's shim), whose argv has the
# word given ("--initialize": the load phase; "--log": the measured one)
pgbench_pid() {
    local p
    for p in $(pgrep -x pgbench); do
        [ "$(readlink "/proc/$p/exe")" = "$real/pgbench" ] || continue
        tr '\0' '\n' < "/proc/$p/cmdline" 2>/dev/null | grep -qx -- "$1" && { echo "$p"; return 0; }
    done
    return 1
}
# what of the run's server is left: the postmaster (its path) or a child
# of it (its title: "postgres: pressmark: ...", the cluster's name)
pgbench_runs() { pgbench_pid "$1" >/dev/null; }
leftovers() { pgrep -u postgres -f -- "postgres -D $parent/pressmark-postgres\.|^postgres: pressmark: " 2>/dev/null; }
none_left() { [ -z "$(leftovers)" ]; }
limit_of() {
    if [ "$CG_VERSION" = 2 ]; then cat "$CG_ROOT$1/memory.max"
    else awk '{ print ($1 >= 2^60) ? "max" : $1 }' "$CG_ROOT$1/memory.limit_in_bytes"; fi
}

bad "--dataset larger than memory and swap" "^pressmark run postgres: --dataset: .* is more than this machine can hold" \
    run postgres --mem-cap 48M --dataset 1T --label huge
bad "--dataset below half a unit of scale" \
    "^pressmark run postgres: --dataset: 4M comes to 4\.0 MiB, less than half a unit of pgbench's scale \(15 MiB; accepted: 8M or more, or --scale N\)$" \
    run postgres --mem-cap 48M --dataset 4M --label tiny
bad "the default data set of a 4M cap" "^pressmark run postgres: --dataset: 150% of the cap comes to 6\.0 MiB, less than half a unit" \
    run postgres --mem-cap 4M --label tinycap
bad "--dataset a share with no cap" "^pressmark run postgres: --dataset: '150%' is a share of the cap and there is none" \
    run postgres --dataset 150% --label nocap
bad "--scale and --dataset" "^pressmark run postgres: --scale 2 and --dataset 64M: one data set \(accepted: either\)$" \
    run postgres --scale 2 --dataset 64M --label both
bad "--scale larger than memory and swap" "^pressmark run postgres: --scale: .* is more than this machine can hold" \
    run postgres --scale 9000000 --label hugescale
bad "--duration and --transactions" \
    "^pressmark run postgres: --duration and --transactions: the measured phase is one of them \(accepted: either\)$" \
    run postgres --duration 5s --transactions 10 --label both2
bad "--duration in part seconds" "^pressmark run postgres: --duration: 1\.500 s is not whole seconds \(pgbench -T counts seconds" \
    run postgres --duration 1500ms --label part
bad "--jobs beyond --clients" "^pressmark run postgres: --jobs: 3 is more threads than --clients 2 \(accepted: at most one a client\)$" \
    run postgres --clients 2 --jobs 3 --label jobs
bad "--mode of another name" "^pressmark run postgres: --mode: 'readwrite' is not a mode" run postgres --mode readwrite --label m
bad "--shared-buffers larger than memory and swap" "^pressmark run postgres: --shared-buffers: .* is more than this machine can hold" \
    run postgres --shared-buffers 1T --label sb
mkdir -p "$TMP/it's" "$TMP/$(printf 'x%.0s' $(seq 60))" "$TMP/open" "$TMP/pgs"
chmod 0777 "$TMP/open"
chown postgres: "$TMP/pgs"
ln -s "$TMP/pgs" "$TMP/link"
bad "--dir a file" "^pressmark run postgres: --dir: '/etc/passwd': Not a directory \(accepted: an existing directory\)$" \
    run postgres --dir /etc/passwd --label file
bad "--dir with a quote" "^pressmark run postgres: --dir: '$TMP/it's' has a character PostgreSQL's configuration cannot carry" \
    run postgres --dir "$TMP/it's" --label quote
bad "--dir too long for the socket" "^pressmark run postgres: --dir: '$TMP/x+' is too long a path for the server's socket below it" \
    run postgres --dir "$TMP/$(printf 'x%.0s' $(seq 60))" --label long
bad "--dir writable by anyone" "^pressmark run postgres: --dir: $TMP/open is below $TMP/open, which another user could change" \
    run postgres --dir "$TMP/open" --label open
# A link to the postgres user's directory: that user could move the run's
# directory away and put its own in its place.
bad "--dir a link to the postgres user's directory" \
    "^pressmark run postgres: --dir: $TMP/pgs is below $TMP/pgs, which another user could change \(owner $pg_uid," \
    run postgres --dir "$TMP/link" --label link
TMPDIR="$TMP/link" bad "TMPDIR a link to it" "^pressmark run postgres: TMPDIR: $TMP/pgs is below $TMP/pgs" \
    run postgres --label tmplink
is "$(dirs)" "$dirs_before" "no directory made for any of them"

# pgbench as a shim in the test's own directory, beside links to the real
# postgres and initdb (the programs are taken from one PATH directory): it
# keeps its argv, environment and output, and its per-transaction logs,
# then renames them to its own pid, under which pressmark, who started
# it, looks for them. The postgres user runs it.
chmod 0711 "$TMP"
mkdir -m 0755 "$TMP/bin" && mkdir -m 0700 "$TMP/shim" && chown postgres: "$TMP/shim"
ln -s "$real/postgres" "$TMP/bin/postgres" && ln -s "$real/initdb" "$TMP/bin/initdb"
cat > "$TMP/bin/pgbench" <<SHIM
#!/bin/sh
d=$TMP/shim
printf '%s\n' "\$@" > \$d/argv.\$\$
env > \$d/env.\$\$
$real/pgbench "\$@" > \$d/out.\$\$ 2>&1 &
p=\$!
wait \$p
rc=\$?
prefix=\$(sed -n 's/^--log-prefix=//p' \$d/argv.\$\$)
for f in "\$prefix.\$p" "\$prefix.\$p".*; do
    [ -n "\$prefix" ] && [ -f "\$f" ] || continue
    cp "\$f" \$d/
    mv "\$f" "\$prefix.\$\$\${f#"\$prefix.\$p"}"
done
cat \$d/out.\$\$
exit \$rc
SHIM
chmod 0755 "$TMP/bin/pgbench"
measured() { grep -l -- '^--log$' "$TMP"/shim/argv.* 2>/dev/null | sed 's/.*argv\.//'; }
# What root holds must not reach the server: a descriptor (9; 7 is the
# machine lane's lock, tests/lib.sh) and a variable of pressmark's
# environment.
exec 9>"$TMP/leak"
echo precious > "$TMP/precious"; mkdir "$TMP/pdir"; touch "$TMP/pdir/keep"

# The default data set under a 64 MiB cap with swap: 150%, scale 6.
PATH="$TMP/bin:$PATH" PM_ROOT_ONLY=x "$PM" run postgres --quiet --mem-cap 64M --swap 256M --clients 4 \
    --transactions 250 --interval 100ms --label pg 2>"$TMP/err" &
pid=$!
ok "the load phase starts (pgbench -i)" wait_for pgbench_runs --initialize
loader=$(pgbench_pid --initialize)
shim=$(awk '/^PPid:/ { print $2 }' "/proc/$loader/status")     # (what pressmark started)
loader_uid=$(uid_of "$loader"); loader_cg=$(cg_of "$loader"); loader_limit=$(limit_of "$loader_cg")
loader_env=$(tr '\0' '\n' < "/proc/$shim/environ" | cut -d= -f1 | sort | tr '\n' ' ')
# (session and tty_nr: the 4th and 5th fields after the command's ")")
sess_of() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{ print $4, $5 }'; }
loader_sess=$(sess_of "$shim"); loader_in=$(readlink "/proc/$loader/fd/0")
server=$(servers | head -1)
server_uid=$(uid_of "$server"); server_cg=$(cg_of "$server")
server_env=$(tr '\0' '\n' < "/proc/$server/environ" | sort | tr '\n' ' ')
server_fds=$(ls -l "/proc/$server/fd" 2>/dev/null)
server_sess=$(sess_of "$server"); server_in=$(readlink "/proc/$server/fd/0")
dir=$(dirs | grep -vxF "$dirs_before" | head -1)
srv=$dir/pressmark-srv
modes=$(stat -c '%a %U' "$dir" "$srv" "$srv/data" | tr '\n' ' ')
tcp=$(ss -Hltnp | grep -c "pid=$server,")
unix=$(ss -Hlxp | grep -c "$srv/.s.PGSQL.5432 .*pid=$server,")
settings=$(cd / && as_pg env -i "$real/psql" -h "$srv" -p 5432 -U postgres -Atc \
    "select concat_ws(' ', current_setting('shared_buffers'), current_setting('fsync'),
            '[' || current_setting('listen_addresses') || ']', current_setting('data_directory'),
            current_setting('config_file'), current_setting('max_connections'))" postgres 2>&1)
# The postgres user leaves what it likes in its directory: files, a tree,
# links to root's things, and a child of its own that goes on writing there.
as_pg sh -c "touch $srv/keepme; mkdir -p $srv/d/e; touch $srv/d/e/f; ln -s $TMP/precious $srv/link; ln -s $TMP/pdir $srv/dlink"
# (setpriv itself, not as_pg: a function run in the background is a
# subshell of its own, whose child the writer would be)
setpriv --reuid=postgres --regid=postgres --clear-groups setsid sh -c "while :; do touch $srv/again 2>/dev/null; sleep 0.05; done" \
    </dev/null >/dev/null 2>&1 &
writer=$!
cleanup_add "kill $writer 2>/dev/null"
echo "$writer" > "$CG_ROOT$server_cg/cgroup.procs"
wait $pid
is "$?" 0 "pressmark run postgres under a 64M cap with swap: exit 0"
exec 9>&-
is "$(q "select status || ' ' || coalesce(reason, '') from run where label = 'pg'")" "ok " "its run is stored ok"
run=$(q "select id from run where label = 'pg'")
like "$server_cg" "^/pressmark/run-$run(/workload)?$" "the server ran in the run's capped cgroup ($server_cg)"
is "$server_uid" "$pg_uid" "  as the postgres user"
is "$server_env" "HOME=$srv LANG=C PATH=/usr/sbin:/usr/bin:/sbin:/bin PWD=$PWD " \
   "  with an environment of its own, nothing of root's (PM_ROOT_ONLY)"
ok "  and none of root's descriptors (the test's 9)" sh -c "! printf '%s\n' \"\$1\" | grep -q -- '$TMP/leak'" sh "$server_fds"
# A server run as another user in root's session could type into root's
# terminal (TIOCSTI): it leads a session of its own, with no terminal.
is "$server_sess $server_in" "$server 0 /dev/null" "  in a session of its own, no terminal, /dev/null for stdin"
is "$modes" "711 root 700 postgres 700 postgres " "its directory root's (0711), the cluster's the postgres user's (0700)"
is "$tcp:$unix" "0:1" "it listened on its own socket alone, no TCP port"
is "$settings" "16MB on [] $srv/data $dir/pm-postgresql.conf 14" \
   "  as the server says: a quarter of the cap, fsync, no address; the configuration root's file"
is "$loader_uid:$loader_cg:$loader_limit" "$pg_uid:/pressmark/run-$run-client:max" \
   "pgbench -i ran as the postgres user, outside the cap, in the run's client cgroup with no limit"
# (PWD: the sh that puts it in its cgroup sets it, pressmark's directory)
is "$loader_env" "HOME LANG PATH PWD " "  with PATH, LANG and HOME alone (no password on the socket)"
is "$loader_sess $loader_in" "$shim 0 /dev/null" "  in a session of its own too, /dev/null for stdin"
m=$(measured)
is "$(tr '\n' ' ' < "$TMP/shim/argv.$m")" "--host=$srv --port=5432 --username=postgres --client=4 --jobs=$(( $(nproc) < 4 ? $(nproc) : 4 )) --transactions=250 --progress=1 --log --log-prefix=$srv/pm-pgbench-log postgres " \
   "pgbench's argv: the socket's directory, 4 clients, 250 transactions each, its log in the server's directory"
is "$(cut -d= -f1 "$TMP/shim/env.$m" | grep -c PGPASSWORD)" 0 "  no password in its environment"
ok "the postgres user's child in the server's cgroup is gone" sh -c "! kill -0 $writer 2>/dev/null"
is "$(cat "$TMP/precious"; ls "$TMP/pdir")" "precious
keep" "what the postgres user's links named is untouched"

# pgbench's figures as it printed them and as its log holds them.
out=$TMP/shim/out.$m
is "$(grep '^number of transactions actually processed' "$out")" "number of transactions actually processed: 1000/1000" \
   "pgbench processed 4 x 250 transactions"
is "$(imetric pg pgbench.transactions)" 1000 "  the stored figure is its count"
is "$(cat "$TMP"/shim/pm-pgbench-log.* | wc -l)" 1000 "  its per-transaction logs hold as many lines"
is "$(imetric pg pgbench.failed_transactions)" 0 "  none failed"
tps=$(sed -n 's/^tps = \([0-9.]*\) (without initial connection time)$/\1/p' "$out")
like "$tps" '^[0-9]+\.[0-9]+$' "pgbench printed its tps ($tps)"
is "$(q "select unit || ' ' || direction from metric where run_id = $run and name = 'pgbench.tps'")" "tx/s higher" \
   "the headline is stored as the parser declares it"
ok "  exactly the tool's figure" awk -v a="$(metric pg pgbench.tps)" -v b="$tps" 'BEGIN { exit !(a == b + 0) }'
for f in average stddev; do
    v=$(sed -n "s/^latency $f = \([0-9.]*\) ms$/\1/p" "$out")
    ok "its latency $f too ($v ms)" awk -v a="$(metric pg "pgbench.latency_${f/average/avg}_ms")" -v b="$v" \
        'BEGIN { exit !(b != "" && a == b + 0) }'
done
# The percentiles of the log's latencies, linear between closest ranks.
cut -d' ' -f3 "$TMP"/shim/pm-pgbench-log.* | sort -n > "$TMP/lat"
pct() { awk -v p="$1" '{ v[NR - 1] = $1 } END { r = p / 100 * (NR - 1); i = int(r); printf "%.6f", v[i] + (r - i) * (v[i + 1] - v[i]) }' "$TMP/lat"; }
for p in 50 99; do
    ok "its log's p$p ($(pct $p) us) is the stored figure" awk -v a="$(metric pg "pgbench.latency_p${p}_us")" \
        -v b="$(pct $p)" 'BEGIN { d = a - b; exit !(d * d < 1e-6) }'
done
shown=$("$PM" show pg 2>&1 | awk '$1 == "pg" { gsub(",", "", $2); print $2; exit }')
like "$("$PM" show pg 2>&1)" "^label +tps " "show leads with it (tps)"
ok "  and shows its value ($shown)" awk -v a="$shown" -v b="$tps" 'BEGIN { exit !(a + 0 > 0 && (a - b) ^ 2 < 1) }'

# The server's own counters and the data set.
is "$(imetric pg postgres.scale):$(imetric pg postgres.dataset_bytes)" "6:$(( 6 * 15728640 ))" \
   "the data set is 150% of the cap in whole units of scale (96 MiB: 6 of 15 MiB)"
ge "$(imetric pg postgres.database_bytes)" $(( 6 * 15728640 )) "  the database holds it ($(imetric pg postgres.database_bytes) bytes)"
ge "$(imetric pg postgres.xact_commit)" 1000 "the server committed every transaction pgbench counted ($(imetric pg postgres.xact_commit))"
hit=$(imetric pg postgres.blks_hit); read=$(imetric pg postgres.blks_read)
ge "$read" 1 "the server read blocks in during the measured phase ($read; $hit found in its buffers)"
ok "  the hit share is theirs ($(metric pg postgres.hit_pct) %)" awk -v a="$(metric pg postgres.hit_pct)" -v h="$hit" -v r="$read" \
   'BEGIN { d = a - 100 * h / (h + r); exit !(d * d < 1e-9) }'
is "$(imetric pg postgres.temp_files)" 0 "  no temporary file"
is "$(q "select unit || ' ' || direction from metric where run_id = $run and name = 'postgres.hit_pct'")" "% higher" \
   "  stored with the unit and direction the catalogue declares"
ge "$(imetric pg swap.out_kb)" 1 "the run swapped out ($(imetric pg swap.out_kb) KB)"
phases=$("$PM" export pg --series workload.phase 2>/dev/null | awk -F, 'NR > 1 { print $NF }' | uniq | tr '\n' ' ')
like "$phases" "^(0 )?1 2 0 $" "the samples mark the phases in order: (0,) 1 load, 2 measured, 0 ($phases)"

is "$(leftovers)" "" "no process of its server is left"
is "$(dirs)" "$dirs_before" "nor its directory, whatever the postgres user left there"
is "$(segments)" "$segments_before" "nor a System V segment of the server's"
is "$(machine_state)" "$before" "the machine is as it was (no cgroup, swap file or journal left)"

# pressmark's own connection (the counters) goes only to the server: the
# postgres user swaps its socket for a link to a socket only root may reach.
python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(4)
print("up", flush=True)
while True:
    c, _ = s.accept(); print("connection", c.recv(100), flush=True)' "$TMP/root.sock" > "$TMP/root.log" &
rootsrv=$!
cleanup_add "stop_bg $rootsrv"
wait_for grep -q up "$TMP/root.log"
chmod 0700 "$TMP/root.sock"
rm -f "$TMP"/shim/argv.*
PATH="$TMP/bin:$PATH" "$PM" run postgres --quiet --mem-cap 64M --scale 1 --clients 2 --duration 3s --label swapped 2>"$TMP/err" &
pid=$!
ok "the measured phase of the run whose socket is swapped starts" wait_for sh -c "grep -qx -- --log $TMP/shim/argv.* 2>/dev/null"
sleep 1   # (pgbench's connections made: the swap is for pressmark's own after them)
srv=$(dirs | grep -vxF "$dirs_before" | head -1)/pressmark-srv
as_pg sh -c "mv $srv/.s.PGSQL.5432 $srv/real.sock; ln -s $TMP/root.sock $srv/.s.PGSQL.5432"
wait $pid
is "$?" 1 "  it ends with exit 1: a failed run, stored"
like "$(q "select status || ' ' || coalesce(reason, '') from run where label = 'swapped'")" \
     "^failed the server's own figures after the measured phase: the socket's other end is pid [0-9]+ \(uid 0\), not the server" \
     "  failed: the counters' socket is not the server's"
is "$(grep -c connection "$TMP/root.log")" 1 "  the root-only socket got the connection"
is "$(grep connection "$TMP/root.log")" "connection b''" "  and not a byte of it"
is "$(dirs)" "$dirs_before" "  its directory is gone too"
stop_bg $rootsrv

# --port: pgbench over TCP on 127.0.0.1 alone, with the password in its
# environment; another user without it is refused.
port=$(free_port)
rm -f "$TMP"/shim/argv.* "$TMP"/shim/env.*
PATH="$TMP/bin:$PATH" "$PM" run postgres --quiet --mem-cap 64M --scale 1 --clients 2 --duration 2s --port "$port" \
    --label tcp 2>"$TMP/err" &
pid=$!
ok "the TCP run's measured phase starts" wait_for sh -c "grep -qx -- --log $TMP/shim/argv.* 2>/dev/null"
listening=$(ss -Hltn "sport = :$port" | awk '{ print $4 }' | tr '\n' ' ')
stranger=$(cd / && setpriv --reuid=nobody --regid=nogroup --clear-groups env -i "$real/psql" -w -h 127.0.0.1 -p "$port" \
    -U postgres -Atc 'select 1' postgres 2>&1)
wait $pid
is "$?" 0 "pressmark run postgres --port $port: exit 0 ($(tail -1 "$TMP/err"))"
is "$listening" "127.0.0.1:$port " "  the server listened on 127.0.0.1:$port alone"
like "$stranger" "fe_sendauth: no password supplied" "  another user without the password is refused"
m=$(measured)
like "$(tr '\n' ' ' < "$TMP/shim/argv.$m")" "^--host=127\.0\.0\.1 --port=$port --username=postgres " "  pgbench went there"
is "$(cut -d= -f1 "$TMP/shim/env.$m" | grep -c '^PGPASSWORD$')" 1 "  its password in its environment"
tps=$(sed -n 's/^tps = \([0-9.]*\) (without initial connection time)$/\1/p' "$TMP/shim/out.$m")
ok "  the stored tps is the one it printed ($tps)" awk -v a="$(metric tcp pgbench.tps)" -v b="$tps" 'BEGIN { exit !(b != "" && a == b + 0) }'
is "$(imetric tcp pgbench.transactions)" "$(sed -n 's/^number of transactions actually processed: //p' "$TMP/shim/out.$m")" \
   "  and the transactions it processed"
is "$(machine_state)" "$before" "  the machine is as it was"

# SIGKILL of pressmark mid-run: the next invocation removes it all. The
# server dies with pressmark (setpriv's parent-death signal), its children
# with the cgroup the journal removes before the directory they write in.
rm -f "$TMP"/shim/argv.*
"$PM" run postgres --quiet --mem-cap 64M --scale 1 --clients 2 --duration 60s --label killed 2>/dev/null &
pid=$!
ok "the measured phase of the run to kill starts" wait_for pgbench_runs --log
server=$(servers | head -1)
srv=$(dirs | grep -vxF "$dirs_before" | head -1)/pressmark-srv
sock=$srv/.s.PGSQL.5432
ok "  its server is up ($server) with its socket in its own directory ($sock)" sh -c "kill -0 $server && test -S $sock"
journal=$(cat "${PRESSMARK_STATE_DIR:-/run/pressmark}/journal")
like "$journal" "$(printf 'process\t%s\t%s/data' "$server" "$srv")" "  the journal names its pid and a word of its command line"
ok "  which its command line has" sh -c "tr '\\0' '\\n' < /proc/$server/cmdline | grep -qxF '$srv/data'"
kill -KILL $pid; wait $pid 2>/dev/null
ok "the server died with pressmark" wait_for sh -c "! kill -0 $server 2>/dev/null"
"$PM" list >/dev/null 2>"$TMP/recover"
is "$?" 0 "the next invocation (pressmark list) succeeds"
like "$(cat "$TMP/recover")" "pressmark $srv/data \(pid $server\) already gone" "  the journal's server line: that pid, gone"
like "$(cat "$TMP/recover")" "removed scratch directory $srv" "  its directory"
like "$(cat "$TMP/recover")" "removed cgroup $CG_ROOT/pressmark/run-[0-9]+-client" "  the client's cgroup"
ok "no process of its server is left" wait_for none_left
ok "nor its socket" test ! -e "$sock"
is "$(dirs)" "$dirs_before" "nor its directory"
is "$(find "$CG_ROOT/pressmark" -maxdepth 1 -name 'run-*' 2>/dev/null)" "" "nor a cgroup"
is "$(segments)" "$segments_before" "nor a System V segment"
is "$(machine_state)" "$before" "the machine is as it was"

# A port in use is bad input.
python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
print(s.getsockname()[1], flush=True); time.sleep(60)' > "$TMP/port" &
holder=$!
cleanup_add "kill $holder"
wait_for test -s "$TMP/port"
port=$(cat "$TMP/port")
bad "--port in use" "^pressmark run postgres: --port: '$port': 127\.0\.0\.1:$port cannot be listened on \(Address already in use; accepted: a free port, 1 to 65535\)$" \
    run postgres --port "$port" --scale 1 --label inuse
stop_bg $holder
is "$(system)" "" "nothing of the system's PostgreSQL changed (its main cluster, /var/run/postgresql)"
is "$(machine_state)" "$before" "at the end: the machine is as it was"
done_testing
