/* pressmark report: one self-contained HTML page about an experiment: a
 * suite's cells, or every label in the database. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/cli.h"
#include "cmd/parse.h"
#include "experiment/view.h"
#include "store/db.h"
#include "reports/html_report.h"

struct report_opts {
    char out[4096];
    bool has_suite, allow_emulated;
    int64_t suite_id;
};

static int set_suite(void *state, const char *value, struct pm_err *err)
{
    struct report_opts *o = state;
    o->has_suite = true;
    return cli_suite_id(value, &o->suite_id, err);
}

static const struct opt report_options[] = {
    { .name = "out", .type = OPT_STRING, .offset = offsetof(struct report_opts, out), .size = 4096, .metavar = "DIR",
      .def = "out/report", .help = "where report.html and its charts go" },
    { .name = "suite", .type = OPT_CALLBACK, .set = set_suite, .metavar = "[ID]", .flags = OPT_OPTIONAL,
      .help = "the page of a suite (default: the newest): its question, its cells against its baseline\n"
              "                         cell (each part of a workload set otherwise against its own, as in\n"
              "                         compare --suite), its own runs only" },
    { .name = "allow-emulated", .type = OPT_FLAG, .offset = offsetof(struct report_opts, allow_emulated),
      .help = "compare runs made under QEMU's TCG emulation (a kernel suite's VMs without KVM), with a caveat" },
    { .type = OPT_END },
};

/* The suite's comparisons: per group of cells (a workload, or each of
 * its parts set otherwise) its labels, axes and notes. */
static int suite_scope(struct pm_db *db, const struct suite_view *sv, const struct suite_view_groups *gs,
                       struct report_scope *scope, struct report_part *parts, const char **notes,
                       char (*note_text)[96], struct pm_err *err)
{
    if (suite_view_notes(db, sv, note_text, err) < 0)
        return -1;
    size_t used = 0;
    for (size_t g = 0; g < gs->n; g++) {
        const struct suite_view_group *grp = &gs->v[g];
        for (size_t i = 0; i < grp->n; i++)
            for (size_t c = 0; c < sv->ncells; c++)
                if (sv->cells[c].label == grp->labels[i])
                    notes[used + i] = note_text[c];
        parts[g] = (struct report_part){ .workload = grp->workload, .labels = grp->labels, .axes = grp->axes,
                                         .notes = notes + used, .n = grp->n,
                                         .group = grp->name[0] ? grp->name : NULL,
                                         .unjudged = grp->unjudged[0] ? grp->unjudged : NULL };
        used += grp->n;
    }
    *scope = (struct report_scope){ .title = sv->title, .question = sv->question, .suite_uuid = sv->rec.uuid,
                                    .parts = parts, .nparts = gs->n, .ci_conf = suite_view_ci_confidence(sv) };
    return 0;
}

int cmd_report(int argc, char **argv)
{
    struct report_opts o = { .suite_id = 0 };
    const struct cmd_group groups[] = { { NULL, report_options, &o }, { "", exp_db_option, NULL } };
    const struct cmd_spec spec = {
        .name = "report", .groups = groups, .ngroups = 2, .max_args = 0,
        .usage = "usage: pressmark report [--suite [ID]] [--out DIR] [--db PATH]\n\n"
                 "Writes DIR/report.html: one self-contained page, summary first (the question, each\n"
                 "configuration's headline with its 95% confidence interval, its outlier runs each a\n"
                 "link to its row, the ratio sentences), then per workload the comparison (the\n"
                 "VolanoMark report's table, a suite's two axes as rows x columns, every statistic,\n"
                 "environment differences) and the charts inlined as SVG, each configuration in one\n"
                 "colour throughout, then each run's details (an outlier's with a table of its ticks,\n"
                 "at most 200 of them). It loads nothing from the network; the charts' .gp and .dat\n"
                 "files are kept in DIR/charts.\n",
    };
    int r = cmd_parse(&spec, argc, argv);
    if (r < 0)
        return cmd_parse_exit(r);
    struct pm_db db;
    if (cmd_open_db(&db, "report") != 0)
        return PM_EXIT_USAGE;
    struct pm_err err;
    char page[4200];
    int rc;
    if (o.has_suite) {
        struct suite_view sv;
        if (suite_view_load(&db, o.suite_id, &sv, &err) < 0) {
            store_db_close(&db);
            return cli_usage("report", "--suite: %s", err.msg);
        }
        /* A group may hold the baseline cell of another: 2 labels a cell at most. */
        size_t n = sv.ncells ? sv.ncells : 1;
        struct suite_view_groups gs = { 0 };
        struct report_part *parts = calloc(n, sizeof *parts);
        const char **notes = calloc(2 * n, sizeof *notes);
        char (*note_text)[96] = calloc(n, sizeof *note_text);
        struct report_scope scope;
        if (!parts || !notes || !note_text)
            rc = pm_errf(&err, "out of memory");
        else
            rc = suite_view_groups(&sv, &gs, &err);
        if (rc == 0)
            rc = suite_scope(&db, &sv, &gs, &scope, parts, notes, note_text, &err);
        if (rc == 0)
            rc = html_report_write(&db, &scope, o.allow_emulated, o.out, store_db_path(), page, sizeof page, &err);
        suite_view_groups_free(&gs);
        free(parts);
        free(notes);
        free(note_text);
        suite_view_free(&sv);
    } else {
        rc = html_report_write(&db, NULL, o.allow_emulated, o.out, store_db_path(), page, sizeof page, &err);
    }
    store_db_close(&db);
    if (rc < 0)
        return cli_usage("report", "%s", err.msg);
    printf("%s\n", page);
    if (rc > 0) {
        /* Written, but a report without its charts is not what was asked. */
        fprintf(stderr, "pressmark report: charts could not be drawn: %s (%s has the rest)\n", err.msg, page);
        return 1;
    }
    return 0;
}
