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

static int sampler_tick(void *arg, uint64_t deadline, uint64_t now)
{
    struct sampler *s = arg;
    record_lateness(s, now > deadline ? (int64_t)(now - deadline) : 0);
    if (take_tick(s, now, false) < 0) {
        s->failed = true;
        return -1;
    }
    return 0;
}

/* The tick at stop (run totals cover the run to its end), the writer's
 * flush, and the thread's own CPU time. */
static void sampler_last(void *arg)
{
    struct sampler *s = arg;
    if (!s->failed && take_tick(s, pm_now_ns(), true) < 0)
        s->failed = true;
    if (!s->failed && s->writer->flush && s->writer->flush(s->writer, &s->err) < 0)
        s->failed = true;
    struct timespec cpu;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu) == 0)
        s->cpu_s = (double)cpu.tv_sec + (double)cpu.tv_nsec / 1e9;
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
    s->t0 = pm_now_ns();
    if (take_tick(s, s->t0, true) < 0) {
        pm_errf(err, "first tick: %s", s->err.msg);
        sampler_free(s);
        return -1;
    }
    s->thread = (struct periodic){ .tick = sampler_tick, .last = sampler_last, .arg = s };
    if (periodic_start(&s->thread, "pm-sampler", s->t0 + interval_ns, interval_ns, err) < 0) {
        sampler_free(s);
        return -1;
    }
    return 0;
}

int sampler_stop(struct sampler *s, struct pm_err *err)
{
    if (!s->thread.running)
        return 0;
    periodic_stop(&s->thread);
    if (s->failed)
        return pm_errf(err, "sampler: %s", s->err.msg);
    return 0;
}

void sampler_stats(struct sampler *s, struct sampler_stats *out)
{
    memset(out, 0, sizeof *out);
    out->ticks = s->seq;
    out->missed = periodic_missed(&s->thread);
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
