/* will-it-scale's page_fault tests: each of --threads threads maps --size
 * (128 MiB), writes one byte in every page, unmaps, and again, for
 * --duration; pages faulted per second at each thread count. A list of
 * counts makes phases (1,2,max), each with its own runs, as build's --jobs.
 * --mapping picks the variant: anon (page_fault1), file-private
 * (page_fault2: a private mapping of a file, copy-on-write faults) or
 * file-shared (page_fault3, or --shared). Each thread's file is its own,
 * unlinked at once, in /tmp, as will-it-scale's are. Anonymous mappings
 * are marked MADV_NOHUGEPAGE: what is counted is one fault per page, not
 * one per 2 MiB. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>
#include "lib/metrics.h"
#include "lib/timeutil.h"
#include "lib/units.h"
#include "workloads/workload.h"
#include "metric_names.h"     /* generated from the metric tables (tools/metric-names.awk) */

/* What this workload stores, declared once: help metrics, the man page
 * and the tests' strict check read it. */
enum { PAGEFAULT_FAULTS_PER_S, PAGEFAULT_PER_THREAD_PER_S, PAGEFAULT_ELAPSED_S, PAGEFAULT_THREADS,
    PAGEFAULT_PAGES_TOUCHED, PAGEFAULT_MAPPINGS, PAGEFAULT_MINOR_FAULTS, PAGEFAULT_MAJOR_FAULTS,
    PAGEFAULT_FAULTS_PER_PAGE };
static const struct metric_def pagefault_defs[] = {
    [PAGEFAULT_FAULTS_PER_S] = METRIC("pagefault.faults_per_s", "faults/s", PM_HIGHER,
                  "pages faulted per second, all threads (the headline)"),
    [PAGEFAULT_PER_THREAD_PER_S] = METRIC("pagefault.per_thread_per_s", "faults/s", PM_HIGHER, "the same per thread"),
    [PAGEFAULT_ELAPSED_S] = METRIC("pagefault.elapsed_s", "s", PM_NEITHER, "the timed part (set by --duration)"),
    [PAGEFAULT_THREADS] = METRIC("pagefault.threads", "count", PM_NEITHER, "threads of this phase"),
    [PAGEFAULT_PAGES_TOUCHED] = METRIC("pagefault.pages_touched", "pages", PM_NEITHER, "pages written, one byte each"),
    [PAGEFAULT_MAPPINGS] = METRIC("pagefault.mappings", "count", PM_NEITHER, "mmap + munmap rounds"),
    [PAGEFAULT_MINOR_FAULTS] = METRIC("pagefault.minor_faults", "faults", PM_NEITHER,
                  "the kernel's minor faults over the timed part"),
    [PAGEFAULT_MAJOR_FAULTS] = METRIC("pagefault.major_faults", "faults", PM_LOWER, "major faults over the timed part"),
    [PAGEFAULT_FAULTS_PER_PAGE] = METRIC("pagefault.faults_per_page", "ratio", PM_NEITHER,
                  "(minor + major) / pages: 1 or more for anonymous and private file mappings"),
};
static const struct metric_group pagefault_metrics = METRIC_GROUP(
    "pagefault: run pagefault, will-it-scale's page_fault1/2/3",
    pagefault_defs);

#define MAX_PHASES 16
#define MAX_THREADS 4096

enum mapping { PF_ANON, PF_FILE_PRIVATE, PF_FILE_SHARED };
static const char *const mapping_words[] = { "anon", "file-private", "file-shared", NULL };
static const char *const mapping_test[] = { "page_fault1", "page_fault2", "page_fault3" };

struct pagefault_state {
    uint64_t size, duration_ns;
    unsigned mapping;
    bool shared;
    char threads_text[128];
    char phase_names[MAX_PHASES][16];
    unsigned phase_threads[MAX_PHASES];
    int nphases, phase;
};

static unsigned cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

static int set_threads(void *state, const char *text, struct pm_err *err)
{
    struct pagefault_state *st = state;
    char buf[128];
    snprintf(buf, sizeof buf, "%s", text);
    st->nphases = 0;
    const char *accepted = "accepted: N from 1 to 4096, half, max (the CPUs), or a comma list such as 1,2,max";
    for (char *save, *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        if (st->nphases == MAX_PHASES)
            return pm_errf(err, "'%s': at most %d thread counts", text, MAX_PHASES);
        uint64_t v;
        unsigned n;
        if (strcmp(w, "max") == 0)
            n = cpus();
        else if (strcmp(w, "half") == 0)
            n = cpus() / 2 ? cpus() / 2 : 1;
        else if (pm_parse_uint(w, 1, MAX_THREADS, &v) == 0)
            n = (unsigned)v;
        else
            return pm_errf(err, "'%s' is not a thread count (%s)", text, accepted);
        snprintf(st->phase_names[st->nphases], sizeof st->phase_names[0], "%s", w);
        st->phase_threads[st->nphases++] = n;
    }
    if (!st->nphases)
        return pm_errf(err, "'%s' is not a thread count (%s)", text, accepted);
    snprintf(st->threads_text, sizeof st->threads_text, "%s", text);
    return 0;
}

static void show_threads(const void *state, char *buf, size_t len)
{
    snprintf(buf, len, "%s", ((const struct pagefault_state *)state)->threads_text);
}

#define PO(field) offsetof(struct pagefault_state, field)
static const struct opt pagefault_options[] = {
    { .name = "threads", .type = OPT_CALLBACK, .set = set_threads, .show = show_threads, .metavar = "LIST",
      .def = "1", .help = "threads faulting at once: N, half, max (the CPUs), or a list of phases: 1,2,max" },
    { .name = "size", .type = OPT_SIZE, .offset = PO(size), .metavar = "SIZE", .def = "128M", .min = 4096,
      .max = 1e15, .extra = "at least 4K", .help = "each thread's mapping (will-it-scale: 128M)" },
    { .name = "duration", .type = OPT_DURATION, .offset = PO(duration_ns), .metavar = "D", .def = "5s", .min = 1e6,
      .max = 1e13, .extra = "at least 1ms", .help = "how long each run faults (a mapping begun is finished)" },
    { .name = "mapping", .type = OPT_CHOICE, .offset = PO(mapping), .metavar = "M", .def = "anon",
      .words = mapping_words, .noun = "mapping",
      .help = "anon (page_fault1), file-private (page_fault2), file-shared (page_fault3)" },
    { .name = "shared", .type = OPT_FLAG, .offset = PO(shared), .flags = OPT_NO_DESCRIBE,
      .help = "the same as --mapping file-shared" },
    { .type = OPT_END },
};

static int pagefault_check(void *state, const struct wl_limits *lim, struct pm_err *err)
{
    struct pagefault_state *st = state;
    if (st->shared)
        st->mapping = PF_FILE_SHARED;
    unsigned most = 0;
    for (int i = 0; i < st->nphases; i++)
        if (st->phase_threads[i] > most)
            most = st->phase_threads[i];
    char what[96];
    snprintf(what, sizeof what, "--size x %u threads", most);
    return wl_check_fits(lim, st->size * most, what, err);
}

static int pagefault_phases(void *state)
{
    return ((struct pagefault_state *)state)->nphases;
}

static void pagefault_set_phase(void *state, int i, char *suffix, size_t len)
{
    struct pagefault_state *st = state;
    st->phase = i;
    snprintf(suffix, len, "t%u", st->phase_threads[i]);
}

static void pagefault_describe(void *state, char *buf, size_t len)
{
    struct pagefault_state *st = state;
    char size[32];
    pm_fmt_size(size, sizeof size, st->size);
    snprintf(buf, len, "--threads %s (%u) --size %s --duration %.3gs --mapping %s", st->phase_names[st->phase],
             st->phase_threads[st->phase], size, (double)st->duration_ns / 1e9, mapping_words[st->mapping]);
}

/* The helper: "pressmark __pagefault SIZE THREADS DURATION_NS MAPPING". */
struct pf_thread {
    size_t size, page;
    unsigned mapping;
    uint64_t duration_ns;
    pthread_barrier_t *start;
    int fd;                      /* file mappings: this thread's file */
    uint64_t pages, maps;
    int error;
};

static int tmp_file(size_t size)
{
    int fd = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0) {
        char path[] = "/tmp/pressmark-pagefault.XXXXXX";
        fd = mkostemp(path, O_CLOEXEC);
        if (fd >= 0)
            unlink(path);
    }
    if (fd >= 0 && ftruncate(fd, (off_t)size) < 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

static void *fault_loop(void *arg)
{
    struct pf_thread *t = arg;
    pthread_barrier_wait(t->start);
    uint64_t t0 = pm_now_ns();
    do {
        char *p;
        if (t->mapping == PF_ANON)
            p = mmap(NULL, t->size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        else
            p = mmap(NULL, t->size, PROT_READ | PROT_WRITE,
                     t->mapping == PF_FILE_SHARED ? MAP_SHARED : MAP_PRIVATE, t->fd, 0);
        if (p == MAP_FAILED) {
            t->error = errno;
            return NULL;
        }
        if (t->mapping == PF_ANON)
            madvise(p, t->size, MADV_NOHUGEPAGE);
        for (size_t off = 0; off < t->size; off += t->page)
            p[off] = 0;
        munmap(p, t->size);
        t->pages += t->size / t->page;
        t->maps++;
    } while (pm_now_ns() - t0 < t->duration_ns);
    return NULL;
}

static int pagefault_helper(int argc, char **argv)
{
    uint64_t size, threads, duration, mapping;
    if (argc != 5 || pm_parse_uint(argv[1], 4096, UINT64_MAX, &size) < 0 ||
        pm_parse_uint(argv[2], 1, MAX_THREADS, &threads) < 0 || pm_parse_uint(argv[3], 1, UINT64_MAX, &duration) < 0 ||
        pm_parse_uint(argv[4], 0, 2, &mapping) < 0)
        return 2;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size -= size % page;
    struct pf_thread *ts = calloc(threads, sizeof *ts);
    pthread_t *th = calloc(threads, sizeof *th);
    pthread_barrier_t start;
    if (!ts || !th || pthread_barrier_init(&start, NULL, (unsigned)threads + 1) != 0)
        return 1;
    for (unsigned i = 0; i < threads; i++) {
        ts[i] = (struct pf_thread){ .size = size, .page = page, .mapping = (unsigned)mapping,
                                    .duration_ns = duration, .start = &start, .fd = -1 };
        if (mapping != PF_ANON && (ts[i].fd = tmp_file(size)) < 0) {
            fprintf(stderr, "pressmark pagefault: a file of %zu bytes in /tmp: %s\n", size, strerror(errno));
            return 1;
        }
        if (pthread_create(&th[i], NULL, fault_loop, &ts[i]) != 0) {
            fprintf(stderr, "pressmark pagefault: cannot start thread %u\n", i + 1);
            return 1;
        }
    }
    /* Faults counted by the kernel over the timed part only. */
    struct rusage r0, r1;
    getrusage(RUSAGE_SELF, &r0);
    uint64_t t0 = pm_now_ns();
    pthread_barrier_wait(&start);
    uint64_t pages = 0, maps = 0;
    int error = 0;
    for (unsigned i = 0; i < threads; i++) {
        pthread_join(th[i], NULL);
        pages += ts[i].pages;
        maps += ts[i].maps;
        if (ts[i].error)
            error = ts[i].error;
    }
    uint64_t ns = pm_now_ns() - t0;
    getrusage(RUSAGE_SELF, &r1);
    for (unsigned i = 0; i < threads; i++)
        if (ts[i].fd >= 0)
            close(ts[i].fd);
    free(ts);
    free(th);
    pthread_barrier_destroy(&start);
    char line[256];
    int n = snprintf(line, sizeof line, "pages %llu maps %llu ns %llu minflt %llu majflt %llu error %d\n",
                     (unsigned long long)pages, (unsigned long long)maps, (unsigned long long)ns,
                     (unsigned long long)(r1.ru_minflt - r0.ru_minflt), (unsigned long long)(r1.ru_majflt - r0.ru_majflt),
                     error);
    return write(4, line, (size_t)n) == n && !error ? 0 : 1;
}

static int pagefault_run(void *state, struct run_ctx *rc, struct pm_err *err)
{
    struct pagefault_state *st = state;
    unsigned threads = st->phase_threads[st->phase];
    char a[4][32];
    snprintf(a[0], sizeof a[0], "%llu", (unsigned long long)st->size);
    snprintf(a[1], sizeof a[1], "%u", threads);
    snprintf(a[2], sizeof a[2], "%llu", (unsigned long long)st->duration_ns);
    snprintf(a[3], sizeof a[3], "%u", st->mapping);
    char *argv[] = { (char *)run_exe(rc), "__pagefault", a[0], a[1], a[2], a[3], NULL };
    char line[256];
    if (run_helper(rc, argv, "pagefault", line, sizeof line, err) < 0)
        return -1;
    unsigned long long pages, maps, ns, minflt, majflt;
    int error;
    run_metric(rc, &pagefault_defs[PAGEFAULT_THREADS], threads);
    run_meta(rc, "pagefault.test", mapping_test[st->mapping]);
    if (sscanf(line, "pages %llu maps %llu ns %llu minflt %llu majflt %llu error %d", &pages, &maps, &ns, &minflt,
               &majflt, &error) != 6) {
        if (strcmp(rc_status(rc), "ok") == 0)
            run_set_status(rc, "failed", "pagefault reported nothing");
        return 0;
    }
    if (error && strcmp(rc_status(rc), "oom") != 0)
        run_set_status(rc, "failed", "pagefault: mmap: %s", strerror(error));
    run_metric(rc, &pagefault_defs[PAGEFAULT_PAGES_TOUCHED], (double)pages);
    run_metric(rc, &pagefault_defs[PAGEFAULT_MAPPINGS], (double)maps);
    run_metric(rc, &pagefault_defs[PAGEFAULT_MINOR_FAULTS], (double)minflt);
    run_metric(rc, &pagefault_defs[PAGEFAULT_MAJOR_FAULTS], (double)majflt);
    /* 1 for anon and private-file mappings; below 1 where the kernel maps
     * several pages per fault (fault-around, a shared file's large folios). */
    if (pages)
        run_metric(rc, &pagefault_defs[PAGEFAULT_FAULTS_PER_PAGE], (double)(minflt + majflt) / (double)pages);
    if (strcmp(rc_status(rc), "ok") != 0 || !ns)
        return 0;
    double secs = (double)ns / 1e9;
    run_metric(rc, &pagefault_defs[PAGEFAULT_FAULTS_PER_S], (double)pages / secs);
    run_metric(rc, &pagefault_defs[PAGEFAULT_PER_THREAD_PER_S], (double)pages / secs / threads);
    run_metric(rc, &pagefault_defs[PAGEFAULT_ELAPSED_S], secs);
    return 0;
}

static const struct wl_helper pagefault_helpers[] = {
    { "__pagefault", pagefault_helper },
    { NULL, NULL },
};

const struct workload_ops workload_pagefault = {
    .metrics = &pagefault_metrics,
    .name = "pagefault",
    .summary = "will-it-scale's page_fault: threads map, touch every page, unmap, again; faults/s per thread count",
    .headline = MN_pagefault_faults_per_s,
    .headline_title = "faults/s",
    .options = pagefault_options,
    .state_size = sizeof(struct pagefault_state),
    .check = pagefault_check,
    .run = pagefault_run,
    .describe = pagefault_describe,
    .phases = pagefault_phases,
    .set_phase = pagefault_set_phase,
    .helpers = pagefault_helpers,
};
