#include "collectors/heartbeat.h"
#include "collectors/source.h"
#include "lib/alloc.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "lib/percentile.h"
#include "lib/timeutil.h"

static void record_beat(struct heartbeat *hb, int64_t late)
{
    if (ALLOC_GROW(hb->late_ns, hb->n + 1, hb->cap) < 0) {
        hb->alloc_failed = true;
        return;
    }
    hb->late_ns[hb->n++] = late;
}

/* A beat: how late it woke, kept for the run's percentiles and as the
 * worst since the sampler's last tick. A beat that could not happen because
 * this one was so late is skipped, as vmstat's missing lines were: the
 * thread counts it and aims for the next slot. */
static int heartbeat_beat(void *arg, uint64_t deadline, uint64_t now)
{
    struct heartbeat *hb = arg;
    int64_t late = now > deadline ? (int64_t)(now - deadline) : 0;
    record_beat(hb, late);
    atomic_fetch_add(&hb->beats, 1);
    int64_t prev = atomic_load(&hb->late_max_since_sample);
    while (late > prev && !atomic_compare_exchange_weak(&hb->late_max_since_sample, &prev, late))
        ;
    return 0;
}

int heartbeat_start(struct heartbeat *hb, uint64_t period_ns, struct pm_err *err)
{
    memset(hb, 0, sizeof *hb);
    hb->period_ns = period_ns;
    atomic_init(&hb->beats, 0);
    atomic_init(&hb->late_max_since_sample, 0);
    hb->thread = (struct periodic){ .tick = heartbeat_beat, .arg = hb, .skip_by_wake = true };
    return periodic_start(&hb->thread, "pm-heartbeat", pm_now_ns() + period_ns, period_ns, err);
}

void heartbeat_stop(struct heartbeat *hb)
{
    periodic_stop(&hb->thread);
}

int heartbeat_stats(struct heartbeat *hb, struct heartbeat_stats *out)
{
    memset(out, 0, sizeof *out);
    out->beats = atomic_load(&hb->beats);
    out->skipped = periodic_missed(&hb->thread);
    if (hb->n == 0)
        return 0;
    out->p50_ms = pm_percentile_i64(hb->late_ns, hb->n, 50) / 1e6;
    out->p99_ms = pm_percentile_i64(hb->late_ns, hb->n, 99) / 1e6;
    out->max_ms = (double)hb->late_ns[hb->n - 1] / 1e6;   /* sorted by the call above */
    return 0;
}

void heartbeat_free(struct heartbeat *hb)
{
    free(hb->late_ns);
    hb->late_ns = NULL;
    hb->n = hb->cap = 0;
}

static int hb_open(struct collector *c, struct pm_err *err)
{
    (void)err;
    (void)c;
    return 0;
}

static int hb_sample(struct collector *c, struct sink *sink, struct pm_err *err)
{
    (void)err;
    struct heartbeat *hb = c->priv;
    int64_t late = atomic_exchange(&hb->late_max_since_sample, 0);
    static const char late_name[] = "heartbeat.late_max_us";
    static const char skip_name[] = "heartbeat.skipped";
    sink->put(sink, late_name, sizeof late_name - 1, (struct pm_value){ .kind = PM_INT, .i = late / 1000 });
    sink->put(sink, skip_name, sizeof skip_name - 1,
              (struct pm_value){ .kind = PM_INT, .i = (int64_t)periodic_missed(&hb->thread) });
    return 0;
}

static void hb_close(struct collector *c)
{
    (void)c;
}

static const struct collector_ops heartbeat_collector_ops = {
    .open = hb_open, .sample = hb_sample, .close = hb_close,
};

/* A collector that puts heartbeat.late_max_us (the worst lateness since the
 * previous tick) and heartbeat.skipped (cumulative), so charts can show when
 * the stalls happened, not only how bad they were. */
static void heartbeat_collector_init(struct collector *c, struct heartbeat *hb)
{
    memset(c, 0, sizeof *c);
    c->ops = &heartbeat_collector_ops;
    c->source = "heartbeat";
    strcpy(c->path, "(heartbeat thread)");
    strcpy(c->prefix, "heartbeat");
    c->priv = hb;
    c->fd = -1;
}

static void heartbeat_source_init(struct source_set *ss, const struct source_opts *o)
{
    struct collector *c = o->hb ? source_next(ss) : NULL;
    if (c)
        heartbeat_collector_init(c, o->hb);
}

/* Its metrics (heartbeat.*) are the run's own, made from its statistics
 * where the sampler's are (the observer's group in harness/). */
const struct source_def source_heartbeat = { .init = heartbeat_source_init };
