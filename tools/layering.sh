#!/bin/bash
# make layering: the tree's shape, seven checks, one line per violation,
# exit 1 if any.
#  - includes: every #include "dir/file.h" names a folder that layering.txt
#    allows for the including file's folder, and layering.txt lets no two
#    folders use each other (tools/includes.awk);
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
# (fork and exec are dear on the machines CI runs on, and t05 runs this
# script some eighty times: the sources and objects are listed once, each
# check is one awk over those lists, and no loop reads a pipe, which bash
# does a byte a system call.)
# This script's folder, the tree (its parent unless named) and the
# objects' folder made absolute by cd and $PWD ($(cd ... && pwd) forks).
unset CDPATH                   # (cd would print where it went)
here=$PWD
case $0 in */*) cd -- "${0%/*}" ;; esac
tools=$PWD
cd ..
root=${1:-$PWD}
objdir=${2:-}
cd -- "$here"
if [ -n "$objdir" ]; then cd -- "$objdir"; objdir=$PWD; cd -- "$here"; fi
cd -- "$root"
declare -A allowed
while read -r dir rest; do
    case "$dir" in ''|\#*|call:|cycle:|print:) continue ;; esac
    words=(${rest%%#*})            # blanks or tabs between the names
    allowed[${dir%:}]=" ${words[*]} "
done < layering.txt
# sql: lines are exceptions too (sql_only_in_store's), no folder.
unset 'allowed[sql]'
bad=0
trap 'rm -rf "${work:-}"' EXIT
work=$(mktemp -d)
# Every source of the folders, sorted, for the includes, the lengths, the
# basenames and the SQL (through a file: mapfile reads it in blocks).
# A folder that is a link is read through it (-H), as grep -r did; only
# files are listed, or what a link to one leads to: a dangling x.c link or
# a folder named x.c, which awk cannot read, would stop the one awk that
# reads every folder. Sorted bytewise, the same on every machine.
dirs=()
for dir in "${!allowed[@]}"; do [ -d "$dir" ] && dirs+=("$dir"); done
srcs=()
if [ ${#dirs[@]} -gt 0 ]; then
    find -H "${dirs[@]}" -name '*.[ch]' -xtype f | LC_ALL=C sort -u > "$work/srcs"
    mapfile -t srcs < "$work/srcs"
fi
# The folders' order (none may use one that uses it) and every include
# line against the folders it may name (tools/includes.awk).
layers=
for dir in "${!allowed[@]}"; do layers+="$dir${allowed[$dir]}"$'\n'; done
PM_LAYERS=$layers awk -f "$tools/includes.awk" "${srcs[@]}" < /dev/null || bad=1
if [ -n "$objdir" ]; then
    # Every object of a source in the tree (one left from a removed file is
    # not part of it), but the test and fuzz programs, which may use anything.
    # The records of the symbols are "SOURCE KIND NAME", nm's lines
    # "OBJECT:VALUE KIND NAME": a blank or a colon in an object's path
    # below OBJDIR would split them elsewhere (a call from "lib/sp ace.c"
    # read as lib/sp's, and gone unreported): such a path is named, not read.
    find "$objdir/" -name '*.o' | LC_ALL=C sort > "$work/objs"
    mapfile -t found < "$work/objs"
    objs=()
    for o in "${found[@]}"; do
        rel=${o#"$objdir"/}
        case "$rel" in tests/*|fuzz/*|bench/*) continue ;; esac
        [ -f "${rel%.o}.c" ] || continue
        case "$rel" in
            *[[:space:]:]*)
                echo "layering: $o has a blank or a colon in its path below $objdir, which the checks of the objects cannot read: rename its source"
                bad=1; continue ;;
        esac
        objs+=("$o")
    done
    [ ${#objs[@]} -gt 0 ] || { echo "layering: no objects under $objdir (build first)"; exit 1; }
    # One listing of the objects' symbols for the calls, the printing (only
    # cmd/ names stdout or stderr or calls what writes to them, printf,
    # puts, perror..., a helper process's main kept in layering.txt as
    # "print: FILE  # why" aside), the names and the SQL.
    # nm left to itself tries every object with each plugin of bfd-plugins,
    # and loading LLVM's gold plugin costs a third of a second, ten times
    # the listing. Told the host's own target (objdump -i's first) it loads
    # none; an LTO object, whose symbols only the plugin reads (nm sees its
    # "__gnu_lto_slim" or fails), sends it back to its own way.
    # Only an object format is a target: `binary` (or whatever another
    # objdump prints second) has nm list nothing and exit 0, and every
    # check of the objects would pass blind; no objdump, or one without
    # -i (llvm-objdump), gives no target.
    target=$({ objdump -i 2>/dev/null || :; } | sed -n 2p)
    case "$target" in elf*|pe*|mach-o*) ;; *) target= ;; esac
    if [ -z "$target" ] || ! nm --target="$target" -A -g "${objs[@]}" > "$work/nm" 2>/dev/null ||
       grep -q ' __gnu_lto_' "$work/nm"; then
        nm -A -g "${objs[@]}" > "$work/nm" || { echo "layering: nm could not read the objects under $objdir"; exit 1; }
        # Without the LTO plugin nm lists an LTO object's marker alone.
        if grep -q ' __gnu_lto_' "$work/nm"; then
            echo "layering: nm cannot read the LTO objects under $objdir (no LTO plugin): build without -flto"
            exit 1
        fi
    fi
    # Every object read has a symbol in the listing (each of the tree's
    # defines or uses one): one missing was not read, and its checks
    # would pass for nothing (symbols.awk names it and fails).
    printf '%s\n' "${objs[@]}" > "$work/read"
    symbols=$work/symbols
    PM_OBJDIR=$objdir PM_SYMBOLS=$symbols awk -f "$tools/symbols.awk" "$work/read" "$work/nm" || exit 1
    awk -f "$tools/calls.awk" layering.txt "$symbols" || bad=1
    awk -f "$tools/prints.awk" layering.txt "$symbols" || bad=1
    awk -f "$tools/names.awk" "$symbols" || bad=1
fi
[ ${#srcs[@]} -gt 0 ] || { echo "layering: no sources under $root"; exit 1; }
awk -v max=100 -f "$tools/funclen.awk" "${srcs[@]}" || bad=1
# One basename, one file: a backtrace, nm's listing or a grep names one
# file, never two in different folders (workloads keep theirs: a
# workload's file is its name, so other folders name theirs apart).
# (the names are awk's arguments, read as names only: no file is opened)
awk 'BEGIN {
        for (i = 1; i < ARGC; i++) {
            f = ARGV[i]; b = f; sub(/.*\//, "", b)
            if (b in seen) { printf "layering: %s and %s share the basename %s: name each for what it holds\n", seen[b], f, b; bad = 1 }
            else seen[b] = f
        }
        exit bad
    }' "${srcs[@]}" || bad=1
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
    local f files=() rc=0
    for f in "${srcs[@]}"; do [[ $f == store/* ]] || files+=("$f"); done
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
