#!/bin/bash
# make layering: the tree's shape, three checks, one line per violation,
# exit 1 if any.
#  - includes: every #include "dir/file.h" names a folder that layering.txt
#    allows for the including file's folder;
#  - calls (with OBJDIR, the build's objects): a file calls only into the
#    folders its folder may include, and no files of one folder call each
#    other in a circle (tools/calls.awk; exceptions in layering.txt);
#  - lengths: no function of the sources (.c and .h) is over 100 lines
#    (tools/funclen.awk).
# tools/layering.sh [ROOT [OBJDIR]] (default: this tree, no call check).
set -euo pipefail
tools=$(cd "$(dirname "$0")" && pwd)
root=${1:-$(cd "$tools/.." && pwd)}
objdir=${2:-}
[ -z "$objdir" ] || objdir=$(cd "$objdir" && pwd)
cd "$root"
declare -A allowed
while read -r dir rest; do
    case "$dir" in ''|\#*|call:|cycle:) continue ;; esac
    allowed[${dir%:}]=" ${rest%%#*} "
done < layering.txt
bad=0
# One awk over every include line: the folder it names, against the list.
for dir in "${!allowed[@]}"; do
    grep -rn --include='*.c' --include='*.h' -E '^[[:space:]]*#[[:space:]]*include[[:space:]]+"' "$dir" 2>/dev/null |
        awk -v dir="$dir" -v allowed="${allowed[$dir]}" '
            {
                file = $0; sub(/:.*/, "", file)
                rest = substr($0, length(file) + 2); line = rest; sub(/:.*/, "", line)
                inc = rest; sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc)
                top = inc; sub(/\/.*/, "", top)
                if (top == inc) top = dir                 # "x.h": same folder
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
    done < <(find "$objdir" -name '*.o' | sort)
    [ ${#objs[@]} -gt 0 ] || { echo "layering: no objects under $objdir (build first)"; exit 1; }
    nm -A -g "${objs[@]}" | awk -v objdir="$objdir" -f "$tools/calls.awk" layering.txt - || bad=1
fi
srcs=()
for dir in "${!allowed[@]}"; do
    [ -d "$dir" ] && while IFS= read -r f; do srcs+=("$f"); done < <(find "$dir" -name '*.[ch]' | sort)
done
[ ${#srcs[@]} -gt 0 ] || { echo "layering: no sources under $root"; exit 1; }
awk -v max=100 -f "$tools/funclen.awk" "${srcs[@]}" || bad=1
exit $bad
