/* The wblg-disk thrashing benchmark (Hideo Aoki, 2004): processes that alternate disk writes with a pass
 * over a shared memory region (4 bytes every 4 KiB), or, split, writers
 * and touchers apart (the thrashing run). Reported as write MB/s, bytes,
 * passes, and (from the samples, for every workload) swap in and out as
 * min-max KB/s. SysV segments are marked for removal as soon as they are
 * made, so none outlives the run, whatever happens to it. */
#include <errno.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <stdint.h>
#include <stdbool.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "lib/metrics.h"
#include "lib/fileio.h"
#include "lib/timeutil.h"
#include "pressure/undo.h"
#include "lib/units.h"
#include "workloads/workload.h"
#include "metric_names.h"     /* generated from the metric tables (tools/metric-names.awk) */

/* What this workload stores, declared once: help metrics, the man page
 * and the tests' strict check read it. */
enum { SHMIO_WRITE_MB_PER_S, SHMIO_PASSES, SHMIO_BYTES_WRITTEN, SHMIO_BYTES_READ, SHMIO_BYTES_ON_DISK,
    SHMIO_PROCESSES };
static const struct metric_def shmio_defs[] = {
    [SHMIO_WRITE_MB_PER_S] = METRIC("shmio.write_mb_per_s", "MB/s", PM_HIGHER, "written per second (the headline)"),
    [SHMIO_PASSES] = METRIC("shmio.passes", "count", PM_HIGHER, "passes over the shared memory segments"),
    [SHMIO_BYTES_WRITTEN] = METRIC("shmio.bytes_written", "bytes", PM_NEITHER, "written to the files"),
    [SHMIO_BYTES_READ] = METRIC("shmio.bytes_read", "bytes", PM_NEITHER, "read from the files (--read-pct)"),
    [SHMIO_BYTES_ON_DISK] = METRIC("shmio.bytes_on_disk", "bytes", PM_NEITHER,
                  "the files' sizes at the end (bytes_written is checked against them)"),
    [SHMIO_PROCESSES] = METRIC("shmio.processes", "count", PM_NEITHER, "processes that started"),
};
static const struct metric_group shmio_metrics = METRIC_GROUP(
    "shmio: run shmio, the wblg-disk benchmark: processes writing files between passes over SysV shared memory",
    shmio_defs);

#define MAX_PROCS 4096
#define MAX_REGIONS 64

enum shmio_mode { MODE_ALTERNATE, MODE_SPLIT };

struct shmio_state {
    uint64_t procs, io_procs, mem_procs, regions, region_size, stride, io_min, io_max, read_pct, duration_ns;
    unsigned mode;                   /* enum shmio_mode */
    char dir[2048];
};

static const char *const mode_words[] = { "alternate", "split", NULL };

/* --dir: an existing directory (a fresh one is made inside it). */
static int check_dir(void *state, const char *value, struct pm_err *err)
{
    (void)state;
    struct stat sb;
    if (stat(value, &sb) < 0 || !S_ISDIR(sb.st_mode) || strlen(value) >= 2048 - 64)
        return pm_errf(err, "'%s' is not a directory", value);
    return 0;
}

#define SH(field) offsetof(struct shmio_state, field)
static const struct opt shmio_options[] = {
    { .name = "mode", .type = OPT_CHOICE, .offset = SH(mode), .metavar = "MODE", .def = "alternate",
      .words = mode_words, .noun = "mode",
      .help = "alternate: each process writes then touches; split: --io-procs writers, --mem-procs touchers" },
    { .name = "procs", .type = OPT_U64, .offset = SH(procs), .metavar = "N", .def = "16", .min = 1, .max = MAX_PROCS,
      .noun = "process count", .help = "processes (alternate mode; the wblg-disk report ran 640)" },
    { .name = "io-procs", .type = OPT_U64, .offset = SH(io_procs), .metavar = "A", .def = "8", .min = 0,
      .max = MAX_PROCS, .noun = "process count", .help = "split mode: writing processes" },
    { .name = "mem-procs", .type = OPT_U64, .offset = SH(mem_procs), .metavar = "B", .def = "8", .min = 0,
      .max = MAX_PROCS, .noun = "process count", .help = "split mode: touching processes" },
    { .name = "regions", .type = OPT_U64, .offset = SH(regions), .metavar = "K", .def = "1", .min = 1,
      .max = MAX_REGIONS, .noun = "region count", .help = "SysV shared memory segments, processes spread over them" },
    { .name = "region-size", .type = OPT_SIZE, .offset = SH(region_size), .metavar = "SIZE", .flags = OPT_PCT_MEM, .def = "64M", .min = 4,
      .max = 1e18, .extra = "at least 4 bytes", .help = "size of each segment (the wblg-disk report: one of 1.6G)" },
    { .name = "touch-stride", .type = OPT_SIZE, .offset = SH(stride), .metavar = "SIZE", .def = "4K", .min = 4,
      .max = 1e18, .extra = "at least 4 bytes", .help = "a pass touches 4 bytes every STRIDE" },
    { .name = "io-min", .type = OPT_SIZE, .offset = SH(io_min), .metavar = "SIZE", .def = "1K", .min = 4,
      .max = 64 << 20, .extra = "4 bytes to 64M", .help = "smallest write" },
    { .name = "io-max", .type = OPT_SIZE, .offset = SH(io_max), .metavar = "SIZE", .def = "256K", .min = 4,
      .max = 64 << 20, .extra = "at most 64M", .help = "largest write" },
    { .name = "read-pct", .type = OPT_U64, .offset = SH(read_pct), .metavar = "P", .def = "0", .min = 0, .max = 100,
      .noun = "percentage", .help = "percent of disk operations that read instead (the wblg-disk report: 0)" },
    { .name = "dir", .type = OPT_STRING, .offset = SH(dir), .size = sizeof(((struct shmio_state *)0)->dir),
      .metavar = "DIR", .set = check_dir, .flags = OPT_NO_DESCRIBE,
      .help = "where the files go (a fresh directory inside it, removed afterwards; default the temp dir)" },
    { .name = "duration", .type = OPT_DURATION, .offset = SH(duration_ns), .metavar = "D", .def = "10s", .min = 1,
      .max = 1e18, .help = "how long (the wblg-disk report ran 3 hours)" },
    { .type = OPT_END },
};

static int shmio_check(void *state, const struct wl_limits *lim, struct pm_err *err)
{
    (void)lim;
    struct shmio_state *st = state;
    if (st->io_min > st->io_max)
        return pm_errf(err, "--io-min is above --io-max");
    if ((st->mode == MODE_SPLIT) && st->io_procs + st->mem_procs == 0)
        return pm_errf(err, "split mode needs --io-procs or --mem-procs above 0");
    return 0;
}

/* One run's working set: its scratch directory, segments and workers. */
struct shmio_run {
    char dir[2200];
    int ids[MAX_REGIONS];
    void *maps[MAX_REGIONS];
    unsigned nreg, started;
    pid_t *pids;
    int report[2];                   /* the workers' report pipe */
};

/* The segments are marked IPC_RMID at once: gone with their last user,
 * whatever happens to the run. */
static int make_regions(const struct shmio_state *st, struct shmio_run *r, struct pm_err *err)
{
    for (; r->nreg < st->regions; r->nreg++) {
        unsigned i = r->nreg;
        r->ids[i] = shmget(IPC_PRIVATE, st->region_size, IPC_CREAT | 0600);
        r->maps[i] = r->ids[i] < 0 ? (void *)-1 : shmat(r->ids[i], NULL, SHM_RDONLY);
        if (r->ids[i] >= 0)
            shmctl(r->ids[i], IPC_RMID, NULL);
        if (r->ids[i] < 0 || r->maps[i] == (void *)-1) {
            int e = errno;
            if (r->maps[i] != (void *)-1)
                shmdt(r->maps[i]);
            return pm_errf(err, "shared memory segment of %llu bytes: %s (see kernel.shmmax)",
                           (unsigned long long)st->region_size, strerror(e));
        }
    }
    return 0;
}

static int start_workers(const struct shmio_state *st, struct shmio_run *r, unsigned n, struct run_ctx *rc,
                         struct pm_err *err)
{
    uint64_t until = pm_now_ns() + st->duration_ns;
    bool split = st->mode == MODE_SPLIT;
    for (; r->started < n; r->started++) {
        unsigned w = r->started;
        const char *role = !split ? "alternate" : w < st->io_procs ? "io" : "mem";
        char a[8][128];
        snprintf(a[0], sizeof a[0], "--shm=%d", r->ids[w % r->nreg]);
        snprintf(a[1], sizeof a[1], "--stride=%llu", (unsigned long long)st->stride);
        snprintf(a[2], sizeof a[2], "--io=%llu,%llu", (unsigned long long)st->io_min, (unsigned long long)st->io_max);
        snprintf(a[3], sizeof a[3], "--read-pct=%llu", (unsigned long long)st->read_pct);
        snprintf(a[4], sizeof a[4], "--role=%s", role);
        snprintf(a[5], sizeof a[5], "--until=%llu", (unsigned long long)until);
        snprintf(a[6], sizeof a[6], "--seed=%u", w + 1);
        char file[2300];
        snprintf(file, sizeof file, "--file=%s/worker-%u.dat", r->dir, w);
        char *argv[] = { (char *)run_exe(rc), "__shmio-worker", a[0], a[1], a[2], a[3], a[4], a[5], a[6], file, NULL };
        if (run_spawn_fd(rc, argv, r->report[1], &r->pids[w], err) < 0)
            return -1;
    }
    return 0;
}

/* Wait for every worker; an interrupt or timeout reaches them all. The
 * first that did not end well says how the run ended. */
static int wait_workers(struct shmio_run *r, struct run_ctx *rc, struct run_exit *first, struct pm_err *err)
{
    bool have_first = false;
    int result = 0;
    for (unsigned i = 0; i < r->started; i++) {
        struct run_exit ex;
        if (run_wait(rc, r->pids[i], &ex, err) < 0) {
            result = -1;
            continue;
        }
        if (!have_first || (WIFEXITED(first->wstatus) && WEXITSTATUS(first->wstatus) == 0 && !first->aborted)) {
            *first = ex;
            have_first = true;
        }
        if (ex.aborted || ex.timed_out)
            for (unsigned k = i + 1; k < r->started; k++)
                kill(r->pids[k], SIGKILL);
    }
    return have_first ? result : -1;
}

/* Sum the workers' reports, and check them against the files: every byte
 * reported written must be on disk. */
static void report_metrics(const struct shmio_state *st, struct shmio_run *r, struct run_ctx *rc)
{
    uint64_t written = 0, reads = 0, passes = 0, reports = 0, on_disk = 0;
    char line[256];
    FILE *in = fdopen(r->report[0], "r");
    while (in && fgets(line, sizeof line, in)) {
        unsigned long long w, rd, ps;
        if (sscanf(line, "written %llu read %llu passes %llu", &w, &rd, &ps) == 3) {
            written += w;
            reads += rd;
            passes += ps;
            reports++;
        }
    }
    if (in)
        fclose(in);
    else
        close(r->report[0]);
    r->report[0] = -1;
    for (unsigned i = 0; i < r->started; i++) {
        char path[2300];
        struct stat sb;
        snprintf(path, sizeof path, "%s/worker-%u.dat", r->dir, i);
        if (stat(path, &sb) == 0)
            on_disk += (uint64_t)sb.st_size;
    }
    double secs = (double)st->duration_ns / 1e9;
    run_metric(rc, &shmio_defs[SHMIO_BYTES_WRITTEN], (double)written);
    run_metric(rc, &shmio_defs[SHMIO_BYTES_ON_DISK], (double)on_disk);
    run_metric(rc, &shmio_defs[SHMIO_BYTES_READ], (double)reads);
    run_metric(rc, &shmio_defs[SHMIO_PASSES], (double)passes);
    run_metric(rc, &shmio_defs[SHMIO_PROCESSES], (double)r->started);
    if (strcmp(rc_status(rc), "ok") != 0)
        return;
    run_metric(rc, &shmio_defs[SHMIO_WRITE_MB_PER_S], (double)written / 1048576.0 / secs);
    if (reports != r->started)
        run_set_status(rc, "failed", "%llu of %u processes reported", (unsigned long long)reports, r->started);
    else if (written != on_disk)
        run_set_status(rc, "failed", "bytes written (%llu) differ from the files' sizes (%llu)",
                       (unsigned long long)written, (unsigned long long)on_disk);
}

static int shmio_run(void *state, struct run_ctx *rc, struct pm_err *err)
{
    struct shmio_state *st = state;
    struct shmio_run r = { .report = { -1, -1 } };
    const char *tmp = st->dir[0] ? st->dir : getenv("TMPDIR");
    snprintf(r.dir, sizeof r.dir, "%s/pressmark-shmio.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(r.dir))
        return pm_errf(err, "%s: %s", r.dir, strerror(errno));
    int undo_id = undo_push(UNDO_SCRATCH, r.dir, "worker-", err);
    if (undo_id < 0) {
        rmdir(r.dir);
        return -1;
    }
    unsigned n = st->mode == MODE_SPLIT ? (unsigned)(st->io_procs + st->mem_procs) : (unsigned)st->procs;
    int result = make_regions(st, &r, err);
    if (result == 0 && (!(r.pids = calloc(n, sizeof *r.pids)) || pipe2(r.report, O_CLOEXEC) < 0))
        result = pm_errf(err, "out of memory or descriptors");
    if (result == 0)
        result = start_workers(st, &r, n, rc, err);
    if (r.report[1] >= 0)
        close(r.report[1]);
    struct run_exit first = { 0 };
    int waited = wait_workers(&r, rc, &first, err);
    if (result == 0 && waited == 0) {
        run_status_from_exit(rc, "a shmio process", &first);
        report_metrics(st, &r, rc);
    } else if (result == 0) {
        result = -1;
    }
    if (r.report[0] >= 0)
        close(r.report[0]);
    for (unsigned i = 0; i < r.nreg; i++)
        shmdt(r.maps[i]);
    free(r.pids);
    char said[512];
    undo_apply(UNDO_SCRATCH, r.dir, "worker-", said, sizeof said);
    undo_done(undo_id);
    return result;
}

/* The helper process the run starts, as "pressmark __shmio-worker". */
/* One wblg-disk process: until the deadline, a disk operation (a write of
 * io-min to io-max bytes appended to its file, or a read) and/or a pass
 * over its shared memory segment touching 4 bytes every stride. */
static int shmio_worker_main(int argc, char **argv)
{
    int shm = -1;
    unsigned long long stride = 4096, io_min = 1024, io_max = 262144, read_pct = 0, until = 0, seed = 1;
    const char *role = "alternate", *file = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strncmp(a, "--shm=", 6) == 0) shm = atoi(a + 6);
        else if (strncmp(a, "--stride=", 9) == 0) stride = strtoull(a + 9, NULL, 10);
        else if (strncmp(a, "--io=", 5) == 0) sscanf(a + 5, "%llu,%llu", &io_min, &io_max);
        else if (strncmp(a, "--read-pct=", 11) == 0) read_pct = strtoull(a + 11, NULL, 10);
        else if (strncmp(a, "--role=", 7) == 0) role = a + 7;
        else if (strncmp(a, "--until=", 8) == 0) until = strtoull(a + 8, NULL, 10);
        else if (strncmp(a, "--seed=", 7) == 0) seed = strtoull(a + 7, NULL, 10);
        else if (strncmp(a, "--file=", 7) == 0) file = a + 7;
    }
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    bool do_io = strcmp(role, "mem") != 0, do_mem = strcmp(role, "io") != 0;
    struct shmid_ds ds;
    char *mem = NULL;
    size_t size = 0;
    if (do_mem) {
        if (shmctl(shm, IPC_STAT, &ds) < 0 || (mem = shmat(shm, NULL, 0)) == (void *)-1) {
            fprintf(stderr, "pressmark shmio: cannot attach segment %d: %s\n", shm, strerror(errno));
            return 1;
        }
        size = ds.shm_segsz;
    }
    int fd = -1;
    char *buf = NULL;
    if (do_io) {
        fd = open(file, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
        buf = malloc(io_max);
        if (fd < 0 || !buf) {
            fprintf(stderr, "pressmark shmio: %s: %s\n", file, strerror(errno));
            free(buf);
            return 1;
        }
        for (unsigned long long i = 0; i < io_max; i++)
            buf[i] = (char)(i * 131 + seed);
    }
    uint64_t s = seed * 2654435761ull, written = 0, reads = 0, passes = 0;
    while (pm_now_ns() < until) {
        if (do_io) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            size_t n = (size_t)(io_min + (s >> 33) % (io_max - io_min + 1));
            off_t end = lseek(fd, 0, SEEK_END);
            if (read_pct && (s >> 20) % 100 < read_pct && end > 0) {
                ssize_t r = pread(fd, buf, n, (off_t)((s >> 13) % (uint64_t)end));
                if (r > 0)
                    reads += (uint64_t)r;
            } else {
                ssize_t w = write(fd, buf, n);
                if (w < 0) {
                    fprintf(stderr, "pressmark shmio: writing %s: %s\n", file, strerror(errno));
                    free(buf);
                    close(fd);
                    return 1;
                }
                written += (uint64_t)w;
            }
        }
        if (do_mem) {
            for (size_t off = 0; off + 4 <= size; off += stride)
                (*(volatile uint32_t *)(mem + off))++;
            passes++;
        }
    }
    free(buf);
    if (fd >= 0)
        close(fd);
    if (mem)
        shmdt(mem);
    char line[128];
    int n = snprintf(line, sizeof line, "written %llu read %llu passes %llu\n", (unsigned long long)written,
                     (unsigned long long)reads, (unsigned long long)passes);
    return write(4, line, (size_t)n) == n ? 0 : 1;
}

static const struct wl_helper shmio_helpers[] = {
    { "__shmio-worker", shmio_worker_main },
    { NULL, NULL },
};

const struct workload_ops workload_shmio = {
    .metrics = &shmio_metrics,
    .name = "shmio",
    .summary = "the wblg-disk thrashing benchmark (2.6.8-rc2-mm2, 2004): processes alternating disk writes with touching shared memory",
    .headline = MN_shmio_write_mb_per_s,
    .headline_title = "MB/s",
    .options = shmio_options,
    .state_size = sizeof(struct shmio_state),
    .check = shmio_check,
    .run = shmio_run,
    .helpers = shmio_helpers,
    .journals = true,
};
