/* vm-scalability's usemem and mmtests' usemem configs: workers each map
 * --size of anonymous memory and sweep it, page by page in order or in a
 * random order, writing, reading or both, for --passes or --duration; MB/s
 * per worker and in total. Under a cap below the total it becomes a
 * swap-out/swap-in throughput test, and a final untimed pass checks every
 * word of every page: a page that came back from swap wrong fails the run.
 *
 * Every word holds a value of its own (worker, page and word mixed, plus
 * the pass's generation), so zram and zswap cannot store a page as
 * same-filled, and a page swapped back into the wrong place is seen. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "lib/metrics.h"
#include "lib/spawn.h"
#include "lib/timeutil.h"
#include "lib/units.h"
#include "workloads/workload.h"
#include "metric_names.h"     /* generated from the metric tables (tools/metric-names.awk) */

/* What this workload stores, declared once: help metrics, the man page
 * and the tests' strict check read it. */
enum { USEMEM_MB_PER_S, USEMEM_ELAPSED_S, USEMEM_WORKER_MB_PER_S_MIN, USEMEM_WORKER_MB_PER_S_MEAN,
    USEMEM_WORKER_MB_PER_S_MAX, USEMEM_FILL_MB_PER_S, USEMEM_WORKERS, USEMEM_SIZE_BYTES, USEMEM_BYTES,
    USEMEM_PAGES_TOUCHED, USEMEM_PASSES_MIN, USEMEM_VERIFIED_PAGES, USEMEM_BAD_PAGES };
static const struct metric_def usemem_defs[] = {
    [USEMEM_MB_PER_S] = METRIC("usemem.mb_per_s", "MB/s", PM_HIGHER,
                  "bytes swept / wall time from the start gate to the last worker's end (the headline)"),
    [USEMEM_ELAPSED_S] = METRIC("usemem.elapsed_s", "s", PM_LOWER, "that wall time"),
    [USEMEM_WORKER_MB_PER_S_MIN] = METRIC("usemem.worker_mb_per_s_min", "MB/s", PM_HIGHER, "the slowest worker's rate"),
    [USEMEM_WORKER_MB_PER_S_MEAN] = METRIC("usemem.worker_mb_per_s_mean", "MB/s", PM_HIGHER, "the workers' mean rate"),
    [USEMEM_WORKER_MB_PER_S_MAX] = METRIC("usemem.worker_mb_per_s_max", "MB/s", PM_HIGHER, "the fastest worker's rate"),
    [USEMEM_FILL_MB_PER_S] = METRIC("usemem.fill_mb_per_s", "MB/s", PM_HIGHER, "the untimed fill before read sweeps"),
    [USEMEM_WORKERS] = METRIC("usemem.workers", "count", PM_NEITHER, "procs x threads"),
    [USEMEM_SIZE_BYTES] = METRIC("usemem.size_bytes", "bytes", PM_NEITHER, "each worker's mapping"),
    [USEMEM_BYTES] = METRIC("usemem.bytes", "bytes", PM_NEITHER, "bytes swept, all workers"),
    [USEMEM_PAGES_TOUCHED] = METRIC("usemem.pages_touched", "pages", PM_NEITHER, "pages swept, all workers"),
    [USEMEM_PASSES_MIN] = METRIC("usemem.passes_min", "count", PM_NEITHER, "the fewest passes any worker finished"),
    [USEMEM_VERIFIED_PAGES] = METRIC("usemem.verified_pages", "pages", PM_NEITHER,
                  "pages checked word by word at the end"),
    [USEMEM_BAD_PAGES] = METRIC("usemem.bad_pages", "pages", PM_LOWER, "pages that held a wrong word (the run fails)"),
};
static const struct metric_group usemem_metrics = METRIC_GROUP(
    "usemem: run usemem, vm-scalability's usemem",
    usemem_defs);

typedef uint64_t u64x2 __attribute__((vector_size(16)));

enum pattern { PAT_SEQ, PAT_RAND };
enum access { ACC_WRITE, ACC_READ, ACC_RW };
static const char *const pattern_words[] = { "seq", "rand", NULL };
static const char *const access_words[] = { "write", "read", "rw", NULL };

#define MAX_WORKERS 4096

struct usemem_state {
    uint64_t size;
    unsigned procs, threads, passes;
    unsigned pattern, access;
    uint64_t duration_ns;
};

#define UO(field) offsetof(struct usemem_state, field)
static const struct opt usemem_options[] = {
    { .name = "size", .type = OPT_SIZE, .offset = UO(size), .metavar = "SIZE", .def = "256M", .flags = OPT_PCT_MEM,
      .min = 4096, .max = 1e18, .extra = "at least 4K", .help = "anonymous memory each worker maps and sweeps" },
    { .name = "procs", .type = OPT_UINT, .offset = UO(procs), .metavar = "N", .def = "1", .min = 1, .max = MAX_WORKERS,
      .noun = "process count", .help = "worker processes" },
    { .name = "threads", .type = OPT_UINT, .offset = UO(threads), .metavar = "N", .def = "1", .min = 1,
      .max = MAX_WORKERS, .noun = "thread count", .help = "worker threads in each process (each with its own --size)" },
    { .name = "pattern", .type = OPT_CHOICE, .offset = UO(pattern), .metavar = "P", .def = "seq",
      .words = pattern_words, .noun = "pattern", .help = "page order of a sweep: seq in order, rand shuffled" },
    { .name = "access", .type = OPT_CHOICE, .offset = UO(access), .metavar = "A", .def = "write",
      .words = access_words, .noun = "access",
      .help = "write every word; read every word (filled once first, untimed); rw read and rewrite each" },
    { .name = "passes", .type = OPT_UINT, .offset = UO(passes), .metavar = "N", .def = "1", .min = 1, .max = 1000000,
      .noun = "pass count", .help = "sweeps over the memory, timed (without --duration)" },
    { .name = "duration", .type = OPT_DURATION, .offset = UO(duration_ns), .metavar = "D", .def = "0s",
      .flags = OPT_DESCRIBE_SET, .extra = "0s for --passes",
      .help = "sweep until D has passed instead (a sweep begun is finished)" },
    { .type = OPT_END },
};

static int usemem_check(void *state, const struct wl_limits *lim, struct pm_err *err)
{
    struct usemem_state *st = state;
    if ((uint64_t)st->procs * st->threads > MAX_WORKERS)
        return pm_errf(err, "--procs x --threads is %u workers; at most %d", st->procs * st->threads, MAX_WORKERS);
    char what[96];
    snprintf(what, sizeof what, "--size x --procs x --threads (%u workers)", st->procs * st->threads);
    return wl_check_fits(lim, st->size * st->procs * st->threads, what, err);
}

/* The word at (page, word) after generation g: the page's own base (the
 * worker's seed, whose low 9 bits are clear, with the page number above
 * them) plus the word's index, so no two words of a worker's memory are
 * equal in one generation and no page is same-filled; and a sweep's
 * inner loop is one add per store, as cheap as stress-ng's constant. */
static inline uint64_t page_base(uint64_t seed, uint64_t page, uint64_t g)
{
    return (seed ^ (page << 9)) + g;
}

static inline uint64_t word_value(uint64_t seed, uint64_t page, uint64_t word, uint64_t g)
{
    return page_base(seed, page, 0) + word + g;
}

/* One worker: its memory, its order, its results. */
struct worker {
    unsigned id;
    uint64_t *mem;
    size_t pages, words_per_page, page;
    uint32_t *order;             /* rand: the shuffled page order */
    uint64_t seed;
    /* results */
    uint64_t bytes, pages_touched, passes, ns, fill_ns, t0, t1;
    uint64_t bad_pages, first_bad_page, first_bad_word, got, want;
    uint64_t sink;
    int error;                   /* errno of a failed map */
};

/* Every worker starts its timed sweeps together (in memory shared by the
 * worker processes). A worker that cannot start, or a process that dies
 * before its workers arrive (the OOM killer during a fill), abandons the
 * gate, so no worker waits for one that will never come. */
struct gate {
    atomic_uint arrived;
    atomic_bool abandoned;
    unsigned total;
};

static bool gate_pass(struct gate *g)
{
    atomic_fetch_add(&g->arrived, 1);
    while (atomic_load(&g->arrived) < g->total && !atomic_load(&g->abandoned)) {
        struct timespec ts = { 0, 100000 };
        nanosleep(&ts, NULL);
    }
    return !atomic_load(&g->abandoned);
}

struct sweep {
    const struct usemem_state *st;
    struct gate *gate;
};

static void shuffle(uint32_t *v, size_t n, uint64_t seed)
{
    uint64_t x = seed | 1;
    for (size_t i = 0; i < n; i++)
        v[i] = (uint32_t)i;
    for (size_t i = n; i > 1; i--) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        size_t j = (size_t)(x % i);
        uint32_t t = v[i - 1];
        v[i - 1] = v[j];
        v[j] = t;
    }
}

static void sweep_once(struct worker *w, unsigned access, uint64_t g)
{
    size_t wpp = w->words_per_page;
    uint64_t acc = 0;
    for (size_t k = 0; k < w->pages; k++) {
        size_t pg = w->order ? w->order[k] : k;
        uint64_t *p = w->mem + pg * wpp;
        if (access == ACC_WRITE) {
            /* Two words a store (SSE2 on x86-64, whatever the target has
             * elsewhere): stress-ng's write64 is built with wide stores
             * too, and the stores are what a sweep is made of. */
            uint64_t b = page_base(w->seed, pg, g);
            u64x2 v = { b, b + 1 }, two = { 2, 2 };
            u64x2 *q = (u64x2 *)p;
            for (size_t j = 0; j < wpp / 2; j += 4) {
                q[j] = v;
                q[j + 1] = v + two;
                q[j + 2] = v + two + two;
                q[j + 3] = v + two + two + two;
                v += two + two + two + two;
            }
        } else if (access == ACC_READ) {
            for (size_t j = 0; j < wpp; j++)
                acc += p[j];
        } else {
            for (size_t j = 0; j < wpp; j++)
                p[j] += 1;
        }
    }
    w->sink += acc;
}

/* The untimed last look: every word as the last generation left it. */
static void verify(struct worker *w, uint64_t g)
{
    size_t wpp = w->words_per_page;
    for (size_t pg = 0; pg < w->pages; pg++) {
        const uint64_t *p = w->mem + pg * wpp;
        for (size_t j = 0; j < wpp; j++) {
            uint64_t want = word_value(w->seed, pg, j, g);
            if (p[j] != want) {
                if (!w->bad_pages++) {
                    w->first_bad_page = pg;
                    w->first_bad_word = j;
                    w->got = p[j];
                    w->want = want;
                }
                break;
            }
        }
    }
}

struct worker_arg {
    struct worker *w;
    const struct sweep *sw;
};

static void *run_worker(void *arg)
{
    struct worker_arg *a = arg;
    struct worker *w = a->w;
    const struct usemem_state *st = a->sw->st;
    w->page = (size_t)sysconf(_SC_PAGESIZE);
    w->words_per_page = w->page / sizeof(uint64_t);
    w->pages = (size_t)(st->size / w->page);
    w->seed = (0x9E3779B97F4A7C15ull * (w->id + 1)) & ~(uint64_t)511;
    void *m = mmap(NULL, w->pages * w->page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
        w->error = errno;
        gate_pass(a->sw->gate);
        return NULL;
    }
    w->mem = m;
    if (st->pattern == PAT_RAND) {
        w->order = malloc(w->pages * sizeof *w->order);
        if (!w->order) {
            w->error = ENOMEM;
            gate_pass(a->sw->gate);
            return NULL;
        }
        shuffle(w->order, w->pages, w->seed);
    }
    /* Reading needs something written first; that fill is not timed. */
    uint64_t g = 0;
    if (st->access != ACC_WRITE) {
        uint64_t f0 = pm_now_ns();
        sweep_once(w, ACC_WRITE, 0);
        w->fill_ns = pm_now_ns() - f0;
    }
    if (!gate_pass(a->sw->gate)) {
        w->error = ECANCELED;       /* another worker could not start */
        return NULL;
    }
    uint64_t t0 = pm_now_ns();
    w->t0 = t0;
    for (;;) {
        if (st->access == ACC_WRITE)
            g++;
        sweep_once(w, st->access, g);
        if (st->access == ACC_RW)
            g++;
        w->passes++;
        w->pages_touched += w->pages;
        uint64_t now = pm_now_ns();
        if (st->duration_ns ? now - t0 >= st->duration_ns : w->passes >= st->passes) {
            w->ns = now - t0;
            w->t1 = now;
            break;
        }
    }
    w->bytes = (uint64_t)w->pages_touched * w->page;
    /* The tests' way to see a wrong page fail the run: one word of
     * worker 0's page N changed before the check (no kernel does it). */
    const char *bad = getenv("PRESSMARK_TEST_USEMEM_CORRUPT_PAGE");
    if (bad && w->id == 0 && (uint64_t)strtoull(bad, NULL, 10) < w->pages)
        w->mem[strtoull(bad, NULL, 10) * w->words_per_page + 3] ^= 1;
    verify(w, g);
    return NULL;
}

/* One process's share of the workers: its threads, then one line each on
 * the results pipe (a line is shorter than PIPE_BUF: written whole). */
static int run_process(const struct sweep *sw, unsigned first, unsigned n, int out)
{
    struct worker *ws = calloc(n, sizeof *ws);
    struct worker_arg *args = calloc(n, sizeof *args);
    pthread_t *th = calloc(n, sizeof *th);
    if (!ws || !args || !th)
        return 1;
    unsigned started = 0;
    for (unsigned i = 0; i < n; i++) {
        ws[i].id = first + i;
        args[i] = (struct worker_arg){ .w = &ws[i], .sw = sw };
        if (pthread_create(&th[i], NULL, run_worker, &args[i]) != 0)
            break;
        started++;
    }
    if (started < n) {
        atomic_store(&sw->gate->abandoned, true);
        for (unsigned i = started; i < n; i++)
            ws[i].error = EAGAIN;
    }
    for (unsigned i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    int rc = 0;
    for (unsigned i = 0; i < n; i++) {
        const struct worker *w = &ws[i];
        char line[400];
        int len;
        if (w->error) {
            len = snprintf(line, sizeof line, "worker %u error %s\n", w->id, strerror(w->error));
            rc = 1;
        } else {
            len = snprintf(line, sizeof line,
                           "worker %u t0 %llu t1 %llu bytes %llu ns %llu fill_ns %llu passes %llu pages_touched %llu "
                           "pages %llu bad_pages %llu first_bad %llu word %llu got %llx want %llx sink %llu\n",
                           w->id, (unsigned long long)w->t0, (unsigned long long)w->t1,
                           (unsigned long long)w->bytes, (unsigned long long)w->ns,
                           (unsigned long long)w->fill_ns, (unsigned long long)w->passes,
                           (unsigned long long)w->pages_touched, (unsigned long long)w->pages,
                           (unsigned long long)w->bad_pages, (unsigned long long)w->first_bad_page,
                           (unsigned long long)w->first_bad_word, (unsigned long long)w->got,
                           (unsigned long long)w->want, (unsigned long long)(w->sink & 1));
        }
        if (write(out, line, (size_t)len) != len)
            rc = 1;
    }
    for (unsigned i = 0; i < n; i++) {
        free(ws[i].order);
        if (ws[i].mem)
            munmap(ws[i].mem, ws[i].pages * ws[i].page);
    }
    free(ws);
    free(args);
    free(th);
    return rc;
}

struct totals {
    unsigned workers, errors;
    uint64_t bytes, pages_touched, pages, bad_pages, passes_min, fill_ns_max, t0, t1;
    double rate_min, rate_max, rate_sum;
    char first_bad[256], error[160];
};

static void add_line(struct totals *t, const char *line)
{
    unsigned id;
    unsigned long long t0, t1, b, ns, fill, passes, touched, pages, bad, fb, fw, got, want, sink;
    char why[128];
    if (sscanf(line, "worker %u error %127[^\n]", &id, why) == 2) {
        if (!t->errors++)
            snprintf(t->error, sizeof t->error, "worker %u: %s", id, why);
        return;
    }
    if (sscanf(line,
               "worker %u t0 %llu t1 %llu bytes %llu ns %llu fill_ns %llu passes %llu pages_touched %llu pages %llu "
               "bad_pages %llu first_bad %llu word %llu got %llx want %llx sink %llu",
               &id, &t0, &t1, &b, &ns, &fill, &passes, &touched, &pages, &bad, &fb, &fw, &got, &want, &sink) != 15)
        return;
    if (!t->workers || t0 < t->t0)
        t->t0 = t0;
    if (t1 > t->t1)
        t->t1 = t1;
    double rate = ns ? (double)b / 1048576.0 / ((double)ns / 1e9) : 0;
    if (!t->workers || rate < t->rate_min)
        t->rate_min = rate;
    if (rate > t->rate_max)
        t->rate_max = rate;
    if (!t->workers || passes < t->passes_min)
        t->passes_min = passes;
    if (fill > t->fill_ns_max)
        t->fill_ns_max = fill;
    t->rate_sum += rate;
    t->workers++;
    t->bytes += b;
    t->pages_touched += touched;
    t->pages += pages;
    if (bad && !t->bad_pages)
        snprintf(t->first_bad, sizeof t->first_bad, "worker %u page %llu word %llu read %#llx, wrote %#llx", id, fb,
                 fw, got, want);
    t->bad_pages += bad;
}

/* The helper's seven numbers, in the order usemem_run writes them; -1
 * when one is not a number, which the helper treats as a wrong count. */
static int helper_args(char **argv, struct usemem_state *st)
{
    uint64_t v[7];
    for (int i = 0; i < 7; i++)
        if (pm_parse_uint(argv[i + 1], 0, UINT64_MAX, &v[i]) < 0)
            return -1;
    st->size = v[0];
    st->procs = (unsigned)v[1];
    st->threads = (unsigned)v[2];
    st->pattern = (unsigned)v[3];
    st->access = (unsigned)v[4];
    st->passes = (unsigned)v[5];
    st->duration_ns = v[6];
    return 0;
}

/* The worker processes, each writing its lines to res[1]. When a fork
 * fails, -1, and those already forked are killed: the workers that were
 * never forked would hold them at the gate. */
static int fork_workers(const struct sweep *sw, pid_t *kids, const int res[2])
{
    const struct usemem_state *st = sw->st;
    for (unsigned p = 0; p < st->procs; p++) {
        kids[p] = fork();
        if (kids[p] < 0) {
            fprintf(stderr, "pressmark usemem: fork: %s\n", strerror(errno));
            for (unsigned q = 0; q < p; q++)
                kill(kids[q], SIGKILL);
            return -1;
        }
        if (kids[p] == 0) {
            close(res[0]);
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            _exit(run_process(sw, p * st->threads, st->threads, res[1]));
        }
    }
    return 0;
}

/* A worker process gone before the start would hold the others at the
 * gate for ever, so one that has exited abandons the gate. It is left
 * unreaped (WNOWAIT) for reap_workers. */
static void abandon_if_one_exited(const pid_t *kids, unsigned procs, struct gate *gate)
{
    for (unsigned p = 0; p < procs; p++) {
        if (pm_child_ended(kids[p]))
            atomic_store(&gate->abandoned, true);
    }
}

/* The workers' lines into t as they come (4096 workers' lines would not
 * fit a pipe), until the last process closes the pipe or reading it
 * fails. Each quiet 200 ms, the processes are checked for one gone. */
static void read_lines(int fd, const pid_t *kids, unsigned procs, struct gate *gate, struct totals *t)
{
    char buf[8192];
    size_t len = 0;
    for (;;) {
        struct pollfd pf = { .fd = fd, .events = POLLIN };
        int pr = poll(&pf, 1, 200);
        if (pr == 0) {
            abandon_if_one_exited(kids, procs, gate);
            continue;
        }
        ssize_t n = pr > 0 ? read(fd, buf + len, sizeof buf - 1 - len) : -1;
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        len += (size_t)n;
        buf[len] = '\0';
        char *start = buf, *nl;
        while ((nl = strchr(start, '\n'))) {
            *nl = '\0';
            add_line(t, start);
            start = nl + 1;
        }
        len = strlen(start);
        memmove(buf, start, len + 1);
    }
}

/* Every worker process waited for; 1 when any of them did not exit
 * with 0, which fails the helper. */
static int reap_workers(const pid_t *kids, unsigned procs)
{
    int rc = 0;
    for (unsigned p = 0; p < procs; p++) {
        int ws;
        while (waitpid(kids[p], &ws, 0) < 0 && errno == EINTR)
            ;
        if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0)
            rc = 1;
    }
    return rc;
}

/* One summary for the run, written after the workers are done: small
 * enough for the pipe, so pressmark reads it after waiting. -1 when it
 * was not written whole. */
static int write_summary(const struct totals *t)
{
    char out[1024];
    int n = snprintf(out, sizeof out,
                     "workers %u errors %u bytes %llu pages_touched %llu pages %llu bad_pages %llu passes_min %llu "
                     "wall_ns %llu fill_ns_max %llu rate_min %.6f rate_max %.6f rate_sum %.6f\n"
                     "first_bad %s\nerror %s\n",
                     t->workers, t->errors, (unsigned long long)t->bytes, (unsigned long long)t->pages_touched,
                     (unsigned long long)t->pages, (unsigned long long)t->bad_pages, (unsigned long long)t->passes_min,
                     (unsigned long long)(t->t1 > t->t0 ? t->t1 - t->t0 : 0), (unsigned long long)t->fill_ns_max,
                     t->rate_min, t->rate_max, t->rate_sum, t->first_bad, t->error);
    if (write(4, out, (size_t)n) != n)
        return -1;
    return 0;
}

/* "pressmark __usemem SIZE PROCS THREADS PATTERN ACCESS PASSES DURATION_NS":
 * the processes are forked here, so every one is in the run's cap from
 * birth; their lines come back on fd 4 after a "wall_ns" line. */
static int usemem_helper(int argc, char **argv)
{
    if (argc != 8)
        return 2;
    struct usemem_state st = { 0 };
    if (helper_args(argv, &st) < 0)
        return 2;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    struct gate *gate = mmap(NULL, sizeof *gate, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (gate == MAP_FAILED)
        return 1;
    atomic_init(&gate->arrived, 0);
    atomic_init(&gate->abandoned, false);
    gate->total = st.procs * st.threads;
    int res[2];
    if (pipe2(res, O_CLOEXEC) < 0)
        return 1;
    struct sweep sw = { .st = &st, .gate = gate };
    pid_t *kids = calloc(st.procs, sizeof *kids);
    if (!kids)
        return 1;
    if (fork_workers(&sw, kids, res) < 0)
        return 1;
    close(res[1]);
    struct totals t = { 0 };
    read_lines(res[0], kids, st.procs, gate, &t);
    int rc = reap_workers(kids, st.procs);
    free(kids);
    munmap(gate, sizeof *gate);
    if (write_summary(&t) < 0)
        rc = 1;
    return rc;
}

static int usemem_run(void *state, struct run_ctx *rc, struct pm_err *err)
{
    struct usemem_state *st = state;
    char a[7][32];
    uint64_t v[7] = { st->size, st->procs, st->threads, st->pattern, st->access, st->passes, st->duration_ns };
    for (int i = 0; i < 7; i++)
        snprintf(a[i], sizeof a[i], "%llu", (unsigned long long)v[i]);
    char *argv[] = { (char *)run_exe(rc), "__usemem", a[0], a[1], a[2], a[3], a[4], a[5], a[6], NULL };
    char buf[2048];
    if (run_helper(rc, argv, "usemem", buf, sizeof buf, err) < 0)
        return -1;
    struct totals t = { 0 };
    unsigned long long wall = 0, bytes = 0, touched = 0, pages = 0, bad = 0, passes = 0, fill = 0;
    bool got = sscanf(buf, "workers %u errors %u bytes %llu pages_touched %llu pages %llu bad_pages %llu passes_min "
                      "%llu wall_ns %llu fill_ns_max %llu rate_min %lf rate_max %lf rate_sum %lf",
                      &t.workers, &t.errors, &bytes, &touched, &pages, &bad, &passes, &wall, &fill, &t.rate_min,
                      &t.rate_max, &t.rate_sum) == 12;
    if (!got)
        t.workers = 0;
    t.bytes = bytes;
    t.pages_touched = touched;
    t.pages = pages;
    t.bad_pages = bad;
    t.passes_min = passes;
    t.fill_ns_max = fill;
    const char *fb = strstr(buf, "\nfirst_bad "), *er = strstr(buf, "\nerror ");
    if (fb)
        sscanf(fb, "\nfirst_bad %255[^\n]", t.first_bad);
    if (er)
        sscanf(er, "\nerror %159[^\n]", t.error);
    unsigned want = st->procs * st->threads;
    if (t.errors && strcmp(rc_status(rc), "ok") == 0)
        run_set_status(rc, "failed", "a usemem worker could not run (%s)", t.error);
    else if (t.workers != want && strcmp(rc_status(rc), "ok") == 0)
        run_set_status(rc, "failed", "usemem: %u of %u workers reported", t.workers, want);
    if (t.bad_pages && strcmp(rc_status(rc), "oom") != 0)
        run_set_status(rc, "failed", "%llu pages came back wrong (first: %s)", (unsigned long long)t.bad_pages,
                       t.first_bad);
    run_metric(rc, &usemem_defs[USEMEM_WORKERS], want);
    run_metric(rc, &usemem_defs[USEMEM_SIZE_BYTES], (double)st->size);
    if (!t.workers)
        return 0;
    run_metric(rc, &usemem_defs[USEMEM_PAGES_TOUCHED], (double)t.pages_touched);
    run_metric(rc, &usemem_defs[USEMEM_BYTES], (double)t.bytes);
    run_metric(rc, &usemem_defs[USEMEM_PASSES_MIN], (double)t.passes_min);
    run_metric(rc, &usemem_defs[USEMEM_VERIFIED_PAGES], (double)t.pages);
    run_metric(rc, &usemem_defs[USEMEM_BAD_PAGES], (double)t.bad_pages);
    if (strcmp(rc_status(rc), "ok") != 0 || !wall)
        return 0;
    run_metric(rc, &usemem_defs[USEMEM_MB_PER_S], (double)t.bytes / 1048576.0 / ((double)wall / 1e9));
    run_metric(rc, &usemem_defs[USEMEM_ELAPSED_S], (double)wall / 1e9);
    run_metric(rc, &usemem_defs[USEMEM_WORKER_MB_PER_S_MIN], t.rate_min);
    run_metric(rc, &usemem_defs[USEMEM_WORKER_MB_PER_S_MEAN], t.rate_sum / t.workers);
    run_metric(rc, &usemem_defs[USEMEM_WORKER_MB_PER_S_MAX], t.rate_max);
    if (t.fill_ns_max)
        run_metric(rc, &usemem_defs[USEMEM_FILL_MB_PER_S], (double)t.pages * (double)sysconf(_SC_PAGESIZE) / 1048576.0 / ((double)t.fill_ns_max / 1e9));
    return 0;
}

static const struct wl_helper usemem_helpers[] = {
    { "__usemem", usemem_helper },
    { NULL, NULL },
};

const struct workload_ops workload_usemem = {
    .metrics = &usemem_metrics,
    .name = "usemem",
    .summary = "vm-scalability's usemem: workers sweep anonymous memory (seq or rand; write, read or rw), MB/s, every "
               "page verified at the end",
    .headline = MN_usemem_mb_per_s,
    .headline_title = "MB/s",
    .options = usemem_options,
    .state_size = sizeof(struct usemem_state),
    .check = usemem_check,
    .run = usemem_run,
    .helpers = usemem_helpers,
};
