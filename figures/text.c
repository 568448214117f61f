#include "figures/text.h"
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

char *fig_text_copy(const char *what, const char *text, size_t len, struct pm_err *err)
{
    const char *nul = len && len <= FIGURES_MAX_TEXT ? memchr(text, '\0', len) : NULL;
    char *s = NULL;
    if (len > FIGURES_MAX_TEXT)
        pm_errf(err, "the %s is %zu bytes, more than the %u MiB read", what, len, FIGURES_MAX_TEXT >> 20);
    else if (nul)
        pm_errf(err, "the %s holds a NUL byte at offset %zu: it is not a tool's text", what, (size_t)(nul - text));
    else if (!(s = malloc(len + 1)))
        pm_errf(err, "out of memory for the %s (%zu bytes)", what, len);
    else {
        if (len)
            memcpy(s, text, len);
        s[len] = '\0';
    }
    return s;
}

void fig_lines_init(struct fig_lines *it, const char *text)
{
    it->p = text;
    it->no = 0;
    it->long_line = false;
    it->line[0] = '\0';
}

bool fig_lines_next(struct fig_lines *it)
{
    if (!it->p || !*it->p)
        return false;
    const char *nl = strchr(it->p, '\n');
    size_t n = nl ? (size_t)(nl - it->p) : strlen(it->p);
    it->no++;
    it->long_line = n >= sizeof it->line;
    if (it->long_line)
        n = 0;
    memcpy(it->line, it->p, n);
    if (n > 0 && it->line[n - 1] == '\r')
        n--;
    it->line[n] = '\0';
    it->p = nl ? nl + 1 : it->p + strlen(it->p);
    return true;
}

static size_t digits(const char *s)
{
    size_t n = 0;
    while (s[n] >= '0' && s[n] <= '9')
        n++;
    return n;
}

bool fig_number(const char *s, const char **end, double *v)
{
    size_t i = s[0] == '-' ? 1 : 0, d = digits(s + i);
    if (d == 0)
        return false;
    i += d;
    if (s[i] == '.') {
        /* "12." is not how any of these tools writes a number. */
        if ((d = digits(s + i + 1)) == 0)
            return false;
        i += 1 + d;
    }
    if (s[i] == 'e' || s[i] == 'E') {
        size_t j = i + 1 + (s[i + 1] == '+' || s[i + 1] == '-');
        if ((d = digits(s + j)) > 0)
            i = j + d;
    }
    char buf[65];
    if (i >= sizeof buf)
        return false;
    memcpy(buf, s, i);
    buf[i] = '\0';
    char *e;
    double x = strtod(buf, &e);
    if (*e || !isfinite(x))
        return false;
    *v = x;
    if (end)
        *end = s + i;
    return true;
}

bool fig_number_all(const char *s, double *v)
{
    const char *end;
    if (!fig_number(fig_skip_blanks(s), &end, v))
        return false;
    return *fig_skip_blanks(end) == '\0';
}

bool fig_word(const char *s, size_t n, char out[FIGURES_MAX_WORD + 1])
{
    size_t o = 0;
    bool gap = false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)tolower((unsigned char)s[i]);
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) {
            gap = true;
            continue;
        }
        /* A separator only between two kept characters, so a word cut at
         * its length never ends in '_'. */
        if (o + (gap && o > 0) + 1 > FIGURES_MAX_WORD)
            break;
        if (gap && o > 0)
            out[o++] = '_';
        out[o++] = (char)c;
        gap = false;
    }
    out[o] = '\0';
    return o > 0;
}

const char *fig_skip_blanks(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

const char *fig_after(const char *line, const char *prefix)
{
    size_t n = strlen(prefix);
    return strncmp(line, prefix, n) == 0 ? line + n : NULL;
}

json_t *fig_json_load(const char *text, bool arrays, const char *what, struct pm_err *err)
{
    const char *p = text;
    int skipped = 0;
    while (*p && !(*p == '{' || (arrays && *p == '['))) {
        const char *nl = strchr(p, '\n');
        p = nl ? nl + 1 : p + strlen(p);
        skipped++;
    }
    if (!*p) {
        char hint[160];
        fig_hint(text, hint, sizeof hint);
        pm_errf(err, "no %s in the output: no line starts with '{'%s (the output says: %s)", what,
                arrays ? " or '['" : "", hint);
        return NULL;
    }
    json_error_t je;
    json_t *doc = json_loadb(p, strlen(p), JSON_REJECT_DUPLICATES | JSON_DISABLE_EOF_CHECK, &je);
    if (!doc) {
        /* jansson quotes the token it stopped at: the document's own bytes. */
        for (char *c = je.text; *c; c++)
            if (*c < 0x20 || *c >= 0x7f)
                *c = '?';
        pm_errf(err, "the %s does not parse: %s (line %d of the output, column %d)", what, je.text,
                je.line + skipped, je.column);
    }
    return doc;
}

static bool reads_like_error(const char *line)
{
    static const char *const words[] = { "error", "fatal", "failed", "could not", "invalid", "unrecognized" };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strcasestr(line, words[i]))
            return true;
    return false;
}

/* A line as an error may quote it: printable ASCII from its first
 * non-blank, "..." where it was cut. */
static void quote_line(const char *line, char *buf, size_t len)
{
    size_t o = 0;
    line = fig_skip_blanks(line);
    for (; *line && o + 1 < len; line++)
        buf[o++] = (*line >= 0x20 && *line < 0x7f) ? *line : '?';
    buf[o] = '\0';
    if (*line && o >= 3)
        memcpy(buf + o - 3, "...", 3);
}

void fig_hint(const char *text, char *buf, size_t len)
{
    struct fig_lines it;
    bool quoted = false;
    snprintf(buf, len, "(no output)");
    fig_lines_init(&it, text);
    while (fig_lines_next(&it)) {
        if (*fig_skip_blanks(it.line) == '\0')
            continue;
        if (reads_like_error(it.line)) {
            quote_line(it.line, buf, len);
            return;
        }
        if (!quoted) {
            quote_line(it.line, buf, len);
            quoted = true;
        }
    }
}

int fig_missing(struct pm_err *err, const char *figure, const char *what, const char *text)
{
    char hint[160];
    fig_hint(text, hint, sizeof hint);
    return pm_errf(err, "no %s: %s (the output says: %s)", figure, what, hint);
}
