#include "workloads/latency.h"
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/timeutil.h"
#include "workloads/workload.h"

void wl_latency_init(struct wl_latency *l)
{
    for (size_t i = 0; i < LOGHIST_BUCKETS; i++)
        atomic_init(&l->b[i], 0);
    atomic_init(&l->count, 0);
    atomic_init(&l->sum_ns, 0);
    atomic_init(&l->min_ns, UINT64_MAX);
    atomic_init(&l->max_ns, 0);
    memset(l->seen, 0, sizeof l->seen);
}

void wl_latency_record(struct wl_latency *l, uint64_t ns)
{
    atomic_fetch_add_explicit(&l->b[loghist_index(ns)], 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&l->sum_ns, ns, memory_order_relaxed);
    uint64_t m = atomic_load_explicit(&l->max_ns, memory_order_relaxed);
    while (ns > m && !atomic_compare_exchange_weak_explicit(&l->max_ns, &m, ns, memory_order_relaxed,
                                                            memory_order_relaxed))
        ;
    m = atomic_load_explicit(&l->min_ns, memory_order_relaxed);
    while (ns < m && !atomic_compare_exchange_weak_explicit(&l->min_ns, &m, ns, memory_order_relaxed,
                                                            memory_order_relaxed))
        ;
    /* Last, so a count never runs ahead of the buckets it counts. */
    atomic_fetch_add_explicit(&l->count, 1, memory_order_release);
}

/* The p-th percentile of what arrived since the last call, and how many
 * did (0: nothing; *pct untouched). Reporter's thread only. */
static uint64_t wl_latency_window(struct wl_latency *l, double p, double *pct)
{
    uint64_t *diff = l->diff;
    uint64_t n = 0;
    for (size_t i = 0; i < LOGHIST_BUCKETS; i++) {
        uint64_t v = atomic_load_explicit(&l->b[i], memory_order_relaxed);
        diff[i] = v - l->seen[i];
        l->seen[i] = v;
        n += diff[i];
    }
    if (n) {
        /* Bounds unknown within a window: the percentile is the bucket's middle. */
        struct loghist w = { .count = n, .min = 0, .max = UINT64_MAX, .b = diff };
        *pct = loghist_percentile(&w, p);
    }
    return n;
}

/* The whole histogram as a loghist (exact min, max and sum); 0 or -1. */
static int wl_latency_total(struct wl_latency *l, struct loghist *h)
{
    memset(h, 0, sizeof *h);
    uint64_t n = 0;
    for (size_t i = 0; i < LOGHIST_BUCKETS; i++)
        n += atomic_load_explicit(&l->b[i], memory_order_relaxed);
    if (!n)
        return 0;
    if (!(h->b = calloc(LOGHIST_BUCKETS, sizeof *h->b)))
        return -1;
    for (size_t i = 0; i < LOGHIST_BUCKETS; i++)
        h->b[i] = atomic_load_explicit(&l->b[i], memory_order_relaxed);
    h->count = n;
    h->sum = (long double)atomic_load_explicit(&l->sum_ns, memory_order_relaxed);
    h->min = atomic_load_explicit(&l->min_ns, memory_order_relaxed);
    h->max = atomic_load_explicit(&l->max_ns, memory_order_relaxed);
    return 0;
}

int wl_latency_progress(struct wl_latency *l, uint64_t count, uint64_t window_ns, char *buf, size_t len)
{
    double p99 = 0;
    uint64_t k = wl_latency_window(l, 99, &p99);
    return snprintf(buf, len, "progress %llu window_ns %llu window_n %llu window_p99_ns %.0f\n",
                    (unsigned long long)count, (unsigned long long)window_ns, (unsigned long long)k, k ? p99 : 0.0);
}

static int put(int fd, const char *line, int n)
{
    if (fd < 0)
        return fputs(line, stdout) < 0 ? -1 : 0;
    return write(fd, line, (size_t)n) == n ? 0 : -1;
}

int wl_latency_report(struct wl_latency *l, int fd, const char *extra)
{
    struct loghist h;
    if (wl_latency_total(l, &h) < 0)
        return -1;
    char line[384];
    int n, rc = 0;
    for (size_t i = 0; h.count && i < LOGHIST_BUCKETS && rc == 0; i++) {
        if (!h.b[i])
            continue;
        uint64_t lo, hi;
        loghist_bounds(i, &lo, &hi);
        n = snprintf(line, sizeof line, "lat %llu %llu\n", (unsigned long long)lo, (unsigned long long)h.b[i]);
        rc = put(fd, line, n);
    }
    n = snprintf(line, sizeof line, "latstat %llu %.0Lf %llu %llu%s%s\n", (unsigned long long)h.count, h.sum,
                 (unsigned long long)(h.count ? h.min : 0), (unsigned long long)h.max, extra ? " " : "",
                 extra ? extra : "");
    if (rc == 0)
        rc = put(fd, line, n);
    loghist_free(&h);
    return rc;
}

static unsigned long long field(const char *line, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, " %s ", key);
    const char *p = strstr(line, pat);
    return p ? strtoull(p + strlen(pat), NULL, 10) : 0;
}

/* One line of the helper's reports, into rr: the live count and its
 * window's p99 as a gauge, the histogram's buckets and latstat, else the
 * result line. */
static void wl_reader_line(struct wl_reader *rr, const char *line)
{
    unsigned long long a, b, c, d;
    long double sum;
    int end = 0;
    if (strncmp(line, "progress ", 9) == 0) {
        run_live_count(rr->rc, strtoull(line + 9, NULL, 10), rr->unit);
        if (field(line, "window_n"))
            run_gauge(rr->rc, "workload.latency_p99_us", (double)field(line, "window_p99_ns") / 1e3);
    } else if (sscanf(line, "lat %llu %llu", &a, &b) == 2) {
        loghist_add_bucket(&rr->lat, a, b);
    } else if (sscanf(line, "latstat %llu %Lf %llu %llu%n", &a, &sum, &c, &d, &end) == 4) {
        /* The buckets gave the count; the helper knows min, max and sum exactly. */
        if (a == rr->lat.count && a) {
            rr->lat.min = c;
            rr->lat.max = d;
            rr->lat.sum = sum;
        }
        rr->lat_done = a == rr->lat.count;
        snprintf(rr->latstat_extra, sizeof rr->latstat_extra, "%s", line + end + (line[end] == ' '));
    } else {
        snprintf(rr->result, sizeof rr->result, "%s", line);
    }
}

/* Should the reader end, with nothing more to read now (quiet) or not? */
static bool reader_done(struct wl_reader *rr, bool quiet)
{
    if (!atomic_load(&rr->stop))
        return false;
    uint64_t by = atomic_load(&rr->drain_by_ns);
    return by ? pm_now_ns() >= by : quiet;
}

static void *read_reports(void *arg)
{
    struct wl_reader *rr = arg;
    char buf[2048];
    size_t o = 0;
    for (;;) {
        struct pollfd p = { .fd = rr->fd, .events = POLLIN };
        int r = poll(&p, 1, 200);
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0) {
            if (reader_done(rr, true))
                break;
            continue;
        }
        ssize_t n = r > 0 ? read(rr->fd, buf + o, sizeof buf - 1 - o) : -1;
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n <= 0) {
            rr->eof = n == 0;
            break;
        }
        o += (size_t)n;
        buf[o] = '\0';
        char *start = buf, *nl;
        while ((nl = strchr(start, '\n'))) {
            *nl = '\0';
            wl_reader_line(rr, start);
            start = nl + 1;
        }
        o = strlen(start);
        memmove(buf, start, o + 1);
        if (o == sizeof buf - 1)
            o = 0;               /* a line longer than any helper writes: dropped */
        /* A writer that never stops (another process holding the pipe)
         * ends the drain at its deadline all the same. */
        if (reader_done(rr, false))
            break;
    }
    if (o) {
        buf[o] = '\0';
        wl_reader_line(rr, buf);
    }
    return NULL;
}

int wl_reader_start(struct wl_reader *rr, int fd, struct run_ctx *rc, const char *unit)
{
    memset(rr, 0, sizeof *rr);
    rr->fd = fd;
    rr->rc = rc;
    rr->unit = unit;
    atomic_init(&rr->stop, false);
    atomic_init(&rr->drain_by_ns, 0);
    rr->running = pthread_create(&rr->thread, NULL, read_reports, rr) == 0;
    return rr->running ? 0 : -1;
}

void wl_reader_stop(struct wl_reader *rr)
{
    if (rr->running) {
        atomic_store(&rr->stop, true);
        pthread_join(rr->thread, NULL);
        rr->running = false;
        return;
    }
    /* No thread: what the helper wrote is in the pipe (its result line
     * and latencies fit, as nobody drained them meanwhile). */
    rr->stop = true;
    read_reports(rr);
}

bool wl_reader_finish(struct wl_reader *rr, uint64_t deadline_ns)
{
    atomic_store(&rr->drain_by_ns, deadline_ns ? deadline_ns : 1);
    wl_reader_stop(rr);
    return rr->eof;
}

void wl_reader_free(struct wl_reader *rr)
{
    loghist_free(&rr->lat);
}
