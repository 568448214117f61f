#include "store/history_runs.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/alloc.h"

#define META(k) "(SELECT value FROM run_meta WHERE run_id = r.id AND key = '" k "')"

/* Each run's own row, its machine's release and the metric by their keys,
 * and each meta value by its primary key (run_id, key): a lookup per run
 * and key, so the cost grows with the runs of this label only. The knobs
 * a run set (set.*) come as one string: key US value, RS between. */
static const char history_sql[] =
    "SELECT r.id, r.started_ns, r.params, mc.kernel, mt.value, mt.unit, mt.direction, "
    META("suite.uuid") ", " META("suite.name") ", " META("pressmark.version") ", " META("emulated") ", "
    META("cap.method") ", " META("cap.limit_bytes") ", " META("cap.swap_limit_bytes") ", " META("cap.high_bytes") ", "
    META("swap.added") ", "
    "(SELECT group_concat(key || char(31) || value, char(30)) FROM run_meta"
    "  WHERE run_id = r.id AND key >= 'set.' AND key < 'set/')"
    " FROM run r JOIN machine mc ON mc.id = r.machine_id"
    " LEFT JOIN metric mt ON mt.run_id = r.id AND mt.name = ?3"
    " WHERE r.label = ?1 AND r.workload = ?2 AND r.status = 'ok'"
    " ORDER BY r.started_ns, r.id";

/* The settings columns after the knobs' and what each is called. */
enum { COL_PARAMS = 2, COL_CAP = 11, COL_SET = 16 };
static const char *const cap_keys[] = { "cap.method", "cap.limit_bytes", "cap.swap_limit_bytes", "cap.high_bytes",
                                        "swap.added" };

void store_normalise_run_names(char *v)
{
    for (char *p = strstr(v, "run-"); p; p = strstr(p + 4, "run-")) {
        char *q = p + 4;
        while (*q >= '0' && *q <= '9')
            q++;
        if (q > p + 4) {
            memmove(p + 5, q, strlen(q) + 1);
            p[4] = 'N';
        }
    }
}

/* A growing string; on allocation failure it stays failed (NULL). */
struct sbuf {
    char *s;
    size_t n, alloc;
    bool failed;
};

static void sb_add(struct sbuf *b, const char *s, size_t len)
{
    if (b->failed || ALLOC_GROW(b->s, b->n + len + 1, b->alloc) < 0) {
        b->failed = true;
        return;
    }
    memcpy(b->s + b->n, s, len);
    b->n += len;
    b->s[b->n] = '\0';
}

/* key=value as a line of its own: the value's line breaks are written
 * \n, so that a line is always one setting. */
static void sb_setting(struct sbuf *b, const char *key, const char *value, size_t len)
{
    if (b->n)
        sb_add(b, "\n", 1);
    sb_add(b, key, strlen(key));
    sb_add(b, "=", 1);
    for (size_t i = 0; i < len; i++)
        sb_add(b, value[i] == '\n' ? "\\n" : &value[i], value[i] == '\n' ? 2 : 1);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The knobs (set.NAME US "now (was before)" RS ...), sorted by name, each
 * without what it was before the run: that is the machine's, not the cell's. */
static void add_knobs(struct sbuf *b, char *knobs)
{
    char *piece[256];
    size_t n = 0;
    for (char *save = NULL, *p = strtok_r(knobs, "\x1e", &save); p && n < 256; p = strtok_r(NULL, "\x1e", &save))
        piece[n++] = p;
    qsort(piece, n, sizeof *piece, cmp_str);
    for (size_t i = 0; i < n; i++) {
        char *v = strchr(piece[i], '\x1f');
        if (!v)
            continue;
        *v++ = '\0';
        char *was = strstr(v, " (was ");
        sb_setting(b, piece[i], v, was ? (size_t)(was - v) : strlen(v));
    }
}

static char *settings_of(sqlite3_stmt *st)
{
    struct sbuf b = { 0 };
    const char *params = store_col_text(st, COL_PARAMS);
    sb_setting(&b, "params", params, strlen(params));
    for (size_t i = 0; i < sizeof cap_keys / sizeof cap_keys[0]; i++) {
        if (sqlite3_column_type(st, COL_CAP + (int)i) == SQLITE_NULL)
            continue;
        char v[1024];
        snprintf(v, sizeof v, "%s", store_col_text(st, COL_CAP + (int)i));
        store_normalise_run_names(v);
        sb_setting(&b, cap_keys[i], v, strlen(v));
    }
    char *knobs = strdup(store_col_text(st, COL_SET));
    if (!knobs)
        b.failed = true;
    else
        add_knobs(&b, knobs);
    free(knobs);
    if (b.failed) {
        free(b.s);
        return NULL;
    }
    return b.s ? b.s : strdup("");
}

static int add_run(struct hist_runs *out, sqlite3_stmt *st)
{
    if (ALLOC_GROW(out->v, out->n + 1, out->alloc) < 0)
        return -1;
    struct hist_run *r = &out->v[out->n];
    memset(r, 0, sizeof *r);
    r->id = sqlite3_column_int64(st, 0);
    r->started_ns = sqlite3_column_int64(st, 1);
    r->value = sqlite3_column_type(st, 4) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 4);
    if (!isnan(r->value) && !out->unit[0]) {
        snprintf(out->unit, sizeof out->unit, "%s", store_col_text(st, 5));
        snprintf(out->direction, sizeof out->direction, "%s", store_col_text(st, 6));
    }
    r->kernel = strdup(store_col_text(st, 3));
    r->suite_uuid = strdup(store_col_text(st, 7));
    r->suite_name = strdup(store_col_text(st, 8));
    r->version = strdup(store_col_text(st, 9));
    r->emulated = strcmp(store_col_text(st, 10), "yes") == 0;
    r->settings = settings_of(st);
    out->n++;
    return r->kernel && r->suite_uuid && r->suite_name && r->version && r->settings ? 0 : -1;
}

int store_history_load(struct pm_db *db, const char *label, const char *workload, const char *metric,
                       struct hist_runs *out, struct pm_err *err)
{
    memset(out, 0, sizeof *out);
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st, history_sql, err) < 0)
        return -1;
    sqlite3_bind_text(st, 1, label, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, workload, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, metric, -1, SQLITE_STATIC);
    int rc = 0, step;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW)
        if (add_run(out, st) < 0)
            rc = pm_errf(err, "out of memory");
    if (rc == 0 && step != SQLITE_DONE)
        rc = pm_errf(err, "%s: %s", db->path, sqlite3_errmsg(db->h));
    sqlite3_finalize(st);
    if (rc < 0)
        store_history_free(out);
    return rc;
}

void store_history_free(struct hist_runs *r)
{
    for (size_t i = 0; i < r->n; i++) {
        free(r->v[i].kernel);
        free(r->v[i].version);
        free(r->v[i].suite_uuid);
        free(r->v[i].suite_name);
        free(r->v[i].settings);
    }
    free(r->v);
    memset(r, 0, sizeof *r);
}

int store_history_workloads(struct pm_db *db, const char *label, size_t *n, char w0[64], char w1[64],
                            struct pm_err *err)
{
    *n = 0;
    w0[0] = w1[0] = '\0';
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st, "SELECT workload FROM run WHERE label = ? AND status = 'ok' GROUP BY workload"
                      " ORDER BY min(id)", err) < 0)
        return -1;
    sqlite3_bind_text(st, 1, label, -1, SQLITE_STATIC);
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (*n < 2)
            snprintf(*n ? w1 : w0, 64, "%s", store_col_text(st, 0));
        (*n)++;
    }
    sqlite3_finalize(st);
    return 0;
}

int store_history_cells(struct pm_db *db, const char *label, const char *workload, char ***labels, char ***workloads,
                        size_t *n, struct pm_err *err)
{
    *labels = *workloads = NULL;
    *n = 0;
    size_t alloc_l = 0, alloc_w = 0;
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st, "SELECT label, workload FROM run WHERE status = 'ok' AND (?1 IS NULL OR label = ?1)"
                      " AND (?2 IS NULL OR workload = ?2) GROUP BY label, workload ORDER BY min(id)", err) < 0)
        return -1;
    if (label)
        sqlite3_bind_text(st, 1, label, -1, SQLITE_STATIC);
    if (workload)
        sqlite3_bind_text(st, 2, workload, -1, SQLITE_STATIC);
    int rc = 0;
    while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
        if (ALLOC_GROW(*labels, *n + 1, alloc_l) < 0 || ALLOC_GROW(*workloads, *n + 1, alloc_w) < 0) {
            rc = pm_errf(err, "out of memory");
            break;
        }
        (*labels)[*n] = strdup(store_col_text(st, 0));
        (*workloads)[*n] = strdup(store_col_text(st, 1));
        (*n)++;
        if (!(*labels)[*n - 1] || !(*workloads)[*n - 1])
            rc = pm_errf(err, "out of memory");
    }
    sqlite3_finalize(st);
    if (rc < 0) {
        store_history_cells_free(*labels, *workloads, *n);
        *labels = *workloads = NULL;
        *n = 0;
    }
    return rc;
}

void store_history_cells_free(char **labels, char **workloads, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(labels ? labels[i] : NULL);
        free(workloads ? workloads[i] : NULL);
    }
    free(labels);
    free(workloads);
}

int store_history_metric_names(struct pm_db *db, const char *label, const char *workload, char *buf, size_t len,
                               struct pm_err *err)
{
    buf[0] = '\0';
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st, "SELECT DISTINCT m.name FROM metric m JOIN run r ON r.id = m.run_id"
                      " WHERE r.label = ? AND r.workload = ? AND r.status = 'ok' ORDER BY m.name", err) < 0)
        return -1;
    sqlite3_bind_text(st, 1, label, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, workload, -1, SQLITE_STATIC);
    /* Names while they fit, with room kept to say how many there are. */
    size_t o = 0, n = 0, shown = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *name = store_col_text(st, 0);
        n++;
        if (shown == n - 1 && o + strlen(name) + 2 + 32 < len) {
            o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? ", " : "", name);
            shown++;
        }
    }
    sqlite3_finalize(st);
    if (shown < n)
        snprintf(buf + o, len - o, ", ... (%zu in all)", n);
    return 0;
}
