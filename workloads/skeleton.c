/* The shape of a workload, to copy when adding one. It is compiled with the
 * rest (so it keeps up with the interface) but not registered: to make a
 * copy runnable, add one line to registry.c. The steps:
 *
 *   1. A state struct: every option's field, plus what the runs share.
 *   2. An option table: name, type, field, bounds, default, help. The run
 *      command parses, checks bounds, prints --help and writes the stored
 *      configuration from it; nothing here compares option names.
 *   3. Its metrics, declared once in a table: name (workload.key), unit,
 *      which way is better, what it means. help metrics, the man page and
 *      the tests' strict check read the table; nothing else names a unit.
 *   4. run(): start the work inside the cap with run_spawn*() (the child is
 *      pressmark's own binary for a helper, listed in .helpers), wait with
 *      run_wait() — or both, with the helper's report, by run_helper() —
 *      then hand metrics to the run with run_metric(rc, &defs[X], value).
 *      Workloads never write the database, and a failed workload says so
 *      with run_set_status().
 *   5. The ops table, then one line in registry.c.
 *
 * This one is a complete workload: N passes writing one word per page over
 * --size of anonymous memory, in a helper process, as MB/s. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "lib/metrics.h"
#include "lib/timeutil.h"
#include "workloads/workload.h"
#include "metric_names.h"     /* generated from the metric tables (tools/metric-names.awk) */

struct skeleton_state {
    uint64_t size;
    unsigned passes;
};

#define SK(field) offsetof(struct skeleton_state, field)
static const struct opt skeleton_options[] = {
    { .name = "size", .type = OPT_SIZE, .offset = SK(size), .metavar = "SIZE", .def = "64M", .flags = OPT_PCT_MEM,
      .min = 4096, .max = 1e15, .extra = "at least 4K", .help = "anonymous memory to write" },
    { .name = "passes", .type = OPT_UINT, .offset = SK(passes), .metavar = "N", .def = "3", .min = 1, .max = 1000,
      .noun = "pass count", .help = "passes over it" },
    { .type = OPT_END },
};

/* The helper: "pressmark __skeleton SIZE PASSES", reporting on descriptor 4. */
static int skeleton_helper(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    size_t size = (size_t)strtoull(argv[1], NULL, 10), page = (size_t)sysconf(_SC_PAGESIZE);
    unsigned passes = (unsigned)strtoul(argv[2], NULL, 10);
    char *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        fprintf(stderr, "pressmark skeleton: %s\n", strerror(errno));
        return 1;
    }
    uint64_t t0 = pm_now_ns();
    for (unsigned k = 0; k < passes; k++)
        for (size_t off = 0; off < size; off += page)
            *(volatile uint64_t *)(p + off) = off + k;
    char line[64];
    int n = snprintf(line, sizeof line, "elapsed_ns %llu\n", (unsigned long long)(pm_now_ns() - t0));
    return write(4, line, (size_t)n) == n ? 0 : 1;
}

enum { SKELETON_MB_PER_S, SKELETON_BYTES };
static const struct metric_def skeleton_defs[] = {
    [SKELETON_MB_PER_S] = METRIC("skeleton.mb_per_s", "MB/s", PM_HIGHER, "size x passes / the helper's time (the headline)"),
    [SKELETON_BYTES] = METRIC("skeleton.bytes", "bytes", PM_NEITHER, "memory written, all passes"),
};
static const struct metric_group skeleton_metrics =
    METRIC_GROUP("skeleton: run skeleton, the template workload", skeleton_defs);

static const struct wl_helper skeleton_helpers[] = {
    { "__skeleton", skeleton_helper },
    { NULL, NULL },
};

static int skeleton_run(void *state, struct run_ctx *rc, struct pm_err *err)
{
    struct skeleton_state *st = state;
    char size[32], passes[16];
    snprintf(size, sizeof size, "%llu", (unsigned long long)st->size);
    snprintf(passes, sizeof passes, "%u", st->passes);
    char *argv[] = { (char *)run_exe(rc), "__skeleton", size, passes, NULL };
    char line[64];
    if (run_helper(rc, argv, "the skeleton's helper", line, sizeof line, err) < 0)
        return -1;
    unsigned long long ns;
    if (sscanf(line, "elapsed_ns %llu", &ns) == 1 && ns > 0) {
        double bytes = (double)st->size * st->passes;
        run_metric(rc, &skeleton_defs[SKELETON_MB_PER_S], bytes / 1048576.0 / ((double)ns / 1e9));
        run_metric(rc, &skeleton_defs[SKELETON_BYTES], bytes);
    } else if (strcmp(rc_status(rc), "ok") == 0)
        run_set_status(rc, "failed", "the helper reported no time");
    return 0;
}

const struct workload_ops workload_skeleton = {
    .name = "skeleton",
    .summary = "a template: passes writing one word per page over anonymous memory",
    .headline = MN_skeleton_mb_per_s,
    .headline_title = "MB/s",
    .options = skeleton_options,
    .state_size = sizeof(struct skeleton_state),
    .run = skeleton_run,
    .helpers = skeleton_helpers,
    .metrics = &skeleton_metrics,
};
