#include "lib/opt.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lib/fileio.h"
#include "lib/units.h"

#define FIELD(state, o, type) ((type *)((char *)(state) + (o)->offset))
#define CFIELD(state, o, type) ((const type *)((const char *)(state) + (o)->offset))

static bool bounded(const struct opt *o)
{
    return o->min != 0 || o->max != 0;
}

static int set_number(const struct opt *o, void *state, const char *value, struct pm_err *err)
{
    uint64_t lo = (uint64_t)o->min, hi = bounded(o) ? (uint64_t)o->max : (o->type == OPT_UINT ? UINT32_MAX : UINT64_MAX);
    uint64_t v;
    if (pm_parse_uint(value, lo, hi, &v) < 0)
        return pm_errf(err, "'%s' is not a %s (accepted: a whole number from %llu to %llu%s%s)", value,
                       o->noun ? o->noun : "number", (unsigned long long)lo, (unsigned long long)hi,
                       o->extra ? "; " : "", o->extra ? o->extra : "");
    if (o->type == OPT_UINT)
        *FIELD(state, o, unsigned) = (unsigned)v;
    else
        *FIELD(state, o, uint64_t) = v;
    return 0;
}

static int set_size(const struct opt *o, void *state, const char *value, struct pm_err *err)
{
    uint64_t total = 0;
    if (o->flags & OPT_PCT_MEM) {
        int64_t kb = pm_meminfo_kb("MemTotal");
        total = kb > 0 ? (uint64_t)kb * 1024 : 0;
    }
    uint64_t v;
    if (pm_parse_size(value, total, &v) < 0 || (bounded(o) && ((double)v < o->min || (double)v > o->max)))
        return pm_errf(err, "'%s' is not a %s (accepted: %s%s%s)", value, o->noun ? o->noun : "size",
                       PM_SIZE_FORMS, o->extra ? "; " : "", o->extra ? o->extra : "");
    *FIELD(state, o, uint64_t) = v;
    return 0;
}

static int set_duration(const struct opt *o, void *state, const char *value, struct pm_err *err)
{
    uint64_t v;
    if (pm_parse_duration(value, &v) < 0 || (bounded(o) && ((double)v < o->min || (double)v > o->max)))
        return pm_errf(err, "'%s' is not a %s (accepted: %s%s%s)", value, o->noun ? o->noun : "duration",
                       PM_DURATION_FORMS, o->extra ? "; " : "", o->extra ? o->extra : "");
    *FIELD(state, o, uint64_t) = v;
    return 0;
}

static int set_real(const struct opt *o, void *state, const char *value, struct pm_err *err)
{
    char *end;
    errno = 0;
    double d = strtod(value, &end);
    if (errno || *end || end == value || !isfinite(d) || (bounded(o) && (d < o->min || d > o->max)))
        return pm_errf(err, "'%s' is not a %s (accepted: %s)", value, o->noun ? o->noun : "number",
                       o->extra ? o->extra : "a number");
    *FIELD(state, o, double) = d;
    return 0;
}

static int set_choice(const struct opt *o, void *state, const char *value, struct pm_err *err)
{
    for (unsigned i = 0; o->words[i]; i++) {
        if (strcmp(o->words[i], value) == 0) {
            *FIELD(state, o, unsigned) = i;
            return 0;
        }
    }
    char accepted[512] = "";
    for (unsigned i = 0, n = 0; o->words[i]; i++)
        n += (unsigned)snprintf(accepted + n, n < sizeof accepted ? sizeof accepted - n : 0, "%s%s", i ? ", " : "",
                                o->words[i]);
    return pm_errf(err, "'%s' is not a %s (accepted: %s)", value, o->noun ? o->noun : "choice", accepted);
}

static int set_string(const struct opt *o, void *state, const char *value, struct pm_err *err)
{
    if (strlen(value) >= o->size)
        return pm_errf(err, "'%.40s...' is too long (accepted: at most %zu characters)", value, o->size - 1);
    if (o->set && o->set(state, value, err) < 0)
        return -1;
    snprintf(FIELD(state, o, char), o->size, "%s", value);
    return 0;
}

int opt_set(const struct opt *o, void *state, const char *value, struct pm_err *err)
{
    switch (o->type) {
    case OPT_FLAG:
        *FIELD(state, o, bool) = true;
        return 0;
    case OPT_UINT:
    case OPT_U64:
        return set_number(o, state, value, err);
    case OPT_SIZE:
        return set_size(o, state, value, err);
    case OPT_DURATION:
        return set_duration(o, state, value, err);
    case OPT_REAL:
        return set_real(o, state, value, err);
    case OPT_CHOICE:
        return set_choice(o, state, value, err);
    case OPT_STRING:
        return set_string(o, state, value, err);
    case OPT_CALLBACK:
        return o->set(state, value, err);
    case OPT_END:
        break;
    }
    return pm_errf(err, "internal: option --%s has no type", o->name);
}

int opt_set_defaults(const struct opt *table, void *state, struct pm_err *err)
{
    for (const struct opt *o = table; o->type != OPT_END; o++) {
        if (!o->def)
            continue;
        struct pm_err e;
        if (opt_set(o, state, o->def, &e) < 0)
            return pm_errf(err, "default of --%s: %s", o->name, e.msg);
    }
    return 0;
}

const struct opt *opt_find(const struct opt *table, const char *name)
{
    for (const struct opt *o = table; o->type != OPT_END; o++)
        if (strcmp(o->name, name) == 0)
            return o;
    return NULL;
}

size_t opt_count(const struct opt *table)
{
    size_t n = 0;
    while (table[n].type != OPT_END)
        n++;
    return n;
}

/* Sizes and durations in the largest unit that is exact, so the text is an
 * option value that gives the same number back. */
static void fmt_scaled(char *buf, size_t len, uint64_t v, const uint64_t *mult, const char *const *suffix, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (v && v % mult[i] == 0) {
            snprintf(buf, len, "%llu%s", (unsigned long long)(v / mult[i]), suffix[i]);
            return;
        }
    }
    snprintf(buf, len, "%llu%s", (unsigned long long)v, suffix[n - 1]);
}

void opt_value_text(const struct opt *o, const void *state, char *buf, size_t len)
{
    static const uint64_t size_mult[] = { 1ull << 40, 1ull << 30, 1ull << 20, 1ull << 10, 1 };
    static const char *const size_suffix[] = { "T", "G", "M", "K", "" };
    static const uint64_t dur_mult[] = { 3600000000000ull, 60000000000ull, 1000000000ull, 1000000ull, 1000ull, 1 };
    static const char *const dur_suffix[] = { "h", "m", "s", "ms", "us", "ns" };
    buf[0] = '\0';
    switch (o->type) {
    case OPT_FLAG:
        snprintf(buf, len, "%s", *CFIELD(state, o, bool) ? "yes" : "");
        break;
    case OPT_UINT:
        snprintf(buf, len, "%u", *CFIELD(state, o, unsigned));
        break;
    case OPT_U64:
        snprintf(buf, len, "%llu", (unsigned long long)*CFIELD(state, o, uint64_t));
        break;
    case OPT_SIZE:
        fmt_scaled(buf, len, *CFIELD(state, o, uint64_t), size_mult, size_suffix, 5);
        break;
    case OPT_DURATION:
        fmt_scaled(buf, len, *CFIELD(state, o, uint64_t), dur_mult, dur_suffix, 6);
        break;
    case OPT_REAL:
        snprintf(buf, len, "%g", *CFIELD(state, o, double));
        break;
    case OPT_CHOICE:
        snprintf(buf, len, "%s", o->words[*CFIELD(state, o, unsigned)]);
        break;
    case OPT_STRING:
        snprintf(buf, len, "%s", CFIELD(state, o, char));
        break;
    case OPT_CALLBACK:
        if (o->show)
            o->show(state, buf, len);
        break;
    case OPT_END:
        break;
    }
}

/* Is the option at its default? An option without one is at it while unset. */
static bool at_default(const struct opt *o, const char *text)
{
    if (!o->def)
        return text[0] == '\0';
    char def[256];
    union { uint64_t u; double d; unsigned w; char s[256]; bool b; } tmp;
    memset(&tmp, 0, sizeof tmp);
    struct opt shifted = *o;
    shifted.offset = 0;
    if (o->type == OPT_CALLBACK || (o->type == OPT_STRING && o->size > sizeof tmp.s))
        return false;
    if (o->type == OPT_STRING)
        shifted.size = sizeof tmp.s;
    if (opt_set(&shifted, &tmp, o->def, NULL) < 0)
        return false;
    opt_value_text(&shifted, &tmp, def, sizeof def);
    return strcmp(def, text) == 0;
}

void opt_describe(const struct opt *table, const void *state, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (const struct opt *o = table; o->type != OPT_END && n < len; o++) {
        if (o->flags & OPT_NO_DESCRIBE)
            continue;
        char v[1024];
        opt_value_text(o, state, v, sizeof v);
        if (!v[0] || ((o->flags & OPT_DESCRIBE_SET) && at_default(o, v)))
            continue;
        if (o->type == OPT_FLAG)
            n += (size_t)snprintf(buf + n, len - n, "%s--%s", n ? " " : "", o->name);
        else
            n += (size_t)snprintf(buf + n, len - n, "%s--%s %s", n ? " " : "", o->name, v);
    }
}

void opt_help(FILE *f, const struct opt *table)
{
    for (const struct opt *o = table; o->type != OPT_END; o++) {
        char left[64];
        snprintf(left, sizeof left, "--%s%s%s", o->name, o->metavar ? " " : "", o->metavar ? o->metavar : "");
        /* A long option name gets its help on the next line, aligned: two
         * blanks always part an option from its help (man/gen.sh splits
         * there), so one that fills the column goes on the next line too. */
        if (strlen(left) > 21)
            fprintf(f, "  %s\n  %-22s", left, "");
        else
            fprintf(f, "  %-22s", left);
        /* A choice lists its words, a|b|c, as the man pages and Tab
         * completion read them. */
        char words[256] = "";
        size_t n = 0;
        for (size_t i = 0; o->type == OPT_CHOICE && o->words && o->words[i] && n < sizeof words; i++)
            n += (size_t)snprintf(words + n, sizeof words - n, "%s%s", i ? "|" : "", o->words[i]);
        if (words[0])
            fprintf(f, " %s (%s%s%s)\n", o->help, words, o->def ? "; default " : "", o->def ? o->def : "");
        else
            fprintf(f, " %s%s%s%s\n", o->help, o->def ? " (default " : "", o->def ? o->def : "", o->def ? ")" : "");
    }
}
