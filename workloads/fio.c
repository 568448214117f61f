/* fio's buffered I/O under the memory cap: the workload the MGLRU cover
 * letter reports (fio's buffered random reads of files on a ramdisk, the
 * page cache under memory.max). Unlike the servers (run redis), whose
 * load generator runs outside the cap, fio itself is the workload and runs
 * inside the run's capped cgroup: its page cache is what is under
 * pressure, charged to that cgroup.
 *
 * One run is two fio invocations over one file in a private scratch
 * directory (workloads/scratch.h) in --target's place: the layout phase
 * writes the file (workload.phase 1), the measured phase does the
 * operator's I/O on it (phase 2), starting with whatever of the file the
 * cap left cached (workloads/fio_job.h). The figures are fio's own, read
 * from its --output-format=json by the same parser as record --figures
 * fio, its JSON kept with the run. The directory, the job files and fio's
 * file in it are removed after the run, and after a SIGKILL of pressmark
 * by the next invocation (the journal has the directory before it exists). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>
#include "figures/text.h"
#include "lib/fileio.h"
#include "lib/metrics.h"
#include "lib/quote.h"
#include "lib/units.h"
#include "pressure/ramdisk.h"
#include "pressure/undo_line.h"
#include "store/texts.h"
#include "workloads/capture.h"
#include "workloads/dataset.h"
#include "workloads/fio_job.h"
#include "workloads/record_figures.h"
#include "workloads/scratch.h"
#include "workloads/workload.h"
#include "metric_names.h"     /* generated from the metric tables (tools/metric-names.awk) */

/* What run fio stores beside the fio parser's figures (declared in
 * figures/fio_json.c, the catalogue's "fio: record --figures fio" group). */
enum { F_READ_BYTES, F_WRITE_BYTES, F_DATASET, F_LAYOUT_S };
static const struct metric_def fio_run_defs[] = {
    [F_READ_BYTES] = METRIC("fio.read_io_bytes", "bytes", PM_NEITHER,
                            "bytes the measured phase read, summed over its jobs (fio's read.io_bytes; run fio)"),
    [F_WRITE_BYTES] = METRIC("fio.write_io_bytes", "bytes", PM_NEITHER,
                             "bytes the measured phase wrote, summed over its jobs (fio's write.io_bytes; run fio)"),
    [F_DATASET] = METRIC("fio.dataset_bytes", "bytes", PM_NEITHER,
                         "the file's size (--dataset down to a whole number of --bs blocks)"),
    [F_LAYOUT_S] = METRIC("fio.layout_s", "s", PM_NEITHER,
                          "how long the layout phase took to write the file and sync it"),
};
static const struct metric_group fio_run_metrics = METRIC_GROUP(
    "fio: run fio, fio's buffered I/O on a file under the cap (and the fio parser's figures below)", fio_run_defs);

/* What fio writes on its standard output and error that is kept: its
 * figures go to the JSON file; these are its messages. */
#define MESSAGES_MAX (64u << 10)

struct fio_state {
    struct record_figures fig;   /* the fio parser, as record --figures fio reads */
    char dataset[32];            /* --dataset as given: SIZE or N% of the cap; "": the default */
    char target[PATH_MAX];       /* --target as given; "": $TMPDIR or /var/tmp */
    uint64_t bs, duration_ns;
    uint64_t ramdisk;            /* --ramdisk's bytes; 0: fio's file in the scratch directory */
    unsigned rw, engine, numjobs, iodepth;
    /* resolved by check */
    char fio_path[PATH_MAX];     /* fio, found in PATH's absolute directories only */
    struct wl_place place;       /* the target, checked and resolved, and what named it */
    char fstype[48];             /* the place's file system type (statfs), for the run's metadata */
    char sized[48];              /* how the data set was sized, for describe */
    uint64_t mem_cap;            /* the run's cap, for the ramdisk's memory beside it */
    struct fio_job job;
};

#define FS(field) offsetof(struct fio_state, field)
static const struct opt fio_options[] = {
    { .name = "dataset", .type = OPT_STRING, .offset = FS(dataset), .size = sizeof(((struct fio_state *)0)->dataset),
      .metavar = "SIZE|PCT", .set = wl_dataset_set,
      .help = "the file's size: a size, or a share of --mem-cap (default 150% of the cap, 256M without one)" },
    { .name = "rw", .type = OPT_CHOICE, .offset = FS(rw), .metavar = "MODE", .def = "randread", .words = fio_rw_words,
      .noun = "fio I/O pattern", .help = "fio's rw: the MGLRU cover letter's runs were buffered random reads" },
    { .name = "bs", .type = OPT_SIZE, .offset = FS(bs), .metavar = "SIZE", .def = "4K", .min = 512, .max = 64 << 20,
      .extra = "512 to 64M, a multiple of 512", .help = "bytes per I/O (fio's bs)" },
    { .name = "numjobs", .type = OPT_UINT, .offset = FS(numjobs), .metavar = "N", .def = "1", .min = 1, .max = 256,
      .noun = "job count",
      .help = "fio's jobs, each doing the I/O over the whole file (fio's numjobs; threads of one fio)" },
    { .name = "ioengine", .type = OPT_CHOICE, .offset = FS(engine), .metavar = "ENGINE", .def = "psync",
      .words = fio_engine_words, .noun = "fio I/O engine", .help = "how fio does its I/O (always buffered: direct=0)" },
    { .name = "iodepth", .type = OPT_UINT, .offset = FS(iodepth), .metavar = "N", .def = "1", .min = 1, .max = 4096,
      .noun = "I/O depth", .help = "I/Os in flight per job, for io_uring, libaio and posixaio (fio's iodepth)" },
    { .name = "duration", .type = OPT_DURATION, .offset = FS(duration_ns), .metavar = "D", .def = "0s",
      .max = 1e14, .extra = "0s for one pass",
      .help = "do the I/O for D (fio's time_based runtime) instead of one pass over the file per job" },
    { .name = "target", .type = OPT_STRING, .offset = FS(target), .size = sizeof(((struct fio_state *)0)->target),
      .metavar = "DIR", .help = "where the run's scratch directory and fio's file go (default $TMPDIR, else /var/tmp): "
                                "a tmpfs or a ramdisk's file system to take the disk out; only root or you may "
                                "change it or any directory above it" },
    { .name = "ramdisk", .type = OPT_SIZE, .offset = FS(ramdisk), .metavar = "SIZE", .def = "0", .min = 0,
      .max = PM_RAMDISK_MAX, .extra = "64M to 1T, a multiple of 4K; 0 for none",
      .help = "fio's file on a brd ramdisk of SIZE with ext4, made for each run and removed after it, as the "
              "MGLRU cover letter's (root; brd a module of the kernel, not loaded)" },
    { .type = OPT_END },
};

/* The nearest directory of path that exists now (the swap file's own is
 * made by the run), its device in *dev; -1 when not even / answers. */
static int nearest_dev(const char *path, dev_t *dev)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    struct stat st;
    while (stat(dir, &st) < 0) {
        char *slash = strrchr(dir, '/');
        if (!slash || strcmp(dir, "/") == 0)
            return -1;
        slash[slash == dir] = '\0';     /* "/x" is followed by "/" */
    }
    *dev = st.st_dev;
    return 0;
}

/* Room for the file where it goes, refused before anything runs rather
 * than a full disk part way through the layout. With the spare a swap
 * file keeps (pressure/swap.c: 1% of what is free and 64 MiB), and the
 * run's swap file besides where it goes on the same file system: each
 * alone may fit where both do not. */
static int check_room(const struct fio_state *st, const struct wl_limits *lim, struct pm_err *err)
{
    struct statvfs vfs;
    struct stat pst;
    if (statvfs(st->place.path, &vfs) < 0 || stat(st->place.path, &pst) < 0)
        return pm_errf(err, "%s: '%s': %s", st->place.said, st->place.path, strerror(errno));
    uint64_t room = (uint64_t)vfs.f_bavail * vfs.f_frsize, swap = 0;
    dev_t sdev;
    if (lim->swap_dir && lim->swap_planned && nearest_dev(lim->swap_dir, &sdev) == 0 && sdev == pst.st_dev)
        swap = lim->swap_planned;
    uint64_t spare = room / 100 + (64ull << 20);
    /* (on a ramdisk the file is the ramdisk's; here only the job files) */
    uint64_t file = st->ramdisk ? 0 : st->job.size;
    if (file <= room && swap <= room - file && spare <= room - file - swap)
        return 0;
    char want[32], have[32], sw[64] = "";
    pm_fmt_size(want, sizeof want, file);
    pm_fmt_size(have, sizeof have, room);
    if (swap) {
        char ss[32];
        pm_fmt_size(ss, sizeof ss, swap);
        snprintf(sw, sizeof sw, " and --swap's file of %s", ss);
    }
    return pm_errf(err, "--dataset: %s%s %s not fit in %s: %s free there (accepted: what leaves 1%% and 64 MiB of "
                   "it free, or a --target with room)", want, sw, swap ? "do" : "does", st->place.path, have);
}

/* The place's file system for the run's metadata: a tmpfs target's file
 * is shmem charged to the cap, another experiment than a disk's. */
static void place_fstype(struct fio_state *st)
{
    static const struct {
        unsigned long magic;
        const char *name;
    } known[] = { { EXT4_SUPER_MAGIC, "ext2/3/4" }, { TMPFS_MAGIC, "tmpfs" }, { XFS_SUPER_MAGIC, "xfs" },
                  { BTRFS_SUPER_MAGIC, "btrfs" }, { RAMFS_MAGIC, "ramfs" }, { OVERLAYFS_SUPER_MAGIC, "overlay" },
                  { F2FS_SUPER_MAGIC, "f2fs" }, { NFS_SUPER_MAGIC, "nfs" } };
    struct statfs sf;
    if (statfs(st->place.path, &sf) < 0) {
        snprintf(st->fstype, sizeof st->fstype, "unknown (%s)", strerror(errno));
        return;
    }
    unsigned long t = (unsigned long)sf.f_type;
    const char *name = "another";
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (known[i].magic == t)
            name = known[i].name;
    snprintf(st->fstype, sizeof st->fstype, "%s (0x%lx)", name, t);
}

/* The data set against the cap, as a whole number of blocks. */
static int size_job(struct fio_state *st, const struct wl_limits *lim, struct pm_err *err)
{
    uint64_t dataset;
    if (wl_dataset_resolve(st->dataset, lim->mem_cap, &dataset, err) < 0)
        return -1;
    st->job = (struct fio_job){ .size = fio_job_size(dataset, st->bs), .bs = st->bs, .runtime_ns = st->duration_ns,
                                .rw = st->rw, .engine = st->engine, .numjobs = st->numjobs, .iodepth = st->iodepth };
    char ds[32], bs[32];
    pm_fmt_size(ds, sizeof ds, dataset);
    pm_fmt_size(bs, sizeof bs, st->bs);
    if (!st->job.size)
        return pm_errf(err, "--dataset: %s is less than one --bs block (%s)", ds, bs);
    if (st->dataset[0] && strchr(st->dataset, '%'))
        snprintf(st->sized, sizeof st->sized, " (%s of the cap)", st->dataset);
    else if (st->dataset[0])
        st->sized[0] = '\0';
    else if (lim->mem_cap)
        snprintf(st->sized, sizeof st->sized, " (%d%% of the cap)", WL_DATASET_PCT_DEFAULT);
    else
        snprintf(st->sized, sizeof st->sized, " (the default without a cap)");
    return 0;
}

/* The data file below the place, the longest path a run makes there
 * (on the ramdisk's mount point, with --ramdisk). */
#define DATA_BELOW "/pressmark-fio.XXXXXXXXXXXX/ramdisk/pm-fio.data"
/* (a job file names no longer path than the journal holds its directory in) */
_Static_assert(FIO_PATH_MAX == UNDO_FIELD_MAX, "FIO_PATH_MAX is a journal field's size");

/* The place (scratch.h's checks), a path the journal and fio's job file
 * can carry, and its file system noted. */
static int check_target(struct fio_state *st, struct pm_err *err)
{
    if (wl_scratch_place(st->target, "--target", &st->place, err) < 0)
        return -1;
    /* (the name as the terminal shows it: the checks so far let control
     * characters through) */
    char shown[4 * 128 + 1];
    quote_terminal(st->place.path, shown, sizeof shown);
    if (!fio_job_path_ok(st->place.path))
        return pm_errf(err, "%s: '%s' cannot go into fio's job file (accepted: a path of letters, digits and "
                       ". _ + - /)", st->place.said, shown);
    if (strlen(st->place.path) + strlen(DATA_BELOW) >= FIO_PATH_MAX)
        return pm_errf(err, "%s: '%.64s...' is too long a path for the files below it (accepted: at most %zu bytes)",
                       st->place.said, shown, FIO_PATH_MAX - 1 - strlen(DATA_BELOW));
    place_fstype(st);
    return 0;
}

/* What the machine the run runs on must have for --ramdisk: brd to load
 * (ramdisk_check), and memory for the file on it, which is outside the
 * cap (brd's pages are charged to no cgroup), beside the cap itself. At
 * the check, or at each run where the run is elsewhere (a VM's cell). */
static int ramdisk_machine(const struct fio_state *st, struct pm_err *err)
{
    struct pm_err e;
    char rd[32];
    pm_fmt_size(rd, sizeof rd, st->ramdisk);
    if (ramdisk_check(&e) < 0)
        return pm_errf(err, "--ramdisk %s: %s", rd, e.msg);
    int64_t avail = pm_meminfo_kb("MemAvailable");
    uint64_t need = st->job.size + st->mem_cap + (64ull << 20);
    if (avail < 0 || need <= (uint64_t)avail * 1024)
        return 0;
    char f[32], c[32], a[32];
    pm_fmt_size(f, sizeof f, st->job.size);
    pm_fmt_size(c, sizeof c, st->mem_cap);
    pm_fmt_size(a, sizeof a, (uint64_t)avail * 1024);
    return pm_errf(err, "--ramdisk %s: the file's %s on it, outside the cap, the %s cap and 64M to spare are more "
                   "than MemAvailable's %s (accepted: a smaller --dataset or --mem-cap)", rd, f, c, a);
}

/* --ramdisk's size: one brd can have, whose ext4 holds the file. */
static int check_ramdisk(struct fio_state *st, const struct wl_limits *lim, struct pm_err *err)
{
    if (!st->ramdisk)
        return 0;
    char rd[32], room[32], ds[32], min[32];
    pm_fmt_size(rd, sizeof rd, st->ramdisk);
    if (st->ramdisk < PM_RAMDISK_MIN)
        return pm_errf(err, "--ramdisk: %s is less than 64M (accepted: 64M to 1T, a multiple of 4K; 0 for none)", rd);
    if (st->ramdisk % PM_RAMDISK_UNIT)
        return pm_errf(err, "--ramdisk: %llu bytes is not a multiple of 4K (accepted: 64M to 1T, a multiple of 4K; 0 "
                       "for none)", (unsigned long long)st->ramdisk);
    if (st->job.size > ramdisk_room(st->ramdisk)) {
        pm_fmt_size(room, sizeof room, ramdisk_room(st->ramdisk));
        pm_fmt_size(ds, sizeof ds, st->job.size);
        pm_fmt_size(min, sizeof min, ramdisk_for(st->job.size));
        return pm_errf(err, "--ramdisk: %s holds %s of files at most (ext4's tables and journal take the rest), "
                       "less than --dataset's %s (accepted: %s or more)", rd, room, ds, min);
    }
    st->mem_cap = lim->mem_cap;
    return lim->elsewhere ? 0 : ramdisk_machine(st, err);
}

static int fio_check(void *state, const struct wl_limits *lim, struct pm_err *err)
{
    struct fio_state *st = state;
    /* By its absolute path: an empty or relative PATH entry is the working
     * directory, never where root takes a program from (kvuser.c), and
     * the prelude's exec then searches PATH no more. */
    if (pm_which("fio", true, st->fio_path, sizeof st->fio_path) < 0)
        return pm_errf(err, "fio is not installed (apt-get install fio)");
    if (st->bs % 512)
        return pm_errf(err, "--bs: %llu bytes is not a multiple of 512 (accepted: 512 to 64M, a multiple of 512)",
                       (unsigned long long)st->bs);
    if (st->iodepth > 1 && !fio_engine_async(st->engine))
        return pm_errf(err, "--iodepth %u: %s does one I/O at a time (accepted: --iodepth 1, or --ioengine io_uring, "
                       "libaio or posixaio)", st->iodepth, fio_engine_words[st->engine]);
    /* fio's buffers: a bs for each I/O in flight, in each job. */
    if (wl_check_fits(lim, (uint64_t)st->numjobs * st->iodepth * st->bs, "--numjobs x --iodepth x --bs", err) < 0)
        return -1;
    if (size_job(st, lim, err) < 0 || check_target(st, err) < 0 || check_ramdisk(st, lim, err) < 0)
        return -1;
    st->fig.parser = figures_parser("fio");
    if (!st->fig.parser)
        return pm_errf(err, "internal: no fio figures parser");
    return check_room(st, lim, err);
}

/* One run's parts, handed between its phases. */
struct fio_life {
    struct fio_state *st;
    struct run_ctx *rc;
    struct wl_scratch scratch;
    struct pm_ramdisk rd;        /* --ramdisk's, in the scratch directory */
    char data[PATH_MAX];         /* the file fio lays out and does its I/O on */
};

/* pm-NAME.fio in the scratch directory, for phase, made anew (O_EXCL,
 * never through a link); its text also in the run's metadata as key. */
static int write_job(struct fio_life *l, enum fio_phase phase, const char *name, const char *key,
                     struct pm_err *err)
{
    char text[FIO_JOB_TEXT_MAX], path[PATH_MAX + 32];
    if (fio_job_text(&l->st->job, phase, l->data, text, sizeof text, err) < 0)
        return -1;
    snprintf(path, sizeof path, "%s/pm-%s.fio", l->scratch.dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return pm_errf(err, "%s: %s", path, strerror(errno));
    size_t n = strlen(text);
    ssize_t w = write(fd, text, n);
    int e = w < 0 ? errno : EIO;
    if (close(fd) < 0 && w == (ssize_t)n) {
        w = -1;
        e = errno;
    }
    if (w != (ssize_t)n)
        return pm_errf(err, "%s: %s", path, strerror(e));
    run_meta(l->rc, key, text);
    return 0;
}

/* fio did not end well: the run's status says how, with the line of its
 * messages that reads most like its error. */
static void fio_failed(struct fio_life *l, const char *what, const struct run_exit *ex, const char *said)
{
    char hint[256];
    fig_hint(said, hint, sizeof hint);
    if (!ex->aborted && !ex->timed_out && WIFEXITED(ex->wstatus))
        run_set_status(l->rc, "failed", "%s exited with status %d: %s", what, WEXITSTATUS(ex->wstatus), hint);
    else
        run_status_from_exit(l->rc, what, ex);
}

/* fio on pm-NAME.fio, inside the cap, its JSON to pm-NAME.json and its
 * messages (both streams) into cap. 0 when it ended well, 1 when the run
 * failed (its status says why), -1 on harness errors. */
static int run_fio(struct fio_life *l, const char *name, const char *what, struct run_exit *ex, struct capture *cap,
                   struct pm_err *err)
{
    char job[PATH_MAX + 32], out[PATH_MAX + 48];
    snprintf(job, sizeof job, "%s/pm-%s.fio", l->scratch.dir, name);
    snprintf(out, sizeof out, "--output=%s/pm-%s.json", l->scratch.dir, name);
    char *argv[] = { l->st->fio_path, "--output-format=json", out, job, NULL };
    if (capture_start(cap, MESSAGES_MAX, err) < 0)
        return -1;
    pid_t pid;
    int r = run_spawn_io(l->rc, argv, -1, cap->fd, &pid, err);
    capture_spawned(cap);
    if (r == 0)
        r = run_wait(l->rc, pid, ex, err);
    struct pm_err cerr;
    if (capture_finish(cap, &cerr) < 0 && r == 0)
        r = pm_errf(err, "fio's messages: %s", cerr.msg);
    if (r < 0)
        return -1;
    if (!ex->aborted && !ex->timed_out && WIFEXITED(ex->wstatus) && WEXITSTATUS(ex->wstatus) == 0)
        return 0;
    fio_failed(l, what, ex, cap->data ? cap->data : "");
    return 1;
}

static int layout_phase(struct fio_life *l, struct pm_err *err)
{
    if (write_job(l, FIO_LAYOUT, "layout", "fio.layout_job", err) < 0)
        return -1;
    run_gauge(l->rc, "workload.phase", 1);
    struct run_exit ex;
    struct capture cap;
    int r = run_fio(l, "layout", "fio (the layout phase)", &ex, &cap, err);
    capture_free(&cap);
    if (r == 0)
        run_metric(l->rc, &fio_run_defs[F_LAYOUT_S], (double)ex.elapsed_ns / 1e9);
    return r;
}

/* fio's JSON file, whole (at most what a parser reads; cut says more was
 * there), NUL-terminated; NULL with err when there is none to read. */
static char *read_json(const char *path, size_t *len, bool *cut, struct pm_err *err)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        pm_errf(err, "fio wrote no JSON (%s: %s)", path, fd < 0 ? strerror(errno) : "not a regular file");
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    size_t want = (uint64_t)st.st_size > FIGURES_MAX_TEXT ? FIGURES_MAX_TEXT : (size_t)st.st_size;
    char *buf = malloc(want + 1);
    size_t n = 0;
    ssize_t r = 1;
    while (buf && n < want && (r = pread(fd, buf + n, want - n, (off_t)n)) > 0)
        n += (size_t)r;
    int e = errno;
    close(fd);
    if (!buf || r < 0) {
        free(buf);
        pm_errf(err, "%s: %s", path, buf ? strerror(e) : "out of memory");
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    *cut = (uint64_t)st.st_size > n;
    return buf;
}

/* fio's io_bytes of each direction the mode does, summed over its jobs
 * (fio_io_bytes); a pass's must be exactly the file per job. */
static void io_bytes(struct fio_life *l, const char *text)
{
    const struct fio_job *j = &l->st->job;
    uint64_t b[2];
    char why[256];
    if (fio_io_bytes(text, j, b, why, sizeof why) < 0) {
        run_set_status(l->rc, "failed", "%s", why);
        return;
    }
    if (fio_rw_reads(j->rw))
        run_metric(l->rc, &fio_run_defs[F_READ_BYTES], (double)b[0]);
    if (fio_rw_writes(j->rw))
        run_metric(l->rc, &fio_run_defs[F_WRITE_BYTES], (double)b[1]);
    if (fio_pass_check(j, b, why, sizeof why) < 0)
        run_set_status(l->rc, "failed", "%s", why);
}

/* The figures of the measured phase: fio's JSON kept with the run as its
 * output and read by the fio parser (record_figures_collect: the run's
 * headline and figures, or a failed run naming what was missing), then
 * its io_bytes. -1 only on harness errors. */
static int figures(struct fio_life *l, struct pm_err *err)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/pm-measured.json", l->scratch.dir);
    size_t len;
    bool cut;
    struct pm_err jerr;
    char *json = read_json(path, &len, &cut, &jerr);
    if (!json) {
        run_set_status(l->rc, "failed", "%s", jerr.msg);
        return 0;
    }
    int r = record_figures_collect(&l->st->fig, l->rc, json, len, cut, 0, err);
    if (r == 0 && strcmp(rc_status(l->rc), "ok") == 0)
        io_bytes(l, json);
    free(json);
    return r;
}

static int measured_phase(struct fio_life *l, struct pm_err *err)
{
    if (write_job(l, FIO_MEASURED, "measured", "fio.job", err) < 0)
        return -1;
    run_gauge(l->rc, "workload.phase", 2);
    struct run_exit ex;
    struct capture cap;
    int r = run_fio(l, "measured", "fio", &ex, &cap, err);
    /* GNU time's figures are the measured phase's fio, its jobs included. */
    if (r >= 0)
        run_rusage_metrics(l->rc, &ex);
    if (r == 0)
        r = figures(l, err);
    /* What fio said besides its JSON (a warning), kept beside it. */
    if (r >= 0 && cap.len && run_keep_text(l->rc, "fio's messages", cap.data, cap.len, cap.total > cap.len) < 0)
        r = pm_errf(err, "out of memory keeping fio's messages");
    capture_free(&cap);
    return r < 0 ? -1 : 0;
}

/* Where fio's file goes: the scratch directory, or a ramdisk made in it
 * now (its file system in the run's metadata either way). 0, or 1 when
 * the run failed (its status says why). */
static int place_file(struct fio_life *l)
{
    const struct fio_state *st = l->st;
    if (!st->ramdisk) {
        run_meta(l->rc, "fio.target_fs", st->fstype);
        snprintf(l->data, sizeof l->data, "%s/pm-fio.data", l->scratch.dir);
        return 0;
    }
    struct pm_err e;
    if (ramdisk_machine(st, &e) < 0) {
        run_set_status(l->rc, "failed", "%s", e.msg);
        return 1;
    }
    if (ramdisk_make(&l->rd, l->scratch.dir, st->ramdisk, &e) < 0) {
        run_set_status(l->rc, "failed", "--ramdisk: %s", e.msg);
        return 1;
    }
    run_meta(l->rc, "fio.target_fs", l->rd.fs);
    snprintf(l->data, sizeof l->data, "%s/pm-fio.data", l->rd.mnt);
    struct statvfs vfs;
    if (statvfs(l->rd.mnt, &vfs) == 0 && (uint64_t)vfs.f_bavail * vfs.f_frsize >= st->job.size)
        return 0;
    run_set_status(l->rc, "failed", "--ramdisk: its ext4 has no room for the %llu-byte file",
                   (unsigned long long)st->job.size);
    return 1;
}

static int fio_run(void *state, struct run_ctx *rc, struct pm_err *err)
{
    struct fio_state *st = state;
    struct fio_life l = { .st = st, .rc = rc, .rd = { .undo_module = -1, .undo_mount = -1 } };
    run_gauge(rc, "workload.phase", 0);
    run_metric(rc, &fio_run_defs[F_DATASET], (double)st->job.size);
    run_meta(rc, "fio.path", st->fio_path);
    int r = wl_scratch_make(&l.scratch, st->place.path, "fio", err);
    if (r == 0)
        r = place_file(&l);
    if (r == 0)
        r = layout_phase(&l, err);
    /* A Ctrl-C during the layout ends the run there. */
    if (r == 0 && !run_check_abort(rc))
        r = measured_phase(&l, err);
    run_gauge(rc, "workload.phase", 0);
    ramdisk_remove(&l.rd);
    wl_scratch_remove(&l.scratch);
    if (r >= 0 && run_check_abort(rc) && strcmp(rc_status(rc), "aborted") != 0)
        run_set_status(rc, "aborted", "interrupted");
    return r < 0 ? -1 : 0;
}

static void fio_describe(void *state, char *buf, size_t len)
{
    struct fio_state *st = state;
    char ds[32], bs[32], dur[48] = "", tgt[PATH_MAX + 16] = "", rd[48] = "";
    pm_fmt_size(ds, sizeof ds, st->job.size);
    pm_fmt_size(bs, sizeof bs, st->bs);
    if (st->duration_ns)
        snprintf(dur, sizeof dur, " --duration %.3gs", (double)st->duration_ns / 1e9);
    if (st->target[0])
        snprintf(tgt, sizeof tgt, " --target %s", st->place.path);
    if (st->ramdisk) {
        char s[32];
        pm_fmt_size(s, sizeof s, st->ramdisk);
        snprintf(rd, sizeof rd, " --ramdisk %s", s);
    }
    snprintf(buf, len, "--dataset %s%s --rw %s --bs %s --numjobs %u --ioengine %s --iodepth %u%s%s%s", ds,
             st->sized, fio_rw_words[st->rw], bs, st->numjobs, fio_engine_words[st->engine], st->iodepth, dur, tgt,
             rd);
}

/* The headline fio's JSON will have: its read IOPS for a mode that reads,
 * else its write IOPS (the fio parser's rule). */
static const char *fio_headline(void *state)
{
    struct fio_state *st = state;
    return fio_rw_reads(st->rw) ? MN_fio_read_iops : MN_fio_write_iops;
}

const struct workload_ops workload_fio = {
    .metrics = &fio_run_metrics,
    .name = "fio",
    .summary = "fio's buffered I/O on a file sized against the cap, fio inside the cap: its read (or write) IOPS, "
               "bandwidth and completion latency as fio's JSON gives them",
    .headline = MN_fio_read_iops,
    .headline_title = "IOPS",
    .options = fio_options,
    .state_size = sizeof(struct fio_state),
    .check = fio_check,
    .run = fio_run,
    .describe = fio_describe,
    .headline_of = fio_headline,
    .journals = true,
    .guest_packages = "fio",
};
