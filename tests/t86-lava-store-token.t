#!/bin/bash
# lava-artifacts-token-file's bad input (the artifact store's PUT token;
# its header on the PUTs themselves is tests/unit_artifacts.c's): refused
# before anything is made or written, one line naming the key, the file
# and what is accepted, exit 2, the token's text never echoed.
. "$(dirname "$0")/lib.sh"
export PRESSMARK_STATE_DIR="$TMP/state"
mkdir -m 700 "$PRESSMARK_STATE_DIR"
cd "$TMP" || exit 1

k612=linux-image-6.12.117+deb12-cloud-amd64
secret=store-secret-0123456789abcdef
printf '%s\n' "$secret" > stoken
chmod 600 stoken
dead_port; dead=$DEAD_PORT
lab="lava-url = http://127.0.0.1:$dead/
device-type = qemu
lava-artifacts = http://127.0.0.1:$dead/store"

suite() {  # suite STORE-TOKEN-LINE [LAB]: a two-kernel suite with backend = lava
    printf '[global]\nbackend = lava\nruns = 1\n%s\n%s\n[a]\nworkload = swapout\nkernel = running, %s\n' \
        "${2:-$lab}" "$1" "$k612" > s.ini
}
refused() {  # refused DESCRIPTION REGEX: exit 2, one line, nothing written, no token in it
    local desc=$1 re=$2
    rm -f "$PRESSMARK_DB"
    find "$TMP" -path "$PRESSMARK_STATE_DIR" -prune -o ! -name out ! -name err ! -name before -print | sort > before
    "$PM" lava job s.ini > out 2> err
    local rc=$?
    is "$rc:$(wc -l < err)" "2:1" "$desc: exit 2, one line"
    like "$(cat err)" "$re" "  it names the key, the file and what is accepted"
    is "$(grep -c -- "$secret" err out)" "err:0
out:0" "  the token is not echoed"
    is "$(find "$TMP" -path "$PRESSMARK_STATE_DIR" -prune -o ! -name out ! -name err ! -name before -print | sort |
        diff before - | grep '^[<>]')" "" "  nothing written"
}

chmod 640 stoken
suite "lava-artifacts-token-file = $TMP/stoken"
refused "a store token file the group can read" \
    "^pressmark suite run: s\\.ini: lava-artifacts-token-file = $TMP/stoken: readable by others \\(mode 0640\\); accepted: a file only its owner can read \\(chmod 600"
chmod 604 stoken
refused "one anybody can read" "lava-artifacts-token-file = $TMP/stoken: readable by others \\(mode 0604\\)"
chmod 600 stoken
ln -s stoken stoken-link
suite "lava-artifacts-token-file = $TMP/stoken-link"
refused "a link to it" "lava-artifacts-token-file = $TMP/stoken-link: a symbolic link; accepted: the file itself"
: > empty; chmod 600 empty
suite "lava-artifacts-token-file = $TMP/empty"
refused "an empty one" "lava-artifacts-token-file = $TMP/empty: empty; accepted: one line of 16 to 512 characters"
suite "lava-artifacts-token-file = $TMP/missing"
refused "a missing one" "lava-artifacts-token-file = $TMP/missing: cannot open \\(No such file or directory\\)"
mkfifo fifo; chmod 600 fifo
suite "lava-artifacts-token-file = $TMP/fifo"
refused "a FIFO (judged before it is opened)" "lava-artifacts-token-file = $TMP/fifo: not a regular file"
printf 'short-token\n' > short; chmod 600 short
suite "lava-artifacts-token-file = $TMP/short"
refused "a token under 16 characters" "lava-artifacts-token-file = $TMP/short: shorter than 16 characters"
printf '%s x\n' "$secret" > spaced; chmod 600 spaced
suite "lava-artifacts-token-file = $TMP/spaced"
refused "a token with a blank" "lava-artifacts-token-file = $TMP/spaced: not one line of the token's characters"
suite "lava-artifacts-token-file = $TMP/stoken" "${lab/http:\/\/127.0.0.1:$dead\/store/http://192.0.2.1/store}"
refused "the store's token to another host over plain http" \
    "lava-artifacts = http://192\\.0\\.2\\.1/store: the store's token would cross the network unencrypted \\(accepted: https, a store on this machine, or lava-allow-plain-http = yes\\)"

# A good one is taken: the suite goes on to the lab (which does not answer here).
suite "lava-artifacts-token-file = $TMP/stoken"
refused "a good store token: the suite goes on to lava-url" "lava-url = http://127\\.0\\.0\\.1:$dead/: no answer"
suite "lava-artifacts-token-file = $TMP/stoken" "${lab/http:\/\/127.0.0.1:$dead\/store/http://192.0.2.1/store}
lava-allow-plain-http = yes"
refused "  also over plain http with lava-allow-plain-http = yes" "lava-url = http://127\\.0\\.0\\.1:$dead/: no answer"
suite "lava-artifacts-tokenfile = $TMP/stoken"
refused "a misspelt key: the key list names it" "lava-allow-plain-http, lava-artifacts-token-file\\)"
done_testing
