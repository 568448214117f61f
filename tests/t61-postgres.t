#!/bin/bash
# pressmark run postgres: pgbench against a private PostgreSQL server
# inside the cap, its data set made by pgbench -i and run by pgbench from
# outside the cap; the server, initdb and pgbench as the postgres user,
# each with nothing of root's; pgbench's figures as it printed them and
# its log held them, the server's own counters against a reading of its
# own; its cluster private (a socket in its own directory, its
# configuration root's, what keeps it private on its command line); nothing
# left after a run, a SIGINT, a SIGKILL, a refused option, or what the
# postgres user left in its directory.
. "$(dirname "$0")/lib.sh"
shopt -s extglob
need_root
memcg_hierarchy || skip_all "needs a memory cgroup hierarchy (cgroup v2 with memory, or v1's memory controller)"
real=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$real/postgres" ] && [ -x "$real/initdb" ] && [ -x "$real/pgbench" ] && [ -x "$real/psql" ] ||
    skip_all "needs PostgreSQL (apt-get install postgresql)"
getent passwd postgres >/dev/null || skip_all "needs the postgres user (apt-get install postgresql)"
pg_uid=$(id -u postgres)
as_pg() { setpriv --reuid=postgres --regid=postgres --clear-groups "$@"; }
# The run directories go to /var/tmp unless TMPDIR says: the test's own
# are removed at its end, whatever it left.
parent=${TMPDIR:-/var/tmp}
dirs() { ls -d "$parent"/pressmark-postgres.* 2>/dev/null; }
dirs_before=$(dirs)
cleanup_add 'for d in $(dirs | grep -vxF "$dirs_before"); do rm -rf "$d"; done'
before_db=$(db_sum)

# Refusals before anything runs. Without the package: Debian's directory
# hidden by a tmpfs in a mount namespace; a version's directory without
# pgbench is made only on that tmpfs, never on the machine's disk.
hide='mount -t tmpfs -o mode=0755 none /usr/lib/postgresql || exit 99'
unshare -m sh -c "$hide"' && PATH=/usr/sbin:/usr/bin:/sbin:/bin exec "$@"' sh "$PM" run postgres --label nopkg 2>"$TMP/err"
is "$?" 2 "without PostgreSQL's programs: exit 2"
is "$(cat "$TMP/err")" "pressmark run postgres: postgres is not installed (apt-get install postgresql)" \
   "  one line naming it and the package"
half='mountpoint -q /usr/lib/postgresql || exit 99; mkdir -p /usr/lib/postgresql/15/bin &&
      ln -s /bin/true /usr/lib/postgresql/15/bin/postgres && ln -s /bin/true /usr/lib/postgresql/15/bin/initdb'
unshare -m sh -c "$hide && $half"' && PATH=/usr/sbin:/usr/bin:/sbin:/bin exec "$@"' sh "$PM" run postgres --label nopkg \
    2>"$TMP/err"
is "$?" 2 "without pgbench: exit 2"
is "$(cat "$TMP/err")" "pressmark run postgres: pgbench is not installed (apt-get install postgresql)" "  one line naming it"
is "$(db_sum)" "$before_db" "  nothing written"
# A user of group 0 would run the server with root's group.
sed 's/^\(postgres:[^:]*:[0-9]*:\)[0-9]*:/\10:/' /etc/passwd > "$TMP/passwd"
unshare -m sh -c 'mount --bind "$1" /etc/passwd && shift && exec "$@"' sh "$TMP/passwd" "$PM" run postgres --label g0 \
    2>"$TMP/err"
is "$?" 2 "a postgres user of group 0: exit 2"
is "$(cat "$TMP/err")" "pressmark run postgres: the user postgres has group 0, root's: the server would run with root's group (accepted: a user whose group is not root's)" \
   "  one line naming it"
# PostgreSQL's programs from a PATH directory whose pgbench another user
# could change, or from a directory anyone can write: never run.
chmod 0711 "$TMP"
mkdir -m 0755 "$TMP/wbin" && mkdir -m 0777 "$TMP/obin"
for d in wbin obin; do ln -s "$real/postgres" "$TMP/$d/postgres" && ln -s "$real/initdb" "$TMP/$d/initdb"; done
cp "$real/pgbench" "$TMP/wbin/pgbench" && chmod 0775 "$TMP/wbin/pgbench" && ln -s "$real/pgbench" "$TMP/obin/pgbench"
PATH="$TMP/wbin:$PATH" bad "a pgbench another user could change" \
    "^pressmark run postgres: PostgreSQL's programs in $TMP/wbin: $TMP/wbin/pgbench is one another user could change \(owner 0, mode 0775;" \
    run postgres --label wbin
PATH="$TMP/obin:$PATH" bad "programs in a directory anyone can write" \
    "^pressmark run postgres: PostgreSQL's programs in $TMP/obin: $TMP/obin is below $TMP/obin, which another user could change" \
    run postgres --label obin

bad "--dataset larger than memory and swap" "^pressmark run postgres: --dataset: .* is more than this machine can hold" \
    run postgres --mem-cap 48M --dataset 1T --label huge
bad "--dataset below half a unit of scale" \
    "^pressmark run postgres: --dataset: 7\.4M comes to 7\.4 MiB, less than half a unit of pgbench's scale \(15 MiB; accepted: 7\.5M or more, or --scale N\)$" \
    run postgres --mem-cap 48M --dataset 7.4M --label tiny
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
bad "--jobs beyond what pgbench's logs are read for" "^pressmark run postgres: --jobs: .*257" \
    run postgres --clients 300 --jobs 257 --label jobs257
bad "--mode of another name" "^pressmark run postgres: --mode: 'readwrite' is not a mode" run postgres --mode readwrite --label m
bad "--shared-buffers larger than memory and swap" "^pressmark run postgres: --shared-buffers: .* is more than this machine can hold" \
    run postgres --shared-buffers 1T --label sb
bad "--port below 1024" "^pressmark run postgres: --port: '80' is a port only root may listen on, and the server runs as the postgres user \(accepted: 1024 to 65535, or 0 for the socket alone\)$" \
    run postgres --port 80 --label p80
# Without the run's cgroup nothing would end a backend that left its
# session: the balloon and --cap-method none are refused as root.
for m in balloon none; do
    bad "--cap-method $m" "^pressmark run postgres: --cap-method $m: the server would run without the run's cgroup, which as root is what ends all of its processes" \
        run postgres --mem-cap 64M --cap-method "$m" --label "cap$m"
done
mkdir -p "$TMP/it's" "$TMP/$(printf 'x%.0s' $(seq 60))" "$TMP/open" "$TMP/pgs" "$TMP/closed/in"
chmod 0777 "$TMP/open"
chmod 0700 "$TMP/closed"
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
# A directory the postgres user cannot pass through: its server could
# not reach its own cluster.
bad "--dir below a directory the postgres user cannot pass through" \
    "^pressmark run postgres: --dir: $TMP/closed/in is below $TMP/closed, which the postgres user cannot pass through \(mode 0700; accepted: directories every user may pass through, o\+x\)$" \
    run postgres --dir "$TMP/closed/in" --label closed
TMPDIR="$TMP/closed/in" bad "TMPDIR below it" "^pressmark run postgres: TMPDIR: $TMP/closed/in is below $TMP/closed, which the postgres user cannot pass through" \
    run postgres --label tmpclosed
is "$(dirs)" "$dirs_before" "no directory made for any of them"
for d in "$TMP/it's" "$TMP/$(printf 'x%.0s' $(seq 60))" "$TMP/open" "$TMP/pgs" "$TMP/closed/in"; do
    is "$(ls -A "$d")" "" "  nothing in $(basename "$d")"
done

# What of the postgres user's is the run's: its processes and System V
# segments, less the system cluster's (its postmaster's pid file names
# it, and its children are its); a zombie is gone already.
system_pids() {
    local f p
    for f in /var/lib/postgresql/*/main/postmaster.pid; do
        p=$(head -1 "$f" 2>/dev/null) && [ -n "$p" ] && { echo "$p"; pgrep -P "$p"; }
    done
}
leftovers() {
    ps -u postgres -o pid=,stat=,args= 2>/dev/null |
        awk -v sys=" $(system_pids | tr '\n' ' ') " '$2 !~ /^Z/ && index(sys, " " $1 " ") == 0'
}
none_left() { [ -z "$(leftovers)" ]; }
segments() { awk -v u="$pg_uid" 'NR > 1 && $10 == u' /proc/sysvipc/shm | wc -l; }
before=$(machine_state)
left_before=$(leftovers)
segments_before=$(segments)
is "$left_before" "" "no process of the postgres user's runs but the system cluster's"
# The system's own cluster (Debian's main, made when the package was
# installed) and its run directory: nothing there may change.
touch "$TMP/stamp"
system() { find /etc/postgresql/*/main /var/lib/postgresql/*/main /var/run/postgresql -newer "$TMP/stamp" 2>/dev/null; }
cg_of() { memcg_path "/proc/$1/cgroup" 2>/dev/null; }
uid_of() { awk '/^Uid:/ { print $2; exit }' "/proc/$1/status" 2>/dev/null; }
fsize_of() { awk '/^Max file size/ { print $4, $5 }' "/proc/$1/limits" 2>/dev/null; }
# descriptor N's open flags as "write-only append" or what they are
fd_mode() {
    local f
    f=$(awk '/^flags:/ { print $2 }' "/proc/$1/fdinfo/$2" 2>/dev/null) && [ -n "$f" ] || return 1
    f=$((8#$f))
    case $((f & 3)) in 0) printf read-only ;; 1) printf write-only ;; *) printf read-write ;; esac
    [ $((f & 02000)) = 0 ] || printf ' append'
}
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
pgbench_runs() { pgbench_pid "$1" >/dev/null; }
# every pgbench that has not ended (a zombie has: its parent reaps it)
benches() { ps -C pgbench -o pid=,stat=,args= 2>/dev/null | awk '$2 !~ /^Z/'; }
limit_of() {
    if [ "$CG_VERSION" = 2 ]; then cat "$CG_ROOT$1/memory.max"
    else awk '{ print ($1 >= 2^60) ? "max" : $1 }' "$CG_ROOT$1/memory.limit_in_bytes"; fi
}
# the limit in force for a cgroup: the least of its own and its parents'
# up to the run's, /pressmark/run-N
cap_of() {
    local cg=$1 l least=max
    while :; do
        l=$(limit_of "$cg") || return 1
        [ "$l" != max ] && { [ "$least" = max ] || [ "$l" -lt "$least" ]; } && least=$l
        case "$cg" in /pressmark/run-+([0-9])) break ;; /pressmark/*/*) cg=${cg%/*} ;; *) return 1 ;; esac
    done
    echo "$least"
}
# wait_run PID CMD...: CMD polled while the run PID goes on (its own
# --timeout bounds it): initdb, the server and the load under a small cap
# take what they take.
wait_run() { local run_pid=$1; shift; until "$@"; do kill -0 "$run_pid" 2>/dev/null || return 1; sleep 0.05; done; }
# The runs in the background are interrupted and waited for if the test
# ends early.
bg_run() { cleanup_add "kill -INT $1 2>/dev/null; wait $1 2>/dev/null"; }

# pgbench as a shim in the test's own directory, beside links to the real
# postgres and initdb (the programs are taken from one PATH directory): it
# keeps its argv, environment, output, cgroup and uid, and its
# per-transaction logs, then renames them to its own pid, under which
# pressmark, who started it, looks for them. The postgres user runs it.
# With leave there, pgbench -i leaves a sleeper in a session of its own
# (its process group's kill misses it) in the cgroup it runs in.
# With gate there, the measured phase waits for go; with counts there, it
# reads the server's counters before and after pgbench, and in between
# runs a query that spills to a temporary file.
mkdir -m 0755 "$TMP/bin" && mkdir -m 0700 "$TMP/shim" && chown postgres: "$TMP/shim"
ln -s "$real/postgres" "$TMP/bin/postgres" && ln -s "$real/initdb" "$TMP/bin/initdb"
cat > "$TMP/bin/pgbench" <<SHIM
#!/bin/sh
d=$TMP/shim
printf '%s\n' "\$@" > \$d/argv.\$\$
env > \$d/env.\$\$
measured=
for a; do [ "\$a" = --log ] && measured=1; done
prefix=\$(sed -n 's/^--log-prefix=//p' \$d/argv.\$\$)
srv=\${prefix%/*}
q() { $real/psql -X -h "\$srv" -p 5432 -U postgres -Atc "\$1" postgres; }
quiet() {
    i=0
    while [ "\$(q "select count(*) from pg_stat_activity where backend_type = 'client backend' and pid <> pg_backend_pid()")" != 0 ]; do
        i=\$((i + 1)); [ \$i -lt 600 ] || break; sleep 0.05
    done
}
counts() { quiet; q "select blks_hit, blks_read, temp_files, temp_bytes, xact_commit from pg_stat_database where datname = 'postgres'" > \$d/\$1.\$\$; }
if [ -n "\$measured" ] && [ -e \$d/gate ]; then
    echo \$\$ > \$d/gated
    i=0; until [ -e \$d/go ] || [ \$i -ge 600 ]; do i=\$((i + 1)); sleep 0.05; done
fi
if [ -n "\$measured" ] && [ -e \$d/counts ]; then
    counts c0
    $real/psql -X -h "\$srv" -p 5432 -U postgres -Atq -c "set work_mem = '64kB'" \
        -c "select count(*) from (select g from generate_series(1, 200000) g order by g desc) s" postgres > \$d/spill.\$\$
    counts c1
fi
if [ -z "\$measured" ] && [ -e \$d/leave ]; then
    rm -f \$d/leave
    setsid sleep 600 </dev/null >/dev/null 2>&1 &
    echo \$! > \$d/left; cat /proc/\$!/cgroup > \$d/left.cgroup
fi
$real/pgbench "\$@" > \$d/out.\$\$ 2>&1 &
p=\$!
cat /proc/\$p/cgroup > \$d/cgroup.\$\$; awk '/^Uid:/ { print \$2 }' /proc/\$p/status > \$d/uid.\$\$
wait \$p
rc=\$?
[ -n "\$measured" ] && [ -e \$d/counts ] && counts c2
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
loaded() { grep -l -- '^--initialize$' "$TMP"/shim/argv.* 2>/dev/null | sed 's/.*argv\.//'; }
# What root holds must not reach the server: a descriptor (9; 7 is the
# machine lane's lock, tests/lib.sh) and a variable of pressmark's
# environment.
exec 9>"$TMP/leak"
echo precious > "$TMP/precious"; mkdir "$TMP/pdir"; touch "$TMP/pdir/keep"
touch "$TMP/shim/gate" "$TMP/shim/counts" "$TMP/shim/leave"

# The default data set under a 64 MiB cap with swap: 150%, scale 6.
PATH="$TMP/bin:$PATH" PM_ROOT_ONLY=x "$PM" run postgres --quiet --mem-cap 64M --swap 256M --clients 4 --jobs 2 \
    --transactions 250 --interval 100ms --label pg 2>"$TMP/err" &
pid=$!
bg_run $pid
ok "the load phase starts (pgbench -i)" wait_run $pid pgbench_runs --initialize
loader=$(pgbench_pid --initialize)
shim=$(awk '/^PPid:/ { print $2 }' "/proc/$loader/status")     # (what pressmark started)
# Stopped while they are looked at: on a loaded machine the load's whole
# life can be shorter than the reading of their /proc.
kill -STOP "$loader" "$shim"
cleanup_add "kill -CONT $loader $shim 2>/dev/null"
loader_uid=$(uid_of "$loader"); loader_cg=$(cg_of "$loader"); loader_limit=$(limit_of "$loader_cg")
loader_fsize=$(fsize_of "$loader")
loader_env=$(tr '\0' '\n' < "/proc/$shim/environ" | cut -d= -f1 | sort | tr '\n' ' ')
loader_fds=$(ls -l "/proc/$shim/fd" 2>/dev/null); loader_out=$(fd_mode "$shim" 1)
# (session and tty_nr: the 4th and 5th fields after the command's ")")
sess_of() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{ print $4, $5 }'; }
loader_sess=$(sess_of "$shim"); loader_in=$(readlink "/proc/$loader/fd/0")
kill -CONT "$loader" "$shim"
dir=$(dirs | grep -vxF "$dirs_before" | head -1)
srv=$dir/pressmark-srv
server=$(pgrep -u postgres -f -- "/postgres -D $srv/data " | head -1)
server_uid=$(uid_of "$server"); server_cg=$(cg_of "$server"); server_cap=$(cap_of "$server_cg")
server_fsize=$(fsize_of "$server")
server_env=$(tr '\0' '\n' < "/proc/$server/environ" | sort | tr '\n' ' ')
server_fds=$(ls -l "/proc/$server/fd" 2>/dev/null); server_out=$(fd_mode "$server" 1):$(fd_mode "$server" 2)
server_sess=$(sess_of "$server"); server_in=$(readlink "/proc/$server/fd/0")
server_argv=$(tr '\0' '\n' < "/proc/$server/cmdline" | grep -A1 -x -- -c | grep -vx -- -c | grep -vx -- -- | tr '\n' ' ')
running=$(leftovers)
segments_running=$(segments)
marked=$(awk -v p="$server" 'NR > 1 && $5 == p { print $3 }' /proc/sysvipc/shm)
modes=$(stat -c '%a %U' "$dir" "$srv" "$srv/data" | tr '\n' ' ')
tcp=$(ss -Hltnp | grep -c "pid=$server,")
unix=$(ss -Hlxp | grep -c "$srv/.s.PGSQL.5432 .*pid=$server,")
psql_pg() { (cd / && as_pg env -i "$real/psql" -X -h "$srv" -p 5432 -U postgres -Atc "$1" postgres 2>&1); }
settings=$(psql_pg "select concat_ws(' ', current_setting('shared_buffers'), current_setting('fsync'),
            '[' || current_setting('listen_addresses') || ']', current_setting('data_directory'),
            current_setting('config_file'), current_setting('max_connections'))")
sources=$(psql_pg "select string_agg(name || ':' || source, ' ' order by name) from pg_settings where name in
            ('listen_addresses', 'port', 'unix_socket_directories', 'unix_socket_permissions', 'hba_file', 'ident_file',
             'dynamic_shared_memory_type', 'restart_after_crash', 'logging_collector', 'shared_preload_libraries')")
rules=$(psql_pg "select current_setting('hba_file') || ' ' || current_setting('ident_file')")
# ALTER SYSTEM is the postgres user's (postgresql.auto.conf, read after
# root's file): a setting of root's file changes on a reload, one of the
# command line does not.
altered=$(psql_pg "alter system set log_min_messages = 'error'"; psql_pg "alter system set restart_after_crash = on";
          psql_pg "select pg_reload_conf()")
is "$(echo $altered)" "ALTER SYSTEM ALTER SYSTEM t" "the postgres user alters the system's settings and reloads them"
reloaded() { [ "$(psql_pg "select current_setting('log_min_messages')")" = error ]; }
ok "  the reload is in force" wait_run $pid reloaded
is "$(psql_pg "select current_setting('restart_after_crash')")" off "  change root's file's settings, not the command line's"
ok "the measured phase starts, held at the test's gate" wait_run $pid test -s "$TMP/shim/gated"
gated=$(cat "$TMP/shim/gated")
# What pgbench -i left in the clients' cgroup is killed once it ends,
# before the next pgbench starts (not only with the run's cgroups).
left=$(cat "$TMP/shim/left")
cleanup_add "[ \"\$(tr '\\0' ' ' < /proc/$left/cmdline 2>/dev/null)\" != 'sleep 600 ' ] || kill -9 $left"
ok "the sleeper pgbench -i left in a session of its own is gone before pgbench runs" \
    sh -c "! ps -o stat= -p $left | grep -qv '^Z'"
measured_cg=$(cg_of "$gated"); measured_limit=$(limit_of "$measured_cg"); measured_uid=$(uid_of "$gated")
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
ok "planted while the run goes on: the links, the writer in the server's cgroup" \
    sh -c "kill -0 $pid && test -L $srv/link && test -L $srv/dlink && [ '$(cg_of $writer)' = '$server_cg' ]"
rm "$TMP/shim/gate"
touch "$TMP/shim/go"
wait $pid
is "$?" 0 "pressmark run postgres under a 64M cap with swap: exit 0"
exec 9>&-
is "$(q "select status || ' ' || coalesce(reason, '') from run where label = 'pg'")" "ok " "its run is stored ok"
run=$(q "select id from run where label = 'pg'")
like "$server_cg" "^/pressmark/run-$run(/workload)?$" "the server ran in the run's capped cgroup ($server_cg)"
is "$server_cap" 67108864 "  under the run's cap of 64 MiB"
ge "$(imetric pg memcg.limit_hits)" 1 "  which it reached ($(imetric pg memcg.limit_hits) times)"
ok "  and never went above ($(imetric pg memcg.usage_max_bytes) bytes at most)" \
    test "$(imetric pg memcg.usage_max_bytes)" -le 67108864
is "$server_uid" "$pg_uid" "  as the postgres user"
is "$server_env" "HOME=$srv LANG=C PATH=/usr/sbin:/usr/bin:/sbin:/bin PWD=$PWD " \
   "  with an environment of its own, nothing of root's (PM_ROOT_ONLY)"
like "$server_fds" " -> /dev/null$" "  its descriptors are listed (stdin /dev/null)"
unlike "$server_fds" "$TMP/leak" "  and none of root's is among them (the test's 9)"
is "$server_out" "write-only append:write-only append" "  its log write-only, appended to (root's file)"
# (a table of the data set is files of 1 GiB: 16 MiB, the key-value
# servers' bound, would fail pgbench -i past it)
is "$server_fsize" "1073741824 1073741824" "  it writes no file over 1 GiB (RLIMIT_FSIZE), a relation's segment"
# A server run as another user in root's session could type into root's
# terminal (TIOCSTI): it leads a session of its own, with no terminal.
is "$server_sess $server_in" "$server 0 /dev/null" "  in a session of its own, no terminal, /dev/null for stdin"
is "$modes" "711 root 700 postgres 700 postgres " "its directory root's (0711), the cluster's the postgres user's (0700)"
is "$tcp:$unix" "0:1" "it listened on its own socket alone, no TCP port"
is "$settings" "16MB on [] $srv/data $dir/pm-postgresql.conf 14" \
   "  as the server says: a quarter of the cap, fsync, no address; the configuration root's file"
is "$server_argv" "config_file=$dir/pm-postgresql.conf listen_addresses= port=5432 unix_socket_directories=$srv unix_socket_permissions=0700 hba_file=$dir/pm-hba.conf ident_file=$dir/pm-ident.conf dynamic_shared_memory_type=mmap restart_after_crash=off logging_collector=off shared_preload_libraries= " \
   "  what keeps it private on its command line"
# (hba_file and ident_file are always "override": the server makes them
# absolute and sets them again from whichever source won, here -c)
is "$sources" "dynamic_shared_memory_type:command line hba_file:override ident_file:override listen_addresses:command line logging_collector:command line port:command line restart_after_crash:command line shared_preload_libraries:command line unix_socket_directories:command line unix_socket_permissions:command line" \
   "  where the server says it took each of them"
is "$rules" "$dir/pm-hba.conf $dir/pm-ident.conf" "  its access rules root's files"
like "$running" "^ *$server +[A-Za-z<+]+ +$TMP/bin/postgres -D $srv/data " "while it ran, its postmaster was the postgres user's"
like "$running" " postgres: pressmark: checkpointer" "  and its checkpointer (the cluster's name in its title)"
is "$segments_running" $((segments_before + 1)) "  with one System V segment more"
is "$marked" 1600 "  the server's, marked for removal (mode 1600: SHM_DEST) while it was in use"
is "$loader_uid:$loader_cg:$loader_limit" "$pg_uid:/pressmark/run-$run-client:max" \
   "pgbench -i ran as the postgres user, outside the cap, in the run's client cgroup with no limit"
# (PWD: the sh that puts it in its cgroup sets it, pressmark's directory)
is "$loader_env" "HOME LANG PATH PWD " "  with PATH, LANG and HOME alone (no password on the socket)"
like "$loader_fds" " -> /dev/null$" "  its descriptors are listed (stdin /dev/null)"
unlike "$loader_fds" "$TMP/leak" "  and none of root's is among them"
is "$loader_out" "write-only append" "  its output write-only, appended to"
is "$loader_fsize" "1073741824 1073741824" "  no file over 1 GiB"
is "$loader_sess $loader_in" "$shim 0 /dev/null" "  in a session of its own too, /dev/null for stdin"
is "$(tr '\n' ' ' < "$TMP/shim/argv.$(loaded)")" "--host=$srv --port=5432 --username=postgres --initialize --scale=6 --quiet postgres " \
   "  its argv: scale 6, on the socket"
m=$(measured)
is "$measured_uid:$measured_cg:$measured_limit" "$pg_uid:/pressmark/run-$run-client:max" \
   "the measured pgbench ran as the postgres user in the run's client cgroup with no limit"
is "$(cat "$TMP/shim/uid.$m"):$(memcg_path "$TMP/shim/cgroup.$m")" "$pg_uid:$measured_cg" "  pgbench itself too"
is "$(memcg_path "$TMP/shim/left.cgroup")" "/pressmark/run-$run-client" "  the sleeper pgbench -i left was in that cgroup"
is "$(tr '\n' ' ' < "$TMP/shim/argv.$m")" "--host=$srv --port=5432 --username=postgres --client=4 --jobs=2 --transactions=250 --progress=1 --log --log-prefix=$srv/pm-pgbench-log postgres " \
   "  its argv: the socket's directory, 4 clients, 2 threads, 250 transactions each, its log in the server's directory"
ok "  its environment kept" test -s "$TMP/shim/env.$m"
is "$(cut -d= -f1 "$TMP/shim/env.$m" | grep -c PGPASSWORD)" 0 "  no password in it"
ok "the postgres user's child in the server's cgroup is gone" sh -c "! kill -0 $writer 2>/dev/null"
is "$(cat "$TMP/precious"; ls "$TMP/pdir")" "precious
keep" "what the postgres user's links named is untouched"

# pgbench's figures as it printed them and as its log holds them.
out=$TMP/shim/out.$m
is "$(grep '^scaling factor' "$out")" "scaling factor: 6" "pgbench ran against scale 6"
is "$(grep '^number of transactions actually processed' "$out")" "number of transactions actually processed: 1000/1000" \
   "pgbench processed 4 x 250 transactions"
is "$(imetric pg pgbench.transactions)" 1000 "  the stored figure is its count"
is "$(ls "$TMP"/shim/pm-pgbench-log.* | wc -l)" 2 "  in two per-transaction logs, one a thread"
is "$(cat "$TMP"/shim/pm-pgbench-log.* | wc -l)" 1000 "  which hold as many lines"
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
is "$(grep -cx '[0-9][0-9]*' "$TMP/lat")" 1000 "the logs hold 1000 latencies"
pct() { awk -v p="$1" '{ v[NR - 1] = $1 } END { r = p / 100 * (NR - 1); i = int(r); printf "%.6f", v[i] + (r - i) * (v[i + 1] - v[i]) }' "$TMP/lat"; }
for p in 50 99 99.9; do
    ok "  their p$p ($(pct $p) us) is the stored figure" awk -v a="$(metric pg "pgbench.latency_p${p/./}_us")" \
        -v b="$(pct $p)" 'BEGIN { d = a - b; exit !(d * d < 1e-6) }'
done
shown=$("$PM" show pg 2>&1 | awk '$1 == "pg" { gsub(",", "", $2); print $2; exit }')
like "$("$PM" show pg 2>&1)" "^label +tps " "show leads with it (tps)"
ok "  and shows its value ($shown)" awk -v a="$shown" -v b="$tps" 'BEGIN { exit !(a + 0 > 0 && (a - b) ^ 2 < 1) }'

# The data set and the load.
is "$(imetric pg postgres.scale):$(imetric pg postgres.dataset_bytes)" "6:$(( 6 * 15728640 ))" \
   "the data set is 150% of the cap in whole units of scale (96 MiB: 6 of 15 MiB)"
db=$(imetric pg postgres.database_bytes)
ok "  the database holds it: ${db} bytes, 6 units of 15,680,307 and at most 9 MiB of catalogue" \
    test "$db" -ge $(( 6 * 15680307 )) -a "$db" -le $(( 6 * 15680307 + 9 * 1048576 ))
ok "  its load took $(metric pg postgres.load_s) s" awk -v s="$(metric pg postgres.load_s)" 'BEGIN { exit !(s > 0) }'
# The server's own counters against the shim's own reading of them just
# before and after pgbench (c0, c2), a query that spills to a temporary
# file in between (c1): what pressmark's sessions add is its slack.
read -r h0 r0 f0 b0 x0 < <(tr '|' ' ' < "$TMP/shim/c0.$m")
read -r h1 r1 f1 b1 x1 < <(tr '|' ' ' < "$TMP/shim/c1.$m")
read -r h2 r2 f2 b2 x2 < <(tr '|' ' ' < "$TMP/shim/c2.$m")
ge "$((f1 - f0))" 1 "the shim's query spilled to $((f1 - f0)) temporary file(s), $((b1 - b0)) bytes"
is "$(imetric pg postgres.temp_files):$(imetric pg postgres.temp_bytes)" "$((f2 - f0)):$((b2 - b0))" \
   "  the stored temp_files and temp_bytes are exactly the server's growth over the measured phase"
x=$(imetric pg postgres.xact_commit); h=$(imetric pg postgres.blks_hit); r=$(imetric pg postgres.blks_read)
ok "the server committed pgbench's 1000 and the few of the sessions around them ($x; $((x2 - x0)) by the shim's reading)" \
    test "$x" -ge 1000 -a "$x" -le 1050 -a "$x" -ge $((x2 - x0)) -a "$x" -le $((x2 - x0 + 20))
ok "  blocks found in its buffers: $h ($((h2 - h0)) by the shim's reading), at least 5 a transaction" \
    test "$h" -ge 5000 -a "$h" -ge $((h2 - h0)) -a "$h" -le $((h2 - h0 + 3000))
ok "  blocks read in: $r ($((r2 - r0)) by the shim's reading), fewer than found" \
    test "$r" -ge $((r2 - r0)) -a "$r" -le $((r2 - r0 + 300)) -a "$r" -lt "$h"
ok "  the hit share is theirs ($(metric pg postgres.hit_pct) %)" awk -v a="$(metric pg postgres.hit_pct)" -v h="$h" -v r="$r" \
   'BEGIN { d = a - 100 * h / (h + r); exit !(d * d < 1e-9) }'
is "$(q "select unit || ' ' || direction from metric where run_id = $run and name = 'postgres.hit_pct'")" "% higher" \
   "  stored with the unit and direction the catalogue declares"
phases=$("$PM" export pg --series workload.phase 2>/dev/null | awk -F, 'NR > 1 { print $NF }' | uniq | tr '\n' ' ')
like "$phases" "^(0 )?1 2 0 $" "the samples mark the phases in order: (0,) 1 load, 2 measured, 0 ($phases)"

is "$(leftovers)" "" "no process of its server is left"
is "$(dirs)" "$dirs_before" "nor its directory, whatever the postgres user left there"
is "$(segments)" "$segments_before" "nor a System V segment of the server's"
is "$(machine_state)" "$before" "the machine is as it was (no cgroup, swap file or journal left)"
rm -f "$TMP/shim/counts" "$TMP"/shim/argv.* "$TMP"/shim/env.* "$TMP"/shim/pm-pgbench-log.*

# pressmark's own connection (the counters) goes only to the server: the
# postgres user swaps its socket for a link to a socket only root may
# reach, once pgbench's connections are made.
python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(4)
print("up", flush=True)
while True:
    c, _ = s.accept(); print("connection", c.recv(100), flush=True)' "$TMP/root.sock" > "$TMP/root.log" &
rootsrv=$!
cleanup_add "stop_bg $rootsrv"
wait_for grep -q up "$TMP/root.log"
chmod 0700 "$TMP/root.sock"
PATH="$TMP/bin:$PATH" "$PM" run postgres --quiet --mem-cap 64M --scale 1 --clients 2 --duration 3s --label swapped 2>"$TMP/err" &
pid=$!
bg_run $pid
connected() { local b; b=$(pgbench_pid --log) && [ "$(ss -Hxp | grep -c "pid=$b,")" -ge 2 ]; }
ok "the measured phase of the run whose socket is swapped starts, its 2 clients connected" wait_run $pid connected
srv=$(dirs | grep -vxF "$dirs_before" | head -1)/pressmark-srv
as_pg sh -c "mv $srv/.s.PGSQL.5432 $srv/real.sock; ln -s $TMP/root.sock $srv/.s.PGSQL.5432"
wait $pid
is "$?" 1 "  it ends with exit 1: a failed run, stored"
is "$(q "select status || ' ' || coalesce(reason, '') from run where label = 'swapped'")" \
   "failed the server's own figures after the measured phase: connecting to $srv/.s.PGSQL.5432: a symbolic link, not the server's socket" \
   "  failed: the counters' socket is a link, never followed"
is "$(grep -c connection "$TMP/root.log")" 0 "  the root-only socket got no connection"
is "$(leftovers)" "" "  no process of its server is left"
is "$(dirs)" "$dirs_before" "  nor its directory"
is "$(segments)" "$segments_before" "  nor a System V segment"
stop_bg $rootsrv

# --port: pgbench over TCP on 127.0.0.1 alone, with the password in its
# environment; another user without it is refused; the password's file
# for initdb gone once it has read it.
port=$(free_port)
rm -f "$TMP"/shim/argv.* "$TMP"/shim/env.*
PATH="$TMP/bin:$PATH" "$PM" run postgres --quiet --mem-cap 64M --scale 1 --clients 2 --duration 2s --port "$port" \
    --label tcp 2>"$TMP/err" &
pid=$!
bg_run $pid
ok "the TCP run's measured phase starts" wait_run $pid sh -c "grep -qx -- --log $TMP/shim/argv.* 2>/dev/null"
dir=$(dirs | grep -vxF "$dirs_before" | head -1)
files=$(LC_ALL=C ls "$dir" | tr '\n' ' ')
listening=$(ss -Hltn "sport = :$port" | awk '{ print $4 }' | tr '\n' ' ')
stranger=$(cd / && setpriv --reuid=nobody --regid=nogroup --clear-groups env -i "$real/psql" -w -h 127.0.0.1 -p "$port" \
    -U postgres -Atc 'select 1' postgres 2>&1)
wait $pid
is "$?" 0 "pressmark run postgres --port $port: exit 0 ($(tail -1 "$TMP/err"))"
is "$files" "pm-hba.conf pm-ident.conf pm-initdb.log pm-pgbench-init.log pm-pgbench.log pm-postgresql.conf pm-server.log pressmark-srv " \
   "  its directory held no password file once initdb had read it"
is "$listening" "127.0.0.1:$port " "  the server listened on 127.0.0.1:$port alone"
like "$stranger" "fe_sendauth: no password supplied" "  another user without the password is refused"
m=$(measured)
like "$(tr '\n' ' ' < "$TMP/shim/argv.$m")" "^--host=127\.0\.0\.1 --port=$port --username=postgres " "  pgbench went there"
is "$(cut -d= -f1 "$TMP/shim/env.$m" | grep -c '^PGPASSWORD$')" 1 "  its password in its environment"
tps=$(sed -n 's/^tps = \([0-9.]*\) (without initial connection time)$/\1/p' "$TMP/shim/out.$m")
ok "  the stored tps is the one it printed ($tps)" awk -v a="$(metric tcp pgbench.tps)" -v b="$tps" 'BEGIN { exit !(b != "" && a == b + 0) }'
is "$(imetric tcp pgbench.transactions)" "$(sed -n 's/^number of transactions actually processed: //p' "$TMP/shim/out.$m")" \
   "  and the transactions it processed"
is "$(leftovers)" "" "  no process of its server is left"
is "$(dirs)" "$dirs_before" "  nor its directory"
is "$(segments)" "$segments_before" "  nor a System V segment"
is "$(machine_state)" "$before" "  the machine is as it was"

# SIGINT mid-run: the same invocation stops it all; --mode select is
# pgbench's -S.
rm -f "$TMP"/shim/argv.*
PATH="$TMP/bin:$PATH" "$PM" run postgres --quiet --mem-cap 64M --scale 1 --clients 2 --duration 60s --mode select \
    --label intr 2>/dev/null &
pid=$!
bg_run $pid
ok "the measured phase of the run to interrupt starts" wait_run $pid pgbench_runs --log
kill -INT $pid; wait $pid
is "$?" 130 "SIGINT: exit 130"
is "$(q "select status from run where label = 'intr'")" aborted "  the run is stored aborted"
like "$(tr '\n' ' ' < "$TMP/shim/argv.$(measured)")" " --select-only postgres $" "  its pgbench was given --select-only"
is "$(leftovers)" "" "  no process of its server is left"
is "$(benches)" "" "  nor pgbench"
is "$(dirs)" "$dirs_before" "  nor its directory"
is "$(segments)" "$segments_before" "  nor a System V segment"
is "$(machine_state)" "$before" "  the machine is as it was"

# SIGKILL of pressmark mid-run, with --port: the next invocation removes
# it all. The server dies with pressmark (setpriv's parent-death signal),
# its children and what the postgres user put in its cgroup with the
# cgroup the journal removes before the directory they write in.
port=$(free_port)
"$PM" run postgres --quiet --mem-cap 64M --scale 1 --clients 2 --duration 60s --port "$port" --label killed 2>/dev/null &
pid=$!
bg_run $pid
ok "the measured phase of the run to kill starts" wait_run $pid pgbench_runs --log
srv=$(dirs | grep -vxF "$dirs_before" | head -1)/pressmark-srv
server=$(pgrep -u postgres -f -- "/postgres -D $srv/data " | head -1)
server_cg=$(cg_of "$server")
sock=$srv/.s.PGSQL.$port
ok "  its server is up ($server) with its socket in its own directory ($sock)" sh -c "kill -0 $server && test -S $sock"
journal=$(cat "${PRESSMARK_STATE_DIR:-/run/pressmark}/journal")
# (the run's cgroup stands for its processes: a pid, once pressmark is
# gone, may come to a process of the postgres user's outside the run)
unlike "$journal" "^process"$'\t' "  the journal names no process of the run's by its pid"
line_of() { printf '%s\n' "$1" | grep -nE -- "$2" | sed -n "${3}p" | cut -d: -f1; }
cg_line=$(line_of "$journal" "^cgroup"$'\t'"$CG_ROOT/pressmark/run-[0-9]+(/workload)?"$'\t' '$')
dir_line=$(line_of "$journal" "^scratch"$'\t'"$srv"$'\t' '$')
ok "  the run's cgroup is journalled again after the server's directory, to be undone before it" \
    test "${cg_line:-0}" -gt "${dir_line:-99999}"
# What the postgres user leaves: a process of its own in the server's
# cgroup, in a session of its own and no parent-death signal, and links
# to root's files in its directory.
echo decoy > "$TMP/decoy"; mkdir "$TMP/ddir"; touch "$TMP/ddir/keep"
as_pg sh -c "ln -s $TMP/decoy $srv/decoy; ln -s $TMP/ddir $srv/ddir"
setpriv --reuid=postgres --regid=postgres --clear-groups setsid sh -c 'exec sleep 600' </dev/null >/dev/null 2>&1 &
survivor=$!
cleanup_add "kill $survivor 2>/dev/null"
wait_for sh -c "tr '\\0' ' ' < /proc/$survivor/cmdline | grep -qx 'sleep 600 '"
echo "$survivor" > "$CG_ROOT$server_cg/cgroup.procs"
is "$(cg_of "$survivor")" "$server_cg" "  a process of the postgres user's planted in the server's cgroup"
kill -KILL $pid; wait $pid 2>/dev/null
ok "the server died with pressmark" wait_for sh -c "! kill -0 $server 2>/dev/null"
"$PM" list >/dev/null 2>"$TMP/recover"
is "$?" 0 "the next invocation (pressmark list) succeeds"
alive() { [ -e "/proc/$1" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }
left=$(leftovers); survived=$(alive "$survivor" && echo "$survivor alive"); bench=$(benches)
listener=$(ss -Hltn "sport = :$port")
is "$left" "" "  no process of its server is left once it returns"
is "$survived" "" "  the planted process is gone too"
is "$bench" "" "  nor pgbench"
is "$listener" "" "  nor a listener on 127.0.0.1:$port"
rec_cg=$(line_of "$(cat "$TMP/recover")" "removed cgroup $CG_ROOT/pressmark/run-[0-9]+(/workload)?$" 1)
rec_dir=$(line_of "$(cat "$TMP/recover")" "removed scratch directory $srv$" 1)
ok "  the run's cgroup removed, what was in it killed, before the server's directory" \
    test "${rec_cg:-99999}" -lt "${rec_dir:-0}"
like "$(cat "$TMP/recover")" "removed scratch directory $srv" "  its directory"
like "$(cat "$TMP/recover")" "removed cgroup $CG_ROOT/pressmark/run-[0-9]+-client" "  the client's cgroup"
ok "nor its socket" test ! -e "$sock"
is "$(dirs)" "$dirs_before" "nor its directory"
is "$(cat "$TMP/decoy"; ls "$TMP/ddir")" "decoy
keep" "what the links in it named is untouched"
is "$(find "$CG_ROOT/pressmark" -maxdepth 1 -name 'run-*' 2>/dev/null)" "" "nor a cgroup"
is "$(segments)" "$segments_before" "nor a System V segment"
is "$(machine_state)" "$before" "the machine is as it was"

# A port in use is bad input, with --scale or the data set from --dataset.
busy_port
holder=$BUSY_PID port=$BUSY_PORT
bad "--port in use" "^pressmark run postgres: --port: '$port': 127\.0\.0\.1:$port cannot be listened on \(Address already in use; accepted: a free port, 1024 to 65535\)$" \
    run postgres --port "$port" --scale 1 --label inuse
bad "--port in use, without --scale" "^pressmark run postgres: --port: '$port': 127\.0\.0\.1:$port cannot be listened on \(Address already in use;" \
    run postgres --port "$port" --label inuse2
stop_bg $holder
if ls -d /var/lib/postgresql/*/main >/dev/null 2>&1; then
    is "$(system)" "" "nothing of the system's PostgreSQL changed (its main cluster, /var/run/postgresql)"
else
    skip "no system cluster here (/var/lib/postgresql/*/main) to compare"
fi
is "$(machine_state)" "$before" "at the end: the machine is as it was"
done_testing
