/* Storing the records that runs kept beside the database when it would not
 * take them (store/unstored.h). A record is data from a file: every field
 * is checked for type and size before it reaches SQL, and a file that is
 * not a regular file of this user's is not read. */
#include "store/unstored.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/fileio.h"
#include "lib/quote.h"
#include "store/machines.h"

/* Counts above a run's real ones by far; metric_set and kv_list find
 * names linearly, so they also keep a crafted record's cost small. */
#define MAX_METRICS 5000
#define MAX_META 5000
#define MAX_SOURCES 1024
#define MAX_HISTS 256
#define MAX_SYMBOLS 100

struct record {
    struct machine_info mi;
    char uuid[40], label[256], workload[64], params[4096], status[16], reason[1024], why[512];
    struct run_row row;
    struct run_record rec;
    struct metric_set metrics;
    struct kv_list meta;
    struct run_source *sources;
    struct run_hists hists;
    struct run_symbol symbols[MAX_SYMBOLS];
};

static void record_free(struct record *r)
{
    for (size_t i = 0; r->sources && i < r->rec.nsources; i++) {
        free((char *)r->sources[i].source);
        free((char *)r->sources[i].path);
        free((char *)r->sources[i].note);
    }
    free(r->sources);
    metric_set_free(&r->metrics);
    pm_kv_free(&r->meta);
    store_run_hists_free(&r->hists);
}

/* A string member of at most len - 1 bytes without NUL into buf; NULL
 * counts as absent where null_ok. */
static int get_str(const json_t *o, const char *key, char *buf, size_t len, bool null_ok, struct pm_err *err)
{
    const json_t *v = json_object_get(o, key);
    if (null_ok && (!v || json_is_null(v))) {
        buf[0] = '\0';
        return 0;
    }
    if (!json_is_string(v) || json_string_length(v) >= len || strlen(json_string_value(v)) != json_string_length(v))
        return pm_errf(err, "\"%s\" is not a string of at most %zu bytes", key, len - 1);
    memcpy(buf, json_string_value(v), json_string_length(v) + 1);
    return 0;
}

static int get_int(const json_t *o, const char *key, int64_t min, int64_t *out, struct pm_err *err)
{
    const json_t *v = json_object_get(o, key);
    if (!json_is_integer(v) || json_integer_value(v) < min)
        return pm_errf(err, "\"%s\" is not a whole number of at least %lld", key, (long long)min);
    *out = json_integer_value(v);
    return 0;
}

static const json_t *get_array(const json_t *o, const char *key, size_t max, struct pm_err *err)
{
    const json_t *v = json_object_get(o, key);
    if (!json_is_array(v) || json_array_size(v) > max) {
        pm_errf(err, "\"%s\" is not a list of at most %zu entries", key, max);
        return NULL;
    }
    return v;
}

static int parse_machine(const json_t *m, struct machine_info *mi, struct pm_err *err)
{
    int64_t cpus, mem, page;
    if (!json_is_object(m))
        return pm_errf(err, "\"machine\" is not an object");
    if (get_str(m, "hostname", mi->hostname, sizeof mi->hostname, false, err) < 0 ||
        get_str(m, "kernel", mi->kernel, sizeof mi->kernel, false, err) < 0 ||
        get_str(m, "proc_version", mi->proc_version, sizeof mi->proc_version, false, err) < 0 ||
        get_str(m, "cmdline", mi->cmdline, sizeof mi->cmdline, false, err) < 0 ||
        get_str(m, "cpu_model", mi->cpu_model, sizeof mi->cpu_model, false, err) < 0 ||
        get_int(m, "cpus", 0, &cpus, err) < 0 || get_int(m, "mem_total_kb", 0, &mem, err) < 0 ||
        get_int(m, "page_size", 0, &page, err) < 0)
        return -1;
    if (cpus > 1 << 20)
        return pm_errf(err, "\"cpus\" is out of range");
    mi->cpus = (int)cpus;
    mi->mem_total_kb = mem;
    mi->page_size = (long)page;
    return 0;
}

static int parse_run(const json_t *o, struct record *r, struct pm_err *err)
{
    int64_t interval, started, ended;
    if (!json_is_object(o))
        return pm_errf(err, "\"run\" is not an object");
    if (get_str(o, "uuid", r->uuid, sizeof r->uuid, false, err) < 0 ||
        get_str(o, "label", r->label, sizeof r->label, false, err) < 0 ||
        get_str(o, "workload", r->workload, sizeof r->workload, false, err) < 0 ||
        get_str(o, "params", r->params, sizeof r->params, false, err) < 0 ||
        get_str(o, "status", r->status, sizeof r->status, false, err) < 0 ||
        get_str(o, "reason", r->reason, sizeof r->reason, true, err) < 0 ||
        get_int(o, "interval_ns", 0, &interval, err) < 0 || get_int(o, "started_ns", 0, &started, err) < 0 ||
        get_int(o, "ended_ns", 0, &ended, err) < 0)
        return -1;
    static const char *const statuses[] = { "ok", "failed", "oom", "aborted" };
    bool known = false;
    for (size_t i = 0; i < sizeof statuses / sizeof statuses[0]; i++)
        known |= strcmp(r->status, statuses[i]) == 0;
    if (!known)
        return pm_errf(err, "\"status\" '%s' is not one of ok, failed, oom, aborted", r->status);
    if (ended < started)
        return pm_errf(err, "the run ends (ended_ns %lld) before it starts (started_ns %lld)", (long long)ended,
                       (long long)started);
    if (!store_run_label_ok(r->label) || !r->workload[0])
        return pm_errf(err, "the run's label is not one (1 to %d bytes, not starting with '-') or it has no workload",
                       RUN_LABEL_MAX);
    r->row = (struct run_row){ .label = r->label, .workload = r->workload, .params = r->params,
                               .interval_ns = (uint64_t)interval, .started_ns = started };
    snprintf(r->row.uuid, sizeof r->row.uuid, "%s", r->uuid);
    r->rec.status = r->status;
    r->rec.reason = r->reason;
    r->rec.ended_ns = ended;
    return 0;
}

static int parse_metrics(const json_t *a, struct metric_set *ms, struct pm_err *err)
{
    size_t i;
    const json_t *m;
    json_array_foreach(a, i, m) {
        char name[sizeof ms->v[0].name], unit[sizeof ms->v[0].unit], dir[16];
        const json_t *v = json_object_get(m, "value");
        if (!json_is_object(m) || get_str(m, "name", name, sizeof name, false, err) < 0 ||
            get_str(m, "unit", unit, sizeof unit, false, err) < 0 ||
            get_str(m, "direction", dir, sizeof dir, false, err) < 0)
            return pm_errf(err, "metric %zu: %s", i + 1, json_is_object(m) ? err->msg : "not an object");
        /* null: a value that was not finite, which is no figure. */
        if (json_is_null(v))
            continue;
        if (!json_is_number(v))
            return pm_errf(err, "metric %s: \"value\" is not a number", name);
        if (metric_set_put(ms, name, json_number_value(v), unit, metric_dir_parse(dir)) < 0)
            return pm_errf(err, "out of memory");
    }
    return 0;
}

static int parse_meta(const json_t *a, struct kv_list *meta, struct pm_err *err)
{
    size_t i;
    const json_t *p;
    json_array_foreach(a, i, p) {
        const json_t *k = json_array_get(p, 0), *v = json_array_get(p, 1);
        if (!json_is_array(p) || json_array_size(p) != 2 || !json_is_string(k) || !json_is_string(v) ||
            strlen(json_string_value(k)) != json_string_length(k) || json_string_length(k) > 1023 ||
            strlen(json_string_value(v)) != json_string_length(v) || json_string_length(v) > 65535)
            return pm_errf(err, "meta %zu is not a pair of strings (a key of at most 1023 bytes, a value of at most "
                           "65535)", i + 1);
        if (pm_kv_set(meta, json_string_value(k), json_string_value(v)) < 0)
            return pm_errf(err, "out of memory");
    }
    return 0;
}

static int parse_sources(const json_t *a, struct record *r, struct pm_err *err)
{
    r->sources = calloc(json_array_size(a) + 1, sizeof *r->sources);
    if (!r->sources)
        return pm_errf(err, "out of memory");
    size_t i;
    const json_t *s;
    json_array_foreach(a, i, s) {
        char source[64], path[4096], note[512];
        int64_t ticks;
        if (!json_is_object(s) || get_str(s, "source", source, sizeof source, false, err) < 0 ||
            get_str(s, "path", path, sizeof path, false, err) < 0 ||
            get_str(s, "note", note, sizeof note, true, err) < 0 || get_int(s, "ticks", 0, &ticks, err) < 0)
            return pm_errf(err, "source %zu: %s", i + 1, json_is_object(s) ? err->msg : "not an object");
        struct run_source *d = &r->sources[r->rec.nsources++];
        d->source = strdup(source);
        d->path = strdup(path);
        d->note = note[0] ? strdup(note) : NULL;
        d->ticks = (uint64_t)ticks;
        if (!d->source || !d->path || (note[0] && !d->note))
            return pm_errf(err, "out of memory");
    }
    r->rec.sources = r->sources;
    return 0;
}

static int parse_hists(const json_t *a, struct run_hists *hists, struct pm_err *err)
{
    size_t i;
    const json_t *h;
    json_array_foreach(a, i, h) {
        char name[sizeof hists->v[0].name];
        const json_t *b = json_object_get(h, "buckets"), *p;
        if (!json_is_object(h) || get_str(h, "name", name, sizeof name, false, err) < 0 || !json_is_array(b) ||
            json_array_size(b) > LOGHIST_BUCKETS)
            return pm_errf(err, "histogram %zu: not a name and at most %d buckets", i + 1, LOGHIST_BUCKETS);
        struct loghist lh = { 0 };
        size_t k;
        json_array_foreach(b, k, p) {
            const json_t *lo = json_array_get(p, 0), *n = json_array_get(p, 1);
            /* Counts that add up past what SQLite stores are no histogram. */
            if (!json_is_integer(lo) || !json_is_integer(n) || json_integer_value(lo) < 0 ||
                json_integer_value(n) <= 0 || (uint64_t)json_integer_value(n) > (uint64_t)INT64_MAX - lh.count ||
                loghist_add_bucket(&lh, (uint64_t)json_integer_value(lo), (uint64_t)json_integer_value(n)) < 0) {
                loghist_free(&lh);
                return pm_errf(err, "histogram %s: bucket %zu is not [lower bound, count]", name, k + 1);
            }
        }
        int rc = store_run_hists_put(hists, name, &lh);
        loghist_free(&lh);
        if (rc < 0)
            return pm_errf(err, "out of memory");
    }
    return 0;
}

static int parse_symbols(const json_t *a, struct record *r, struct pm_err *err)
{
    size_t i;
    const json_t *s;
    json_array_foreach(a, i, s) {
        struct run_symbol *d = &r->symbols[i];
        int64_t samples;
        const json_t *pk = json_object_get(s, "pct_kernel"), *pa = json_object_get(s, "pct_all");
        if (!json_is_object(s) || get_str(s, "symbol", d->symbol, sizeof d->symbol, false, err) < 0 ||
            get_int(s, "samples", 0, &samples, err) < 0 || !json_is_number(pk) || !json_is_number(pa))
            return pm_errf(err, "profile entry %zu is not a symbol with its samples and shares", i + 1);
        d->samples = samples;
        d->pct_kernel = json_number_value(pk);
        d->pct_all = json_number_value(pa);
        r->rec.nsymbols = i + 1;
    }
    r->rec.symbols = r->symbols;
    return 0;
}

static int parse_record(const json_t *doc, const char *name, struct record *r, struct pm_err *err)
{
    const json_t *fv = json_object_get(doc, "format_version"), *a;
    if (!json_is_object(doc) || !json_is_integer(fv) || json_integer_value(fv) != 1)
        return pm_errf(err, "not a run's record of this pressmark's (format_version 1)");
    if (get_str(doc, "why", r->why, sizeof r->why, true, err) < 0 ||
        parse_machine(json_object_get(doc, "machine"), &r->mi, err) < 0 ||
        parse_run(json_object_get(doc, "run"), r, err) < 0)
        return -1;
    if (strncmp(name, r->uuid, 36) != 0 || strlen(r->uuid) != 36)
        return pm_errf(err, "its run's uuid '%s' is not its file name's", r->uuid);
    if (!(a = get_array(doc, "metrics", MAX_METRICS, err)) || parse_metrics(a, &r->metrics, err) < 0 ||
        !(a = get_array(doc, "meta", MAX_META, err)) || parse_meta(a, &r->meta, err) < 0 ||
        !(a = get_array(doc, "sources", MAX_SOURCES, err)) || parse_sources(a, r, err) < 0 ||
        !(a = get_array(doc, "histograms", MAX_HISTS, err)) || parse_hists(a, &r->hists, err) < 0 ||
        !(a = get_array(doc, "profile", MAX_SYMBOLS, err)) || parse_symbols(a, r, err) < 0)
        return -1;
    if (pm_kv_setf(&r->meta, "store.kept", "beside the database when its store failed (%s); stored by a later pressmark",
                r->why[0] ? r->why : "no reason given") < 0)
        return pm_errf(err, "out of memory");
    r->rec.metrics = &r->metrics;
    r->rec.meta = &r->meta;
    r->rec.hists = &r->hists;
    return 0;
}

/* The file, if it is a regular file of this user's and not too large. */
static json_t *read_record(int dfd, const char *name, struct pm_err *err)
{
    int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        pm_errf(err, "%s", errno == ELOOP ? "a symbolic link, not a file" : strerror(errno));
        return NULL;
    }
    struct stat st;
    json_t *doc = NULL;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
        st.st_size > (off_t)UNSTORED_MAX_BYTES) {
        pm_errf(err, "not a regular file of this user's of at most %u bytes", UNSTORED_MAX_BYTES);
    } else {
        json_error_t je;
        doc = json_loadfd(fd, JSON_REJECT_DUPLICATES, &je);
        if (!doc)
            pm_errf(err, "not JSON (line %d: %s)", je.line, je.text);
    }
    close(fd);
    return doc;
}

/* One record into the database, in one transaction. 1 when its run was
 * already stored (the file goes, nothing is written). */
static int store_record(struct pm_db *db, struct record *r, int64_t *run_id, struct pm_err *err)
{
    if (store_db_exec(db, "BEGIN IMMEDIATE", err) < 0)
        return -1;
    sqlite3_stmt *st;
    /* A run whose end was never stored: still running, or marked aborted
     * by a later pressmark that could not store this record then; either
     * way without an end time. */
    if (store_db_prepare(db, &st, "SELECT id, status IN ('running', 'aborted') AND ended_ns IS NULL FROM run WHERE uuid = ?",
                      err) < 0)
        goto rollback;
    sqlite3_bind_text(st, 1, r->uuid, -1, SQLITE_STATIC);
    int found = sqlite3_step(st) == SQLITE_ROW;
    *run_id = found ? sqlite3_column_int64(st, 0) : 0;
    bool open_run = found && sqlite3_column_int(st, 1);
    sqlite3_finalize(st);
    if (found && !open_run) {
        store_db_rollback(db);
        return 1;
    }
    if (!found) {
        int64_t mid = store_machine(db, &r->mi, err);
        if (mid < 0 || store_run_insert(db, mid, &r->row, err) < 0)
            goto rollback;
        *run_id = r->row.id;
    }
    if (store_run_record(db, *run_id, &r->rec, err) < 0 || store_db_exec(db, "COMMIT", err) < 0)
        goto rollback;
    return 0;
rollback:
    store_db_rollback(db);
    return -1;
}

static bool store_one(struct pm_db *db, int dfd, const char *dir, const char *name, FILE *say)
{
    struct pm_err err = { "" };
    struct record *r = calloc(1, sizeof *r);
    json_t *doc = r ? read_record(dfd, name, &err) : NULL;
    int rc = -1;
    int64_t id = 0;
    if (!r)
        pm_errf(&err, "out of memory");
    else if (doc && parse_record(doc, name, r, &err) == 0)
        rc = store_record(db, r, &id, &err);
    json_decref(doc);
    if (rc >= 0 && unlinkat(dfd, name, 0) < 0)
        fprintf(say, "pressmark: %s/%s: stored, but not removed: %s\n", dir, name, strerror(errno));
    /* What comes from the file (a label, the reason, a field quoted in an
     * error) is shown, never obeyed by the terminal. */
    char shown[4 * sizeof err.msg];
    if (rc == 0) {
        char label[4 * RUN_LABEL_MAX + 8];
        quote_terminal(r->label, label, sizeof label);
        quote_terminal(r->why, shown, sizeof shown);
        fprintf(say, "pressmark: stored run %lld [%s] %s from %s/%s, kept there when its store failed (%s)\n",
                (long long)id, label, r->status, dir, name, shown);
    } else if (rc == 1) {
        fprintf(say, "pressmark: %s/%s: its run is stored already; removed\n", dir, name);
    } else {
        quote_terminal(err.msg, shown, sizeof shown);
        fprintf(say, "pressmark: %s/%s: a run's results kept there could not be stored: %s; the file stays\n", dir,
                name, shown);
    }
    if (r)
        record_free(r);
    free(r);
    return rc == 0;
}

int unstored_store_all(struct pm_db *db, FILE *say)
{
    char dir[PATH_MAX + 16];
    unstored_dir(db->path, dir, sizeof dir);
    struct pm_err err;
    int dfd = pm_open_private_dir(dir, false, &err);
    if (dfd < 0) {
        if (errno != ENOENT)
            fprintf(say, "pressmark: results kept beside the database are not read: %s\n", err.msg);
        return 0;
    }
    int ddup = dup(dfd);
    DIR *d = ddup < 0 ? NULL : fdopendir(ddup);
    if (!d) {
        if (ddup >= 0)
            close(ddup);
        close(dfd);
        return 0;
    }
    int stored = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (unstored_name(e->d_name))
            stored += store_one(db, dfd, dir, e->d_name, say);
    closedir(d);
    close(dfd);
    /* Empty again: the directory goes too, as nothing waits. */
    unlinkat(AT_FDCWD, dir, AT_REMOVEDIR);
    return stored;
}
