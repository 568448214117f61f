#!/bin/bash
# pressmark on a stock Debian 12 host: the unified cgroup hierarchy (v2)
# only, its memory controller on, systemd as process 1 with pressmark
# inside the tree systemd manages, a swap device. This machine's own
# memory controller is on cgroup v1, so that host is a QEMU guest (TCG:
# nested KVM fails here) booting Debian's newest 6.12 cloud kernel from
# the VM image pressmark's kernels/ makes for a suite's kernel axis
# (`pressmark __vm-image`: its debootstrap base, the kernel package its
# apt downloads, the initramfs that package's scripts build), copied and
# given systemd, udev, git and run.sh's PACKAGES with apt in a chroot, once
# (cached beside that image). Each check clones this repository's HEAD,
# builds it here (native; under TCG the build alone would take most of an
# hour), boots the guest with the clone on a disk of its own, and runs
# inside it as a systemd service (tools/v2-host-guest.sh): ./run.sh (its
# set-up and build find nothing to do; the main job) and the tests that
# change the machine (TESTS below: caps, swap, zswap, protection, sibling
# hogs, the journal's recovery, suites, the host backend), for real. It
# ends with a summary: the guest's kernel, its root cgroup's controllers,
# each test's TAP summary and ./run.sh's result; exit 0 when all passed,
# 1 when something failed in the guest, 2 when the guest could not run.
#
# Not part of `./run.sh test` (about an hour under TCG): `make v2-host-check`.
#
#   tools/v2-host-check.sh [--tests "t20 t57 ..."] [--tests-only] [--timeout MINUTES] [--keep]
#
# --tests: these test files (tNN or tNN-name) instead of TESTS;
# --tests-only: not ./run.sh (its main job takes some 5 minutes here);
# --timeout: the guest is killed after this long (default 150);
# --keep: the scratch directory (console, disks, the guest's logs) stays.
# Everything but the image cache goes at the end, also on failure and
# SIGINT/SIGTERM; on SIGKILL the VM and the image build's mounts go with
# this script (a parent-death signal, a private mount namespace) and the
# next check removes the rest.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PM=${PRESSMARK_BIN:-$ROOT/pressmark}
say() { printf 'v2-host-check: %s\n' "$*"; }
die() { printf 'v2-host-check: %s\n' "$*" >&2; exit 2; }

# The tests that change the machine (every run as root makes a cgroup):
# caps, swap, zram and zswap, protection and sibling hogs, the journal's
# recovery, kept results, suites, the host backend's systemd unit. Not
# the VM tests (a VM in this VM), the package's (dpkg) nor those that
# touch nothing outside their own directory.
TESTS="t10-record t11-cli t12-bad-input t20-cap-swap t21-survive t22-journal t23-no-lost-runs t24-kept-results
t25-reclaim t26-stalls t30-chat t40-reports t44-numbers t50-build-shmio t55-memory-workloads t56-isolation
t57-sibling t70-suite t81-kernels-host"
TIMEOUT_MIN=150
KEEP=no
RUN_SH=yes
# The guest: memory to spare for the tests that assume a machine with
# some (t21's balloon, t25's uncapped runs), every CPU, and a swap device
# as a stock install has one.
VM_MEMORY=6G
VM_CPUS=$(nproc)
SWAP_SIZE=2G
ROOT_SIZE=24G
UNIT=pressmark-v2-host-check.service

# The guest's systemd: the check as a service of its own (a root login
# would put it in a session scope; either way pressmark runs inside the
# tree systemd manages, not in the root cgroup), the clone's disk at /src,
# the swap device on. The timers that would start apt, man-db or a trim
# beside the tests under TCG are masked; nothing else is changed.
unit_text() {
    cat <<'EOF'
[Unit]
Description=pressmark's cgroup v2 host check (tools/v2-host-check.sh)
RequiresMountsFor=/src

[Service]
Type=exec
Environment=HOME=/root LANG=C.UTF-8
ExecStart=/bin/bash /src/pressmark/tools/v2-host-guest.sh
StandardOutput=journal+console
StandardError=inherit
TimeoutStartSec=infinity
SuccessAction=poweroff
FailureAction=poweroff
EOF
}
fstab_text() {
    printf '%s\n' '/dev/vda / ext4 rw,errors=remount-ro 0 0' '/dev/vdb /src ext4 rw 0 0' '/dev/vdc none swap sw 0 0'
}
MASKED="apt-daily.timer apt-daily-upgrade.timer man-db.timer e2scrub_all.timer fstrim.timer dpkg-db-backup.timer logrotate.timer"

# build_root DIR IMAGE PACKAGE...: the host's root in DIR/root.img, from
# the kernel image IMAGE (a directory of pressmark's VM cache); its
# vmlinuz and initrd.img beside it. Runs as the only process of private
# mount and PID namespaces (see make_host_image): every mount it makes
# goes with it, however it ends.
build_root() {
    local B=$1 img=$2
    shift 2
    local R=$B/root release
    release=$(head -1 "$img/info")
    mkdir "$B/lower" "$R"
    mount -o loop,ro "$img/root.img" "$B/lower"
    cp -a "$B/lower/." "$R/"
    umount "$B/lower"
    mount -t proc proc "$R/proc"
    mount --rbind /sys "$R/sys"
    mount --make-rslave "$R/sys"
    mount --rbind /dev "$R/dev"
    mount --make-rslave "$R/dev"
    mount -t tmpfs -o mode=0755 tmpfs "$R/run"
    mount -t tmpfs -o mode=1777 tmpfs "$R/tmp"
    cp /etc/resolv.conf "$R/etc/resolv.conf"
    # This machine's package sources (updates and security too), so the
    # guest has the versions this machine builds with.
    if [ -f /etc/apt/sources.list.d/debian.sources ]; then
        cp /etc/apt/sources.list.d/debian.sources "$R/etc/apt/sources.list.d/"
        rm -f "$R/etc/apt/sources.list"
    fi
    inside() {
        chroot "$R" /usr/bin/env -i HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
            PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
    }
    # (as run.sh says it: kexec-tools would take over every reboot)
    echo "kexec-tools kexec-tools/load_kexec boolean false" | inside debconf-set-selections
    inside apt-get update -q
    inside apt-get install -y -q --no-install-recommends systemd systemd-sysv udev dbus git "$@"
    inside apt-get clean
    fstab_text > "$R/etc/fstab"
    mkdir -p "$R/src"
    echo pressmark-v2host > "$R/etc/hostname"
    # A machine-id: not a first boot, so nothing asks for a locale on the console.
    od -An -N16 -tx1 /dev/urandom | tr -d ' \n' > "$R/etc/machine-id"
    unit_text > "$R/etc/systemd/system/$UNIT"
    mkdir -p "$R/etc/systemd/system/multi-user.target.wants"
    ln -sf "../$UNIT" "$R/etc/systemd/system/multi-user.target.wants/$UNIT"
    local u
    for u in $MASKED; do ln -sf /dev/null "$R/etc/systemd/system/$u"; done
    rm -f "$R/etc/resolv.conf"
    cp -L "$R/boot/vmlinuz-$release" "$B/vmlinuz"
    cp -L "$R/boot/initrd.img-$release" "$B/initrd.img"
    printf '%s\n' "$release" > "$B/release"
    umount -R "$R/proc" "$R/sys" "$R/dev" "$R/run" "$R/tmp"
    mkfs.ext4 -q -F -L pressmark-v2host -d "$R" "$B/root.img" "$ROOT_SIZE" > /dev/null
    rm -rf --one-file-system "$R" "$B/lower"
}

PACKAGES=()
read_packages() {
    eval "$(sed -n '/^PACKAGES=(/,/^)/p' "$ROOT/run.sh")"
    [ "${#PACKAGES[@]}" -gt 10 ] || die "run.sh: no PACKAGES list found"
}

# make_host_image IMAGE: the cached host image for the kernel image
# IMAGE, made when missing; its directory in HOST_IMAGE. Its name holds a
# digest of all it is made of, so a change of the kernel image, the
# packages or this recipe makes a new one (and the old ones go).
make_host_image() {
    local img=$1 cache key
    cache=$(dirname "$img")
    key=$({ basename "$img"; printf '%s\n' "${PACKAGES[@]}"; declare -f build_root unit_text fstab_text;
            echo "$MASKED $ROOT_SIZE"; } | sha256sum | cut -c1-16)
    HOST_IMAGE="$cache/v2host-$(head -1 "$img/info")-$key"
    [ -f "$HOST_IMAGE/root.img" ] && return 0
    say "building the host's image (once; apt installs $((${#PACKAGES[@]} + 5)) packages into a copy of $(basename "$img"))"
    BUILD_DIR=$(mktemp -d "$cache/pressmark-build-v2host.XXXXXX")
    # The parent-death signal ends the namespace with this script; its
    # first process dying ends the rest, and the namespace its mounts.
    if ! setpriv --pdeathsig KILL unshare --mount --propagation private --pid --fork --kill-child \
            "$0" __build "$BUILD_DIR" "$img" "${PACKAGES[@]}" > "$BUILD_DIR.log" 2>&1; then
        tail -20 "$BUILD_DIR.log" >&2
        die "building the host's image failed (its log: $BUILD_DIR.log, kept)"
    fi
    rm -f "$BUILD_DIR.log"
    local old
    for old in "$cache"/v2host-*; do
        [ "$old" = "$HOST_IMAGE" ] || rm -rf --one-file-system "$old"
    done
    mv "$BUILD_DIR" "$HOST_IMAGE"
    BUILD_DIR=
}

SCRATCH='' BUILD_DIR='' QEMU_PID=''
cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    if [ -n "$QEMU_PID" ]; then
        kill -KILL "$QEMU_PID" 2>/dev/null || true
        wait "$QEMU_PID" 2>/dev/null || true
    fi
    # (the image build's namespace died with its first process, its
    # mounts with it: what is left is files)
    [ -z "$BUILD_DIR" ] || rm -rf --one-file-system "$BUILD_DIR"
    if [ -n "$SCRATCH" ]; then
        if [ "$KEEP" = yes ]; then say "kept: $SCRATCH"; else rm -rf --one-file-system "$SCRATCH"; fi
    fi
    # A pressmark __vm-image interrupted mid-build left its journal: the
    # next pressmark undoes it (its overlay mount, its build directory).
    "$PM" doctor > /dev/null 2>&1 || true
    exit "$rc"
}

# clean TEXT: a guest's text made safe for a terminal (no escapes).
clean() { tr -d '\000-\010\013-\037\177'; }

# The guest's lines marked as the check's, from the console as they come.
# (journald puts its time and the process before each: dropped)
RELAYED=0
relay() {
    local n
    [ -f "$SCRATCH/console.log" ] || return 0
    n=$(grep -ac 'v2-host-check: ' "$SCRATCH/console.log" || true)
    if [ "${n:-0}" -gt "$RELAYED" ]; then
        grep -ao 'v2-host-check: .*' "$SCRATCH/console.log" | sed -n "$((RELAYED + 1)),${n}p" | clean |
            sed 's/^v2-host-check: /  guest: /' | cut -c1-300
        RELAYED=$n
    fi
}

# boot: the guest until it powers off (or the timeout); 0 when it did.
boot() {
    local rel
    rel=$(cat "$HOST_IMAGE/release")
    qemu-img create -q -f qcow2 -F raw -b "$HOST_IMAGE/root.img" "$SCRATCH/root.qcow2"
    truncate -s "$SWAP_SIZE" "$SCRATCH/swap.img"
    mkswap -q "$SCRATCH/swap.img"
    say "booting $rel under TCG ($VM_MEMORY RAM, $VM_CPUS CPUs, swap $SWAP_SIZE; console: $SCRATCH/console.log)"
    # QEMU dies with this script, whatever signal ends it. One TCG thread
    # for both CPUs: with a thread each (MTTCG) the guest's kernel, patching
    # its own code (static keys, a module loaded), now and then executes a
    # breakpoint it has already removed ("Oops: int3" in __schedule, then
    # "Fatal exception in interrupt"; once in three boots here).
    # tsc=reliable: under one thread the clocksource watchdog found the
    # TSC unstable after 25 minutes and moved to the HPET, whose every read
    # is emulated: the tests after ran several times slower.
    setpriv --pdeathsig KILL qemu-system-x86_64 -name pressmark-v2host -accel tcg,thread=single -cpu max -m "$VM_MEMORY" \
        -smp "$VM_CPUS" -display none -monitor none -no-reboot -nic none \
        -serial "file:$SCRATCH/console.log" -kernel "$HOST_IMAGE/vmlinuz" -initrd "$HOST_IMAGE/initrd.img" \
        -append "console=ttyS0 root=/dev/vda rw panic=-1 tsc=reliable" \
        -drive "file=$SCRATCH/root.qcow2,format=qcow2,if=virtio,cache=unsafe" \
        -drive "file=$SCRATCH/tree.img,format=raw,if=virtio" \
        -drive "file=$SCRATCH/swap.img,format=raw,if=virtio" > "$SCRATCH/qemu.log" 2>&1 &
    QEMU_PID=$!
    local t0=$SECONDS done_at=
    while kill -0 "$QEMU_PID" 2>/dev/null; do
        relay
        # The guest's last line: its disk is read-only and complete, and a
        # shutdown that hangs is not waited for long.
        if [ -z "$done_at" ] && grep -aqs 'v2-host-check: done' "$SCRATCH/console.log"; then
            done_at=$SECONDS
        fi
        if [ -n "$done_at" ] && [ $((SECONDS - done_at)) -gt 180 ]; then
            say "the guest did not power off within 3 minutes of its last line; its console's last lines:"
            tail -5 "$SCRATCH/console.log" | clean | sed 's/^/  /'
            kill -KILL "$QEMU_PID" 2>/dev/null || true
            break
        fi
        if [ $((SECONDS - t0)) -gt $((TIMEOUT_MIN * 60)) ]; then
            kill -KILL "$QEMU_PID" 2>/dev/null || true
            wait "$QEMU_PID" 2>/dev/null || true
            QEMU_PID=
            say "the guest did not finish within $TIMEOUT_MIN minutes; its console's last lines:"
            tail -5 "$SCRATCH/console.log" | clean | sed 's/^/  /'
            return 1
        fi
        sleep 2
    done
    wait "$QEMU_PID" 2>/dev/null || true
    QEMU_PID=
    relay
    BOOT_S=$((SECONDS - t0))
    return 0
}

main() {
    while [ $# -gt 0 ]; do
        case "$1" in
            --tests) TESTS=${2:?--tests needs a list of tests}; shift ;;
            --timeout) TIMEOUT_MIN=${2:?--timeout needs minutes}; shift ;;
            --tests-only) RUN_SH=no ;;
            --keep) KEEP=yes ;;
            -h|--help) sed -n '2,33p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
            *) die "unknown option '$1' (accepted: --tests LIST, --tests-only, --timeout MINUTES, --keep)" ;;
        esac
        shift
    done
    case "$TIMEOUT_MIN" in ''|*[!0-9]*|0) die "--timeout $TIMEOUT_MIN: not a number of minutes (accepted: 1 or more)" ;; esac
    local t list=
    for t in $TESTS; do
        case "$t" in *[!A-Za-z0-9_-]*) die "--tests: '$t' is not a test name (accepted: tNN or tNN-name)" ;; esac
        local f=
        for f in "$ROOT/tests/$t".t "$ROOT/tests/$t"-*.t; do [ -f "$f" ] && break; done
        [ -f "$f" ] || die "--tests: no test tests/$t.t or tests/$t-*.t"
        list="$list $(basename "$f" .t)"
    done
    [ "$(id -u)" -eq 0 ] || die "needs root (an image build with chroot and mounts, QEMU)"
    local c
    for c in qemu-system-x86_64 qemu-img debootstrap mkfs.ext4 debugfs unshare setpriv git; do
        command -v "$c" > /dev/null || die "needs $c (run.sh installs it: ./run.sh, or apt-get install it)"
    done
    [ -x "$PM" ] || die "$PM: no pressmark binary (make first)"
    read_packages
    local k612
    k612=$(apt-cache pkgnames linux-image-6.12. | grep -E '^linux-image-6\.12\.[0-9]+\+deb12-cloud-amd64$' | sort -V | tail -1)
    [ -n "$k612" ] || die "apt knows no Debian 6.12 cloud kernel (apt-get update)"
    local start=$SECONDS
    trap cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM

    local img
    img=$("$PM" __vm-image "$k612" 2> >(sed 's/^/  /' >&2)) || die "pressmark __vm-image $k612 failed"
    # One check at a time on this cache; a SIGKILLed one's leftovers go first.
    exec 9<"$(dirname "$img")"
    flock -x 9
    rm -rf --one-file-system "$(dirname "$img")"/pressmark-build-v2host.* /var/tmp/pressmark-v2host.*
    make_host_image "$img"

    SCRATCH=$(mktemp -d /var/tmp/pressmark-v2host.XXXXXX)
    git clone -q "$ROOT" "$SCRATCH/tree/pressmark"
    local head
    head=$(git -C "$SCRATCH/tree/pressmark" log -1 --format='%h %s' | cut -c1-72)
    [ -z "$(git -C "$ROOT" status --porcelain --untracked-files=no)" ] ||
        say "note: $ROOT has uncommitted changes; the guest gets HEAD ($head)"
    say "building $head here (make all), for the guest's ./run.sh to find up to date"
    make -C "$SCRATCH/tree/pressmark" -s -j"$(nproc)" all > "$SCRATCH/build.log" 2>&1 ||
        { tail -20 "$SCRATCH/build.log" >&2; die "the build failed"; }
    # The tests the guest runs, one name a line, and whether ./run.sh runs
    # first (read by the guest as data).
    # shellcheck disable=SC2086 # (names checked above: split on purpose)
    printf '%s\n' $list > "$SCRATCH/tree/tests.list"
    echo "$RUN_SH" > "$SCRATCH/tree/run-sh"
    mkfs.ext4 -q -F -L pressmark-src -d "$SCRATCH/tree" "$SCRATCH/tree.img" 8G > /dev/null
    local rc=0
    boot || rc=2
    local summary
    summary=$(debugfs -R 'cat /v2-host-check/summary' "$SCRATCH/tree.img" 2>/dev/null | clean | cut -c1-400 || true)
    local status
    status=$(debugfs -R 'cat /v2-host-check/status' "$SCRATCH/tree.img" 2>/dev/null | tr -dc '0-9' || true)
    echo
    say "summary (the guest's; its logs: /v2-host-check/ on $SCRATCH/tree.img, --keep keeps them):"
    if [ -n "$summary" ]; then printf '%s\n' "$summary" | sed 's/^v2-host-check: /  /'; else echo "  (none: the guest wrote no summary)"; fi
    if [ "$rc" -eq 0 ] && [ -z "$status" ]; then
        say "the guest ended without a result; its console's last lines:"
        tail -8 "$SCRATCH/console.log" | clean | sed 's/^/  /'
        rc=2
    elif [ "$rc" -eq 0 ] && [ "$status" != 0 ]; then
        rc=1
    fi
    local took=$((SECONDS - start))
    say "$([ "$rc" -eq 0 ] && echo passed || echo FAILED) in $((took / 60)) min $((took % 60)) s (the guest ${BOOT_S:-?} s)"
    exit "$rc"
}

case "${1:-}" in
    __build) shift; set -x; build_root "$@" ;;
    *) main "$@" ;;
esac
