/* What each source costs per read: the collectors a run opens, sampled at
 * an interval like the sampler's (caches as cold as a run's), the thread's
 * CPU time around each one. Usage: sources_cost [CGROUP_DIR [V [INTERVAL_US [N]]]] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "collectors/sources.h"

static double cpu_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static void discard(struct sink *s, const char *n, size_t l, struct pm_value v)
{
    (void)s, (void)n, (void)l, (void)v;
}

int main(int argc, char **argv)
{
    struct source_opts so = { .memcg_dir = argc > 1 && argv[1][0] ? argv[1] : NULL,
                              .memcg_version = argc > 2 ? atoi(argv[2]) : 1 };
    int interval_us = argc > 3 ? atoi(argv[3]) : 100000, n = argc > 4 ? atoi(argv[4]) : 50;
    struct source_set ss;
    sources_init(&ss, &so);
    sources_open(&ss);
    double cost[PM_MAX_SOURCES] = { 0 };
    struct sink sk = { .put = discard };
    for (int k = 0; k < n; k++) {
        usleep((useconds_t)interval_us);
        for (size_t i = 0; i < ss.n; i++) {
            if (!ss.cols[i].open_ok)
                continue;
            struct pm_err e;
            double a = cpu_us();
            ss.cols[i].ops->sample(&ss.cols[i], &sk, &e);
            cost[i] += cpu_us() - a;
        }
    }
    double total = 0;
    printf("%-12s %-58s %9s\n", "source", "path", "us/read");
    for (size_t i = 0; i < ss.n; i++) {
        if (!ss.cols[i].open_ok) {
            printf("%-12s %-58s %9s  (%s)\n", ss.cols[i].source, ss.cols[i].path, "-", ss.cols[i].note);
            continue;
        }
        double c = cost[i] / n;
        printf("%-12s %-58s %9.1f%s\n", ss.cols[i].source, ss.cols[i].path, c,
               ss.cols[i].every_ns ? "  (read once a second)" : "");
        total += c;
    }
    printf("%-12s %-58s %9.1f\n", "all", "(if every source were read every tick)", total);
    sources_close(&ss);
    return 0;
}
