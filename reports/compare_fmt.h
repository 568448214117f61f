#ifndef PM_COMPARE_FMT_H
#define PM_COMPARE_FMT_H
/* A comparison rendered as text (the reports' table or mmtests' long layout),
 * markdown, csv, json or an html fragment: the same numbers in each, each
 * format a plug-in (struct cmp_format). */
#include <stdbool.h>
#include <stdio.h>
#include "reports/across.h"
#include "reports/compare.h"
#include "lib/json.h"
#include "reports/verdict.h"

enum markup { MARKUP_TEXT, MARKUP_MARKDOWN, MARKUP_HTML };

struct cmp_format;
struct isolation;

/* One output of compare: begin, a comparison per workload, end. */
struct cmp_writer {
    FILE *f;
    const struct cmp_format *fmt;
    struct jw j;                      /* the json format's writer */
    size_t n;                         /* comparisons written so far */
    const struct across *across;      /* across workloads, written at the end */
    size_t nacross;
    const struct isolation *isolation;  /* the isolation figures (isolation.h), written at the end; NULL: none */
    bool isolation_only;              /* write only those (compare --isolation) */
    FILE *log;                        /* a data format's verdict line (the command's stderr); NULL: none */
};

/* A format is a table of operations, so compare has no switch on it: each
 * is a file of its own (cmpfmt_NAME.c, with the helpers of cmpfmt.h)
 * defining a struct cmp_format cmp_format_NAME, and a line in the
 * registry (compare_fmt.c), which names it. compare calls begin once,
 * comparison once per comparison (a workload, or a part of a suite), and
 * end once, whatever was built (none, when the comparisons could not be
 * built: end still closes what begin opened). */
struct cmp_format {
    enum markup markup;               /* for the readable ones */
    bool human;                       /* read on a terminal (text, markdown) */
    void (*begin)(struct cmp_writer *w);
    void (*comparison)(struct cmp_writer *w, const struct comparison *c, bool long_view);
    /* v: the --fail-on-regression verdict, NULL when not judging. A data
     * format says it on stderr, keeping its output parseable. */
    void (*end)(struct cmp_writer *w, const struct cmp_verdict *v);
};

/* The formats' names for --format (the registry's order, NULL-terminated),
 * and the format of one of them by its index there (the first for one
 * out of range). */
extern const char *const cmp_format_names[];
const struct cmp_format *cmp_format_get(unsigned index);
/* The HTML fragment of one comparison, for the report. */
void compare_render_html(FILE *f, const struct comparison *c, bool long_view);
/* What the abbreviations in the tables stand for ("short names: k1 =
 * linux-image-cloud-amd64, ..."), a line under them; nothing when none is. */
void compare_legend(FILE *f, const struct comparison *c, enum markup mk);
/* The geometric means across workloads (across.h), a line each. */
void compare_across_render(FILE *f, const struct across *across, size_t n, enum markup mk);

#endif
