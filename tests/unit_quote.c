/* The terminal's quoting: control characters, C0 and C1, shown as \xNN
 * however the text reaches the stream, and table cells kept on their row. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/quote.h"
#include "reports/table.h"
#include "tests/tap.h"

/* What the terminal stream makes of text written in pieces cut at cut. */
static char *through_stream(const char *text, size_t cut, size_t bufsize)
{
    char *mem = NULL;
    size_t len;
    FILE *m = open_memstream(&mem, &len);
    FILE *t = m ? quote_terminal_stream(m) : NULL;
    if (!t)
        return NULL;
    setvbuf(t, NULL, _IOFBF, bufsize);
    fwrite(text, 1, cut, t);
    fflush(t);
    fwrite(text + cut, 1, strlen(text) - cut, t);
    fclose(t);
    fclose(m);
    return mem;
}

/* quote_html's output for s, as a string. */
static char *as_html(const char *s)
{
    char *mem = NULL;
    size_t len;
    FILE *m = open_memstream(&mem, &len);
    if (!m)
        return NULL;
    quote_html(m, s);
    fclose(m);
    return mem;
}

/* XML (a JUnit file) is read by parsers that stop at the first byte that
 * is not UTF-8: every such byte becomes U+FFFD, valid text stays. */
static void html_utf8(void)
{
    static const struct { const char *in, *want, *what; } c[] = {
        { "caf\xc3\xa9 <b>", "caf\xc3\xa9 &lt;b&gt;", "valid UTF-8 is kept, markup escaped" },
        { "a\xff" "b", "a\xef\xbf\xbd" "b", "a byte that begins no sequence: U+FFFD" },
        { "x\xc3", "x\xef\xbf\xbd", "a lead byte at the end: U+FFFD" },
        { "\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd", "an overlong '/': one U+FFFD a byte" },
        { "\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", "a surrogate: U+FFFD a byte" },
        { "\xef\xbf\xbf|\xef\xbf\xbe", "\xef\xbf\xbd|\xef\xbf\xbd", "U+FFFF and U+FFFE (no XML characters): U+FFFD" },
        { "\xf0\x9f\x98\x80\x01", "\xf0\x9f\x98\x80", "a four-byte character kept, a control left out" },
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        char *got = as_html(c[i].in);
        ok(got && strcmp(got, c[i].want) == 0, "quote_html: %s", c[i].what);
        free(got);
    }
    /* Sequences cut short by the string's end, each in a buffer of exactly
     * its size: a read past the NUL is ASan's to see (make check). */
    static const char *const cut[] = { "x\xe2\x82", "x\xf0\x9f\x98", "x\xf0\x9f", "x\xe2" };
    for (size_t i = 0; i < sizeof cut / sizeof cut[0]; i++) {
        size_t n = strlen(cut[i]) + 1;
        char *in = malloc(n);
        if (!in)
            return;
        memcpy(in, cut[i], n);
        char *got = as_html(in), want[16] = "x";
        for (size_t k = 1; k + 1 < n; k++)
            strcat(want, "\xef\xbf\xbd");
        ok(got && strcmp(got, want) == 0, "quote_html: a sequence cut short by the end (%zu bytes): U+FFFD a byte", n - 2);
        free(got);
        free(in);
    }
}

int main(void)
{
    html_utf8();
    char *s = through_stream("a\xc2\x9b" "2Jb", 2, 4096);
    ok(s && strcmp(s, "a\\xc2\\x9b2Jb") == 0, "a C1 CSI split between two writes is escaped (%s)", s ? s : "null");
    free(s);
    s = through_stream("a\xc2\x9b" "2Jb", 1, 4096);
    ok(s && strcmp(s, "a\\xc2\\x9b2Jb") == 0, "and in one write");
    free(s);
    s = through_stream("caf\xc3\xa9 \xc2\xa9", 4, 4096);
    ok(s && strcmp(s, "caf\xc3\xa9 \xc2\xa9") == 0, "UTF-8 that is not C1 passes, split or not");
    free(s);
    s = through_stream("x\xc2", 2, 4096);
    ok(s && strcmp(s, "x\xc2") == 0, "a lone lead byte at the end is written at close");
    free(s);
    s = through_stream("l1\nl2\t\x1b[31m", 3, 4096);
    ok(s && strcmp(s, "l1\nl2\t\\x1b[31m") == 0, "newline and tab pass the stream, ESC does not");
    free(s);

    struct table t;
    const char *const h[] = { "cell", "n" };
    table_init(&t, 2, h, NULL);
    const char *const row[] = { "usemem\nverdict: ok\r\tX", "3" };
    ok(table_add_row(&t, row) == 0, "a row with control characters is taken");
    char *out = NULL;
    size_t len;
    FILE *m = open_memstream(&out, &len);
    table_print(&t, m);
    fclose(m);
    int lines = 0;
    for (char *p = out; p && *p; p++)
        lines += *p == '\n';
    ok(lines == 3, "the table has its header, rule and one row (%d lines)", lines);
    ok(out && strstr(out, "usemem\\x0averdict: ok\\x0d\\x09X") != NULL, "the cell's line break, CR and tab written as \\xNN");
    free(out);
    table_free(&t);
    return done_testing();
}
