#include "reports/compare.h"
#include <ctype.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* A kernel suite's labels ("chat on linux-image-6.12-cloud-amd64") are
 * as wide as the rest of a row: in a table they squeeze the numbers or
 * wrap into a column of fragments. Tables show such a label with its
 * long words abbreviated, and say once, under the table, what each
 * abbreviation stands for. */

/* In a longer label, a word (no spaces) longer than this is abbreviated. */
#define WORD_LONG 12
/* The part of a word its group does not share ("6.12.48+deb12" of
 * linux-image-6.12.48+deb12-cloud-amd64) stands for it when this short. */
#define MIDDLE_FITS 16

/* Where a word of a package or file name may be cut: not '.' and '+',
 * which are inside version numbers. */
static bool is_sep(char ch)
{
    return ch == '-' || ch == '_' || ch == '/' || ch == ':' || ch == '=' || ch == ',';
}

/* The axis whose value word is (or is part of), from a cell's axes as
 * JSON: its name gives the abbreviation's letter. "" when none is. */
static void axis_of(const char *axes_json, const char *word, char *axis, size_t len)
{
    axis[0] = '\0';
    json_error_t e;
    json_t *o = axes_json ? json_loads(axes_json, 0, &e) : NULL;
    const char *k;
    json_t *v;
    if (json_is_object(o))
        json_object_foreach(o, k, v) {
            if (json_is_string(v) && strstr(json_string_value(v), word)) {
                snprintf(axis, len, "%s", k);
                break;
            }
        }
    json_decref(o);
}

/* One distinct long word: its axis and where its abbreviation goes. */
struct long_word {
    char word[256], axis[64];
    int abbrev;                  /* index into c->abbrevs */
};

static int add_word(struct long_word **w, size_t *n, const char *word, size_t len, const char *axes_json)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%.*s", (int)len, word);
    for (size_t i = 0; i < *n; i++)
        if (strcmp((*w)[i].word, buf) == 0)
            return 0;
    struct long_word *nw = realloc(*w, (*n + 1) * sizeof *nw);
    if (!nw)
        return -1;
    *w = nw;
    memset(&nw[*n], 0, sizeof nw[*n]);
    snprintf(nw[*n].word, sizeof nw[*n].word, "%s", buf);
    axis_of(axes_json, buf, nw[*n].axis, sizeof nw[*n].axis);
    (*n)++;
    return 0;
}

/* The long words of the labels that do not fit, each once. */
static int collect_words(const struct comparison *c, const char *const *axes_json, struct long_word **w, size_t *n)
{
    for (size_t l = 0; l < c->nlabels; l++) {
        const char *s = c->labels[l].name;
        if (strlen(s) <= CMP_LABEL_FITS)
            continue;
        while (*s) {
            size_t len = strcspn(s, " ");
            if (len > WORD_LONG && add_word(w, n, s, len, axes_json ? axes_json[l] : NULL) < 0)
                return -1;
            s += len;
            s += strspn(s, " ");
        }
    }
    return 0;
}

/* The middles of a group of words: what is left of each without the
 * prefix and suffix all of them share, cut where a name's parts meet.
 * false unless every middle is there, short and different. */
static bool middles(struct long_word *const *g, size_t n, char (*mid)[MIDDLE_FITS + 1])
{
    if (n < 2)
        return false;
    size_t p = strlen(g[0]->word), s = p;
    for (size_t i = 1; i < n; i++) {
        const char *a = g[0]->word, *b = g[i]->word;
        size_t la = strlen(a), lb = strlen(b), k = 0;
        while (k < p && a[k] && a[k] == b[k])
            k++;
        p = k;
        for (k = 0; k < s && k < la && k < lb && a[la - 1 - k] == b[lb - 1 - k]; k++)
            ;
        s = k;
    }
    const char *w0 = g[0]->word;
    size_t l0 = strlen(w0);
    while (p > 0 && !is_sep(w0[p - 1]))
        p--;
    while (s > 0 && !is_sep(w0[l0 - s]))
        s--;
    if (p + s == 0)
        return false;
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(g[i]->word);
        if (p + s >= len || len - p - s > MIDDLE_FITS)
            return false;
        snprintf(mid[i], MIDDLE_FITS + 1, "%.*s", (int)(len - p - s), g[i]->word + p);
        for (size_t j = 0; j < i; j++)
            if (strcmp(mid[i], mid[j]) == 0)
                return false;
    }
    return true;
}

static bool abbrev_taken(const struct comparison *c, const char *a)
{
    for (size_t i = 0; i < c->nabbrevs; i++)
        if (strcmp(c->abbrevs[i].abbrev, a) == 0)
            return true;
    return false;
}

/* Abbreviate one group (the words of one axis): by their middles, or
 * else by the axis's initial and a number in the order the words came
 * ("k1", "k2": kernels), "v1" for words of no axis. */
static void abbreviate_group(struct comparison *c, struct long_word *const *g, size_t n, unsigned *counts)
{
    char mid[64][MIDDLE_FITS + 1];
    bool by_middle = n <= 64 && middles(g, n, mid);
    for (size_t i = 0; by_middle && i < n; i++)
        by_middle = !abbrev_taken(c, mid[i]);
    char letter = 'v';
    for (const char *a = g[0]->axis; *a; a++)
        if (isalpha((unsigned char)*a)) {
            letter = (char)tolower((unsigned char)*a);
            break;
        }
    for (size_t i = 0; i < n; i++) {
        struct cmp_abbrev *ab = &c->abbrevs[c->nabbrevs];
        snprintf(ab->full, sizeof ab->full, "%s", g[i]->word);
        if (by_middle) {
            snprintf(ab->abbrev, sizeof ab->abbrev, "%s", mid[i]);
        } else {
            do
                snprintf(ab->abbrev, sizeof ab->abbrev, "%c%u", letter, ++counts[(unsigned char)letter]);
            while (abbrev_taken(c, ab->abbrev));
        }
        g[i]->abbrev = (int)c->nabbrevs++;
    }
}

/* A label with each long word replaced by its abbreviation. */
static void shorten(const struct long_word *w, size_t n, const struct comparison *c, const char *name, char *out,
                    size_t len)
{
    size_t o = 0;
    out[0] = '\0';
    for (const char *s = name; *s && o < len;) {
        size_t sp = strspn(s, " "), wl = strcspn(s + sp, " ");
        const char *rep = NULL;
        for (size_t i = 0; i < n && !rep; i++)
            if (strlen(w[i].word) == wl && strncmp(w[i].word, s + sp, wl) == 0)
                rep = c->abbrevs[w[i].abbrev].abbrev;
        if (rep)
            o += (size_t)snprintf(out + o, len - o, "%.*s%s", (int)sp, s, rep);
        else
            o += (size_t)snprintf(out + o, len - o, "%.*s", (int)(sp + wl), s);
        s += sp + wl;
    }
}

/* No two labels may look alike: where a short name reads as another
 * label's short name or as another label itself ("chat on 6.12" beside a
 * label of that very name), the label keeps its full name. Repeated until
 * nothing changes, as a full name given back may clash in turn. */
static void keep_apart(struct comparison *c)
{
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t a = 0; a < c->nlabels; a++) {
            struct cmp_label *x = &c->labels[a];
            if (strcmp(x->short_name, x->name) == 0)
                continue;
            for (size_t b = 0; b < c->nlabels; b++)
                if (b != a && (strcmp(x->short_name, c->labels[b].short_name) == 0 ||
                               strcmp(x->short_name, c->labels[b].name) == 0)) {
                    snprintf(x->short_name, sizeof x->short_name, "%s", x->name);
                    changed = true;
                    break;
                }
        }
    }
}

int compare_short_names(struct comparison *c, const char *const *axes_json, struct pm_err *err)
{
    free(c->abbrevs);
    c->abbrevs = NULL;
    c->nabbrevs = 0;
    struct long_word *w = NULL;
    size_t n = 0;
    int rc = collect_words(c, axes_json, &w, &n);
    struct long_word **group = rc == 0 ? calloc(n + 1, sizeof *group) : NULL;
    bool *done = group ? calloc(n + 1, sizeof *done) : NULL;
    c->abbrevs = done ? calloc(n + 1, sizeof *c->abbrevs) : NULL;
    if (!c->abbrevs) {
        free(w);
        free(group);
        free(done);
        return pm_errf(err, "out of memory");
    }
    /* Words of one axis are abbreviated together, in the order they came. */
    unsigned counts[256] = { 0 };
    for (size_t i = 0; i < n; i++) {
        if (done[i])
            continue;
        size_t k = 0;
        for (size_t j = i; j < n; j++)
            if (!done[j] && strcmp(w[j].axis, w[i].axis) == 0) {
                group[k++] = &w[j];
                done[j] = true;
            }
        abbreviate_group(c, group, k, counts);
    }
    for (size_t l = 0; l < c->nlabels; l++) {
        struct cmp_label *lb = &c->labels[l];
        if (strlen(lb->name) > CMP_LABEL_FITS)
            shorten(w, n, c, lb->name, lb->short_name, sizeof lb->short_name);
        else
            snprintf(lb->short_name, sizeof lb->short_name, "%s", lb->name);
    }
    keep_apart(c);
    free(done);
    free(group);
    free(w);
    return 0;
}

const char *compare_full_name(const struct comparison *c, const char *shown)
{
    for (size_t l = 0; l < c->nlabels; l++)
        if (strcmp(c->labels[l].short_name, shown) == 0 && strcmp(c->labels[l].name, shown) != 0)
            return c->labels[l].name;
    for (size_t i = 0; i < c->nabbrevs; i++)
        if (strcmp(c->abbrevs[i].abbrev, shown) == 0)
            return c->abbrevs[i].full;
    return NULL;
}

const char *compare_abbrev_of(const struct comparison *c, const char *full)
{
    for (size_t i = 0; i < c->nabbrevs; i++)
        if (strcmp(c->abbrevs[i].full, full) == 0)
            return c->abbrevs[i].abbrev;
    return full;
}
