/* Strings from a database through every output writer: gnuplot, file
 * name slugs, CSV, HTML, markdown, the terminal and JSON. The input is up
 * to eight strings cut at NUL bytes. Each writer's output is read back by
 * the rules of its language and must give the string again (less what the
 * writer documents it leaves out), and must hold nothing that language
 * would act on. The test suite also feeds the corpus to the real parsers
 * (python's csv, json and html.parser, gnuplot itself): fuzz/writers_emit.c. */
#include "fuzz/fuzz.h"
#include <jansson.h>
#include <string.h>
#include "lib/json.h"
#include "lib/quote.h"
#include "lib/utf8.h"

/* Runs writer(f, s) into memory; the caller frees the result. */
static char *capture(void (*writer)(FILE *, const char *), const char *s, size_t *len)
{
    char *out = NULL;
    FILE *f = open_memstream(&out, len);
    if (!f)
        return NULL;
    writer(f, s);
    if (fclose(f) != 0) {
        free(out);
        return NULL;
    }
    return out;
}

/* s less control characters (< 0x20, 0x7f); keep_lf also keeps \n and \t. */
static char *printable(const char *s, bool keep_lf)
{
    char *o = malloc(strlen(s) + 1), *w = o;
    if (!o)
        return NULL;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if ((*p >= 0x20 && *p != 0x7f) || (keep_lf && (*p == '\n' || *p == '\t')))
            *w++ = (char)*p;
    *w = '\0';
    return o;
}

static void check_gnuplot(const char *s)
{
    size_t len;
    char *out = capture(quote_gnuplot, s, &len);
    char *want = printable(s, false);
    char *back = malloc(len + 1), *w = back;
    if (!out || !want || !back)
        goto done;
    /* Pieces joined by '.': 'text without quotes' or "'". */
    for (size_t i = 0; i < len;) {
        if (i > 0) {
            FUZZ_ASSERT(out[i] == '.', "pieces not joined by '.': %s", out);
            i++;
        }
        if (strncmp(out + i, "\"'\"", 3) == 0) {
            *w++ = '\'';
            i += 3;
            continue;
        }
        FUZZ_ASSERT(out[i] == '\'', "a piece is neither '...' nor \"'\": %s", out + i);
        const char *close = memchr(out + i + 1, '\'', len - i - 1);
        FUZZ_ASSERT(close != NULL, "an unclosed single-quoted piece: %s", out + i);
        for (const char *c = out + i + 1; c < close; c++) {
            FUZZ_ASSERT((unsigned char)*c >= 0x20 && *c != 0x7f, "control character %#x in a gnuplot string",
                        (unsigned char)*c);
            *w++ = *c;
        }
        FUZZ_ASSERT(close > out + i + 1 || len == 2, "an empty piece in %s", out);
        i = (size_t)(close - out) + 1;
    }
    *w = '\0';
    FUZZ_ASSERT(strcmp(back, want) == 0, "gnuplot string reads back as '%s'", back);
done:
    free(out);
    free(want);
    free(back);
}

static void check_slug(const char *s)
{
    char slug[64];
    quote_slug(s, slug, sizeof slug);
    size_t n = strlen(slug);
    FUZZ_ASSERT(n > 0 && n < sizeof slug && slug[0] != '.', "slug '%s'", slug);
    FUZZ_ASSERT(strspn(slug, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n, "slug '%s'", slug);
}

static void check_csv(const char *s)
{
    size_t len;
    char *out = capture(quote_csv, s, &len);
    if (!out)
        return;
    bool formula = s[0] && strchr("=+-@\t\r", s[0]);
    if (out[0] != '"') {
        FUZZ_ASSERT(!strpbrk(out, ",\"\r\n") && !formula, "bare CSV field '%s'", out);
        FUZZ_ASSERT(strcmp(out, s) == 0, "bare CSV field changed");
    } else {
        FUZZ_ASSERT(len >= 2 && out[len - 1] == '"', "CSV field not closed: %s", out);
        char *back = malloc(len), *w = back;
        if (!back) {
            free(out);
            return;
        }
        for (size_t i = 1; i + 1 < len; i++) {
            if (out[i] == '"') {
                FUZZ_ASSERT(i + 2 < len && out[i + 1] == '"', "lone quote inside a CSV field: %s", out);
                i++;
            }
            *w++ = out[i];
        }
        *w = '\0';
        const char *cmp = back;
        if (formula) {
            FUZZ_ASSERT(back[0] == '\'', "formula '%s' not neutralised", s);
            cmp++;
        }
        FUZZ_ASSERT(strcmp(cmp, s) == 0, "CSV field reads back as '%s'", back);
        free(back);
    }
    free(out);
}

static void check_html(const char *s)
{
    size_t len;
    char *out = capture(quote_html, s, &len);
    char *want = printable(s, true);
    if (!out || !want)
        goto done;
    FUZZ_ASSERT(!strpbrk(out, "<>\"'"), "markup character in HTML text: %s", out);
    static const struct { const char *ent; char c; } ents[] = {
        { "&lt;", '<' }, { "&gt;", '>' }, { "&amp;", '&' }, { "&quot;", '"' }, { "&#39;", '\'' },
    };
    char *back = malloc(len + 1), *w = back;
    if (!back)
        goto done;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)out[i];
        FUZZ_ASSERT(c >= 0x20 || c == '\n' || c == '\t', "control character %#x in HTML", c);
        if (c != '&') {
            *w++ = (char)c;
            continue;
        }
        size_t k = 0;
        while (k < sizeof ents / sizeof ents[0] && strncmp(out + i, ents[k].ent, strlen(ents[k].ent)) != 0)
            k++;
        FUZZ_ASSERT(k < sizeof ents / sizeof ents[0], "bare & in HTML: %s", out + i);
        *w++ = ents[k].c;
        i += strlen(ents[k].ent) - 1;
    }
    *w = '\0';
    FUZZ_ASSERT(utf8_valid(out) && !strstr(out, "\xef\xbf\xbe") && !strstr(out, "\xef\xbf\xbf"),
                "HTML that an XML parser refuses: %s", out);
    /* Valid UTF-8 comes back as it was; anything else as U+FFFD. */
    if (utf8_valid(s) && !strstr(s, "\xef\xbf\xbe") && !strstr(s, "\xef\xbf\xbf"))
        FUZZ_ASSERT(strcmp(back, want) == 0, "HTML reads back as '%s'", back);
    free(back);
done:
    free(out);
    free(want);
}

static void check_markdown(const char *s)
{
    size_t len;
    char *out = capture(quote_markdown, s, &len);
    if (!out)
        return;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)out[i];
        FUZZ_ASSERT(c >= 0x20 && c != 0x7f, "control character %#x in markdown", c);
        if (c == '\\') {
            FUZZ_ASSERT(i + 1 < len && strchr("|*_`[]<>#\\", out[i + 1]), "stray backslash in markdown: %s", out);
            i++;
        } else {
            FUZZ_ASSERT(!strchr("|*_`[]<>#", c), "unescaped '%c' in markdown: %s", c, out);
        }
    }
    free(out);
}

static void check_terminal(const char *s)
{
    char buf[256];
    quote_terminal(s, buf, sizeof buf);
    for (const unsigned char *p = (const unsigned char *)buf; *p; p++)
        FUZZ_ASSERT(*p >= 0x20 && *p != 0x7f, "control character %#x reaches the terminal", *p);
    char *mem = NULL;
    size_t len;
    FILE *m = open_memstream(&mem, &len);
    if (!m)
        return;
    FILE *t = quote_terminal_stream(m);
    if (t) {
        fputs(s, t);
        fclose(t);
    }
    fclose(m);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)mem[i];
        FUZZ_ASSERT((c >= 0x20 && c != 0x7f) || c == '\n' || c == '\t', "control character %#x through the terminal stream", c);
    }
    free(mem);
}

/* Is s valid UTF-8? jansson's json_string refuses anything else. */
static bool valid_utf8(const char *s)
{
    json_t *probe = json_string(s);
    json_decref(probe);
    return probe != NULL;
}

static void check_json(char **strs, size_t n)
{
    char *out = NULL;
    size_t len;
    FILE *f = open_memstream(&out, &len);
    if (!f)
        return;
    struct jw j;
    jw_init(&j, f, false);
    jw_object_begin(&j, NULL);
    jw_array_begin(&j, "strings");
    for (size_t i = 0; i < n; i++)
        jw_string(&j, NULL, strs[i]);
    jw_array_end(&j);
    for (size_t i = 0; i < n; i++)
        jw_string(&j, strs[i], strs[i]);
    jw_object_end(&j);
    int rc = jw_end(&j);
    fclose(f);
    FUZZ_ASSERT(rc == 0, "jw_end failed");
    json_error_t err;
    json_t *doc = json_loads(out, 0, &err);
    FUZZ_ASSERT(doc != NULL, "JSON does not parse: %s (%s)", err.text, out);
    json_t *arr = json_object_get(doc, "strings");
    FUZZ_ASSERT(json_is_array(arr) && json_array_size(arr) == n, "array of %zu strings", n);
    for (size_t i = 0; i < n; i++) {
        const char *got = json_string_value(json_array_get(arr, i));
        FUZZ_ASSERT(got != NULL, "string %zu is not a string", i);
        if (valid_utf8(strs[i]))
            FUZZ_ASSERT(strcmp(got, strs[i]) == 0, "string %zu reads back as '%s'", i, got);
    }
    json_decref(doc);
    free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *strs[8], *block;
    size_t n = fuzz_split(data, size, strs, 8, &block);
    for (size_t i = 0; i < n; i++) {
        check_gnuplot(strs[i]);
        check_slug(strs[i]);
        check_csv(strs[i]);
        check_html(strs[i]);
        check_markdown(strs[i]);
        check_terminal(strs[i]);
    }
    check_json(strs, n);
    free(block);
    return 0;
}
