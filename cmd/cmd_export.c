/* pressmark export RUN...: runs' samples, metrics or metadata as CSV, JSON
 * lines or line protocol (the writing itself is export/export.c). */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/cli.h"
#include "cmd/parse.h"
#include "lib/alloc.h"
#include "lib/fileio.h"
#include "export/export.h"
#include "store/db.h"
#include "store/runinfo.h"

#define MAX_GLOBS 256

struct export_opts {
    unsigned format;                  /* enum export_format */
    unsigned what;
    char series[8192];                /* every --series, joined by commas */
    bool wide;
    char out[4096];
};

static int set_what(void *state, const char *value, struct pm_err *err)
{
    return export_parse_what(value, &((struct export_opts *)state)->what, err);
}

/* --series may come again: each adds its patterns. */
static int set_series(void *state, const char *value, struct pm_err *err)
{
    struct export_opts *o = state;
    size_t n = strlen(o->series);
    if (n + 1 + strlen(value) >= sizeof o->series)
        return pm_errf(err, "the patterns are too long together (accepted: at most %zu bytes)", sizeof o->series - 1);
    snprintf(o->series + n, sizeof o->series - n, "%s%s", n ? "," : "", value);
    return 0;
}

#define EO(field) offsetof(struct export_opts, field)
static const struct opt export_options[] = {
    { .name = "format", .type = OPT_CHOICE, .offset = EO(format), .metavar = "F", .def = "csv",
      .words = export_format_names, .noun = "format", .help = "the file format; line is InfluxDB line protocol" },
    { .name = "what", .type = OPT_CALLBACK, .set = set_what, .metavar = "WHAT",
      .help = "samples|metrics|meta, or several joined by commas (jsonl, line; default samples)" },
    { .name = "series", .type = OPT_CALLBACK, .set = set_series, .metavar = "GLOB,...",
      .help = "only the series (and metrics) whose name matches a shell pattern, e.g. 'vmstat.pswp*,psi.*'" },
    { .name = "wide", .type = OPT_FLAG, .offset = EO(wide),
      .help = "csv samples: a row per tick, a column per series (gnuplot, spreadsheets)" },
    { .name = "out", .type = OPT_STRING, .offset = EO(out), .size = sizeof(((struct export_opts *)0)->out),
      .metavar = "FILE", .help = "write FILE (whole, or not at all) instead of standard output" },
    { .type = OPT_END },
};

static const char export_usage[] =
    "usage: pressmark export [RUN|UUID|LABEL...] [--format csv|jsonl|line] [--what WHAT] [--series GLOB,...]\n"
    "                        [--wide] [--out FILE] [--db PATH]\n\n"
    "Writes runs for other programs (pandas, R, gnuplot, a spreadsheet, a time-series\n"
    "database) without SQL. Without an argument, the most recent run; a label stands for\n"
    "each of its runs, oldest first; a run named twice goes out once. Streamed: memory\n"
    "does not grow with a run's length. Every row names its run by id, UUID and label.\n"
    "  csv       samples: run,uuid,label,seq,t_ns,time_s,name,value, a row per series\n"
    "            and tick (long form); with --wide run,uuid,label,seq,t_ns,time_s and a\n"
    "            column per series, a row per tick, empty where a series has no value\n"
    "            yet. metrics: run,uuid,label,workload,name,value,unit,direction. meta:\n"
    "            run,uuid,label,key,value. One table a file, so one of the three at a\n"
    "            time. RFC 4180 quoting, lines end in LF; a text field that a spreadsheet\n"
    "            would take as a formula (it starts with =, +, -, @, tab or CR) is quoted\n"
    "            with an apostrophe in front, as compare --format csv writes it.\n"
    "  jsonl     one JSON object a line. A tick: {\"run\", \"uuid\", \"label\", \"seq\",\n"
    "            \"t_ns\", \"values\": {NAME: VALUE, ...}}. With metrics or meta, a run's own\n"
    "            line comes before its ticks: {\"run\", \"uuid\", \"label\", \"workload\",\n"
    "            \"status\", \"host\", \"kernel\", \"started_ns\", \"metrics\": {NAME: {\"value\",\n"
    "            \"unit\", \"direction\"}}, \"metadata\": {KEY: VALUE}}, as show --format json.\n"
    "  line      InfluxDB line protocol exactly as 'pressmark push --samples' sends it: a\n"
    "            tick is a point of pressmark_WORKLOAD_samples at the run's start + t_ns,\n"
    "            the metrics the run's point of pressmark_WORKLOAD; metadata has no place.\n\n"
    "t_ns counts from the run's first tick; time_s is the same in seconds, exactly. Values\n"
    "are exact: whole numbers without a point or an exponent, PSI averages as stored. A\n"
    "--series pattern that matches nothing, an unknown run and a combination the format\n"
    "cannot hold are refused before anything is written; with --out a failure part way\n"
    "leaves FILE as it was. A file of yours that --out replaces lends the new one its\n"
    "permission bits, under the umask (a new file, or one of another user's: 0666\n"
    "under the umask; never a setuid bit). A FIFO with a reader or a character device\n"
    "(/dev/null) of yours or root's is written to, never replaced; one of another\n"
    "user's, a FIFO nobody reads and a symlink are refused.\n";

/* The runs named, in order, each once; none named: the newest. Returns
 * 0, or 2 after the one line. */
static int select_runs(struct pm_db *db, char **sel, int nsel, int64_t **ids, size_t *n)
{
    struct pm_err err;
    size_t cap = 0;
    *ids = NULL;
    *n = 0;
    if (nsel == 0) {
        int64_t latest = store_run_latest(db, &err);
        if (latest < 0)
            return cli_usage("export", "%s", err.msg);
        if (latest == 0)
            return cli_usage("export", "no runs in %s yet", db->path);
        if (!(*ids = malloc(sizeof **ids)))
            return cli_usage("export", "out of memory");
        (*ids)[(*n)++] = latest;
        return 0;
    }
    for (int s = 0; s < nsel; s++) {
        int64_t *got = NULL;
        int k = store_run_select(db, sel[s], &got, &err);
        if (k < 0)
            return cli_usage("export", "%s", err.msg);
        if (k == 0)
            return cli_usage("export", "no run, UUID or label '%s' in %s (see 'pressmark list')", sel[s], db->path);
        for (int j = 0; j < k; j++) {
            size_t d = 0;
            while (d < *n && (*ids)[d] != got[j])
                d++;
            if (d < *n)
                continue;
            if (ALLOC_GROW(*ids, *n + 1, cap) < 0) {
                free(got);
                return cli_usage("export", "out of memory");
            }
            (*ids)[(*n)++] = got[j];
        }
        free(got);
    }
    return 0;
}

/* Split the joined --series patterns in place. */
static size_t split_globs(char *s, const char **globs)
{
    size_t n = 0;
    if (!s[0])
        return 0;
    for (char *p = s; n < MAX_GLOBS; ) {
        globs[n++] = p;
        char *c = strchr(p, ',');
        if (!c)
            break;
        *c = '\0';
        p = c + 1;
    }
    return n;
}

/* Write to standard output or, with --out, a file that appears only
 * once written whole. Returns the exit status. */
static int export_to(struct pm_db *db, const struct export_request *rq, const char *out)
{
    struct pm_err err;
    struct pm_outfile of;
    if (out[0] && pm_outfile_open(&of, out, &err) < 0)
        return cli_usage("export", "--out: %s", err.msg);
    bool written;
    int rc = export_runs(db, rq, out[0] ? of.f : stdout, &written, &err);
    if (rc < 0) {
        if (out[0])
            pm_outfile_abort(&of);
        /* Refused before the first byte, or failed part way: with --out
         * nothing was made either way; on standard output the one line
         * says that what went out is not the whole export. */
        return cli_usage("export", "%s%s", err.msg, written && !out[0] ? " (the output above is incomplete)" : "");
    }
    if (out[0] && pm_outfile_commit(&of) < 0)
        return cli_usage("export", "--out: %s: %s", out, strerror(errno));
    if (!out[0] && fflush(stdout) != 0)
        return cli_usage("export", "writing the export: %s", strerror(errno));
    return 0;
}

int cmd_export(int argc, char **argv)
{
    struct export_opts o = { .wide = false };
    const struct cmd_group groups[] = { { NULL, export_options, &o }, { "", exp_db_option, NULL } };
    const struct cmd_spec spec = { .name = "export", .usage = export_usage, .groups = groups, .ngroups = 2,
                                   .max_args = -1 };
    int first = cmd_parse(&spec, argc, argv);
    if (first < 0)
        return cmd_parse_exit(first);
    const char *globs[MAX_GLOBS];
    struct export_request rq = { .format = (enum export_format)o.format, .what = o.what, .wide = o.wide,
                                 .globs = globs, .nglobs = split_globs(o.series, globs) };
    if (rq.nglobs == MAX_GLOBS && strchr(globs[MAX_GLOBS - 1], ','))
        return cli_usage("export", "--series: more than %d patterns", MAX_GLOBS);
    struct pm_err err;
    /* The format's rules first: a wrong combination needs no database. */
    if (export_check(&rq, &err) < 0)
        return cli_usage("export", "%s", err.msg);
    struct pm_db db;
    if (cmd_open_db(&db, "export") != 0)
        return PM_EXIT_USAGE;
    int64_t *ids = NULL;
    size_t n = 0;
    int rc = select_runs(&db, argv + first, argc - first, &ids, &n);
    if (rc == 0) {
        rq.runs = ids;
        rq.nruns = n;
        rc = export_to(&db, &rq, o.out);
    }
    free(ids);
    store_db_close(&db);
    return rc;
}
