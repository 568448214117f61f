# Functions longer than max lines, from C sources in this tree's style:
# a function's signature (one line or more) ends with ")" and its body
# opens with "{" in column 0 on the next line, or its one signature line
# ends with ") {"; the
# body closes with "}" in column 0. Its length counts from the line that
# names it to the closing brace. A "{" in column 0 after anything else (a
# table's initializer) is not a function.
# awk -v max=100 -f funclen.awk FILE.c...
function start(line, at,   name, n, w) {
    name = line; sub(/\(.*/, "", name); n = split(name, w, /[ *]+/)
    fname = w[n]; fstart = at; open = 1
}
FNR == 1 { open = 0; sig = ""; sigline = 0; prev = "" }
/^[A-Za-z_].*\)[ \t]*\{[ \t]*$/ && !open { start($0, FNR); prev = $0; next }
/^[A-Za-z_].*\(/ { sig = $0; sigline = FNR }
/^\{/ && !open && prev ~ /\)[ \t]*$/ { start(sig, sigline) }
/^\}/ && open {
    len = FNR - fstart + 1; open = 0
    if (len > max) { printf "layering: %s:%d %s is %d lines (at most %d)\n", FILENAME, fstart, fname, len, max; bad = 1 }
}
{ prev = $0 }
END { exit bad }
