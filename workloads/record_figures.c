/* record's figures options and their checks before anything runs
 * (record_collect.c reads the figures once the command has run). */
#include "workloads/record_figures.h"
#include <stdio.h>
#include <string.h>

static int set_parser(void *state, const char *value, struct pm_err *err)
{
    struct record_figures *f = state;
    const struct figure_parser *p = figures_parser(value);
    if (!p) {
        char names[256];
        figures_parsers(names, sizeof names);
        return pm_errf(err, "'%.64s' is not a figures parser (accepted: %s)", value, names);
    }
    /* Two parsers would read one text two ways: which is the tool's? */
    if (f->parser)
        return pm_errf(err, "'%s' after '%s': one parser a record (accepted: --figures once)", value, f->parser->name);
    f->parser = p;
    return 0;
}

/* A path as given, kept: it is read after the command has run. */
static int set_path(char *dst, size_t size, const char *value, struct pm_err *err)
{
    if (!value[0] || strlen(value) >= size)
        return pm_errf(err, "'%.64s' is not a path (accepted: 1 to %zu characters)", value, size - 1);
    snprintf(dst, size, "%s", value);
    return 0;
}

static int set_from(void *state, const char *value, struct pm_err *err)
{
    struct record_figures *f = state;
    if (f->from[0])
        return pm_errf(err, "'%.64s' after '%.64s': the figures come from one file (accepted: --figures-from once)",
                       value, f->from);
    return set_path(f->from, sizeof f->from, value, err);
}

static int set_log(void *state, const char *value, struct pm_err *err)
{
    struct record_figures *f = state;
    if (f->nlogs == RECORD_MAX_LOGS)
        return pm_errf(err, "'%.64s': more than %d logs (accepted: at most %d --figures-log, each a pattern)", value,
                       RECORD_MAX_LOGS, RECORD_MAX_LOGS);
    for (size_t i = 0; i < f->nlogs; i++)
        if (strcmp(f->logs[i], value) == 0)
            return pm_errf(err, "'%.64s' twice (accepted: each pattern once)", value);
    if (set_path(f->logs[f->nlogs], sizeof f->logs[0], value, err) < 0)
        return -1;
    f->nlogs++;
    return 0;
}

static int set_figure(void *state, const char *value, struct pm_err *err)
{
    struct record_figures *f = state;
    struct figure_spec sp;
    struct pm_err e;
    /* figure_spec_parse's errors name the option already ("--figure x: ..."):
     * the caller's "--figure: " prefix would say it twice. */
    if (figure_spec_parse(value, &sp, &e) < 0)
        return pm_errf(err, "%s", strncmp(e.msg, "--figure ", 9) == 0 ? e.msg + 9 : e.msg);
    if (f->nspecs == RECORD_MAX_FIGURES)
        return pm_errf(err, "%s: more than %d figures (accepted: at most %d --figure)", sp.name, RECORD_MAX_FIGURES,
                       RECORD_MAX_FIGURES);
    for (size_t i = 0; i < f->nspecs; i++)
        if (strcmp(f->specs[i].name, sp.name) == 0)
            return pm_errf(err, "%s: named twice (accepted: each figure's name once)", sp.name);
    f->specs[f->nspecs++] = sp;
    return 0;
}

static int set_headline(void *state, const char *value, struct pm_err *err)
{
    struct record_figures *f = state;
    if (f->headline[0])
        return pm_errf(err, "'%.64s' after '%s': a run has one headline (accepted: --headline once)", value,
                       f->headline);
    if (!value[0] || strlen(value) >= sizeof f->headline)
        return pm_errf(err, "'%.64s' is not a figure's name (accepted: 1 to %zu characters)", value,
                       sizeof f->headline - 1);
    snprintf(f->headline, sizeof f->headline, "%s", value);
    return 0;
}

const struct opt record_figures_options[] = {
    { .name = "figures", .type = OPT_CALLBACK, .set = set_parser, .metavar = "PARSER",
      .help = "read the tool's own figures with PARSER (its name; a name it does not know lists them) from what "
              "the command writes to stdout and stderr, kept with the run ('pressmark show --output RUN')" },
    { .name = "figure", .type = OPT_CALLBACK, .set = set_figure, .metavar = "NAME:UNIT:DIR=REGEX|json:PATH",
      .help = "a figure of your own from the same text: REGEX's first group in the first line it matches, or the "
              "number at a JSON path; UNIT up to 15 characters, DIR higher, lower or none (repeatable)" },
    { .name = "figures-from", .type = OPT_CALLBACK, .set = set_from, .metavar = "PATH",
      .help = "read the figures from this file the command writes (stress-ng --yaml PATH) instead of its output" },
    { .name = "figures-log", .type = OPT_CALLBACK, .set = set_log, .metavar = "PATTERN",
      .help = "a per-transaction log the parser reads too (pgbench -l): the files matching the glob pattern, "
              "written during the run, concatenated (repeatable)" },
    { .name = "headline", .type = OPT_CALLBACK, .set = set_headline, .metavar = "NAME",
      .help = "the figure reports show first for these runs (default: the parser's headline, else the first "
              "--figure)" },
    { .type = OPT_END },
};

bool record_figures_on(const struct record_figures *f)
{
    return f->parser || f->nspecs;
}

/* Can a figure called name be read: a --figure's, or one the parser declares? */
static bool can_read(const struct record_figures *f, const char *name)
{
    for (size_t i = 0; i < f->nspecs; i++)
        if (strcmp(f->specs[i].name, name) == 0)
            return true;
    return f->parser && figures_declares(f->parser, name);
}

int record_figures_check(const struct record_figures *f, struct pm_err *err)
{
    if (!record_figures_on(f) && f->from[0])
        return pm_errf(err, "--figures-from %.64s: no figures to read from it (accepted: with --figures PARSER or "
                       "--figure)", f->from);
    if (f->nlogs && !(f->parser && f->parser->takes_log)) {
        char takes[128] = "";
        for (size_t i = 0; figures_parsers_table[i]; i++)
            if (figures_parsers_table[i]->takes_log)
                snprintf(takes + strlen(takes), sizeof takes - strlen(takes), "%s%s", takes[0] ? ", " : "",
                         figures_parsers_table[i]->name);
        return pm_errf(err, "--figures-log %.64s: %s%s (accepted: with --figures %s)", f->logs[0],
                       f->parser ? f->parser->name : "", f->parser ? " takes no log" : "no --figures parser to read it",
                       takes);
    }
    if (f->headline[0] && !record_figures_on(f))
        return pm_errf(err, "--headline %s: no figures to choose from (accepted: with --figures PARSER or --figure)",
                       f->headline);
    if (f->headline[0] && !can_read(f, f->headline))
        return pm_errf(err, "--headline %s: not a figure these runs read (accepted: a --figure's name%s%s%s)",
                       f->headline, f->parser ? ", or a figure of " : "", f->parser ? f->parser->name : "",
                       f->parser ? " as 'pressmark help metrics' lists them" : "");
    return 0;
}

const char *record_figures_headline(const struct record_figures *f)
{
    if (f->headline[0])
        return f->headline;
    if (f->parser)
        return strchr(f->parser->headline[0], '<') || f->parser->headline[1] ? "" : f->parser->headline[0];
    return f->nspecs ? f->specs[0].name : NULL;
}

const char *record_figures_user_name(const struct record_figures *f, size_t i)
{
    return i < f->nspecs ? f->specs[i].name : NULL;
}
