#!/bin/bash
# make layering: the tree's shape, seven checks, one line per violation,
# exit 1 if any.
#  - includes: every #include "dir/file.h" names a folder that layering.txt
#    allows for the including file's folder;
#  - calls (with OBJDIR, the build's objects): a file calls only into the
#    folders its folder may include, and no files of one folder call each
#    other in a circle (tools/calls.awk; exceptions in layering.txt);
#  - printing (with OBJDIR): only cmd/ writes to stdout and stderr, a
#    helper process's main kept in layering.txt aside (tools/prints.awk);
#  - names (with OBJDIR): the first word of an exported name belongs to
#    one folder (tools/names.awk);
#  - lengths: no function of the sources (.c and .h) is over 100 lines
#    (tools/funclen.awk).
#  - basenames: no two sources share one;
#  - SQL: only store/ speaks it (sql_only_in_store, at the end).
# tools/layering.sh [ROOT [OBJDIR]] (default: this tree, no call check).
set -euo pipefail
tools=$(cd "$(dirname "$0")" && pwd)
root=${1:-$(cd "$tools/.." && pwd)}
objdir=${2:-}
[ -z "$objdir" ] || objdir=$(cd "$objdir" && pwd)
cd "$root"
declare -A allowed
while read -r dir rest; do
    case "$dir" in ''|\#*|call:|cycle:|print:) continue ;; esac
    words=(${rest%%#*})            # blanks or tabs between the names
    allowed[${dir%:}]=" ${words[*]} "
done < layering.txt
# sql: lines are exceptions too (sql_only_in_store's), no folder.
unset 'allowed[sql]'
bad=0
folders=" ${!allowed[*]} "
# The folders' own order: none may use one that uses it (through others).
for dir in "${!allowed[@]}"; do
    for other in ${allowed[$dir]}; do echo "$dir $other"; done
done | awk '
    $1 != $2 { next_of[$1] = next_of[$1] " " $2; node[$1]; node[$2] }
    function visit(v,   n, k, w) {
        state[v] = 1
        n = split(next_of[v], w, " ")
        for (k = 1; k <= n; k++) {
            if (state[w[k]] == 1) { printf "layering: layering.txt lets %s/ and %s/ use each other (through the folders between); one must be below the other\n", v, w[k]; bad = 1 }
            else if (!state[w[k]]) visit(w[k])
        }
        state[v] = 2
    }
    END { for (v in node) if (!state[v]) visit(v); exit bad }' || bad=1
# One awk over every include line: the folder it names, against the list.
# "dir/x.h" and <dir/x.h> both (the tree is on the include path); "x.h" is
# the folder's own; <x.h> and <sys/x.h> are the system's.
for dir in "${!allowed[@]}"; do
    [ -d "$dir" ] || continue
    { grep -rn --include='*.c' --include='*.h' -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]' "$dir" || [ $? -eq 1 ]; } |
        awk -v dir="$dir" -v allowed="${allowed[$dir]}" -v folders="$folders" '
            {
                file = $0; sub(/:.*/, "", file)
                rest = substr($0, length(file) + 2); line = rest; sub(/:.*/, "", line)
                angle = rest ~ /include[ \t]*</
                inc = rest; sub(/^[^"<]*["<]/, "", inc); sub(/[">].*/, "", inc)
                top = inc; sub(/\/.*/, "", top)
                if (top == inc) top = dir                 # "x.h": same folder
                if (angle && index(folders, " " top " ") == 0) next
                if (index(allowed, " " top " ") == 0) {
                    a = allowed; sub(/ +$/, "", a)
                    printf "layering: %s:%s includes \"%s\": %s/ may include only%s\n", file, line, inc, dir, a
                    bad = 1
                }
            }
            END { exit bad }' || bad=1
done
if [ -n "$objdir" ]; then
    # Every object of a source in the tree (one left from a removed file is
    # not part of it), but the test and fuzz programs, which may use anything.
    objs=()
    while IFS= read -r o; do
        rel=${o#"$objdir"/}
        case "$rel" in tests/*|fuzz/*|bench/*) continue ;; esac
        [ -f "${rel%.o}.c" ] && objs+=("$o")
    done < <(find "$objdir/" -name '*.o' | sort)
    [ ${#objs[@]} -gt 0 ] || { echo "layering: no objects under $objdir (build first)"; exit 1; }
    # One listing of the objects' symbols (nm costs a quarter of a second
    # over the tree, and t05 runs this script some sixty times) for the
    # calls, the printing (only cmd/ names stdout or stderr or calls what
    # writes to them, printf, puts, perror..., a helper process's main kept
    # in layering.txt as "print: FILE  # why" aside), the names and the SQL.
    trap 'rm -f "${symbols:-}"' EXIT
    symbols=$(mktemp)
    nm -A -g "${objs[@]}" | PM_OBJDIR=$objdir awk -f "$tools/symbols.awk" > "$symbols"
    awk -f "$tools/calls.awk" layering.txt "$symbols" || bad=1
    awk -f "$tools/prints.awk" layering.txt "$symbols" || bad=1
    awk -f "$tools/names.awk" "$symbols" || bad=1
fi
srcs=()
for dir in "${!allowed[@]}"; do
    [ -d "$dir" ] && while IFS= read -r f; do srcs+=("$f"); done < <(find "$dir" -name '*.[ch]' | sort)
done
[ ${#srcs[@]} -gt 0 ] || { echo "layering: no sources under $root"; exit 1; }
awk -v max=100 -f "$tools/funclen.awk" "${srcs[@]}" || bad=1
# One basename, one file: a backtrace, nm's listing or a grep names one
# file, never two in different folders (workloads keep theirs: a
# workload's file is its name, so other folders name theirs apart).
printf '%s\n' "${srcs[@]}" | sort -u | awk -F/ '
    { b = $NF; if (b in seen) { printf "layering: %s and %s share the basename %s: name each for what it holds\n", seen[b], $0, b; bad = 1 } else seen[b] = $0 }
    END { exit bad }' || bad=1
# SQL is store/'s alone (store/README.md): no source of another folder
# names SQLite (sqlite3, sqlite3_*, SQLITE_*, <sqlite3.h>) outside its
# comments and strings or holds SQL text (a literal that begins with
# SELECT, DELETE, ... and a space, which a store function that runs what
# it is handed would let through; another database's, kept in layering.txt
# as "sql: FILE  # why", aside), and with OBJDIR no object of one calls a
# sqlite3_ function or the statement helpers store/sql.c defines
# (store_db_exec, store_db_prepare, ...): a query goes behind a store function.
# tests/, fuzz/ and bench/ are no folder of layering.txt and may.
sql_only_in_store() {
    local dir f files=() rc=0
    for dir in "${!allowed[@]}"; do
        [ "$dir" != store ] && [ -d "$dir" ] && while IFS= read -r f; do files+=("$f"); done < <(find "$dir" -name '*.[ch]' | sort)
    done
    # layering.txt first, for its sql: lines (a stale one fails even with no file).
    awk -f "$tools/sqlnames.awk" layering.txt "${files[@]}" || rc=1
    [ -n "$objdir" ] || return $rc
    awk '
        {
            if ($2 == "U" && $1 !~ /^store\//) { nuse++; use_file[nuse] = $1; use_sym[nuse] = $3 }
            else if ($2 ~ /^[TDBRVWG]$/ && $1 == "store/sql.c") helper[$3] = 1
        }
        END {
            for (i = 1; i <= nuse; i++) {
                s = use_sym[i]
                if (s ~ /^sqlite3_/) from = "SQLite"; else if (s in helper) from = "store/sql.c"; else continue
                printf "layering: %s calls %s (%s): only store/ speaks SQL\n", use_file[i], s, from; bad = 1
            }
            exit bad
        }' "$symbols" || rc=1
    return $rc
}
sql_only_in_store || bad=1
exit $bad
