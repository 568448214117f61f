#ifndef PM_WL_LATENCY_H
#define PM_WL_LATENCY_H
/* Latencies a workload's helper process measures (the chat client's
 * deliveries, stutter's probe), and how they reach the run.
 *
 * In the helper: one shared log-linear histogram (lib/loghist's buckets)
 * that any thread adds to with relaxed atomic increments, so a sample
 * costs one add, no lock, and 200 chat users share 30 KB instead of
 * owning 6 MB. The reporter reads windows of it (the buckets' growth
 * since its last look) for the p99 against time, and at the end writes
 * it bucket by bucket on its report pipe.
 *
 * In pressmark: a thread reads that pipe while the helper runs: "progress
 * N" lines become the live count, their window's p99 the run's gauge
 * workload.latency_p99_us, "lat"/"latstat" lines the histogram, and the
 * last other line is the helper's result. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include "lib/loghist.h"

struct run_ctx;

struct wl_latency {
    _Atomic uint64_t b[LOGHIST_BUCKETS];
    _Atomic uint64_t count, sum_ns, min_ns, max_ns;
    uint64_t seen[LOGHIST_BUCKETS];    /* the reporter's last look (its thread only) */
    uint64_t diff[LOGHIST_BUCKETS];    /* the reporter's window (its thread only) */
};

void wl_latency_init(struct wl_latency *l);
void wl_latency_record(struct wl_latency *l, uint64_t ns);
/* A progress line: "progress COUNT window_ns W window_n K window_p99_ns P",
 * with the window since the last call (p99 of its samples). */
int wl_latency_progress(struct wl_latency *l, uint64_t count, uint64_t window_ns, char *buf, size_t len);
/* Write the histogram to fd ("lat LOW COUNT" per bucket, then "latstat
 * COUNT SUM MIN MAX" and extra, if any, on that line); -1 for stdout. */
int wl_latency_report(struct wl_latency *l, int fd, const char *extra);

struct wl_reader {
    int fd;
    struct run_ctx *rc;
    const char *unit;            /* of the live count's rate: "msg/s" */
    atomic_bool stop;            /* the helper is gone: drain what is left and end */
    /* With stop: read on until the pipe's end of file, at most until then
     * (CLOCK_MONOTONIC ns; 0: until the pipe is first silent for 200 ms) */
    _Atomic uint64_t drain_by_ns;
    bool eof;                    /* the pipe's end of file came: no writer is left */
    char result[1024];           /* the last line that is none of the above */
    char latstat_extra[256];     /* what followed latstat's four numbers */
    struct loghist lat;
    bool lat_done;               /* latstat came and agreed with the buckets */
    pthread_t thread;
    bool running;
};

/* Start reading fd in a thread; 0, or -1 (no thread: wl_reader_stop reads
 * what the pipe holds then). */
int wl_reader_start(struct wl_reader *rr, int fd, struct run_ctx *rc, const char *unit);
/* After the helper exited: drain, join. */
void wl_reader_stop(struct wl_reader *rr);
/* After the helper and all that could hold the pipe's write end are gone
 * (killed with their cgroup; the caller closed its own copy after the
 * spawn): read to the pipe's end of file, at most until deadline_ns
 * (CLOCK_MONOTONIC), and join. true when the end came: what was read is
 * whole. false: a process outside the helper's cgroup still holds the
 * pipe (its user reopened /proc/PID/fd/N), and may write on for ever. */
bool wl_reader_finish(struct wl_reader *rr, uint64_t deadline_ns);
void wl_reader_free(struct wl_reader *rr);

#endif
