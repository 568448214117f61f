#!/bin/bash
# A LAVA lab in a box: LAVA 2023.01 from Debian 12's packages on this
# machine, with its own PostgreSQL cluster, one worker and one qemu device
# (TCG), plus the artifact store a job's guest uploads its results to.
#
#   tools/lava-lab.sh up DIR        bring the lab up; writes DIR/lab.env
#   tools/lava-lab.sh status DIR    what runs, what answers
#   tools/lava-lab.sh smoke DIR [IMAGE_DIR]
#                                   one job on qemu-01 with a pressmark guest
#                                   image (IMAGE_DIR: vmlinuz, initrd.img,
#                                   root.img; default: the newest of
#                                   /var/cache/pressmark/vm/kernel-*)
#   tools/lava-lab.sh guestfs DIR   libguestfs-test-tool with the worker's
#                                   environment (builds the appliance the
#                                   first job would)
#   tools/lava-lab.sh down DIR      stop and remove everything up made
#
# guestfs and smoke boot QEMU: on a shared machine run them under its lock.
# LAVA_LAB_STORE_BYTES caps what the artifact store holds in all (8 GiB).
#
# PID 1 here is not systemd, so no unit is started: each service runs the
# command line of its unit under /lib/systemd/system, as a background
# process of its own session with a pid file in DIR/run and a log in
# DIR/logs. Everything the lab owns lives in DIR, except what LAVA or
# PostgreSQL only read from fixed places: the cluster 15/pmlava (port
# 5439) and /etc/lava-server/dispatcher.d/pressmark-lab/ (the worker's
# environment). One lab per machine. Run as root.
#
# Root writes in DIR and removes it, so DIR and every directory above it
# must be root's and writable by root only (/tmp, sticky, may be a
# parent); up makes a missing DIR with mode 0700. No secret (password,
# token) ever goes on a command line, where ps shows it to any user:
# curl reads the token's header from DIR/state/auth.header, the Django
# shell reads secrets from stdin. What the server or a guest said is
# printed through visible().
#
# The artifact store (tools/lava-lab/artifacts.py) is not root's: it
# drops to the system user pmlab-store (made by up when missing, removed
# by down when up made it), which owns DIR/artifacts and nothing else. A
# PUT needs a token: DIR/artifacts.token (root's, 0600; lab.env's
# ARTIFACTS_TOKEN_FILE, for pressmark's suite) writes any name; the
# guest's token writes only results (pressmark/results-*.tar, smoke/*)
# and reaches a guest by the device, never by a job: the qemu device has
# a read-only disk, serial pressmark-token, whose first line is the token
# (DIR/state/guest-token.img). A job's definition and its job archive are
# public (LAVA shows the first to its users, the store serves the second
# to anyone who has its URL): neither holds a token.
set -euo pipefail

# What the lab needs from Debian 12 (installed by `up` when missing).
PACKAGES=(
    lava-server          # the server: Django app (gunicorn), scheduler
    lava-dispatcher      # lava-worker and lava-run
    lavacli              # the command-line client (XML-RPC)
    python3-guestfs      # LAVA's qemu deploy builds its overlay disk with it
    libguestfs-tools     # libguestfs-test-tool, to check the appliance
    postgresql           # the database (a cluster of the lab's own)
    qemu-system-x86      # the device
    qemu-utils           # qemu-img: the smoke job's rootfs as qcow2
    curl                 # REST calls and PUTs of the smoke
)

LAB_WORKER=pressmark-lab
LAB_USER=labadmin
DEVICE_TYPE=qemu
DEVICE=qemu-01
PG_VERSION=15
PG_CLUSTER=pmlava
PG_PORT=5439
PG_DB=lavaserver
PG_ROLE=lavaserver
# The server only reads a worker's environment from here (lava_server/files.py);
# dispatcher.d is lavaserver's (tools/lava-lab/put-conf.py writes in it).
WORKER_CONF_PARENT=/etc/lava-server/dispatcher.d
WORKER_CONF=$WORKER_CONF_PARENT/$LAB_WORKER
PG_CONF=/etc/postgresql/$PG_VERSION/$PG_CLUSTER
PG_DATA=/var/lib/postgresql/$PG_VERSION/$PG_CLUSTER
LAVA_DISPATCHER_TMP=/var/lib/lava/dispatcher/tmp
# The artifact store's cap on one upload: pressmark publishes a job's
# images through it too (a guest root as qcow2 is ~450 MiB); and on all it
# holds (a kernel's images and a night of results are ~1 GiB).
ARTIFACTS_MAX_BYTES=$((1024 << 20))
ARTIFACTS_MAX_TOTAL_BYTES=${LAVA_LAB_STORE_BYTES:-$((8 << 30))}
# Whom the store runs as, and the names its guest token may write.
STORE_USER=pmlab-store
GUEST_NAMES=('pressmark/results-*.tar' 'smoke/*')
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

say() { printf 'lava-lab: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

# Text from the server or a guest, its control characters shown (^[ for
# ESC, M- for bytes past ASCII), never sent to the terminal as they are.
visible() { LC_ALL=C cat -v; }

usage() {
    sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -n '/^#   /p' | sed 's/^# //' >&2
    exit 2
}

# DIR must be a plain path: it goes unquoted into lab.env, YAML and URLs.
lab_dir() {
    [ -n "${1:-}" ] || usage
    case "$1" in
        /*) ;;
        *) set -- "$PWD/$1" ;;
    esac
    [[ "$1" =~ ^[A-Za-z0-9._/-]+$ ]] || die "$1: DIR may hold only [A-Za-z0-9._/-]"
    D=$(realpath -m "$1")
    [ "$D" != / ] || die "DIR cannot be /"
    safe_dir
}

# DIR, when it exists, and each directory above it: root's, a directory
# (not a link), writable by no one else; /tmp, root's and sticky, only as
# a parent. Whoever could rename or replace one of them could turn root's
# writes and rm -rf in DIR to somewhere else.
safe_dir() {
    local p=$D owner mode
    while :; do
        if [ -e "$p" ] || [ -L "$p" ]; then
            { [ -d "$p" ] && [ ! -L "$p" ]; } || die "$p: not a directory"
            read -r owner mode < <(stat -c '%u %a' "$p")
            if [ "$p" = /tmp ] && [ "$p" != "$D" ] && [ "$owner" = 0 ] && ((8#$mode & 01000)); then
                :
            elif [ "$owner" != 0 ] || ((8#$mode & 022)); then
                die "$p: owned by uid $owner, mode $mode: DIR and the directories above it must be root's and writable by root only"
            fi
        fi
        [ "$p" != / ] || break
        p=$(dirname "$p")
    done
}

# A lab's DIR carries this marker; down empties only such a directory.
is_lab() { [ -f "$D/.lava-lab" ]; }

now() { date +%s; }

# ---- processes -----------------------------------------------------------

# start NAME CMD...: CMD as the leader of a new session (so that its
# children, lava-run and QEMU among them, can be found and stopped with
# it), stdin from /dev/null, output to DIR/logs/NAME.out; its pid, start
# time and command line (to tell it from a later process of the same pid)
# in DIR/run/NAME.pid, once the forked shell and setsid have exec'd CMD.
start() {
    local name=$1 pid i
    shift
    setsid "$@" < /dev/null >> "$D/logs/$name.out" 2>&1 &
    pid=$!
    for ((i = 0; i < 50; i++)); do
        case "$(readlink "/proc/$pid/exe" 2> /dev/null || true)" in
            /usr/bin/bash | /usr/bin/setsid) sleep 0.1 ;;
            *) break ;;
        esac
    done
    record "$name" "$pid"
}

# record NAME PID: what alive and stop check PID against.
record() { echo "$2 $(starttime "$2") $(cmdline_sum "$2")" > "$D/run/$1.pid"; }

# record_again NAME: its command line anew, when it is still the process
# start recorded (the same pid and start time).
record_again() {
    local pid st
    read -r pid st _ < "$D/run/$1.pid" || return 0
    if [[ "$pid" =~ ^[1-9][0-9]*$ ]] && [ "$(starttime "$pid")" = "$st" ]; then record "$1" "$pid"; fi
}

# Its start time (field 22 of /proc/PID/stat), "" when gone or a zombie.
starttime() { awk '{ sub(/.*\) /, ""); if ($1 != "Z") print $20 }' "/proc/$1/stat" 2> /dev/null || true; }

# The SHA-256 of its command line, "" when gone.
cmdline_sum() {
    local c
    c=$(sha256sum < "/proc/$1/cmdline" 2> /dev/null) || return 0
    echo "${c%% *}"
}

# DIR/run holds the pid files down kills by: only root can have written
# them when it is root's with mode 0700.
run_dir_ok() { [ -d "$D/run" ] && [ ! -L "$D/run" ] && [ "$(stat -c '%u %a' "$D/run")" = "0 700" ]; }

# The pid of NAME when it still runs (the same process as started: pid >
# 1, start time and command line as recorded), else "".
alive() {
    local f=$D/run/$1.pid pid st sum
    { run_dir_ok && [ -f "$f" ] && [ ! -L "$f" ]; } || return 0
    read -r pid st sum < "$f" || return 0
    [[ "$pid" =~ ^[1-9][0-9]*$ && "$pid" -gt 1 && "$st" =~ ^[0-9]+$ && -n "$sum" ]] || return 0
    if [ "$(starttime "$pid")" = "$st" ] && [ "$(cmdline_sum "$pid")" = "$sum" ]; then echo "$pid"; fi
    return 0
}

# Every process of the session NAME leads, and their descendants.
session_pids() {
    local sid=$1
    ps -e -o pid=,sid=,ppid= | awk -v s="$sid" '
        { pid[NR] = $1; sid[NR] = $2; ppid[NR] = $3 }
        END {
            in_[s] = 1
            do {
                more = 0
                for (i = 1; i <= NR; i++)
                    if (!(pid[i] in in_) && (sid[i] == s || ppid[i] in in_)) { in_[pid[i]] = 1; more = 1 }
            } while (more)
            for (p in in_) print p
        }'
}

# stop NAME [GRACE]: SIGTERM to its whole session, SIGKILL after GRACE s,
# when its leader is still the process start recorded (alive). A pid that
# is now another process's is left alone, and so are the members of a
# session whose leader died alone: nothing proves they are the lab's
# (their pids are named for whoever stops them by hand).
stop() {
    local name=$1 grace=${2:-20} f=$D/run/$1.pid pid left pids i
    [ -f "$f" ] || return 0
    pid=$(alive "$name")
    if [ -z "$pid" ]; then
        read -r pid _ < "$f" || true
        if [[ "$pid" =~ ^[1-9][0-9]*$ && "$pid" -gt 1 ]]; then
            left=$(ps -e -o pid=,sid= | awk -v s="$pid" '$2 == s { printf " %s", $1 }')
            [ -z "$left" ] || say "$name: $pid is not the process up started (or is gone): its session left alone:$left"
        fi
    else
        pids=$(session_pids "$pid")
        # shellcheck disable=SC2086
        kill -TERM $pids 2> /dev/null || true
        for ((i = 0; i < grace * 5; i++)); do
            # shellcheck disable=SC2086
            kill -0 $pids 2> /dev/null || break
            sleep 0.2
        done
        # shellcheck disable=SC2086
        kill -KILL $pids 2> /dev/null || true
        say "stopped $name (session $pid)"
    fi
    rm -f "$f"
}

# wait_for WHAT SECONDS CMD...: until CMD succeeds; dies after SECONDS.
wait_for() {
    local what=$1 secs=$2 t0
    shift 2
    t0=$(now)
    until "$@" > /dev/null 2>&1; do
        [ $(($(now) - t0)) -lt "$secs" ] || die "$what: not ready after $secs s (logs in $D/logs)"
        sleep 1
    done
}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

port_free() { ! ss -Hltn "sport = :$1" | grep -q .; }

# ---- the server's configuration ------------------------------------------

# LAVA's settings (lava_server/settings/prod.py) take LAVA_JSON_SETTINGS
# last, after /etc/lava-server: the lab's database, paths and secret come
# from DIR without touching the package's configuration.
server_env() {
    export LAVA_JSON_SETTINGS
    LAVA_JSON_SETTINGS=$(base64 -w0 "$D/state/settings.json")
    export DJANGO_SETTINGS_MODULE=lava_server.settings.prod
}

manage() { (server_env && lava-server manage "$@"); }

# (python reads the secrets from their files: not on its command line.)
write_settings() {
    (umask 077 && python3 - "$D" "$PG_PORT" > "$D/state/settings.json") << 'EOF'
import json, sys
d, port = sys.argv[1:]
pw = open(d + "/state/db.password").read().strip()
secret = open(d + "/state/secret.key").read().strip()
json.dump({
    "DATABASES": {"default": {
        "ENGINE": "django.db.backends.postgresql", "NAME": "lavaserver",
        "USER": "lavaserver", "PASSWORD": pw, "HOST": "127.0.0.1", "PORT": int(port)}},
    "SECRET_KEY": secret,
    "INSTANCE_NAME": "pressmark-lab",
    "MEDIA_ROOT": d + "/media/",
    "DEVICES_PATH": d + "/devices",
    "HEALTH_CHECKS_PATH": d + "/health-checks",
    "DJANGO_LOGFILE": d + "/logs/django.log",
    # Plain HTTP on loopback: a person logs in to the web UI without TLS.
    "SESSION_COOKIE_SECURE": False,
    "CSRF_COOKIE_SECURE": False,
    "ALLOWED_HOSTS": ["127.0.0.1", "localhost", "[::1]"],
}, sys.stdout, indent=1)
EOF
}

# The device: the qemu type in TCG (nested KVM fails here), the overlay
# disk on virtio, 1 GiB and 2 CPUs unless the job's context says otherwise
# (context: memory, extra_options: ['-smp N']), and, whatever the job
# says, the guest token's disk (read-only; QEMU, root's, reads the file,
# so the job's log and the device's page show its path only).
write_device() {
    cat > "$D/devices/$DEVICE.jinja2" << EOF
{% extends 'qemu.jinja2' %}
{% set no_kvm = True %}
{% set memory = memory | default(1024) %}
{% set extra_options = (extra_options | default(['-smp 2'])) + ['-drive format=raw,if=none,readonly=on,id=pmtoken,file=$D/state/guest-token.img', '-device virtio-blk-pci,drive=pmtoken,serial=pressmark-token'] %}
{% set guestfs_interface = guestfs_interface | default('virtio') %}
EOF
}

# ---- the artifact store ----------------------------------------------------

# STORE_USER: made here as a system user without a login when missing
# (DIR/state/store-user says so, for down); one that exists must be a
# system user without a login too, or a person's account would own the
# store.
store_user() {
    local uid shell ok=
    if ! getent passwd "$STORE_USER" > /dev/null; then
        useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin \
            "$STORE_USER" || die "useradd $STORE_USER failed"
        id -u "$STORE_USER" > "$D/state/store-user"
    fi
    IFS=: read -r _ _ uid _ _ _ shell < <(getent passwd "$STORE_USER")
    if [[ "$uid" =~ ^[0-9]+$ ]] && ((uid > 0 && uid < 1000)); then
        case "$shell" in */nologin | */false) ok=1 ;; esac
    fi
    [ -n "$ok" ] || die "user $STORE_USER: uid $uid, shell $shell: the store runs only as a system user (uid 1-999) without a login"
}

# The store's tokens: DIR/artifacts.token for any name (pressmark's),
# DIR/state/guest.token for results, and the latter as the guest's disk
# (a first line, padded to whole sectors: a disk is read by the sector).
store_tokens() {
    (
        umask 077
        [ -s "$D/artifacts.token" ] || python3 -c 'import secrets; print(secrets.token_hex(32))' > "$D/artifacts.token"
        [ -s "$D/state/guest.token" ] || python3 -c 'import secrets; print(secrets.token_hex(32))' > "$D/state/guest.token"
        [ -s "$D/state/artifacts.header" ] ||
            printf 'Authorization: Bearer %s\n' "$(cat "$D/artifacts.token")" > "$D/state/artifacts.header"
        cp "$D/state/guest.token" "$D/state/guest-token.img"
        truncate -s 4096 "$D/state/guest-token.img"
    )
    chmod 600 "$D/artifacts.token" "$D/state/guest.token" "$D/state/artifacts.header" "$D/state/guest-token.img"
}

# The store, as STORE_USER, in DIR/artifacts (its own: the store writes
# nothing else); its port the one of a previous attempt when free.
start_store() {
    local aport
    store_user
    store_tokens
    chown -h "$STORE_USER:$STORE_USER" "$D/artifacts"
    chmod 755 "$D/artifacts"
    aport=$(read_port "$D/state/artifacts.port")
    if [ -z "$aport" ] || ! port_free "$aport"; then aport=0; fi
    rm -f "$D/run/artifacts.port"
    # (Debian's python3, as its #! says: a wrapper of a PATH's python3,
    # pyenv's, would be what start recorded.)
    start artifacts /usr/bin/python3 "$HERE/lava-lab/artifacts.py" --root "$D/artifacts" --user "$STORE_USER" \
        --token-file "$D/artifacts.token" --guest-token-file "$D/state/guest.token" --guest-names "${GUEST_NAMES[@]}" \
        --bind 127.0.0.1 --port "$aport" --port-file "$D/run/artifacts.port" \
        --max-bytes "$ARTIFACTS_MAX_BYTES" --max-total-bytes "$ARTIFACTS_MAX_TOTAL_BYTES"
    wait_for "the artifact store" 20 test -s "$D/run/artifacts.port"
    aport=$(read_port "$D/run/artifacts.port")
    [ -n "$aport" ] || die "the artifact store wrote no port to $D/run/artifacts.port"
    echo "$aport" > "$D/state/artifacts.port"
    ARTIFACTS_PORT=$aport
}

# remove_store_user UID: the user up made (UID, from DIR/state/store-user;
# "" when up found it), when it still has that uid.
remove_store_user() {
    local made=$1
    [ -n "$made" ] && [ "$(id -u "$STORE_USER" 2> /dev/null)" = "$made" ] || return 0
    if userdel "$STORE_USER" > /dev/null 2>&1; then
        say "removed user $STORE_USER"
    else
        say "user $STORE_USER: userdel failed (a process of it still runs?): left"
    fi
}

# ---- libguestfs's kernel -------------------------------------------------

# /boot is empty here, and supermin builds libguestfs's appliance around a
# kernel: a Debian cloud kernel, unpacked into DIR/kernel (pressmark's
# cached package when there is one, else the one apt has).
kernel_for_guestfs() {
    local deb rel
    if ! ls "$D"/kernel/boot/vmlinuz-* > /dev/null 2>&1; then
        rm -rf "$D/kernel" && mkdir -p "$D/kernel"
        deb=$(ls /var/cache/pressmark/vm/debs/linux-image-*-cloud-amd64_*.deb 2> /dev/null | sort -V | tail -1 || true)
        if [ -z "$deb" ]; then
            local pkg
            pkg=$(apt-cache depends linux-image-cloud-amd64 | awk '/Depends: linux-image-/ { print $2; exit }')
            [ -n "$pkg" ] || die "no linux-image-cloud-amd64 in apt's lists (apt-get update?)"
            (cd "$D/kernel" && apt-get download "$pkg" > /dev/null) || die "apt-get download $pkg failed"
            deb=$(ls "$D"/kernel/*.deb)
        fi
        say "libguestfs's kernel: $(basename "$deb")"
        dpkg-deb -x "$deb" "$D/kernel"
        rm -f "$D"/kernel/*.deb
        rel=$(basename "$(ls -d "$D"/kernel/lib/modules/*)")
        # The package's modules.dep is made by its postinst, which never ran.
        depmod -b "$D/kernel" "$rel"
    fi
    KREL=$(basename "$(ls -d "$D"/kernel/lib/modules/*)")
}

# The environment of the worker's lava-run (LAVA purges the rest):
# libguestfs direct, in TCG, with the kernel above, its cache in DIR.
# Written to DIR/state/env.yaml (what guestfs reads), then into
# WORKER_CONF by put-conf.py: WORKER_CONF's parent is lavaserver's, so a
# check of the path and a write through it would race that user (a link
# or another's directory put there between them). DIR/state/worker-conf
# says down may remove WORKER_CONF (put-conf.py --remove, which leaves a
# directory not root's alone).
write_worker_env() {
    mkdir -p "$D/guestfs-cache" "$D/tmp"
    cat > "$D/state/env.yaml" << EOF
# Written by pressmark's tools/lava-lab.sh for the lab in $D; removed by its down.
purge: true
overrides:
  LC_ALL: C.UTF-8
  LANG: C
  PATH: /usr/local/bin:/usr/local/sbin:/bin:/usr/bin:/usr/sbin:/sbin
  LIBGUESTFS_BACKEND: direct
  LIBGUESTFS_BACKEND_SETTINGS: force_tcg
  LIBGUESTFS_CACHEDIR: $D/guestfs-cache
  TMPDIR: $D/tmp
  SUPERMIN_KERNEL: $D/kernel/boot/vmlinuz-$KREL
  SUPERMIN_MODULES: $D/kernel/lib/modules/$KREL
  SUPERMIN_KERNEL_VERSION: $KREL
EOF
    echo "$WORKER_CONF" > "$D/state/worker-conf"
    # (/etc/lava-server is root's: dispatcher.d made here when missing is too.)
    mkdir -p "$WORKER_CONF_PARENT"
    /usr/bin/python3 "$HERE/lava-lab/put-conf.py" "$WORKER_CONF_PARENT" "$LAB_WORKER" env.yaml < "$D/state/env.yaml" ||
        die "$WORKER_CONF/env.yaml: not written"
}

# ---- PostgreSQL ----------------------------------------------------------

cluster_exists() { [ -d "$PG_CONF" ]; }

# The lab's mark on its cluster is DIR/state/pg-cluster (root's; PG_CONF
# is postgres's, where root neither reads nor writes a mark): the system
# identifier initdb gave the cluster, so a later cluster of the same name
# is not taken for it.
cluster_id() { "/usr/lib/postgresql/$PG_VERSION/bin/pg_controldata" "$PG_DATA" 2> /dev/null | awk -F': *' '/^Database system identifier/ { print $2 }'; }
cluster_ours() { [ -s "$D/state/pg-cluster" ] && [ "$(cat "$D/state/pg-cluster")" = "$(cluster_id)" ]; }

cluster_up() {
    local pw
    if cluster_exists; then
        cluster_ours || die "cluster $PG_VERSION/$PG_CLUSTER is not this lab's (no match in $D/state/pg-cluster): down its lab first"
    else
        port_free "$PG_PORT" || die "port $PG_PORT is taken: the lab's cluster needs it"
        say "creating PostgreSQL cluster $PG_VERSION/$PG_CLUSTER on port $PG_PORT"
        pg_createcluster "$PG_VERSION" "$PG_CLUSTER" --port "$PG_PORT" --start-conf manual \
            -- --auth-local=peer --auth-host=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 > "$D/logs/pg_createcluster.out" 2>&1 ||
            die "pg_createcluster failed: $D/logs/pg_createcluster.out"
        cluster_id > "$D/state/pg-cluster"
        [ -s "$D/state/pg-cluster" ] || die "no system identifier from pg_controldata $PG_DATA"
    fi
    pg_ctlcluster "$PG_VERSION" "$PG_CLUSTER" status > /dev/null 2>&1 ||
        pg_ctlcluster "$PG_VERSION" "$PG_CLUSTER" start > "$D/logs/pg_ctlcluster.out" 2>&1 ||
        die "the cluster did not start: $D/logs/pg_ctlcluster.out"
    wait_for "PostgreSQL" 30 pg_isready -q -h 127.0.0.1 -p "$PG_PORT"
    pw=$(cat "$D/state/db.password")
    runuser -u postgres -- psql -q -v ON_ERROR_STOP=1 -p "$PG_PORT" > /dev/null << EOF
SELECT 'CREATE ROLE $PG_ROLE LOGIN' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$PG_ROLE')\\gexec
ALTER ROLE $PG_ROLE PASSWORD '$pw';
SELECT 'CREATE DATABASE $PG_DB OWNER $PG_ROLE ENCODING ''UTF8'' LC_COLLATE ''C.UTF-8'' LC_CTYPE ''C.UTF-8'' TEMPLATE template0'
 WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = '$PG_DB')\\gexec
EOF
}

cluster_drop() {
    cluster_exists || return 0
    if ! cluster_ours; then
        say "cluster $PG_VERSION/$PG_CLUSTER is not this lab's (no match in $D/state/pg-cluster): left alone"
        return 0
    fi
    pg_dropcluster --stop "$PG_VERSION" "$PG_CLUSTER" > /dev/null 2>&1 || die "pg_dropcluster $PG_VERSION $PG_CLUSTER failed"
    rm -f "/var/log/postgresql/postgresql-$PG_VERSION-$PG_CLUSTER.log"
    ! cluster_exists || die "$PG_CONF is still there after pg_dropcluster"
    say "dropped cluster $PG_VERSION/$PG_CLUSTER"
}

# ---- up ------------------------------------------------------------------

install_packages() {
    local missing=() p
    for p in "${PACKAGES[@]}"; do
        dpkg-query -W -f '${Status}' "$p" 2> /dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    [ ${#missing[@]} -gt 0 ] || return 0
    say "installing ${missing[*]}"
    # Another apt may hold dpkg's lock: wait for it rather than fail.
    export DEBIAN_FRONTEND=noninteractive
    apt-get -o DPkg::Lock::Timeout=900 update -q > "$D/logs/apt.out" 2>&1 || true
    apt-get -o DPkg::Lock::Timeout=900 install -y -q --no-install-recommends "${PACKAGES[@]}" >> "$D/logs/apt.out" 2>&1 ||
        die "apt-get install failed: $D/logs/apt.out"
}

# lab.env is for tests to source; this script never does: it takes the
# keys it needs, each only in the form up writes it (else "").
lab_env() {
    local k v
    LAVA_URL='' ARTIFACTS_URL='' ARTIFACTS_HOST_URL=''
    [ -f "$D/lab.env" ] || return 1
    while IFS='=' read -r k v; do
        case "$k" in
            LAVA_URL) if [[ "$v" =~ ^http://127\.0\.0\.1:[0-9]+/$ ]]; then LAVA_URL=$v; fi ;;
            ARTIFACTS_URL) if [[ "$v" =~ ^http://10\.0\.2\.2:[0-9]+$ ]]; then ARTIFACTS_URL=$v; fi ;;
            ARTIFACTS_HOST_URL) if [[ "$v" =~ ^http://127\.0\.0\.1:[0-9]+$ ]]; then ARTIFACTS_HOST_URL=$v; fi ;;
        esac
    done < "$D/lab.env"
    [ -n "$LAVA_URL" ] && [ -n "$ARTIFACTS_URL" ] && [ -n "$ARTIFACTS_HOST_URL" ]
}

# A port number as this script writes one to DIR/state or artifacts.py to
# DIR/run (else "").
read_port() {
    local p
    p=$(cat "$1" 2> /dev/null || true)
    if [[ "$p" =~ ^[1-9][0-9]{0,4}$ ]]; then echo "$p"; fi
}

lab_healthy() {
    lab_env || return 1
    local n
    for n in gunicorn scheduler worker artifacts; do
        [ -n "$(alive $n)" ] || return 1
    done
    curl -sf "${LAVA_URL}api/v0.2/system/version/" > /dev/null
}

cmd_up() {
    local t0 port aport version
    t0=$(now)
    [ "$(id -u)" -eq 0 ] || die "up needs root (packages, PostgreSQL, QEMU)"
    if ! [[ "$ARTIFACTS_MAX_TOTAL_BYTES" =~ ^[1-9][0-9]{0,17}$ ]] || ((ARTIFACTS_MAX_TOTAL_BYTES < 1 << 20)); then
        say "LAVA_LAB_STORE_BYTES=$(visible <<< "$ARTIFACTS_MAX_TOTAL_BYTES"): accepted: a number of bytes, at least $((1 << 20))"
        exit 2
    fi
    if [ -e "$D" ] && ! is_lab; then
        [ -z "$(ls -A "$D")" ] || die "$D exists and is not an empty directory nor a lab's"
    fi
    if is_lab && lab_healthy; then
        say "the lab in $D is up already"
        cat "$D/lab.env"
        return 0
    fi
    if is_lab; then
        say "the lab in $D is half up: stopping what runs, starting again"
        stop_services
    else
        if [ ! -e "$D" ]; then
            # DIR itself 0700 (mkdir fails when someone made it meanwhile);
            # a parent made meanwhile by another user is caught by safe_dir.
            mkdir -p "$(dirname "$D")"
            mkdir -m 700 "$D"
            safe_dir
        fi
        echo "created by tools/lava-lab.sh up" > "$D/.lava-lab"
    fi
    mkdir -p "$D/logs" "$D/media" "$D/devices" "$D/health-checks" "$D/worker" "$D/artifacts"
    (umask 077 && mkdir -p "$D/state" "$D/run")
    chmod 700 "$D/state" "$D/run"

    install_packages

    # Secrets, made once per DIR and kept across a rerun.
    (
        umask 077
        [ -s "$D/state/db.password" ] || python3 -c 'import secrets; print(secrets.token_hex(24))' > "$D/state/db.password"
        [ -s "$D/state/secret.key" ] || python3 -c 'import secrets; print(secrets.token_urlsafe(48))' > "$D/state/secret.key"
        [ -s "$D/state/admin.password" ] || python3 -c 'import secrets; print(secrets.token_urlsafe(12))' > "$D/state/admin.password"
        [ -s "$D/token" ] || python3 -c 'import secrets; print(secrets.token_hex(32))' > "$D/token"
        # The token as curl's header, read by curl -H @FILE.
        [ -s "$D/state/auth.header" ] || printf 'Authorization: Token %s\n' "$(cat "$D/token")" > "$D/state/auth.header"
    )
    chmod 600 "$D/token" "$D/state/auth.header"

    # What the dispatcher's own directories held before (down removes
    # what a killed job leaves there, nothing else).
    [ -f "$D/state/dispatcher-tmp.before" ] || ls -A "$LAVA_DISPATCHER_TMP" > "$D/state/dispatcher-tmp.before" 2> /dev/null || true

    cluster_up
    write_settings
    write_device
    kernel_for_guestfs
    write_worker_env

    say "migrating the database"
    manage migrate --noinput > "$D/logs/migrate.out" 2>&1 || die "migrate failed: $D/logs/migrate.out"

    # The web port: the one of a previous attempt when free, else any.
    port=$(read_port "$D/state/port")
    if [ -z "$port" ] || ! port_free "$port"; then
        port=$(free_port)
        echo "$port" > "$D/state/port"
    fi
    LAVA_URL=http://127.0.0.1:$port/

    # lava-server-gunicorn.service, as root: DIR (its media, its logs) may
    # be private to root; it listens on loopback only.
    # (The settings go through the environment, not the command line,
    # where ps would show the database's password.)
    (server_env && start gunicorn gunicorn3 lava_server.wsgi --log-level INFO --log-file "$D/logs/gunicorn.log" \
        --worker-class eventlet --workers 2 --bind "127.0.0.1:$port")
    wait_for "the web server" 60 curl -sf "${LAVA_URL}api/v0.2/system/version/"
    # Its master has retitled itself ("gunicorn: master [...]") by now.
    record_again gunicorn

    # The lab's objects: its admin and token, the device type, the worker,
    # the device (each only when missing: a rerun finds them). The admin
    # and token as `manage users add` and `tokens add` make them, but
    # their secrets on the Django shell's stdin, not on a command line.
    cat "$D/state/admin.password" "$D/token" | manage shell -c '
import sys
from django.contrib.auth.models import User
from linaro_django_xmlrpc.models import AuthToken
password, token = sys.stdin.read().split()
user = User.objects.filter(username="'"$LAB_USER"'").first()
if user is None:
    user = User.objects.create_user("'"$LAB_USER"'", "'"$LAB_USER"'@localhost", password)
    user.is_staff = user.is_superuser = True
    user.save()
if not AuthToken.objects.filter(user=user, secret=token).exists():
    AuthToken.objects.create(user=user, secret=token, description="pressmark-lab")
' > "$D/logs/admin.out" 2>&1 || die "the admin or its token failed: $D/logs/admin.out"
    manage device-types details "$DEVICE_TYPE" > /dev/null 2>&1 || manage device-types add "$DEVICE_TYPE" > /dev/null
    manage workers details "$LAB_WORKER" > /dev/null 2>&1 || manage workers add "$LAB_WORKER" --description "pressmark's lab in $D" > /dev/null
    manage devices details "$DEVICE" > /dev/null 2>&1 ||
        manage devices add "$DEVICE" --device-type "$DEVICE_TYPE" --worker "$LAB_WORKER" --description "QEMU (TCG) on this machine" > /dev/null
    # No health check is defined: the device is good as it is.
    manage devices update "$DEVICE" --health GOOD > /dev/null
    (umask 077 && manage workers details "$LAB_WORKER" | awk '/^token/ { print $3 }' > "$D/state/worker.token")
    [ -s "$D/state/worker.token" ] || die "no token for worker $LAB_WORKER"

    # lava-scheduler.service. Its unit drops it to lavaserver, which could
    # not reach its log in a DIR private to root (a test's): it stays root,
    # as gunicorn does, and listens nowhere.
    (server_env && start scheduler lava-server manage lava-scheduler --level INFO --user root --group root \
        --log-file "$D/logs/lava-scheduler.log")

    # lava-worker.service, its state in DIR/worker; a ping every 5 s picks a
    # job up soon (no lava-publisher: its events only shorten that wait).
    start worker lava-worker --level DEBUG --url "$LAVA_URL" --name "$LAB_WORKER" \
        --worker-dir "$D/worker" --token-file "$D/state/worker.token" \
        --log-file "$D/logs/lava-worker.log" --ping-interval 5

    start_store
    aport=$ARTIFACTS_PORT

    wait_for "worker $LAB_WORKER online" 60 worker_online

    # What goes into lab.env from the server is checked first.
    version=$(curl -sf "${LAVA_URL}api/v0.2/system/version/" | python3 -c 'import json, sys; print(json.load(sys.stdin)["version"])')
    [[ "$version" =~ ^[0-9][0-9.]*$ ]] || die "the server's version is not one: $(visible <<< "$version")"

    {
        echo "# The LAVA lab of tools/lava-lab.sh (down: tools/lava-lab.sh down $D)"
        echo "LAVA_URL=$LAVA_URL"
        echo "LAVA_USER=$LAB_USER"
        echo "LAVA_TOKEN_FILE=$D/token"
        echo "LAVA_PASSWORD_FILE=$D/state/admin.password"
        echo "LAVA_VERSION=$version"
        echo "LAVA_DEVICE_TYPE=$DEVICE_TYPE"
        echo "LAVA_DEVICE=$DEVICE"
        echo "LAVA_WORKER=$LAB_WORKER"
        echo "ARTIFACTS_URL=http://10.0.2.2:$aport"
        echo "ARTIFACTS_HOST_URL=http://127.0.0.1:$aport"
        echo "ARTIFACTS_DIR=$D/artifacts"
        echo "ARTIFACTS_TOKEN_FILE=$D/artifacts.token"
        echo "ARTIFACTS_MAX_BYTES=$ARTIFACTS_MAX_BYTES"
        echo "ARTIFACTS_MAX_TOTAL_BYTES=$ARTIFACTS_MAX_TOTAL_BYTES"
        echo "LAB_DIR=$D"
    } > "$D/lab.env.tmp"
    mv "$D/lab.env.tmp" "$D/lab.env"
    say "up in $(($(now) - t0)) s"
    cat "$D/lab.env"
}

worker_online() {
    curl -sf -H @"$D/state/auth.header" "${LAVA_URL}api/v0.2/workers/$LAB_WORKER/" |
        python3 -c 'import json, sys; sys.exit(json.load(sys.stdin)["state"] != "Online")'
}

# ---- down ----------------------------------------------------------------

stop_services() {
    [ ! -e "$D/run" ] || run_dir_ok || die "$D/run is not root's with mode 0700: its pid files are not trusted (nothing stopped)"
    # The worker first, with the lava-run and QEMU processes of its jobs.
    stop worker 30
    stop scheduler
    stop gunicorn
    stop artifacts 5
}

cmd_down() {
    local t0 before e made_user
    t0=$(now)
    if [ -e "$D" ] && ! is_lab; then
        die "$D is not a lab's directory (no $D/.lava-lab): nothing done"
    fi
    if is_lab; then
        stop_services
    fi
    cluster_drop
    if [ -f "$D/state/worker-conf" ]; then
        /usr/bin/python3 "$HERE/lava-lab/put-conf.py" --remove "$WORKER_CONF_PARENT" "$LAB_WORKER" env.yaml ||
            say "$WORKER_CONF: left there"
    fi
    # What a job killed mid-way left in the dispatcher's download directory.
    if [ -f "$D/state/dispatcher-tmp.before" ] && [ -d "$LAVA_DISPATCHER_TMP" ]; then
        before=$D/state/dispatcher-tmp.before
        for e in "$LAVA_DISPATCHER_TMP"/* "$LAVA_DISPATCHER_TMP"/.[!.]*; do
            [ -e "$e" ] || continue
            grep -qxF "${e##*/}" "$before" || rm -rf "$e"
        done
    fi
    if is_lab; then
        made_user=$(cat "$D/state/store-user" 2> /dev/null || true)
        rm -rf "$D"
        remove_store_user "$made_user"
    fi
    say "down in $(($(now) - t0)) s"
}

# ---- status --------------------------------------------------------------

cmd_status() {
    is_lab || die "$D is not a lab's directory"
    local n pid rc=0
    for n in gunicorn scheduler worker artifacts; do
        pid=$(alive $n)
        if [ -n "$pid" ]; then
            printf '%-10s running (pid %s)\n' "$n" "$pid"
        else
            printf '%-10s not running\n' "$n"
            rc=1
        fi
    done
    if pg_ctlcluster "$PG_VERSION" "$PG_CLUSTER" status > /dev/null 2>&1; then
        printf '%-10s %s\n' postgresql "cluster $PG_VERSION/$PG_CLUSTER on port $PG_PORT"
    else
        printf '%-10s %s\n' postgresql "not running" && rc=1
    fi
    if lab_env; then
        curl -sf -H @"$D/state/auth.header" "${LAVA_URL}api/v0.2/devices/$DEVICE/" |
            python3 -c 'import json, sys; d = json.load(sys.stdin); print("%-10s %s: %s, %s, worker %s" % ("device", d["hostname"], d["state"], d["health"], d["worker_host"]))' |
            visible || { echo "server     no answer at $LAVA_URL"; rc=1; }
    else
        echo "lab.env    missing or not up's: up did not finish"
        rc=1
    fi
    return $rc
}

# ---- guestfs -------------------------------------------------------------

# libguestfs-test-tool in the environment the worker gives lava-run (the
# lines of its env.yaml, as up wrote them in DIR/state: the copy in
# WORKER_CONF is in a directory of lavaserver's), so a failure of LAVA's
# overlay step shows here.
cmd_guestfs() {
    if ! is_lab || [ ! -f "$D/state/env.yaml" ]; then die "$D: no lab is up there"; fi
    local t0 envs=()
    mapfile -t envs < <(sed -n 's/^  \([A-Z_]*\): \(.*\)$/\1=\2/p' "$D/state/env.yaml")
    t0=$(now)
    if env -i "${envs[@]}" libguestfs-test-tool > "$D/logs/libguestfs-test-tool.out" 2>&1; then
        say "libguestfs-test-tool: ok in $(($(now) - t0)) s (log: $D/logs/libguestfs-test-tool.out)"
    else
        die "libguestfs-test-tool failed after $(($(now) - t0)) s: $D/logs/libguestfs-test-tool.out"
    fi
}

# ---- smoke ---------------------------------------------------------------

# publish FILE NAME: FILE as images/NAME in the artifact store, only when
# missing there (the store writes a name once; NAME holds FILE's digest,
# as pressmark names its images), with the store's token.
publish() {
    curl -sfI "$ARTIFACTS_HOST_URL/images/$2" > /dev/null ||
        curl -sf -H @"$D/state/artifacts.header" -T "$1" "$ARTIFACTS_HOST_URL/images/$2" > /dev/null ||
        die "PUT $2 to the artifact store failed"
}

# Publish pressmark's guest image in the artifact store, submit
# tools/lava-lab/smoke.yaml, wait for it, show how it ended.
cmd_smoke() {
    local img=${1:-} t0 t1 id state name yaml sha_k sha_i sha_r up got tcp
    if ! is_lab || ! lab_env; then die "$D: no lab is up there"; fi
    if [ -z "$img" ]; then
        img=$(ls -td /var/cache/pressmark/vm/kernel-*/ 2> /dev/null | head -1 || true)
        img=${img%/}
    fi
    [ -f "$img/vmlinuz" ] && [ -f "$img/initrd.img" ] && [ -f "$img/root.img" ] ||
        die "${img:-no image}: no vmlinuz, initrd.img and root.img (run a pressmark suite with a kernel first)"
    debugfs -R 'stat /usr/lib/pressmark/lava-init' "$img/root.img" 2> /dev/null | grep -q 'Type: regular' ||
        die "$img/root.img has no /usr/lib/pressmark/lava-init (built by an older pressmark)"
    t0=$(now)
    say "publishing $img in the artifact store"
    mkdir -p "$D/stage"
    cp "$img/vmlinuz" "$D/stage/vmlinuz"
    cp "$img/initrd.img" "$D/stage/initrd.img"
    # qcow2: LAVA copies a download byte by byte, and the raw image is 6 GiB
    # of mostly holes (~450 MiB in use).
    qemu-img convert -O qcow2 "$img/root.img" "$D/stage/rootfs.qcow2"
    sha_k=$(sha256sum < "$D/stage/vmlinuz" | cut -d' ' -f1)
    sha_i=$(sha256sum < "$D/stage/initrd.img" | cut -d' ' -f1)
    sha_r=$(sha256sum < "$D/stage/rootfs.qcow2" | cut -d' ' -f1)
    publish "$D/stage/vmlinuz" "vmlinuz-$sha_k"
    publish "$D/stage/initrd.img" "initrd-$sha_i.img"
    publish "$D/stage/rootfs.qcow2" "rootfs-$sha_r.qcow2"
    rm -rf "$D/stage"
    say "published in $(($(now) - t0)) s"

    name=smoke-$(date +%Y%m%d-%H%M%S)
    # bash's /dev/tcp/HOST/PORT of the guest's view of the store
    tcp=${ARTIFACTS_URL#http://}
    tcp=${tcp/://}
    yaml=$D/$name.yaml
    sed -e "s|@IMAGES@|$ARTIFACTS_HOST_URL/images|g" -e "s|@KERNEL_SHA256@|$sha_k|g" \
        -e "s|@INITRD_SHA256@|$sha_i|g" -e "s|@ROOTFS_SHA256@|$sha_r|g" \
        -e "s|@ARTIFACTS_TCP@|$tcp|g" -e "s|@NAME@|$name|g" \
        "$HERE/lava-lab/smoke.yaml" > "$yaml"
    t1=$(now)
    id=$(python3 -c 'import json, sys; print(json.dumps({"definition": open(sys.argv[1]).read()}))' "$yaml" |
        curl -sf -H @"$D/state/auth.header" -H 'Content-Type: application/json' \
            --data-binary @- "${LAVA_URL}api/v0.2/jobs/" |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["job_ids"][0])') || die "submitting $yaml failed"
    [[ "$id" =~ ^[0-9]+$ ]] || die "submitting $yaml: the server answered no job id"
    say "job $id submitted: ${LAVA_URL}scheduler/job/$id"
    while :; do
        state=$(curl -sf -H @"$D/state/auth.header" "${LAVA_URL}api/v0.2/jobs/$id/" |
            python3 -c 'import json, sys; j = json.load(sys.stdin); print(j["state"], j["health"])' | visible) || state="? ?"
        case "$state" in
            Finished*) break ;;
        esac
        [ $(($(now) - t1)) -lt 1800 ] || die "job $id: still '$state' after 30 min"
        sleep 5
    done
    say "job $id: $state after $(($(now) - t1)) s"
    curl -sf -H @"$D/state/auth.header" "${LAVA_URL}api/v0.2/jobs/$id/" |
        python3 -c 'import json, sys; j = json.load(sys.stdin); print(json.dumps({k: j[k] for k in ("id", "state", "health", "actual_device", "start_time", "end_time", "failure_comment")}, indent=1))' | visible
    curl -sf -H @"$D/state/auth.header" "${LAVA_URL}api/v0.2/jobs/$id/tests/" |
        python3 -c '
import json, sys
for t in json.load(sys.stdin)["results"]:
    print("%-24s %-5s %-10s %s" % (t["name"], t["result"], t["measurement"] or "", t["unit"] or ""))' | visible
    # From the store, not from its directory: that is the store user's.
    up=$ARTIFACTS_HOST_URL/smoke/$name.txt
    got=$(curl -sf "$up" | head -c 256 | visible) || true
    if [ -n "$got" ]; then
        say "uploaded by the guest: $up: $got"
    else
        say "no upload at $up"
    fi
    # The results page (the job is public: no login) as a picture.
    if command -v chromium > /dev/null; then
        timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$D/chromium" \
            --screenshot="$D/smoke-results.png" --window-size=1400,1000 "${LAVA_URL}results/$id/0_smoke" \
            > "$D/logs/chromium.out" 2>&1 && say "results page: ${LAVA_URL}results/$id/0_smoke, as $D/smoke-results.png"
        rm -rf "$D/chromium"
    fi
    case "$state" in
        "Finished Complete") [ -n "$got" ] ;;
        *) return 1 ;;
    esac
}

case "${1:-}" in
    up) lab_dir "${2:-}" && cmd_up ;;
    down) lab_dir "${2:-}" && cmd_down ;;
    status) lab_dir "${2:-}" && cmd_status ;;
    smoke) lab_dir "${2:-}" && cmd_smoke "${3:-}" ;;
    guestfs) lab_dir "${2:-}" && cmd_guestfs ;;
    *) usage ;;
esac
