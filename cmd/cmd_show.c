#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/cli.h"
#include "cmd/parse.h"
#include "store/db.h"
#include "lib/json.h"
#include "store/runinfo.h"
#include "store/texts.h"
#include "lib/quote.h"
#include "reports/label_outliers.h"
#include "reports/summary.h"

static const char *const text_json[] = { "text", "json", NULL };

struct show_opts {
    unsigned format;
    bool output;
};

static const struct opt show_options[] = {
    { .name = "format", .type = OPT_CHOICE, .offset = offsetof(struct show_opts, format), .metavar = "F",
      .words = text_json, .noun = "format", .help = "text or json (default text)" },
    { .name = "output", .type = OPT_FLAG, .offset = offsetof(struct show_opts, output),
      .help = "what the run's command wrote, as kept with it (record --figures, --figure; run fio's JSON), and the "
              "files its figures were read from; control characters shown as \\xNN" },
    { .type = OPT_END },
};

struct output_walk {
    int64_t id;
    size_t n;      /* texts printed so far */
    size_t of;     /* how many the run keeps */
};

/* One kept text on stdout (escaped: cmd_human_output), after a
 * "==> what <==" line when there are several, as tail prints files. */
static int print_text(void *arg, const struct run_text *x)
{
    struct output_walk *w = arg;
    if (w->of > 1)
        printf("%s==> %s <==\n", w->n ? "\n" : "", x->what);
    w->n++;
    if (fwrite(x->data, 1, x->len, stdout) != x->len)
        return -1;
    if (x->cut) {
        char what[1100];
        quote_terminal(x->what, what, sizeof what);
        fprintf(stderr, "pressmark show: run %lld's %s was cut at %zu bytes when it was kept (it went on)\n",
                (long long)w->id, what, x->len);
    }
    return 0;
}

/* The run's kept texts, each inflated, printed and freed in turn: a run
 * keeps up to RUN_TEXTS_MAX_TOTAL of them, never all held at once. */
static int show_output(struct pm_db *db, int64_t id)
{
    struct output_walk w = { .id = id };
    struct pm_err err = { "standard output: a write failed" };   /* print_text's -1 sets no message */
    int n = count_run_texts(db, id, &err);
    if (n == 0) {
        fprintf(stderr, "pressmark show: --output: run %lld kept no output (accepted: a run of record --figures or "
                "--figure, or of run fio)\n", (long long)id);
        return PM_EXIT_USAGE;
    }
    w.of = n > 0 ? (size_t)n : 0;
    if (n < 0 || each_run_text(db, id, print_text, &w, &err) < 0) {
        fflush(stdout);
        fprintf(stderr, "pressmark show: %s\n", err.msg);
        return PM_EXIT_USAGE;
    }
    return fflush(stdout) == 0 ? 0 : PM_EXIT_USAGE;
}

/* The runs as text (a table per workload) or JSON; out: each run's
 * outlier verdict when there are several. */
static void show_runs(struct run_info *runs, int n, bool one_run, const char *sel, unsigned format,
                      const struct label_outlier *out)
{
    if (format == 1) {
        struct jw j;
        jw_init(&j, stdout, true);
        if (one_run) {
            summary_json_run(&j, &runs[0], true, NULL);
        } else {
            jw_object_begin(&j, NULL);
            jw_int(&j, "format_version", PM_JSON_FORMAT_VERSION);
            jw_string(&j, "label", sel);
            jw_array_begin(&j, "runs");
            for (int i = 0; i < n; i++)
                summary_json_run(&j, &runs[i], false, &out[i]);
            jw_array_end(&j);
            jw_object_end(&j);
        }
        jw_end(&j);
    } else {
        /* A label may span workloads: one table per workload. */
        int start = 0;
        for (int i = 1; i <= n; i++) {
            if (i == n || strcmp(runs[i].workload, runs[start].workload) != 0) {
                if (start)
                    putchar('\n');
                summary_print_runs(stdout, runs + start, (size_t)(i - start), one_run, one_run ? NULL : out + start);
                start = i;
            }
        }
    }
}

int cmd_show(int argc, char **argv)
{
    struct show_opts so = { 0, false };
    const struct cmd_group groups[] = { { NULL, show_options, &so }, { "", exp_db_option, NULL } };
    const struct cmd_spec spec = {
        .name = "show", .groups = groups, .ngroups = 2, .max_args = -1,
        .usage = "usage: pressmark show [RUN|UUID|LABEL] [--format text|json] [--db PATH]\n"
                 "       pressmark show --output RUN|UUID [--db PATH]\n\n"
                 "A run's summary in the layout of the 2002 VolanoMark report (label, headline, %CPU,\n"
                 "%sys/%user, Total swpin, Total swpout, Total swapio), its GNU time line, heartbeat,\n"
                 "reclaim and PSI; for a label, every run of it and the average, with an outlier column\n"
                 "when an ok run's headline lies far from the label's other ok runs of its workload\n"
                 "(modified z-score above the critical value for the label's runs, at which a clean\n"
                 "sample is flagged 5 % of the time, judged from 4 runs on, as compare judges; kept in\n"
                 "the mean). Without an argument, the most recent run. JSON carries every stored metric\n"
                 "with its unit, the run's metadata, status and reason, the ticks recorded per source\n"
                 "and, for a label, each run's \"outlier\" (its z-score, or null).\n",
    };
    int optind_ = cmd_parse(&spec, argc, argv);
    if (optind_ < 0)
        return cmd_parse_exit(optind_);
    if (argc - optind_ > 1)
        return cli_usage("show", "one run, UUID or label at a time (got '%s' and '%s')", argv[optind_], argv[optind_ + 1]);
    /* The kept texts are a tool's bytes, shown escaped: JSON of them would
     * be another format, and raw they would break the document. */
    if (so.output && so.format == 1)
        return cli_usage("show", "--output: the run's texts are shown as text, escaped (accepted: --output without "
                                "--format json)");
    struct pm_db db;
    struct pm_err err;
    if (cmd_open_db(&db, "show") != 0)
        return PM_EXIT_USAGE;
    unsigned format = so.format;
    if (format != 1)
        cmd_human_output();
    int64_t *ids = NULL;
    int n;
    bool one_run;
    const char *sel = optind_ < argc ? argv[optind_] : NULL;
    if (sel) {
        n = store_run_select(&db, sel, &ids, &err);
        one_run = n == 1;
    } else {
        int64_t latest = store_run_latest(&db, &err);
        n = latest > 0 ? 1 : (latest < 0 ? -1 : 0);
        if (n == 1 && (ids = malloc(sizeof *ids)))
            ids[0] = latest;
        one_run = true;
    }
    if (n < 0 || (n > 0 && !ids)) {
        fprintf(stderr, "pressmark show: %s\n", err.msg);
        store_db_close(&db);
        return PM_EXIT_USAGE;
    }
    if (n == 0) {
        if (sel)
            fprintf(stderr, "pressmark show: no run, UUID or label '%s' in %s (see 'pressmark list')\n", sel, db.path);
        else
            fprintf(stderr, "pressmark show: no runs in %s yet\n", db.path);
        store_db_close(&db);
        free(ids);
        return PM_EXIT_USAGE;
    }
    if (so.output) {
        int orc = n == 1 ? show_output(&db, ids[0])
                         : cli_usage("show", "--output: '%s' is %d runs (accepted: one run or UUID)", sel, n);
        free(ids);
        store_db_close(&db);
        return orc;
    }
    struct run_info *runs = calloc((size_t)n, sizeof *runs);
    struct label_outlier *out = calloc((size_t)n, sizeof *out);
    int rc = runs && out ? 0 : PM_EXIT_USAGE;
    if (rc)
        fprintf(stderr, "pressmark show: out of memory\n");
    int loaded = 0;
    for (; rc == 0 && loaded < n; loaded++) {
        if (store_run_info_load(&db, ids[loaded], &runs[loaded], &err) < 0) {
            fprintf(stderr, "pressmark show: %s\n", err.msg);
            rc = PM_EXIT_USAGE;
            break;
        }
        cmd_settle_status(&runs[loaded]);
    }
    /* Several runs: each ok run judged among the label's others of its workload. */
    if (rc == 0 && !one_run && label_outliers(runs, (size_t)n, out) < 0) {
        fprintf(stderr, "pressmark show: out of memory\n");
        rc = PM_EXIT_USAGE;
    }
    if (rc == 0)
        show_runs(runs, n, one_run, sel, format, out);
    for (int i = 0; runs && i < loaded; i++)
        store_run_info_free(&runs[i]);
    free(runs);
    free(out);
    free(ids);
    store_db_close(&db);
    return rc;
}
