/* Keeping a run's record beside its database when the database would not
 * take it (store/unstored.h); unstored_load.c stores it later. */
#include "store/unstored.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/fileio.h"
#include "lib/timeutil.h"

void unstored_dir(const char *db_path, char *buf, size_t len)
{
    snprintf(buf, len, "%s.unstored", db_path);
}

/* Strings of the record may be anything a run produced; jansson takes only
 * UTF-8, so anything else becomes "?" byte by byte (the figures matter,
 * not a stray byte of a symbol name). */
static json_t *str(const char *s)
{
    if (!s)
        return json_null();
    json_t *j = json_string(s);
    if (j)
        return j;
    char *copy = strdup(s);
    if (!copy)
        return NULL;
    for (unsigned char *p = (unsigned char *)copy; *p; p++)
        if (*p >= 0x80 || *p < 0x20)
            *p = '?';
    j = json_string(copy);
    free(copy);
    return j;
}

/* JSON has no NaN: a value that is not finite is kept as null. */
static json_t *num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *machine_json(const struct machine_info *mi)
{
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:i, s:I, s:I}", "hostname", str(mi->hostname), "kernel",
                     str(mi->kernel), "proc_version", str(mi->proc_version), "cmdline", str(mi->cmdline),
                     "cpu_model", str(mi->cpu_model), "cpus", mi->cpus, "mem_total_kb", (json_int_t)mi->mem_total_kb,
                     "page_size", (json_int_t)mi->page_size);
}

static json_t *run_json(const struct run_row *row, const struct run_record *rec)
{
    return json_pack("{s:o, s:o, s:o, s:o, s:I, s:I, s:I, s:o, s:o}", "uuid", str(row->uuid), "label",
                     str(row->label), "workload", str(row->workload), "params", str(row->params), "interval_ns",
                     (json_int_t)row->interval_ns, "started_ns", (json_int_t)row->started_ns, "ended_ns",
                     (json_int_t)rec->ended_ns, "status", str(rec->status), "reason", str(rec->reason));
}

/* Each part of the record as an array; NULL when out of memory. */
static json_t *metrics_json(const struct metric_set *ms)
{
    json_t *a = json_array();
    for (size_t i = 0; a && ms && i < ms->n; i++)
        if (json_array_append_new(a, json_pack("{s:o, s:o, s:o, s:o}", "name", str(ms->v[i].name), "value",
                                               num(ms->v[i].value), "unit", str(ms->v[i].unit), "direction",
                                               str(ms->v[i].direction))) < 0)
            return json_decref(a), NULL;
    return a;
}

static json_t *meta_json(const struct kv_list *meta)
{
    json_t *a = json_array();
    for (size_t i = 0; a && meta && i < meta->n; i++)
        if (json_array_append_new(a, json_pack("[o, o]", str(meta->v[i].key), str(meta->v[i].value))) < 0)
            return json_decref(a), NULL;
    return a;
}

static json_t *sources_json(const struct run_record *rec)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < rec->nsources; i++) {
        const struct run_source *s = &rec->sources[i];
        if (json_array_append_new(a, json_pack("{s:o, s:o, s:I, s:o}", "source", str(s->source), "path",
                                               str(s->path), "ticks", (json_int_t)s->ticks, "note",
                                               str(s->note && s->note[0] ? s->note : NULL))) < 0)
            return json_decref(a), NULL;
    }
    return a;
}

static json_t *hists_json(const struct run_hists *hists)
{
    json_t *a = json_array();
    for (size_t i = 0; a && hists && i < hists->n; i++) {
        const struct loghist *h = &hists->v[i].h;
        json_t *b = json_array();
        for (size_t k = 0; b && h->b && k < LOGHIST_BUCKETS; k++) {
            if (!h->b[k])
                continue;
            uint64_t lo, hi;
            loghist_bounds(k, &lo, &hi);
            if (json_array_append_new(b, json_pack("[I, I]", (json_int_t)lo, (json_int_t)h->b[k])) < 0)
                b = (json_decref(b), NULL);
        }
        if (!b || json_array_append_new(a, json_pack("{s:o, s:o}", "name", str(hists->v[i].name), "buckets", b)) < 0)
            return json_decref(a), NULL;
    }
    return a;
}

static json_t *symbols_json(const struct run_record *rec)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < rec->nsymbols; i++) {
        const struct run_symbol *s = &rec->symbols[i];
        if (json_array_append_new(a, json_pack("{s:o, s:I, s:o, s:o}", "symbol", str(s->symbol), "samples",
                                               (json_int_t)s->samples, "pct_kernel", num(s->pct_kernel),
                                               "pct_all", num(s->pct_all))) < 0)
            return json_decref(a), NULL;
    }
    return a;
}

static char *record_text(const char *db_path, const struct machine_info *mi, const struct run_row *row,
                         const struct run_record *rec, const char *why, size_t *len)
{
    /* json_pack's "o" takes each reference, also when packing fails. */
    json_t *doc = json_pack("{s:s, s:i, s:o, s:o, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "format",
                            "pressmark unstored run", "format_version", 1, "database", str(db_path), "why",
                            str(why), "kept_ns", (json_int_t)pm_wall_ns(), "machine", machine_json(mi), "run",
                            run_json(row, rec), "metrics", metrics_json(rec->metrics), "meta", meta_json(rec->meta),
                            "sources", sources_json(rec), "histograms", hists_json(rec->hists), "profile",
                            symbols_json(rec));
    if (!doc)
        return NULL;
    char *text = json_dumps(doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    json_decref(doc);
    if (text)
        *len = strlen(text);
    return text;
}

/* A new file of the directory's, unnamed until it is whole. */
static int keep_in_new_file(int dfd, const char *name, const char *text, size_t len)
{
    int fd = openat(dfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    int rc = pm_link_tmpfile(fd, text, len, dfd, name);
    int e = errno;
    close(fd);
    errno = e;
    return rc;
}

int unstored_keep(const char *db_path, const struct machine_info *mi, const struct run_row *row,
                  const struct run_record *rec, const char *why, struct db_reserve *reserve, char *path,
                  size_t len, struct pm_err *err)
{
    char dir[PATH_MAX + 16];
    unstored_dir(db_path, dir, sizeof dir);
    snprintf(path, len, "%s/%s.json", dir, row->uuid);
    size_t tlen = 0;
    char *text = record_text(db_path, mi, row, rec, why, &tlen);
    if (!text)
        return pm_errf(err, "out of memory writing the run's record");
    int dfd = pm_open_private_dir(dir, true, err);
    if (dfd < 0) {
        free(text);
        return -1;
    }
    char name[64];
    snprintf(name, sizeof name, "%s.json", row->uuid);
    /* In the reserve's blocks when it is held: on a full disk the only
     * room there is. */
    int rc = reserve ? db_reserve_keep(reserve, dfd, name, text, tlen) : -1;
    if (rc < 0 && (rc = keep_in_new_file(dfd, name, text, tlen)) < 0)
        pm_errf(err, "%s: %s", path, strerror(errno));
    /* Made durable if it can be; it is there either way. */
    if (rc == 0)
        fsync(dfd);
    close(dfd);
    if (rc < 0)
        rmdir(dir);        /* only when empty: what others kept stays */
    free(text);
    return rc;
}

void unstored_forget(const char *db_path, const char *uuid)
{
    char dir[PATH_MAX + 16], name[64];
    unstored_dir(db_path, dir, sizeof dir);
    snprintf(name, sizeof name, "%s.json", uuid);
    struct pm_err err;
    int dfd = pm_open_private_dir(dir, false, &err);
    if (dfd < 0)
        return;
    unlinkat(dfd, name, 0);
    close(dfd);
    rmdir(dir);          /* only when empty */
}

/* A record's file name: its run's UUID and .json. */
bool unstored_name(const char *name)
{
    char uuid[40];
    size_t n = strlen(name);
    if (n != 41 || strcmp(name + 36, ".json") != 0)
        return false;
    snprintf(uuid, sizeof uuid, "%.36s", name);
    return store_run_uuid_ok(uuid);
}

int unstored_waiting(const char *db_path)
{
    char dir[PATH_MAX + 16];
    unstored_dir(db_path, dir, sizeof dir);
    struct pm_err err;
    int dfd = pm_open_private_dir(dir, false, &err);
    DIR *d = dfd < 0 ? NULL : fdopendir(dfd);
    if (!d) {
        if (dfd >= 0)
            close(dfd);
        return 0;
    }
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += unstored_name(e->d_name);
    closedir(d);
    return n;
}
