# Functions longer than max lines, from C sources in this tree's style: a
# function is named on a line at column 0 and its body closes with "}" in
# column 0. Its body opens with "{" in column 0 after its signature (one
# line or more, a comment or #if lines between), or with ") {" ending the
# signature's last line. Its length counts from the line that names it to
# the closing brace. A "{" in column 0 after anything else (a table's
# initializer) is not a function.
# awk -v max=100 -f funclen.awk FILE.c FILE.h...
function start(at) {
    name = sig; sub(/\(.*/, "", name); n = split(name, w, /[ *]+/)
    fname = w[n]; fstart = at; open = 1
}
function code(line) {            # the line without a trailing comment, trailing blanks
    sub(/[ \t]*\/\*.*\*\/[ \t]*$/, "", line); sub(/[ \t]*\/\/.*$/, "", line); sub(/[ \t]+$/, "", line)
    return line
}
FNR == 1 { open = 0; sig = ""; sigline = 0; prev = "" }
open && /^\}/ {
    len = FNR - fstart + 1; open = 0; sig = ""
    if (len > max) { printf "layering: %s:%d %s is %d lines (at most %d)\n", FILENAME, fstart, fname, len, max; bad = 1 }
    next
}
open { next }
/^[ \t]*(#|$)/ || /^[ \t]*(\/\*|\*)/ { next }     # preprocessor, blank and comment lines
{
    c = code($0)
    if ($0 ~ /^[A-Za-z_]/ && c ~ /\(/) { sig = c; sigline = FNR }
    if (sig != "" && c ~ /\)[ \t]*\{$/ && c !~ /=/) { start(sigline); next }
    if ($0 ~ /^\{/ && sig != "" && prev ~ /\)$/) { start(sigline); next }
    if (c ~ /;$/ && $0 ~ /^[A-Za-z_]/) sig = ""
    prev = c
}
END { exit bad }
