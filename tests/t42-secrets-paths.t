#!/bin/bash
# Secrets stay pressmark's, and files root writes where a user points it are
# never written through a symlink.
. "$(dirname "$0")/lib.sh"
setup "a run to push and plot" "$PM" record --quiet --label base --runs 2 --interval 50ms -- sleep 0.1

# The measured workload does not inherit the push token.
PRESSMARK_PUSH_TOKEN=sekrit-workload-token "$PM" record --quiet --label env -- sh -c "env > '$TMP/env.txt'"
is "$?" 0 "a run with PRESSMARK_PUSH_TOKEN set"
ok "its workload saw the rest of the environment" grep -q "^PRESSMARK_DB=" "$TMP/env.txt"
ok "but not the token" sh -c "! grep -q sekrit-workload-token '$TMP/env.txt'"

# Token files are refused, as ssh refuses keys, when others may read them.
echo tok-123 > "$TMP/token"
chmod 644 "$TMP/token"
bad "a token file others can read" "--token-file: .*/token is readable or writable by others \(accepted: .*0600" \
    push http://127.0.0.1:9/write --token-file "$TMP/token"
ln -s "$TMP/token" "$TMP/token-link"
chmod 600 "$TMP/token"
bad "a token file that is a symlink" "--token-file: .*token-link: Too many levels of symbolic links" \
    push http://127.0.0.1:9/write --token-file "$TMP/token-link"
"$PM" push http://127.0.0.1:9/write --token-file "$TMP/token" >/dev/null 2>"$TMP/err"
is "$?" 1 "a 0600 token file is taken (the push itself then fails: nothing listens)"
like "$(cat "$TMP/err")" "connection refused" "as the error says"

# A token over plain http leaves the machine only when asked for.
PRESSMARK_PUSH_TOKEN=tok bad "a token over plain http to another machine" \
    "a token would go over plain http to http://pressmark-test.invalid/write \(accepted: an https:// URL, a loopback address, or --allow-plain-http-token\)" \
    push http://pressmark-test.invalid/write
PRESSMARK_PUSH_TOKEN=tok "$PM" push http://pressmark-test.invalid/write --allow-plain-http-token >/dev/null 2>"$TMP/err"
like "$(cat "$TMP/err")" "cannot resolve host pressmark-test.invalid" "with --allow-plain-http-token it is sent (here: the name does not resolve)"
PRESSMARK_PUSH_TOKEN=tok bad "run --push with a token over plain http" "--push: a token would go over plain http" \
    record --push http://pressmark-test.invalid/write -- true
# What only starts like a loopback host names another host: judged from the
# URL as libcurl (which sends it) reads it, not from its first characters.
for u in http://127.0.0.1.pressmark-test.invalid/write http://localhost:x@pressmark-test.invalid/write \
         'http://[::1]@pressmark-test.invalid/write' http://localhost.pressmark-test.invalid/write \
         'http://[::ffff:127.0.0.1]:9/write'; do
    PRESSMARK_PUSH_TOKEN=tok bad "a token to $u" "a token would go over plain http to ${u//[[\].]/.}" push "$u"
done
# Loopback hosts do get the token, straight: not through the proxy the
# environment names (which would carry it off the machine).
catcher() {  # catcher LOG: an HTTP server on both stacks that logs each request's Authorization
    exec python3 -c 'import http.server, socket, sys
class S(http.server.HTTPServer):
    address_family = socket.AF_INET6
    def server_bind(self):
        self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0); super().server_bind()
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        open(sys.argv[2], "a").write("%s %s\n" % (self.path, self.headers.get("Authorization")))
        self.send_response(204); self.end_headers()
    do_GET = do_POST
S(("::", int(sys.argv[1])), H).serve_forever()' "$@"
}
tport=$(free_port); pport=$(free_port)
catcher "$tport" "$TMP/target.log" > /dev/null 2>&1 & cleanup_add "stop_bg $!"
catcher "$pport" "$TMP/proxy.log" > /dev/null 2>&1 & cleanup_add "stop_bg $!"
wait_for curl -s -o /dev/null "http://127.0.0.1:$tport/up"
wait_for curl -s -o /dev/null "http://127.0.0.1:$pport/up"
for u in "http://127.0.0.1:$tport/w1" "http://127.8.9.10:$tport/w2" "http://[::1]:$tport/w3" "http://LOCALHOST:$tport/w4"; do
    PRESSMARK_PUSH_TOKEN=tok http_proxy="http://127.0.0.1:$pport" HTTP_PROXY="http://127.0.0.1:$pport" \
        ALL_PROXY="http://127.0.0.1:$pport" "$PM" push "$u" >/dev/null 2>"$TMP/err"
    is "$?" 0 "a token to the loopback address $u is sent"
done
is "$(grep -c '^/w[1-4] Bearer tok$' "$TMP/target.log")" 4 "  each with its token, to the loopback server itself"
is "$(grep -vc '^/up ' "$TMP/proxy.log" 2>/dev/null || true)" 0 "  none through the proxy the environment names"

# --out and --junit: a symlink planted where a file will be written is not followed.
echo precious > "$TMP/victim"
mkdir -p "$TMP/charts"
ln -s "$TMP/victim" "$TMP/charts/record-swap.dat"
"$PM" plot --out "$TMP/charts" >/dev/null 2>"$TMP/err"
is "$?" 2 "plot into a directory with a planted symlink: exit 2"
like "$(cat "$TMP/err")" "record-swap.dat: Too many levels of symbolic links" "naming the file"
is "$(cat "$TMP/victim")" precious "the symlink's target is untouched"
ln -s "$TMP/victim" "$TMP/junit.xml"
"$PM" compare --baseline base base --junit "$TMP/junit.xml" >/dev/null 2>"$TMP/err"
is "$?" 2 "--junit onto a symlink: exit 2"
is "$(cat "$TMP/victim")" precious "its target is untouched"
mkdir "$TMP/fifo-charts" && mkfifo "$TMP/fifo-charts/record-swap.dat"
timeout 60 "$PM" plot --out "$TMP/fifo-charts" >/dev/null 2>"$TMP/err"
is "$?" 2 "plot into a directory with a FIFO planted where a chart goes: exit 2, at once"
like "$(cat "$TMP/err")" "record-swap.dat: Invalid argument" "  naming the file"
mkfifo "$TMP/junit-fifo.xml"
timeout 60 "$PM" compare --baseline base base --junit "$TMP/junit-fifo.xml" >/dev/null 2>"$TMP/err"
is "$?" 2 "--junit onto a FIFO planted there: exit 2, at once (not held at open)"
like "$(cat "$TMP/err")" "junit-fifo.xml: Invalid argument" "  naming the file"

# A database pressmark makes is private: its new directories 0700, the
# file 0600, and its -wal and -shm (which SQLite makes with the file's
# mode) while a run writes; one that is there already keeps its mode.
PRIV="$TMP/priv/deeper/r.db"
# (under umask 022: the modes are pressmark's, not the umask's)
( umask 022; exec env PRESSMARK_DB="$PRIV" "$PM" record --quiet --label priv --interval 100ms -- \
    sh -c 'touch "$1"; until [ -e "$2" ]; do sleep 0.05; done' sh "$TMP/priv-started" "$TMP/priv-go" ) &
pid=$!
ok "a run into a new database has begun" wait_for test -e "$TMP/priv-started"
is "$(stat -c %a "$TMP/priv" "$TMP/priv/deeper" "$PRIV" "$PRIV-wal" "$PRIV-shm" | tr '\n' ' ')" "700 700 600 600 600 " \
   "  its directories, the database, -wal and -shm are private"
touch "$TMP/priv-go"
wait $pid
chmod 644 "$PRIV"
PRESSMARK_DB=$PRIV "$PM" record --quiet --label shared -- true
is "$(stat -c %a "$PRIV")" 644 "a database its owner opened up stays so"
done_testing
