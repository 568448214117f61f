#!/bin/bash
# What a new user gets: a bare Debian 12 root (debootstrap minbase plus
# build-essential, perl and git, nothing else), a clone of this repository's
# HEAD inside it, then the two commands the README promises: `./run.sh test`
# and `./run.sh`. Any program the tests or the main job call that run.sh does
# not install fails here, however complete the development machine is.
#
# Not part of `./run.sh test` (it takes about thirteen minutes): `make fresh-root`.
# Run it before resolving any issue that changes dependencies.
#
#   tools/fresh-root.sh [--keep] [--mirror URL] [--dir DIR]
#
# Every mount and file it makes is removed at the end, also on failure and
# on SIGINT/SIGTERM; --keep leaves the root (unmounted) for a look inside.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
MIRROR=http://deb.debian.org/debian
KEEP=no
DIR=
while [ $# -gt 0 ]; do
    case "$1" in
        --keep) KEEP=yes ;;
        --mirror) MIRROR=${2:?--mirror needs a URL}; shift ;;
        --dir) DIR=${2:?--dir needs a directory}; shift ;;
        -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "fresh-root.sh: unknown option '$1' (accepted: --keep, --mirror URL, --dir DIR)" >&2; exit 2 ;;
    esac
    shift
done
[ "$(id -u)" -eq 0 ] || { echo "fresh-root.sh: needs root (debootstrap, mounts, chroot)" >&2; exit 2; }
command -v debootstrap >/dev/null || { echo "fresh-root.sh: needs debootstrap (apt-get install debootstrap)" >&2; exit 2; }

if [ -z "$DIR" ]; then
    DIR=$(mktemp -d /var/tmp/pressmark-fresh-root.XXXXXX)
else
    mkdir "$DIR"    # never an existing directory: everything under it is removed at the end
fi
R="$DIR/root"
mkdir "$R"

cleanup() {
    local rc=$?
    trap - EXIT INT TERM
    # Whatever the tests left running inside the root goes first, or its
    # mounts stay busy.
    local pids
    pids=$(for p in /proc/[0-9]*; do
               [ "$(readlink "$p/root" 2>/dev/null)" = "$R" ] && echo "${p#/proc/}"
           done || true)
    [ -n "$pids" ] && kill -9 $pids 2>/dev/null
    sleep 0.2
    # Swap areas and zram devices a killed test run may have left inside.
    grep -F "$R/" /proc/swaps 2>/dev/null | awk '{print $1}' | xargs -r -n1 swapoff 2>/dev/null || true
    if mountpoint -q "$R"; then
        umount -R "$R" 2>/dev/null || umount -R -l "$R"
    fi
    if [ "$KEEP" = yes ]; then
        echo "fresh-root.sh: the root is kept in $R (unmounted)"
    else
        rm -rf --one-file-system "$DIR"
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

echo "fresh-root.sh: debootstrap bookworm (minbase, build-essential, perl, git) into $R"
debootstrap --variant=minbase --include=build-essential,perl,git,ca-certificates \
    bookworm "$R" "$MIRROR" > "$DIR/debootstrap.log" 2>&1 \
    || { tail -20 "$DIR/debootstrap.log" >&2; echo "fresh-root.sh: debootstrap failed" >&2; exit 1; }

# The root a mount point of its own (so `umount -R` takes everything), the
# kernel's file systems inside it as the tests need them: cgroups under
# /sys, zram and shared memory under /dev.
mount --bind "$R" "$R"
mount --make-private "$R"
mount -t proc proc "$R/proc"
mount --rbind /sys "$R/sys"
mount --make-rslave "$R/sys"
mount --rbind /dev "$R/dev"
mount --make-rslave "$R/dev"
mount -t tmpfs -o mode=0755 tmpfs "$R/run"
mount -t tmpfs -o mode=1777 tmpfs "$R/tmp"
cp /etc/resolv.conf "$R/etc/resolv.conf"
# The same package sources as this machine, so the root installs what CI would.
if [ -d /etc/apt/sources.list.d ] && ls /etc/apt/sources.list.d/*.sources >/dev/null 2>&1; then
    cp /etc/apt/sources.list.d/debian.sources "$R/etc/apt/sources.list.d/" 2>/dev/null || true
fi

git clone -q "$ROOT" "$R/src/pressmark"
echo "fresh-root.sh: cloned $(git -C "$ROOT" rev-parse --short HEAD) into /src/pressmark"

inside() {
    chroot "$R" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin CI=true "$@"
}
status=0
# job NAME COMMAND LOG: one of the README's two commands inside the root.
job() {
    echo "fresh-root.sh: $1"
    if inside /bin/bash -c "cd /src/pressmark && $2" > "$DIR/$3" 2>&1; then
        local summary
        # Every prove's count (make ci-test: the plain and the sanitised
        # build's, their lines prefixed), and every test file that skipped
        # whole, with its reason: what the root lacked.
        summary=$(grep -E '^((plain|check): )?Files=' "$DIR/$3" | sed -E 's/, [0-9]+ wallclock.*//' | paste -sd ';' || true)
        echo "fresh-root.sh: $1 passed (${summary:-$(grep -c . "$DIR/$3") lines of output})"
        grep -E '\.t \.+ skipped:' "$DIR/$3" | sed 's/^/fresh-root.sh:   /' || true
    else
        status=1
        tail -40 "$DIR/$3"
        echo "fresh-root.sh: $1 FAILED in the fresh root"
    fi
    grep -E 'command not found' "$DIR/$3" | sort | uniq -c | head -20 || true
}
job "./run.sh test" "./run.sh test" test.log
job "./run.sh" "./run.sh" main.log
# A quiet set-up: at most 20 lines before the tests (or the main job)
# start, however many packages it installed.
quiet() {  # quiet LOG MARK: the lines before the first line matching MARK
    local n
    # (the mark through the environment: awk -v would read its \. as an escape)
    n=$(MARK="$2" awk '$0 ~ ENVIRON["MARK"] { print NR - 1; found = 1; exit } END { if (!found) print "none" }' "$DIR/$1")
    if [ "$n" = none ] || [ "$n" -gt 20 ]; then
        status=1
        echo "fresh-root.sh: $1: $n lines before '$2' (at most 20)"
    else
        echo "fresh-root.sh: $1: $n lines of set-up and build before '$2'"
    fi
}
quiet test.log '^run\.sh: tests: '
quiet main.log '^run\.sh: main job'
# Numbers a person reads: none in e-notation in what the main job printed
# or in its report's text.
page="$R/src/pressmark/out/report/report.html"
enote=$( { cat "$DIR/main.log"; [ -f "$page" ] && sed -e 's/<[^>]*>/ /g' "$page"; } |
         grep -E '(^|[^0-9A-Za-z])[0-9]+(\.[0-9]*)?[eE][+-][0-9]' | grep -vE '[0-9a-f]{8}-[0-9a-f]{4}-' | head -5 || true)
if [ -n "$enote" ] || [ ! -f "$page" ]; then
    status=1
    echo "fresh-root.sh: the main job's output or report shows e-notation (or has no report):"
    printf '%s\n' "$enote" | sed 's/^/fresh-root.sh:   /'
else
    echo "fresh-root.sh: no number in e-notation in the main job's output and report"
fi
if [ "$KEEP" = yes ]; then
    cp "$DIR/test.log" "$DIR/main.log" "$DIR/debootstrap.log" /var/tmp/ 2>/dev/null || true
fi
exit "$status"
