#!/bin/bash
# make layering: every #include "dir/file.h" in the sources must name a
# folder that layering.txt allows for the including file's folder. One line
# per violation, exit 1 if any. tests/layering.sh [ROOT] (default: this tree).
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root"
declare -A allowed
while read -r dir rest; do
    case "$dir" in ''|\#*) continue ;; esac
    allowed[${dir%:}]=" $rest "
done < layering.txt
bad=0
for dir in "${!allowed[@]}"; do
    while IFS=: read -r file line text; do
        inc=$(printf '%s' "$text" | sed -E 's/.*#include "([^"]+)".*/\1/')
        top=${inc%%/*}
        [ "$top" = "$inc" ] && top=$dir        # "x.h": same folder
        if [[ "${allowed[$dir]}" != *" $top "* ]]; then
            echo "layering: $file:$line includes \"$inc\": $dir/ may include only${allowed[$dir]% }"
            bad=1
        fi
    done < <(grep -rn --include='*.c' --include='*.h' -E '^[[:space:]]*#[[:space:]]*include[[:space:]]+"' "$dir" 2>/dev/null || true)
done
exit $bad
