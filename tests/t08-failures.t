#!/bin/bash
# A failed check reaches PM_FAILURES (make test prints that file's end when
# it fails): each "not ok" line and its diagnostics appended, prefixed with
# the test's name and ": ", from the shell tests (tests/lib.sh's diag) and
# from the C unit tests (tests/tap.h); a passing check writes nothing; a
# file that cannot be written to is no failure of the test. Throwaway
# tests run in $TMP, nothing outside it is touched.
. "$(dirname "$0")/lib.sh"

# lib.sh as the throwaway tests source it: a copy whose own directory is in
# $TMP (the file's mktemp -d /tmp/pressmark-test.XXXXXX the one line
# changed), so that nothing is made outside $TMP.
mkdir "$TMP/tests" "$TMP/inner"
# shellcheck disable=SC2016  # $TMP_PARENT expands where the copy runs
sed 's|mktemp -d /tmp/pressmark-test\.XXXXXX|mktemp -d "$TMP_PARENT/pressmark-test.XXXXXX"|' \
    "$ROOT/tests/lib.sh" > "$TMP/tests/lib.sh"
is "$(diff "$ROOT/tests/lib.sh" "$TMP/tests/lib.sh" | grep -c '^[<>]')" 2 \
    "the throwaway tests' lib.sh differs from tests/lib.sh in its temporary directory's line only"
export TMP_PARENT=$TMP/inner

cat > "$TMP/tests/t99-throwaway.t" <<'EOF'
#!/bin/bash
. "$(dirname "$0")/lib.sh"
is same same "a passing is"
is "one" "two" "a failing is"
like "abc" '^x+$' "a failing like"
like "xxx" '^x+$' "a passing like"
done_testing
EOF
cat > "$TMP/tests/t98-passing.t" <<'EOF'
#!/bin/bash
. "$(dirname "$0")/lib.sh"
is same same "a passing is"
like "xxx" '^x+$' "a passing like"
done_testing
EOF
chmod +x "$TMP/tests/t99-throwaway.t" "$TMP/tests/t98-passing.t"

F=$TMP/failures.txt
printf 'earlier.t: not ok 1 - a line already there\n' > "$F"
out=$(PM_FAILURES=$F "$TMP/tests/t99-throwaway.t")
is "$?" 1 "the shell test with two failed checks fails"
is "$out" "ok 1 - a passing is
not ok 2 - a failing is
#   got:  'one'
#   want: 'two'
not ok 3 - a failing like
#   'abc'
#   does not match /^x+\$/
ok 4 - a passing like
1..4" "its TAP stream is as without PM_FAILURES"
is "$(cat "$F")" "earlier.t: not ok 1 - a line already there
t99-throwaway.t: not ok 2 - a failing is
t99-throwaway.t: #   got:  'one'
t99-throwaway.t: #   want: 'two'
t99-throwaway.t: not ok 3 - a failing like
t99-throwaway.t: #   'abc'
t99-throwaway.t: #   does not match /^x+\$/" \
    "PM_FAILURES gets the failed is and like, each line prefixed with the test's name, after what was there"

rm -f "$F"
out=$(PM_FAILURES=$F "$TMP/tests/t98-passing.t")
is "$?" 0 "a shell test whose checks pass passes"
ok "and writes nothing: PM_FAILURES is not made" test ! -e "$F"
before=$(find "$TMP" | sort)
out=$(env -u PM_FAILURES "$TMP/tests/t99-throwaway.t")
is "$(find "$TMP" | sort)" "$before" "without PM_FAILURES a failing shell test writes no file"
is "$(ls -A "$TMP/inner")" "" "and the throwaway tests' own directories are gone"

# The same from tests/tap.h, in a tiny C program.
CC=${CC:-cc}
if ! command -v "$CC" >/dev/null; then
    skip "a C compiler ($CC) for the tap.h program"
    done_testing
    exit
fi
cat > "$TMP/unit_tap.c" <<'EOF'
#include "tests/tap.h"
int main(int argc, char **argv)
{
    size_t len;
    if (argc > 1)
        free(slurp(argv[1], &len));
    ok(1, "a passing ok");
    ok(0, "a failing ok %d", 2);
    is_str("one", "two", "a failing is_str");
    is_num(1.5, 2, 0.1, "a failing is_num");
    is_str("same", "same", "a passing is_str");
    return done_testing();
}
EOF
cat > "$TMP/unit_pass.c" <<'EOF'
#include "tests/tap.h"
int main(void)
{
    ok(1, "a passing ok");
    is_num(2, 2, 0, "a passing is_num");
    return done_testing();
}
EOF
setup "the tap.h programs compile" \
    sh -c "cd '$TMP' && '$CC' -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -I'$ROOT' -o unit_tap.t unit_tap.c -lm &&
           '$CC' -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -I'$ROOT' -o unit_pass.t unit_pass.c -lm"

rm -f "$F"
out=$(cd "$TMP" && umask 0 && PM_FAILURES=$F ./unit_tap.t)
is "$?" 1 "the C test with three failed checks fails"
is "$out" "ok 1 - a passing ok
not ok 2 - a failing ok 2
#   failed at unit_tap.c line 8
not ok 3 - a failing is_str
#   failed at unit_tap.c line 9: got 'one', want 'two'
not ok 4 - a failing is_num
#   failed at unit_tap.c line 10: got 1.5, want 2 (tolerance 0.1)
ok 5 - a passing is_str
1..5" "its TAP stream"
is "$(cat "$F")" "unit_tap.t: not ok 2 - a failing ok 2
unit_tap.t: #   failed at unit_tap.c line 8
unit_tap.t: not ok 3 - a failing is_str
unit_tap.t: #   failed at unit_tap.c line 9: got 'one', want 'two'
unit_tap.t: not ok 4 - a failing is_num
unit_tap.t: #   failed at unit_tap.c line 10: got 1.5, want 2 (tolerance 0.1)" \
    "PM_FAILURES gets the failed ok, is_str and is_num, each line prefixed with the program's name"
is "$(stat -c %a "$F")" 644 "the file it makes is of mode 0644 (under umask 0)"
out=$(cd "$TMP" && PM_FAILURES=$F ./unit_tap.t "$TMP/no-such-fixture")
is "$(tail -n 1 "$F")" "unit_tap.t: Bail out! cannot open fixture $TMP/no-such-fixture" "a bail-out goes there too"
is "$(wc -l < "$F")" 7 "appended after the lines already there"

rm -f "$F"
out=$(cd "$TMP" && PM_FAILURES=$F ./unit_pass.t)
is "$?" 0 "a C test whose checks pass passes"
ok "and writes nothing: PM_FAILURES is not made" test ! -e "$F"

printf 'kept\n' > "$TMP/target"
ln -s target "$TMP/link"
out=$(cd "$TMP" && PM_FAILURES=$TMP/link ./unit_tap.t)
rc=$?
is "$rc $(printf '%s\n' "$out" | grep -c '^not ok')" "1 3" \
    "PM_FAILURES a symbolic link: the C test runs and fails as before"
is "$(cat "$TMP/target")" kept "  nothing written through the link"
out=$(cd "$TMP" && PM_FAILURES=$TMP/no-dir/failures.txt ./unit_tap.t)
rc=$?
is "$rc $(printf '%s\n' "$out" | grep -c '^not ok')" "1 3" \
    "PM_FAILURES in a directory that is not there: the C test runs and fails as before"
ok "  and no directory is made" test ! -e "$TMP/no-dir"
done_testing
