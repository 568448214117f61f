#!/bin/bash
# Golden outputs (issue 45): what compare, show, history, report, suite
# status, suite list and list print for a fixed database, byte for byte,
# with their standard error and exit status, against tests/golden/. Code
# may move between folders; what the commands print may not, unless a
# change means it to (then regenerate, and the diff is the review):
#   tests/t88-golden.t --update      (or PM_GOLDEN_UPDATE=1, outside make)
# rewrites every golden file from this build's output.
# The database is tests/fixtures/golden.sql loaded into this test's
# directory (no run is made); each command gets a fresh copy of it. Every
# command runs with an environment of its own (env -i: LC_ALL=C, TZ 5:45 east of UTC,
# a PATH whose gnuplot is a stand-in that draws a fixed SVG, so charts are
# pressmark's scripts and data, not gnuplot's drawing), standard input
# from /dev/null and standard output and error to files. The one thing
# that is not pinned: the HTML report's "generated" time, which is the
# clock's (masked before comparing). Reads and writes nothing but its own
# directory.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || exit 1
GOLDEN="$ROOT/tests/golden"
# Only when asked for exactly, and never under make or CI, where a green
# run that rewrote the tree would hide every difference.
UPDATE=
[ "${PM_GOLDEN_UPDATE:-}" = 1 ] || [ "${1:-}" = --update ] && UPDATE=1
if [ -n "$UPDATE" ] && { [ -n "${CI:-}" ] || [ -n "${PM_FREE_TESTS:-}" ]; }; then
    bad_update=1; UPDATE=
fi

# Beside the tests that change the machine (FREE_TESTS): a state
# directory of its own, so no command here recovers their runs' leftovers.
mkdir -m 700 "$TMP/state" "$TMP/home" "$TMP/bin"
cat > "$TMP/bin/gnuplot" <<'SH'
#!/bin/sh
# gnuplot's stand-in: each image the script names (set output '...') is a
# fixed SVG that names the script (shell builtins only: a report draws
# some 30 charts).
q="'"
while IFS= read -r line; do
    case $line in
    "set output '"*"'")
        img=${line#"set output '"}
        img=${img%"'"}
        case $img in *"$q$q"*) continue ;; esac
        printf '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><!-- %s --></svg>\n' "$1" > "$img" ;;
    esac
done < "$1"
SH
chmod +x "$TMP/bin/gnuplot"
setup "the golden database from tests/fixtures/golden.sql" \
    sqlite3 -batch -bail "$TMP/golden.db" ".read $ROOT/tests/fixtures/golden.sql"
if [ -n "$UPDATE" ]; then mkdir -p "$GOLDEN"; fi

# shown ARG...: the command as the golden file's first line shows it: an
# argument that is not plain in single quotes (a quote in it as '\'').
shown() {
    local a out=pressmark q="'"
    for a in "$@"; do
        if [[ $a =~ ^[A-Za-z0-9._/=:@%+-]+$ ]]; then out+=" $a"; else out+=" '${a//$q/$q\\$q$q}'"; fi
    done
    printf '%s\n' "$out"
}

# golden NAME ARG...: pressmark ARG... on a fresh copy of the database, in
# a directory of its own, into one file: the command, its exit status, its
# standard output and error, and each file it wrote there (every file
# under FILES, a space-separated list of paths, in name order); compared
# byte for byte with tests/golden/NAME (or written there, --update).
golden() {
    local name=$1; shift
    local w="$TMP/w-$name" out="$TMP/out/$name" rc f
    MADE+=("$name")
    if ! mkdir -p "$w" "$TMP/out" || ! cp "$TMP/golden.db" "$w/golden.db"; then
        _n=$((_n + 1)); _failed=$((_failed + 1)); diag "not ok $_n - $name: no copy of the database for it"; return
    fi
    local sum_before; sum_before=$(md5sum < "$w/golden.db")
    # TZ: a zone 5:45 east of UTC (POSIX, no tzdata), so an output that
    # mixes local time and UTC shows it; timeout: a command that hangs
    # (on a lock, say) fails its case rather than the whole test suite.
    (cd "$w" && exec timeout -k 5 60 env -i PATH="$TMP/bin:/usr/bin:/bin" HOME="$TMP/home" LC_ALL=C TZ=XST-5:45 \
        PRESSMARK_DB=golden.db PRESSMARK_STATE_DIR="$TMP/state" \
        ${ASAN_OPTIONS+ASAN_OPTIONS="$ASAN_OPTIONS"} ${UBSAN_OPTIONS+UBSAN_OPTIONS="$UBSAN_OPTIONS"} \
        "$PM" "$@" < /dev/null > "$w/.stdout" 2> "$w/.stderr")
    rc=$?
    {
        printf '$ %s' "$(shown "$@")"; printf '\nexit %d\n--- stdout\n' "$rc"
        cat "$w/.stdout"; printf '\n--- stderr\n'; cat "$w/.stderr"
        # Reading commands leave the database as it was, byte for byte.
        [ "$(md5sum < "$w/golden.db")" = "$sum_before" ] && echo "--- database unchanged" || echo "--- database CHANGED"
        # Every file it left, not only those it was told to write.
        for f in $(cd "$w" && find . -type f ! -name golden.db ! -name .stdout ! -name .stderr | sed 's|^\./||' | LC_ALL=C sort); do
            printf '\n--- file %s\n' "$f"
            case $f in
            # The report's time of making is the clock's: that one line masked.
            *.html) sed -E 's|^(<p class="meta">generated )[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2} UTC( from )|\1(time)\2|' "$w/$f" ;;
            *) cat "$w/$f" ;;
            esac
        done
    } > "$out"
    if [ -n "$UPDATE" ]; then
        cp "$out" "$GOLDEN/$name" && ok "$name: written to tests/golden/" true
        return
    fi
    _n=$((_n + 1))
    if [ ! -f "$GOLDEN/$name" ]; then
        diag "not ok $_n - $name: no tests/golden/$name (tests/t88-golden.t --update writes it)"
        _failed=$((_failed + 1))
    elif cmp -s "$GOLDEN/$name" "$out"; then
        echo "ok $_n - $name: as tests/golden/$name"
    else
        diag "not ok $_n - $name: differs from tests/golden/$name (its first 40 lines of diff -u):"
        local l
        while IFS= read -r l; do diag "#   $l"; done < <(diff -u "$GOLDEN/$name" "$out" | head -40)
        _failed=$((_failed + 1))
    fi
}
MADE=()
HOSTILE='o'"'"'dd, "naïve" <b>|&'

# compare: every label of each workload, in each format and layout.
golden compare compare
golden compare-long compare --long
golden compare-json compare --format json
golden compare-csv compare --format csv
golden compare-markdown compare --format markdown
golden compare-html compare --format html
# Named labels against a baseline, the gate failing (exit 1), its JUnit.
FILES=junit.xml golden compare-regression compare --baseline 'chat heap 64M' 'chat heap 32M' "$HOSTILE" \
    --fail-on-regression --junit junit.xml
# The statistics issue 45 moves: the bootstrap's intervals (seeded) and
# outliers left out.
golden compare-bootstrap compare --long --bootstrap 500 --seed 45 --exclude-outliers 'chat heap 64M' 'chat heap 32M'
# A complete suite's cells, and the running one's (some too few to judge).
golden compare-suite-8 compare --suite 8
golden compare-suite-8-json compare --suite 8 --format json
golden compare-suite compare --suite
# Each label against its own history: a regression in the window (exit 1).
golden compare-history compare --history --fail-on-regression
golden compare-history-json compare --history --format json

# show: a run, a swapping run that ran out of memory, a label (the hostile
# one), JSON, a recorded command's output, and a run that is not there.
golden show-103 show 103
golden show-101 show 101
golden show-103-json show 103 --format json
golden show-label show "$HOSTILE"
golden show-label-json show 'make -j2' --format json
golden show-output-110 show --output 110
golden show-missing show 999

# history: change points, kernel, settings and pressmark changes over
# suite nights; UTC days outside suites; JSON and CSV; a chart's script
# and data; a label that is not there.
golden history history 'chat heap 32M' --change-points
golden history-json history 'chat heap 32M' --change-points --format json
golden history-csv history 'chat heap 32M' --change-points --format csv
golden history-metric history 'usemem cap 256M' --metric swap.out_kb --seed 45 --change-points
golden history-days history "$HOSTILE"
FILES='h.svg h.gp h.dat' golden history-chart history 'chat heap 64M' --change-points --chart h.svg
golden history-missing history 'no such label'

# report: the whole database's page, and a suite's, with their charts'
# scripts and data.
FILES=report golden report report --out report
FILES=suite golden report-suite report --suite 8 --out suite

# suite status (the running suite, then a complete one), suite list, list.
golden suite-status suite status
golden suite-status-8 suite status 8
golden suite-list suite list
golden list list

# Every file of tests/golden/ is one this test makes: a case taken out
# takes its file with it (--update removes what is left over).
left=$(cd "$GOLDEN" && LC_ALL=C comm -23 <(ls | LC_ALL=C sort) <(printf '%s\n' "${MADE[@]}" | LC_ALL=C sort))
if [ -n "$UPDATE" ]; then
    for f in $left; do rm -f "$GOLDEN/$f"; done
    left=
fi
is "$left" "" "tests/golden/ holds only the files of these cases"
is "${bad_update:-}" "" "--update is refused under make or CI (CI or PM_FREE_TESTS set): nothing was rewritten"

done_testing
