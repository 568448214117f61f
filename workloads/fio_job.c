/* run fio's job files (fio_job.h). */
#include "workloads/fio_job.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "figures/text.h"

const char *const fio_rw_words[] = { "read", "randread", "write", "randwrite", "readwrite", "randrw", NULL };
const char *const fio_engine_words[] = { "psync", "sync", "pvsync", "pvsync2", "io_uring", "libaio", "posixaio",
                                         "mmap", NULL };

bool fio_rw_reads(unsigned rw)
{
    return rw != FIO_WRITE && rw != FIO_RANDWRITE;
}

bool fio_rw_writes(unsigned rw)
{
    return rw != FIO_READ && rw != FIO_RANDREAD;
}

static bool rw_random(unsigned rw)
{
    return rw == FIO_RANDREAD || rw == FIO_RANDWRITE || rw == FIO_RANDRW;
}

bool fio_engine_async(unsigned engine)
{
    return engine == FIO_IO_URING || engine == FIO_LIBAIO || engine == FIO_POSIXAIO;
}

uint64_t fio_job_size(uint64_t dataset, uint64_t bs)
{
    return bs ? dataset - dataset % bs : 0;
}

uint64_t fio_layout_bs(const struct fio_job *j)
{
    return j->size % (1u << 20) == 0 ? 1u << 20 : j->bs;
}

bool fio_job_path_ok(const char *path)
{
    static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-/";
    return path[0] && strspn(path, ok) == strlen(path);
}

/* Lines appended to a buffer; a line that does not fit marks it full. */
struct text {
    char *buf;
    size_t len, used;
    bool full;
};

__attribute__((format(printf, 2, 3))) static void line(struct text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = t->full ? -1 : vsnprintf(t->buf + t->used, t->len - t->used, fmt, ap);
    va_end(ap);
    /* n bytes and the NUL must fit: an exact fit is a fit. */
    if (n < 0 || (size_t)n + 1 > t->len - t->used)
        t->full = true;
    else
        t->used += (size_t)n;
}

/* The layout phase: the file written once, start to end, then synced, so
 * the measured phase starts with none of its writeback to do. */
static void layout_text(const struct fio_job *j, struct text *t)
{
    line(t, "; pressmark run fio, the layout phase: the file written once, start to end, and synced.\n");
    line(t, "; Written by pressmark from numbers and fixed words.\n");
    line(t, "[layout]\n");
    line(t, "size=%llu\n", (unsigned long long)j->size);
    line(t, "bs=%llu\n", (unsigned long long)fio_layout_bs(j));
    line(t, "rw=write\nioengine=psync\ndirect=0\ninvalidate=0\nend_fsync=1\n");
    line(t, "thread=1\n");
}

/* The measured phase: the operator's I/O, buffered, over what the layout
 * and the cap left cached. Random modes as the MGLRU cover letter ran
 * them: uniform offsets, no map of the blocks done (norandommap), so a
 * block may be read again while another is not read at all. One report
 * for all the jobs (group_reporting): their IOPS summed, their
 * percentiles over every I/O. */
static void measured_text(const struct fio_job *j, struct text *t)
{
    line(t, "; pressmark run fio, the measured phase: buffered I/O over the file the layout phase wrote,\n");
    line(t, "; its cached pages kept. Written by pressmark from numbers and fixed words.\n");
    line(t, "[measured]\n");
    line(t, "size=%llu\n", (unsigned long long)j->size);
    line(t, "bs=%llu\n", (unsigned long long)j->bs);
    line(t, "rw=%s\n", fio_rw_words[j->rw]);
    line(t, "ioengine=%s\n", fio_engine_words[j->engine]);
    line(t, "iodepth=%u\nnumjobs=%u\n", j->iodepth, j->numjobs);
    line(t, "direct=0\ninvalidate=0\ngroup_reporting=1\n");
    /* One process for every job (fio_job.h: the parent-death signal). */
    line(t, "thread=1\n");
    if (rw_random(j->rw))
        line(t, "random_distribution=random\nnorandommap=1\n");
    if (j->runtime_ns) {
        /* fio's runtime in whole milliseconds, never 0 (which is none). */
        unsigned long long ms = (j->runtime_ns + 999999) / 1000000;
        line(t, "time_based=1\nruntime=%llums\n", ms);
    }
}

int fio_job_text(const struct fio_job *j, enum fio_phase phase, const char *path, char *buf, size_t len,
                 struct pm_err *err)
{
    if (!fio_job_path_ok(path))
        return pm_errf(err, "'%s' cannot go into a fio job file (accepted: a path of letters, digits and . _ + - /)",
                       path);
    struct text t = { buf, len, 0, len == 0 };
    if (len)
        buf[0] = '\0';
    if (phase == FIO_LAYOUT)
        layout_text(j, &t);
    else
        measured_text(j, &t);
    line(&t, "filename=%s\n", path);
    if (t.full)
        return pm_errf(err, "internal: fio's job file is longer than %zu bytes", len);
    return 0;
}

/* One job's io_bytes of direction d ("read", "write") added to *sum. */
static int add_io_bytes(json_t *job, size_t i, const char *d, uint64_t *sum, char *why, size_t len)
{
    json_t *v = json_object_get(json_object_get(job, d), "io_bytes");
    if (!json_is_integer(v)) {
        snprintf(why, len, "no %s.io_bytes in fio's JSON (job %zu)", d, i);
        return -1;
    }
    json_int_t b = json_integer_value(v);
    if (b < 0 || (uint64_t)b > UINT64_MAX - *sum) {
        snprintf(why, len, "fio's JSON has %s.io_bytes %lld (job %zu): not a count of bytes", d, (long long)b, i);
        return -1;
    }
    *sum += (uint64_t)b;
    return 0;
}

int fio_io_bytes(const char *json, const struct fio_job *j, uint64_t bytes[2], char *why, size_t len)
{
    static const char *const dir[2] = { "read", "write" };
    const bool does[2] = { fio_rw_reads(j->rw), fio_rw_writes(j->rw) };
    struct pm_err e;
    bytes[0] = bytes[1] = 0;
    json_t *doc = fig_json_load(json, false, "JSON of fio --output-format=json", &e);
    if (!doc) {
        snprintf(why, len, "%s", e.msg);
        return -1;
    }
    json_t *jobs = json_object_get(doc, "jobs");
    int r = 0;
    if (!json_array_size(jobs)) {
        snprintf(why, len, "fio's JSON has no jobs");
        r = -1;
    }
    for (size_t i = 0; r == 0 && i < json_array_size(jobs); i++)
        for (int d = 0; r == 0 && d < 2; d++)
            if (does[d])
                r = add_io_bytes(json_array_get(jobs, i), i, dir[d], &bytes[d], why, len);
    json_decref(doc);
    if (r < 0)
        bytes[0] = bytes[1] = 0;
    return r;
}

int fio_pass_check(const struct fio_job *j, const uint64_t bytes[2], char *why, size_t len)
{
    if (j->runtime_ns)
        return 0;
    const bool reads = fio_rw_reads(j->rw), writes = fio_rw_writes(j->rw);
    uint64_t moved = (reads ? bytes[0] : 0) + (writes ? bytes[1] : 0);
    uint64_t want = j->size * j->numjobs;
    if (moved == want)
        return 0;
    snprintf(why, len, "one pass of %u job%s over %llu bytes %s %llu bytes, not %llu", j->numjobs,
             j->numjobs == 1 ? "" : "s", (unsigned long long)j->size,
             reads && writes ? "read and wrote" : reads ? "read" : "wrote", (unsigned long long)moved,
             (unsigned long long)want);
    return -1;
}
