#ifndef PM_FIGURES_H
#define PM_FIGURES_H
/* A benchmark tool's own figures, read from its own machine-readable
 * output (fio's JSON, redis-benchmark's CSV, pgbench's summary, ...), so a
 * run of any tool can store what the tool measured beside what the kernel
 * did. Each parser is a file of figures/ with its figure table (name, unit,
 * direction, meaning) declared once, as lib/metrics.h declares metrics;
 * the table is what help and the documentation show.
 *
 * The text is data: a tool's output may be crafted. Sizes are bounded, a
 * NUL byte or a number that is not plainly decimal is refused, and a
 * figure the output lacks is an error naming the parser, the figure and
 * what was missing, never a 0. Nothing here prints. */
#include <stdbool.h>
#include <stddef.h>
#include "lib/err.h"
#include "lib/metrics.h"

/* The most text a parser reads: far beyond a short run's output, well
 * below what would make reading it a memory problem. */
#define FIGURES_MAX_TEXT (64u << 20)
/* A word standing for a job, test or stressor in a figure's name
 * (fio.<job>.read_iops): at most this many characters of [a-z0-9_]. */
#define FIGURES_MAX_WORD 40
/* The most figures one output gives (fio's ten a job: 400 jobs); beyond
 * it a crafted output could make reading it slow. */
#define FIGURES_MAX 4096

struct figure {
    char name[96];               /* as struct metric's: figures become metrics */
    double value;
    char unit[16];
    enum metric_dir dir;
};

struct figure_set {
    struct figure *v;
    size_t n, cap;
};

/* d's name with word for its "<word>" (d's name as it is when it has
 * none) into buf; -1 when it does not fit or a word is wanted and missing. */
int figure_name(const struct metric_def *d, const char *word, char *buf, size_t len);
/* Add a figure declared by d, "<word>" in d's name standing for word (NULL
 * when the name has none). A name already in the set, a value that is not
 * finite or is negative (every declared figure is a rate, time or count),
 * or a name that does not fit is refused with err: a parser never
 * overwrites a figure it has read. */
int figure_set_add(struct figure_set *s, const struct metric_def *d, const char *word, double value,
                   struct pm_err *err);
const struct figure *figure_set_find(const struct figure_set *s, const char *name);
void figure_set_free(struct figure_set *s);

/* A tool's parser: its name as users type it (the tool's own), what it
 * reads, its figures, and whether it takes a second text (pgbench's
 * per-transaction log). A figure the tool prints only when asked (pgbench's
 * stddev with -P, memcaslap's latency with -S) or only for some jobs or
 * tests (fio's write figures for a job that wrote) says so in its meaning;
 * it is then absent, never 0, when the tool did not print it. Every other
 * figure is in every output the parser accepts. parse gets the texts
 * NUL-terminated and checked (figures_parse_log); its errors leave out the
 * parser's name, which figures_parse_log puts first. */
struct figure_parser {
    const char *name;
    const char *reads;           /* "fio --output-format=json" */
    const struct metric_def *defs;
    size_t n;
    bool takes_log;
    /* Its headline, the figure a report shows first: the first figure of
     * the output matching the first of these names that any matches
     * ("<word>" standing for a job, test or stressor: the output's
     * first); NULL-terminated. */
    const char *const *headline;
    int (*parse)(const char *text, const char *log, struct figure_set *out, struct pm_err *err);
};

/* The parsers in the order help lists them (NULL-terminated). */
extern const struct figure_parser *const figures_parsers_table[];
const struct figure_parser *figures_parser(const char *name);
/* "fio, stress-ng, ..." for help and for the error an unknown name gets. */
void figures_parsers(char *buf, size_t len);

/* The figure of s that is parser's headline (its headline rule), or NULL. */
const struct figure *figures_headline(const struct figure_parser *p, const struct figure_set *s);
/* Can parser produce a figure called name (one of its names, "<word>"
 * standing for any word)? */
bool figures_declares(const struct figure_parser *p, const char *name);

/* Read parser's figures from text[0..len) into out (which the caller frees
 * with figure_set_free, also after a failure). -1 with err for an unknown
 * parser, text that is too long or holds a NUL byte, or output lacking a
 * figure. figures_parse_log also hands pgbench its per-transaction log
 * (-l; the files of several threads concatenated in any order); log may
 * be NULL, and a parser that takes none refuses one. */
int figures_parse(const char *parser, const char *text, size_t len, struct figure_set *out, struct pm_err *err);
int figures_parse_log(const char *parser, const char *text, size_t len, const char *log, size_t log_len,
                      struct figure_set *out, struct pm_err *err);

/* For every other tool, a figure named by the user (--figure NAME=REGEX or
 * --figure NAME=json:PATH; the unit and direction are the caller's):
 *  - REGEX: POSIX extended, matched line by line (^ and $ at each line);
 *    its first (group) in the first matching line is the number;
 *  - PATH: keys joined by '.', each followed by any [N] array indexes
 *    (jobs[0].read.iops); a key holding '.', '[' or ']' is written in
 *    double quotes (percentile."99.000000"). The value there must be a
 *    JSON number.
 * err names the figure (name) and what went wrong: a pattern that does
 * not compile, no match, a match that is not a number, no such key. */
int figure_regex(const char *name, const char *regex, const char *text, size_t len, double *value,
                 struct pm_err *err);
int figure_json(const char *name, const char *path, const char *text, size_t len, double *value,
                struct pm_err *err);

/* One --figure option's argument, NAME:UNIT:DIR=REGEX or
 * NAME:UNIT:DIR=json:PATH (":UNIT:DIR" may be left out: no unit, no
 * direction), checked whole before anything runs: the name is a metric
 * name ([a-z0-9_.], at most 95 characters, a letter first, no empty part,
 * not a parser's), the unit 1 to 15 printable characters without blanks,
 * quotes, backslashes, ':' or '=', the direction higher, lower or none, the
 * pattern compiles and has a group, the path parses. */
enum figure_kind { FIGURE_REGEX, FIGURE_JSON };
struct figure_spec {
    char name[96];
    char unit[16];               /* "" when none was given */
    enum metric_dir dir;
    enum figure_kind kind;
    char expr[1024];             /* the pattern or the path */
};
int figure_spec_parse(const char *arg, struct figure_spec *spec, struct pm_err *err);
int figure_spec_eval(const struct figure_spec *spec, const char *text, size_t len, double *value,
                     struct pm_err *err);

#endif
