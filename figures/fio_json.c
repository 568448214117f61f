/* fio --output-format=json: each job's reads and writes (IOPS, bandwidth,
 * completion latency percentiles) and the sums over the jobs. fio's JSON
 * is read with jansson; the numbers are fio's own, the percentiles turned
 * from ns to us. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "figures/text.h"

/* Per direction: read's five, then write's five; then the sums. */
enum { F_IOPS, F_BW, F_P50, F_P99, F_P999, F_PER_DIR };
#define F_SUMS (2 * F_PER_DIR)
static const struct metric_def fio_defs[] = {
    METRIC("fio.<job>.read_iops", "ops/s", PM_HIGHER, "reads per second of a job that read (fio's read.iops)"),
    METRIC("fio.<job>.read_bw_kib_s", "KiB/s", PM_HIGHER,
           "read bandwidth of a job that read, in KiB/s as fio gives it (read.bw)"),
    METRIC("fio.<job>.read_clat_p50_us", "us", PM_LOWER,
           "median read completion latency (read.clat_ns.percentile 50.000000, ns to us)"),
    METRIC("fio.<job>.read_clat_p99_us", "us", PM_LOWER,
           "99th percentile of read completion latency (percentile 99.000000)"),
    METRIC("fio.<job>.read_clat_p999_us", "us", PM_LOWER,
           "99.9th percentile of read completion latency (percentile 99.900000)"),
    METRIC("fio.<job>.write_iops", "ops/s", PM_HIGHER, "writes per second of a job that wrote (fio's write.iops)"),
    METRIC("fio.<job>.write_bw_kib_s", "KiB/s", PM_HIGHER,
           "write bandwidth of a job that wrote, in KiB/s as fio gives it (write.bw)"),
    METRIC("fio.<job>.write_clat_p50_us", "us", PM_LOWER,
           "median write completion latency (write.clat_ns.percentile 50.000000)"),
    METRIC("fio.<job>.write_clat_p99_us", "us", PM_LOWER,
           "99th percentile of write completion latency (percentile 99.000000)"),
    METRIC("fio.<job>.write_clat_p999_us", "us", PM_LOWER,
           "99.9th percentile of write completion latency (percentile 99.900000)"),
    METRIC("fio.read_iops", "ops/s", PM_HIGHER, "reads per second, summed over the jobs that read"),
    METRIC("fio.read_bw_kib_s", "KiB/s", PM_HIGHER, "read bandwidth summed over the jobs that read"),
    METRIC("fio.write_iops", "ops/s", PM_HIGHER, "writes per second, summed over the jobs that wrote"),
    METRIC("fio.write_bw_kib_s", "KiB/s", PM_HIGHER, "write bandwidth summed over the jobs that wrote"),
};

/* More jobs than figures could hold; refused before any is read. */
#define FIO_MAX_JOBS ((FIGURES_MAX - 4) / F_SUMS)

static const char *const dir_key[2] = { "read", "write" };
static const char *const pct_key[3] = { "50.000000", "99.000000", "99.900000" };

struct fio_sums {
    double iops[2], bw[2];
    bool any[2];
};

static bool number_at(json_t *obj, const char *key, double *v)
{
    json_t *x = json_object_get(obj, key);
    if (!json_is_number(x))
        return false;
    *v = json_number_value(x);
    return true;
}

/* A figure the job's JSON lacks: named, with the key that was not there. */
static int fio_lacks(struct pm_err *err, int def, const char *word, const char *key)
{
    char name[96];
    if (figure_name(&fio_defs[def], word, name, sizeof name) < 0)
        snprintf(name, sizeof name, "%s", fio_defs[def].name);
    return pm_errf(err, "no %s: the job's JSON has no number at %s", name, key);
}

/* One direction of one job: nothing when it did no I/O that way (a read
 * job's write IOPS would be a 0 nobody measured), else all five figures. */
static int fio_dir(json_t *job, int d, const char *word, struct fio_sums *sums, struct figure_set *out,
                   struct pm_err *err)
{
    json_t *o = json_object_get(job, dir_key[d]);
    double ios, v[F_PER_DIR];
    char key[64];
    snprintf(key, sizeof key, "%s.total_ios", dir_key[d]);
    if (!json_is_object(o) || !number_at(o, "total_ios", &ios))
        return fio_lacks(err, d * F_PER_DIR + F_IOPS, word, key);
    if (ios <= 0)
        return 0;
    snprintf(key, sizeof key, "%s.iops", dir_key[d]);
    if (!number_at(o, "iops", &v[F_IOPS]))
        return fio_lacks(err, d * F_PER_DIR + F_IOPS, word, key);
    snprintf(key, sizeof key, "%s.bw", dir_key[d]);
    if (!number_at(o, "bw", &v[F_BW]))
        return fio_lacks(err, d * F_PER_DIR + F_BW, word, key);
    json_t *pct = json_object_get(json_object_get(o, "clat_ns"), "percentile");
    for (int k = 0; k < 3; k++) {
        snprintf(key, sizeof key, "%s.clat_ns.percentile.\"%s\"", dir_key[d], pct_key[k]);
        if (!number_at(pct, pct_key[k], &v[F_P50 + k]))
            return fio_lacks(err, d * F_PER_DIR + F_P50 + k, word, key);
        v[F_P50 + k] /= 1000.0;
    }
    for (int f = 0; f < F_PER_DIR; f++)
        if (figure_set_add(out, &fio_defs[d * F_PER_DIR + f], word, v[f], err) < 0)
            return -1;
    sums->iops[d] += v[F_IOPS];
    sums->bw[d] += v[F_BW];
    sums->any[d] = true;
    return 0;
}

static int fio_job(json_t *job, size_t i, const char *word, struct fio_sums *sums, struct figure_set *out,
                   struct pm_err *err)
{
    double error;
    if (!number_at(job, "error", &error))
        return pm_errf(err, "job %zu (%s) has no error number: not fio's JSON", i, word);
    if (error != 0) {
        const char *e = error > 0 && error < 4096 ? strerrorname_np((int)error) : NULL;
        return pm_errf(err, "no fio.%s figures: job %zu (%s) ended with error %.0f%s%s (fio says why on its standard "
                       "error)", word, i, word, error, e ? ", " : "", e ? e : "");
    }
    for (int d = 0; d < 2; d++)
        if (fio_dir(job, d, word, sums, out, err) < 0)
            return -1;
    return 0;
}

/* Each job's word: its name's, and when jobs share a name (numjobs=N
 * gives N jobs of one name) the word and the job's place among them,
 * from 1 (each counted on the bare words, before any is given its place). */
struct fio_word {
    char w[FIGURES_MAX_WORD + 8];
    size_t place, same;
};

static int fio_words(json_t *jobs, struct fio_word *words, struct pm_err *err)
{
    size_t n = json_array_size(jobs);
    for (size_t i = 0; i < n; i++) {
        const char *name = json_string_value(json_object_get(json_array_get(jobs, i), "jobname"));
        if (!name)
            return pm_errf(err, "job %zu has no jobname: not fio's JSON", i);
        if (!fig_word(name, strlen(name), words[i].w))
            return pm_errf(err, "job %zu's name has no letter or digit to name its figures", i);
        words[i].place = words[i].same = 0;
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            if (strcmp(words[i].w, words[j].w) == 0) {
                words[i].same++;
                words[i].place += j <= i;
            }
    for (size_t i = 0; i < n; i++)
        if (words[i].same > 1)
            snprintf(words[i].w + strlen(words[i].w), 8, "_%zu", words[i].place);
    return 0;
}

static int fio_sums_add(const struct fio_sums *sums, struct figure_set *out, struct pm_err *err)
{
    for (int d = 0; d < 2; d++) {
        if (!sums->any[d])
            continue;
        if (figure_set_add(out, &fio_defs[F_SUMS + 2 * d], NULL, sums->iops[d], err) < 0 ||
            figure_set_add(out, &fio_defs[F_SUMS + 2 * d + 1], NULL, sums->bw[d], err) < 0)
            return -1;
    }
    return 0;
}

static int fio_parse(const char *text, const char *log, struct figure_set *out, struct pm_err *err)
{
    (void)log;
    json_t *doc = fig_json_load(text, false, "JSON of fio --output-format=json", err);
    if (!doc)
        return -1;
    json_t *jobs = json_object_get(doc, "jobs");
    size_t n = json_array_size(jobs);
    struct fio_word *words = NULL;
    struct fio_sums sums = { { 0, 0 }, { 0, 0 }, { false, false } };
    int rc = -1;
    if (!json_is_array(jobs) || n == 0)
        pm_errf(err, "no jobs in fio's JSON (no \"jobs\" array, or an empty one)");
    else if (n > FIO_MAX_JOBS)
        pm_errf(err, "%zu jobs in fio's JSON, more than the %d read", n, FIO_MAX_JOBS);
    else if (!(words = calloc(n, sizeof *words)))
        pm_errf(err, "out of memory for %zu jobs", n);
    else if (fio_words(jobs, words, err) == 0) {
        rc = 0;
        for (size_t i = 0; i < n && rc == 0; i++)
            rc = fio_job(json_array_get(jobs, i), i, words[i].w, &sums, out, err);
        if (rc == 0 && !sums.any[0] && !sums.any[1])
            rc = pm_errf(err, "no fio.read_iops or fio.write_iops: no job read or wrote (total_ios 0)");
        if (rc == 0)
            rc = fio_sums_add(&sums, out, err);
    }
    free(words);
    json_decref(doc);
    return rc;
}

/* The headline (docs/guide/figures.md says why each). */
static const char *const fio_headline[] = { "fio.read_iops", "fio.write_iops", NULL };

const struct figure_parser figures_fio = {
    .name = "fio",
    .reads = "fio --output-format=json",
    .defs = fio_defs,
    .n = sizeof fio_defs / sizeof fio_defs[0],
    .headline = fio_headline,
    .parse = fio_parse,
};
