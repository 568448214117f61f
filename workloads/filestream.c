/* Page cache against anonymous memory: sequential reads of a file larger
 * than the cap (--file-size, made once and kept in pressmark's cache, as
 * the generated build tree is) beside an anonymous working set (--anon)
 * touched in a loop; read MB/s and the set's page-touch rate. The classic
 * anon-against-file balance that vm-scalability's lru-file-readonce and
 * the MGLRU series' benchmarks exercise: a kernel that keeps the stream's
 * once-read pages over the working set slows the loop; one that evicts
 * the set to keep the stream slows both.
 *
 * Before each run the file's cached pages are dropped (posix_fadvise
 * DONTNEED on it alone), so every run streams from the disk into its own
 * cgroup's page cache; --drop-caches drops every cache first.
 *
 * The file's every 4 KiB block starts with its own offset, and the reader
 * checks each, so bytes read are counted exactly and a block read from the
 * wrong place is seen. */
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
#include <sys/stat.h>
#include <unistd.h>
#include "lib/fileio.h"
#include "lib/metrics.h"
#include "lib/timeutil.h"
#include "lib/units.h"
#include "workloads/workload.h"
#include "metric_names.h"     /* generated from the metric tables (tools/metric-names.awk) */

/* What this workload stores, declared once: help metrics, the man page
 * and the tests' strict check read it. */
enum { FILESTREAM_READ_MB_PER_S, FILESTREAM_ELAPSED_S, FILESTREAM_ANON_PAGES_PER_S, FILESTREAM_FILE_BYTES,
    FILESTREAM_ANON_BYTES, FILESTREAM_BYTES_READ, FILESTREAM_PASSES, FILESTREAM_ANON_PAGES_TOUCHED,
    FILESTREAM_BAD_BLOCKS };
static const struct metric_def filestream_defs[] = {
    [FILESTREAM_READ_MB_PER_S] = METRIC("filestream.read_mb_per_s", "MB/s", PM_HIGHER,
                  "the stream's read rate (the headline)"),
    [FILESTREAM_ELAPSED_S] = METRIC("filestream.elapsed_s", "s", PM_LOWER, "the timed stream"),
    [FILESTREAM_ANON_PAGES_PER_S] = METRIC("filestream.anon_pages_per_s", "pages/s", PM_HIGHER,
                  "anonymous pages touched per second meanwhile"),
    [FILESTREAM_FILE_BYTES] = METRIC("filestream.file_bytes", "bytes", PM_NEITHER, "the file's size"),
    [FILESTREAM_ANON_BYTES] = METRIC("filestream.anon_bytes", "bytes", PM_NEITHER, "the anonymous set's size"),
    [FILESTREAM_BYTES_READ] = METRIC("filestream.bytes_read", "bytes", PM_NEITHER, "read from the file"),
    [FILESTREAM_PASSES] = METRIC("filestream.passes", "count", PM_NEITHER, "passes over the file"),
    [FILESTREAM_ANON_PAGES_TOUCHED] = METRIC("filestream.anon_pages_touched", "pages", PM_NEITHER,
                  "anonymous pages touched"),
    [FILESTREAM_BAD_BLOCKS] = METRIC("filestream.bad_blocks", "blocks", PM_LOWER,
                  "4K blocks that held another offset's data (the run fails)"),
};
static const struct metric_group filestream_metrics = METRIC_GROUP(
    "filestream: run filestream, a file streamed beside an anonymous set",
    filestream_defs);

#define BLOCK 4096u
#define FILE_VERSION 1

struct filestream_state {
    uint64_t file_size, anon, block, duration_ns;
    unsigned passes;
    bool drop_caches;
    char path[4096];             /* the cached file, after prepare */
};

#define FO(field) offsetof(struct filestream_state, field)
static const struct opt filestream_options[] = {
    { .name = "file-size", .type = OPT_SIZE, .offset = FO(file_size), .metavar = "SIZE", .def = "1G",
      .flags = OPT_PCT_MEM, .min = 1 << 20, .max = 1e15, .extra = "at least 1M",
      .help = "the file read sequentially; make it larger than the cap" },
    { .name = "anon", .type = OPT_SIZE, .offset = FO(anon), .metavar = "SIZE", .def = "64M", .flags = OPT_PCT_MEM,
      .min = 0, .max = 1e15, .extra = "0 for none", .help = "anonymous working set touched in a loop meanwhile" },
    { .name = "passes", .type = OPT_UINT, .offset = FO(passes), .metavar = "N", .def = "1", .min = 1, .max = 100000,
      .noun = "pass count", .help = "reads of the whole file (without --duration)" },
    { .name = "duration", .type = OPT_DURATION, .offset = FO(duration_ns), .metavar = "D", .def = "0s",
      .flags = OPT_DESCRIBE_SET, .extra = "0s for --passes", .help = "read until D has passed instead (whole passes)" },
    { .name = "block", .type = OPT_SIZE, .offset = FO(block), .metavar = "SIZE", .def = "1M", .min = 4096,
      .max = 1 << 30, .extra = "4K to 1G, a multiple of 4K", .help = "bytes per read()" },
    { .name = "drop-caches", .type = OPT_FLAG, .offset = FO(drop_caches),
      .help = "drop the page cache before each run (root), so every run reads from the disk" },
    { .type = OPT_END },
};

static int filestream_check(void *state, const struct wl_limits *lim, struct pm_err *err)
{
    struct filestream_state *st = state;
    if (st->block % BLOCK)
        return pm_errf(err, "--block: %llu bytes is not a multiple of 4K (accepted: 4K to 1G, a multiple of 4K)",
                       (unsigned long long)st->block);
    if (st->file_size % BLOCK)
        st->file_size -= st->file_size % BLOCK;
    if (st->drop_caches && geteuid() != 0)
        return pm_errf(err, "--drop-caches needs root (it writes /proc/sys/vm/drop_caches)");
    return wl_check_fits(lim, st->anon, "--anon", err);
}

/* Write the file under a temporary name, then rename it into place: a
 * file of the final name is always whole. */
static int make_file(const char *dir, const char *path, uint64_t size, struct pm_err *err)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s/.filestream-%d.tmp", dir, (int)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return pm_errf(err, "%s: %s", tmp, strerror(errno));
    size_t chunk = 1 << 20;
    uint64_t *buf = malloc(chunk);
    if (!buf) {
        close(fd);
        unlink(tmp);
        return pm_errf(err, "out of memory");
    }
    for (uint64_t off = 0; off < size; off += chunk) {
        size_t n = size - off < chunk ? (size_t)(size - off) : chunk;
        for (size_t i = 0; i < n / sizeof *buf; i++)
            buf[i] = (off + i * sizeof *buf) ^ 0x9E3779B97F4A7C15ull;
        /* The first word of each block is its offset, as the reader checks. */
        for (size_t b = 0; b < n; b += BLOCK)
            buf[b / sizeof *buf] = off + b;
        if (write(fd, buf, n) != (ssize_t)n) {
            pm_errf(err, "%s: %s", tmp, errno ? strerror(errno) : "short write");
            free(buf);
            close(fd);
            unlink(tmp);
            return -1;
        }
    }
    free(buf);
    if (fsync(fd) < 0 || close(fd) < 0 || rename(tmp, path) < 0) {
        pm_errf(err, "%s: %s", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

static int filestream_prepare(void *state, struct run_ctx *rc, struct pm_err *err)
{
    (void)rc;
    struct filestream_state *st = state;
    char root[4096], dir[4200];
    if (pm_cache_dir(root, sizeof root, err) < 0)
        return -1;
    snprintf(dir, sizeof dir, "%s/filestream", root);
    if (pm_private_dir(dir, sizeof dir, err) < 0)
        return -1;
    snprintf(st->path, sizeof st->path, "%s/v%d-%llu.dat", dir, FILE_VERSION, (unsigned long long)st->file_size);
    struct stat sb;
    if (lstat(st->path, &sb) == 0 && S_ISREG(sb.st_mode) && (uint64_t)sb.st_size == st->file_size)
        return 0;
    unlink(st->path);
    char size[32];
    pm_fmt_size(size, sizeof size, st->file_size);
    fprintf(run_say(rc), "pressmark: filestream: writing a %s file once (%s)\n", size, st->path);
    return make_file(dir, st->path, st->file_size, err);
}

struct anon_loop {
    char *mem;
    size_t pages, page;
    atomic_bool stop;
    uint64_t touched, ns;
};

static void *anon_main(void *arg)
{
    struct anon_loop *a = arg;
    uint64_t t0 = pm_now_ns(), n = 0;
    while (!atomic_load(&a->stop))
        for (size_t i = 0; i < a->pages && !atomic_load_explicit(&a->stop, memory_order_relaxed); i++, n++)
            *(volatile uint64_t *)(a->mem + i * a->page) = n;
    a->touched = n;
    a->ns = pm_now_ns() - t0;
    return NULL;
}

/* "pressmark __filestream PATH SIZE ANON PASSES DURATION_NS BLOCK". */
static int filestream_helper(int argc, char **argv)
{
    uint64_t v[5];
    if (argc != 7)
        return 2;
    for (int i = 0; i < 5; i++)
        if (pm_parse_uint(argv[i + 2], 0, UINT64_MAX, &v[i]) < 0)
            return 2;
    uint64_t size = v[0], anon = v[1], passes = v[2], duration = v[3], block = v[4];
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    int fd = open(argv[1], O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        fprintf(stderr, "pressmark filestream: %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    /* The file's pages cached by an earlier run (or by writing it, outside
     * the cap) are dropped: the stream reads from the disk, and what it
     * caches is charged to this run's cgroup, as a real stream's would be. */
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    char *buf = malloc(block);
    if (!buf)
        return 1;
    struct anon_loop a = { .page = (size_t)sysconf(_SC_PAGESIZE) };
    atomic_init(&a.stop, false);
    pthread_t th;
    bool anon_on = anon >= a.page;
    if (anon_on) {
        a.pages = anon / a.page;
        a.mem = mmap(NULL, a.pages * a.page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (a.mem == MAP_FAILED) {
            fprintf(stderr, "pressmark filestream: cannot map --anon: %s\n", strerror(errno));
            return 1;
        }
        /* The set is in memory before the stream starts competing for it. */
        for (size_t i = 0; i < a.pages; i++)
            a.mem[i * a.page] = 1;
        if (pthread_create(&th, NULL, anon_main, &a) != 0)
            return 1;
    }
    uint64_t t0 = pm_now_ns(), bytes = 0, bad = 0, first_bad = UINT64_MAX, done = 0;
    for (;;) {
        uint64_t off = 0;
        while (off < size) {
            ssize_t n = pread(fd, buf, block, (off_t)off);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                fprintf(stderr, "pressmark filestream: read at %llu: %s\n", (unsigned long long)off,
                        n < 0 ? strerror(errno) : "end of file");
                free(buf);
                return 1;
            }
            for (ssize_t b = 0; b + 8 <= n; b += BLOCK) {
                uint64_t w;
                memcpy(&w, buf + b, sizeof w);
                if (w != off + (uint64_t)b && !bad++)
                    first_bad = off + (uint64_t)b;
            }
            off += (uint64_t)n;
            bytes += (uint64_t)n;
        }
        done++;
        if (duration ? pm_now_ns() - t0 >= duration : done >= passes)
            break;
    }
    uint64_t ns = pm_now_ns() - t0;
    if (anon_on) {
        atomic_store(&a.stop, true);
        pthread_join(th, NULL);
    }
    free(buf);
    close(fd);
    char line[320];
    int n = snprintf(line, sizeof line,
                     "bytes %llu ns %llu passes %llu bad_blocks %llu first_bad %llu anon_touched %llu anon_ns %llu\n",
                     (unsigned long long)bytes, (unsigned long long)ns, (unsigned long long)done,
                     (unsigned long long)bad, (unsigned long long)(bad ? first_bad : 0),
                     (unsigned long long)a.touched, (unsigned long long)a.ns);
    return write(4, line, (size_t)n) == n ? 0 : 1;
}

static int filestream_run(void *state, struct run_ctx *rc, struct pm_err *err)
{
    struct filestream_state *st = state;
    if (st->drop_caches) {
        sync();
        if (pm_write_file("/proc/sys/vm/drop_caches", "3", err) < 0)
            return -1;
    }
    char a[5][32];
    uint64_t v[5] = { st->file_size, st->anon, st->passes, st->duration_ns, st->block };
    for (int i = 0; i < 5; i++)
        snprintf(a[i], sizeof a[i], "%llu", (unsigned long long)v[i]);
    char *argv[] = { (char *)run_exe(rc), "__filestream", st->path, a[0], a[1], a[2], a[3], a[4], NULL };
    char line[320];
    if (run_helper(rc, argv, "filestream", line, sizeof line, err) < 0)
        return -1;
    unsigned long long bytes, ns, passes, bad, first_bad, touched, anon_ns;
    run_metric(rc, &filestream_defs[FILESTREAM_FILE_BYTES], (double)st->file_size);
    run_metric(rc, &filestream_defs[FILESTREAM_ANON_BYTES], (double)st->anon);
    if (sscanf(line, "bytes %llu ns %llu passes %llu bad_blocks %llu first_bad %llu anon_touched %llu anon_ns %llu",
               &bytes, &ns, &passes, &bad, &first_bad, &touched, &anon_ns) != 7) {
        if (strcmp(rc_status(rc), "ok") == 0)
            run_set_status(rc, "failed", "filestream reported nothing");
        return 0;
    }
    run_metric(rc, &filestream_defs[FILESTREAM_BYTES_READ], (double)bytes);
    run_metric(rc, &filestream_defs[FILESTREAM_PASSES], (double)passes);
    run_metric(rc, &filestream_defs[FILESTREAM_BAD_BLOCKS], (double)bad);
    run_metric(rc, &filestream_defs[FILESTREAM_ANON_PAGES_TOUCHED], (double)touched);
    if (bad && strcmp(rc_status(rc), "ok") == 0) {
        /* Not what make_file wrote: the next invocation writes it afresh. */
        bool gone = unlink(st->path) == 0;
        run_set_status(rc, "failed", "%llu blocks read held another offset's data (first at byte %llu)%s", bad,
                       first_bad, gone ? "; the cached file is removed, to be written again" : "");
    }
    if (strcmp(rc_status(rc), "ok") != 0 || !ns)
        return 0;
    run_metric(rc, &filestream_defs[FILESTREAM_READ_MB_PER_S], (double)bytes / 1048576.0 / ((double)ns / 1e9));
    run_metric(rc, &filestream_defs[FILESTREAM_ELAPSED_S], (double)ns / 1e9);
    if (anon_ns)
        run_metric(rc, &filestream_defs[FILESTREAM_ANON_PAGES_PER_S], (double)touched / ((double)anon_ns / 1e9));
    return 0;
}

static void filestream_describe(void *state, char *buf, size_t len)
{
    struct filestream_state *st = state;
    char fs[32], an[32], bl[32], dur[48] = "";
    pm_fmt_size(fs, sizeof fs, st->file_size);
    pm_fmt_size(an, sizeof an, st->anon);
    pm_fmt_size(bl, sizeof bl, st->block);
    if (st->duration_ns)
        snprintf(dur, sizeof dur, " --duration %.3gs", (double)st->duration_ns / 1e9);
    else
        snprintf(dur, sizeof dur, " --passes %u", st->passes);
    snprintf(buf, len, "--file-size %s --anon %s%s --block %s%s", fs, an, dur, bl,
             st->drop_caches ? " --drop-caches" : "");
}

static const struct wl_helper filestream_helpers[] = {
    { "__filestream", filestream_helper },
    { NULL, NULL },
};

static const char *const filestream_compare_also[] = { MN_filestream_anon_pages_per_s, NULL };

const struct workload_ops workload_filestream = {
    .metrics = &filestream_metrics,
    .name = "filestream",
    .summary = "page cache against anonymous memory: a file larger than the cap read sequentially beside a working "
               "set touched in a loop; read MB/s and the set's rate",
    .headline = MN_filestream_read_mb_per_s,
    .headline_title = "MB/s",
    .compare_also = filestream_compare_also,
    .options = filestream_options,
    .state_size = sizeof(struct filestream_state),
    .check = filestream_check,
    .prepare = filestream_prepare,
    .run = filestream_run,
    .describe = filestream_describe,
    .helpers = filestream_helpers,
};
