/* Collectors that need more than one file re-read: the swap devices' lines
 * of /proc/diskstats (the devices are found in /proc/swaps when the run
 * starts), the workload's largest processes (its cgroup's cgroup.procs and
 * each one's /proc/PID/status), and the mTHP counters of every huge page
 * size that is not off. */
#include "collectors/source.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "lib/fileio.h"
#include "lib/timeutil.h"

static void put_int(struct sink *sink, const char *name, int64_t v)
{
    sink->put(sink, name, strlen(name), (struct pm_value){ .kind = PM_INT, .i = v });
}

/* ---- diskstats of the swap devices ---- */

#define MAX_SWAPDEVS 8
struct disk_priv {
    int n;
    unsigned major[MAX_SWAPDEVS], minor[MAX_SWAPDEVS];
};

/* Every swap area's block device: a partition or zram names itself; a
 * swap file's is its filesystem's. */
static void find_swap_devices(struct disk_priv *d, const char *proc)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/swaps", proc);
    FILE *f = fopen(path, "re");
    if (!f)
        return;
    char line[1024];
    if (!fgets(line, sizeof line, f)) {     /* the header */
        fclose(f);
        return;
    }
    while (fgets(line, sizeof line, f) && d->n < MAX_SWAPDEVS) {
        char file[PATH_MAX], type[32];
        if (sscanf(line, "%4095s %31s", file, type) != 2)
            continue;
        struct stat st;
        if (stat(file, &st) < 0)
            continue;
        dev_t dev = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
        unsigned ma = major(dev), mi = minor(dev);
        bool dup = false;
        for (int i = 0; i < d->n; i++)
            dup |= d->major[i] == ma && d->minor[i] == mi;
        if (!dup) {
            d->major[d->n] = ma;
            d->minor[d->n++] = mi;
        }
    }
    fclose(f);
}

static int diskstats_open(struct collector *c, struct pm_err *err)
{
    struct disk_priv *d = calloc(1, sizeof *d);
    if (!d)
        return pm_errf(err, "out of memory");
    char proc[PATH_MAX];
    snprintf(proc, sizeof proc, "%.*s", (int)(strlen(c->path) - strlen("/diskstats")), c->path);
    find_swap_devices(d, proc);
    if (d->n == 0) {
        free(d);
        return pm_errf(err, "no swap device in use");
    }
    c->priv = d;
    if (procfile_collector_ops.open(c, err) < 0) {
        free(d);
        c->priv = NULL;
        return -1;
    }
    return 0;
}

static int diskstats_sample(struct collector *c, struct sink *sink, struct pm_err *err)
{
    struct disk_priv *d = c->priv;
    ssize_t n = procfile_read(c, err);
    if (n < 0)
        return -1;
    static const char *const cols[] = { "reads", NULL, "read_sectors", "read_ms", "writes", NULL, "write_sectors",
                                        "write_ms", "in_flight", "io_ms", "queue_ms" };
    int found = 0;
    for (char *p = c->buf, *end = c->buf + n; p < end;) {
        char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol)
            eol = end;
        *eol = '\0';
        unsigned ma, mi;
        char name[64];
        int used;
        if (sscanf(p, "%u %u %63s%n", &ma, &mi, name, &used) == 3) {
            for (int i = 0; i < d->n; i++) {
                if (d->major[i] != ma || d->minor[i] != mi)
                    continue;
                char *q = p + used;
                for (size_t k = 0; k < sizeof cols / sizeof cols[0]; k++) {
                    char *e;
                    errno = 0;
                    unsigned long long v = strtoull(q, &e, 10);
                    if (e == q || errno)
                        break;
                    q = e;
                    if (!cols[k])
                        continue;       /* merges: not asked for */
                    char key[160];
                    snprintf(key, sizeof key, "%s.%s.%s", c->prefix, name, cols[k]);
                    put_int(sink, key, (int64_t)v);
                }
                found++;
            }
        }
        p = eol + 1;
    }
    return found ? 0 : pm_errf(err, "%s: the swap devices' lines are gone", c->path);
}

static void diskstats_close(struct collector *c)
{
    procfile_collector_ops.close(c);
    free(c->priv);
    c->priv = NULL;
}

static const struct collector_ops diskstats_ops = { diskstats_open, diskstats_sample, diskstats_close };

/* diskstats.DEV.{reads,read_sectors,read_ms,writes,write_sectors,write_ms,
 * in_flight,io_ms,queue_ms} for each device swap is on (a swap file's
 * filesystem's device; zram0 for zram). */
static void diskstats_collector_init(struct collector *c, const char *proc_root)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/diskstats", proc_root);
    procfile_collector_init(c, "diskstats", path, "diskstats", NULL);
    c->ops = &diskstats_ops;
}

/* ---- the workload's largest processes ---- */

#define TOP_PROCS 5

struct proc_mem { int64_t pid, rss, swap; };

/* VmRSS and VmSwap from /proc/PID/status (kB); false once it has exited. */
static bool proc_mem(int64_t pid, struct proc_mem *m)
{
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/%lld/status", (long long)pid);
    if (pm_read_file(path, buf, sizeof buf) < 0)
        return false;
    const char *r = strstr(buf, "\nVmRSS:"), *s = strstr(buf, "\nVmSwap:");
    if (!r)
        return false;       /* a kernel thread, or a zombie */
    m->pid = pid;
    m->rss = strtoll(r + 7, NULL, 10);
    m->swap = s ? strtoll(s + 8, NULL, 10) : 0;
    return true;
}

static int procs_sample(struct collector *c, struct sink *sink, struct pm_err *err)
{
    /* Opened afresh each tick: cgroup v1 keeps the pid list an open file
     * first read, so a file kept open would never see the workload join. */
    int fd = open(c->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return pm_errf(err, "%s: %s", c->path, strerror(errno));
    ssize_t n = pread_whole(fd, &c->buf, &c->bufcap, c->path, err);
    close(fd);
    if (n < 0)
        return -1;
    struct proc_mem top[TOP_PROCS];
    int ntop = 0;
    for (char *p = c->buf, *end = c->buf + n; p < end;) {
        char *e;
        long long pid = strtoll(p, &e, 10);
        if (e == p)
            break;
        p = e + 1;
        struct proc_mem m;
        if (pid <= 0 || !proc_mem(pid, &m))
            continue;
        /* Keep the five with the most RSS, largest first. */
        int at = ntop;
        while (at > 0 && top[at - 1].rss < m.rss)
            at--;
        if (at >= TOP_PROCS)
            continue;
        if (ntop < TOP_PROCS)
            ntop++;
        memmove(&top[at + 1], &top[at], (size_t)(ntop - 1 - at) * sizeof top[0]);
        top[at] = m;
    }
    for (int i = 0; i < TOP_PROCS; i++) {
        char key[64];
        struct proc_mem m = i < ntop ? top[i] : (struct proc_mem){ 0, 0, 0 };
        snprintf(key, sizeof key, "procs.top%d.rss_kb", i + 1);
        put_int(sink, key, m.rss);
        snprintf(key, sizeof key, "procs.top%d.swap_kb", i + 1);
        put_int(sink, key, m.swap);
        snprintf(key, sizeof key, "procs.top%d.pid", i + 1);
        put_int(sink, key, m.pid);
    }
    return 0;
}

static int procs_open(struct collector *c, struct pm_err *err)
{
    return procfile_collector_ops.open(c, err);
}

static void procs_close(struct collector *c)
{
    procfile_collector_ops.close(c);
}

static const struct collector_ops procs_ops = { procs_open, procs_sample, procs_close };

/* procs.topN.{rss_kb,swap_kb,pid} for the 5 processes with the most RSS
 * in the cgroup whose cgroup.procs is given. */
static void procs_collector_init(struct collector *c, const char *cgroup_procs)
{
    procfile_collector_init(c, "procs", cgroup_procs, "procs", NULL);
    c->ops = &procs_ops;
    /* A status file per process, and cgroup.procs opened afresh: once a
     * second is enough to know who holds the memory. */
    c->every_ns = 1000000000ull;
}

/* ---- mTHP counters ---- */

static const char *const mthp_stats[] = { "anon_fault_alloc", "anon_fault_fallback", "swpout", "swpout_fallback",
                                          "split", "nr_anon" };
#define NSTATS (sizeof mthp_stats / sizeof mthp_stats[0])
#define MAX_SIZES 16
struct mthp_priv {
    int n;
    char size[MAX_SIZES][24];
    int fd[MAX_SIZES][NSTATS];
};

/* A size is sampled unless it is off: "never", or "inherit" from a
 * top-level setting of never. */
static bool size_on(const char *dir, const char *sub, bool top_never)
{
    char path[PATH_MAX], choice[64];
    snprintf(path, sizeof path, "%s/%s/enabled", dir, sub);
    if (pm_read_choice(path, choice, sizeof choice) < 0)
        return false;
    if (strcmp(choice, "inherit") == 0)
        return !top_never;
    return strcmp(choice, "never") != 0;
}

static int mthp_open(struct collector *c, struct pm_err *err)
{
    struct mthp_priv *m = calloc(1, sizeof *m);
    if (!m)
        return pm_errf(err, "out of memory");
    char top[PATH_MAX], choice[64];
    snprintf(top, sizeof top, "%s/enabled", c->path);
    bool top_never = pm_read_choice(top, choice, sizeof choice) == 0 && strcmp(choice, "never") == 0;
    DIR *d = opendir(c->path);
    if (!d) {
        free(m);
        return pm_errf(err, "%s: %s", c->path, strerror(errno));
    }
    struct dirent *de;
    while ((de = readdir(d)) && m->n < MAX_SIZES) {
        if (strncmp(de->d_name, "hugepages-", 10) != 0 || strlen(de->d_name + 10) >= sizeof m->size[0])
            continue;
        if (!size_on(c->path, de->d_name, top_never))
            continue;
        bool ok = true;
        for (size_t k = 0; k < NSTATS; k++) {
            char path[PATH_MAX + 128];
            snprintf(path, sizeof path, "%s/%s/stats/%s", c->path, de->d_name, mthp_stats[k]);
            m->fd[m->n][k] = open(path, O_RDONLY | O_CLOEXEC);
            ok &= m->fd[m->n][k] >= 0;
        }
        if (!ok) {
            for (size_t k = 0; k < NSTATS; k++)
                if (m->fd[m->n][k] >= 0)
                    close(m->fd[m->n][k]);
            continue;
        }
        snprintf(m->size[m->n++], sizeof m->size[0], "%s", de->d_name + 10);
    }
    closedir(d);
    if (m->n == 0) {
        free(m);
        return pm_errf(err, "no huge page size with per-size statistics is on (all never, or a kernel before 6.9)");
    }
    c->priv = m;
    return 0;
}

static int mthp_sample(struct collector *c, struct sink *sink, struct pm_err *err)
{
    struct mthp_priv *m = c->priv;
    for (int s = 0; s < m->n; s++)
        for (size_t k = 0; k < NSTATS; k++) {
            char buf[32];
            ssize_t n = pread(m->fd[s][k], buf, sizeof buf - 1, 0);
            if (n <= 0)
                return pm_errf(err, "%s/hugepages-%s/stats/%s: %s", c->path, m->size[s], mthp_stats[k],
                               n < 0 ? strerror(errno) : "empty");
            buf[n] = '\0';
            char key[96];
            snprintf(key, sizeof key, "mthp.%s.%s", m->size[s], mthp_stats[k]);
            put_int(sink, key, strtoll(buf, NULL, 10));
        }
    return 0;
}

static void mthp_close(struct collector *c)
{
    struct mthp_priv *m = c->priv;
    if (m)
        for (int s = 0; s < m->n; s++)
            for (size_t k = 0; k < NSTATS; k++)
                close(m->fd[s][k]);
    free(m);
    c->priv = NULL;
}

static const struct collector_ops mthp_ops = { mthp_open, mthp_sample, mthp_close };

/* mthp.SIZE.{anon_fault_alloc,anon_fault_fallback,swpout,swpout_fallback,
 * split,nr_anon} from /sys/kernel/mm/transparent_hugepage/hugepages-SIZE. */
static void mthp_collector_init(struct collector *c, const char *thp_dir)
{
    procfile_collector_init(c, "mthp", thp_dir, "mthp", NULL);
    c->ops = &mthp_ops;
    c->every_ns = 1000000000ull;     /* cumulative counters: their totals lose nothing */
}

/* ---- zones: free pages against the watermarks ---- */

/* zoneinfo costs as much to read as /proc/stat and vmstat together (it
 * prints every CPU's pageset of every zone), while its watermarks change
 * only with vm.min_free_kbytes and watermark_scale_factor. So the
 * watermarks are read from it when the run starts and every 10 s, and a
 * zone's free pages each tick from buddyinfo's blocks (the same free
 * count, NR_FREE_PAGES, as sum of blocks x 2^order). */
#define MAX_ZONES 16
#define WATERMARKS_EVERY_NS 10000000000ull
struct zone_priv {
    int n;
    char name[MAX_ZONES][48];            /* node0.Normal */
    int64_t wm[MAX_ZONES][3];            /* min, low, high */
    int64_t free[MAX_ZONES];
    uint64_t read_ns;
    int zfd;                             /* /proc/zoneinfo */
    char *zbuf;
    size_t zcap;
};

struct capture_sink {
    struct sink base;
    struct zone_priv *z;
    bool watermarks;                     /* capturing zoneinfo, else buddyinfo */
};

static int zone_at(struct zone_priv *z, const char *name, size_t len, bool add)
{
    for (int i = 0; i < z->n; i++)
        if (strlen(z->name[i]) == len && memcmp(z->name[i], name, len) == 0)
            return i;
    if (!add || z->n >= MAX_ZONES || len >= sizeof z->name[0])
        return -1;
    memcpy(z->name[z->n], name, len);
    z->name[z->n][len] = '\0';
    z->wm[z->n][0] = z->wm[z->n][1] = z->wm[z->n][2] = -1;
    return z->n++;
}

/* "P.node0.Normal.min" or "P.node0.Normal.order3": zone, then the field. */
static void capture_put(struct sink *self, const char *name, size_t len, struct pm_value v)
{
    struct capture_sink *cs = (struct capture_sink *)self;
    const char *dot1 = memchr(name, '.', len);
    if (!dot1)
        return;
    const char *zone = dot1 + 1;
    const char *last = NULL;
    for (const char *c = name + len - 1; c > zone; c--)
        if (*c == '.') {
            last = c;
            break;
        }
    if (!last)
        return;
    const char *field = last + 1;
    size_t flen = (size_t)(name + len - field);
    if (cs->watermarks) {
        static const char *const f[] = { "min", "low", "high" };
        for (int k = 0; k < 3; k++)
            if (flen == strlen(f[k]) && memcmp(field, f[k], flen) == 0) {
                int i = zone_at(cs->z, zone, (size_t)(last - zone), true);
                if (i >= 0)
                    cs->z->wm[i][k] = v.i;
            }
    } else if (flen > 5 && memcmp(field, "order", 5) == 0) {
        int i = zone_at(cs->z, zone, (size_t)(last - zone), false);
        int order = atoi(field + 5);
        if (i >= 0 && order >= 0 && order < 40 && v.i > 0)
            cs->z->free[i] += v.i << order;
    }
}

static int read_watermarks(struct zone_priv *z, const char *path, struct pm_err *err)
{
    ssize_t n = pread_whole(z->zfd, &z->zbuf, &z->zcap, path, err);
    if (n < 0)
        return -1;
    struct capture_sink cs = { .base.put = capture_put, .z = z, .watermarks = true };
    if (parse_zoneinfo(z->zbuf, (size_t)n, "zoneinfo", &cs.base) < 0)
        return pm_errf(err, "%s: unexpected format", path);
    return 0;
}

static int zones_open(struct collector *c, struct pm_err *err)
{
    struct zone_priv *z = calloc(1, sizeof *z);
    if (!z)
        return pm_errf(err, "out of memory");
    const char *path = c->path;
    z->zfd = open(path, O_RDONLY | O_CLOEXEC);
    z->zcap = 65536;
    z->zbuf = malloc(z->zcap);
    if (z->zfd < 0 || !z->zbuf) {
        int e = errno;
        if (z->zfd >= 0)
            close(z->zfd);
        free(z->zbuf);
        free(z);
        return pm_errf(err, "%s: %s", path, strerror(e));
    }
    c->priv = z;
    /* The collector's path names zoneinfo (the run's sources are told
     * apart by path); its fd and buffer are buddyinfo's. */
    char buddy[PATH_MAX];
    snprintf(buddy, sizeof buddy, "%.*s/buddyinfo", (int)(strlen(c->path) - strlen("/zoneinfo")), c->path);
    if (read_watermarks(z, c->path, err) < 0)
        goto fail;
    c->fd = open(buddy, O_RDONLY | O_CLOEXEC);
    c->bufcap = 16384;
    c->buf = malloc(c->bufcap);
    if (c->fd < 0 || !c->buf) {
        pm_errf(err, "%s: %s", buddy, c->fd < 0 ? strerror(errno) : "out of memory");
        goto fail;
    }
    return 0;
fail:
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    free(c->buf);
    c->buf = NULL;
    close(z->zfd);
    free(z->zbuf);
    free(z);
    c->priv = NULL;
    return -1;
}

static int zones_sample(struct collector *c, struct sink *sink, struct pm_err *err)
{
    struct zone_priv *z = c->priv;
    uint64_t now = pm_now_ns();
    if (z->read_ns && now - z->read_ns >= WATERMARKS_EVERY_NS && read_watermarks(z, c->path, err) < 0)
        return -1;
    if (!z->read_ns || now - z->read_ns >= WATERMARKS_EVERY_NS)
        z->read_ns = now;
    ssize_t n = procfile_read(c, err);
    if (n < 0)
        return -1;
    memset(z->free, 0, sizeof z->free);
    struct capture_sink cs = { .base.put = capture_put, .z = z, .watermarks = false };
    if (parse_buddyinfo(c->buf, (size_t)n, "buddyinfo", &cs.base) < 0)
        return pm_errf(err, "%s: unexpected format", c->path);
    for (int i = 0; i < z->n; i++) {
        if (z->wm[i][0] < 0 || z->wm[i][1] < 0 || z->wm[i][2] < 0)
            continue;
        static const char *const f[] = { "min", "low", "high" };
        char key[128];
        snprintf(key, sizeof key, "zoneinfo.%s.free", z->name[i]);
        put_int(sink, key, z->free[i]);
        for (int k = 0; k < 3; k++) {
            snprintf(key, sizeof key, "zoneinfo.%s.%s", z->name[i], f[k]);
            put_int(sink, key, z->wm[i][k]);
        }
        snprintf(key, sizeof key, "zoneinfo.%s.below_low", z->name[i]);
        put_int(sink, key, z->wm[i][1] > z->free[i] ? z->wm[i][1] - z->free[i] : 0);
        snprintf(key, sizeof key, "zoneinfo.%s.below_min", z->name[i]);
        put_int(sink, key, z->wm[i][0] > z->free[i] ? z->wm[i][0] - z->free[i] : 0);
    }
    return 0;
}

static void zones_close(struct collector *c)
{
    struct zone_priv *z = c->priv;
    procfile_collector_ops.close(c);
    if (z) {
        close(z->zfd);
        free(z->zbuf);
        free(z);
    }
    c->priv = NULL;
}

static const struct collector_ops zones_ops = { zones_open, zones_sample, zones_close };

/* zoneinfo.ZONE.{free,min,low,high,below_low,below_min} of each populated
 * zone: the watermarks read from /proc/zoneinfo at open and every 10 s,
 * the free pages each tick from /proc/buddyinfo (a tenth of the cost). */
static void zones_collector_init(struct collector *c, const char *proc_root)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/zoneinfo", proc_root);
    procfile_collector_init(c, "zoneinfo", path, "zoneinfo", NULL);
    c->ops = &zones_ops;
}

/* ---- The monitors as sources: their rows and the metrics each derives. */

enum { FRAG_UNUSABLE_O9_MAX_PCT, ZONE_BELOW_LOW_MAX_PAGES, ZONE_BELOW_MIN_MAX_PAGES, SWAPDEV_READS,
    SWAPDEV_WRITES, SWAPDEV_READ_KB, SWAPDEV_WRITE_KB, SWAPDEV_AWAIT_MS, PROCS_RSS_MAX_KB, PROCS_SWAP_MAX_KB,
    MTHP_ANON_FAULT_ALLOC, MTHP_ANON_FAULT_FALLBACK, MTHP_SWPOUT, MTHP_SWPOUT_FALLBACK, MTHP_SPLIT };
static const struct metric_def monitor_defs[] = {
    [FRAG_UNUSABLE_O9_MAX_PCT] = METRIC("frag.unusable_o9_max_pct", "%", PM_LOWER,
                  "the unusable free space index for order 9 (2 MB) at its worst, from /proc/buddyinfo"),
    [ZONE_BELOW_LOW_MAX_PAGES] = METRIC("zone.below_low_max_pages", "pages", PM_LOWER,
                  "the most any zone's free pages fell below its low watermark (/proc/zoneinfo)"),
    [ZONE_BELOW_MIN_MAX_PAGES] = METRIC("zone.below_min_max_pages", "pages", PM_LOWER,
                  "the most any zone's free pages fell below its min watermark"),
    [SWAPDEV_READS] = METRIC("swapdev.reads", "ops", PM_LOWER,
                  "reads completed by the swap devices' disks (/proc/diskstats)"),
    [SWAPDEV_WRITES] = METRIC("swapdev.writes", "ops", PM_LOWER, "writes completed by the swap devices' disks"),
    [SWAPDEV_READ_KB] = METRIC("swapdev.read_kb", "KB", PM_LOWER, "read from the swap devices' disks"),
    [SWAPDEV_WRITE_KB] = METRIC("swapdev.write_kb", "KB", PM_LOWER, "written to the swap devices' disks"),
    [SWAPDEV_AWAIT_MS] = METRIC("swapdev.await_ms", "ms", PM_LOWER,
                  "(read + write ms) / requests, iostat's await; a swap file's disk counts its other files' I/O too"),
    [PROCS_RSS_MAX_KB] = METRIC("procs.rss_max_kb", "KB", PM_NEITHER,
                  "the workload's largest process at its largest (VmRSS)"),
    [PROCS_SWAP_MAX_KB] = METRIC("procs.swap_max_kb", "KB", PM_LOWER,
                  "the most any of its five largest processes had swapped (VmSwap)"),
    [MTHP_ANON_FAULT_ALLOC] = METRIC("mthp.anon_fault_alloc", "count", PM_NEITHER,
                  "mTHP folios allocated at fault, all sizes that are on"),
    [MTHP_ANON_FAULT_FALLBACK] = METRIC("mthp.anon_fault_fallback", "count", PM_LOWER,
                  "mTHP faults that fell back to smaller folios"),
    [MTHP_SWPOUT] = METRIC("mthp.swpout", "count", PM_LOWER, "mTHP folios swapped out whole"),
    [MTHP_SWPOUT_FALLBACK] = METRIC("mthp.swpout_fallback", "count", PM_LOWER, "mTHP folios split before swap-out"),
    [MTHP_SPLIT] = METRIC("mthp.split", "count", PM_LOWER, "mTHP folios split"),
};
static const struct metric_group monitor_metrics = METRIC_GROUP(
    "monitors: fragmentation, watermarks, the swap devices, the largest processes, mTHP",
    monitor_defs);


static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), k = strlen(tail);
    return n >= k && strcmp(s + n - k, tail) == 0;
}

/* The largest of the maxima of the series named PREFIX...TAIL; false when none is. */
static bool max_of(const struct series_table *t, const char *prefix, const char *tail, double *out)
{
    bool have = false;
    for (size_t i = 0; i < t->n; i++)
        if (strncmp(t->v[i].name, prefix, strlen(prefix)) == 0 && ends_with(t->v[i].name, tail) &&
            (!have || t->v[i].max > *out)) {
            *out = t->v[i].max;
            have = true;
        }
    return have;
}

/* The sum of the changes of the series named PREFIX...TAIL; false when none is. */
static bool sum_of(const struct series_table *t, const char *prefix, const char *tail, double *out)
{
    bool have = false;
    double v;
    *out = 0;
    for (size_t i = 0; i < t->n; i++)
        if (strncmp(t->v[i].name, prefix, strlen(prefix)) == 0 && ends_with(t->v[i].name, tail) &&
            series_delta(t, t->v[i].name, &v)) {
            *out += v;
            have = true;
        }
    return have;
}

/* Fragmentation at its worst. */
static int buddyinfo_derive(const struct series_table *t, long page_size, struct metric_set *out,
                            struct derive_notes *notes)
{
    (void)page_size, (void)notes;
    double v;
    if (series_max(t, "buddyinfo.unusable_o9_permille", &v))
        return metric_put(out, &monitor_defs[FRAG_UNUSABLE_O9_MAX_PCT], v / 10);
    return 0;
}

/* The zones' free pages below their watermarks, at the worst of any zone. */
static int zoneinfo_derive(const struct series_table *t, long page_size, struct metric_set *out,
                           struct derive_notes *notes)
{
    (void)page_size, (void)notes;
    double low, min = -1;
    if (!max_of(t, "zoneinfo.", ".below_low", &low))
        return 0;
    max_of(t, "zoneinfo.", ".below_min", &min);
    return metric_put(out, &monitor_defs[ZONE_BELOW_LOW_MAX_PAGES], low) |
           metric_put(out, &monitor_defs[ZONE_BELOW_MIN_MAX_PAGES], min);
}

/* The swap devices' disks: requests, bytes, and their latency. */
static int diskstats_derive(const struct series_table *t, long page_size, struct metric_set *out,
                            struct derive_notes *notes)
{
    (void)page_size, (void)notes;
    static const char *const cols[] = { ".reads", ".writes", ".read_sectors", ".write_sectors", ".read_ms", ".write_ms" };
    double d[6];
    bool have = false;
    for (int k = 0; k < 6; k++)
        have |= sum_of(t, "diskstats.", cols[k], &d[k]);
    if (!have)
        return 0;
    int rc = metric_put(out, &monitor_defs[SWAPDEV_READS], d[0]);
    rc |= metric_put(out, &monitor_defs[SWAPDEV_WRITES], d[1]);
    rc |= metric_put(out, &monitor_defs[SWAPDEV_READ_KB], d[2] / 2);
    rc |= metric_put(out, &monitor_defs[SWAPDEV_WRITE_KB], d[3] / 2);
    /* The swap devices' I/O latency: time the requests took over their
     * count (iostat's await). A swap file shares its disk with other
     * files: this is the disk's, over the run. */
    if (d[0] + d[1] > 0)
        rc |= metric_put(out, &monitor_defs[SWAPDEV_AWAIT_MS], (d[4] + d[5]) / (d[0] + d[1]));
    return rc;
}

/* The workload's largest process, and the most any of them swapped. */
static int procs_derive(const struct series_table *t, long page_size, struct metric_set *out,
                        struct derive_notes *notes)
{
    (void)page_size, (void)notes;
    double rss, swap = -1;
    if (!max_of(t, "procs.top", ".rss_kb", &rss))
        return 0;
    max_of(t, "procs.top", ".swap_kb", &swap);
    return metric_put(out, &monitor_defs[PROCS_RSS_MAX_KB], rss) | metric_put(out, &monitor_defs[PROCS_SWAP_MAX_KB], swap);
}

/* mTHP's counters, summed over the sizes that are on. */
static int mthp_derive(const struct series_table *t, long page_size, struct metric_set *out, struct derive_notes *notes)
{
    (void)page_size, (void)notes;
    static const struct { const char *tail; int def; } stats[] = {
        { ".anon_fault_alloc", MTHP_ANON_FAULT_ALLOC }, { ".anon_fault_fallback", MTHP_ANON_FAULT_FALLBACK },
        { ".swpout", MTHP_SWPOUT }, { ".swpout_fallback", MTHP_SWPOUT_FALLBACK }, { ".split", MTHP_SPLIT },
    };
    double v[5];
    bool have = false;
    for (int k = 0; k < 5; k++)
        have |= sum_of(t, "mthp.", stats[k].tail, &v[k]);
    int rc = 0;
    for (int k = 0; have && k < 5; k++)
        rc |= metric_put(out, &monitor_defs[stats[k].def], v[k]);
    return rc;
}

static void buddyinfo_init(struct source_set *ss, const struct source_opts *o)
{
    source_add_file(ss, "buddyinfo", o->proc_root, "buddyinfo", "buddyinfo", parse_buddyinfo);
}

static void zoneinfo_init(struct source_set *ss, const struct source_opts *o)
{
    struct collector *c = source_next(ss);
    if (c)
        zones_collector_init(c, o->proc_root);
}

static void diskstats_init(struct source_set *ss, const struct source_opts *o)
{
    struct collector *c = source_next(ss);
    if (c)
        diskstats_collector_init(c, o->proc_root);
}

static void procs_init(struct source_set *ss, const struct source_opts *o)
{
    if (!o->memcg_dir)
        return;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/cgroup.procs", o->memcg_dir);
    struct collector *c = source_next(ss);
    if (c)
        procs_collector_init(c, path);
}

static void mthp_init(struct source_set *ss, const struct source_opts *o)
{
    struct collector *c = source_next(ss);
    if (c)
        mthp_collector_init(c, o->thp_dir ? o->thp_dir : "/sys/kernel/mm/transparent_hugepage");
}

/* The monitors' metrics share one heading, given with the first of them. */
static const struct metric_group *const monitor_groups[] = { &monitor_metrics, NULL };
const struct source_def source_buddyinfo = {
    .init = buddyinfo_init, .derive = buddyinfo_derive, .metrics = monitor_groups,
};
const struct source_def source_zoneinfo = { .init = zoneinfo_init, .derive = zoneinfo_derive };
const struct source_def source_diskstats = { .init = diskstats_init, .derive = diskstats_derive };
const struct source_def source_procs = { .init = procs_init, .derive = procs_derive };
const struct source_def source_mthp = { .init = mthp_init, .derive = mthp_derive };
