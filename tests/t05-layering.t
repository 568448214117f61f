#!/bin/bash
# The tree's shape (tools/layering.sh, make layering): includes and calls
# between the built objects point down only (layering.txt), no files of one
# folder call each other in a circle, no function is over 100 lines, only
# cmd/ prints. The tree passes; each kind of violation, planted in a copy,
# fails the check and is named.
. "$(dirname "$0")/lib.sh"
CHECK=$ROOT/tools/layering.sh
# The objects of the build under test (build/, or build/check under make check).
OBJ=$(dirname "$PM")
[ -f "$OBJ/lib/err.o" ] || OBJ=$ROOT/build
# The folders layering.txt names (its exceptions' lines aside).
mapfile -t DIRS < <(awk '/^[a-z]+:/ && $1 != "call:" && $1 != "cycle:" && $1 != "print:" { sub(":", "", $1); print $1 }' "$ROOT/layering.txt")
ge "${#DIRS[@]}" 10 "layering.txt names the folders (${DIRS[*]})"
# Those the tree has: a sql: exception's line names a file, no folder.
mapfile -t DIRS < <(for d in "${DIRS[@]}"; do [ -d "$ROOT/$d" ] && echo "$d"; done)

out=$("$CHECK" "$ROOT" "$OBJ" 2>&1)
is "$?" 0 "the tree's includes and calls all point down, in no circle, no function too long"
is "$out" "" "and the check says nothing"

# A copy of the sources with one include added where it may not be.
copy() {
    rm -rf "$TMP/tree"; mkdir -p "$TMP/tree"
    cp -r "$ROOT"/layering.txt "${DIRS[@]/#/$ROOT/}" "$TMP/tree/"
}
upward() {  # upward FILE INCLUDE DESCRIPTION
    copy
    sed -i "0,/^#include/s||#include \"$2\"\n#include|" "$TMP/tree/$1"
    out=$("$CHECK" "$TMP/tree" 2>&1)
    is "$?" 1 "$3: the check fails"
    like "$out" "^layering: $1:[0-9]+ includes \"$2\"" "$3: naming the file, line and include"
}
upward lib/units.c store/db.h "lib including store"
# Two files of one basename in different folders.
copy
printf '/* a second table.c */\n' > "$TMP/tree/stats/table.c"
out=$("$CHECK" "$TMP/tree" 2>&1)
is "$?" 1 "a basename two folders use: the check fails"
is "$out" "layering: reports/table.c and stats/table.c share the basename table.c: name each for what it holds" \
   "  naming both files, and nothing else"
upward store/runs.c pressure/undo.h "store including pressure (sideways)"
upward collectors/sampler.c store/ticks.h "a collector including the database"
upward workloads/swapout.c harness/run.h "a workload including the run engine"
upward reports/plot.c workloads/workload.h "reports including workloads"
upward stats/stats.c reports/table.h "statistics including reports"
upward export/push.c reports/compare.h "export including reports"
upward experiment/suite.c bisect/bisect.h "the suite engine including bisection"
upward harness/run.c cmd/cli.h "the engine including a command"
upward experiment/plan.c cmd/cli.h "the experiment layer including a command"
upward kernels/vm.c experiment/runner.h "kernels including the experiment layer"
upward lib/hash.h store/db.h "a header of lib including store"
# A folder that is a link is read through it (grep -r did); a name awk
# cannot read (a dangling x.c link, a folder named x.c) stops no check.
copy
mv "$TMP/tree/lib" "$TMP/lib-real"; ln -s "$TMP/lib-real" "$TMP/tree/lib"
sed -i '0,/^#include/s||#include "store/db.h"\n#include|' "$TMP/tree/lib/units.c"
out=$("$CHECK" "$TMP/tree" 2>&1)
is "$?" 1 "lib a link to a folder, including store: the check fails"
like "$out" '^layering: lib/units\.c:[0-9]+ includes "store/db\.h"' "  naming it"
rm -rf "$TMP/lib-real"
copy
ln -s nowhere.c "$TMP/tree/lib/dangling.c"; mkdir "$TMP/tree/lib/folder.c"
sed -i '0,/^#include/s||#include "store/db.h"\n#include|' "$TMP/tree/lib/units.c"
out=$("$CHECK" "$TMP/tree" 2>&1)
is "$?" 1 "a dangling x.c link and a folder named x.c beside lib including store: the check fails"
like "$out" '^layering: lib/units\.c:[0-9]+ includes "store/db\.h"' "  naming it"
is "$(grep -c . <<<"$out")" 1 "  and nothing else"
copy
sed -i '0,/^#include/s||#  include <store/db.h>\n#include|' "$TMP/tree/lib/units.c"
out=$("$CHECK" "$TMP/tree" 2>&1)
is "$?" 1 "lib including the store as <store/db.h>, spaced: the check fails"
like "$out" '^layering: lib/units\.c:[0-9]+ includes "store/db\.h"' "  naming it"
copy
mkdir -p "$TMP/tree/net"
printf 'int net_x(void);\nint net_x(void)\n{\n    return 0;\n}\n' > "$TMP/tree/net/x.c"
printf 'net:        net lib\n' >> "$TMP/tree/layering.txt"
out=$("$CHECK" "$TMP/tree" 2>&1)
is "$?" 0 "a listed folder whose files include nothing passes"
is "$out" "" "  and nothing is said"
copy
sed -i 's|^store: *store lib$|store:      store reports lib|' "$TMP/tree/layering.txt"
out=$("$CHECK" "$TMP/tree" 2>&1)
is "$?" 1 "layering.txt letting store and reports use each other: the check fails"
like "$out" 'layering\.txt lets (store/ and reports/|reports/ and store/) use each other' "  naming the two"
copy
sed -i '0,/^#include/s||#include "store/db.h"\n#include|' "$TMP/tree/cmd/cmd_list.c"
"$CHECK" "$TMP/tree" >/dev/null 2>&1
is "$?" 0 "a command including the store is allowed"

# Calls, read from the objects: a copy of the build's objects with planted
# ones compiled beside them (the real symbols they call are the tree's).
objcopy() {
    rm -rf "$TMP/obj"; mkdir -p "$TMP/obj"
    # Links to the build's objects (copies of them cost a second a time),
    # every folder's in one cp (a process each cost as much again as the
    # links: t05 makes this copy some forty times).
    cp -rs "${DIRS[@]/#/$OBJ/}" "$TMP/obj/"
    copy
}
plant() {  # plant FILE C-SOURCE [CFLAGS...]: FILE in the tree, compiled as its object
    local file=$1 src=$2; shift 2
    printf '%s\n' "$src" > "$TMP/tree/$file"
    # (a plant that does not build would leave a case passing for nothing)
    cc -std=c11 "$@" -c -o "$TMP/obj/${file%.c}.o" "$TMP/tree/$file" || { echo "Bail out! the plant $file did not build"; exit 1; }
}
calls() { out=$("$CHECK" "$TMP/tree" "$TMP/obj" 2>&1); rc=$?; }

objcopy
plant lib/planted.c 'int store_db_exec(void); int planted(void); int planted(void) { return store_db_exec(); }'
calls
is "$rc" 1 "lib calling the store: the check fails"
like "$out" '^layering: lib/planted\.c calls store_db_exec \(store/sql\.c\): lib/ may call only lib$' \
    "naming the caller, the symbol, where it is made and what the folder may call"
# An LTO object's symbols are for nm's plugin to read (the check names
# nm the host's target, which loads none, and falls back): read all the same.
# (only if the compiler makes slim LTO objects, GCC's, which nm told the
# target lists as __gnu_lto_slim alone: else the fallback is not tried)
plant lib/planted.c 'int store_db_exec(void); int planted(void); int planted(void) { return store_db_exec(); }' -flto
if nm --target="$(objdump -i 2>/dev/null | sed -n 2p)" -A -g "$TMP/obj/lib/planted.o" 2>/dev/null | grep -q ' __gnu_lto_slim$'; then
    calls
    is "$rc" 1 "lib calling the store, built for LTO: the check fails"
    like "$out" '^layering: lib/planted\.c calls store_db_exec \(store/sql\.c\): lib/ may call only lib$' "  naming it"
else
    skip "the LTO case: cc -flto made no slim LTO object (one nm told the target lists as __gnu_lto_slim)"
    skip "  naming it"
fi
plant lib/planted.c 'int store_db_exec(void); int planted(void); int planted(void) { return store_db_exec(); }'
# The target comes from objdump -i's second line: one that is no object
# format (binary, whose nm lists nothing and exits 0) or none (no objdump,
# or llvm-objdump, which has no -i) leaves nm to its own way, and the
# check does not go blind.
fake() {  # fake NAME SCRIPT: a command NAME first in PATH (in $TMP/bin)
    mkdir -p "$TMP/bin"; rm -f "$TMP/bin/"*
    printf '#!/bin/sh\n%s\n' "$2" > "$TMP/bin/$1"; chmod +x "$TMP/bin/$1"
}
faked() { out=$(PATH="$TMP/bin:$PATH" "$CHECK" "$TMP/tree" "$TMP/obj" 2>&1); rc=$?; }
fake objdump 'echo "BFD header file version (a fake)"; echo binary'
faked
is "$rc" 1 "objdump -i naming binary second: lib calling the store still fails"
like "$out" '^layering: lib/planted\.c calls store_db_exec \(store/sql\.c\): lib/ may call only lib$' "  naming it"
fake objdump 'echo "objdump: Unknown command line argument '"'"'-i'"'"'" >&2; exit 1'
faked
is "$rc" 1 "an objdump without -i: lib calling the store still fails"
like "$out" '^layering: lib/planted\.c calls store_db_exec \(store/sql\.c\): lib/ may call only lib$' "  naming it"
# An nm that reads nothing fails the check, saying so: one that lists no
# symbol of an object, one without the LTO plugin (an LTO object's marker
# alone), one that fails.
fake nm 'exit 0'
faked
is "$rc" 1 "an nm listing nothing: the check fails"
like "$out" "^layering: nm listed no symbols of $(re "$TMP")/obj/lib/planted\\.o\$" "  naming each object"
fake nm 'for a; do case $a in *.o) echo "$a:0000000000000001 C __gnu_lto_slim" ;; esac; done'
faked
is "$rc:$out" "1:layering: nm cannot read the LTO objects under $TMP/obj (no LTO plugin): build without -flto" \
    "an nm without the LTO plugin: the check fails, saying so"
fake nm 'echo "nm: cannot read" >&2; exit 1'
faked
is "$rc" 1 "an nm that fails: the check fails"
like "$out" "^layering: nm could not read the objects under $(re "$TMP")/obj\$" "  saying so"
rm -rf "$TMP/bin"

# A build under a path with + ( : and a backslash in it, or reached through a link, is
# read the same (its path is a prefix, not a pattern) by each check of the
# objects: a call up (into store/sql.c: SQL outside store/ too), a print
# and a shared name word, planted together.
plant reports/planted_say.c '#include <stdio.h>
void table_planted_say(int n); void table_planted_say(int n) { printf("%d\n", n); }'
plant workloads/planted_name.c 'int store_planted(void); int store_planted(void) { return 0; }'
odd_path() {  # odd_path OBJDIR DESCRIPTION
    out=$("$CHECK" "$TMP/tree" "$1" 2>&1); rc=$?
    is "$rc:$(wc -l <<<"$out")" "1:4" "$2: the check fails, in four lines"
    like "$out" '^layering: lib/planted\.c calls store_db_exec \(store/sql\.c\): lib/ may call only lib$' "  the upward call named"
    like "$out" '^layering: lib/planted\.c calls store_db_exec \(store/sql\.c\): only store/ speaks SQL$' "  and as SQL outside store/"
    like "$out" '^layering: reports/planted_say\.c uses printf: ' "  the print named"
    like "$out" '^layering: the name word "store_" is 2 folders'"'"': store/[a-z_]+\.c \(store_[a-z_]+\) and workloads/planted_name\.c \(store_planted\);' \
        "  the shared word named"
}
mv "$TMP/obj" "$TMP/obj+(x):\\by"
odd_path "$TMP/obj+(x):\\by" "objects below a path with + ( : and \\ in it"
ln -s "$TMP/obj+(x):\\by" "$TMP/objlink"
odd_path "$TMP/objlink" "objects reached through a link"
rm -f "$TMP/objlink"

# An object's path with a blank or a colon below OBJDIR is named, not
# misread (the symbols' records are blank-separated, nm's lines split at
# the colon): a call from it would go unreported.
for name in "sp ace" "co:lon"; do
    objcopy
    plant "lib/$name.c" 'int store_db_exec(void); int planted(void); int planted(void) { return store_db_exec(); }'
    calls
    is "$rc" 1 "lib/$name.c calling the store: the check fails"
    is "$out" "layering: $TMP/obj/lib/$name.o has a blank or a colon in its path below $TMP/obj, which the checks of the objects cannot read: rename its source" \
        "  naming its object, in one line"
done

# A comment on a folder's line does not widen what it may use.
objcopy
sed -i 's|^lib: *lib$|lib:        lib   # the bottom: store and the rest are above|' "$TMP/tree/layering.txt"
ok "  (the comment is on lib's line)" grep -q '^lib: *lib *# the bottom' "$TMP/tree/layering.txt"
plant lib/planted.c 'int store_db_exec(void); int planted(void); int planted(void) { return store_db_exec(); }'
calls
is "$rc" 1 "a comment on lib's line: lib calling the store still fails"
sed -i '0,/^#include/s||#include "store/db.h"\n#include|' "$TMP/tree/lib/units.c"
like "$("$CHECK" "$TMP/tree" 2>&1)" '^layering: lib/units\.c:[0-9]+ includes "store/db\.h"' "  and lib including the store too"

objcopy
plant workloads/planted.c 'int harness_plan_execute(void); int planted(void); int planted(void) { return harness_plan_execute(); }'
calls
is "$rc" 1 "a workload calling the run engine above it: the check fails"
like "$out" '^layering: workloads/planted\.c calls harness_plan_execute \(harness/run\.c\)' "naming it"

objcopy
plant cmd/planted.c 'int store_run_latest(void); int planted(void); int planted(void) { return store_run_latest(); }'
calls
is "$rc" 0 "a command calling the store is allowed"
is "$out" "" "and nothing is said"

objcopy
printf 'call: lib/planted.c store/runinfo.c  # a reason\n' >> "$TMP/tree/layering.txt"
plant lib/planted.c 'int store_run_latest(void); int planted(void); int planted(void) { return store_run_latest(); }'
calls
is "$rc" 0 "an upward call kept in layering.txt with its reason passes"
plant lib/planted2.c 'int store_run_latest(void); int planted2(void); int planted2(void) { return store_run_latest(); }'
calls
is "$rc" 1 "  but it excuses that file only: another lib file calling the store fails"
like "$out" '^layering: lib/planted2\.c calls store_run_latest' "  naming the other"
objcopy
printf 'call: lib/planted.c store/sql.c\n' >> "$TMP/tree/layering.txt"
plant lib/planted.c 'int store_db_exec(void); int planted(void); int planted(void) { return store_db_exec(); }'
calls
is "$rc" 1 "an exception without its reason fails"
like "$out" 'layering\.txt:[0-9]+ keeps an exception without its reason' "  naming its line"
objcopy
# (cmd_list.o calls store_run_info_load: the call is made, and cmd/ may.)
printf 'call: cmd/cmd_list.c store/runinfo.c  # a call its folders may make anyway\n' >> "$TMP/tree/layering.txt"
calls
is "$rc" 1 "an exception for a call the folders' lines allow fails"
like "$out" 'keeps call: cmd/cmd_list\.c store/runinfo\.c, which no object makes or its folders may make' "  naming it"
objcopy
printf 'call: lib/units.c store/sql.c  # once needed\n' >> "$TMP/tree/layering.txt"
calls
is "$rc" 1 "an exception no call needs any more fails"
like "$out" 'keeps call: lib/units\.c store/sql\.c, which no object makes' "  naming it"

# A folder with sources but no line in layering.txt.
objcopy
mkdir -p "$TMP/tree/net" "$TMP/obj/net"
plant net/wire.c 'int net_wire(void); int net_wire(void) { return 1; }'
plant lib/planted.c 'int net_wire(void); int planted(void); int planted(void) { return net_wire(); }'
calls
is "$rc" 1 "a call into a folder layering.txt does not name fails"
like "$out" '^layering: net/ has no line in layering\.txt' "  naming the folder"

# A call from a folder's subfolder (workloads/chat) is its folder's.
objcopy
plant workloads/chat/planted.c 'int harness_plan_execute(void); int planted(void); int planted(void) { return harness_plan_execute(); }'
calls
is "$rc" 1 "the chat workload calling the run engine fails"
like "$out" '^layering: workloads/chat/planted\.c calls harness_plan_execute \(harness/run\.c\): workloads/' "  naming it"

objcopy
plant lib/planted.c 'int store_db_exec(void); int planted(void); int planted(void) { return store_db_exec(); }'
rm "$TMP/tree/lib/planted.c"
calls
is "$rc" 0 "an object whose source is gone (a stale build) is not read"

objcopy
plant store/planted_a.c 'int planted_b(void); int planted_a(void); int planted_a(void) { return planted_b(); }'
plant store/planted_b.c 'int planted_a(void); int planted_b(void); int planted_b(void) { return planted_a() + 1; }'
calls
is "$rc" 1 "two files of one folder calling each other: the check fails"
like "$out" '^layering: files of store/ call each other in a circle: planted_a\.c planted_b\.c ' "naming the folder and the files"

objcopy
plant store/planted_a.c 'int planted_b(void); int planted_a(void); int planted_a(void) { return planted_b(); }'
plant store/planted_b.c 'int planted_c(void); int planted_b(void); int planted_b(void) { return planted_c(); }'
plant store/planted_c.c 'int planted_a(void); int planted_c(void); int planted_c(void) { return planted_a(); }'
calls
is "$rc" 1 "three files in a circle: the check fails"
like "$out" 'circle: planted_a\.c planted_b\.c planted_c\.c ' "naming all three"

objcopy
plant store/planted_a.c 'int planted_b(void); int planted_a(void); int planted_a(void) { return planted_b(); }'
plant store/planted_b.c 'int store_db_exec(void); int planted_b(void); int planted_b(void) { return store_db_exec(); }'
calls
is "$rc" 0 "a chain of calls in one folder without a circle passes"

objcopy
printf 'cycle: store/planted_a.c store/planted_b.c  # a reason\n' >> "$TMP/tree/layering.txt"
plant store/planted_a.c 'int planted_b(void); int planted_a(void); int planted_a(void) { return planted_b(); }'
plant store/planted_b.c 'int planted_c(void); int planted_b(void); int planted_b(void) { return planted_c(); }'
plant store/planted_c.c 'int planted_a(void); int planted_c(void); int planted_c(void) { return planted_a(); }'
calls
is "$rc" 1 "a circle of three where two are kept: the check fails"
like "$out" 'circle: planted_a\.c planted_b\.c planted_c\.c ' "  naming the three"

objcopy
printf 'cycle: store/planted_b.c store/planted_a.c  # a reason, the files in any order\n' >> "$TMP/tree/layering.txt"
plant store/planted_a.c 'int planted_b(void); int planted_a(void); int planted_a(void) { return planted_b(); }'
plant store/planted_b.c 'int planted_a(void); int planted_b(void); int planted_b(void) { return planted_a() + 1; }'
calls
is "$rc" 0 "a circle kept in layering.txt with its reason passes"

# Names, from the objects: the first word of an exported name (a
# function's or a global's) is one folder's; a static one is the file's own.
objcopy
plant workloads/planted.c 'int store_planted(void); int store_planted(void) { return 0; }'
calls
is "$rc" 1 "a workload exporting a store_ function: the check fails"
like "$out" '^layering: the name word "store_" is 2 folders'"'"': store/[a-z_]+\.c \(store_[a-z_]+\) and workloads/planted\.c \(store_planted\); a name'"'"'s first word says its folder \(rename all but one'"'"'s\)$' \
    "  naming a name of each folder"
is "$(grep -c . <<<"$out")" 1 "  in one line"
objcopy
plant cmd/planted_count.c 'int harness_planted_count = 1;'
plant lib/planted_max.c 'const int harness_planted_max = 3; int harness_planted_n;'
calls
is "$rc" 1 "two folders' globals with the harness's word: the check fails"
like "$out" '^layering: the name word "harness_" is 3 folders'"'"': cmd/planted_count\.c \(harness_planted_count\), harness/[a-z_]+\.c \(harness_[a-z_]+\) and lib/planted_max\.c \(harness_planted_(max|n)\);' \
    "  naming all three"
is "$(grep -c . <<<"$out")" 1 "  in one line"
# Each kind of defined global, read-only data (R), bss (B), common (C),
# weak (W), an indirect function (i), as nm lists it, counts; a local (t,
# d, r, b) and a name of the implementation's (_..., as ASan's
# __odr_asan.NAME) do not.
for kind in R B C W i; do
    out=$(printf 'lib/a.c T store_planted\ncmd/b.c %s store_planted_x\n' "$kind" |
          awk -f "$ROOT/tools/names.awk"); rc=$?
    is "$rc:$out" "1:layering: the name word \"store_\" is 2 folders': lib/a.c (store_planted) and cmd/b.c (store_planted_x); a name's first word says its folder (rename all but one's)" \
        "  a global of nm's kind $kind counts"
done
out=$(printf 'lib/a.c T store_planted\ncmd/b.c t store_x\ncmd/b.c d store_y\ncmd/b.c r store_z\ncmd/b.c b store_w\ncmd/b.c D __odr_asan.store_v\nstore/c.c D __odr_asan.cmd_v\ncmd/b.c U store_planted\n' |
      awk -f "$ROOT/tools/names.awk"); rc=$?
is "$rc:$out" "0:" "  locals, the implementation's names and uses do not"
out=$(printf 'lib/a.c T zz_a\ncmd/b.c T zz_b\nlib/a.c T aa_a\ncmd/b.c T aa_b\n' |
      awk -f "$ROOT/tools/names.awk" | cut -d'"' -f2 | tr '\n' ' ')
is "$out" "aa_ zz_ " "  two shared words: a line each, in order"
objcopy
plant workloads/planted.c 'static int store_planted(void) { return 0; } int wl_planted(void); int wl_planted(void) { return store_planted(); }'
calls
is "$rc" 0 "a static function with another folder's word passes (it is the file's own)"
is "$out" "" "  saying nothing"

# Printing, from the objects: outside cmd/ no object names stdout or stderr
# or calls printf and its kin; a helper process's main is kept in
# layering.txt with its reason. A file of the copy, changed, is built with
# the tree's flags in place of the build's object (a link to it: removed
# first, so the build's own is never written).
rebuild() {  # rebuild FILE
    rm -f "$TMP/obj/${1%.c}.o"
    # shellcheck disable=SC2046
    cc -std=c11 -D_GNU_SOURCE -I"$TMP/tree" -I"$OBJ/gen" $(pkg-config --cflags sqlite3 libcurl jansson inih libarchive) \
        -c -o "$TMP/obj/${1%.c}.o" "$TMP/tree/$1"
}
objcopy
printf 'void planted_say(int n);\nvoid planted_say(int n)\n{\n    printf("%%d\\n", n);\n}\n' >> "$TMP/tree/reports/plot.c"
rebuild reports/plot.c
calls
is "$rc" 1 "reports/plot.c calling printf: the check fails"
is "$out" "layering: reports/plot.c uses printf: only cmd/ prints (below it: a struct pm_err, or a FILE * the caller gives; a helper process's main: \"print: reports/plot.c  # why\" in layering.txt)" \
    "  naming the file, the symbol and what to do instead"
is "$(grep -c . <<<"$out")" 1 "  in one line"
objcopy
printf 'void planted_say(const char *s);\nvoid planted_say(const char *s)\n{\n    fputs(s, stderr);\n}\n' >> "$TMP/tree/harness/run.c"
rebuild harness/run.c
calls
is "$rc" 1 "harness/run.c writing to stderr: the check fails"
like "$out" '^layering: harness/run\.c uses stderr: only cmd/ prints' "  naming the file and the symbol"
is "$(grep -c . <<<"$out")" 1 "  in one line"
printf 'print: harness/run.c  # a reason\n' >> "$TMP/tree/layering.txt"
calls
is "$rc" 0 "  kept in layering.txt with its reason, it passes"
is "$out" "" "  saying nothing"
objcopy
plant lib/planted.c '#include <stdio.h>
void planted(const char *s); void planted(const char *s) { perror(s); puts(s); }'
calls
is "$rc" 1 "lib calling perror and puts: the check fails"
like "$out" '^layering: lib/planted\.c uses perror puts: ' "  naming both"
objcopy
plant lib/planted.c '#include <stdio.h>
void planted(const char *s); void planted(const char *s) { dprintf(2, "%s\n", s); }'
calls
is "$rc" 1 "lib writing to fd 2 with dprintf: the check fails"
like "$out" '^layering: lib/planted\.c uses (__)?dprintf(_chk)?: ' "  naming it"
objcopy
plant lib/planted.c '#include <stdio.h>
void planted(const char *s); void planted(const char *s) { fputs(s, stdout); }'
calls
is "$rc" 1 "lib writing to stdout: the check fails"
is "$(grep -c . <<<"$out")" 1 "  in one line"
like "$out" '^layering: lib/planted\.c uses stdout: ' "  naming stdout"
# A fortified build (Debian's dpkg-buildflags: -O2 -D_FORTIFY_SOURCE=2)
# turns printf into __printf_chk.
objcopy
plant lib/planted.c '#include <stdio.h>
void planted(int n); void planted(int n) { printf("%d\n", n); }' -O2 -D_FORTIFY_SOURCE=2
calls
is "$rc" 1 "lib calling printf, built fortified: the check fails"
like "$out" '^layering: lib/planted\.c uses __printf_chk: ' "  naming __printf_chk"
objcopy
plant lib/planted.c '#include <stdio.h>
#include <stdarg.h>
#include <signal.h>
#include <err.h>
void planted(int n, const char *f, va_list ap); void planted(int n, const char *f, va_list ap) { if (n == 1) err(1, "x"); if (n == 2) warn("x"); if (n == 3) psignal(n, "x"); if (n == 4) putchar(n); vprintf(f, ap); }' -D_GNU_SOURCE
calls
is "$rc" 1 "lib calling err, warn, psignal, putchar and vprintf: the check fails"
for f in err warn psignal putchar vprintf; do
    like "$out" "^layering: lib/planted\\.c uses ([a-z_]+ )*$f( |:)" "  naming $f"
done
objcopy
plant reports/planted.c '#include <stdio.h>
int planted(FILE *f, int n); int planted(FILE *f, int n) { return fprintf(f, "%d\n", n) < 0 ? -1 : fputs("x\n", f); }'
calls
is "$rc" 0 "fprintf and fputs to a FILE * the caller gives pass"
is "$out" "" "  and nothing is said"
objcopy
plant cmd/planted.c '#include <stdio.h>
void planted(int n); void planted(int n) { printf("%d\n", n); fputs("x\n", stderr); }'
calls
is "$rc" 0 "a command printing is allowed"
is "$out" "" "  saying nothing"
objcopy
sed -i '/^print: harness\/sibling_main\.c /d' "$TMP/tree/layering.txt"
calls
is "$rc" 1 "the sibling hog's main without its line in layering.txt: the check fails"
like "$out" '^layering: harness/sibling_main\.c uses stderr' "  naming it"
objcopy
sed -i 's|^\(print: harness/sibling_main\.c\) .*|\1|' "$TMP/tree/layering.txt"
calls
is "$rc" 1 "a print exception without its reason fails"
is "$out" "layering: layering.txt:$(grep -n '^print: harness/sibling_main\.c$' "$TMP/tree/layering.txt" | cut -d: -f1) keeps an exception without its reason (accepted: print: FILE  # why)" "  naming its line"
objcopy
printf 'print: reports/plot.c  # once needed\n' >> "$TMP/tree/layering.txt"
calls
is "$rc" 1 "a print exception for a file that prints nothing fails"
is "$out" "layering: layering.txt:$(wc -l < "$TMP/tree/layering.txt") keeps print: reports/plot.c, which writes to no standard stream (remove it)" "  naming it and its line"
objcopy
printf 'print: cmd/main.c  # a command\n' >> "$TMP/tree/layering.txt"
calls
is "$rc" 1 "a print exception for a command fails"
is "$out" "layering: layering.txt:$(wc -l < "$TMP/tree/layering.txt") keeps print: cmd/main.c, which cmd/ may do anyway (remove it)" "  naming it and its line"

# Function lengths, from the sources.
long() {  # long LINES: a function of that many lines, first to last brace line
    copy
    { printf 'int planted_long(int x);\nint planted_long(int x)\n{\n'
      for ((i = 0; i < $1 - 4; i++)); do printf '    x += %d;\n' "$i"; done
      printf '    return x;\n}\n'; } >> "$TMP/tree/lib/units.c"
    out=$("$CHECK" "$TMP/tree" 2>&1); rc=$?
}
long 101
is "$rc" 1 "a function of 101 lines: the check fails"
like "$out" '^layering: lib/units\.c:[0-9]+ planted_long is 101 lines \(at most 100\)$' "naming the file, line, function and length"
long 100
is "$rc" 0 "a function of 100 lines passes"
copy
{ printf 'int planted_long(int x);\nint planted_long(int x) {\n'
  for ((i = 0; i < 99; i++)); do printf '    x += %d;\n' "$i"; done
  printf '    return x;\n}\n'; } >> "$TMP/tree/lib/units.c"
out=$("$CHECK" "$TMP/tree" 2>&1); rc=$?
is "$rc" 1 "a function of 102 lines with its brace on the signature line: the check fails"
like "$out" 'planted_long is 102 lines' "naming it"
copy
{ printf 'static int planted_short(int x);\nstatic int planted_short(int x)\n{\n    return x;\n}\n'
  printf 'static const int planted_table[] =\n{\n'
  for ((i = 0; i < 120; i++)); do printf '    %d,\n' "$i"; done
  printf '};\nint planted_use(void);\nint planted_use(void)\n{\n    return planted_table[0] + planted_short(1);\n}\n'; } >> "$TMP/tree/lib/units.c"
out=$("$CHECK" "$TMP/tree" 2>&1); rc=$?
is "$rc" 0 "a long table after a short function is no function: the check passes"
is "$out" "" "and says nothing"
body() { for ((i = 0; i < $1; i++)); do printf '    x += %d;\n' "$i"; done; }
shape() {  # shape FILE DESCRIPTION: FILE's appended function of 120 lines is found
    out=$("$CHECK" "$TMP/tree" 2>&1); rc=$?
    is "$rc" 1 "$2: the check fails"
    like "$out" "^layering: $1:[0-9]+ planted_long is 1[0-9][0-9] lines" "  naming it"
}
copy
{ printf 'int planted_long(int x,\n                 int y);\nint planted_long(int x,\n                 int y) {\n'; body 115
  printf '    return x + y;\n}\n'; } >> "$TMP/tree/experiment/plan.c"
shape experiment/plan.c "a long function whose signature wraps, its brace on the last line"
copy
{ printf 'int planted_long(int x);\nint planted_long(int x)   /* why */\n#if 1\n{\n'; body 115
  printf '    return x;\n}\n#endif\n'; } >> "$TMP/tree/workloads/chat/proto.c"
shape workloads/chat/proto.c "a long function with a comment after its signature and #if before its brace"
copy
{ printf 'static inline int planted_long(int x)\n{\n'; body 115; printf '    return x;\n}\n'; } >> "$TMP/tree/lib/hash.h"
shape lib/hash.h "a long static inline function in a header"
copy
{ printf 'int planted_long(unsigned n);\nint planted_long(unsigned n /* n >= 1 */) {\n    int x = 0;\n'; body 115
  printf '    return x + (int)n;\n}\n'; } >> "$TMP/tree/store/runs.c"
shape store/runs.c "a long function with = in a comment of its signature"
copy
{ printf 'int planted_proto(int a,\n                  int b);\nstruct planted_s { const char *a; const char *const *b; };\n'
  printf 'static const struct planted_s planted_table[] = {\n'
  for ((i = 0; i < 110; i++)); do printf '    { "a", (const char *const[]) {\n        "b", 0 } },\n'; done
  printf '};\n'; } >> "$TMP/tree/lib/units.c"
out=$("$CHECK" "$TMP/tree" 2>&1); rc=$?
is "$rc" 0 "a long table after a wrapped prototype, its rows ending in ) {, is no function"
is "$out" "" "  and nothing is said"

# SQL is store/'s alone: outside it, a source naming SQLite (outside
# comments and strings) or an object calling SQLite or store/sql.c's
# statement helpers fails, one line each.
sqlsrc() {  # sqlsrc FILE TEXT DESCRIPTION NAME: TEXT appended to FILE is named
    copy
    printf '%s\n' "$2" >> "$TMP/tree/$1"
    out=$("$CHECK" "$TMP/tree" 2>&1); rc=$?
    local line; line=$(grep -n -F -- "$4" "$TMP/tree/$1" | tail -1 | cut -d: -f1)
    is "$rc" 1 "$3: the check fails"
    is "$out" "layering: $1:$line names $4: only store/ speaks SQL" "$3: one line naming the file, line and name"
}
sqlsrc reports/plot.c $'int planted_sql(void);\nint planted_sql(void)\n{\n    return sqlite3_threadsafe();\n}' \
    "reports calling SQLite" sqlite3_threadsafe
sqlsrc reports/plot.h 'int planted_sql(sqlite3_stmt *st);' "a header of reports with a statement in a signature" sqlite3_stmt
sqlsrc cmd/cmd_list.c '#include <sqlite3.h>' "a command including SQLite's header" sqlite3
sqlsrc export/push.c 'static const int planted_sql = SQLITE_OK;' "export using SQLite's constant" SQLITE_OK
copy
cat >> "$TMP/tree/reports/plot.c" <<'EOS'
/* sqlite3_step is store's, and so is
 * sqlite3_prepare_v2 */
// SQLITE_ROW
static const char planted_sql_q[] = "sqlite3_open \" SQLITE_OK /*";
static const char planted_sql_c = '"';
static int my_sqlite3_count, sqlite3x; /* sqlite3 */ static int planted_sql_n;
#include "store/db.h" /* the sqlite3 connection */
#include <stdio.h> /* a comment opened on an include line,
   naming SQLITE_OK before it closes */
/* DELETE FROM run */ static const char planted_sql_m[] = "cannot DELETE FROM run: it is running";
static const char planted_sql_w[] = "SELECTED runs", planted_sql_d[] = "DELETE", planted_sql_l[] = "delete from run";
EOS
out=$("$CHECK" "$TMP/tree" 2>&1); rc=$?
is "$rc" 0 "SQLite and SQL named only in comments (one after an include), strings and longer names: the check passes"
is "$out" "" "  and says nothing"

# SQL text: a store function that runs the text it is handed (a
# pass-through) would let any query through it, so outside store/ a
# literal that begins with a statement's first word and a space fails
# where it is written.
objcopy
plant store/planted_sql.c 'struct pm_db; struct pm_err; int store_db_exec(struct pm_db *db, const char *q, struct pm_err *err);
int store_run_sql(struct pm_db *db, const char *q, struct pm_err *err);
int store_run_sql(struct pm_db *db, const char *q, struct pm_err *err) { return store_db_exec(db, q, err); }'
plant reports/planted.c 'struct pm_db; struct pm_err; int store_run_sql(struct pm_db *db, const char *q, struct pm_err *err);
int planted(struct pm_db *db, struct pm_err *err);
int planted(struct pm_db *db, struct pm_err *err)
{
    return store_run_sql(db, "DELETE FROM run", err);
}'
calls
is "$rc" 1 "reports handing \"DELETE FROM run\" to a store function that runs it: the check fails"
is "$out" "layering: reports/planted.c:5 holds SQL (DELETE ...): only store/ speaks SQL" \
    "  one line naming the file and line"
plant reports/planted.c 'struct pm_db; struct pm_err; int store_run_sql(struct pm_db *db, const char *q, struct pm_err *err);
int planted(struct pm_db *db, struct pm_err *err);
int planted(struct pm_db *db, struct pm_err *err) { return store_run_sql(db, "runs", err); }'
calls
is "$rc" 0 "  the same call with no SQL text passes (the store file holding the pass-through is store/'s)"
copy
for w in SELECT INSERT UPDATE DELETE REPLACE WITH CREATE DROP ALTER PRAGMA ATTACH BEGIN COMMIT ROLLBACK SAVEPOINT VACUUM; do
    printf 'static const char *planted_%s = " \t%s x";\n' "$w" "$w"
done >> "$TMP/tree/export/push.c"
out=$("$CHECK" "$TMP/tree" 2>&1); rc=$?
is "$rc" 1 "each statement's first word beginning a literal, after blanks: the check fails"
is "$(grep -c ' holds SQL' <<<"$out")" 16 "  one line each"
like "$out" "^layering: export/push\.c:[0-9]+ holds SQL \(SAVEPOINT \.\.\.\)" "  naming the word"

# Another database's SQL (PostgreSQL's, workloads/pgrun.c) is kept in
# layering.txt with its reason: its literals pass, nothing else of it.
copy
sed -i '/^sql: workloads\/pgrun\.c /d' "$TMP/tree/layering.txt"
out=$("$CHECK" "$TMP/tree" 2>&1); rc=$?
is "$rc" 1 "pgrun.c's PostgreSQL queries without their line in layering.txt: the check fails"
like "$out" '^layering: workloads/pgrun\.c:[0-9]+ holds SQL \(SELECT \.\.\.\)' "  naming them"
copy
sed -i 's|^\(sql: workloads/pgrun\.c\) .*|\1|' "$TMP/tree/layering.txt"
out=$("$CHECK" "$TMP/tree" 2>&1); rc=$?
is "$rc" 1 "a sql: exception without its reason fails"
is "$out" "layering: layering.txt:$(grep -n '^sql: workloads/pgrun\.c$' "$TMP/tree/layering.txt" | cut -d: -f1) keeps an exception without its reason (accepted: sql: FILE  # why)" \
    "  one line naming its line"
copy
printf 'sql: reports/plot.c  # once needed\n' >> "$TMP/tree/layering.txt"
out=$("$CHECK" "$TMP/tree" 2>&1); rc=$?
is "$rc" 1 "a sql: exception for a file with no SQL text fails"
is "$out" "layering: layering.txt:$(grep -c '' "$TMP/tree/layering.txt") keeps sql: reports/plot.c, which holds no SQL text outside store/ (remove it)" \
    "  one line naming it"
copy
printf 'sql: store/runs.c  # store speaks SQL anyway\n' >> "$TMP/tree/layering.txt"
out=$("$CHECK" "$TMP/tree" 2>&1); rc=$?
is "$rc" 1 "a sql: exception for a store file fails"
like "$out" 'keeps sql: store/runs\.c, which holds no SQL text outside store/' "  naming it"
copy
printf 'static const char planted_sql_q[] = "SELECT 1";\nstatic const int planted_sql_ok = SQLITE_OK;\n' >> "$TMP/tree/workloads/pgrun.c"
printf 'static const char planted_sql_q[] = "SELECT 1";\n' >> "$TMP/tree/workloads/pgclient.c"
out=$("$CHECK" "$TMP/tree" 2>&1); rc=$?
is "$rc" 1 "the kept file naming SQLite, and SQL text in another workload: the check fails"
is "$out" "layering: workloads/pgclient.c:$(grep -c '' "$TMP/tree/workloads/pgclient.c") holds SQL (SELECT ...): only store/ speaks SQL
layering: workloads/pgrun.c:$(grep -c '' "$TMP/tree/workloads/pgrun.c") names SQLITE_OK: only store/ speaks SQL" \
    "  naming both: the exception excuses pgrun.c's SQL text only"

objcopy
plant reports/planted.c 'int sqlite3_threadsafe(void); int planted(void); int planted(void) { return sqlite3_threadsafe(); }'
# Its source hides the name (as a macro could): only the object tells.
printf 'int planted(void);\n' > "$TMP/tree/reports/planted.c"
calls
is "$rc" 1 "reports calling SQLite, seen in its object: the check fails"
is "$out" "layering: reports/planted.c calls sqlite3_threadsafe (SQLite): only store/ speaks SQL" \
    "  one line naming the file and the symbol"
objcopy
plant cmd/planted.c 'int store_db_exec(void); int planted(void); int planted(void) { return store_db_exec(); }'
calls
is "$rc" 1 "a command running SQL through store's store_db_exec: the check fails"
is "$out" "layering: cmd/planted.c calls store_db_exec (store/sql.c): only store/ speaks SQL" "  naming it"
objcopy
plant store/planted.c 'int sqlite3_threadsafe(void); int store_db_exec(void); int planted(void); int planted(void) { return sqlite3_threadsafe() + store_db_exec(); }'
calls
is "$rc" 0 "a store file calling SQLite and the statement helpers passes"

# make layering runs these checks over the build's objects (this build's:
# under make check, build/check).
like "$(make -n -s -C "$ROOT" B="$OBJ" layering 2>&1 | tail -1)" "tools/layering\.sh \. $OBJ\$" "make layering hands the check its build's objects"
out=$(make -s -C "$ROOT" B="$OBJ" layering 2>&1)
is "$?" 0 "make layering passes on the tree"
done_testing
