#!/bin/bash
# Adding a suite backend is one file and one line: in a copy of the tree,
# experiment/backend_skeleton.c (below, whole: its ops, its own keys in an
# option table with its state, its check, how it describes itself) and
# X(skeleton) in experiment/backends.c, and nothing else. The copy builds;
# suite plan names the skeleton and prints its own line for a kernel; a
# suite with backend = skeleton runs (the skeleton runs every kernel's
# cells here through the local backend's ops, noting its key's value in
# each run of a kernel not running), its runs stored; suite status says
# where they ran. Its keys are read through its table: a key it has not, a
# bad value (a flag not yes or no, a note past its field, a control
# character or NUL) and a missing note are refused, each naming the key.
. "$(dirname "$0")/lib.sh"
command -v make >/dev/null || skip_all "needs make"
OBJ=$ROOT/build
T=$TMP/tree
mkdir -p "$T/build"
# The sources as git has them, and the plain build's objects with their
# times, so make rebuilds only what the new file and line touch.
(cd "$ROOT" && git ls-files -z | grep -zv '^fuzz/corpus/' | xargs -0 cp --parents --preserve=timestamps -t "$T") 2>/dev/null
# (Without them, as under make check, the copy builds whole: slower, as real.)
if [ -f "$OBJ/lib/err.o" ]; then
    for d in lib figures store stats pressure collectors workloads harness kernels labs reports export experiment bisect cmd gen; do
        [ -d "$OBJ/$d" ] && cp -a "$OBJ/$d" "$T/build/"
    done
    cp -a "$OBJ/version.txt" "$T/build/" 2>/dev/null
fi
sums() { (cd "$T" && find . -path ./build -prune -o -type f -print0 | sort -z | xargs -0 md5sum); }
sums > "$TMP/before"
cp "$T/experiment/backends.c" "$TMP/backends.c"

cat > "$T/experiment/backend_skeleton.c" <<'C'
/* backend = skeleton: the template of a suite backend. It runs every
 * kernel's cells here, as the local backend does, and each run of a
 * kernel not running carries its key's value (skeleton.note). */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "experiment/backend.h"
#include "experiment/runner.h"

/* Its own keys, in [global]: the state its option table fills. */
struct skeleton_keys {
    char note[64];              /* skeleton-note */
    bool loud;                  /* skeleton-loud */
};

static const struct opt skeleton_options[] = {
    { .name = "skeleton-note", .type = OPT_STRING, .offset = offsetof(struct skeleton_keys, note), .size = 64,
      .metavar = "WORD", .help = "what each run of a kernel not running carries (skeleton.note)" },
    { .name = "skeleton-loud", .type = OPT_FLAG, .offset = offsetof(struct skeleton_keys, loud),
      .help = "yes: say each group it runs" },
    { .type = OPT_END },
};

/* The keys together, once all are read: a note is needed. */
static int skeleton_check(const struct suite_plan *p, struct pm_err *err)
{
    const struct skeleton_keys *k = p->backend_state;
    if (!k->note[0])
        return pm_errf(err, "%s: backend = skeleton needs skeleton-note in [global]", p->file.path);
    return 0;
}

static void skeleton_where(const struct suite_plan *p, const struct suite_group *g, char *buf, size_t len)
{
    const struct skeleton_keys *k = p->backend_state;
    (void)g;
    snprintf(buf, len, "runs here as the skeleton's, noted %s", k->note);
}

static void skeleton_describe(const struct suite_plan *p, char *buf, size_t len)
{
    const struct skeleton_keys *k = p->backend_state;
    snprintf(buf, len, "here as the skeleton's, noted %s", k->note);
}

static int skeleton_run_group(struct runner *r, int group, const struct suite_run_opts *o, int *abort_sig,
                              int *worst)
{
    const struct skeleton_keys *k = r->p->backend_state;
    if (k->loud)
        exp_say(r->ev, EXP_LOG, "pressmark: skeleton: kernel %s's cells here\n", r->p->groups[group].kernel);
    if (pm_kv_set(&r->kernel_meta[group], "skeleton.note", k->note) < 0) {
        exp_say(r->ev, EXP_LOG, "pressmark suite run: out of memory\n");
        return 2;
    }
    return exp_backend_local.run_group(r, group, o, abort_sig, worst);
}

const struct exp_backend exp_backend_skeleton = {
    .name = "skeleton", .summary = "a template: every kernel's cells here",
    .options = skeleton_options, .state_size = sizeof(struct skeleton_keys), .check = skeleton_check,
    .where = skeleton_where, .describe = skeleton_describe, .run_group = skeleton_run_group,
};
C
sed -i 's|^    /\* (a new backend: its line above this one) \*/$|    X(skeleton)        \\\n&|' "$T/experiment/backends.c"
sums > "$TMP/after"
is "$(diff "$TMP/before" "$TMP/after" | sed -n 's/^> [0-9a-f]*  //p')" "./experiment/backend_skeleton.c
./experiment/backends.c" "two files differ from the tree: the new one and the registry"
is "$(diff "$TMP/before" "$TMP/after" | grep -c '^<')" 1 "  one of them was there before (the registry)"
is "$(diff "$TMP/backends.c" "$T/experiment/backends.c" | grep '^[<>]')" ">     X(skeleton)        \\" \
    "  and it gains one line, losing none"
ge "$(wc -l < "$TMP/after")" 300 "  (of the tree's $(wc -l < "$TMP/after") files)"

out=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -j2 -C "$T" B=build build/pressmark 2>&1)
is "$?" 0 "the copy builds"
[ -x "$T/build/pressmark" ] || { diag "$out"; done_testing; exit 1; }
NEW=$T/build/pressmark
cd "$TMP" || exit 1

# A kernel that is not running (a bzImage header with its version: all a
# kernel = PATH needs to be found).
python3 -c 'import sys
h = bytearray(8192); h[0x1fe:0x200] = b"\x55\xaa"; h[0x202:0x206] = b"HdrS"; h[0x20e:0x210] = (0x200).to_bytes(2, "little")
v = b"6.99.0-t09 (t09@pressmark) #1 SMP\0"; h[0x400:0x400 + len(v)] = v; open(sys.argv[1], "wb").write(h)' bzImage
suite() {  # suite GLOBAL-LINES: a suite of two kernels with backend = skeleton
    printf '[global]\nbackend = skeleton\nruns = 1\nname = skel\n%s\n[r]\nworkload = record\ncommand = true\nkernel = running, %s\n' \
        "$1" "$TMP/bzImage" > s.ini
}

# Refused, each naming the key, the build under test refusing the name.
bad_new() {  # bad_new DESCRIPTION REGEX: exit 2, one line, as the copy's suite plan says
    "$NEW" suite plan s.ini > out 2> err
    is "$?:$(wc -l < err)" "2:1" "$1: exit 2, one line"
    like "$(cat err)" "$2" "  $(cat err)"
}
suite "skeleton-note = x
skeleton-colour = red"
bad_new "a key the skeleton has not" "^pressmark suite plan: s\\.ini:6: 'skeleton-colour' is not a key of a suite part running record \\(accepted: .*in \\[global\\] also .*vm-timeout, skeleton-note, skeleton-loud\\)$"
suite "skeleton-note = $(printf 'x%.0s' $(seq 80))"
bad_new "a note longer than its field" "^pressmark suite plan: s\\.ini:5: skeleton-note = x{80}: 'x{40}\\.\\.\\.' is too long \\(accepted: at most 63 characters\\)$"
suite "skeleton-note = x
skeleton-loud = maybe"
bad_new "a flag that is not yes or no" "^pressmark suite plan: s\\.ini:6: skeleton-loud = maybe: not a yes or no \\(accepted: yes, no, true, false, on, off, 1, 0\\)$"
suite "skeleton-note = a"$'\e'"[2J"
bad_new "a control character in it" "^pressmark suite plan: s\\.ini:5: skeleton-note: a control character in its value \\(accepted: printable text\\)$"
printf '[global]\nbackend = skeleton\nskeleton-note = cut\0here\n[r]\nworkload = record\ncommand = true\n' > s.ini
bad_new "a NUL byte in it" "^pressmark suite plan: s\\.ini:3: a NUL byte \\(accepted: text\\)$"
suite ""
bad_new "none (its check)" "^pressmark suite plan: s\\.ini: backend = skeleton needs skeleton-note in \\[global\\]$"
printf '[global]\nvm-accel = tcg\nbackend = skeleton\nskeleton-note = x\n[r]\nworkload = record\ncommand = true\n' > s.ini
bad_new "another backend's key" "^pressmark suite plan: s\\.ini:2: 'vm-accel' is not a key of a suite part running record"
printf '[global]\nbackend = skeletons\n[r]\nworkload = record\ncommand = true\n' > s.ini
bad_new "a name not registered" "^pressmark suite plan: s\\.ini:2: backend = skeletons: not a backend \\(accepted: vm, .*; lava, .*; skeleton, a template: every kernel's cells here\\)$"
# The build under test does not have it: the line is what registers it.
printf '[global]\nbackend = skeleton\n[r]\nworkload = record\ncommand = true\n' > s.ini
"$PM" suite plan s.ini > out 2> err
like "$(cat err)" "backend = skeleton: not a backend \\(accepted: vm, .*lava, a job per kernel on a LAVA lab's devices\\)$" \
    "the tree's own pressmark refuses backend = skeleton"

# Its plan: the skeleton's own line for the kernel not running; a key
# given twice counts as given last.
suite "skeleton-note = first
skeleton-loud = yes
skeleton-note = from-its-table"
"$NEW" suite plan s.ini > out 2> err
is "$?:$(cat err)" "0:" "suite plan of a skeleton suite: exit 0"
is "$(sed -n '/^kernels/,/^$/p' out)" "$(printf 'kernels (backend skeleton):\n  %-40s %s\n  %-40s %s\n' \
    running "the running kernel: runs here: cells 0" \
    "$TMP/bzImage" "runs here as the skeleton's, noted from-its-table: cells 1")" \
    "  its kernels: backend skeleton and its own line"

if [ "$(id -u)" -ne 0 ]; then
    skip "a suite's cells run as root (caps)"
    done_testing
    exit 0
fi
PM=$NEW
"$NEW" suite run s.ini > out 2> err
is "$?" 0 "suite run of it: exit 0"
is "$(q "select r.status, count(*) from run r join run_meta m on m.run_id = r.id and m.key = 'suite.name' and m.value = 'skel' group by r.status")" "ok|2" \
    "  both kernels' runs stored, ok"
is "$(q "select r.label || ' ' || m.value from run r join run_meta m on m.run_id = r.id and m.key = 'skeleton.note'")" \
    "$TMP/bzImage from-its-table" "  the kernel not running's run carries the key's value (skeleton.note)"
is "$(grep -c "^pressmark: skeleton: kernel $TMP/bzImage's cells here$" err)" 1 "  and its flag said so (skeleton-loud = yes)"
is "$(q "select value from run_meta m join run r on r.id = m.run_id where m.key = 'kernel.release' and r.label = '$TMP/bzImage'")" \
    "6.99.0-t09" "  and its kernel"
"$NEW" suite status > out 2> err
is "$(grep '^kernels:' out)" "kernels: the running one's cells here, the others' here as the skeleton's, noted from-its-table (backend skeleton)" \
    "suite status says where they ran, as the skeleton says"
like "$(head -1 out)" "^suite 1 \\(skel, s\\.ini\\): complete" "  and that the suite is complete"
done_testing
