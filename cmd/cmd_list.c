#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include "cmd/cli.h"
#include "store/unstored.h"
#include "cmd/parse.h"
#include "store/db.h"
#include "lib/json.h"
#include "lib/units.h"
#include "store/runinfo.h"
#include "reports/summary.h"
#include "reports/table.h"

static const char *const text_json[] = { "text", "json", NULL };

struct list_opts {
    char label[256], workload[64];
    unsigned format;                  /* 0 text, 1 json */
};

#define LO(field) offsetof(struct list_opts, field)
static const struct opt list_options[] = {
    { .name = "label", .type = OPT_STRING, .offset = LO(label), .size = sizeof(((struct list_opts *)0)->label),
      .metavar = "L", .help = "only this label's runs" },
    { .name = "workload", .type = OPT_STRING, .offset = LO(workload),
      .size = sizeof(((struct list_opts *)0)->workload), .metavar = "W", .set = cli_check_workload, .help = "only this workload's runs" },
    { .name = "format", .type = OPT_CHOICE, .offset = LO(format), .metavar = "F", .words = text_json,
      .noun = "format", .help = "text or json (default text)" },
    { .type = OPT_END },
};

/* One run as an object of list's JSON. */
static void json_run(struct jw *j, const struct run_info *ri, const char *hname, const struct metric *h)
{
    jw_object_begin(j, NULL);
    jw_int(j, "id", ri->id);
    jw_string(j, "uuid", ri->uuid);
    jw_int(j, "started_ns", ri->started_ns);
    jw_string(j, "label", ri->label);
    jw_string(j, "workload", ri->workload);
    jw_string(j, "status", ri->status);
    jw_string(j, "headline_metric", hname);
    if (h)
        jw_number(j, "headline", h->value);
    else
        jw_null(j, "headline");
    jw_int(j, "ticks", ri->ticks);
    jw_string(j, "reason", ri->reason[0] ? ri->reason : NULL);
    jw_object_end(j);
}

/* One run as a row of list's table. */
static void text_row(struct table *t, const struct run_info *ri, const char *title, const struct metric *h)
{
    char id[24], started[64], head[160] = "-", ticks[24], q[96];
    snprintf(id, sizeof id, "%lld", (long long)ri->id);
    summary_fmt_time(started, sizeof started, ri->started_ns);
    if (h)
        pm_fmt_quantity(q, sizeof q, h->value, h->unit);
    if (h && strcmp(h->unit, title) == 0)
        snprintf(head, sizeof head, "%s", q);
    else if (h)
        snprintf(head, sizeof head, "%s %s", q, title);
    snprintf(ticks, sizeof ticks, "%lld", (long long)ri->ticks);
    const char *row[] = { id, started, ri->label, ri->workload, ri->status, head, ticks, ri->reason };
    table_add_row(t, row);
}

/* Where list's rows go, as store_run_list_each hands it each run. */
struct list_out {
    struct pm_db *db;
    bool json;
    struct jw j;
    struct table t;
};

/* One run, read in the list's own read: a run removed since the list
 * began is still the one it saw. */
static int list_run(void *ctx, int64_t id, struct pm_err *err)
{
    struct list_out *out = ctx;
    struct run_info ri;
    if (store_run_info_load(out->db, id, &ri, err) < 0)
        return -1;
    cmd_settle_status(&ri);
    const char *title;
    const char *hname = summary_runs_headline(&ri, 1, &title);
    const struct metric *h = metric_set_find(&ri.metrics, hname);
    if (out->json)
        json_run(&out->j, &ri, hname, h);
    else
        text_row(&out->t, &ri, title, h);
    store_run_info_free(&ri);
    return 0;
}

/* Runs whose results wait beside the database are not in it yet. */
static void say_waiting(void)
{
    int waiting = unstored_waiting(store_db_path());
    if (waiting > 0) {
        char dir[PATH_MAX + 16];
        unstored_dir(store_db_path(), dir, sizeof dir);
        fprintf(stderr, "pressmark list: the results of %d run%s wait in %s to be stored (the next pressmark run, "
                "record or suite run stores them)\n", waiting, waiting == 1 ? "" : "s", dir);
    }
}

int cmd_list(int argc, char **argv)
{
    struct list_opts o = { .format = 0 };
    const struct cmd_group groups[] = { { NULL, list_options, &o }, { "", exp_db_option, NULL } };
    const struct cmd_spec spec = {
        .name = "list", .groups = groups, .ngroups = 2, .max_args = 0,
        .usage = "usage: pressmark list [--label L] [--workload W] [--format text|json] [--db PATH]\n\n"
                 "One line per stored run, oldest first: id, start, label, workload, status,\n"
                 "the workload's headline metric, ticks sampled, and why a run did not end ok.\n",
    };
    int first = cmd_parse(&spec, argc, argv);
    if (first < 0)
        return cmd_parse_exit(first);
    const char *label = o.label[0] ? o.label : NULL, *workload = o.workload[0] ? o.workload : NULL;
    struct pm_db db;
    struct pm_err err;
    if (cmd_open_db(&db, "list") != 0)
        return PM_EXIT_USAGE;
    say_waiting();
    struct list_out out = { .db = &db, .json = o.format == 1 };
    if (!out.json)
        cmd_human_output();
    const char *headers[] = { "id", "started", "label", "workload", "status", "headline", "ticks", "reason" };
    const bool right[] = { true, false, false, false, false, true, true, false };
    table_init(&out.t, 8, headers, right);
    if (out.json) {
        jw_init(&out.j, stdout, true);
        jw_object_begin(&out.j, NULL);
        jw_int(&out.j, "format_version", PM_JSON_FORMAT_VERSION);
        jw_array_begin(&out.j, "runs");
    }
    int rc = 0;
    if (store_run_list_each(&db, &(struct run_filter){ .label = label, .workload = workload }, list_run, &out, &err) < 0) {
        fprintf(stderr, "pressmark list: %s\n", err.msg);
        rc = PM_EXIT_USAGE;
    }
    if (out.json) {
        jw_array_end(&out.j);
        jw_object_end(&out.j);
        jw_end(&out.j);
    } else if (out.t.nrows) {
        table_print(&out.t, stdout);
    } else {
        printf("no runs%s%s\n", label ? " for label " : "", label ? label : "");
    }
    table_free(&out.t);
    store_db_close(&db);
    return rc;
}
