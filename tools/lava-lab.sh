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
#
# PID 1 here is not systemd, so no unit is started: each service runs the
# command line of its unit under /lib/systemd/system, as a background
# process of its own session with a pid file in DIR/run and a log in
# DIR/logs. Everything the lab owns lives in DIR, except what LAVA or
# PostgreSQL only read from fixed places: the cluster 15/pmlava (port
# 5439) and /etc/lava-server/dispatcher.d/pressmark-lab/ (the worker's
# environment). One lab per machine. Run as root.
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
# The server only reads a worker's environment from here (lava_server/files.py).
WORKER_CONF=/etc/lava-server/dispatcher.d/$LAB_WORKER
PG_CONF=/etc/postgresql/$PG_VERSION/$PG_CLUSTER
LAVA_DISPATCHER_TMP=/var/lib/lava/dispatcher/tmp
# The artifact store's cap on one upload: pressmark publishes a job's
# images through it too (a guest root as qcow2 is ~450 MiB).
ARTIFACTS_MAX_BYTES=$((1024 << 20))
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

say() { printf 'lava-lab: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

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
}

# A lab's DIR carries this marker; down empties only such a directory.
is_lab() { [ -f "$D/.lava-lab" ]; }

now() { date +%s; }

# ---- processes -----------------------------------------------------------

# start NAME CMD...: CMD as the leader of a new session (so that its
# children, lava-run and QEMU among them, can be found and stopped with
# it), stdin from /dev/null, output to DIR/logs/NAME.out; its pid and start
# time (to tell it from a later process of the same pid) in DIR/run.
start() {
    local name=$1
    shift
    setsid "$@" < /dev/null >> "$D/logs/$name.out" 2>&1 &
    local pid=$!
    echo "$pid $(starttime "$pid")" > "$D/run/$name.pid"
}

# Its start time (field 22 of /proc/PID/stat), "" when gone or a zombie.
starttime() { awk '{ sub(/.*\) /, ""); if ($1 != "Z") print $20 }' "/proc/$1/stat" 2> /dev/null || true; }

# The pid of NAME when it still runs (the same process as started), else "".
alive() {
    local f=$D/run/$1.pid pid st
    [ -f "$f" ] || return 0
    read -r pid st < "$f" || return 0
    [ -n "$pid" ] && [ "$(starttime "$pid")" = "$st" ] && echo "$pid"
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

# stop NAME [GRACE]: SIGTERM to its whole session, SIGKILL after GRACE s.
# A leader that died alone leaves its session's members (gunicorn's
# workers, lava-run): they go too. A pid that is now another process's is
# left alone (the kernel reuses no pid still naming a session, so members
# of ours keep the number from being reused).
stop() {
    local name=$1 grace=${2:-20} f=$D/run/$1.pid pid st raw pids i
    [ -f "$f" ] || return 0
    read -r pid st < "$f" || true
    raw=$(awk '{ sub(/.*\) /, ""); print $20 }' "/proc/$pid/stat" 2> /dev/null || true)
    if [ -n "$pid" ] && { [ "$raw" = "$st" ] || [ -z "$raw" ]; }; then
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

write_settings() {
    local pw secret
    pw=$(cat "$D/state/db.password")
    secret=$(cat "$D/state/secret.key")
    (umask 077 && python3 - "$D" "$pw" "$secret" "$PG_PORT" > "$D/state/settings.json") << 'EOF'
import json, sys
d, pw, secret, port = sys.argv[1:]
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
# (context: memory, extra_options: ['-smp N']).
write_device() {
    cat > "$D/devices/$DEVICE.jinja2" << 'EOF'
{% extends 'qemu.jinja2' %}
{% set no_kvm = True %}
{% set memory = memory | default(1024) %}
{% set extra_options = extra_options | default(['-smp 2']) %}
{% set guestfs_interface = guestfs_interface | default('virtio') %}
EOF
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
write_worker_env() {
    mkdir -p "$WORKER_CONF" "$D/guestfs-cache" "$D/tmp"
    cat > "$WORKER_CONF/env.yaml" << EOF
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
    echo "$D" > "$WORKER_CONF/pressmark-lab.dir"
}

# ---- PostgreSQL ----------------------------------------------------------

cluster_exists() { [ -d "$PG_CONF" ]; }

cluster_up() {
    local owner pw
    if cluster_exists; then
        owner=$(cat "$PG_CONF/pressmark-lab.dir" 2> /dev/null || true)
        [ "$owner" = "$D" ] || die "cluster $PG_VERSION/$PG_CLUSTER belongs to ${owner:-someone else}, not $D (down that lab first)"
    else
        port_free "$PG_PORT" || die "port $PG_PORT is taken: the lab's cluster needs it"
        say "creating PostgreSQL cluster $PG_VERSION/$PG_CLUSTER on port $PG_PORT"
        pg_createcluster "$PG_VERSION" "$PG_CLUSTER" --port "$PG_PORT" --start-conf manual \
            -- --auth-local=peer --auth-host=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 > "$D/logs/pg_createcluster.out" 2>&1 ||
            die "pg_createcluster failed: $D/logs/pg_createcluster.out"
        echo "$D" > "$PG_CONF/pressmark-lab.dir"
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
    local owner
    owner=$(cat "$PG_CONF/pressmark-lab.dir" 2> /dev/null || true)
    if [ "$owner" != "$D" ]; then
        say "cluster $PG_VERSION/$PG_CLUSTER is not this lab's (${owner:-no owner}): left alone"
        return 0
    fi
    # (pg_dropcluster leaves a configuration directory with a file of
    # its own in it: the marker goes first.)
    rm -f "$PG_CONF/pressmark-lab.dir"
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

lab_healthy() {
    [ -f "$D/lab.env" ] || return 1
    # shellcheck disable=SC1091
    . "$D/lab.env"
    local n
    for n in gunicorn scheduler worker artifacts; do
        [ -n "$(alive $n)" ] || return 1
    done
    curl -sf "${LAVA_URL}api/v0.2/system/version/" > /dev/null
}

cmd_up() {
    local t0 port aport
    t0=$(now)
    [ "$(id -u)" -eq 0 ] || die "up needs root (packages, PostgreSQL, QEMU)"
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
        mkdir -p "$D"
        echo "created by tools/lava-lab.sh up" > "$D/.lava-lab"
    fi
    mkdir -p "$D/logs" "$D/run" "$D/media" "$D/devices" "$D/health-checks" "$D/worker" "$D/artifacts"
    (umask 077 && mkdir -p "$D/state")
    chmod 700 "$D/state"

    install_packages

    # Secrets, made once per DIR and kept across a rerun.
    (
        umask 077
        [ -s "$D/state/db.password" ] || python3 -c 'import secrets; print(secrets.token_hex(24))' > "$D/state/db.password"
        [ -s "$D/state/secret.key" ] || python3 -c 'import secrets; print(secrets.token_urlsafe(48))' > "$D/state/secret.key"
        [ -s "$D/state/admin.password" ] || python3 -c 'import secrets; print(secrets.token_urlsafe(12))' > "$D/state/admin.password"
        [ -s "$D/token" ] || python3 -c 'import secrets; print(secrets.token_hex(32))' > "$D/token"
    )
    chmod 600 "$D/token"

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
    port=$(cat "$D/state/port" 2> /dev/null || true)
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

    # The lab's objects: its admin and token, the device type, the worker,
    # the device (each only when missing: a rerun finds them).
    if ! manage users details "$LAB_USER" > /dev/null 2>&1; then
        manage users add "$LAB_USER" --superuser --staff --email "$LAB_USER@localhost" \
            --passwd "$(cat "$D/state/admin.password")" > /dev/null
    fi
    manage tokens list --user "$LAB_USER" --csv | grep -q ",$(cat "$D/token")," ||
        manage tokens add --user "$LAB_USER" --secret "$(cat "$D/token")" --description pressmark-lab > /dev/null
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

    # The artifact store.
    aport=$(cat "$D/state/artifacts.port" 2> /dev/null || true)
    if [ -z "$aport" ] || ! port_free "$aport"; then aport=0; fi
    rm -f "$D/run/artifacts.port"
    start artifacts python3 "$HERE/lava-lab/artifacts.py" --root "$D/artifacts" --bind 127.0.0.1 \
        --port "$aport" --port-file "$D/run/artifacts.port" --max-bytes "$ARTIFACTS_MAX_BYTES"
    wait_for "the artifact store" 20 test -s "$D/run/artifacts.port"
    aport=$(cat "$D/run/artifacts.port")
    echo "$aport" > "$D/state/artifacts.port"

    wait_for "worker $LAB_WORKER online" 60 worker_online

    {
        echo "# The LAVA lab of tools/lava-lab.sh (down: tools/lava-lab.sh down $D)"
        echo "LAVA_URL=$LAVA_URL"
        echo "LAVA_USER=$LAB_USER"
        echo "LAVA_TOKEN_FILE=$D/token"
        echo "LAVA_PASSWORD_FILE=$D/state/admin.password"
        echo "LAVA_VERSION=$(curl -sf "${LAVA_URL}api/v0.2/system/version/" | python3 -c 'import json, sys; print(json.load(sys.stdin)["version"])')"
        echo "LAVA_DEVICE_TYPE=$DEVICE_TYPE"
        echo "LAVA_DEVICE=$DEVICE"
        echo "LAVA_WORKER=$LAB_WORKER"
        echo "ARTIFACTS_URL=http://10.0.2.2:$aport"
        echo "ARTIFACTS_HOST_URL=http://127.0.0.1:$aport"
        echo "ARTIFACTS_DIR=$D/artifacts"
        echo "ARTIFACTS_MAX_BYTES=$ARTIFACTS_MAX_BYTES"
        echo "LAB_DIR=$D"
    } > "$D/lab.env.tmp"
    mv "$D/lab.env.tmp" "$D/lab.env"
    say "up in $(($(now) - t0)) s"
    cat "$D/lab.env"
}

worker_online() {
    curl -sf -H "Authorization: Token $(cat "$D/token")" "${LAVA_URL}api/v0.2/workers/$LAB_WORKER/" |
        python3 -c 'import json, sys; sys.exit(json.load(sys.stdin)["state"] != "Online")'
}

# ---- down ----------------------------------------------------------------

stop_services() {
    # The worker first, with the lava-run and QEMU processes of its jobs.
    stop worker 30
    stop scheduler
    stop gunicorn
    stop artifacts 5
}

cmd_down() {
    local t0 before e
    t0=$(now)
    if [ -e "$D" ] && ! is_lab; then
        die "$D is not a lab's directory (no $D/.lava-lab): nothing done"
    fi
    if is_lab; then
        stop_services
    fi
    cluster_drop
    if [ -f "$WORKER_CONF/pressmark-lab.dir" ] && [ "$(cat "$WORKER_CONF/pressmark-lab.dir")" = "$D" ]; then
        rm -rf "$WORKER_CONF"
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
        rm -rf "$D"
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
    if [ -f "$D/lab.env" ]; then
        # shellcheck disable=SC1091
        . "$D/lab.env"
        curl -sf -H "Authorization: Token $(cat "$D/token")" "${LAVA_URL}api/v0.2/devices/$DEVICE/" |
            python3 -c 'import json, sys; d = json.load(sys.stdin); print("%-10s %s: %s, %s, worker %s" % ("device", d["hostname"], d["state"], d["health"], d["worker_host"]))' ||
            { echo "server     no answer at $LAVA_URL"; rc=1; }
    else
        echo "lab.env    missing: up did not finish"
        rc=1
    fi
    return $rc
}

# ---- guestfs -------------------------------------------------------------

# libguestfs-test-tool in the environment the worker gives lava-run (the
# lines of its env.yaml), so a failure of LAVA's overlay step shows here.
cmd_guestfs() {
    if ! is_lab || [ ! -f "$WORKER_CONF/env.yaml" ]; then die "$D: no lab is up there"; fi
    local t0 envs=()
    mapfile -t envs < <(sed -n 's/^  \([A-Z_]*\): \(.*\)$/\1=\2/p' "$WORKER_CONF/env.yaml")
    t0=$(now)
    if env -i "${envs[@]}" libguestfs-test-tool > "$D/logs/libguestfs-test-tool.out" 2>&1; then
        say "libguestfs-test-tool: ok in $(($(now) - t0)) s (log: $D/logs/libguestfs-test-tool.out)"
    else
        die "libguestfs-test-tool failed after $(($(now) - t0)) s: $D/logs/libguestfs-test-tool.out"
    fi
}

# ---- smoke ---------------------------------------------------------------

# Publish pressmark's guest image in the artifact store, submit
# tools/lava-lab/smoke.yaml, wait for it, show how it ended.
cmd_smoke() {
    local img=${1:-} t0 t1 id state name yaml sha_k sha_i sha_r up tcp
    if ! is_lab || [ ! -f "$D/lab.env" ]; then die "$D: no lab is up there"; fi
    # shellcheck disable=SC1091
    . "$D/lab.env"
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
    for f in vmlinuz initrd.img rootfs.qcow2; do
        curl -sf -T "$D/stage/$f" "$ARTIFACTS_HOST_URL/images/$f" > /dev/null || die "PUT $f to the artifact store failed"
    done
    sha_k=$(sha256sum < "$D/stage/vmlinuz" | cut -d' ' -f1)
    sha_i=$(sha256sum < "$D/stage/initrd.img" | cut -d' ' -f1)
    sha_r=$(sha256sum < "$D/stage/rootfs.qcow2" | cut -d' ' -f1)
    rm -rf "$D/stage"
    say "published in $(($(now) - t0)) s"

    name=smoke-$(date +%Y%m%d-%H%M%S)
    # bash's /dev/tcp/HOST/PORT of the guest's view of the store
    tcp=${ARTIFACTS_URL#http://}
    tcp=${tcp/://}
    yaml=$D/$name.yaml
    sed -e "s|@IMAGES@|$ARTIFACTS_HOST_URL/images|g" -e "s|@KERNEL_SHA256@|$sha_k|" \
        -e "s|@INITRD_SHA256@|$sha_i|" -e "s|@ROOTFS_SHA256@|$sha_r|" \
        -e "s|@ARTIFACTS_TCP@|$tcp|g" -e "s|@NAME@|$name|g" \
        "$HERE/lava-lab/smoke.yaml" > "$yaml"
    t1=$(now)
    id=$(python3 -c 'import json, sys; print(json.dumps({"definition": open(sys.argv[1]).read()}))' "$yaml" |
        curl -sf -H "Authorization: Token $(cat "$LAVA_TOKEN_FILE")" -H 'Content-Type: application/json' \
            --data-binary @- "${LAVA_URL}api/v0.2/jobs/" |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["job_ids"][0])') || die "submitting $yaml failed"
    say "job $id submitted: ${LAVA_URL}scheduler/job/$id"
    while :; do
        state=$(curl -sf -H "Authorization: Token $(cat "$LAVA_TOKEN_FILE")" "${LAVA_URL}api/v0.2/jobs/$id/" |
            python3 -c 'import json, sys; j = json.load(sys.stdin); print(j["state"], j["health"])') || state="? ?"
        case "$state" in
            Finished*) break ;;
        esac
        [ $(($(now) - t1)) -lt 1800 ] || die "job $id: still '$state' after 30 min"
        sleep 5
    done
    say "job $id: $state after $(($(now) - t1)) s"
    curl -sf -H "Authorization: Token $(cat "$LAVA_TOKEN_FILE")" "${LAVA_URL}api/v0.2/jobs/$id/" |
        python3 -c 'import json, sys; j = json.load(sys.stdin); print(json.dumps({k: j[k] for k in ("id", "state", "health", "actual_device", "start_time", "end_time", "failure_comment")}, indent=1))'
    curl -sf -H "Authorization: Token $(cat "$LAVA_TOKEN_FILE")" "${LAVA_URL}api/v0.2/jobs/$id/tests/" |
        python3 -c '
import json, sys
for t in json.load(sys.stdin)["results"]:
    print("%-24s %-5s %-10s %s" % (t["name"], t["result"], t["measurement"] or "", t["unit"] or ""))'
    up=$ARTIFACTS_DIR/smoke/$name.txt
    if [ -f "$up" ]; then
        say "uploaded by the guest: $up: $(cat "$up")"
    else
        say "no upload in $up"
    fi
    # The results page (the job is public: no login) as a picture.
    if command -v chromium > /dev/null; then
        timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$D/chromium" \
            --screenshot="$D/smoke-results.png" --window-size=1400,1000 "${LAVA_URL}results/$id/0_smoke" \
            > "$D/logs/chromium.out" 2>&1 && say "results page: ${LAVA_URL}results/$id/0_smoke, as $D/smoke-results.png"
        rm -rf "$D/chromium"
    fi
    case "$state" in
        "Finished Complete") [ -f "$up" ] ;;
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
