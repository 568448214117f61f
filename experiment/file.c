#include "experiment/file.h"
#include "lib/alloc.h"
#include "lib/hash.h"
#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct reader {
    FILE *f;
    int line;                   /* of the line last read */
    int too_long;               /* the first line longer than libinih's buffer, 0: none */
    int max;                    /* the longest line that buffer holds */
    int indented;               /* the first indented line, 0: none */
    int nul;                    /* the line of a NUL byte, where reading stopped; 0: none */
};

/* libinih reads line by line through this; the count gives each key its
 * line (the packaged libinih passes no line numbers to handlers). */
static char *read_line(char *str, int num, void *stream)
{
    struct reader *r = stream;
    /* As fgets, but a NUL byte ends the file: read on, the line would end
     * where C's strings end and the rest of it vanish. */
    int n_read = 0, c = 0;
    while (!r->nul && n_read < num - 1 && c != '\n' && (c = getc(r->f)) != EOF) {
        if (c == '\0')
            r->nul = r->line + 1;
        else
            str[n_read++] = (char)c;
    }
    if (r->nul || n_read == 0)
        return NULL;
    str[n_read] = '\0';
    char *s = str;
    r->line++;
    /* libinih reads a longer line as several: refused, not misread. */
    size_t n = strlen(s);
    r->max = num - 2;
    if (n + 1 == (size_t)num && s[n - 1] != '\n' && !r->too_long)
        r->too_long = r->line;
    /* libinih takes an indented line as more of the previous value (and
     * keeps a " ; comment" in it): "  rooms = 2" under a key would vanish
     * into that key. Refused instead. */
    size_t lead = strspn(s, " \t");
    if (lead && s[lead] && !strchr(";#\r\n", s[lead]) && !r->indented)
        r->indented = r->line;
    return s;
}

struct parse {
    struct suite_file *sf;
    struct reader rd;
    struct pm_err *err;
    bool failed;
};

static char *trimmed(const char *s, size_t n)
{
    while (n && (*s == ' ' || *s == '\t')) {
        s++;
        n--;
    }
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    return strndup(s, n);
}

/* "a, b, c" into items; a double-quoted item may hold commas. -1 when an
 * item is empty or a quote is not closed. */
static int split_list(const char *v, char ***items, size_t *n)
{
    *items = NULL;
    *n = 0;
    size_t cap = 0;
    const char *p = v;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        char *item;
        if (*p == '"') {
            const char *close = strchr(p + 1, '"');
            if (!close)
                return -1;
            item = strndup(p + 1, (size_t)(close - p - 1));
            p = close + 1;
            while (*p == ' ' || *p == '\t')
                p++;
            if (*p && *p != ',') {
                free(item);
                return -1;
            }
        } else {
            size_t len = strcspn(p, ",");
            item = trimmed(p, len);
            p += len;
            if (item && !item[0]) {
                free(item);
                return -1;
            }
        }
        if (!item)
            return -1;
        if (ALLOC_GROW(*items, *n + 1, cap) < 0) {
            free(item);
            return -1;
        }
        (*items)[(*n)++] = item;
        if (*p != ',')
            return 0;
        p++;
    }
}

__attribute__((format(printf, 3, 4)))
static int fail(struct parse *ps, int line, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pm_errf(ps->err, "%s:%d: %s", ps->sf->path, line, msg);
    ps->failed = true;
    return 0;
}

static struct suite_section *section_named(struct suite_file *sf, const char *name)
{
    for (size_t i = 0; i < sf->nsections; i++)
        if (strcmp(sf->sections[i].name, name) == 0)
            return &sf->sections[i];
    return NULL;
}

static int on_key(void *user, const char *section, const char *name, const char *value)
{
    struct parse *ps = user;
    struct suite_file *sf = ps->sf;
    int line = ps->rd.line;
    if (ps->failed)
        return 0;
    if (!section[0])
        return fail(ps, line, "'%s' is outside a section (accepted: keys under [global] or a [part])", name);
    struct suite_section *sec = sf->nsections ? &sf->sections[sf->nsections - 1] : NULL;
    if (!sec || strcmp(sec->name, section) != 0) {
        if (section_named(sf, section))
            return fail(ps, line, "section [%s] appears twice (accepted: each section once)", section);
        if (ALLOC_GROW(sf->sections, sf->nsections + 1, sf->capsections) < 0)
            return fail(ps, line, "out of memory");
        sec = &sf->sections[sf->nsections++];
        memset(sec, 0, sizeof *sec);
        sec->name = strdup(section);
        sec->line = line;
    }
    /* Keys are option names: anything else (an empty name, a blank in it)
     * is a typo, and would not read back the same from the stored text. */
    if (!name[0] || strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != strlen(name))
        return fail(ps, line, "'%s' is not a key (accepted: a name of letters, digits, '-', '_' and '.', then = VALUE)",
                    name);
    /* Stored as "key = value", a line must still fit libinih's buffer. */
    if (strlen(name) + 3 + strlen(value) > (size_t)ps->rd.max)
        return fail(ps, line, "'%s' and its value take more than %d characters (accepted: shorter lines)", name,
                    ps->rd.max);
    /* "key =;x" keeps ";x" (a comment needs a blank before it): surely a
     * value commented out by accident, and one that would read back as
     * nothing from the stored "key = ;x". */
    if (value[0] == ';')
        return fail(ps, line, "'%s =%s': a value starting with ';' (accepted: a value; a comment starts with ' ;' "
                    "or a line of its own)", name, value);
    if (!value[0])
        return fail(ps, line, "'%s' has no value (accepted: %s = VALUE, or a comma list of values for an axis)", name,
                    name);
    if (ALLOC_GROW(sec->keys, sec->nkeys + 1, sec->capkeys) < 0)
        return fail(ps, line, "out of memory");
    struct suite_key *k = &sec->keys[sec->nkeys];
    memset(k, 0, sizeof *k);
    k->name = strdup(name);
    k->raw = strdup(value);
    k->line = line;
    if (!k->name || !k->raw || split_list(value, &k->values, &k->nvalues) < 0) {
        sec->nkeys++;
        return fail(ps, line, "'%s = %s' has an empty or unclosed item (accepted: VALUE, or VALUE, VALUE, ... for an axis; "
                    "\"...\" keeps a comma)", name, value);
    }
    sec->nkeys++;
    return 1;
}

static int make_canonical(struct suite_file *sf)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return -1;
    for (size_t i = 0; i < sf->nsections; i++) {
        fprintf(f, "[%s]\n", sf->sections[i].name);
        for (size_t k = 0; k < sf->sections[i].nkeys; k++)
            fprintf(f, "%s = %s\n", sf->sections[i].keys[k].name, sf->sections[i].keys[k].raw);
    }
    if (fclose(f) != 0) {
        free(buf);
        return -1;
    }
    sf->canonical = buf;
    snprintf(sf->digest, sizeof sf->digest, "%016llx", (unsigned long long)pm_fnv1a(PM_FNV1A_INIT, buf, len));
    return 0;
}

int suite_file_read(const char *path, const char *text, struct suite_file *sf, struct pm_err *err)
{
    memset(sf, 0, sizeof *sf);
    snprintf(sf->path, sizeof sf->path, "%s", path);
    FILE *f = text ? fmemopen((void *)text, strlen(text), "r") : fopen(path, "r");
    if (!f)
        return pm_errf(err, "%s: %s", path, strerror(errno));
    struct parse ps = { .sf = sf, .rd = { .f = f }, .err = err };
    int rc = ini_parse_stream(read_line, &ps.rd, on_key, &ps);
    fclose(f);
    /* The first of the lines that cannot be read as written. */
    if (ps.rd.nul && (!ps.rd.indented || ps.rd.nul < ps.rd.indented) &&
        (!ps.rd.too_long || ps.rd.nul < ps.rd.too_long)) {
        suite_file_free(sf);
        return pm_errf(err, "%s:%d: a NUL byte (accepted: text)", path, ps.rd.nul);
    }
    if (ps.rd.indented && (!ps.rd.too_long || ps.rd.indented < ps.rd.too_long)) {
        suite_file_free(sf);
        return pm_errf(err, "%s:%d: an indented line (accepted: [section] and key = value at the start of a line; "
                       "indented, it would be read as more of the previous value)", path, ps.rd.indented);
    }
    if (ps.rd.too_long) {
        suite_file_free(sf);
        return pm_errf(err, "%s:%d: a line longer than %d characters (accepted: shorter lines)", path, ps.rd.too_long,
                       ps.rd.max);
    }
    if (ps.failed) {
        suite_file_free(sf);
        return -1;
    }
    if (rc != 0) {
        suite_file_free(sf);
        if (rc < 0)
            return pm_errf(err, "%s: cannot be read", path);
        return pm_errf(err, "%s:%d: not a suite line (accepted: [section], key = value, or a comment starting with # or ;)",
                       path, rc);
    }
    if (sf->nsections == 0) {
        suite_file_free(sf);
        return pm_errf(err, "%s: an empty suite (accepted: a [global] section and one section per part, "
                       "each with workload = NAME)", path);
    }
    if (make_canonical(sf) < 0) {
        suite_file_free(sf);
        return pm_errf(err, "out of memory");
    }
    return 0;
}

void suite_file_free(struct suite_file *sf)
{
    for (size_t i = 0; i < sf->nsections; i++) {
        struct suite_section *s = &sf->sections[i];
        for (size_t k = 0; k < s->nkeys; k++) {
            for (size_t v = 0; v < s->keys[k].nvalues; v++)
                free(s->keys[k].values[v]);
            free(s->keys[k].values);
            free(s->keys[k].name);
            free(s->keys[k].raw);
        }
        free(s->keys);
        free(s->name);
    }
    free(sf->sections);
    free(sf->canonical);
    sf->sections = NULL;
    sf->nsections = sf->capsections = 0;
    sf->canonical = NULL;
}
