# SQL in C sources outside store/ (tools/layering.sh's SQL check), one
# line "layering: FILE:LINE ..." each, exit 1 if any:
#  - a line whose code names sqlite3, a sqlite3_ function or type or a
#    SQLITE_ constant;
#  - a string literal that begins (after blanks) with a statement's first
#    word and a space ("DELETE FROM run"): SQL text, which a store function
#    that runs what it is handed would let through.
# Comments and string and character literals are not code; an #include
# keeps its name up to its closing " or > ("sqlite3.h", <sqlite3.h>), the
# rest of its line (a comment) read as any other. A file whose SQL text is
# another database's (PostgreSQL's) is kept in layering.txt with its
# reason ("sql: FILE  # why"): its literals pass, its SQLite names do not.
# A kept file with no such literal, or kept without its reason, fails.
# awk -f sqlnames.awk layering.txt FILE...
FNR == NR {
    if ($1 == "sql:") {
        if ($0 !~ /#[ \t]*[^ \t]/) {
            printf "layering: layering.txt:%d keeps an exception without its reason (accepted: sql: FILE  # why)\n", FNR
            bad = 1
        }
        keep[$2 ~ /^#/ ? "" : $2] = FNR
    }
    next
}
FNR == 1 { comment = 0 }
{
    line = $0; code = ""; n = length(line); i = 1; said = 0
    # (most lines need no scan: inside a comment that does not end there,
    # or no quote, slash or SQLite name at all)
    if (comment) { if (index(line, "*/") == 0) next }
    else if (line !~ /["'\/]/) { if (line !~ /sqlite3|SQLITE_/) next; i = n + 1; code = line }
    if (!comment && match(line, /^[ \t]*#[ \t]*include[ \t]*("[^"]*"|<[^>]*>)/)) { code = substr(line, 1, RLENGTH); i = RLENGTH + 1 }
    while (i <= n) {
        c = substr(line, i, 1); c2 = substr(line, i, 2)
        if (comment) {
            if (c2 == "*/") { comment = 0; i++ }
            i++; continue
        }
        if (c2 == "/*") { comment = 1; i += 2; code = code " "; continue }
        if (c2 == "//") break
        if (c == "\"" || c == "'") {
            start = i + 1
            for (i++; i <= n && substr(line, i, 1) != c; i++) if (substr(line, i, 1) == "\\") i++
            if (c == "\"" && !said) said = sql_text(substr(line, start, i - start))
            i++; code = code " "; continue
        }
        code = code c; i++
    }
    gsub(/[^A-Za-z0-9_]+/, " ", code)
    m = split(code, w, " ")
    for (k = 1; k <= m; k++) if (w[k] ~ /^(sqlite3|sqlite3_[A-Za-z0-9_]*|SQLITE_[A-Za-z0-9_]*)$/) {
        printf "layering: %s:%d names %s: only store/ speaks SQL\n", FILENAME, FNR, w[k]; bad = 1; break
    }
}
# A literal's text that is a statement: said (1) unless its file is kept.
function sql_text(s,   word) {
    if (!match(s, /^[ \t]*(SELECT|INSERT|UPDATE|DELETE|REPLACE|WITH|CREATE|DROP|ALTER|PRAGMA|ATTACH|BEGIN|COMMIT|ROLLBACK|SAVEPOINT|VACUUM) /))
        return 0
    if (FILENAME in keep) { used[FILENAME] = 1; return 0 }
    word = substr(s, 1, RLENGTH - 1); sub(/^[ \t]*/, "", word)
    printf "layering: %s:%d holds SQL (%s ...): only store/ speaks SQL\n", FILENAME, FNR, word; bad = 1
    return 1
}
END {
    # An exception that nothing needs any more goes, so none outlives its reason.
    for (f in keep) if (!(f in used)) {
        printf "layering: layering.txt:%d keeps sql: %s, which holds no SQL text outside store/ (remove it)\n", keep[f], f
        bad = 1
    }
    exit bad
}
