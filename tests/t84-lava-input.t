#!/bin/bash
# backend = lava's bad input, refused before anything is made, published,
# submitted or written: one line naming the file, key or option, the
# value and what is accepted, exit 2, no database. (A real LAVA lab on
# this machine, its jobs, their results and their hostile uploads are
# make lava-check's: tests/lava/.)
. "$(dirname "$0")/lib.sh"
# Beside the tests that change the machine (the free lane): a state
# directory of its own, so its commands never undo, and report, what a
# pressmark those tests killed left (t21 asserts it sees that itself).
export PRESSMARK_STATE_DIR="$TMP/state"
mkdir -m 700 "$PRESSMARK_STATE_DIR"
cd "$TMP" || exit 1

k612=linux-image-6.12.117+deb12-cloud-amd64
printf 'secret-token-1\n' > token
chmod 600 token

suite() {  # suite GLOBAL_LINES: a two-kernel suite with backend = lava
    printf '[global]\nbackend = lava\nruns = 1\n%s\n[a]\nworkload = swapout\nkernel = running, %s\n' "$1" "$k612" > s.ini
}
refused() {  # refused DESCRIPTION REGEX COMMAND...: exit 2, one line, nothing written
    local desc=$1 re=$2; shift 2
    rm -f "$PRESSMARK_DB"
    find "$TMP" -path "$PRESSMARK_STATE_DIR" -prune -o ! -name out ! -name err ! -name before -print | sort > before
    "$@" > out 2> err
    local rc=$?
    is "$rc:$(wc -l < err)" "2:1" "$desc: exit 2, one line"
    like "$(cat err)" "$re" "  it names what and what is accepted"
    is "$(find "$TMP" -path "$PRESSMARK_STATE_DIR" -prune -o ! -name out ! -name err ! -name before -print | sort |
        diff before - | grep '^[<>]')" "" \
        "  nothing written (no database, no boots directory, no job definition)"
}

# A port nobody listens on.
dead_port; dead=$DEAD_PORT
lab="lava-url = http://127.0.0.1:$dead/
device-type = qemu
lava-artifacts = http://127.0.0.1:$dead/store
lava-token-file = $TMP/token"

suite "device-type = qemu
lava-artifacts = http://127.0.0.1:$dead/store"
refused "no lava-url" "s\\.ini: backend = lava needs lava-url in \\[global\\] \\(the LAVA server" "$PM" suite run s.ini
suite "lava-url = http://127.0.0.1:$dead/
device-type = qemu
lava-artifacts = http://127.0.0.1:$dead/store"
refused "no token file to submit with" "needs lava-token-file in \\[global\\] to submit jobs" "$PM" lava submit s.ini

suite "$lab"
chmod 644 token
refused "a token file others can read" \
    "^pressmark suite run: s\\.ini: lava-token-file = $TMP/token: readable by others \\(mode 0644\\); accepted: .*chmod 600" \
    "$PM" suite run s.ini
chmod 600 token
ln -s token token-link
suite "${lab/\/token/\/token-link}"
refused "a token file that is a link" "^pressmark suite run: s\\.ini: lava-token-file = $TMP/token-link: a symbolic link" \
    "$PM" suite run s.ini
: > empty-token; chmod 600 empty-token
suite "${lab/\/token/\/empty-token}"
refused "an empty token file" "lava-token-file = $TMP/empty-token: empty; accepted: one line" "$PM" suite run s.ini
mkfifo fifo-token; chmod 600 fifo-token
suite "${lab/\/token/\/fifo-token}"
refused "a FIFO as the token file (judged before it is opened)" "fifo-token: not a regular file" "$PM" suite run s.ini
printf 'abc def\n' > bad-token; chmod 600 bad-token
suite "${lab/\/token/\/bad-token}"
refused "a token with a blank" "bad-token: not one line of the token's characters" "$PM" suite run s.ini
is "$(grep -c 'abc\|def' err)" 0 "  the token's text is not echoed"
suite "$lab"
refused "a LAVA URL that does not answer" "^pressmark suite run: s\\.ini: lava-url = http://127\\.0\\.0\\.1:$dead/: no answer \\(connection refused" \
    "$PM" suite run s.ini
suite "${lab/lava-token-file = $TMP\/token/}"
refused "  also for lava job, which needs no token" "s\\.ini: lava-url = http://127\\.0\\.0\\.1:$dead/: no answer \\(connection refused" \
    "$PM" lava job s.ini
refused "  and for lava collect, which needs none either" "lava-url = http://127\\.0\\.0\\.1:$dead/: no answer" \
    "$PM" lava collect s.ini
suite "${lab/http:\/\/127.0.0.1:$dead\//ftp://127.0.0.1/}"
refused "a LAVA URL that is not http" "lava-url = ftp://127\\.0\\.0\\.1/: not http or https" "$PM" suite run s.ini
suite "${lab/http:\/\/127.0.0.1:$dead\//http://user:pw@127.0.0.1:$dead/}"
refused "a LAVA URL with a password in it" "lava-url = http://127\\.0\\.0\\.1:$dead/ \\(with a user:password\\)" \
    "$PM" suite run s.ini
is "$(grep -c ':pw@' err)" 0 "  the password is not echoed"
suite "${lab/http:\/\/127.0.0.1:$dead\//http://192.0.2.1/}"
refused "a token to another host over plain http" \
    "lava-url = http://192\\.0\\.2\\.1/: the token would cross the network unencrypted \\(accepted: https.*lava-allow-plain-http = yes\\)" \
    "$PM" suite run s.ini
suite "${lab/lava-artifacts = http:\/\/127.0.0.1:$dead\/store/lava-artifacts = http://u:p@127.0.0.1:$dead/store}"
refused "a store URL with a password (it would be in the public job)" "lava-artifacts: a user:password in it" \
    "$PM" suite run s.ini
suite "${lab/device-type = qemu/device-type = qemu$'\e'[2J}"
refused "a control character in a value" "device-type: a control character in its value" "$PM" suite run s.ini
is "$(grep -c $'\e' err)" 0 "  not echoed to the terminal"

# The suite's own keys: a device type is a name, a value has no blank or quote.
suite "${lab/device-type = qemu/device-type = qemu;reboot}"
refused "a device type that is not a name" "device-type = qemu;reboot: not a device type's name \\(accepted: letters" \
    "$PM" suite run s.ini
blank="device-type = qemu' x"
suite "${lab/device-type = qemu/$blank}"
refused "a value with a quote or blank" "$blank: not a value it takes" "$PM" suite run s.ini
quoted='lava-artifacts = http://x/a"b'
suite "${lab/lava-artifacts = http:\/\/127.0.0.1:$dead\/store/$quoted}"
refused "a store URL with a quote" "$quoted: not a value it takes" "$PM" suite run s.ini
printf '[global]\nbackend = fleet\n[a]\nworkload = swapout\n' > b.ini
refused "an unknown backend" "backend = fleet: not a backend \\(accepted: vm.*lava, a job per kernel" "$PM" suite run b.ini

# The commands' own words.
suite "$lab"
refused "collect: a job id that is not one" "'12x': not a LAVA job id \\(accepted: a whole number above 0\\)" \
    "$PM" lava collect s.ini 12x
refused "job: an output that is no directory" "--output $TMP/none: not a directory" "$PM" lava job s.ini --output "$TMP/none"
refused "an unknown lava command" "'cancel' is not a lava command \\(accepted: job, submit, collect\\)" "$PM" lava cancel
"$PM" lava --help > help.out 2>&1
is "$?" 0 "lava --help: exit 0"
like "$(cat help.out)" "lava-token-file \\(a file only its owner can read" "  it says where the token comes from"
done_testing
