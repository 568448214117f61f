#!/bin/bash
# The folders' includes point down only (layering.txt): the tree passes the
# check, and an include pointing up or sideways makes it fail, naming it.
. "$(dirname "$0")/lib.sh"
out=$("$ROOT/tests/layering.sh" "$ROOT" 2>&1)
is "$?" 0 "the tree's includes all point down"
is "$out" "" "and the check says nothing"

# A copy of the sources with one include added where it may not be.
copy() {
    rm -rf "$TMP/tree"; mkdir -p "$TMP/tree"
    cp -r "$ROOT"/layering.txt "$ROOT"/lib "$ROOT"/store "$ROOT"/pressure "$ROOT"/collectors "$ROOT"/workloads \
          "$ROOT"/harness "$ROOT"/reports "$ROOT"/cmd "$TMP/tree/"
}
upward() {  # upward FILE INCLUDE DESCRIPTION
    copy
    sed -i "0,/^#include/s||#include \"$2\"\n#include|" "$TMP/tree/$1"
    out=$("$ROOT/tests/layering.sh" "$TMP/tree" 2>&1)
    is "$?" 1 "$3: the check fails"
    like "$out" "^layering: $1:[0-9]+ includes \"$2\"" "$3: naming the file, line and include"
}
upward lib/units.c store/db.h "lib including store"
upward store/runs.c pressure/undo.h "store including pressure (sideways)"
upward collectors/sampler.c store/ticks.h "a collector including the database"
upward workloads/swapout.c harness/run.h "a workload including the run engine"
upward reports/plot.c workloads/workload.h "reports including workloads"
upward harness/run.c cmd/cli.h "the engine including a command"
copy
sed -i '0,/^#include/s||#include "store/db.h"\n#include|' "$TMP/tree/cmd/cmd_list.c"
"$ROOT/tests/layering.sh" "$TMP/tree" >/dev/null 2>&1
is "$?" 0 "a command including the store is allowed"
# make layering runs this check.
out=$(make -s -C "$ROOT" layering 2>&1)
is "$?" 0 "make layering passes on the tree"
done_testing
