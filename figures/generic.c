/* The figures a user names for tools figures/ has no parser for:
 * --figure NAME=REGEX and --figure NAME=json:PATH. */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "figures/text.h"

#define PATH_MAX_STEPS 32

struct json_step {
    bool index;
    size_t i;
    char key[256];
};

/* A key of a path: up to '.', '[' or the end, or "quoted" up to the next
 * quote (for keys like fio's "99.000000"). */
static int path_key(const char **p, struct json_step *st, struct pm_err *err)
{
    const char *s = *p;
    size_t n;
    if (*s == '"') {
        const char *q = strchr(s + 1, '"');
        if (!q)
            return pm_errf(err, "a quote in the path is never closed");
        n = (size_t)(q - s - 1);
        s++;
        *p = q + 1;
    } else {
        n = strcspn(s, ".[]\"");
        *p = s + n;
    }
    if (n >= sizeof st->key)
        return pm_errf(err, "a key of the path is longer than %zu characters", sizeof st->key - 1);
    memcpy(st->key, s, n);
    st->key[n] = '\0';
    st->index = false;
    return 0;
}

/* "[N]" at *p. */
static int path_index(const char **p, struct json_step *st, struct pm_err *err)
{
    const char *s = *p + 1;
    size_t d = strspn(s, "0123456789");
    if (d == 0 || d > 9 || s[d] != ']')
        return pm_errf(err, "an index of the path is not [N] (N at most 9 digits)");
    st->index = true;
    st->i = (size_t)strtoul(s, NULL, 10);
    *p = s + d + 1;
    return 0;
}

/* path as steps: keys joined by '.', each followed by any [N]; a path may
 * also start with [N] (a document that is an array). */
static int path_parse(const char *path, struct json_step *steps, size_t *n, struct pm_err *err)
{
    const char *p = path;
    *n = 0;
    if (!*p)
        return pm_errf(err, "the path is empty");
    for (;;) {
        if (*n == PATH_MAX_STEPS)
            return pm_errf(err, "the path has more than %d steps", PATH_MAX_STEPS);
        if (*p != '[') {
            if (path_key(&p, &steps[*n], err) < 0)
                return -1;
            if (!steps[(*n)++].key[0])
                return pm_errf(err, "the path has an empty key (at offset %zu)", (size_t)(p - path));
        }
        while (*p == '[' && *n < PATH_MAX_STEPS)
            if (path_index(&p, &steps[(*n)++], err) < 0)
                return -1;
        if (!*p)
            return 0;
        if (*p == '[')
            return pm_errf(err, "the path has more than %d steps", PATH_MAX_STEPS);
        if (*p != '.')
            return pm_errf(err, "the path has '%c' where a '.' or the end was wanted (offset %zu)", *p,
                           (size_t)(p - path));
        p++;
    }
}

static const char *json_kind(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    default: return "a number";
    }
}

/* Follow the steps from doc; the number there, or err naming the step
 * that could not be taken. */
static int path_walk(json_t *doc, const struct json_step *steps, size_t n, double *value, struct pm_err *err)
{
    json_t *v = doc;
    for (size_t k = 0; k < n; k++) {
        json_t *next = steps[k].index ? json_array_get(v, steps[k].i) : json_object_get(v, steps[k].key);
        if (next) {
            v = next;
            continue;
        }
        if (steps[k].index)
            return pm_errf(err, "step %zu of the path, [%zu], is not there (%s%s)", k + 1, steps[k].i, json_kind(v),
                           json_is_array(v) ? " shorter than that" : "");
        return pm_errf(err, "step %zu of the path, the key \"%.64s\", is not there (%s)", k + 1, steps[k].key,
                       json_kind(v));
    }
    if (!json_is_number(v))
        return pm_errf(err, "the path leads to %s, not a number", json_kind(v));
    *value = json_number_value(v);
    return 0;
}

int figure_json(const char *name, const char *path, const char *text, size_t len, double *value,
                struct pm_err *err)
{
    struct json_step steps[PATH_MAX_STEPS];
    size_t n;
    struct pm_err e = { "" };
    char *t = NULL;
    json_t *doc = NULL;
    int rc = -1;
    if (path_parse(path, steps, &n, &e) == 0 && (t = fig_text_copy("output", text, len, &e)) &&
        (doc = fig_json_load(t, true, "JSON document", &e)))
        rc = path_walk(doc, steps, n, value, &e);
    json_decref(doc);
    free(t);
    return rc < 0 ? pm_errf(err, "--figure %s: %s", name, e.msg) : 0;
}

/* The pattern compiled, with a group for the number; err says why not. */
static int regex_compile(regex_t *re, const char *regex, struct pm_err *err)
{
    /* glibc takes \1..\9 in ERE too, and then backtracks: one pattern
     * could take hours over 64 MiB of output. */
    for (const char *c = regex; *c; c++)
        if (*c == '\\' && c[1]) {
            if (c[1] >= '1' && c[1] <= '9')
                return pm_errf(err, "the pattern has a back-reference (\\%c)", c[1]);
            c++;
        }
    int rc = regcomp(re, regex, REG_EXTENDED | REG_NEWLINE);
    if (rc != 0) {
        char msg[200];
        regerror(rc, re, msg, sizeof msg);
        return pm_errf(err, "the pattern does not compile: %s", msg);
    }
    if (re->re_nsub < 1) {
        regfree(re);
        return pm_errf(err, "the pattern has no (group) around the number");
    }
    return 0;
}

/* The number the first group of the first match holds. */
static int regex_value(const regex_t *re, const char *text, double *value, struct pm_err *err)
{
    regmatch_t m[2];
    if (regexec(re, text, 2, m, 0) != 0)
        return pm_errf(err, "no line of the output matches the pattern");
    if (m[1].rm_so < 0)
        return pm_errf(err, "the pattern matched but its first group did not");
    size_t n = (size_t)(m[1].rm_eo - m[1].rm_so);
    char num[65], shown[40];
    snprintf(shown, sizeof shown, "%.*s", (int)(n < 32 ? n : 32), text + m[1].rm_so);
    for (char *c = shown; *c; c++)
        if (*c < 0x20 || *c >= 0x7f)
            *c = '?';
    if (n >= sizeof num)
        return pm_errf(err, "the group matched '%s...', too long for a number", shown);
    memcpy(num, text + m[1].rm_so, n);
    num[n] = '\0';
    if (!fig_number_all(num, value))
        return pm_errf(err, "the group matched '%s', not a number", shown);
    return 0;
}

int figure_regex(const char *name, const char *regex, const char *text, size_t len, double *value,
                 struct pm_err *err)
{
    regex_t re;
    struct pm_err e = { "" };
    char *t = NULL;
    int rc = -1;
    if (regex_compile(&re, regex, &e) < 0)
        return pm_errf(err, "--figure %s: %s", name, e.msg);
    if ((t = fig_text_copy("output", text, len, &e)))
        rc = regex_value(&re, t, value, &e);
    regfree(&re);
    free(t);
    return rc < 0 ? pm_errf(err, "--figure %s: %s", name, e.msg) : 0;
}

/* A metric name: [a-z0-9_] parts joined by single dots, a letter first. */
static bool name_ok(const char *s, size_t n, size_t max)
{
    if (n == 0 || n > max || !(s[0] >= 'a' && s[0] <= 'z') || s[n - 1] == '.')
        return false;
    for (size_t i = 0; i < n; i++) {
        bool word = (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_';
        if (!word && !(s[i] == '.' && s[i + 1] != '.'))
            return false;
    }
    return true;
}

/* UNIT of NAME:UNIT:DIR: 1 to 15 printable characters, none a blank, a
 * quote, a backslash or a separator of the option (it is shown in reports'
 * column titles and stored as the metric's unit). */
static bool unit_ok(const char *s, size_t n)
{
    if (n == 0 || n > 15)
        return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] <= ' ' || s[i] > '~' || strchr("\"'`\\:=", s[i]))
            return false;
    return true;
}

/* An argument that is no --figure at all, quoted back: its bytes are the
 * user's (or a suite file's), and the message goes to a terminal, so a
 * control or non-ASCII byte is shown as '?', as spec_head shows a unit. */
static int not_spec(const char *arg, size_t name_max, struct pm_err *err)
{
    char shown[101];
    snprintf(shown, sizeof shown, "%s", arg);
    for (char *c = shown; *c; c++)
        *c = *c < 0x20 || *c > 0x7e ? '?' : *c;
    return pm_errf(err, "--figure '%s': not NAME:UNIT:DIR=REGEX or NAME:UNIT:DIR=json:PATH with NAME of "
                   "[a-z0-9_.] (a letter first, at most %zu characters)", shown, name_max);
}

/* NAME[:UNIT:DIR], the part before '=', into spec; -1 with err. */
static int spec_head(const char *arg, size_t n, struct figure_spec *spec, struct pm_err *err)
{
    const char *c1 = memchr(arg, ':', n), *c2 = c1 ? memchr(c1 + 1, ':', (size_t)(arg + n - c1 - 1)) : NULL;
    size_t nlen = c1 ? (size_t)(c1 - arg) : n;
    if (!name_ok(arg, nlen, sizeof spec->name - 1) || (c1 && !c2))
        return not_spec(arg, sizeof spec->name - 1, err);
    memcpy(spec->name, arg, nlen);
    spec->dir = PM_NEITHER;
    if (!c1)
        return 0;
    size_t ulen = (size_t)(c2 - c1 - 1), dlen = (size_t)(arg + n - c2 - 1);
    if (!unit_ok(c1 + 1, ulen)) {
        /* The option is quoted back to a terminal: its bytes are not. */
        char shown[41];
        snprintf(shown, sizeof shown, "%.*s", (int)(ulen < 40 ? ulen : 40), c1 + 1);
        for (char *c = shown; *c; c++)
            *c = *c < 0x20 || *c > 0x7e ? '?' : *c;
        return pm_errf(err, "--figure %s: '%s' is not a unit (accepted: 1 to 15 printable characters, no blank, "
                       "quote, backslash, ':' or '=')", spec->name, shown);
    }
    memcpy(spec->unit, c1 + 1, ulen);
    static const char *const dirs[] = { "none", "higher", "lower" };
    for (int d = 0; d < 3; d++)
        if (strlen(dirs[d]) == dlen && strncmp(c2 + 1, dirs[d], dlen) == 0) {
            spec->dir = d == 0 ? PM_NEITHER : d == 1 ? PM_HIGHER : PM_LOWER;
            return 0;
        }
    char shown[41];
    snprintf(shown, sizeof shown, "%.*s", (int)(dlen < 40 ? dlen : 40), c2 + 1);
    for (char *c = shown; *c; c++)
        *c = *c < 0x20 || *c > 0x7e ? '?' : *c;
    return pm_errf(err, "--figure %s: '%s' is not a direction (accepted: higher, lower, none)", spec->name, shown);
}

int figure_spec_parse(const char *arg, struct figure_spec *spec, struct pm_err *err)
{
    const char *eq = strchr(arg, '=');
    memset(spec, 0, sizeof *spec);
    if (!eq)
        return not_spec(arg, sizeof spec->name - 1, err);
    if (spec_head(arg, (size_t)(eq - arg), spec, err) < 0)
        return -1;
    /* A parser's figures (its part of the metric names) are its own. */
    for (size_t i = 0; figures_parsers_table[i]; i++) {
        char prefix[40];
        snprintf(prefix, sizeof prefix, "%s.", figures_parsers_table[i]->name);
        for (char *c = prefix; *c; c++)
            *c = *c == '-' ? '_' : *c;
        if (strncmp(spec->name, prefix, strlen(prefix)) == 0)
            return pm_errf(err, "--figure %s: %s names are the %s parser's", spec->name, prefix,
                           figures_parsers_table[i]->name);
    }
    const char *expr = eq + 1, *path = strncmp(expr, "json:", 5) == 0 ? expr + 5 : NULL;
    if (strlen(path ? path : expr) >= sizeof spec->expr)
        return pm_errf(err, "--figure %s: the %s is longer than %zu characters", spec->name,
                       path ? "path" : "pattern", sizeof spec->expr - 1);
    snprintf(spec->expr, sizeof spec->expr, "%s", path ? path : expr);
    spec->kind = path ? FIGURE_JSON : FIGURE_REGEX;
    struct pm_err e = { "" };
    if (path) {
        struct json_step steps[PATH_MAX_STEPS];
        size_t k;
        if (path_parse(path, steps, &k, &e) < 0)
            return pm_errf(err, "--figure %s: %s", spec->name, e.msg);
        return 0;
    }
    regex_t re;
    if (!*expr)
        return pm_errf(err, "--figure %s: the pattern is empty", spec->name);
    if (regex_compile(&re, expr, &e) < 0)
        return pm_errf(err, "--figure %s: %s", spec->name, e.msg);
    regfree(&re);
    return 0;
}

int figure_spec_eval(const struct figure_spec *spec, const char *text, size_t len, double *value,
                     struct pm_err *err)
{
    if (spec->kind == FIGURE_JSON)
        return figure_json(spec->name, spec->expr, text, len, value, err);
    return figure_regex(spec->name, spec->expr, text, len, value, err);
}
