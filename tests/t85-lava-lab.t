#!/bin/bash
# The LAVA lab's own pieces, each run alone here (make lava-check brings up
# the whole lab): the artifact store (tools/lava-lab/artifacts.py) on a
# loopback port with its files in this test's directory, and the writer of
# the worker's env.yaml (tools/lava-lab/put-conf.py) in a directory
# another user owns, as /etc/lava-server/dispatcher.d is lavaserver's.
# Hostile: PUTs with no token, a wrong one, the guest's outside its names,
# past the caps, to a name taken or a path out; links planted where the
# writer writes, each aimed at a decoy in this directory. The store and
# the writer need root to become another user and to make a directory of
# another's: without it the file says so and skips.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || skip_all "needs root (the store drops root for a user of its own; the writer's hostile directory is another user's)"
getent passwd nobody > /dev/null || skip_all "needs the user nobody (the store serves as it here)"
cd "$TMP" || exit 1
PY=/usr/bin/python3
STORE=$ROOT/tools/lava-lab/artifacts.py
PUTCONF=$ROOT/tools/lava-lab/put-conf.py

# req METHOD PATH [AUTH [BODY-FILE [CHUNK]]]: one request on its own
# connection, as written (no path cleaned up); prints the status (000
# when none came). A body goes after the store's 100 Continue (a refusal
# comes before it; NOEXPECT=1: sent at once, as the smoke job's guest
# does), chunked in CHUNK bytes when CHUNK is given. GET bodies go to
# $TMP/got.
cat > client.py << 'EOF'
import os, select, socket, sys
port, method, path = int(open("port").read()), sys.argv[1], sys.argv[2]
auth = sys.argv[3] if len(sys.argv) > 3 else ""
body = open(sys.argv[4], "rb").read() if len(sys.argv) > 4 and sys.argv[4] else None
chunk = int(sys.argv[5]) if len(sys.argv) > 5 else 0
s = socket.create_connection(("127.0.0.1", port))
head = "%s %s HTTP/1.1\r\nHost: store\r\nConnection: close\r\n" % (method, path)
if auth:
    head += "Authorization:%s\r\n" % auth
at_once = os.environ.get("NOEXPECT") == "1"
if body is not None:
    head += "" if at_once else "Expect: 100-continue\r\n"
    head += "Transfer-Encoding: chunked\r\n" if chunk else "Content-Length: %d\r\n" % len(body)
s.sendall((head + "\r\n").encode() + (body if at_once and not chunk else b""))
f = s.makefile("rb")
status = f.readline().split(b" ")[1:2]
if status == [b"100"]:
    f.readline()
    pieces = [body[i:i + chunk] for i in range(0, len(body), chunk)] if chunk else [body]
    try:
        for p in pieces:
            if select.select([s], [], [], 0)[0]:
                break   # answered mid-body: a refusal
            s.sendall(b"%x\r\n%s\r\n" % (len(p), p) if chunk else p)
        if chunk:
            s.sendall(b"0\r\n\r\n")
    except OSError:
        pass
    status = f.readline().split(b" ")[1:2]
print(status[0].decode() if status else "000")
if method == "GET" and status == [b"200"]:
    length = 0
    while True:
        line = f.readline().strip()
        if not line:
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    open("got", "wb").write(f.read(length))
EOF
req() { "$PY" "$TMP/client.py" "$@" 2> /dev/null || echo 000; }
listing() { (cd "$TMP/store" && find . -mindepth 1 | sort | tr '\n' ' '); }
uid_of() { awk '/^Uid:/ { print $2, $3, $4, $5 }' "/proc/$1/status"; }

nobody=$(id -u nobody)
mkdir -m 700 tok
"$PY" -c 'import secrets; print(secrets.token_hex(32))' > tok/main
"$PY" -c 'import secrets; print(secrets.token_hex(32))' > tok/guest
chmod 600 tok/main tok/guest
main="Bearer $(cat tok/main)" guest="Bearer $(cat tok/guest)"
mkdir store && chown nobody: store && chmod 755 store
echo decoy > decoy
mkdir decoy-dir
# The decoys are the store user's to write, and reachable by it (this
# directory searchable, not writable, by others): a store that followed a
# planted link could change them, so their being unchanged means something.
chown nobody decoy decoy-dir && chmod o+x "$TMP"
head -c 1000 /dev/urandom > small
head -c 99000 /dev/urandom > big
head -c 90000 /dev/urandom > chunky
head -c 100001 /dev/urandom > over

# start_store [ARGS...]: the store as nobody on a port of its own, capped
# at 100000 bytes a body and 300000 in all; STORE_PID, its pid.
start_store() {
    rm -f port
    "$PY" "$STORE" --root "$TMP/store" --user nobody --token-file tok/main --guest-token-file tok/guest \
        --guest-names 'pressmark/results-*.tar' --port-file "$TMP/port" --max-bytes 100000 \
        --max-total-bytes 300000 "$@" 2>> store.log &
    STORE_PID=$!
    cleanup_add "stop_bg $STORE_PID"
    wait_for test -s port
}

# Refused before it serves: one line, exit 2, no port written.
refused_start() {  # refused_start DESCRIPTION REGEX ARGS...
    local desc=$1 re=$2
    shift 2
    rm -f port
    "$PY" "$STORE" --port-file "$TMP/port" "$@" > out 2> err
    is "$?:$(wc -l < err)" "2:1" "$desc: exit 2, one line"
    like "$(cat err)" "$re" "  names it and what is accepted"
    ok "  it never listened (no port file)" test ! -e port
}
refused_start "as root with no --user" "refuses to serve as root \\(accepted: --user NAME" \
    --root "$TMP/store" --token-file tok/main
refused_start "--user root" "--user root: uid 0" --root "$TMP/store" --token-file tok/main --user root
mkdir rootdir
refused_start "a --root that is not the user's" "--root $TMP/rootdir: uid 0, mode 755: accepted: a directory of uid $nobody" \
    --root "$TMP/rootdir" --token-file tok/main --user nobody
chmod 644 tok/main
refused_start "a token file others can read" "--token-file tok/main: uid 0, mode 644: accepted: .*chmod 600" \
    --root "$TMP/store" --token-file tok/main --user nobody
chmod 600 tok/main
ln -s main tok/link
refused_start "a token file that is a link" "--token-file tok/link: a symbolic link" \
    --root "$TMP/store" --token-file tok/link --user nobody
refused_start "a guest token without its names" "--guest-token-file and --guest-names: accepted: both or neither" \
    --root "$TMP/store" --token-file tok/main --user nobody --guest-token-file tok/guest

# (the port is written as root: a link planted under its temporary name
# is removed, never written through)
echo decoy > decoy.txt
ln -s decoy.txt port.tmp
setup "the store starts (as nobody, on a loopback port)" start_store
is "$(cat decoy.txt):$(test -L port.tmp || test -e port.tmp || echo gone):$(stat -c %F port)" "decoy:gone:regular file" \
   "  a link planted at port.tmp was not followed: the decoy as it was, the port a file of its own"
is "$(uid_of "$STORE_PID")" "$nobody $nobody $nobody $nobody" "it runs as nobody: real, effective, saved and fs uid (/proc/PID/status)"
is "$(awk '/^Groups:/ { print $2 }' "/proc/$STORE_PID/status")" "" "  in no supplementary group"
is "$(awk '/^Cap(Eff|Prm|Amb):/ { printf "%s ", $2 }' "/proc/$STORE_PID/status")" "0000000000000000 0000000000000000 0000000000000000 " \
   "  with no capability (effective, permitted, ambient)"

# Who may write.
is "$(req PUT /a.bin "" small)" 401 "a PUT with no token: 401"
is "$(req PUT /a.bin "Bearer $(cat tok/guest | tr 0-9a-f 1-9a-f0)" small)" 401 "  with a wrong token: 401"
is "$(req PUT /a.bin "Bearer $(head -c 32 tok/main)" small)" 401 "  with the first half of the token: 401"
is "$(req PUT /a.bin "$main"x small)" 401 "  with the token and a byte more: 401"
is "$(req PUT /a.bin "Token ${main#Bearer }" small)" 401 "  with the token in another scheme: 401"
is "$(listing)" "" "  nothing written (no file, no temporary one)"
is "$(req PUT /a.bin "$guest" small)" 403 "the guest's token outside its names: 403"
is "$(req PUT /pressmark/job.tar "$guest" small)" 403 "  beside them: 403"
is "$(listing)" "" "  nothing written"
is "$(NOEXPECT=1 req PUT /a.bin "" small)" 401 "  with no token and the body sent at once: 401"
# (a refusal the client can read though the store never read the body
# it sent, which is more than the store's buffer takes in)
is "$(NOEXPECT=1 req PUT /a.bin "" big)" 401 "  the same with 99,000 bytes sent at once: 401"
is "$(listing)" "" "  nothing written (no file, no temporary one)"
is "$(req PUT /a.bin "$main" small)" 201 "the store's token: 201"
is "$(req GET /a.bin)" 200 "  GET needs no token"
ok "  the same bytes" cmp -s small got
is "$(req PUT /pressmark/results-x-kernel0-ab.tar "$guest" small)" 201 "the guest's token, a results name: 201"
is "$(stat -c '%u %a' store/a.bin)" "$nobody 644" "  the files are the store user's"

# Names are written once, and only under the root.
is "$(req PUT /a.bin "$main" big)" 409 "a name again: 409"
ok "  its bytes unchanged" cmp -s small store/a.bin
is "$(req PUT /pressmark/results-x-kernel0-ab.tar "$guest" big)" 409 "  a results name again, with the guest's token: 409"
ln -s "$TMP/decoy" store/evil
ln -s "$TMP/decoy-dir" store/evil-dir
is "$(req PUT /evil "$main" small)" 409 "a planted link's name: 409"
is "$(req PUT /evil-dir/x "$main" small)" 409 "  a name under a planted link to a directory: 409"
is "$(cat decoy):$(ls -A decoy-dir)" "decoy:" "  the decoys behind them unchanged"
rm store/evil store/evil-dir
before=$(listing)
for p in /../escaped /pressmark/../../escaped /%2e%2e/escaped /.hidden /a/b/escaped /a.bin/ "/escaped?x=1"; do
    is "$(req PUT "$p" "$main" small)" 400 "a path out or not a name ($p): 400"
done
is "$(listing)" "$before" "  nothing written in the store"
is "$(find "$TMP" -name escaped)" "" "  nor anywhere else"

# How much: 413 for a body past --max-bytes, 507 past --max-total-bytes
# (each file its size and 4 KiB, a directory 4 KiB; 14288 used so far).
is "$(req PUT /over "$main" over)" 413 "a body over --max-bytes: 413"
is "$(req PUT /over "$main" over 30000)" 413 "  the same chunked (refused mid-body): 413"
is "$(req PUT /big1 "$main" big)" 201 "a first large body (117384 bytes used): 201"
is "$(req PUT /big2 "$main" big)" 201 "  a second (220480): 201"
is "$(req PUT /big3 "$main" big)" 507 "  a third, past the 300000 cap: 507"
is "$(req PUT /chunky "$main" chunky 30000)" 507 "  a chunked body that passes the cap at its third chunk: 507"
is "$(listing)" "./a.bin ./big1 ./big2 ./pressmark ./pressmark/results-x-kernel0-ab.tar " \
    "  neither left a file, whole or partial"
is "$(NOEXPECT=1 req PUT /small2 "$main" small)" 201 \
    "what the refused ones reserved is free again: a small body fits (sent at once)"
ok "  the same bytes" cmp -s small store/small2

# A store started again counts what is there and removes what a killed
# one left half-written.
stop_bg "$STORE_PID"
head -c 50000 /dev/urandom > store/.tmp-1-1
chown nobody: store/.tmp-1-1
setup "the store starts again" start_store
ok "  a killed store's temporary file is gone" test ! -e store/.tmp-1-1
is "$(req PUT /big3 "$main" big)" 507 "  what it holds counts against the cap: 507"
unlike "$(cat store.log)" "$(cat tok/main)|$(cat tok/guest)" "the store's log never shows a token"
stop_bg "$STORE_PID"

# put-conf.py: env.yaml in a directory of root's below a directory of
# another's (nobody stands for lavaserver).
mkdir disp && chown nobody: disp && chmod 755 disp
printf 'purge: true\n' > env.yaml
conf() { "$PY" "$PUTCONF" "$@" > out 2> err; }
conf "$TMP/disp" pressmark-lab env.yaml < env.yaml
is "$?:$(cat disp/pressmark-lab/env.yaml)" "0:purge: true" "put-conf.py writes NAME/env.yaml"
is "$(stat -c '%u %a' disp/pressmark-lab):$(stat -c '%u %a' disp/pressmark-lab/env.yaml)" "0 755:0 644" \
    "  in a directory of root's that only root writes"
rm disp/pressmark-lab/env.yaml
ln -s "$TMP/decoy" disp/pressmark-lab/env.yaml
conf "$TMP/disp" pressmark-lab env.yaml < env.yaml
is "$?:$(cat decoy)" "0:decoy" "a link planted at env.yaml: the decoy it points to unchanged"
ok "  env.yaml is a file of its own now" test -f disp/pressmark-lab/env.yaml -a ! -L disp/pressmark-lab/env.yaml
rm -r disp/pressmark-lab
ln -s "$TMP/decoy-dir" disp/pressmark-lab
conf "$TMP/disp" pressmark-lab env.yaml < env.yaml
is "$?:$(wc -l < err)" "2:1" "a link planted at the directory: exit 2, one line"
like "$(cat err)" "disp/pressmark-lab: a link or not a directory: not written" "  naming it"
is "$(ls -A decoy-dir)" "" "  nothing written in the decoy directory it points to"
rm disp/pressmark-lab
mkdir disp/pressmark-lab && chown nobody: disp/pressmark-lab
conf "$TMP/disp" pressmark-lab env.yaml < env.yaml
is "$?:$(wc -l < err)" "2:1" "a directory of another user's in its place: exit 2, one line"
like "$(cat err)" "disp/pressmark-lab: uid $nobody, mode 755: not written" "  naming its owner"
is "$(ls -A disp/pressmark-lab)" "" "  nothing written in it"
conf --remove "$TMP/disp" pressmark-lab env.yaml
is "$?" 2 "  --remove leaves it alone (exit 2)"
ok "  it is still there" test -d disp/pressmark-lab
chown root: disp/pressmark-lab && chmod 777 disp/pressmark-lab
conf "$TMP/disp" pressmark-lab env.yaml < env.yaml
like "$?:$(cat err)" "^2:.*uid 0, mode 777: not written" "root's but writable by all: not written"
chmod 755 disp/pressmark-lab
conf "$TMP/disp" pressmark-lab env.yaml < env.yaml
conf --remove "$TMP/disp" pressmark-lab env.yaml
is "$?:$(ls -A disp)" "0:" "--remove takes env.yaml and its directory"
ln -s disp disp-link
conf "$TMP/disp-link" pressmark-lab env.yaml < env.yaml
is "$?:$(ls -A disp)" "2:" "a parent that is a link: refused, nothing made"
done_testing
