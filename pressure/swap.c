#include "pressure/swap.h"
#include <sys/statvfs.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include "lib/spawn.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>
#include "lib/fileio.h"
#include "pressure/undo.h"
#include "lib/units.h"


int swap_parse(const char *text, struct swap_config *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->dir, sizeof out->dir, "%s", PM_SWAP_DIR);
    if (strcmp(text, "none") == 0)
        return 0;                           /* kind SWAP_NONE: a suite's axis may say "no swap" */
    /* Sizes may be a share of MemTotal, so one suite file fits machines of any size. */
    int64_t total_kb = pm_meminfo_kb("MemTotal");
    uint64_t total = total_kb > 0 ? (uint64_t)total_kb * 1024 : 0;
    if (strncmp(text, "zram:", 5) == 0) {
        char buf[128];
        snprintf(buf, sizeof buf, "%s", text + 5);
        char *colon = strchr(buf, ':');
        if (colon) {
            *colon = '\0';
            if (!colon[1] || strlen(colon + 1) >= sizeof out->algo || strspn(colon + 1, "abcdefghijklmnopqrstuvwxyz0123456789-") != strlen(colon + 1))
                return -1;
            snprintf(out->algo, sizeof out->algo, "%s", colon + 1);
        }
        out->kind = SWAP_ZRAM;
        return pm_parse_size(buf, total, &out->size) < 0 || out->size < 1048576 ? -1 : 0;
    }
    if (strncmp(text, "file:", 5) == 0)
        text += 5;
    out->kind = SWAP_FILE;
    /* mkswap needs at least ten pages; smaller is surely a typo. */
    return pm_parse_size(text, total, &out->size) < 0 || out->size < 1048576 ? -1 : 0;
}

/* Above every active device, so the kernel swaps to ours first. */
static int next_priority(void)
{
    char buf[8192];
    int maxp = -1;
    if (pm_read_file("/proc/swaps", buf, sizeof buf) == 0) {
        char *line = strchr(buf, '\n');
        while (line && *++line) {
            char name[512], type[64];
            long long size, used;
            int prio;
            if (sscanf(line, "%511s %63s %lld %lld %d", name, type, &size, &used, &prio) == 5 && prio > maxp)
                maxp = prio;
            line = strchr(line, '\n');
        }
    }
    return maxp + 1 > 32767 ? 32767 : maxp + 1;
}

static int run_mkswap(const char *path, struct pm_err *err)
{
    char *argv[] = { "mkswap", "-q", (char *)path, NULL };
    struct pm_spawn sp = { .argv = argv, .out = PM_FD_NULL, .missing_hint = "(install util-linux)" };
    return pm_spawn_run(&sp, err);
}

static int do_swapon(const char *path, struct kv_list *meta, const char *what, struct pm_err *err)
{
    int prio = next_priority();
    if (swapon(path, SWAP_FLAG_PREFER | ((prio << SWAP_FLAG_PRIO_SHIFT) & SWAP_FLAG_PRIO_MASK)) < 0)
        return pm_errf(err, "swapon %s: %s", path, strerror(errno));
    pm_kv_setf(meta, "swap.added", "%s %s priority %d", what, path, prio);
    return 0;
}

/* The directory must be root's and private, and no component a symlink
 * we would follow: a swap file is raw memory on disk. */
static int safe_dir(const char *dir, struct pm_err *err)
{
    char parent[256];
    snprintf(parent, sizeof parent, "%s", dir);
    char *slash = strrchr(parent, '/');
    /* Directories made here are journalled too: the machine keeps no trace. */
    if (slash && slash != parent) {
        *slash = '\0';
        if (mkdir(parent, 0755) == 0) {
            if (undo_push(UNDO_RMDIR, parent, NULL, err) < 0)
                return -1;
        } else if (errno != EEXIST) {
            return pm_errf(err, "%s: %s", parent, strerror(errno));
        }
    }
    if (mkdir(dir, 0700) == 0) {
        if (undo_push(UNDO_RMDIR, dir, NULL, err) < 0)
            return -1;
    } else if (errno != EEXIST) {
        return pm_errf(err, "%s: %s", dir, strerror(errno));
    }
    struct stat st;
    if (lstat(dir, &st) < 0)
        return pm_errf(err, "%s: %s", dir, strerror(errno));
    if (!S_ISDIR(st.st_mode) || st.st_uid != 0 || (st.st_mode & 077))
        return pm_errf(err, "%s: must be a directory owned by root with mode 0700 (is %o, uid %u)", dir,
                       (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid);
    struct statfs fs;
    if (statfs(dir, &fs) == 0 && (fs.f_type == 0x01021994 /* tmpfs */ || fs.f_type == 0x794c7630 /* overlayfs */))
        return pm_errf(err, "%s: swap files cannot live on tmpfs or overlayfs", dir);
    return 0;
}

static int add_swapfile(const struct swap_config *cfg, int64_t run_id, struct kv_list *meta, struct pm_err *err)
{
    if (safe_dir(cfg->dir, err) < 0)
        return -1;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/run-%lld.swap", cfg->dir, (long long)run_id);
    int dfd = open(cfg->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0)
        return pm_errf(err, "%s: %s", cfg->dir, strerror(errno));
    if (undo_push(UNDO_SWAPFILE, path, NULL, err) < 0) {
        close(dfd);
        return -1;
    }
    const char *base = strrchr(path, '/') + 1;
    int fd = openat(dfd, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    close(dfd);
    if (fd < 0)
        return pm_errf(err, "creating %s: %s", path, strerror(errno));
    /* Swap needs every block allocated; fallocate does that on ext4 and
     * xfs, otherwise write zeros. */
    int rc = posix_fallocate(fd, 0, (off_t)cfg->size);
    if (rc == EOPNOTSUPP || rc == EINVAL) {
        static char zeros[1 << 20];
        for (uint64_t off = 0; off < cfg->size && rc; ) {
            size_t n = cfg->size - off < sizeof zeros ? (size_t)(cfg->size - off) : sizeof zeros;
            ssize_t w = write(fd, zeros, n);
            if (w < 0) {
                rc = errno;
                break;
            }
            off += (uint64_t)w;
            if (off >= cfg->size)
                rc = 0;
        }
    }
    if (rc == 0 && fsync(fd) < 0)
        rc = errno;
    close(fd);
    if (rc)
        return pm_errf(err, "allocating %s: %s", path, strerror(rc));
    if (run_mkswap(path, err) < 0)
        return -1;
    return do_swapon(path, meta, "file", err);
}

enum zram_state swap_zram_state(void)
{
    if (pm_path_exists("/sys/class/zram-control/hot_add"))
        return ZRAM_LOADED;
    char *argv[] = { "modprobe", "--dry-run", "--quiet", "zram", NULL };
    struct pm_spawn sp = { .argv = argv, .in = PM_FD_NULL, .out = PM_FD_NULL, .err = PM_FD_NULL };
    struct pm_err e;
    return pm_spawn_run(&sp, &e) == 0 ? ZRAM_MODULE : ZRAM_NONE;
}

/* Debian's kernels build zram as a module that nothing loads on a stock
 * host: loaded for the run, with no device of its own (num_devices=0: the
 * run's comes from hot_add), and journalled first, so that it is unloaded
 * after (with zsmalloc, when nothing else uses it) and the machine has no
 * zram again, whatever ends the run. */
static int load_zram(struct pm_err *err)
{
    if (pm_path_exists("/sys/class/zram-control/hot_add"))
        return 0;
    int id = undo_push(UNDO_MODULE, "zram", NULL, err);
    if (id < 0)
        return -1;
    char *argv[] = { "modprobe", "zram", "num_devices=0", NULL };
    struct pm_spawn sp = { .argv = argv, .in = PM_FD_NULL, .out = PM_FD_NULL, .err = PM_FD_NULL,
                           .missing_hint = "(Debian's kmod)" };
    struct pm_err e;
    if (pm_spawn_run(&sp, &e) < 0 || !pm_path_exists("/sys/class/zram-control/hot_add")) {
        undo_done(id);
        return pm_errf(err, "zram: no /sys/class/zram-control here, and loading the module failed (%s; a kernel "
                       "without CONFIG_ZRAM?)", e.msg[0] ? e.msg : "modprobe zram left none");
    }
    return 0;
}

static int add_zram(const struct swap_config *cfg, struct kv_list *meta, struct pm_err *err)
{
    char id[32];
    if (load_zram(err) < 0)
        return -1;
    if (pm_read_file("/sys/class/zram-control/hot_add", id, sizeof id) < 0)
        return pm_errf(err, "zram: /sys/class/zram-control/hot_add: %s", strerror(errno));
    if (undo_push(UNDO_ZRAM, id, NULL, err) < 0)
        return -1;
    char path[128], dev[64], size[32];
    if (cfg->algo[0]) {
        snprintf(path, sizeof path, "/sys/block/zram%s/comp_algorithm", id);
        if (pm_write_file(path, cfg->algo, err) < 0)
            return pm_errf(err, "zram compressor '%s' is not available (see /sys/block/zram%s/comp_algorithm)", cfg->algo, id);
    }
    snprintf(path, sizeof path, "/sys/block/zram%s/disksize", id);
    snprintf(size, sizeof size, "%llu", (unsigned long long)cfg->size);
    if (pm_write_file(path, size, err) < 0)
        return -1;
    snprintf(dev, sizeof dev, "/dev/zram%s", id);
    if (run_mkswap(dev, err) < 0)
        return -1;
    char algo[64] = "";
    snprintf(path, sizeof path, "/sys/block/zram%s/comp_algorithm", id);
    pm_read_choice(path, algo, sizeof algo);
    pm_kv_setf(meta, "swap.zram", "zram%s %llu bytes, %s", id, (unsigned long long)cfg->size, algo);
    return do_swapon(dev, meta, "zram", err);
}

int swap_add(const struct swap_config *cfg, int64_t run_id, struct kv_list *meta, struct pm_err *err)
{
    switch (cfg->kind) {
    case SWAP_FILE:
        return add_swapfile(cfg, run_id, meta, err);
    case SWAP_ZRAM:
        return add_zram(cfg, meta, err);
    default:
        return 0;
    }
}

/* zram's compressors: what a zram device of this kernel lists (any one
 * will do), or without one the names zram has offered (lzo to deflate). */
static int check_algo(const struct swap_config *cfg, struct pm_err *err)
{
    char list[512] = "lzo lzo-rle lz4 lz4hc zstd 842 deflate";
    DIR *d = opendir("/sys/block");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char path[300], buf[512];
        if (strncmp(e->d_name, "zram", 4) != 0)
            continue;
        snprintf(path, sizeof path, "/sys/block/%s/comp_algorithm", e->d_name);
        if (pm_read_file(path, buf, sizeof buf) == 0) {
            size_t o = 0;
            for (const char *p = buf; *p && o + 1 < sizeof list; p++)
                if (*p != '[' && *p != ']' && *p != '\n')
                    list[o++] = *p;
            list[o] = '\0';
            break;
        }
    }
    if (d)
        closedir(d);
    for (char *w = list, *next; *w; w = next) {
        size_t n = strcspn(w, " ");
        next = w[n] ? w + n + 1 : w + n;
        if (strlen(cfg->algo) == n && strncmp(w, cfg->algo, n) == 0)
            return 0;
    }
    return pm_errf(err, "'%s' is not a zram compressor of this kernel (accepted: %s)", cfg->algo, list);
}

int swap_check_fits(const struct swap_config *cfg, struct pm_err *err)
{
    if (cfg->kind == SWAP_ZRAM && cfg->algo[0])
        return check_algo(cfg, err);
    if (cfg->kind != SWAP_FILE || cfg->size == 0)
        return 0;
    /* The nearest directory of the swap file's path that exists now. */
    char dir[sizeof cfg->dir];
    snprintf(dir, sizeof dir, "%s", cfg->dir);
    struct statvfs vfs;
    while (statvfs(dir, &vfs) < 0) {
        char *slash = strrchr(dir, '/');
        if (!slash || slash == dir) {
            snprintf(dir, sizeof dir, "/");
            if (statvfs(dir, &vfs) < 0)
                return pm_errf(err, "statvfs %s: %s", dir, strerror(errno));
            break;
        }
        *slash = '\0';
    }
    uint64_t avail = (uint64_t)vfs.f_bavail * (uint64_t)vfs.f_frsize;
    uint64_t spare = avail / 100 + (64ull << 20);
    if (cfg->size + spare > avail || cfg->size > avail) {
        char want[32], have[32];
        pm_fmt_size(want, sizeof want, cfg->size);
        pm_fmt_size(have, sizeof have, avail);
        return pm_errf(err, "a swap file of %s does not fit in %s: %s free there (accepted: a size that leaves "
                       "1%% and 64 MiB of it free)", want, dir, have);
    }
    return 0;
}
