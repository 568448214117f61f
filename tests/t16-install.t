#!/bin/bash
# make install / uninstall into a staging root, the installed binary's
# per-user database, its man pages (rendered by man, options against
# --help both ways) and Tab completion driven through bash itself.
. "$(dirname "$0")/lib.sh"
STAGE="$TMP/stage"
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$ROOT" install DESTDIR="$STAGE" PREFIX=/usr > "$TMP/install.out" 2>&1
is "$?" 0 "make install DESTDIR=... PREFIX=/usr" || sed 's/^/#   install: /' "$TMP/install.out" | tail -n 20
want="/usr/bin/pressmark
/etc/pressmark/nightly.conf
/usr/libexec/pressmark/pressmark-nightly
/usr/lib/systemd/system/pressmark-nightly.service
/usr/lib/systemd/system/pressmark-nightly.timer
/usr/share/man/man8/pressmark-nightly.8
/usr/share/bash-completion/completions/pressmark
/usr/share/doc/pressmark/README.md
/usr/share/doc/pressmark/security.md
$(cd "$ROOT/docs/guide" && ls *.md | sed 's|^|/usr/share/doc/pressmark/guide/|')
$(cd "$ROOT/docs/guide/img" && ls *.png | sed 's|^|/usr/share/doc/pressmark/guide/img/|')
$(cd "$ROOT/docs/json" && ls *.json | sed 's|^|/usr/share/doc/pressmark/json/|')
$(for c in bisect chat-server compare doctor export help history lava list merge plot push record report run show suite; do echo "/usr/share/man/man1/pressmark-$c.1"; done)
/usr/share/man/man1/pressmark.1
/usr/share/man/man5/pressmark-suite.5
/usr/share/man/man7/pressmark-metrics.7
$(cd "$ROOT/grafana" && ls *.json | sed 's|^|/usr/share/pressmark/grafana/|')
$(cd "$ROOT/suites" && ls *.ini | sed 's|^|/usr/share/pressmark/suites/|')"
is "$(cd "$STAGE" && find . -type f | sed 's|^\.||' | LC_ALL=C sort)" "$(printf '%s\n' "$want" | LC_ALL=C sort)" "exactly the listed files are installed"
PMI="$STAGE/usr/bin/pressmark"
like "$("$PMI" --version)" "^pressmark [0-9a-z.+~-]+" "the installed binary runs: --version"

# Installed, the default database is the user's, not beside the binary.
env -u PRESSMARK_DB XDG_DATA_HOME="$TMP/data" "$PMI" record --quiet --label installed -- true
is "$?" 0 "a run from the installed binary"
is "$(sqlite3 "$TMP/data/pressmark/results.db" "select label || ':' || status from run")" "installed:ok" "  stored in \$XDG_DATA_HOME/pressmark/results.db"
ok "  nothing beside the installed binary" test ! -e "$STAGE/usr/bin/results.db"
like "$(env -u PRESSMARK_DB XDG_DATA_HOME="$TMP/data" "$PMI" doctor 2>&1)" "database +$TMP/data/pressmark/results.db" "  doctor names it"
if [ "$(id -u)" -eq 0 ]; then
    like "$(env -u PRESSMARK_DB -u XDG_DATA_HOME "$PMI" doctor 2>&1)" "database +/var/lib/pressmark/results.db" "  root without XDG_DATA_HOME: /var/lib/pressmark"
else
    like "$(env -u PRESSMARK_DB -u XDG_DATA_HOME HOME="$TMP/home" "$PMI" doctor 2>&1)" "database +$TMP/home/.local/share/pressmark/results.db" "  without XDG_DATA_HOME: ~/.local/share/pressmark"
fi
like "$(env -u PRESSMARK_DB "$ROOT/pressmark" doctor 2>&1)" "database +$ROOT/results.db" "  while in a clone it stays beside the binary"

# Man pages: every one renders without a warning, and every option
# --help shows is in its page and the other way round.
for page in "$STAGE"/usr/share/man/man*/*; do
    LC_ALL=C MANWIDTH=80 man -E ascii -l "$page" > "$TMP/page.txt" 2> "$TMP/page.err"
    name=$(basename "$page")
    ok "$name renders without a warning" test ! -s "$TMP/page.err" -a -s "$TMP/page.txt"
    case $name in
        pressmark-*.1)
            c=${name#pressmark-}; c=${c%.1}
            if [ "$c" = suite ]; then
                for sub in "" plan run status list next-kernel; do "$PMI" suite $sub --help; done > "$TMP/help.txt" 2>&1
            elif [ "$c" = lava ]; then
                for sub in "" job submit collect; do "$PMI" lava $sub --help; done > "$TMP/help.txt" 2>&1
            elif [ "$c" = run ]; then
                for w in $("$PMI" run --help | awk '/^workloads:/ { on = 1; next } on && NF == 0 { exit } on { print $1 }'); do
                    "$PMI" run "$w" --help
                done > "$TMP/help.txt" 2>&1
            else
                "$PMI" "$c" --help > "$TMP/help.txt" 2>&1
            fi
            is "$(grep -oE -- '--[a-z][a-z0-9-]*' "$TMP/page.txt" | sort -u | tr '\n' ' ')" \
               "$(grep -oE -- '--[a-z][a-z0-9-]*' "$TMP/help.txt" | sort -u | tr '\n' ' ')" "  $name: the same options as pressmark $c --help"
            ;;
    esac
done
like "$(LC_ALL=C MANPATH="$STAGE/usr/share/man" man -E ascii pressmark-usemem 2>&1; LC_ALL=C MANPATH="$STAGE/usr/share/man" man -E ascii 1 pressmark-run)" "--access A" "man finds pressmark-run(1) by name, with usemem's options"
like "$(LC_ALL=C MANPATH="$STAGE/usr/share/man" man -E ascii 5 pressmark-suite)" "A suite file is INI" "pressmark-suite(5): the file format"
like "$(LC_ALL=C MANWIDTH=200 MANPATH="$STAGE/usr/share/man" man -E ascii 7 pressmark-metrics)" "chat.latency_p99_us \(us, lower is better\)" "pressmark-metrics(7): each metric with its unit and direction"

# Tab completion, through bash's own completion machinery.
q_db="$TMP/comp.db"
PRESSMARK_DB="$q_db" "$PMI" record --quiet --label nightly-6.12 -- true
PRESSMARK_DB="$q_db" "$PMI" record --quiet --label nightly-6.1 -- true
complete_words() {  # complete_words WORD...: what Tab offers after them (the last is being typed)
    bash -c '
        . "$1"; shift
        [ "$(complete -p pressmark)" = "complete -F _pressmark pressmark" ] || { echo "no completion registered"; exit 1; }
        COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
        _pressmark
        [ ${#COMPREPLY[@]} -eq 0 ] || printf "%s\n" "${COMPREPLY[@]}" | LC_ALL=C sort | tr "\n" " "
    ' bash "$STAGE/usr/share/bash-completion/completions/pressmark" "$PMI" "$@"
}
like "$(complete_words "")" "compare .*record .*run .*suite" "Tab after pressmark: the commands"
like "$(complete_words run "")" "filestream .*pagefault .*stutter .*usemem" "Tab after run: the workloads"
is "$(complete_words run usemem --pat)" "--pattern " "an option of the workload being typed"
is "$(complete_words run usemem --pattern "")" "rand seq " "an enumeration's values (--pattern)"
is "$(complete_words run chat --cap-method "")" "auto balloon cgroup1 cgroup2 none " "--cap-method's methods"
is "$(complete_words compare --format "")" "csv html json markdown text " "compare --format's formats"
is "$(complete_words --db "$q_db" show nightly)" "nightly-6.1 nightly-6.12 " "labels from the database --db names"
is "$(PRESSMARK_DB="$q_db" complete_words compare --baseline n)" "nightly-6.1 nightly-6.12 " "--baseline: labels from \$PRESSMARK_DB"
is "$(complete_words suite run --ag)" "--again " "suite run's own options"
is "$(complete_words --db "$q_db" compare --metric time.e)" "time.elapsed_s time.exit_status " "--metric: metric names from the database"
is "$(complete_words help me)" "merge metrics " "help: the commands, and metrics"
is "$(complete_words --db "$TMP/none.db" show "")" "" "no database: nothing offered, nothing made"
ok "  (and none was made)" test ! -e "$TMP/none.db"

# Words from a database are data: labels and a metric name that are
# command substitutions, a glob, a variable, words with spaces; completing
# them runs nothing and expands nothing, and each offered word, as typed,
# is its label. The run happens in a directory of the test's own, where
# the glob would match a file.
h_db="$TMP/hostile-comp.db"
mkdir "$TMP/pwn"
touch "$TMP/pwn/xfile"
for l in 'x$(touch${IFS}pwned-label)' 'x`touch pwned-tick`' 'x*' 'x two  words' 'x$HOME' "x'q'\"d\";ls"; do
    PRESSMARK_DB="$h_db" "$PMI" record --quiet --label "$l" -- true
done
sqlite3 "$h_db" "update metric set name = 'x\$(touch\${IFS}pwned-metric)' where name = 'time.elapsed_s'"
complete_lines() {  # like complete_words, one candidate a line
    bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _pressmark; printf "%s\n" "${COMPREPLY[@]}"' \
        bash "$STAGE/usr/share/bash-completion/completions/pressmark" "$PMI" "$@"
}
offered=$(cd "$TMP/pwn" && complete_lines --db "$h_db" show x)
is "$(ls "$TMP/pwn")" "xfile" "completing hostile labels runs nothing (no file made) and globs nothing"
is "$(printf '%s\n' "$offered" | grep -c .)" 6 "  every label is offered, each as one word"
is "$(printf '%s\n' "$offered" | grep -c xfile)" 0 "  the glob's file is not among them"
labels=$(cd "$TMP/pwn" && bash -c '
    . "$1"; COMP_WORDS=("$2" --db "$3" show x); COMP_CWORD=4; _pressmark
    for w in "${COMPREPLY[@]}"; do eval "set -- $w"; printf "%s\n" "$1"; done | LC_ALL=C sort' bash \
    "$STAGE/usr/share/bash-completion/completions/pressmark" "$PMI" "$h_db")
is "$labels" "$(sqlite3 "$h_db" "select distinct label from run" | LC_ALL=C sort)" \
    "  each offered word, typed, is its label byte for byte"
is "$(ls "$TMP/pwn")" "xfile" "  (typing them ran nothing either)"
is "$(cd "$TMP/pwn" && complete_lines --db "$h_db" show 'x*')" 'x\*' "a typed prefix is matched as text: 'x*' offers the label x* alone"
m=$(cd "$TMP/pwn" && complete_words --db "$h_db" compare --metric 'x')
is "$(ls "$TMP/pwn")" "xfile" "a hostile metric name is completed without running it"
like "$m" '^x\\\$\\\(touch\\\$\\\{IFS\\\}pwned-metric\\\) $' "  offered quoted, as it is"

env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$ROOT" uninstall DESTDIR="$STAGE" PREFIX=/usr > "$TMP/uninstall.out" 2>&1
is "$?" 0 "make uninstall"
is "$(cd "$STAGE" && find . -type f | wc -l)" 0 "  every installed file is gone"
done_testing
