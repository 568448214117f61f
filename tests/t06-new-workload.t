#!/bin/bash
# Adding a workload is two files: its own (workloads/skeleton.c is a whole
# one, compiled but not registered) and one line in workloads/registry.c.
# In a copy of the tree that line alone registers the skeleton: it runs,
# stores the metrics it declares (the strict check is on), and help metrics
# lists them with their units and directions.
. "$(dirname "$0")/lib.sh"
command -v make >/dev/null || skip_all "needs make"
T=$TMP/tree
# The sources as git has them, and the plain build's objects with their
# times, so make rebuilds only what the new line touches (tests/lib.sh).
tree_copy "$T"
sums() { (cd "$T" && find . -path ./build -prune -o -type f -print0 | sort -z | xargs -0 md5sum); }
sums > "$TMP/before"

sed -i 's|^    X(filestream)$|    X(filestream)       \\\n    X(skeleton)|' "$T/workloads/registry.c"
ok "the registry takes the line" grep -q '^    X(skeleton)$' "$T/workloads/registry.c"
sums > "$TMP/after"
is "$(diff "$TMP/before" "$TMP/after" | sed -n 's/^> [0-9a-f]*  //p')" "./workloads/registry.c" "no file but registry.c was touched"
ge "$(wc -l < "$TMP/after")" 300 "  (of the tree's $(wc -l < "$TMP/after") files)"
# What docs/guide/hacking.md's table says: the skeleton's own file and that one.
is "$(recipe_files "a workload")" 2 "docs/guide/hacking.md counts a workload's two files"
ok "  naming workloads/registry.c" grep -qF '`workloads/registry.c`' <<<"$(recipe_names "a workload")"

out=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -j2 -C "$T" B=build build/pressmark 2>&1)
is "$?" 0 "the copy builds"
[ -x "$T/build/pressmark" ] || { done_testing; exit 1; }
NEW=$T/build/pressmark

like "$("$NEW" run --help 2>&1)" "skeleton +a template" "run --help lists the skeleton"
"$NEW" run skeleton --quiet --label sk --size 4M --passes 2 2>"$TMP/err"
is "$?" 0 "pressmark run skeleton runs (strict metrics on)"
is "$(q "select status from run where label = 'sk'")" ok "its run is stored ok"
is "$(imetric sk skeleton.bytes)" 8388608 "skeleton.bytes: 4 MiB twice"
ok "skeleton.mb_per_s is above 0" awk -v v="$(metric sk skeleton.mb_per_s)" 'BEGIN { exit !(v > 0) }'
is "$(q "select unit || ' ' || direction from metric m join run r on r.id = m.run_id where r.label = 'sk' and name = 'skeleton.mb_per_s'")" \
   "MB/s higher" "stored with the unit and direction it declares"

"$NEW" help metrics > "$TMP/help"
is "$(grep -A1 '^skeleton metrics:$' "$TMP/help")" $'skeleton metrics:\nrun skeleton, the template workload' "help metrics has the skeleton's group"
like "$(grep '^  skeleton.mb_per_s ' "$TMP/help")" '^  skeleton\.mb_per_s +MB/s +higher +size x passes' "  skeleton.mb_per_s, MB/s, higher"
like "$(grep '^  skeleton.bytes ' "$TMP/help")" '^  skeleton\.bytes +bytes +- +memory written' "  skeleton.bytes, bytes, no better direction"
# The build under test does not have it: the line is what registers it.
unlike "$("$PM" help metrics)" '^  skeleton\.' "the tree's own pressmark has no skeleton metrics (among those it lists)"
done_testing
