#include "reports/history.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "lib/quote.h"
#include "reports/present.h"
#include "store/headline.h"
#include "store/runinfo.h"

/* Which label and workload: the label must have ok runs, and of one
 * workload unless the request names it. */
static int pick_workload(struct pm_db *db, const struct history_request *rq, struct history *h, struct pm_err *err)
{
    char shown[300], w0[64], w1[64];
    quote_terminal(rq->label, shown, sizeof shown);
    size_t nw = 0, any = 0;
    if (store_history_workloads(db, rq->label, &nw, w0, w1, err) < 0 ||
        store_run_label_count(db, rq->label, &any, err) < 0)
        return -1;
    if (any == 0)
        return pm_errf(err, "'%s' has no runs in %s (see 'pressmark list')", shown, db->path);
    if (nw == 0)
        return pm_errf(err, "'%s' has no ok runs in %s: a history counts only ok runs", shown, db->path);
    if (!rq->workload && nw > 1) {
        char a[80], b[80];
        quote_terminal(w0, a, sizeof a);
        quote_terminal(w1, b, sizeof b);
        return pm_errf(err, "--workload: '%s' has runs of %zu workloads (%s, %s%s); --workload picks one", shown, nw, a,
                       b, nw > 2 ? ", ..." : "");
    }
    snprintf(h->label, sizeof h->label, "%s", rq->label);
    snprintf(h->workload, sizeof h->workload, "%s", rq->workload ? rq->workload : w0);
    return 0;
}

/* The metric: asked for, or the headline as compare takes it: the one the
 * label's runs name themselves (a record's figures), else the workload's. */
static int pick_metric(struct pm_db *db, const struct history_request *rq, struct history *h, struct pm_err *err)
{
    struct wl_present wp;
    report_workload(h->workload, &wp);
    char own[96] = "", unit[16] = "";
    bool differ = false;
    if (store_label_headline(db, h->workload, h->label, own, sizeof own, unit, sizeof unit, &differ, err) < 0)
        return -1;
    const char *headline = own[0] && !differ ? own : wp.headline, *title = own[0] && !differ ? unit : wp.title;
    snprintf(h->metric, sizeof h->metric, "%s", rq->metric ? rq->metric : headline);
    snprintf(h->title, sizeof h->title, "%s", strcmp(h->metric, headline) == 0 ? title : h->metric);
    return 0;
}

/* Every run of the cell, with the metric: one it does not store at all
 * is the caller's bad input, named with what it does store. */
static int load_runs(struct pm_db *db, const struct history_request *rq, struct history *h, struct pm_err *err)
{
    if (store_history_load(db, h->label, h->workload, h->metric, &h->runs, err) < 0)
        return -1;
    char shown[300], metric[200], wl[80];
    quote_terminal(h->label, shown, sizeof shown);
    quote_terminal(h->metric, metric, sizeof metric);
    quote_terminal(h->workload, wl, sizeof wl);
    if (h->runs.n == 0)
        return pm_errf(err, "--workload: '%s' has no ok runs of workload %s", shown, wl);
    size_t emulated = 0;
    for (size_t i = 0; i < h->runs.n; i++) {
        h->missing += isnan(h->runs.v[i].value);
        emulated += h->runs.v[i].emulated;
    }
    if (h->missing == h->runs.n && rq->absent_ok) {
        h->metric_absent = true;
        return 0;
    }
    if (h->missing == h->runs.n) {
        char names[400], safe[500];
        if (store_history_metric_names(db, h->label, h->workload, names, sizeof names, err) < 0)
            return -1;
        quote_terminal(names, safe, sizeof safe);
        return pm_errf(err, "--metric: '%s' is not a metric the runs of %s (%s) store (accepted: %s)", metric, shown,
                       wl, safe);
    }
    if (emulated && !rq->allow_emulated)
        return pm_errf(err, "%zu runs of %s ran under QEMU's TCG emulation (no KVM): their timings measure the "
                       "emulator as much as the kernel, so they are not shown as kernel results (accepted: "
                       "--allow-emulated to show them with that caveat)", emulated, shown);
    h->emulated = emulated > 0;
    snprintf(h->unit, sizeof h->unit, "%s", h->runs.unit);
    snprintf(h->direction, sizeof h->direction, "%s", h->runs.direction);
    return 0;
}

/* A night's key: its suite run, or the UTC day of a run outside any. */
static int64_t day_of(int64_t ns)
{
    int64_t s = ns / 1000000000ll - (ns % 1000000000ll < 0);
    return s / 86400 - (s % 86400 < 0);
}

static bool same_night(const struct hist_night *n, int64_t day, const struct hist_run *r)
{
    if (r->suite_uuid[0])
        return n->suite && strcmp(n->suite_uuid, r->suite_uuid) == 0;
    return !n->suite && day_of(n->first_ns) == day;
}

/* A suite night is named to the second, as the nightly names its
 * directories (2026-12-01T023000Z): nights run back to back, as a test
 * of the nightly runs them, begin within one minute. */
static void night_id(struct hist_night *n)
{
    time_t t = (time_t)(n->first_ns / 1000000000ll);
    struct tm tm;
    if (!gmtime_r(&t, &tm) || !strftime(n->id, sizeof n->id, n->suite ? "%Y-%m-%dT%H%M%SZ" : "%Y-%m-%d", &tm))
        snprintf(n->id, sizeof n->id, "%s", "?");
}

/* Each run's night, nights in the order their first runs started (the
 * runs come by start). A night's runs are mostly each other's
 * neighbours: the search starts from the newest night. */
static int group_nights(struct history *h, size_t *night_of)
{
    for (size_t i = 0; i < h->runs.n; i++) {
        const struct hist_run *r = &h->runs.v[i];
        int64_t day = day_of(r->started_ns);
        size_t k = h->nnights;
        while (k > 0 && !same_night(&h->nights[k - 1], day, r))
            k--;
        if (k == 0) {
            struct hist_night *v = realloc(h->nights, (h->nnights + 1) * sizeof *v);
            if (!v)
                return -1;
            h->nights = v;
            struct hist_night *n = &v[h->nnights++];
            *n = (struct hist_night){ .suite = r->suite_uuid[0] != '\0', .suite_uuid = r->suite_uuid,
                                      .suite_name = r->suite_name, .first_ns = r->started_ns,
                                      .settings = r->settings, .point = -1, .change = -1 };
            night_id(n);
            h->suite_nights += n->suite;
            k = h->nnights;
        }
        night_of[i] = k - 1;
    }
    return 0;
}

/* Add v to a ", "-joined list unless it is there. */
static void add_distinct(char *list, size_t len, const char *v)
{
    size_t vl = strlen(v);
    for (const char *p = list; *p;) {
        const char *e = strstr(p, ", ");
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == vl && strncmp(p, v, vl) == 0)
            return;
        p = e ? e + 2 : p + l;
    }
    size_t o = strlen(list);
    snprintf(list + o, len - o, "%s%s", o ? ", " : "", v);
}

/* The values night by night, and each night's summary, kernels, versions. */
static int night_values(struct history *h, const size_t *night_of)
{
    size_t nv = h->runs.n - h->missing;
    h->values = malloc((nv ? nv : 1) * sizeof *h->values);
    h->value_run = malloc((nv ? nv : 1) * sizeof *h->value_run);
    if (!h->values || !h->value_run)
        return -1;
    for (size_t i = 0; i < h->runs.n; i++) {
        struct hist_night *n = &h->nights[night_of[i]];
        n->runs++;
        n->n += !isnan(h->runs.v[i].value);
        add_distinct(n->kernels, sizeof n->kernels, h->runs.v[i].kernel);
        add_distinct(n->versions, sizeof n->versions, h->runs.v[i].version[0] ? h->runs.v[i].version : "?");
        n->mixed_settings |= strcmp(n->settings, h->runs.v[i].settings) != 0;
    }
    size_t o = 0;
    for (size_t k = 0; k < h->nnights; k++) {
        h->nights[k].first = o;
        o += h->nights[k].n;
        h->nights[k].n = 0;
    }
    for (size_t i = 0; i < h->runs.n; i++) {
        if (isnan(h->runs.v[i].value))
            continue;
        struct hist_night *n = &h->nights[night_of[i]];
        h->values[n->first + n->n] = h->runs.v[i].value;
        h->value_run[n->first + n->n++] = i;
    }
    h->nvalues = o;
    double *sorted = malloc((nv ? nv : 1) * sizeof *sorted);
    if (!sorted)
        return -1;
    memcpy(sorted, h->values, nv * sizeof *sorted);
    for (size_t k = 0; k < h->nnights; k++)
        stats_summary(sorted + h->nights[k].first, h->nights[k].n, &h->nights[k].s);
    free(sorted);
    return 0;
}

/* One "key=value" line of a settings text: its key's length, or 0. */
static size_t key_len(const char *line, size_t len)
{
    const char *eq = memchr(line, '=', len);
    return eq ? (size_t)(eq - line) : 0;
}

/* The value of key (klen bytes) in settings s, its length in *vl; NULL when absent. */
static const char *setting(const char *s, const char *key, size_t klen, size_t *vl)
{
    for (const char *p = s; *p;) {
        const char *e = strchr(p, '\n');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (key_len(p, l) == klen && strncmp(p, key, klen) == 0) {
            *vl = l - klen - 1;
            return p + klen + 1;
        }
        p = e ? e + 1 : p + l;
    }
    return NULL;
}

static void append(char *buf, size_t len, const char *key, size_t klen, const char *v, size_t vl)
{
    size_t o = strlen(buf);
    snprintf(buf + o, len - o, "%s%.*s%s%.*s", o ? "; " : "", (int)klen, key, klen ? "=" : "", v ? (int)vl : 8,
             v ? v : "(absent)");
}

/* The next option of a command line's options ("--heap 32M"): from p to
 * the next " --" or the end, its length in *l; NULL at the end. */
static const char *next_option(const char *p, const char *end, size_t *l)
{
    while (p < end && *p == ' ')
        p++;
    if (p >= end)
        return NULL;
    const char *e = p + 1;
    while (e < end && !(e[0] == ' ' && e + 2 < end && e[1] == '-' && e[2] == '-'))
        e++;
    *l = (size_t)(e - p);
    return p;
}

static bool has_option(const char *s, size_t len, const char *opt, size_t ol)
{
    size_t l;
    for (const char *p = next_option(s, s + len, &l); p; p = next_option(p + l, s + len, &l))
        if (l == ol && memcmp(p, opt, ol) == 0)
            return true;
    return false;
}

/* Two runs' options, as the options each has that the other has not
 * ("--heap 32M" against "--heap 64M"), not as two long lines. */
static void params_diff(const char *a, size_t al, const char *b, size_t bl, struct hist_event *ev)
{
    for (int side = 0; side < 2; side++) {
        const char *s = side ? b : a, *o = side ? a : b;
        size_t sl = side ? bl : al, olen = side ? al : bl, l;
        char *buf = side ? ev->after : ev->before;
        size_t len = side ? sizeof ev->after : sizeof ev->before;
        for (const char *p = next_option(s, s + sl, &l); p; p = next_option(p + l, s + sl, &l))
            if (!has_option(o, olen, p, l))
                append(buf, len, "", 0, p, l);
    }
}

/* What differs between two nights' settings: each key whose value
 * changed, with its value on either side ("(absent)" where it had none);
 * the options as the options that differ. */
static void settings_diff(const char *a, const char *b, struct hist_event *ev)
{
    for (int side = 0; side < 2; side++) {
        const char *from = side ? b : a, *other = side ? a : b;
        for (const char *p = from; *p;) {
            const char *e = strchr(p, '\n');
            size_t l = e ? (size_t)(e - p) : strlen(p);
            size_t kl = key_len(p, l), vl = 0, ol = 0;
            const char *v = kl ? setting(from, p, kl, &vl) : NULL, *o = kl ? setting(other, p, kl, &ol) : NULL;
            bool differs = kl && (!o || ol != vl || memcmp(o, v, vl) != 0);
            size_t had = strlen(ev->before) + strlen(ev->after);
            if (differs && !side && o && kl == 6 && strncmp(p, "params", 6) == 0)
                params_diff(v, vl, o, ol, ev);
            /* Keys both have are listed from the first side only; options
             * that differ only in order or spacing are said whole. */
            if (differs && had == strlen(ev->before) + strlen(ev->after) && !(side && o)) {
                append(ev->before, sizeof ev->before, p, kl, side ? o : v, side ? ol : vl);
                append(ev->after, sizeof ev->after, p, kl, side ? v : o, side ? vl : ol);
            }
            p = e ? e + 1 : p + l;
        }
    }
}

static int add_event(struct history *h, enum hist_event_kind kind, size_t night, const char *before,
                     const char *after)
{
    struct hist_event *v = realloc(h->events, (h->nevents + 1) * sizeof *v);
    if (!v)
        return -1;
    h->events = v;
    struct hist_event *ev = &v[h->nevents++];
    *ev = (struct hist_event){ .kind = kind, .night = night };
    if (kind == HIST_SETTINGS) {
        settings_diff(before, after, ev);
    } else {
        snprintf(ev->before, sizeof ev->before, "%s", before);
        snprintf(ev->after, sizeof ev->after, "%s", after);
    }
    return 0;
}

/* Where the kernel, the settings or pressmark changed from one night to the next. */
static int find_events(struct history *h)
{
    for (size_t k = 1; k < h->nnights; k++) {
        const struct hist_night *a = &h->nights[k - 1], *b = &h->nights[k];
        if ((strcmp(a->kernels, b->kernels) != 0 && add_event(h, HIST_KERNEL, k, a->kernels, b->kernels) < 0) ||
            (strcmp(a->settings, b->settings) != 0 && add_event(h, HIST_SETTINGS, k, a->settings, b->settings) < 0) ||
            (strcmp(a->versions, b->versions) != 0 && add_event(h, HIST_VERSION, k, a->versions, b->versions) < 0))
            return -1;
    }
    return 0;
}

/* The change points of the nights' means (nights with a value). Too few
 * nights, or a mean that is not a finite number (a hostile database),
 * is said, not an error. */
static int detect(struct history *h, struct pm_err *err)
{
    h->points = malloc((h->nnights ? h->nnights : 1) * sizeof *h->points);
    h->point_night = malloc((h->nnights ? h->nnights : 1) * sizeof *h->point_night);
    if (!h->points || !h->point_night)
        return pm_errf(err, "out of memory");
    bool finite = true;
    for (size_t k = 0; k < h->nnights; k++) {
        if (!h->nights[k].n)
            continue;
        h->nights[k].point = (long)h->npoints;
        h->point_night[h->npoints] = k;
        h->points[h->npoints++] = h->nights[k].s.mean;
        finite &= isfinite(h->nights[k].s.mean) != 0;
    }
    size_t need = 2 * (h->cp.min_size ? h->cp.min_size : 1);
    if (h->npoints < need) {
        snprintf(h->why_not, sizeof h->why_not, "%zu night%s with a value: change points need at least %zu",
                 h->npoints, h->npoints == 1 ? "" : "s", need);
        return 0;
    }
    if (!finite) {
        snprintf(h->why_not, sizeof h->why_not, "a night's mean is not a finite number");
        return 0;
    }
    /* Each kept change costs permutations x points^2: a history of
     * thousands of nights (or a crafted one) is looked at over its newest
     * HISTORY_CP_MAX, which holds years of nights. */
    size_t off = h->npoints > HISTORY_CP_MAX ? h->npoints - HISTORY_CP_MAX : 0;
    if (cp_detect(h->points + off, h->npoints - off, &h->cp, &h->changes, &h->nchanges, err) < 0)
        return -1;
    for (size_t c = 0; c < h->nchanges; c++)
        h->changes[c].at += off;
    h->detected = true;
    h->change_night = malloc((h->nchanges ? h->nchanges : 1) * sizeof *h->change_night);
    if (!h->change_night)
        return pm_errf(err, "out of memory");
    for (size_t c = 0; c < h->nchanges; c++) {
        size_t at = h->changes[c].at < h->npoints ? h->changes[c].at : h->npoints - 1;
        h->change_night[c] = h->point_night[at];
        h->nights[h->change_night[c]].change = (long)c;
    }
    return 0;
}

int history_build(struct pm_db *db, const struct history_request *rq, struct history *h, struct pm_err *err)
{
    memset(h, 0, sizeof *h);
    if (rq->cp)
        h->cp = *rq->cp;
    else
        cp_opts_default(&h->cp);
    if (pick_workload(db, rq, h, err) < 0)
        return -1;
    if (pick_metric(db, rq, h, err) < 0 || load_runs(db, rq, h, err) < 0)
        return -1;
    if (h->metric_absent)
        return 0;
    size_t *night_of = malloc(h->runs.n * sizeof *night_of);
    int rc = night_of && group_nights(h, night_of) == 0 && night_values(h, night_of) == 0 && find_events(h) == 0
                 ? 0 : pm_errf(err, "out of memory");
    free(night_of);
    if (rc == 0 && !rq->detect)
        snprintf(h->why_not, sizeof h->why_not, "not asked for (history --change-points looks for them)");
    h->looked = rq->detect;
    return rc < 0 ? -1 : rq->detect ? detect(h, err) : 0;
}

void history_free(struct history *h)
{
    store_history_free(&h->runs);
    free(h->values);
    free(h->value_run);
    free(h->nights);
    free(h->events);
    free(h->points);
    free(h->point_night);
    free(h->changes);
    free(h->change_night);
    memset(h, 0, sizeof *h);
}

int history_direction(const struct history *h)
{
    return strcmp(h->direction, "higher") == 0 ? 1 : strcmp(h->direction, "lower") == 0 ? -1 : 0;
}

const char *history_kernel_before(const struct history *h, size_t c)
{
    size_t at = h->changes[c].at;
    return at ? h->nights[h->point_night[at - 1]].kernels : "";
}

const char *history_kernel_after(const struct history *h, size_t c)
{
    return h->nights[h->change_night[c]].kernels;
}

bool history_change_has_event(const struct history *h, size_t c)
{
    size_t at = h->changes[c].at, first = h->change_night[c];
    size_t after = at ? h->point_night[at - 1] : 0;
    for (size_t e = 0; e < h->nevents; e++)
        if (h->events[e].night > after && h->events[e].night <= first)
            return true;
    return false;
}
