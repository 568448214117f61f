#!/bin/bash
# The two commands anyone types:
#   ./run.sh        set up, build, run a reference suite and show its report
#   ./run.sh test   set up, build, run the whole test suite (make ci-test)
set -euo pipefail
cd "$(dirname "$0")"

# Debian packages pressmark builds against, runs and tests with. Everything
# the tests, bench/ and the main job execute comes from this list or from
# what every Debian system has (essential: bash, coreutils, grep, sed,
# findutils, mawk, util-linux's setpriv, mkswap and findmnt, perl-base).
# tools/fresh-root.sh proves it on a bare debootstrap root.
PACKAGES=(
    gcc make pkg-config libsqlite3-dev libcurl4-openssl-dev libgsl-dev zlib1g-dev libjansson-dev libinih-dev  # build
    libarchive-dev                                                               # build: a guest's results, read strictly
    libyaml-dev                                                                  # build: LAVA's job definitions and reasons (YAML)
    gnuplot-nox linux-perf                                                       # plot, --profile
    sqlite3 perl procps iproute2 python3 curl ca-certificates openssl            # tests: sqlite3, prove, pgrep, ip netns, peers, HTTP, TLS
    python3-jsonschema man-db                                                    # tests: the JSON outputs against docs/json, man pages
    python3-scipy                                                                # tests: the statistics against scipy's (t47)
    python3-statsmodels                                                          # tests: Holm and Benjamini-Hochberg against its multipletests (t47)
    python3-yaml lava-common                                                     # tests: LAVA job definitions parsed, and against LAVA's schema
    dpkg-dev debhelper lintian                                                   # tests: the Debian package
    victoria-metrics chromium                                                    # tests: push target, HTML report in a browser
    rt-tests stress-ng                                                           # bench: hackbench, stress-ng (peers)
    sysbench                                                                     # tests: record --figures sysbench of a live run (t87)
    redis-server redis-tools                                                     # the redis workload: its server and redis-benchmark (t58)
    memcached libmemcached-tools                                                 # the memcached workload's server (t59); memcaslap for record
    linux-source-6.1 flex bison bc libelf-dev libssl-dev                         # build --linux: Debian's kernel source, what building it needs
    postgresql                                                                   # the postgres workload: its server, initdb and pgbench (t61)
    fio                                                                          # the fio workload (t62), record --figures fio (t87)
    qemu-system-x86 qemu-utils debootstrap kexec-tools                           # kernels under test: VMs, guest image, kexec
)

missing_packages() {
    local p
    for p in "${PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' \
            || printf '%s ' "$p"
    done
}

# One line per step; what apt, dpkg, make and the tests' builds print goes
# to LOG, named (with its last lines) when a step fails.
LOG=build/run.log
say() { printf 'run.sh: %s\n' "$*"; }
step() {  # step DESCRIPTION COMMAND...
    local desc=$1; shift
    say "$desc"
    if ! "$@" >>"$LOG" 2>&1; then
        say "failed: $desc; the last lines of $LOG:" >&2
        tail -n 15 "$LOG" | sed 's/^/    /' >&2
        exit 1
    fi
}

install_packages() {  # install_packages PACKAGE...
    export DEBIAN_FRONTEND=noninteractive
    # kexec-tools would otherwise take over every reboot of this machine;
    # pressmark loads a kernel with kexec only when told (--reboot kexec).
    echo "kexec-tools kexec-tools/load_kexec boolean false" | debconf-set-selections
    apt-get update -q
    apt-get install -y -q --no-install-recommends "$@"
}

setup() {
    local missing
    missing=$(missing_packages)
    if [ -z "$missing" ]; then
        say "set-up: every package is installed"
        return 0
    fi
    if [ "$(id -u)" -ne 0 ]; then
        echo "run.sh: missing packages; as root run: apt-get install -y $missing" >&2
        exit 2
    fi
    # shellcheck disable=SC2086
    step "set-up: installing $(wc -w <<<"$missing") packages (a few minutes): $missing" install_packages $missing
}

# build WHAT TARGET...: the main job needs everything; make ci-test only
# the program first (its machine's tests start at once, the rest is made
# beside them).
build() {
    local what=$1; shift
    step "build: $what" make -s -j"$(nproc)" "$@"
}

mkdir -p build
: > "$LOG"
case "${1:-main}" in
    main)
        say "set-up, build, then the main job: a reference suite, its comparison and its report (about a minute here; log: $LOG)"
        setup; build "pressmark and its unit tests" all
        say "main job: tools/main-job.sh"
        exec tools/main-job.sh
        ;;
    test)
        say "set-up, build, then every test: make ci-test (about 10 minutes on two cores; log: $LOG)"
        setup; build "pressmark (make ci-test makes the rest beside the tests)" pressmark build/tests/stats_tool
        say "tests: make ci-test (every test at least once: the plain build's, and beside them the sanitised build's once it is made)"
        exec make -s ci-test
        ;;
    *)
        echo "run.sh: unknown job '$1' (accepted: no argument for the main job, or 'test')" >&2
        exit 2
        ;;
esac
