#include "collectors/gauges.h"
#include "collectors/source.h"
#include <string.h>

void gauges_init(struct gauges *gs)
{
    memset(gs->g, 0, sizeof gs->g);
    atomic_init(&gs->n, 0);
    pthread_mutex_init(&gs->mu, NULL);
}

void gauges_destroy(struct gauges *gs)
{
    pthread_mutex_destroy(&gs->mu);
}

static uint64_t to_bits(double v)
{
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}

static double from_bits(uint64_t b)
{
    double v;
    memcpy(&v, &b, sizeof v);
    return v;
}

int gauges_set(struct gauges *gs, const char *name, double v)
{
    size_t n = atomic_load_explicit(&gs->n, memory_order_acquire);
    for (size_t i = 0; i < n; i++)
        if (strcmp(gs->g[i].name, name) == 0) {
            atomic_store_explicit(&gs->g[i].bits, to_bits(v), memory_order_relaxed);
            return 0;
        }
    if (strlen(name) >= GAUGE_NAME_MAX)
        return -1;
    pthread_mutex_lock(&gs->mu);
    /* Another thread may have added it meanwhile. */
    n = atomic_load_explicit(&gs->n, memory_order_relaxed);
    size_t i = 0;
    while (i < n && strcmp(gs->g[i].name, name) != 0)
        i++;
    int rc = 0;
    if (i < n) {
        atomic_store_explicit(&gs->g[i].bits, to_bits(v), memory_order_relaxed);
    } else if (n < GAUGES_MAX) {
        strcpy(gs->g[n].name, name);
        atomic_store_explicit(&gs->g[n].bits, to_bits(v), memory_order_relaxed);
        /* Release: a reader that sees n + 1 sees the name and value. */
        atomic_store_explicit(&gs->n, n + 1, memory_order_release);
    } else {
        rc = -1;
    }
    pthread_mutex_unlock(&gs->mu);
    return rc;
}

static int gauges_open(struct collector *c, struct pm_err *err)
{
    (void)c;
    (void)err;
    return 0;
}

static int gauges_sample(struct collector *c, struct sink *sink, struct pm_err *err)
{
    (void)err;
    struct gauges *gs = c->priv;
    size_t n = atomic_load_explicit(&gs->n, memory_order_acquire);
    for (size_t i = 0; i < n; i++) {
        double v = from_bits(atomic_load_explicit(&gs->g[i].bits, memory_order_relaxed));
        sink->put(sink, gs->g[i].name, strlen(gs->g[i].name), (struct pm_value){ .kind = PM_REAL, .r = v });
    }
    return 0;
}

static void gauges_close(struct collector *c)
{
    (void)c;
}

static const struct collector_ops gauges_collector_ops = {
    .open = gauges_open, .sample = gauges_sample, .close = gauges_close,
};

/* The collector: every published gauge as a real series of that name. */
static void gauges_collector_init(struct collector *c, struct gauges *gs)
{
    memset(c, 0, sizeof *c);
    c->ops = &gauges_collector_ops;
    c->source = "workload";
    strcpy(c->path, "(the workload's own gauges)");
    strcpy(c->prefix, "workload");
    c->priv = gs;
    c->fd = -1;
}

static void gauges_source_init(struct source_set *ss, const struct source_opts *o)
{
    struct collector *c = o->gauges ? source_next(ss) : NULL;
    if (c)
        gauges_collector_init(c, o->gauges);
}

/* The workload's own values while it runs (run_gauge): series only. */
const struct source_def source_workload = { .init = gauges_source_init };
