# TAP helpers for the end-to-end tests: one behaviour per test line.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PM="${PRESSMARK_BIN:-$ROOT/pressmark}"
TMP=$(mktemp -d /tmp/pressmark-test.XXXXXX)
export PRESSMARK_DB="$TMP/results.db"
# python3 is Debian's, which run.sh installs with the modules the tests
# import (jsonschema, yaml, scipy), for the tests and all they start, not
# whatever comes first in PATH: a version manager's shim there (pyenv's on
# these machines) costs 386 ms of CPU a call against Debian's 29, and the
# tests make hundreds of calls.
if [ -x /usr/bin/python3 ] && mkdir "$TMP/.python" && ln -s /usr/bin/python3 "$TMP/.python/python3"; then
    export PATH="$TMP/.python:$PATH"
fi
# A metric missing from pressmark-metrics(7), or stored with another unit or
# direction than it gives, fails the run (harness/run.c check_catalogue).
export PRESSMARK_TEST_STRICT_METRICS=1
_n=0
_failed=0
_cleanups=()

cleanup_add() { _cleanups+=("$*"); }
_cleanup() {
    local i
    for ((i = ${#_cleanups[@]} - 1; i >= 0; i--)); do eval "${_cleanups[$i]}" >/dev/null 2>&1 || true; done
    # Under make's targets, the CPU the test cost (its shell's and every
    # child's it waited for, pressmark's QEMU and servers among them) to
    # PM_CPU_LOG, which make ci-test sums: CI is bound by two cores. (times
    # into a file: in a pipe or $(...) it would run in a subshell, which
    # has waited for no child.)
    local LC_ALL=C    # (times writes the locale's decimal point)
    if [ -n "${PM_CPU_LOG:-}" ] && [ -d "$TMP" ] && times > "$TMP/.times"; then
        awk -v t="$(basename "$0")" '{ for (i = 1; i <= NF; i++) { split($i, a, /[ms]/); s += a[1] * 60 + a[2] } }
                                      END { printf "%.1f %s\n", s, t }' "$TMP/.times" >> "$PM_CPU_LOG"
    fi
    rm -rf "$TMP"
    # A child that outlives the test (a server a regression failed to stop)
    # shares the locks' open files: let them go here all the same, or every
    # later test of both proves would wait for it.
    flock -u 6 2>/dev/null; flock -u 7 2>/dev/null; flock -u 8 2>/dev/null
    return 0
}
trap _cleanup EXIT

# A failed check's lines go to the TAP stream and, under make test, to
# PM_FAILURES too: the target prints that file's end when it fails, where
# a CI log that keeps only its last lines still shows why.
diag() {  # diag LINE...: each line as it goes to the TAP stream
    local l
    for l in "$@"; do
        echo "$l"
        [ -z "${PM_FAILURES:-}" ] || printf '%s: %s\n' "$(basename "$0")" "$l" >> "$PM_FAILURES"
    done
}
ok() {   # ok DESCRIPTION COMMAND [ARGS...]: passes when the command succeeds
    local desc=$1; shift
    _n=$((_n + 1))
    if "$@"; then echo "ok $_n - $desc"; else diag "not ok $_n - $desc"; _failed=$((_failed + 1)); fi
}
is() {   # is GOT WANT DESCRIPTION
    _n=$((_n + 1))
    if [ "$1" = "$2" ]; then echo "ok $_n - $3"
    else diag "not ok $_n - $3" "#   got:  '$1'" "#   want: '$2'"; _failed=$((_failed + 1)); fi
}
isnt() { # isnt GOT UNWANTED DESCRIPTION: passes when they differ and GOT is not empty
    _n=$((_n + 1))
    if [ -n "$1" ] && [ "$1" != "$2" ]; then echo "ok $_n - $3"
    else diag "not ok $_n - $3" "#   got:  '$1'" "#   not:  '$2'"; _failed=$((_failed + 1)); fi
}
ge() {   # ge GOT MIN DESCRIPTION: integer comparison
    _n=$((_n + 1))
    if [ -n "$1" ] && [ "$1" -ge "$2" ] 2>/dev/null; then echo "ok $_n - $3"
    else diag "not ok $_n - $3" "#   got '$1', want at least $2"; _failed=$((_failed + 1)); fi
}
like() { # like TEXT REGEX DESCRIPTION
    _n=$((_n + 1))
    if printf '%s' "$1" | grep -Eq -- "$2"; then echo "ok $_n - $3"
    else diag "not ok $_n - $3" "#   '$1'" "#   does not match /$2/"; _failed=$((_failed + 1)); fi
}
unlike() { # unlike TEXT REGEX DESCRIPTION: passes when no line of a non-empty TEXT matches
    _n=$((_n + 1))
    local st=0
    printf '%s' "$1" | grep -Eq -- "$2" || st=$?
    # grep's 1 is "no line matched"; 2, a bad regex, must not pass
    if [ -n "$1" ] && [ "$st" -eq 1 ]; then echo "ok $_n - $3"
    else diag "not ok $_n - $3" "#   '$1'" "#   matches /$2/, is empty or the regex is bad (grep: $st)"; _failed=$((_failed + 1)); fi
}
skip() { _n=$((_n + 1)); echo "ok $_n # SKIP $1"; }
skip_all() { echo "1..0 # SKIP $1"; exit 0; }
# required_by VAR: a target that asks for this file by name (make
# test-slow sets PM_SLOW_REQUIRED, make lava-check PM_LAVA_REQUIRED) must
# not pass having tested nothing: with VAR set, a missing need fails the
# file, naming it, where it would skip it.
required_by() {
    [ -n "${!1:-}" ] || return 0
    skip_all() { diag "not ok $((_n + 1)) - needed ($_required_var): $1"; echo "1..$((_n + 1))"; exit 1; }
    _required_var=$1
}
done_testing() { echo "1..$_n"; [ "$_failed" -eq 0 ]; }
# q SQL: the test database's answer. What sqlite3 says on stderr (a locked
# or missing database: every check after would get '' and not say why)
# goes to stderr and PM_FAILURES, out of the captured answer.
q() {
    local err rc
    { err=$(sqlite3 -batch "$PRESSMARK_DB" "$1" 2>&1 >&3); rc=$?; } 3>&1
    [ -z "$err" ] && return "$rc"
    echo "q: $1: $err" >&2
    [ -z "${PM_FAILURES:-}" ] || printf '%s: # q: %s: %s\n' "$(basename "$0")" "$1" "$err" >> "$PM_FAILURES"
    return "$rc"
}
# db_sum [PATH]: the database (PATH, else $PRESSMARK_DB) as one comparable
# word: its checksum, or "absent".
db_sum() {
    local db=${1:-$PRESSMARK_DB}
    if [ -e "$db" ]; then md5sum < "$db"; else echo absent; fi
}
# bad DESCRIPTION EXPECTED-REGEX ARGS...: pressmark ARGS is refused the way
# bad input always is: exit 2, one line on stderr that matches, nothing on
# standard output, the database (or its absence) untouched: the one ARGS
# name with --db when they do (the one the command opens), else
# $PRESSMARK_DB. bad_out=REGEX for the call: every line on standard
# output matches REGEX instead (a stream to stdout that began before the
# bad part was read: export's CSV, its header and the good ticks' rows).
bad() {
    local desc=$1 re=$2; shift 2
    local db=$PRESSMARK_DB prev= a
    for a in "$@"; do
        [ "$prev" = --db ] && db=$a
        case "$a" in --db=*) db=${a#--db=} ;; esac
        prev=$a
    done
    local before; before=$(db_sum "$db")
    "$PM" "$@" >"$TMP/out" 2>"$TMP/err"
    local rc=$?
    is "$rc" 2 "$desc: exit 2"
    is "$(wc -l <"$TMP/err")" 1 "$desc: one line"
    like "$(cat "$TMP/err")" "$re" "$desc: names the option, value and accepted forms"
    if [ -z "${bad_out:-}" ]; then
        is "$(head -c 200 "$TMP/out")" "" "$desc: nothing on standard output"
    else  # (a bad REGEX makes grep print no count, which fails too)
        is "$(grep -Evc -- "$bad_out" "$TMP/out")" 0 "$desc: on standard output only lines of the stream it began"
    fi
    is "$(db_sum "$db")" "$before" "$desc: nothing written"
}
# metric RUN-ID|LABEL NAME: a stored metric's value, of that run or of the
# label's latest run; imetric the same as a whole number (counts).
_metric() {  # _metric SQL-EXPRESSION RUN-ID|LABEL NAME
    case "$2" in
        *[!0-9]*|'') q "select $1 from metric m join run r on r.id = m.run_id where r.label = '$2' and m.name = '$3' order by r.id desc limit 1" ;;
        *) q "select $1 from metric where run_id = $2 and name = '$3'" ;;
    esac
}
metric() { _metric value "$@"; }
imetric() { _metric "cast(value as int)" "$@"; }
# setup DESCRIPTION COMMAND...: a step the tests after it need. It is a test
# line of its own; when it fails, the file ends there with that one failure
# (and the command's output), not with every test after it failing too.
setup() {
    local desc=$1; shift
    _n=$((_n + 1))
    if "$@" >"$TMP/setup.out" 2>&1; then
        echo "ok $_n - set-up: $desc"
    else
        diag "not ok $_n - set-up: $desc"
        local l
        while IFS= read -r l; do diag "#   $l"; done < <(head -20 "$TMP/setup.out")
        echo "1..$_n"
        exit 1
    fi
}
# The sanitised pass (make check, and make ci-test's sanitised prove) sets
# PRESSMARK_TEST_SANITIZED: what only exercises QEMU, dpkg or debootstrap
# runs once, on the plain build.
sanitized() { [ -n "${PRESSMARK_TEST_SANITIZED:-}" ]; }
# The kernels' tests (t80, t81): a tiny chat cell whose counts are exact
# (5 users x 50 messages sent, each delivered to the other 4 in the room),
# labelled by its kernel; and a name as a regular expression ('.' and '+'
# literal in it).
KERNEL_CHAT_CELL='[chat]
rooms = 1
users = 5
messages = 50
heap = 16M
label = {kernel}'
re() { printf '%s' "$1" | sed 's/[.+]/\\&/g'; }
# The tests that measure the whole machine (t21's balloon and t25's
# uncapped scan counts its memory, t19's nightly regression and t30's
# latency under a cap its speed, t10's bytes per tick) and what loads it
# from another lane (t80's VMs, t18's package build) never overlap: a lock
# on the tests' own directory, exclusive for the first, shared for the
# others (nothing is created for it).
quiet_machine() { exec 8<"$ROOT/tests" && flock -x 8 && machine_lane; }
beside_quiet_machine() { exec 8<"$ROOT/tests" && flock -s 8; }
# The machine lane: the tests that change this machine (caps, swap, knobs,
# tracefs, the package; every run makes a cgroup) run one at a time, each
# comparing the machine before and after. make's targets give them one
# lane of their prove and name the others (PM_FREE_TESTS); each holds this
# lock for its life besides, so that ./run.sh test's two proves (the plain
# build's and the sanitised one's, at once) never run two of them together.
# A test that measures the machine takes it after the quiet lock (waiting
# for t80's VMs, it holds nobody up); t18 when it installs its package.
machine_lane() { [ -z "${_lane_held:-}" ] || return 0; exec 7<"$ROOT/tests/lib.sh" && flock -x 7 && _lane_held=1; }
# The machine lane is make's long pole (its tests one at a time), and two
# cores are shared by five lanes at once: the tests beside it (and their
# QEMU) yield the CPU to it, at nice 10, and a machine test that a niced
# prove started (make ci-test's sanitised one) takes nice 0 back where it
# may (root).
if [ -n "${PM_FREE_TESTS:-}" ]; then
    case " $PM_FREE_TESTS " in
        *" tests/$(basename "$0") "*) renice -n 10 -p $$ > /dev/null 2>&1 ;;
        *) [ "$(nice)" -le 0 ] || renice -n 0 -p $$ > /dev/null 2>&1 ;;
    esac
    case " $PM_FREE_TESTS ${PM_QUIET_TESTS:-} " in
        *" tests/$(basename "$0") "*) ;;
        *) machine_lane ;;
    esac
fi
need_root() { [ "$(id -u)" -eq 0 ] || skip_all "needs root (caps, swap and sysctls are root-only)"; }
# memcg_hierarchy: where pressmark makes its cgroups on this machine, as
# --cap-method auto and a run's tracking cgroup choose (pressure/probe.c):
# the first cgroup2 mount whose cgroup.controllers lists memory (a stock
# systemd host's /sys/fs/cgroup), else the cgroup v1 memory controller's
# mount. Sets CG_ROOT to that mount point, CG_VERSION to 2 or 1 and
# CG_USAGE to the file of a cgroup's usage there (memory.current or
# memory.usage_in_bytes); returns 1, all empty, where there is neither.
memcg_hierarchy() {
    CG_ROOT='' CG_VERSION='' CG_USAGE=''
    local dir type opts
    while read -r _ dir type opts _; do
        if [ "$type" = cgroup2 ] && grep -qsw memory "$dir/cgroup.controllers"; then
            CG_ROOT=$dir CG_VERSION=2 CG_USAGE=memory.current
            return 0
        fi
        if [ "$type" = cgroup ] && [ -z "$CG_VERSION" ] && [[ ",$opts," == *,memory,* ]]; then
            CG_ROOT=$dir CG_VERSION=1 CG_USAGE=memory.usage_in_bytes
        fi
    done < /proc/self/mounts
    [ -n "$CG_VERSION" ]
}
# memcg_path [CGROUP-FILE]: the memory cgroup a /proc/PID/cgroup text
# (default: this shell's) names, in the hierarchy memcg_hierarchy found:
# v2's "0::PATH" line, v1's memory line.
memcg_path() {
    awk -F: -v v="$CG_VERSION" 'v == 2 && $1 == "0" && $2 == "" { print $3 }
        v == 1 && ("," $2 ",") ~ /,memory,/ { print $3 }' "${1:-/proc/self/cgroup}"
}
# vm_lane: the preamble of the tests that boot kernels in VMs (t80, t82,
# tests/slow/t82-bisect-vms.t). One at a time (a lock on kernels/: each
# compares what VMs leave, image builds and QEMU processes, and make
# ci-test's plain and sanitised proves both run them), beside the host's
# tests (make test's VM lane): a run lock and an undo journal of their
# own, and only what VMs leave to compare (the host's cgroups, swaps and
# knobs are the other lane's meanwhile); beside the tests that measure the
# machine, never during them (vm_lane noboot: a test that boots none, as
# a sanitised t80, or t82, holds those up not at all). Skips the file where QEMU,
# debootstrap or apt's 6.1 and 6.12 cloud kernels are missing; else works
# in $TMP with $k61 and $k612, the newest of each this machine's apt knows,
# and their releases $r61 and $r612.
vm_lane() {
    need_root
    export PRESSMARK_STATE_DIR="$TMP/state"
    mkdir -m 700 "$PRESSMARK_STATE_DIR"
    machine_state() { "$ROOT/tools/machine-state.sh" vm; }
    exec 6<"$ROOT/kernels" && flock -x 6
    [ "${1:-}" = noboot ] || beside_quiet_machine
    command -v qemu-system-x86_64 >/dev/null || skip_all "needs qemu-system-x86_64 (Debian's qemu-system-x86; run.sh installs it)"
    command -v debootstrap >/dev/null || skip_all "needs debootstrap (run.sh installs it)"
    cd "$TMP" || exit 1
    k61=$(apt-cache pkgnames linux-image-6.1.0- | grep -E '^linux-image-6\.1\.0-[0-9]+-cloud-amd64$' | sort -V | tail -1)
    k612=$(apt-cache pkgnames linux-image-6.12. | grep -E '^linux-image-6\.12\.[0-9]+\+deb12-cloud-amd64$' | sort -V | tail -1)
    [ -n "$k61" ] && [ -n "$k612" ] || skip_all "apt knows no Debian 6.1 and 6.12 cloud kernels (apt-get update)"
    r61=${k61#linux-image-} r612=${k612#linux-image-}
}

# nightly_label_wrap EVIL: $TMP/pm-wrap, a pressmark for
# PRESSMARK_NIGHTLY_PRESSMARK that notes its arguments in $TMP/pm-args and,
# after a suite run, gives the night's runs labels merge refuses (options,
# as a guest or a merge could have brought before labels were checked):
# '--baseline-db=EVIL' for the first two, '--help' for the rest (t19's).
nightly_label_wrap() {
    cat > "$TMP/pm-wrap" <<WRAP
#!/bin/sh
echo "\$*" >> "$TMP/pm-args"
"$PM" "\$@"; rc=\$?
case "\$*" in
    *"suite run"*) sqlite3 "\$2" "update run set label = '--baseline-db=$1' where label = 'sweep' and id < 3;
                                 update run set label = '--help' where label = 'sweep'" ;;
esac
exit \$rc
WRAP
    chmod +x "$TMP/pm-wrap"
}

# vm_debs: sets deb61 and deb612, package files of $k61 and $k612: the
# ones t80 downloaded into pressmark's cache, else apt's (apt-get
# download into $TMP; their images are cached alike, an image being keyed
# by the package file's name and size); empty when neither has them.
vm_debs() {
    deb61=$(ls /var/cache/pressmark/vm/debs/"${k61}"_*.deb 2>/dev/null | head -1)
    deb612=$(ls /var/cache/pressmark/vm/debs/"${k612}"_*.deb 2>/dev/null | head -1)
    [ -z "$deb61" ] || [ -z "$deb612" ] || return 0
    mkdir -p "$TMP/apt-debs" && (cd "$TMP/apt-debs" && apt-get download -q "$k61" "$k612" > download.log 2>&1)
    deb61=$(ls "$TMP"/apt-debs/"${k61}"_*.deb 2>/dev/null | head -1)
    deb612=$(ls "$TMP"/apt-debs/"${k612}"_*.deb 2>/dev/null | head -1)
}

# Everything a run may change on this machine, as one comparable text
# (tools/machine-state.sh: the benches take it too; t80, whose VMs run
# beside these tests, compares the VMs' side instead).
machine_state() { "$ROOT/tools/machine-state.sh" host; }
# stop_bg PID: end a server the test started in the background and wait
# until it has exited, so nothing writes into $TMP while it is removed.
stop_bg() { kill "$1" 2>/dev/null; wait "$1" 2>/dev/null; true; }
# fixture_copy NAME: a copy of tests/fixtures/NAME in TMP, its path. A
# WAL-mode fixture read in place gets -wal and -shm files in the tree,
# which t18 copies into its package's sources beside the machine's tests.
fixture_copy() { cp "$ROOT/tests/fixtures/$1" "$TMP/fixture-$1" && printf '%s\n' "$TMP/fixture-$1"; }
# dead_port: sets DEAD_PORT, a loopback port that refuses connections for
# the test's life (bound, never listening: no other test's server, in a
# lane beside this one, can take it meanwhile).
dead_port() {
    python3 -c 'import socket, time; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1], flush=True); time.sleep(86400)' \
        > "$TMP/dead.port" &
    cleanup_add "stop_bg $!"
    wait_for test -s "$TMP/dead.port" && DEAD_PORT=$(cat "$TMP/dead.port")
}
# busy_port: sets BUSY_PORT, a loopback port a process of the test listens
# on (for 60 s, or until stop_bg BUSY_PID), so a server told to take it
# finds it in use.
busy_port() {
    python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
print(s.getsockname()[1], flush=True); time.sleep(60)' > "$TMP/busy.port" &
    BUSY_PID=$!
    cleanup_add "kill $BUSY_PID"
    wait_for test -s "$TMP/busy.port" && BUSY_PORT=$(cat "$TMP/busy.port")
}
# free_port: a loopback TCP port nobody listens on now, for a test's server.
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# wait_for CMD...: poll up to 10 s for a condition.
wait_for() { local i; for i in $(seq 100); do "$@" && return 0; sleep 0.1; done; return 1; }
# tree_copy DIR: the tree's sources as git has them (the fuzz corpora
# aside) copied into DIR with their times, and the plain build's objects
# into DIR/build (every folder layering.txt names, and gen/), so that make
# in DIR rebuilds only what the copy then changes. Without a plain build
# (make check's own) the copy builds whole: slower, as real.
tree_copy() {
    local t=$1 obj=$ROOT/build d
    mkdir -p "$t/build" || return 1
    (cd "$ROOT" && git ls-files -z | grep -zv '^fuzz/corpus/' | xargs -0 cp --parents --preserve=timestamps -t "$t") 2>/dev/null
    [ -f "$obj/lib/err.o" ] || return 0
    for d in $(awk '/^[a-z]+:/ && $1 != "call:" && $1 != "cycle:" { sub(":", "", $1); print $1 }' "$ROOT/layering.txt") gen; do
        [ ! -d "$obj/$d" ] || cp -a "$obj/$d" "$t/build/" || return 1
    done
    cp -a "$obj/version.txt" "$t/build/" 2>/dev/null
    return 0
}
# recipe_files RECIPE: the number of files docs/guide/hacking.md's table of
# recipes says adding RECIPE ("a workload", "a metric") takes;
# recipe_names RECIPE: that row's "which files" cell (t04, t06 prove both).
_recipe_cell() {
    awk -F'|' -v r="$1" -v c="$2" '{ k = $2; gsub(/^ +| +$/, "", k) } k == r { v = $c; gsub(/^ +| +$/, "", v); print v }' \
        "$ROOT/docs/guide/hacking.md"
}
recipe_files() { _recipe_cell "$1" 3; }
recipe_names() { _recipe_cell "$1" 4; }
# apt_cache_memo: apt-cache, as the test and the pressmark it starts call
# it (by PATH), answers each question once for the test's life and repeats
# the answer after: the same lists give the same answer, and each call costs
# a second of CPU here (Docker's apt keeps no package cache to map, and
# parses its lists anew each time). Only for a test that changes neither
# apt's lists nor dpkg's status. An answer is kept whole or not at all
# (written aside, its status last), and never one of an apt-cache a signal
# ended; the key tells arguments apart whatever they hold.
apt_cache_memo() {
    local real; real=$(command -v apt-cache) || return 0
    # (called twice, the wrapper would find itself and call itself forever)
    case $real in /*) ;; *) return 1 ;; esac
    case $real in "$TMP/.apt-bin/"*) return 0 ;; esac
    mkdir -p "$TMP/.apt-memo" "$TMP/.apt-bin" || return 1
    cat > "$TMP/.apt-bin/apt-cache" <<SH
#!/bin/sh
# (tests/lib.sh apt_cache_memo) the answer of $real to these arguments, once
key=\$({ echo \$#; printf '%s\\0' "\$@"; } | md5sum | cut -d' ' -f1)
memo='$TMP/.apt-memo'/\$key
if [ ! -s "\$memo.rc" ]; then
    new=\$(mktemp -d '$TMP/.apt-memo/new.XXXXXX') || exit 1
    '$real' "\$@" > "\$new/out" 2> "\$new/err"
    rc=\$?
    if [ \$rc -ge 128 ]; then cat "\$new/out"; cat "\$new/err" >&2; rm -rf "\$new"; exit \$rc; fi
    echo \$rc > "\$new/rc"
    mv "\$new/out" "\$memo.out" && mv "\$new/err" "\$memo.err" && mv "\$new/rc" "\$memo.rc"
    rm -rf "\$new"
fi
cat "\$memo.out"; cat "\$memo.err" >&2
exit "\$(cat "\$memo.rc")"
SH
    chmod +x "$TMP/.apt-bin/apt-cache" && export PATH="$TMP/.apt-bin:$PATH"
}
