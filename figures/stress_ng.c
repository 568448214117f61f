/* stress-ng --metrics --yaml FILE: each stressor's bogo-ops/s, over real
 * time and over its user+system time.
 *
 * A line reader, not a YAML library: stress-ng 0.15 writes the file with
 * printf calls of a fixed layout (pr_yaml in stress-ng.c: "metrics:", then
 * "    - stressor: NAME" and "      key: %f" lines, blank lines between
 * stressors, "..." last), so the metrics section is a list of flat maps
 * of plain scalars. The reader takes exactly that shape and refuses any
 * other line in the section, so a file it does not understand fails
 * rather than being half read; a YAML library would be a new build
 * dependency (run.sh, debian/control) for the same figures. */
#include <stdio.h>
#include <string.h>
#include "figures/text.h"

enum { S_REAL, S_CPU, S_FIGURES };
static const struct metric_def stress_ng_defs[] = {
    METRIC("stress_ng.<stressor>.bogo_ops_per_s", "bogo-ops/s", PM_HIGHER,
           "a stressor's bogo operations per second of wall-clock time (bogo-ops-per-second-real-time)"),
    METRIC("stress_ng.<stressor>.bogo_ops_per_cpu_s", "bogo-ops/s", PM_HIGHER,
           "a stressor's bogo operations per second of its user and system time (bogo-ops-per-second-usr-sys-time)"),
};
static const char *const stress_ng_keys[S_FIGURES] = { "bogo-ops-per-second-real-time",
                                                       "bogo-ops-per-second-usr-sys-time" };

struct sng_item {
    char word[FIGURES_MAX_WORD + 1];
    bool open, seen[S_FIGURES];
    double v[S_FIGURES];
};

/* A stressor's entry is over: both rates, or the one it lacks named. */
static int sng_close(struct sng_item *it, struct figure_set *out, struct pm_err *err)
{
    if (!it->open)
        return 0;
    it->open = false;
    for (int k = 0; k < S_FIGURES; k++)
        if (!it->seen[k]) {
            char name[96];
            if (figure_name(&stress_ng_defs[k], it->word, name, sizeof name) < 0)
                snprintf(name, sizeof name, "%s", stress_ng_defs[k].name);
            return pm_errf(err, "no %s: the stressor %s's entry has no %s", name, it->word, stress_ng_keys[k]);
        }
    for (int k = 0; k < S_FIGURES; k++)
        if (figure_set_add(out, &stress_ng_defs[k], it->word, it->v[k], err) < 0)
            return -1;
    return 0;
}

static int sng_stressor(struct sng_item *it, const char *name, unsigned no, struct figure_set *out,
                        struct pm_err *err)
{
    if (sng_close(it, out, err) < 0)
        return -1;
    memset(it, 0, sizeof *it);
    if (!fig_word(name, strlen(name), it->word))
        return pm_errf(err, "line %u: the stressor's name has no letter or digit to name its figures", no);
    it->open = true;
    return 0;
}

/* "      key: value" inside a stressor's entry: a rate is kept, the other
 * keys (bogo-ops, times, max-rss, a stressor's own) are passed over. */
static int sng_key(struct sng_item *it, char *line, unsigned no, struct pm_err *err)
{
    char *colon = strchr(line, ':');
    if (!colon || !it->open)
        return pm_errf(err, "line %u of the metrics section is not stress-ng's layout ('- stressor: NAME', then "
                       "'key: value' lines)", no);
    *colon = '\0';
    const char *key = fig_skip_blanks(line);
    /* stress-ng's keys are words and '-' (its own metrics' names munged
     * so); anything else is YAML this reader does not understand. */
    if (!*key || key[strspn(key, "abcdefghijklmnopqrstuvwxyz0123456789-_")])
        return pm_errf(err, "line %u of the metrics section is not stress-ng's layout (a key of [a-z0-9-])", no);
    for (int k = 0; k < S_FIGURES; k++) {
        if (strcmp(key, stress_ng_keys[k]) != 0)
            continue;
        if (it->seen[k])
            return pm_errf(err, "line %u: the stressor %s has %s twice", no, it->word, key);
        if (!fig_number_all(colon + 1, &it->v[k]))
            return pm_errf(err, "line %u: the stressor %s's %s is not a number", no, it->word, key);
        it->seen[k] = true;
    }
    return 0;
}

/* One line of the metrics section; *done once it ends. */
static int sng_line(struct sng_item *it, char *line, unsigned no, bool *done, struct figure_set *out,
                    struct pm_err *err)
{
    const char *s = fig_skip_blanks(line), *name;
    if (!*s)
        return 0;
    if (s == line) {             /* back at the left margin: "..." or the next section */
        *done = true;
        return sng_close(it, out, err);
    }
    if (*s != '-')
        return sng_key(it, line, no, err);
    if (!(name = fig_after(fig_skip_blanks(s + 1), "stressor:")))
        return pm_errf(err, "line %u: an entry of the metrics section that is not '- stressor: NAME'", no);
    return sng_stressor(it, fig_skip_blanks(name), no, out, err);
}

static int stress_ng_parse(const char *text, const char *log, struct figure_set *out, struct pm_err *err)
{
    (void)log;
    struct fig_lines it;
    struct sng_item item = { .open = false };
    bool in = false, done = false, closed = false;
    size_t before = out->n;
    fig_lines_init(&it, text);
    while (fig_lines_next(&it)) {
        if (it.long_line)
            return pm_errf(err, "line %u is longer than any stress-ng writes", it.no);
        if (in && !done && sng_line(&item, it.line, it.no, &done, out, err) < 0)
            return -1;
        in = in || strcmp(it.line, "metrics:") == 0;
        closed = closed || (done && strcmp(it.line, "...") == 0);
    }
    if (!in)
        return fig_missing(err, "stress_ng.<stressor>.bogo_ops_per_s", "no 'metrics:' section (stress-ng writes it "
                           "to the file of --yaml FILE when run with --metrics)", text);
    if (sng_close(&item, out, err) < 0)
        return -1;
    if (out->n == before)
        return pm_errf(err, "no stress_ng.<stressor>.bogo_ops_per_s: the metrics section names no stressor");
    if (!closed)
        return pm_errf(err, "the YAML ends without stress-ng's closing '...': it was cut short");
    return 0;
}

/* The headline (docs/guide/figures.md says why each). */
static const char *const stress_ng_headline[] = { "stress_ng.<stressor>.bogo_ops_per_s", NULL };

const struct figure_parser figures_stress_ng = {
    .name = "stress-ng",
    .reads = "the file of stress-ng --metrics --yaml FILE",
    .defs = stress_ng_defs,
    .n = sizeof stress_ng_defs / sizeof stress_ng_defs[0],
    .headline = stress_ng_headline,
    .parse = stress_ng_parse,
};
