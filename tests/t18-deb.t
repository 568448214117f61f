#!/bin/bash
# The Debian package: dpkg-buildpackage builds it from a copy of this tree,
# lintian finds nothing, and on this machine it installs, runs (doctor, a
# record into root's /var/lib/pressmark, its man pages, completion, the
# nightly service's script and units) and is removed and purged leaving
# the file system as it was.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || skip_all "dpkg -i needs root"
for t in dpkg-buildpackage dh lintian; do
    command -v "$t" > /dev/null || skip_all "$t is missing (./run.sh installs dpkg-dev, debhelper and lintian)"
done
# The package is built from the sources with dpkg-buildflags, not from the
# binary under test: once, under make test, is enough.
case $PM in
    "$ROOT/build/pressmark" | "$ROOT/pressmark") ;;
    *) skip_all "the package builds its own binary; tested once, under make test" ;;
esac
[ "$(dpkg-query -W -f='${Status}' pressmark 2>/dev/null)" != "install ok installed" ] ||
    skip_all "a pressmark package is installed here; this test would replace it"
# The build and lintian touch nothing outside TMP, but load the machine:
# not beside the tests that measure it (the quiet lock, shared, as t80's).
beside_quiet_machine

# What the package may touch, before: compared after the purge.
snapshot() {
    find /etc /usr /lib /var/lib -xdev \( -path /var/lib/dpkg -o -path /var/lib/apt -o -path /var/lib/man-db \
        -o -path /var/lib/systemd/deb-systemd-helper-enabled \) -prune -o -print 2>/dev/null | LC_ALL=C sort
}

SRC="$TMP/src/pressmark"
mkdir -p "$SRC"
(cd "$ROOT" && git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$SRC")
# (with parallel=N, as Debian's build daemons give it; its man pages come
# from pressmark's --help, and a subcommand's --help may recover a killed
# run's leftovers first: a state directory of its own, beside the
# machine's tests)
mkdir -m 700 "$TMP/state"
(cd "$SRC" && PRESSMARK_STATE_DIR="$TMP/state" DEB_BUILD_OPTIONS="parallel=$(nproc)" dpkg-buildpackage -us -uc -b) > "$TMP/build.log" 2>&1
rc=$?
is "$rc" 0 "dpkg-buildpackage -us -uc -b builds it"
if [ "$rc" -ne 0 ]; then
    while IFS= read -r l; do diag "# $l"; done < <(tail -20 "$TMP/build.log")
fi
ver=$(cd "$SRC" && dpkg-parsechangelog -S Version)
deb="$TMP/src/pressmark_${ver}_$(dpkg --print-architecture).deb"
ok "  into pressmark_${ver}_$(dpkg --print-architecture).deb" test -s "$deb"
like "$(grep -m1 -- ' -c -o build/lib/' "$TMP/build.log")" "-D_FORTIFY_SOURCE=2 .*-fstack-protector-strong" \
    "  compiled with dpkg-buildflags' hardening"
depends=$(dpkg-deb -f "$deb" Depends)
for lib in libc6 libgsl27 libinih1 libjansson4 libsqlite3-0 zlib1g; do
    like "$depends" "(^|, )$lib \\(>= " "  Depends on $lib, from shlibs"
done
# libcurl and libarchive are opened on first use, not linked, so shlibs
# cannot see them: debian/control names them, at the versions whose
# functions pressmark calls (CURLOPT_PROTOCOLS_STR is 7.85.0's).
like "$depends" "(^|, )libcurl4 \\(>= 7\\.85\\.0\\)(,|$)" "  Depends on libcurl4 (>= 7.85.0), from debian/control"
like "$depends" "(^|, )libarchive13 \\(>= 3\\.0\\.4\\)(,|$)" "  Depends on libarchive13 (>= 3.0.4), from debian/control"
# Neither is linked: each start is spared their ~50 libraries.
dpkg-deb -x "$deb" "$TMP/unpacked"
needed=$(readelf -d "$TMP/unpacked/usr/bin/pressmark" | grep '(NEEDED)')
like "$needed" "libc\\.so" "  the binary's NEEDED read (readelf -d)"
unlike "$needed" "libcurl|libarchive" "  and neither libcurl nor libarchive among them"
# (libyaml's symbols file gives every symbol version 0: no version wanted)
like "$depends" "(^|, )libyaml-0-2(,|$)" "  Depends on libyaml-0-2, from shlibs"
like "$(dpkg-deb -f "$deb" Recommends)" "gnuplot-nox.*linux-perf.*qemu-system-x86" "  Recommends gnuplot-nox, linux-perf, qemu-system-x86"

# From here on this test is one of the machine's (the quiet lock let go
# first: a test that measures the machine takes it before the lane).
flock -u 8
machine_lane
for d in /var/lib/pressmark /etc/pressmark; do
    if [ -e "$d" ]; then
        skip "$d exists: purging the test's package would remove it"
        done_testing; exit
    fi
done
# lintian reads the built files only: it runs while the package is
# installed and tried (its half minute is not added to the machine lane's),
# its temporary files in TMP (it leaves MLDBM files behind in /tmp).
TMPDIR="$TMP" lintian --pedantic -I "$TMP/src/pressmark_${ver}_"*.changes > "$TMP/lintian.out" 2>&1 &
lintian_pid=$!
cleanup_add "kill $lintian_pid"
snapshot > "$TMP/before"
ls /var/lib/systemd/deb-systemd-helper-enabled 2>/dev/null | LC_ALL=C sort > "$TMP/dsh-before"
cleanup_add "dpkg -P pressmark"
dpkg -i "$deb" > "$TMP/inst.log" 2>&1
is "$?" 0 "dpkg -i installs it"
is "$(/usr/bin/pressmark --version)" "pressmark $ver" "  --version is the package's"
doctor=$(env -u PRESSMARK_DB -u XDG_DATA_HOME /usr/bin/pressmark doctor 2>&1)
is "$?" 0 "  pressmark doctor from the installed binary"
like "$doctor" "database +/var/lib/pressmark/results.db" "  root's database is /var/lib/pressmark/results.db"
env -u PRESSMARK_DB -u XDG_DATA_HOME /usr/bin/pressmark record --quiet --label from-deb -- sh -c 'echo hi > /dev/null'
is "$?" 0 "  a record from the installed binary"
is "$(sqlite3 /var/lib/pressmark/results.db "select label || ':' || status from run")" "from-deb:ok" "  stored there"
like "$(LC_ALL=C MANWIDTH=200 man -E ascii 7 pressmark-metrics 2>&1)" "heartbeat.late_p99_ms \\(ms, lower is better\\)" "  man finds pressmark-metrics(7)"
like "$(LC_ALL=C man -E ascii pressmark-compare 2>&1)" "--fail-on-regression" "  and pressmark-compare(1)"
is "$(bash -c '. /usr/share/bash-completion/completions/pressmark && complete -p pressmark')" "complete -F _pressmark pressmark" "  completion in bash-completion's directory"
if command -v systemd-analyze > /dev/null; then
    systemd-analyze verify /lib/systemd/system/pressmark-nightly.service /lib/systemd/system/pressmark-nightly.timer > "$TMP/verify" 2>&1
    is "$?:$(cat "$TMP/verify")" "0:" "  systemd-analyze verify: the units, their ExecStart and man pages"
else
    skip "systemd-analyze is missing"
fi
ok "  the timer is installed disabled" test ! -e /etc/systemd/system/timers.target.wants/pressmark-nightly.timer
/usr/libexec/pressmark/pressmark-nightly > "$TMP/n.out" 2> "$TMP/n.err"
is "$?:$(wc -l < "$TMP/n.err")" "2:1" "  the service's script, unconfigured: exit 2, one line"
like "$(cat "$TMP/n.err")" "PRESSMARK_NIGHTLY_SUITE is not set" "  naming the setting"
ok "  its settings are a conffile" grep -qx /etc/pressmark/nightly.conf /var/lib/dpkg/info/pressmark.conffiles

wait "$lintian_pid"
is "$?" 0 "lintian exits 0"
is "$(grep -E '^(E|W): ' "$TMP/lintian.out")" "" "  no error and no warning"
is "$(grep -E '^[EWIPX]: ' "$TMP/lintian.out")" "" "  no tag at all, even pedantic and informational"

dpkg -r pressmark > "$TMP/rm.log" 2>&1
is "$?" 0 "dpkg -r removes it"
ok "  the binary is gone" test ! -e /usr/bin/pressmark
ok "  the results are kept until purge" test -s /var/lib/pressmark/results.db
dpkg -P pressmark > "$TMP/purge.log" 2>&1
is "$?" 0 "dpkg -P purges it"
snapshot > "$TMP/after"
is "$(LC_ALL=C comm -3 "$TMP/before" "$TMP/after" | head -20)" "" "  /etc, /usr, /lib and /var/lib are as they were"
is "$(ls /var/lib/systemd/deb-systemd-helper-enabled 2>/dev/null | LC_ALL=C sort | comm -3 "$TMP/dsh-before" -)" "" "  and so is systemd's record of enabled units"
done_testing
