#!/bin/bash
# Write pressmark's man pages into DIR from its own --help output, which is
# printed from the option tables: one source, so the pages cannot drift
# from the program. pressmark(1), pressmark-COMMAND(1) for every command
# (pressmark-run(1) with every workload's options) and pressmark-suite(5).
#   man/gen.sh PRESSMARK DIR VERSION
set -euo pipefail
# (An awk that exits at the end of what it wants never reads from a pipe
# here: the writer, still writing, would die of SIGPIPE and fail the
# pipeline, as under a loaded machine's make -j2 it did: Error 141. The
# texts are taken whole first and given to awk as here-strings.)
PM=$1 DIR=$2 VERSION=$3
mkdir -p "$DIR"
DATE=$(date -u -d "@${SOURCE_DATE_EPOCH:-$(date +%s)}" +%Y-%m-%d)

# Help text to troff: a line beginning "  --opt ARG   text" becomes a tagged
# paragraph; "section:" a subsection; anything else running text. Every
# backslash is escaped, a line may not begin with a dot or quote, and the
# dashes of options are minus signs (so they can be searched and pasted).
# The escapes every page's awk uses.
TROFF_FUNCS='
    function esc(s) { gsub(/\\/, "\\e", s); return s }
    function lead(s) { if (s ~ /^[.\047]/) s = "\\&" s; return s }
    function opt(s) { gsub(/-/, "\\-", s); return s }
    # An option named in running text keeps minus signs too: groff would
    # break a line after a hyphen ("--fail-" / "on-regression").
    function optw(s,   out, m) {
        out = ""
        while (match(s, /--[a-z0-9][a-z0-9-]*/)) {
            m = substr(s, RSTART, RLENGTH); gsub(/-/, "\\-", m)
            out = out substr(s, 1, RSTART - 1) m; s = substr(s, RSTART + RLENGTH)
        }
        return out s
    }'
to_troff() {
    awk "$TROFF_FUNCS"'
    /^  [^ ]/ {
        line = $0; sub(/^  /, "", line)
        # The option and its argument end at the first run of two spaces.
        if (match(line, /  +/)) { o = substr(line, 1, RSTART - 1); t = substr(line, RSTART + RLENGTH) }
        else { o = line; t = "" }
        split(o, w, " ")
        printf ".TP\n\\fB%s\\fR", opt(esc(w[1]))
        for (i = 2; i in w; i++) printf " \\fI%s\\fR", esc(w[i])
        printf "\n"
        # A long option has its text on the next, indented line.
        if (t == "") pend = 1; else printf "%s\n", lead(optw(esc(t)))
        next
    }
    pend && /^   +[^ ]/ { line = $0; sub(/^ +/, "", line); print lead(optw(esc(line))); pend = 0; next }
    { pend = 0 }
    # A wrapped option text goes on in the same paragraph.
    /^          +[^ ]/ { line = $0; sub(/^ +/, "", line); print lead(optw(esc(line))); next }
    /^[a-zA-Z][a-zA-Z ,()\/-]*:$/ { printf ".SS %s\n", esc($0); next }
    /^$/ { print ".PP"; next }
    { print lead(optw(esc($0))) }'
}

# pressmark-CMD(1): NAME from the overview, SYNOPSIS from the usage line(s),
# then the rest of the help as DESCRIPTION and OPTIONS.
page() {  # page NAME SECTION SUMMARY HELPTEXT [MORE]
    local name=$1 sec=$2 summary=$3 help=$4 more=${5:-}
    {
        printf '.TH %s %s %s "pressmark %s" "pressmark manual"\n' "$(echo "$name" | tr a-z A-Z)" "$sec" "$DATE" "$VERSION"
        printf '.nh\n.ad l\n'
        printf '.SH NAME\n%s \\- %s\n' "$name" "$(printf '%s' "$summary" | sed 's/\\/\\e/g')"
        printf '.SH SYNOPSIS\n.nf\n'
        awk '/^usage: / { sub(/^usage: /, ""); on = 1 } on && /^$/ { exit } on { sub(/^ +/, ""); gsub(/\\/, "\\e"); gsub(/-/, "\\-"); print }' <<< "$help"
        printf '.fi\n.SH DESCRIPTION\n'
        printf '%s\n' "$help" | awk 'f { print } /^$/ && !f { f = 1 }' | to_troff
        [ -z "$more" ] || printf '%s\n' "$more"
        printf '.SH ENVIRONMENT\n.TP\n.B PRESSMARK_DB\nthe results database (see \\fBpressmark\\fR(1) for the default)\n'
        printf '.SH SEE ALSO\n\\fBpressmark\\fR(1), \\fBpressmark\\-suite\\fR(5), \\fBpressmark\\-metrics\\fR(7)\n'
    } > "$DIR/$name.$sec"
}

overview=$("$PM" help)
commands=$(awk '/^commands:/ { on = 1; next } on && NF == 0 { exit } on { print $1 }' <<< "$overview")
# pressmark(1): the overview and the command list.
{
    printf '.TH PRESSMARK 1 %s "pressmark %s" "pressmark manual"\n.nh\n.ad l\n' "$DATE" "$VERSION"
    printf '.SH NAME\npressmark \\- memory\\-pressure benchmark harness for Linux\n'
    printf '.SH SYNOPSIS\n.B pressmark\n[\\fB\\-\\-db\\fR \\fIPATH\\fR] \\fICOMMAND\\fR [\\fIoptions\\fR]\n'
    printf '.SH DESCRIPTION\n'
    awk 'NR > 2 && /^commands:/ { exit } NR > 2' <<< "$overview" | to_troff
    printf '.SH COMMANDS\n'
    awk '/^commands:/ { on = 1; next } on && NF == 0 { exit } on { c = $1; $1 = ""; sub(/^ +/, ""); gsub(/\\/, "\\e"); gsub(/-/, "\\-", c); printf ".TP\n\\fBpressmark\\-%s\\fR(1)\n%s\n", c, $0 }' <<< "$overview"
    printf '.SH FILES\n.TP\n.I results.db\nbeside the binary in a clone; installed, \\fI$XDG_DATA_HOME/pressmark/results.db\\fR (\\fI~/.local/share/pressmark\\fR), or \\fI/var/lib/pressmark/results.db\\fR for root\n'
    printf '.TP\n.I results.db.unstored/UUID.json\na run'"'"'s results that the database would not take (its file removed during the run, a full disk, locked by another writer for two minutes), kept as JSON in a private directory beside it and stored by the next \\fBpressmark run\\fR, \\fBrecord\\fR or \\fBsuite run\\fR; \\fBpressmark list\\fR says when some wait\n'
    printf '.TP\n.I /usr/share/doc/pressmark/guide/\nthe user guide, a file per subject with README.md as its index (under the install prefix; \\fIdocs/guide/\\fR in a clone)\n'
    printf '.SH SEE ALSO\n'
    for c in $commands; do printf '\\fBpressmark\\-%s\\fR(1),\n' "$c"; done
    printf '\\fBpressmark\\-suite\\fR(5), \\fBpressmark\\-metrics\\fR(7)\n'
} > "$DIR/pressmark.1"

for c in $commands; do
    summary=$(awk -v c="$c" '/^commands:/ { on = 1; next } on && $1 == c { $1 = ""; sub(/^ +/, ""); print; exit }' <<< "$overview")
    help=$("$PM" "$c" --help 2>&1 || true)
    more=""
    if [ "$c" = run ]; then
        # The options every workload takes (run options, cap, swap and VM
        # settings), then every workload's own, each from its own table.
        any=$(awk '/^workloads:/ { getline; print $1; exit }' <<< "$help")
        more=".SH OPTIONS"$'\n'"$("$PM" run "$any" --help 2>&1 | awk '/^workload options:/ { skip = 1; next } skip && NF == 0 { skip = 0; on = 1; next } on' | to_troff)"
        more+=$'\n'".SH WORKLOADS"
        for w in $(awk '/^workloads:/ { on = 1; next } on && NF == 0 { exit } on { print $1 }' <<< "$help"); do
            wh=$("$PM" run "$w" --help 2>&1 || true)
            wsum=$(printf '%s\n' "$wh" | awk 'NR == 3')
            wopts=$(awk '/^workload options:/ { on = 1; next } on && NF == 0 { exit } on' <<< "$wh")
            more+=$'\n'".SS $w"$'\n'"$(printf '%s\n' "$wsum" | sed 's/\\/\\e/g; s/^[.'"'"']/\\\&&/')"$'\n'"$(printf '%s\n' "$wopts" | to_troff)"
        done
    fi
    # Each subcommand's own options (suite run's --again, --reboot, ...).
    case $c in
        suite) subs="plan run status list next-kernel" ;;
        lava) subs="job submit collect" ;;
        *) subs= ;;
    esac
    for sub in $subs; do
        sh=$("$PM" "$c" "$sub" --help 2>&1 || true)
        sh=$(awk '/^options:/ { on = 1; next } on && NF == 0 { exit } on' <<< "$sh")
        [ -n "$sh" ] && more+=$'\n'".SH OPTIONS OF ${c^^} ${sub^^}"$'\n'"$(printf '%s\n' "$sh" | to_troff)"
    done
    page "pressmark-$c" 1 "$summary" "$help" "$more"
done

# pressmark-metrics(7): the catalogue 'pressmark help metrics' prints, a
# tagged paragraph a metric with its unit and better direction.
metrics=$("$PM" help metrics)
{
    printf '.TH PRESSMARK-METRICS 7 %s "pressmark %s" "pressmark manual"\n.nh\n.ad l\n' "$DATE" "$VERSION"
    printf '.SH NAME\npressmark\-metrics \\- every metric a pressmark run stores: unit, better direction, source\n'
    printf '.SH DESCRIPTION\n'
    awk 'NR > 2 && /^  metric  / { exit } NR > 2' <<< "$metrics" | to_troff
    printf '.SH METRICS\n'
    # The text of an entry starts where the header's "what it is" does.
    printf '%s\n' "$metrics" | awk "$TROFF_FUNCS"'
    /^  metric  / { on = 1; col = index($0, "what it is"); next }
    !on { next }
    /^[a-z][a-z-]* metrics:$/ { sub(/:$/, ""); printf ".SS %s\n", $0; group = 1; next }
    group && /^[^ ]/ { print lead(esc($0)); next }
    /^  [^ ]/ {
        group = 0
        better = $3 == "-" ? "no better direction" : $3 " is better"
        # (the text after the third field: a long name pushes it right)
        text = $0; sub(/^ +[^ ]+ +[^ ]+ +[^ ]+ +/, "", text)
        printf ".TP\n\\fB%s\\fR (%s, %s)\n%s\n", esc($1), esc($2), better, lead(esc(text))
        next
    }
    /^ +[^ ]/ { line = $0; sub(/^ +/, "", line); print lead(esc(line)); next }
    /^$/ { group = 0 }'
    printf '.SH SEE ALSO\n\\fBpressmark\-compare\\fR(1), \\fBpressmark\-show\\fR(1), \\fBpressmark\-run\\fR(1)\n'
} > "$DIR/pressmark-metrics.7"

# pressmark-nightly(8): the nightly service's script, from its own --help.
nightly=$("$(dirname "$0")/../nightly/pressmark-nightly" --help | sed "s|/etc/pressmark|${SYSCONFDIR:-/etc}/pressmark|g")
{
    printf '.TH PRESSMARK-NIGHTLY 8 %s "pressmark %s" "pressmark manual"\n.nh\n.ad l\n' "$DATE" "$VERSION"
    printf '.SH NAME\npressmark\-nightly \\- run a pressmark suite every night and judge it against its history or the night before\n'
    printf '.SH SYNOPSIS\n.B pressmark\-nightly\n.br\n.B systemctl enable \\-\\-now pressmark\-nightly.timer\n'
    printf '.SH DESCRIPTION\n'
    printf '%s\n' "$nightly" | awk 'f { print } /^$/ && !f { f = 1 }' | to_troff
    printf '.SH FILES\n.TP\n.I %s/pressmark/nightly.conf\nthe settings (KEY=value, read by systemd)\n' "${SYSCONFDIR:-/etc}"
    printf '.TP\n.I pressmark\-nightly.service, pressmark\-nightly.timer\nthe units (installed disabled)\n'
    printf '.SH SEE ALSO\n\\fBpressmark\-suite\\fR(1), \\fBpressmark\-compare\\fR(1), \\fBpressmark\-push\\fR(1), \\fBsystemd.timer\\fR(5)\n'
} > "$DIR/pressmark-nightly.8"

# pressmark-suite(5): the file format, as suite --help explains it.
suite=$("$PM" suite --help 2>&1 || true)
{
    printf '.TH PRESSMARK-SUITE 5 %s "pressmark %s" "pressmark manual"\n.nh\n.ad l\n' "$DATE" "$VERSION"
    printf '.SH NAME\npressmark\\-suite \\- the suite file: an experiment of pressmark runs\n'
    printf '.SH DESCRIPTION\n'
    printf '%s\n' "$suite" | awk 'f { print } /^$/ && !f { f = 1 }' | to_troff
    printf '.SH FILES\n.TP\n.I /usr/share/pressmark/suites/*.ini\nthe reference experiments (under the install prefix)\n'
    printf '.SH SEE ALSO\n\\fBpressmark\\-suite\\fR(1), \\fBpressmark\\-run\\fR(1)\n'
} > "$DIR/pressmark-suite.5"
