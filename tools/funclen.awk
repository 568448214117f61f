# Functions longer than max lines, from C sources in this tree's style: a
# function is named on a line at column 0, and its body closes with "}" in
# column 0. Its body opens with "{" in column 0 after the signature (one
# line or more; comment and #if lines may stand between), or with ") {"
# ending the signature's last line. A signature line that ends with ";"
# or holds "=" or "{" before that (a prototype, a table) is no function.
# Its length counts from the line that names it to the closing brace.
# awk -v max=100 -f funclen.awk FILE.c FILE.h...
function start(at) {
    name = sig; sub(/\(.*/, "", name); n = split(name, w, /[ *]+/)
    fname = w[n]; fstart = at; open = 1; pending = 0
}
# The line's code: comments removed, an unfinished one too; blanks trimmed.
function code(line) {
    gsub(/\/\*([^*]|\*+[^*\/])*\*+\//, "", line)
    sub(/\/\*.*$/, "", line); sub(/\/\/.*$/, "", line); sub(/[ \t]+$/, "", line)
    return line
}
FNR == 1 { open = 0; pending = 0; sig = ""; sigline = 0; prev = ""; incomment = 0 }
open && /^\}/ {
    len = FNR - fstart + 1; open = 0
    if (len > max) { printf "layering: %s:%d %s is %d lines (at most %d)\n", FILENAME, fstart, fname, len, max; bad = 1 }
    next
}
open { next }
incomment { if ($0 ~ /\*\//) incomment = 0; next }
/^[ \t]*(#|$)/ || /^[ \t]*\/\// { next }          # preprocessor, blank and // lines
{
    if ($0 ~ /\/\*/ && $0 !~ /\/\*.*\*\//) incomment = 1     # a comment that goes on
    c = code($0)
    if (c ~ /^[ \t]*$/) next
    if ($0 ~ /^\{/ && sig != "" && prev ~ /\)$/) { start(sigline); next }
    if ($0 ~ /^[A-Za-z_]/ && c ~ /\(/ && !pending) { sig = c; sigline = FNR; pending = 1 }
    if (pending) {
        if (c ~ /\)[ \t]*\{$/ && c !~ /[=;]/) { start(sigline); next }
        if (c ~ /[;={}]/) { pending = 0; sig = "" }
    }
    prev = c
}
END { exit bad }
