#include "reports/compare.h"
#include <jansson.h>
#include "lib/kv.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "reports/judge.h"
#include "stats/outlier.h"
#include "reports/present.h"
#include "lib/quote.h"
#include "lib/units.h"
#include "store/compare_runs.h"
#include "store/headline.h"
#include "store/history_runs.h"
#include "store/runinfo.h"
#include "metric_names.h"     /* generated from the metric tables (tools/metric-names.awk) */

const char *const cmp_report_metrics[] = {
    MN_stat_cpu_util_pct, MN_stat_cpu_sys_user_ratio, MN_swap_in_kb, MN_swap_out_kb, MN_swap_io_kb, NULL,
};

/* --long adds what kernel reports usually ask next. */
static const char *const long_extra[] = {
    MN_stat_cpu_user_pct, MN_stat_cpu_system_pct, MN_stat_cpu_iowait_pct, MN_time_elapsed_s, MN_time_majflt,
    MN_vmstat_pgmajfault, MN_vmstat_pgscan_total, MN_vmstat_pgsteal_total, MN_vmstat_allocstall,
    MN_reclaim_efficiency_pct, MN_reclaim_direct_scan_pct, MN_reclaim_scan_velocity, MN_reclaim_refaults,
    MN_vmstat_compact_stall, MN_vmstat_thp_fault_fallback, MN_psi_some_s("memory"), MN_psi_full_s("memory"),
    MN_heartbeat_late_p99_ms, MN_heartbeat_skipped, MN_memcg_usage_max_bytes, MN_stall_count("memcg"),
    MN_stall_total_ms("memcg"), MN_stall_p99_us("memcg"), MN_stall_count("direct"), MN_stall_p99_us("direct"),
    MN_stall_count("compaction"), NULL,
};

static const struct { const char *name, *title; } titles[] = {
    { MN_stat_cpu_util_pct, "%CPU" }, { MN_stat_cpu_sys_user_ratio, "%sys/%user" },
    { MN_stat_cpu_user_pct, "%user" }, { MN_stat_cpu_system_pct, "%sys" }, { MN_stat_cpu_iowait_pct, "%iowait" },
    { MN_swap_in_kb, "Total swpin" }, { MN_swap_out_kb, "Total swpout" }, { MN_swap_io_kb, "Total swapio" },
    { MN_time_elapsed_s, "elapsed" }, { MN_heartbeat_late_p99_ms, "beat p99" },
    { MN_chat_latency_p99_us, "p99 us" }, { MN_stutter_hog_mb_per_s, "hog MB/s" },
    { MN_filestream_anon_pages_per_s, "anon pages/s" }, { MN_pgbench_latency_avg_ms, "latency ms" },
    { MN_postgres_hit_pct, "buffer hit %" }, { MN_postgres_temp_files, "temp files" },
};

static void metric_title(const char *name, const char *workload, char *buf, size_t len)
{
    struct wl_present wp;
    if (report_workload(workload, &wp) && strcmp(wp.headline, name) == 0) {
        snprintf(buf, len, "%s", wp.title);
        return;
    }
    for (size_t i = 0; i < sizeof titles / sizeof titles[0]; i++) {
        if (strcmp(titles[i].name, name) == 0) {
            snprintf(buf, len, "%s", titles[i].title);
            return;
        }
    }
    snprintf(buf, len, "%s", name);
}

static int strv_add(char ***v, size_t *n, const char *s)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp((*v)[i], s) == 0)
            return 0;
    char **nv = realloc(*v, (*n + 1) * sizeof *nv);
    if (!nv)
        return -1;
    *v = nv;
    if (!(nv[*n] = strdup(s)))
        return -1;
    (*n)++;
    return 0;
}

/* A workload of the labels' runs, kept once. Workload names become file
 * names and chart titles: only the registry's are taken from a database. */
struct workloads_ctx {
    const char *path;
    char ***out;
    size_t *n;
};

static int add_workload(void *ctx, const char *w, struct pm_err *err)
{
    struct workloads_ctx *wc = ctx;
    char shown[128];
    quote_terminal(w, shown, sizeof shown);
    if (!report_workload_known(w))
        return pm_errf(err, "%s: runs of '%s', which is not a workload this pressmark knows", wc->path, shown);
    if (strv_add(wc->out, wc->n, w) < 0)
        return pm_errf(err, "out of memory");
    return 0;
}

int compare_workloads(struct pm_db *db, const char *const *labels, size_t nlabels, char ***out, size_t *n,
                      struct pm_err *err)
{
    *out = NULL;
    *n = 0;
    struct workloads_ctx wc = { db->path, out, n };
    return store_compare_workloads(db, labels, nlabels, add_workload, &wc, err);
}

static int add_metric(struct comparison *c, const char *name, const char *workload)
{
    for (size_t i = 0; i < c->nmetrics; i++)
        if (strcmp(c->metrics[i].name, name) == 0)
            return 0;
    struct cmp_metric *v = realloc(c->metrics, (c->nmetrics + 1) * sizeof *v);
    if (!v)
        return -1;
    c->metrics = v;
    struct cmp_metric *m = &v[c->nmetrics++];
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "%s", name);
    snprintf(m->unit, sizeof m->unit, "?");
    snprintf(m->direction, sizeof m->direction, "none");
    metric_title(name, workload, m->title, sizeof m->title);
    return 0;
}

static int add_label(struct comparison *c, const char *name)
{
    for (size_t i = 0; i < c->nlabels; i++)
        if (strcmp(c->labels[i].name, name) == 0)
            return 0;
    struct cmp_label *v = realloc(c->labels, (c->nlabels + 1) * sizeof *v);
    if (!v)
        return -1;
    c->labels = v;
    memset(&v[c->nlabels], 0, sizeof v[0]);
    snprintf(v[c->nlabels].name, sizeof v[0].name, "%s", name);
    snprintf(v[c->nlabels].config, sizeof v[0].config, "%s", name);
    c->nlabels++;
    return 0;
}

static int find_metric(const struct comparison *c, const char *name)
{
    for (size_t i = 0; i < c->nmetrics; i++)
        if (strcmp(c->metrics[i].name, name) == 0)
            return (int)i;
    return -1;
}

static int cell_push(struct cmp_cell *cell, int64_t run_id, double v)
{
    double *nv = realloc(cell->values, (cell->n + 1) * sizeof *nv);
    if (!nv)
        return -1;
    cell->values = nv;
    int64_t *ni = realloc(cell->run_ids, (cell->n + 1) * sizeof *ni);
    if (!ni)
        return -1;
    cell->run_ids = ni;
    nv[cell->n] = v;
    ni[cell->n++] = run_id;
    return 0;
}

/* What the reader needs to know differed between the labels' runs. */
static bool env_key_wanted(const char *k)
{
    static const char *exact[] = { "kernel", "cmdline", "thp.enabled", "thp.defrag", "zswap.enabled",
                                   "zswap.compressor", "swap.devices", "cap.method", "cap.limit_bytes",
                                   "cap.swap_limit_bytes", "cap.high_bytes", "cgroup.memory_controllers",
                                   "kernel.version", "kernel.package", "kernel.build_id", "kernel.config",
                                   "vm.accel", "vm.memory", "vm.cpus", "vm.append", "emulated",
                                   "pressmark.version" };
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
        if (strcmp(k, exact[i]) == 0)
            return true;
    return strncmp(k, "sysctl.vm.", 10) == 0 || strncmp(k, "kconfig.", 8) == 0;
}

/* One entry of a run's environment, if the reader needs it. */
static int env_entry(void *ctx, const char *k, const char *value, struct pm_err *err)
{
    if (!env_key_wanted(k))
        return 0;
    char v[2048];
    snprintf(v, sizeof v, "%s", value);
    store_normalise_run_names(v);   /* swap files and cgroups are named after their run */
    return pm_kv_set(ctx, k, v) < 0 ? pm_errf(err, "out of memory") : 0;
}

static int build_env_diffs(struct pm_db *db, struct pm_db *base_db, struct comparison *c, struct pm_err *err)
{
    /* The latest ok run of each label speaks for its environment. */
    struct kv_list *per = calloc(c->nlabels, sizeof *per);
    if (!per)
        return pm_errf(err, "out of memory");
    for (size_t l = 0; l < c->nlabels; l++) {
        if (!c->labels[l].ok)
            continue;
        if (store_compare_env(c->labels[l].foreign && base_db ? base_db : db, c->labels[l].run_ids[c->labels[l].ok - 1],
                              env_entry, &per[l], err) < 0) {
            for (size_t k = 0; k < c->nlabels; k++)
                pm_kv_free(&per[k]);
            free(per);
            return -1;
        }
    }
    /* Every key any label has; a difference is any label disagreeing. */
    for (size_t l = 0; l < c->nlabels; l++) {
        for (size_t i = 0; i < per[l].n; i++) {
            const char *k = per[l].v[i].key;
            bool seen = false;
            for (size_t d = 0; d < c->ndiffs && !seen; d++)
                seen = strcmp(c->diffs[d].key, k) == 0;
            if (seen)
                continue;
            bool differs = false;
            const char *first = NULL;
            for (size_t m = 0; m < c->nlabels; m++) {
                if (!c->labels[m].ok)
                    continue;
                const char *v = pm_kv_get(&per[m], k);
                if (!v)
                    v = "(absent)";
                if (!first)
                    first = v;
                else if (strcmp(first, v) != 0)
                    differs = true;
            }
            if (!differs)
                continue;
            struct cmp_env_diff *nd = realloc(c->diffs, (c->ndiffs + 1) * sizeof *nd);
            if (!nd)
                break;
            c->diffs = nd;
            struct cmp_env_diff *d = &nd[c->ndiffs++];
            snprintf(d->key, sizeof d->key, "%s", k);
            d->values = calloc(c->nlabels, sizeof *d->values);
            for (size_t m = 0; d->values && m < c->nlabels; m++) {
                const char *v = pm_kv_get(&per[m], k);
                d->values[m] = strdup(!c->labels[m].ok ? "(no ok run)" : v ? v : "(absent)");
            }
        }
    }
    for (size_t l = 0; l < c->nlabels; l++)
        pm_kv_free(&per[l]);
    free(per);
    return 0;
}

/* Counts by status and the ok runs' ids of one label, from its database. */
static int count_run(void *ctx, int64_t id, const char *status, struct pm_err *err)
{
    struct cmp_label *lb = ctx;
    lb->runs++;
    if (strcmp(status, "ok") == 0) {
        int64_t *v = realloc(lb->run_ids, (lb->ok + 1) * sizeof *v);
        if (!v)
            return pm_errf(err, "out of memory");
        lb->run_ids = v;
        v[lb->ok++] = id;
    } else if (strcmp(status, "failed") == 0) {
        lb->failed++;
    } else if (strcmp(status, "oom") == 0) {
        lb->oom++;
    } else if (strcmp(status, "aborted") == 0) {
        lb->aborted++;
    }
    return 0;
}

/* The label a label's runs are read by: none (any) for a foreign
 * baseline that names no label. */
static const char *label_query(const struct cmp_label *lb)
{
    return lb->any_label ? NULL : lb->query[0] ? lb->query : lb->name;
}

static int load_label(struct pm_db *db, const char *workload, const char *suite, struct cmp_label *lb,
                      struct pm_err *err)
{
    return store_compare_runs(db, workload, label_query(lb), suite, count_run, lb, err);
}

/* One metric value of one of label l's ok runs, into its cell. */
struct values_ctx {
    struct comparison *c;
    size_t l;
};

static int add_value(void *ctx, int64_t run_id, const char *name, double value, const char *unit,
                     const char *direction, struct pm_err *err)
{
    struct values_ctx *vc = ctx;
    struct comparison *c = vc->c;
    int m = find_metric(c, name);
    if (m < 0)
        return 0;
    snprintf(c->metrics[m].unit, sizeof c->metrics[m].unit, "%s", unit);
    snprintf(c->metrics[m].direction, sizeof c->metrics[m].direction, "%s", direction);
    if (cell_push(cmp_cell_at(c, vc->l, (size_t)m), run_id, value) < 0)
        return pm_errf(err, "out of memory");
    return 0;
}

/* The metric values of one label's ok runs: failed, oom and aborted runs
 * are counted in load_label and never averaged in. */
static int load_values(struct pm_db *db, struct comparison *c, size_t l, const char *suite, struct pm_err *err)
{
    struct values_ctx vc = { c, l };
    return store_compare_values(db, c->workload, label_query(&c->labels[l]), suite, add_value, &vc, err);
}

static int label_emulated(struct pm_db *db, struct cmp_label *lb, struct pm_err *err)
{
    return store_run_meta_any(db, lb->run_ids, lb->ok, "emulated", "yes", &lb->emulated, err);
}

/* With --baseline-db the baseline is named after its database, and reads
 * every run of the workload there unless --baseline names one label. */
static int add_baseline(const struct compare_request *rq, struct comparison *c)
{
    if (rq->baseline_db) {
        char name[256];
        snprintf(name, sizeof name, "%s (%s)", rq->baseline ? rq->baseline : "baseline",
                 rq->baseline_db_name ? rq->baseline_db_name : "baseline database");
        if (add_label(c, name) < 0)
            return -1;
        c->labels[0].foreign = true;
        c->labels[0].any_label = !rq->baseline;
        if (rq->baseline)
            snprintf(c->labels[0].query, sizeof c->labels[0].query, "%s", rq->baseline);
    } else if (rq->baseline && add_label(c, rq->baseline) < 0) {
        return -1;
    }
    return 0;
}

static int label_of_workload(void *ctx, const char *name, struct pm_err *err)
{
    return add_label(ctx, name) < 0 ? pm_errf(err, "out of memory") : 0;
}

/* Labels: the baseline first (from its own database with --baseline-db),
 * then as given, or every label of the workload. With no label at all
 * there is nothing to compare. */
static int choose_labels(struct pm_db *db, const struct compare_request *rq, struct comparison *c, struct pm_err *err)
{
    if (add_baseline(rq, c) < 0)
        return pm_errf(err, "out of memory");
    for (size_t i = 0; i < rq->nlabels; i++)
        if (add_label(c, rq->labels[i]) < 0)
            return pm_errf(err, "out of memory");
    if (rq->nlabels == 0 && store_compare_labels(db, rq->workload, label_of_workload, c, err) < 0)
        return -1;
    if (c->nlabels == 0)
        return pm_errf(err, "no runs of workload %s", rq->workload);
    return 0;
}

/* --long ends with the workload's own figures, as mmtests' compare shows
 * each benchmark's extracted figures: the server's view (Redis INFO,
 * memcached stats, PostgreSQL's buffer hits) beside the kernel's. A
 * latency histogram's p99 stands for it; a figure with a "<word>" in
 * its name is a family that has no single name, left to --metric. */
static void add_own_figures(struct comparison *c, const struct metric_group *g, const char *workload)
{
    for (size_t i = 0; g && i < g->n; i++) {
        const struct metric_def *d = &g->defs[i];
        if (strchr(d->name, '<'))
            continue;
        char name[sizeof c->metrics[0].name];
        int w = snprintf(name, sizeof name, "%s%s", d->name, d->latency ? "_p99_us" : "");
        if (w > 0 && (size_t)w < sizeof name && strcmp(name, c->headline) != 0)
            add_metric(c, name, workload);
    }
}

/* Metrics: the headline first, then as asked, or else the workload's own
 * figures and the reports' table (wider with --long). shown is left with
 * the workload's presentation: the sentences judge its figures too. */
static void choose_metrics(struct comparison *c, const struct compare_request *rq, struct wl_present *shown)
{
    const char *workload = rq->workload;
    add_metric(c, c->headline, workload);
    report_workload(workload, shown);
    if (rq->nmetrics) {
        for (size_t i = 0; i < rq->nmetrics; i++)
            add_metric(c, rq->metrics[i], workload);
        c->nprimary = c->nmetrics;
    } else {
        for (size_t i = 0; shown->compare_also && shown->compare_also[i]; i++)
            add_metric(c, shown->compare_also[i], workload);
        for (size_t i = 0; cmp_report_metrics[i]; i++)
            add_metric(c, cmp_report_metrics[i], workload);
        c->nprimary = c->nmetrics;
        for (size_t i = 0; rq->long_view && long_extra[i]; i++)
            if (strcmp(long_extra[i], c->headline) != 0)
                add_metric(c, long_extra[i], workload);
        if (rq->long_view)
            add_own_figures(c, shown->figures, workload);
    }
}

/* Each label is read from its own database: a foreign baseline's runs
 * are not limited to this suite's. */
static int load_cells(struct pm_db *db, const struct compare_request *rq, struct comparison *c, struct pm_err *err)
{
    c->cells = calloc(c->nlabels * c->nmetrics, sizeof *c->cells);
    if (!c->cells)
        return pm_errf(err, "out of memory");
    for (size_t l = 0; l < c->nlabels; l++) {
        struct pm_db *from = c->labels[l].foreign ? rq->baseline_db : db;
        const char *suite = c->labels[l].foreign ? NULL : rq->suite_uuid;
        if (load_label(from, rq->workload, suite, &c->labels[l], err) < 0 || load_values(from, c, l, suite, err) < 0)
            return -1;
    }
    return 0;
}

/* Timings taken under TCG measure QEMU's emulation as much as the
 * kernel: not presented as kernel results unless asked for. */
static int check_emulated(struct pm_db *db, const struct compare_request *rq, struct comparison *c, struct pm_err *err)
{
    char emulated[512] = "";
    for (size_t l = 0; l < c->nlabels; l++) {
        struct pm_db *from = c->labels[l].foreign ? rq->baseline_db : db;
        if (label_emulated(from, &c->labels[l], err) < 0)
            return -1;
        if (c->labels[l].emulated) {
            size_t o = strlen(emulated);
            snprintf(emulated + o, sizeof emulated - o, "%s%s", c->nemulated++ ? ", " : "", c->labels[l].name);
        }
    }
    if (c->nemulated && !rq->allow_emulated)
        return pm_errf(err, "the runs of %s ran under QEMU's TCG emulation (no KVM): their timings measure the emulator "
                       "as much as the kernel, so they are not compared as kernel results (accepted: --allow-emulated "
                       "to compare them with that caveat)", emulated);
    return 0;
}

/* A metric's cells are all summarised before any is tested: each test is
 * against the baseline's summary of the same metric. */
static int summarise_cells(struct comparison *c, struct pm_err *err)
{
    for (size_t i = 0; i < c->nlabels * c->nmetrics; i++) {
        struct cmp_cell *cell = &c->cells[i];
        double *sorted = malloc((cell->n ? cell->n : 1) * sizeof *sorted);
        if (!sorted)
            return pm_errf(err, "out of memory");
        if (cell->n)
            memcpy(sorted, cell->values, cell->n * sizeof *sorted);
        stats_summary(sorted, cell->n, &cell->s);
        free(sorted);
    }
    if (judge_cells(c) < 0)
        return pm_errf(err, "out of memory");
    return 0;
}

/* Leave run id's values out of every metric of label l. */
static void drop_run(struct comparison *c, size_t l, int64_t id)
{
    for (size_t m = 0; m < c->nmetrics; m++) {
        struct cmp_cell *cell = cmp_cell_at(c, l, m);
        size_t k = 0;
        for (size_t i = 0; i < cell->n; i++)
            if (cell->run_ids[i] != id) {
                cell->values[k] = cell->values[i];
                cell->run_ids[k++] = cell->run_ids[i];
            }
        cell->n = k;
    }
}

/* Runs whose headline lies far from their label's other runs: each
 * label's list, and with exclude the runs taken out of all its cells. */
static int flag_outliers(struct comparison *c, bool exclude, struct pm_err *err)
{
    for (size_t l = 0; l < c->nlabels; l++) {
        struct cmp_label *lb = &c->labels[l];
        const struct cmp_cell *h = cmp_cell_at(c, l, 0);
        size_t n = h->n;
        double *z = malloc((n ? n : 1) * sizeof *z);
        bool *flag = malloc((n ? n : 1) * sizeof *flag);
        lb->outliers = calloc(n ? n : 1, sizeof *lb->outliers);
        int k = z && flag && lb->outliers ? stats_outliers(h->values, n, z, flag) : -1;
        for (size_t i = 0; k > 0 && i < n; i++)
            if (flag[i])
                lb->outliers[lb->noutliers++] = (struct cmp_outlier){ h->run_ids[i], h->values[i], z[i] };
        free(z);
        free(flag);
        if (k < 0)
            return pm_errf(err, "out of memory");
        for (size_t i = 0; exclude && i < lb->noutliers; i++)
            drop_run(c, l, lb->outliers[i].run_id);
        lb->outliers_excluded = exclude && lb->noutliers > 0;
    }
    return 0;
}

/* Runs that name their own headline (a record's figures) and agree on it
 * are compared on it, its unit the column's title (unit: "" otherwise). */
static int runs_headline(struct pm_db *db, const struct compare_request *rq, struct comparison *c, char *unit,
                         size_t ulen, struct pm_err *err)
{
    char seen[sizeof c->headline] = "";
    bool differ = false;
    unit[0] = '\0';
    for (size_t l = 0; l < c->nlabels && !differ; l++)
        if (store_label_headline(c->labels[l].foreign ? rq->baseline_db : db, rq->workload, c->labels[l].name, seen,
                                 sizeof seen, unit, ulen, &differ, err) < 0)
            return -1;
    if (!seen[0] || differ) {
        unit[0] = '\0';
        return 0;
    }
    snprintf(c->headline, sizeof c->headline, "%s", seen);
    return 0;
}

int compare_build(struct pm_db *db, const struct compare_request *rq, struct comparison *c, struct pm_err *err)
{
    memset(c, 0, sizeof *c);
    const char *workload = rq->workload;
    snprintf(c->workload, sizeof c->workload, "%s", workload);
    snprintf(c->group, sizeof c->group, "%s", rq->group ? rq->group : "");
    snprintf(c->unjudged, sizeof c->unjudged, "%s", rq->unjudged ? rq->unjudged : "");
    c->alpha = rq->alpha;
    c->user_metrics = rq->nmetrics > 0;
    c->resamples = rq->resamples;
    c->seed = rq->seed ? rq->seed : BOOT_DEFAULT_SEED;
    struct wl_present wp;
    report_workload(workload, &wp);
    snprintf(c->headline, sizeof c->headline, "%s", wp.headline);

    if (choose_labels(db, rq, c, err) < 0)
        return -1;
    char unit[16];
    if (runs_headline(db, rq, c, unit, sizeof unit, err) < 0)
        return -1;
    c->base = 0;
    struct wl_present shown;
    choose_metrics(c, rq, &shown);
    if (unit[0])
        snprintf(c->metrics[0].title, sizeof c->metrics[0].title, "%s", unit);
    if (load_cells(db, rq, c, err) < 0 || check_emulated(db, rq, c, err) < 0 ||
        flag_outliers(c, rq->exclude_outliers, err) < 0 || summarise_cells(c, err) < 0)
        return -1;
    struct comparison *one = c;
    if (compare_judge(&one, 1, rq->alpha) < 0)
        return pm_errf(err, "out of memory");
    if (compare_short_names(c, NULL, err) < 0)
        return -1;
    return build_env_diffs(db, rq->baseline_db, c, err);
}

void compare_title(const struct comparison *c, char *buf, size_t len)
{
    if (c->group[0])
        snprintf(buf, len, "%s (%s)", c->workload, c->group);
    else
        snprintf(buf, len, "%s", c->workload);
}

void compare_slug(const struct comparison *c, char *buf, size_t len)
{
    char name[200];
    snprintf(name, sizeof name, "%s%s%s", c->workload, c->group[0] ? "." : "", c->group);
    quote_slug(name, buf, len);
}

/* The value of axis key in a flat JSON object of strings. */
static int axis_pairs(const char *json, char keys[2][64], char vals[2][256])
{
    json_error_t e;
    json_t *o = json_loads(json, 0, &e);
    int n = 0;
    if (!json_is_object(o)) {
        json_decref(o);
        return -1;
    }
    const char *k;
    json_t *v;
    json_object_foreach(o, k, v) {
        if (n < 2 && json_is_string(v)) {
            snprintf(keys[n], 64, "%s", k);
            snprintf(vals[n], 256, "%s", json_string_value(v));
        }
        n++;
    }
    json_decref(o);
    return n;
}

static int grid_index(char ***v, size_t *n, const char *s)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp((*v)[i], s) == 0)
            return (int)i;
    char **nv = realloc(*v, (*n + 1) * sizeof *nv);
    if (!nv)
        return -1;
    *v = nv;
    if (!(nv[*n] = strdup(s)))
        return -1;
    return (int)(*n)++;
}

static void grid_free(struct cmp_grid *g)
{
    if (!g)
        return;
    for (size_t i = 0; i < g->nrows; i++)
        free(g->rows[i]);
    for (size_t i = 0; i < g->ncols; i++)
        free(g->cols[i]);
    free(g->rows);
    free(g->cols);
    free(g->label);
    free(g);
}

int compare_grid(struct comparison *c, const char *const *axes_json, struct pm_err *err)
{
    /* A suite's axes name the abbreviations' letters (k1, k2: kernels). */
    if (compare_short_names(c, axes_json, err) < 0)
        return -1;
    for (size_t l = 0; l < c->nlabels; l++)
        if (axes_json[l])
            snprintf(c->labels[l].config, sizeof c->labels[l].config, "%s", axes_json[l]);
    char first[2][64] = { "", "" };
    struct cmp_grid *g = calloc(1, sizeof *g);
    if (!g)
        return pm_errf(err, "out of memory");
    int *row = calloc(c->nlabels ? c->nlabels : 1, sizeof *row), *col = calloc(c->nlabels ? c->nlabels : 1, sizeof *col);
    bool ok = row && col && c->nlabels > 1;
    for (size_t l = 0; ok && l < c->nlabels; l++) {
        char keys[2][64], vals[2][256];
        ok = axes_json[l] && axis_pairs(axes_json[l], keys, vals) == 2;
        /* A kernel comparison reads kernel by kernel: kernels are the rows. */
        if (ok && strcmp(keys[1], "kernel") == 0) {
            char tk[64], tv[256];
            memcpy(tk, keys[0], sizeof tk);
            memcpy(keys[0], keys[1], sizeof tk);
            memcpy(keys[1], tk, sizeof tk);
            memcpy(tv, vals[0], sizeof tv);
            memcpy(vals[0], vals[1], sizeof tv);
            memcpy(vals[1], tv, sizeof tv);
        }
        if (ok && l == 0) {
            memcpy(first, keys, sizeof first);
            snprintf(g->row_axis, sizeof g->row_axis, "%s", keys[0]);
            snprintf(g->col_axis, sizeof g->col_axis, "%s", keys[1]);
        }
        ok = ok && strcmp(keys[0], first[0]) == 0 && strcmp(keys[1], first[1]) == 0;
        if (ok) {
            row[l] = grid_index(&g->rows, &g->nrows, vals[0]);
            col[l] = grid_index(&g->cols, &g->ncols, vals[1]);
            ok = row[l] >= 0 && col[l] >= 0;
        }
    }
    if (ok && g->nrows > 1 && g->ncols > 1 && (g->label = malloc(g->nrows * g->ncols * sizeof *g->label))) {
        for (size_t i = 0; i < g->nrows * g->ncols; i++)
            g->label[i] = -1;
        for (size_t l = 0; l < c->nlabels; l++)
            g->label[(size_t)row[l] * g->ncols + (size_t)col[l]] = (int)l;
        c->grid = g;
        g = NULL;
    }
    grid_free(g);
    free(row);
    free(col);
    return 0;
}

void compare_free(struct comparison *c)
{
    grid_free(c->grid);
    c->grid = NULL;
    for (size_t i = 0; c->cells && i < c->nlabels * c->nmetrics; i++) {
        free(c->cells[i].values);
        free(c->cells[i].run_ids);
    }
    free(c->cells);
    for (size_t l = 0; l < c->nlabels; l++) {
        free(c->labels[l].run_ids);
        free(c->labels[l].outliers);
    }
    free(c->labels);
    free(c->metrics);
    for (size_t d = 0; d < c->ndiffs; d++) {
        for (size_t l = 0; c->diffs[d].values && l < c->nlabels; l++)
            free(c->diffs[d].values[l]);
        free(c->diffs[d].values);
    }
    free(c->diffs);
    free(c->abbrevs);
    memset(c, 0, sizeof *c);
}
