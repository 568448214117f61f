#!/bin/bash
# pressmark bisect, all that boots nothing (the bisections in VMs are
# tests/slow/t82-bisect-vms.t, make test-slow). Bad input is refused in one
# line before anything is written; --packages lists apt's kernels between
# two in dpkg's order. Hostile input: a database's row, batches and
# candidates are never run or trusted (resuming is given the suite file and
# build again), builds' and databases' escape sequences are shown escaped,
# a build may not name a FIFO or a file outside its tree as the kernel,
# paths longer than 1024 and another user's repository get one line.
. "$(dirname "$0")/lib.sh"
vm_lane noboot   # (it boots no VM; beside t80 never: make puts both in one lane)
before=$(machine_state)

oldest61=$(apt-cache pkgnames linux-image-6.1.0- | grep -E '^linux-image-6\.1\.0-[0-9]+-cloud-amd64$' | sort -V | head -1)

# A small usemem cell under a cgroup cap with swap in the guest.
cat > cell.ini <<'INI'
[global]
vm-memory = 512M
vm-timeout = 5m

[reclaim]
workload = usemem
size = 64M
pattern = rand
passes = 2
mem-cap = 48M
swap = 256M
INI
M=(--metric vmstat.pgdeactivate)

# Bad input: one line naming the option and value and what is accepted,
# exit 2, no database made.
bad "a range with nothing between" "^pressmark bisect: --good linux-image-6\.1\.0-56-cloud-amd64 --bad linux-image-6\.1\.0-57-cloud-amd64: 1 candidate after the good kernel, the bad one included: nothing to bisect \(accepted:" \
    bisect "${M[@]}" --packages --good linux-image-6.1.0-56-cloud-amd64 --bad linux-image-6.1.0-57-cloud-amd64 cell.ini
bad "a good package after the bad one" "^pressmark bisect: --good $(re "$k612") \(.*\) is not before --bad $(re "$oldest61") \(.*\) in dpkg's version order \(accepted:" \
    bisect "${M[@]}" --packages --good "$k612" --bad "$oldest61" cell.ini
bad "a metric the cell does not store" "^pressmark bisect: --metric 'chat\.msgs_per_s': not a metric cell 'reclaim' stores \(accepted: its workload's usemem\.\* metrics" \
    bisect --metric chat.msgs_per_s --packages --good "$oldest61" --bad "$k612" cell.ini
bad "a metric nothing declares" "^pressmark bisect: --metric 'vmstat\.nosuch': not a metric" \
    bisect --metric vmstat.nosuch --packages --good "$oldest61" --bad "$k612" cell.ini
bad "no kind of candidates" "^pressmark bisect: no kind of candidates \(accepted: one of --packages, --debs, --git REPO\)" \
    bisect --good "$oldest61" --bad "$k612" cell.ini
bad "a cell that is not there" "^pressmark bisect: --cell 'nosuch': not a cell of the suite \(accepted: a cell's label" \
    bisect --cell nosuch --packages --good "$oldest61" --bad "$k612" cell.ini

# A git repository whose commits name the kernel the build unpacks.
git init -q repo
for i in 1 2 3 4 5 6; do
    if [ $i -le 3 ]; then echo 61 > repo/kernel; else echo 612 > repo/kernel; fi
    echo $i > repo/n
    git -C repo add kernel n && git -C repo -c user.name=t -c user.email=t@example.invalid commit -qm "c$i"
done
c=($(git -C repo rev-list --reverse HEAD))     # c[0] .. c[5]; c[3] is the first 6.12 one
printf '#!/bin/sh\nexit 0\n' > notexec.sh
chmod 644 notexec.sh
bad "a build command that is not executable" "^pressmark bisect: --build '$(re "$TMP")/notexec\.sh': $(re "$TMP")/notexec\.sh is not an executable file \(accepted:" \
    bisect "${M[@]}" --git repo --build "$TMP/notexec.sh" --good "${c[0]}" --bad "${c[5]}" cell.ini
bad "a good commit that is not before the bad one" "^pressmark bisect: --good ${c[5]} is not before --bad ${c[0]} in .* \(accepted: a good commit that is an ancestor" \
    bisect "${M[@]}" --git repo --build /bin/true --good "${c[5]}" --bad "${c[0]}" cell.ini
bad "a commit that is not one" "^pressmark bisect: --good/--bad 'nosuch': not a commit of" \
    bisect "${M[@]}" --git repo --build /bin/true --good nosuch --bad "${c[5]}" cell.ini
bad "--git without --build" "^pressmark bisect: --git repo needs --build CMD" \
    bisect "${M[@]}" --git repo --good "${c[0]}" --bad "${c[5]}" cell.ini

# Hostile input. Attacks aim only at decoys in $TMP ($TMP/PWNED must
# never appear); each test's bisection has a database of its own, so
# $PRESSMARK_DB stays as the tests after these expect it.
H="$TMP/hostile.db"
hpm() { PRESSMARK_DB="$H" "$PM" "$@"; }
hq() { sqlite3 -batch "$H" "$1"; }
# mkdb DB: a database of this schema, made by a command that runs nothing
# (a run here, beside the host's tests, would make a cgroup they would see).
# (merged from a copy: a database read leaves -shm and -wal beside it)
cp "$ROOT/tests/fixtures/results-schema7.db" "$TMP/seed.db"
mkdb() { "$PM" --db "$1" merge -- "$TMP/seed.db" > /dev/null; }
# rekey ID: the bisection's key made again from what it holds (FNV-1a of
# its fields and candidates, as bisect/bisect_prep.c makes it), as
# whoever forged a row would, so a check behind the key is reached.
rekey() {
    python3 - "$H" "$1" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1]); i = int(sys.argv[2])
r = db.execute("select suite_text, cell, metric, kind, good, bad, repo, build, runs, max_runs, alpha from bisect where id = ?", (i,)).fetchone()
parts = [x.encode() for x in r[:8]] + [("%d %d %.17g" % (r[8], r[9], r[10])).encode()]
parts += [k.encode() for (k,) in db.execute("select kernel from bisect_candidate where bisect_id = ? order by idx", (i,))]
h = 1469598103934665603
for p in parts:
    for b in p + b"\0":
        h = ((h ^ b) * 1099511628211) & 0xffffffffffffffff
db.execute("update bisect set key = ? where id = ?", ("%016x" % h, i)); db.commit()
PY
}
# refused DESCRIPTION REGEX ARGS...: hpm ARGS exits 2 with one line that
# matches, and no decoy was touched; refused_later: the line that matches
# is the last (it refuses after what it did before is said).
refused() {
    local desc=$1 re=$2; shift 2
    hpm "$@" > "$TMP/out" 2> "$TMP/err"
    is "$?" 2 "$desc: exit 2"
    like "$(if [ -n "${LATER:-}" ]; then tail -1 "$TMP/err"; else cat "$TMP/err"; fi)" "$re" "$desc: says why"
    [ -n "${LATER:-}" ] || is "$(wc -l < "$TMP/err")" 1 "$desc: in one line"
    ok "$desc: nothing run" test ! -e "$TMP/PWNED"
}
refused_later() { LATER=1 refused "$@"; }
# raw_controls FILE...: escape sequences' bytes as they are (ESC, BEL, and
# U+009B, a one-character CSI), counted.
raw_controls() { cat "$@" | LC_ALL=C grep -caP '\x1b|\x07|\xc2\x9b'; }

# A build that fails and says so with escape sequences (ESC ] retitles a
# window, U+009B is CSI in one character): its log's last lines are the
# reason, stored and shown with no control character left raw.
printf '#!/bin/sh\nprintf '"'"'oops \\033]0;TITLE\\007 \\302\\2332J csi\\n'"'"' >&2\nexit 1\n' > fail.sh
chmod 755 fail.sh
G=(bisect "${M[@]}" --git repo --build "$TMP/fail.sh" --good "${c[0]}" --bad "${c[5]}" cell.ini)
hpm "${G[@]}" > out 2> err
is "$?" 1 "a good commit whose build fails: exit 1"
like "$(cat err)" "the good commit could not be built: the build of [0-9a-f]{12} exited with status 1: oops +\]0;TITLE +2J csi" \
    "  its log's last line as the reason"
is "$(raw_controls err; hq "select reason from bisect where id = 1" | raw_controls)" "$(printf '0\n0')" \
    "  no escape sequence of it raw on the terminal or in the database (C1 too)"
# A build whose last line names no kernel but holds escape sequences.
printf '#!/bin/sh\nprintf '"'"'built \\033[2J \\302\\2336n done\\n'"'"'\n' > badline.sh
chmod 755 badline.sh
hpm bisect "${M[@]}" --git repo --build "$TMP/badline.sh" --good "${c[0]}" --bad "${c[5]}" cell.ini > out 2> err
is "$?" 1 "a build whose last line is no kernel: exit 1"
like "$(cat err)" "named no kernel on its last line of output \('built \\\\x1b\[2J \\\\xc2\\\\x9b6n done'" \
    "  the line quoted in the reason, its control characters as \\xNN"
is "$(raw_controls err; hq "select reason from bisect where id = 2" | raw_controls)" "$(printf '0\n0')" \
    "  none of them raw on the terminal or in the database"

# --format json of a bisection whose stored reason holds U+009B and ESC:
# the JSON parses (no terminal escaping inside it) and carries them.
hq "update bisect set reason = 'evil ' || char(155) || '2J ' || char(27) || '[31m red' where id = 1"
hpm bisect --continue --id 1 --format json --git repo --build "$TMP/fail.sh" cell.ini > out 2> err
is "$(python3 -m json.tool out > /dev/null && python3 -c 'import json,sys; r = json.load(open(sys.argv[1]))["reason"]; print("\x9b" in r, "\x1b" in r)' out)" \
   "True True" "--format json with a hostile reason parses, the reason whole"

# A database is data, never code: the stored row's build command, suite,
# batches, candidates and numbers are not run or trusted. A row whose
# build is a command of the attacker's, with the key of the command that
# made it (so the same command again finds it), then with a key made to
# fit what it holds (so a check of the key alone would pass):
hq "update bisect set build = '/bin/sh -c id>$TMP/PWNED;exit\${IFS}1', state = 'running' where id = 1"
refused "the same command again, on a row with another build command" "^pressmark bisect: bisection 1 holds another build command than the one given, so nothing is run \(accepted:" \
    "${G[@]}"
rekey 1
refused "--continue of it" "^pressmark bisect: bisection 1 holds another build command than the one given, so nothing is run \(accepted:" \
    bisect --continue --git repo --build "$TMP/fail.sh" cell.ini
refused "  --continue without --git and --build" "^pressmark bisect: bisection 1 holds a git bisection's repository and build command, and none was given" \
    bisect --continue cell.ini
hpm bisect --step --id 1 --git repo --build "$TMP/fail.sh" cell.ini > out 2> err
is "$?" 128 "  --step: exit 128, which stops git bisect run"
like "$(cat err)" "^pressmark bisect: bisection 1 holds another build command" "  in one line"
hpm bisect --step --id 1 cell.ini > out 2> err
is "$?:$(cat err)" "128:pressmark bisect: --step needs --git REPO and --build CMD (accepted: those the git bisection was started with)" \
    "  --step without them: one line, exit 128"
is "$(hpm bisect --continue 2>&1; echo "rc=$?")" "pressmark bisect: --continue needs the suite FILE the bisection was started with (accepted: pressmark bisect --continue [--id N] [--git REPO --build CMD] FILE [PACKAGE-FILE...])
rc=2" "--continue without FILE: one line, exit 2"
hq "update bisect set build = '$TMP/fail.sh', suite_text = replace(suite_text, 'workload = usemem', 'workload = record
command = /bin/touch $TMP/PWNED') where id = 1"
rekey 1
refused "a row with another suite text" "^pressmark bisect: bisection 1 holds another suite text than the file's" \
    bisect --continue --git repo --build "$TMP/fail.sh" cell.ini
hq "update bisect set suite_text = replace(suite_text, 'workload = record
command = /bin/touch $TMP/PWNED', 'workload = usemem'), runs = 100000 where id = 1"
rekey 1
refused "a row with runs out of --runs' range (its key made to fit)" "^pressmark bisect: bisection 1: its stored kind, runs, max-runs, alpha or metric is not one a bisection takes" \
    bisect --continue --git repo --build "$TMP/fail.sh" cell.ini
hq "update bisect set runs = 3, state = 'running' where id = 1; update bisect_candidate set kernel = '--upload-pack=touch $TMP/PWNED' where bisect_id = 1 and idx = 0"
rekey 1
refused "a row with a candidate that is not a commit" "^pressmark bisect: bisection 1: its stored kernel '--upload-pack=touch .*' is not one of its kind" \
    bisect --continue --git repo --build "$TMP/fail.sh" cell.ini
# A stored batch (a suite of one boot) is made again from the suite file
# and must be the same: a batch whose text is the attacker's is not run.
# The trigger plants it when the good kernel's key is stored, before its
# first boot.
rm -f "$H"
mkdb "$H"
hq "create trigger plant after update of kernel_key on bisect_step when new.kernel_key != '' begin
    insert or ignore into bisect_batch(kernel_key, n, suite_name, text) values (new.kernel_key, 1,
    'bisect-' || new.kernel_key || '-1', '[global]
runs = 1
[x]
workload = record
command = /bin/touch $TMP/PWNED
'); end"
refused_later "a stored batch of another text" "^pressmark bisect: bisection 1: the stored batch 1 of kernel key [0-9a-f]{16} \(suite 'bisect-[0-9a-f]{16}-1'\) is not the batch this suite file makes for it, so it is not run" \
    bisect "${M[@]}" --packages --good "$oldest61" --bad "$k612" cell.ini
# Package files: a resumed bisection boots only files given again. Three
# decoy packages (dpkg-deb -f reads them, nothing boots: a trigger stops
# the bisection before its first step), then a stored candidate that was
# not given.
fakedeb() {
    mkdir -p "$TMP/fd/DEBIAN"
    printf 'Package: %s\nVersion: %s\nArchitecture: amd64\nMaintainer: t <t@example.invalid>\nDescription: decoy\n' \
        "$1" "$2" > "$TMP/fd/DEBIAN/control"
    dpkg-deb -b -Zgzip "$TMP/fd" "$3" > /dev/null && rm -rf "$TMP/fd"
}
fakedeb linux-image-6.1.0-1-cloud-amd64 6.1.1-1 fa.deb
fakedeb linux-image-6.1.0-2-cloud-amd64 6.1.2-1 fb.deb
fakedeb linux-image-6.1.0-3-cloud-amd64 6.1.3-1 fc.deb
cp fb.deb decoy.deb
rm -f "$H"
mkdb "$H"
hq "create trigger stop before insert on bisect_step begin select raise(abort, 'stopped before a step'); end"
hpm bisect "${M[@]}" --debs --good fa.deb --bad fc.deb cell.ini fb.deb > out 2> err
like "$(tail -1 err)" "stopped before a step" "a package-file bisection made and stopped before it boots"
hq "update bisect_candidate set kernel = '$TMP/decoy.deb' where idx = 0"
rekey 1
refused "a stored package file not given again" "^pressmark bisect: bisection 1: its stored kernel '$(re "$TMP")/decoy\.deb' is not one of the package files given \(accepted: every package file" \
    bisect --continue cell.ini fa.deb fb.deb fc.deb
refused "  and none given" "^pressmark bisect: bisection 1: its stored kernel '$(re "$TMP")/fa\.deb' is not one of the package files given" \
    bisect --continue cell.ini

# realpath() of paths longer than 1024 (a suite file, a repository and a
# package file reached through a chain of links): the whole path, or one
# line; no overflow, no abort.
seg=$(printf 'd%.0s' $(seq 200))
deep=long; for i in 1 2 3 4 5 6; do deep=$deep/$seg$i; done
mkdir -p "$deep" && cp cell.ini "$deep/" && git clone -q repo "$deep/repo" && touch "$deep/x.deb"
ln -s "$deep" s1 && ln -s s1 s2
"$PM" bisect "${M[@]}" --plan --packages --good "$oldest61" --bad "$k612" "$TMP/s2/cell.ini" > out 2> err
is "$?" 0 "a suite file whose resolved path is $(realpath s2/cell.ini | wc -c) characters long: planned"
like "$(cat out)" "at most 7 boots when each step decides in one" "  all of it"
"$PM" bisect "${M[@]}" --plan --git "$TMP/s2/repo" --build /bin/true --good "${c[0]}" --bad "${c[5]}" "$TMP/s2/cell.ini" > out 2> err
is "$?:$(grep -cE '^ +[0-9]+  [0-9a-f]{40}$' out)" "0:5" "  and a repository's: planned, its 5 commits"
bad "  and a package file's" "^pressmark bisect: --good '$(re "$TMP")/s2/x\.deb': its resolved path is [0-9]+ characters long, more than the 255 it may have \(accepted:" \
    bisect "${M[@]}" --plan --debs --good "$TMP/s2/x.deb" --bad "$TMP/s2/x.deb" cell.ini

# What a build's last line names is read and booted as root: a FIFO (its
# open would hang) or a file outside the tree built and
# PRESSMARK_BISECT_OUT is not taken.
rm -f "$H"
printf '#!/bin/sh\nmkfifo "$PRESSMARK_BISECT_OUT/bzImage" && echo "$PRESSMARK_BISECT_OUT/bzImage"\n' > fifo.sh
printf 'not a kernel\n' > decoy-bzImage
mkdir decoy-mods
printf '#!/bin/sh\necho %s\n' "$TMP/decoy-bzImage@$TMP/decoy-mods" > outside.sh
chmod 755 fifo.sh outside.sh
timeout -k 5 60 env PRESSMARK_DB="$H" "$PM" bisect "${M[@]}" --git repo --build "$TMP/fifo.sh" --good "${c[0]}" --bad "${c[5]}" cell.ini > out 2> err
is "$?" 1 "a build that names a FIFO: exit 1, no hang"
like "$(cat err)" "the good kernel: kernel = /.*/out-1/bzImage: not a regular file" "  the FIFO is no kernel, with the reason"
timeout -k 5 60 env PRESSMARK_DB="$H" "$PM" bisect "${M[@]}" --git repo --build "$TMP/outside.sh" --good "${c[0]}" --bad "${c[5]}" cell.ini > out 2> err
is "$?" 1 "a build that names a file outside its tree: exit 1"
like "$(cat err)" "the good commit could not be built: the build of [0-9a-f]{12} named $(re "$TMP")/decoy-bzImage, outside the tree it built and PRESSMARK_BISECT_OUT" \
    "  the reason says where it lies"
is "$(cat decoy-bzImage)" "not a kernel" "  the decoy as it was"

# A repository of another user's: git would refuse it to root (its own
# ownership check); pressmark says so first, in one line.
cp -a repo nrepo && chown -R nobody nrepo
bad "a repository owned by nobody" "^pressmark bisect: --git '$(re "$TMP")/nrepo' is owned by nobody, not root, and git reads no other user's repository as root \(accepted: a repository owned by root: clone it as root first" \
    bisect "${M[@]}" --git nrepo --build /bin/true --good "${c[0]}" --bad "${c[5]}" cell.ini
# git's own words stay in an error: a repository that lost its objects
# after its bisection started.
cp -a repo brepo
rm -f "$H"
hpm bisect "${M[@]}" --git brepo --build "$TMP/fail.sh" --good "${c[0]}" --bad "${c[5]}" cell.ini > /dev/null 2>&1
hq "update bisect set state = 'running'"
rm -rf brepo/.git/objects/??
hpm bisect --continue --git brepo --build "$TMP/fail.sh" cell.ini > out 2> err
like "$(tail -1 err)" "^pressmark bisect: git exited with status 128 \(fatal: .*\)$" "a git that fails: its fatal line in the error"
ok "no decoy was written by any of these" test ! -e "$TMP/PWNED"

# Schema 9 holds the bisections: an older database gains the tables
# when a command writes to it (as t10 migrates schema 4 and 7).
cp "$ROOT/tests/fixtures/results-schema7.db" old.db
cp "$ROOT/tests/fixtures/results-schema4.db" old4.db
"$PM" --db old.db merge -- old4.db > /dev/null
schema=$(awk '/define PM_SCHEMA_VERSION/ { print $3 }' "$ROOT/store/schema.h")
is "$(sqlite3 -batch old.db "pragma user_version"):$(sqlite3 -batch old.db "select group_concat(name) from (select name from sqlite_master where name like 'bisect%' order by name)")" \
   "$schema:bisect,bisect_batch,bisect_candidate,bisect_key,bisect_step" "a schema-7 database migrates to today's schema ($schema), with the bisection tables"

# --packages --plan: every cloud kernel apt knows between the oldest 6.1
# and the newest 6.12, in dpkg's order (dpkg itself says so pair by pair).
plan=$("$PM" bisect "${M[@]}" --plan --packages --good "$oldest61" --bad "$k612" cell.ini)
is "$?" 0 "--packages --plan exits 0"
ok "  and writes nothing" test ! -e "$PRESSMARK_DB"
listed=$(printf '%s\n' "$plan" | awk '$1 ~ /^[0-9]+$/ && $2 ~ /^linux-image-/ { print $2 }')
want=$(apt-cache pkgnames linux-image- | grep -E '^linux-image-(6\.1\.0-[0-9]+|6\.12\.[0-9]+\+deb12)-cloud-amd64$' | grep -vx "$oldest61" | sort)
is "$(printf '%s\n' "$listed" | sort)" "$want" "  the candidates: apt's cloud kernels after the good one, the bad one included ($(printf '%s\n' "$listed" | wc -l))"
versions=($(printf '%s\n' "$plan" | awk '$1 ~ /^[0-9]+$/ && $2 ~ /^linux-image-/ { print $3 }'))
order=ok
for ((i = 1; i < ${#versions[@]}; i++)); do
    dpkg --compare-versions "${versions[i-1]}" lt "${versions[i]}" || order="${versions[i-1]} !< ${versions[i]}"
done
is "$order" ok "  in dpkg's version order"
like "$plan" "at most 7 boots when each step decides in one: the two endpoints and 5 steps" "  and the boots it takes at most"

is "$(machine_state)" "$before" "machine as it was"
done_testing
