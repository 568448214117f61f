# The folders' includes (tools/layering.sh's first two checks), one line
# "layering: ..." per violation, exit 1 if any:
#  - the folders' own order: layering.txt lets none use a folder that uses
#    it (through others);
#  - every #include "dir/x.h" or <dir/x.h> of a source names a folder its
#    own folder (the path's first word) may include. "x.h" is the folder's
#    own; <x.h>, <sys/x.h> and any <dir/x.h> whose dir is no folder are
#    the system's.
# The folders come from layering.sh's reading of layering.txt, through
# ENVIRON (awk -v would read escapes in it): a line each, the folder, then
# " WHAT IT MAY USE " (blanks around each name), in the order of
# layering.sh's table (the order check visits them so, as it did when fed
# by a loop over that table).
# PM_LAYERS=... awk -f includes.awk SOURCE... < /dev/null
BEGIN {
    nrows = split(ENVIRON["PM_LAYERS"], rows, "\n")
    folders = " "
    for (r = 1; r <= nrows; r++) {
        if (rows[r] == "") continue
        dir = rows[r]; sub(/ .*/, "", dir)
        allowed[dir] = substr(rows[r], length(dir) + 1)
        folders = folders dir " "
        n = split(allowed[dir], w, " ")
        for (k = 1; k <= n; k++)
            if (w[k] != dir) { next_of[dir] = next_of[dir] " " w[k]; node[dir]; node[w[k]] }
    }
    for (v in node) if (!state[v]) visit(v)
}
function visit(v,   n, k, w) {
    state[v] = 1
    n = split(next_of[v], w, " ")
    for (k = 1; k <= n; k++) {
        if (state[w[k]] == 1) { printf "layering: layering.txt lets %s/ and %s/ use each other (through the folders between); one must be below the other\n", v, w[k]; bad = 1 }
        else if (!state[w[k]]) visit(w[k])
    }
    state[v] = 2
}
FNR == 1 { dir = FILENAME; sub(/\/.*/, "", dir) }
/^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]/ {
    angle = $0 ~ /include[ \t]*</
    inc = $0; sub(/^[^"<]*["<]/, "", inc); sub(/[">].*/, "", inc)
    top = inc; sub(/\/.*/, "", top)
    if (top == inc) top = dir                 # "x.h": same folder
    if (angle && index(folders, " " top " ") == 0) next
    if (index(allowed[dir], " " top " ") == 0) {
        a = allowed[dir]; sub(/ +$/, "", a)
        printf "layering: %s:%d includes \"%s\": %s/ may include only%s\n", FILENAME, FNR, inc, dir, a
        bad = 1
    }
}
END { exit bad }
