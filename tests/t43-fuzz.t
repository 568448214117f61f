#!/bin/bash
# The committed fuzz corpora (fuzz/corpus/NAME, grown by make fuzz) replay
# through every harness in this build, so each input that once crashed a
# parser, or that found new code, is checked on every run. And the output
# writers' corpus goes through the real parsers of each language: python's
# csv, json and html.parser, and gnuplot itself printing every string.
. "$(dirname "$0")/lib.sh"
# The harnesses of the build under test: under make check, sanitised ones.
# (Only the binary at the top, a copy of build/'s, takes them from there.)
FZ=$(dirname "$PM")/fuzz
[ "$PM" != "$ROOT/pressmark" ] || FZ=$ROOT/build/fuzz
ok "the replay harnesses of the build under test are there ($FZ)" test -x "$FZ/writers-emit"
CORPUS=$ROOT/fuzz/corpus

for h in "$ROOT"/fuzz/fuzz_*.c; do
    name=$(basename "$h" .c); name=${name#fuzz_}
    n=$(find "$CORPUS/$name" -type f | wc -l)
    ge "$n" 3 "$name: a committed corpus"
    # --help from the options harness goes to stdout too: the count is last.
    TMPDIR="$TMP" timeout 300 "$FZ/$name.replay" "$CORPUS/$name" >"$TMP/$name.out" 2>"$TMP/$name.err"
    rc=$?
    out=$(tail -1 "$TMP/$name.out")
    is "$rc" 0 "$name: every corpus input passes its properties"
    [ "$rc" -eq 0 ] || sed 's/^/#   /' "$TMP/$name.err" | grep -v '^#   pressmark' | tail -5
    is "$out" "replayed $n inputs" "$name: all $n inputs ran"
done

# The writers against the real parsers.
mkdir -p "$TMP/emit"
count=$("$FZ/writers-emit" "$TMP/emit" "$CORPUS"/writers/* | cut -d' ' -f1)
ge "$count" 100 "writers: the corpus has at least 100 strings"
(cd "$TMP/emit" && gnuplot out.gp) 2>"$TMP/gnuplot.err"
is "$?" 0 "gnuplot runs the script of every quoted string"
is "$(find "$TMP" -name 'pwned*' | wc -l)" 0 "and nothing in them ran"
python3 - "$TMP/emit" > "$TMP/py.out" 2>&1 <<'PY'
import csv, html.parser, json, sys
d = sys.argv[1]
want = [bytes.fromhex(l.strip()) for l in open(d + '/strings.hex')]
def text(b):
    return b.decode('utf-8', 'surrogateescape')
def ctrl_free(b, keep=b''):
    return bytes(c for c in b if (c >= 0x20 and c != 0x7f) or c in keep)
def xml_text(b):
    # What an XML parser must be given: each valid UTF-8 sequence as it
    # is (Python's strict codec: no overlong, no surrogate), U+FFFE and
    # U+FFFF (no XML characters) and each byte that begins no sequence as
    # U+FFFD, one a byte.
    out, i = [], 0
    while i < len(b):
        c = b[i]
        n = 1 if c < 0x80 else 2 if 0xc2 <= c <= 0xdf else 3 if 0xe0 <= c <= 0xef else 4 if 0xf0 <= c <= 0xf4 else 0
        try:
            ch = b[i:i + n].decode('utf-8') if n and i + n <= len(b) else None
        except UnicodeDecodeError:
            ch = None
        if ch is None or len(ch) != 1:
            out.append('\ufffd'); i += 1
        else:
            out.append('\ufffd' if ch in '\ufffe\uffff' else ch); i += n
    return ''.join(out)
bad = []
# CSV: python's reader gives each string back, a formula with its apostrophe.
with open(d + '/out.csv', newline='', encoding='utf-8', errors='surrogateescape') as f:
    rows = list(csv.reader(f))
if len(rows) != len(want): bad.append('csv: %d rows for %d strings' % (len(rows), len(want)))
for w, r in zip(want, rows):
    exp = text(w)
    if w[:1] and w[:1] in b'=+-@\t\r': exp = "'" + exp
    if r != [exp, 'end']: bad.append('csv: %r read as %r' % (w, r))
# JSON: strict UTF-8, parses, valid UTF-8 strings come back exactly.
doc = json.load(open(d + '/out.json', encoding='utf-8'))
got = doc['strings']
if len(got) != len(want): bad.append('json: %d strings for %d' % (len(got), len(want)))
for w, g in zip(want, got):
    try:
        exp = w.decode('utf-8')
    except UnicodeDecodeError:
        continue
    if g != exp: bad.append('json: %r read as %r' % (w, g))
# HTML: each string back from the text of its cell and from its attribute.
class P(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True); self.cells = []; self.titles = []; self.cur = None
    def handle_starttag(self, tag, attrs):
        if tag == 'td': self.cur = []; self.titles.append(dict(attrs).get('title'))
        elif self.cur is not None: bad.append('html: a <%s> tag inside a cell' % tag)
    def handle_endtag(self, tag):
        if tag == 'td': self.cells.append(''.join(self.cur)); self.cur = None
    def handle_data(self, data):
        if self.cur is not None: self.cur.append(data)
# (read strictly: every byte of the page is UTF-8 an XML parser takes)
p = P(); p.feed(open(d + '/out.html', encoding='utf-8').read()); p.close()
if len(p.cells) != len(want): bad.append('html: %d cells for %d strings' % (len(p.cells), len(want)))
for w, c, t in zip(want, p.cells, p.titles):
    # (a control byte inside a sequence breaks it: the bytes are judged as
    # given, the controls left out after)
    exp = ''.join(ch for ch in xml_text(w) if (ch >= ' ' and ch != '\x7f') or ch in '\n\t')
    if c != exp or t != exp: bad.append('html: %r read as %r / %r' % (w, c, t))
# gnuplot: printed back byte for byte, less control characters.
printed = open(d + '/printed.txt', 'rb').read().split(b'\n')[:-1]
if len(printed) != len(want): bad.append('gnuplot: %d lines for %d strings' % (len(printed), len(want)))
for w, g in zip(want, printed):
    if g != ctrl_free(w): bad.append('gnuplot: %r printed as %r' % (w, g))
print('\n'.join(bad[:10]) if bad else 'ok %d strings' % len(want))
PY
is "$(tail -1 "$TMP/py.out")" "ok $count strings" "csv, json, html.parser and gnuplot read every string back"
[ "$(tail -1 "$TMP/py.out")" = "ok $count strings" ] || sed 's/^/#   /' "$TMP/py.out" | head -10

# systemd: the unit of every string (an Environment= assignment and an
# ExecStart= argument each) passes systemd-analyze verify, and read by
# systemd's rules (systemd.syntax(7): a double-quoted word with C escapes,
# then specifiers, %% for %; in ExecStart= $$ for $, systemd.service(5);
# in Environment= $ is plain, systemd.exec(5)) gives each string back. No
# systemd manager runs here to ask (PID 1 is not systemd), so the reading
# is the test's own, by those rules. Strings a unit cannot carry (not
# UTF-8, control characters) pressmark refuses before writing a unit.
if command -v systemd-analyze >/dev/null; then
    systemd-analyze verify --man=no "$TMP/emit/out.service" >"$TMP/verify" 2>&1
    is "$?:$(cat "$TMP/verify")" "0:" "systemd-analyze verify takes the unit of every string"
else
    skip "systemd-analyze is missing"
fi
python3 - "$TMP/emit" > "$TMP/sd.out" 2>&1 <<'PY'
import re, sys
d = sys.argv[1]
want = [bytes.fromhex(l.strip()) for l in open(d + '/strings.hex')]
def carried(b):
    try:
        s = b.decode('utf-8')
    except UnicodeDecodeError:
        return None
    return None if any(ord(c) < 0x20 or ord(c) == 0x7f for c in s) else s
def word(v, dollar):
    # one double-quoted word, its escapes and specifiers undone
    if len(v) < 2 or v[0] != '"' or v[-1] != '"':
        raise ValueError('not one quoted word: %r' % v)
    out, i, body = [], 0, v[1:-1]
    while i < len(body):
        c = body[i]
        if c == '"':
            raise ValueError('a bare quote in %r' % v)
        if c == '\\':
            n = body[i + 1]
            if n in '\\"':
                out.append(n); i += 2
            elif n == 'x':
                out.append(chr(int(body[i + 2:i + 4], 16))); i += 4
            else:
                raise ValueError('escape \\%s in %r' % (n, v))
            continue
        if c == '%':
            if body[i + 1:i + 2] != '%':
                raise ValueError('a specifier in %r' % v)
            out.append('%'); i += 2; continue
        if c == '$' and dollar:
            if body[i + 1:i + 2] != '$':
                raise ValueError('a variable in %r' % v)
            out.append('$'); i += 2; continue
        out.append(c); i += 1
    return ''.join(out)
env, argv = [], []
for line in open(d + '/out.service', encoding='utf-8', errors='surrogateescape').read().split('\n'):
    if line.startswith('Environment='):
        env.append(line[len('Environment='):])
    elif line.startswith('ExecStart=/bin/true '):
        argv.append(line[len('ExecStart=/bin/true '):])
bad, n = [], 0
for k, w in enumerate(want):
    s = carried(w)
    if s is None:
        continue
    n += 1
    try:
        e, a = word(env[k], False), word(argv[k], True)
    except ValueError as x:
        bad.append(str(x)); continue
    if e != 'S%d=%s' % (k, s): bad.append('Environment: %r read as %r' % (s, e))
    if a != s: bad.append('ExecStart: %r read as %r' % (s, a))
print('\n'.join(bad[:10]) if bad else 'ok %d strings' % n)
PY
like "$(tail -1 "$TMP/sd.out")" "^ok [0-9]+ strings$" "systemd's Environment= and ExecStart= give every string a unit can carry back"
grep -q "^ok" "$TMP/sd.out" || sed 's/^/#   /' "$TMP/sd.out" | head -10
ge "$(sed -n 's/^ok \([0-9]*\) strings$/\1/p' "$TMP/sd.out")" 50 "  at least 50 of them"
is "$(python3 -c "import sys; print(sum(1 for l in open(sys.argv[1]) if all(0x20 <= c != 0x7f for c in bytes.fromhex(l.strip()))
      and b'\$' in bytes.fromhex(l.strip()) and b'%' in bytes.fromhex(l.strip())) > 0)" "$TMP/emit/strings.hex")" True \
   "  some of them hold a \$ and a %"
done_testing
