# SQLite named in C sources (tools/layering.sh's SQL check): each line
# whose code names sqlite3, a sqlite3_ function or type or a SQLITE_
# constant, as one line "layering: FILE:LINE names NAME: ..."; exit 1 if
# any. Comments and string and character literals are not code; an
# #include keeps its name ("sqlite3.h" or <sqlite3.h>).
# awk -f sqlnames.awk FILE...
FNR == 1 { comment = 0 }
{
    line = $0; code = ""; n = length(line); i = 1
    if (!comment && line ~ /^[ \t]*#[ \t]*include/) { code = line; i = n + 1 }
    while (i <= n) {
        c = substr(line, i, 1); c2 = substr(line, i, 2)
        if (comment) {
            if (c2 == "*/") { comment = 0; i++ }
            i++; continue
        }
        if (c2 == "/*") { comment = 1; i += 2; code = code " "; continue }
        if (c2 == "//") break
        if (c == "\"" || c == "'") {
            for (i++; i <= n && substr(line, i, 1) != c; i++) if (substr(line, i, 1) == "\\") i++
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
END { exit bad }
