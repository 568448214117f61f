#include "collectors/sampler.h"
#include "lib/alloc.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "lib/percentile.h"
#include "lib/timeutil.h"

struct db_sink {
    struct sink base;
    struct sampler *s;
    struct collector *c;      /* whose values are being put */
    size_t pos;               /* how many it has put this tick */
};

/* FNV-1a, 64 bits: the name was just built on the stack, so hashing it
 * touches nothing cold. */
static uint64_t name_hash(const char *name, size_t len)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)name[i];
        h *= 1099511628211ull;
    }
    return h;
}

/* A file's keys come in the same order tick after tick, so the series a
 * position resolved to last time is checked by its name's hash first;
 * only a name that differs (a kernel that added a key, a cgroup file that
 * changed) goes to the table, which looks up by name. */
static struct series *resolve(struct sampler *s, struct db_sink *ds, const char *name, size_t len)
{
    struct collector *c = ds->c;
    size_t pos = ds->pos++;
    uint64_t h = name_hash(name, len);
    if (c && pos < c->slot_cap && c->slot_cache[pos].se && c->slot_cache[pos].hash == h)
        return c->slot_cache[pos].se;
    struct series *se = series_table_get(&s->table, name, len);
    if (!se || !c)
        return se;
    if (pos >= c->slot_cap) {
        size_t cap = pos < 64 ? 128 : pos * 2;
        struct slot_entry *v = realloc(c->slot_cache, cap * sizeof *v);
        if (!v)
            return se;
        memset(v + c->slot_cap, 0, (cap - c->slot_cap) * sizeof *v);
        c->slot_cache = v;
        c->slot_cap = cap;
    }
    /* The table may have grown and moved: cached pointers are only valid
     * until the next new series, so a new series clears the cache. */
    if (se->ticks == 0)
        for (size_t i = 0; i < s->ncols; i++)
            if (s->cols[i].slot_cache)
                memset(s->cols[i].slot_cache, 0, s->cols[i].slot_cap * sizeof *s->cols[i].slot_cache);
    c->slot_cache[pos] = (struct slot_entry){ .se = se, .hash = h };
    return se;
}

static void db_put(struct sink *self, const char *name, size_t len, struct pm_value v)
{
    struct db_sink *ds = (struct db_sink *)self;
    struct sampler *s = ds->s;
    if (s->failed)
        return;
    struct series *se = resolve(s, ds, name, len);
    if (!se) {
        s->failed = true;
        pm_errf(&s->err, "out of memory for series");
        return;
    }
    series_record(se, v);
    se->seen_tick = s->seq + 1;
}

/* Read every source that is due, then hand the tick to the writer. A
 * source with a cadence of its own (every_ns) is skipped between; its
 * series hold their last values. The first and the last tick read all. */
static int take_tick(struct sampler *s, uint64_t now, bool all)
{
    struct db_sink sink = { .base.put = db_put, .s = s };
    for (size_t i = 0; i < s->ncols; i++) {
        struct collector *c = &s->cols[i];
        if (!c->open_ok)
            continue;
        if (!all && c->every_ns && c->last_ns && now - c->last_ns + s->interval_ns / 2 < c->every_ns)
            continue;
        c->last_ns = now;
        sink.c = c;
        sink.pos = 0;
        struct pm_err cerr;
        if (c->ops->sample(c, &sink.base, &cerr) == 0) {
            c->ticks++;
        } else {
            /* One unreadable tick is noted, not fatal: a cgroup file can
             * vanish when the workload's cgroup is torn down at the end. */
            c->failures++;
            if (!c->note[0])
                snprintf(c->note, sizeof c->note, "read failed: %s", cerr.msg);
        }
    }
    if (s->failed || s->writer->write(s->writer, s->seq, now - s->t0, &s->table, s->stored_series, s->seq + 1,
                                      &s->err) < 0) {
        s->failed = true;
        return -1;
    }
    s->stored_series = s->table.n;
    double dt = s->seq ? (double)(now - s->last_tick_ns) / 1e9 : 0;
    for (size_t i = 0; i < s->table.n; i++)
        if (s->table.v[i].seen_tick == s->seq + 1)
            series_rate_step(&s->table.v[i], dt);
    s->last_tick_ns = now;
    s->seq++;
    return 0;
}

static void record_lateness(struct sampler *s, int64_t late)
{
    if (ALLOC_GROW(s->late_ns, s->nlate + 1, s->caplate) < 0)
        return;
    s->late_ns[s->nlate++] = late;
}

static void *sampler_main(void *arg)
{
    struct sampler *s = arg;
    /* A name top -H and perf report --comm show. */
    pthread_setname_np(pthread_self(), "pm-sampler");
    uint64_t deadline = s->t0 + s->interval_ns;
    pthread_mutex_lock(&s->mu);
    while (!s->stop && !s->failed) {
        struct timespec ts = pm_ns_to_timespec(deadline);
        int rc = pthread_cond_timedwait(&s->cv, &s->mu, &ts);
        if (s->stop)
            break;
        if (rc != ETIMEDOUT)
            continue;       /* spurious wake-up: the deadline has not come */
        pthread_mutex_unlock(&s->mu);
        uint64_t now = pm_now_ns();
        record_lateness(s, now > deadline ? (int64_t)(now - deadline) : 0);
        if (take_tick(s, now, false) < 0)
            s->failed = true;
        /* Deadlines stay on the grid t0 + k * interval; slots we are already
         * past are skipped and counted rather than taken in a burst. */
        uint64_t after = pm_now_ns();
        deadline += s->interval_ns;
        if (after >= deadline) {
            uint64_t behind = (after - deadline) / s->interval_ns + 1;
            s->missed_ticks += behind;
            deadline += behind * s->interval_ns;
        }
        pthread_mutex_lock(&s->mu);
    }
    pthread_mutex_unlock(&s->mu);
    if (!s->failed && take_tick(s, pm_now_ns(), true) < 0)
        s->failed = true;
    if (!s->failed && s->writer->flush && s->writer->flush(s->writer, &s->err) < 0)
        s->failed = true;
    struct timespec cpu;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu) == 0)
        s->cpu_s = (double)cpu.tv_sec + (double)cpu.tv_nsec / 1e9;
    return NULL;
}

int sampler_start(struct sampler *s, struct tick_writer *writer, uint64_t interval_ns,
                  struct collector *cols, size_t ncols, struct pm_err *err)
{
    memset(s, 0, sizeof *s);
    s->cols = cols;
    s->ncols = ncols;
    s->writer = writer;
    s->interval_ns = interval_ns;
    series_table_init(&s->table);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s->cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&s->mu, NULL);
    s->t0 = pm_now_ns();
    if (take_tick(s, s->t0, true) < 0) {
        pm_errf(err, "first tick: %s", s->err.msg);
        goto fail_sync;
    }
    int rc = pthread_create(&s->thread, NULL, sampler_main, s);
    if (rc) {
        pm_errf(err, "sampler thread: %s", strerror(rc));
        goto fail_sync;
    }
    s->running = true;
    return 0;
fail_sync:
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->mu);
    sampler_free(s);
    return -1;
}

int sampler_stop(struct sampler *s, struct pm_err *err)
{
    if (!s->running)
        return 0;
    pthread_mutex_lock(&s->mu);
    s->stop = true;
    pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->thread, NULL);
    s->running = false;
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->mu);
    if (s->failed)
        return pm_errf(err, "sampler: %s", s->err.msg);
    return 0;
}

void sampler_stats(struct sampler *s, struct sampler_stats *out)
{
    memset(out, 0, sizeof *out);
    out->ticks = s->seq;
    out->missed = s->missed_ticks;
    out->cpu_s = s->cpu_s;
    if (s->nlate) {
        out->late_p50_ms = pm_percentile_i64(s->late_ns, s->nlate, 50) / 1e6;
        out->late_p99_ms = pm_percentile_i64(s->late_ns, s->nlate, 99) / 1e6;
        out->late_max_ms = (double)s->late_ns[s->nlate - 1] / 1e6;
    }
}

void sampler_free(struct sampler *s)
{
    series_table_free(&s->table);
    free(s->late_ns);
    s->late_ns = NULL;
}
