/* pressmark __lava-guest: what a LAVA job's test definition runs in the
 * booted guest, in the unpacked job archive (kernels/vm.h): the kernel
 * group's cells (suite run with the arguments the host wrote), each cell
 * as LAVA test cases with measurements (lava-test-case, so LAVA's results
 * pages and charts show them), then the run database and logs as a tar
 * archive put to the artifact store the host fetches it from. The guest
 * is where the numbers are made, not trusted by the host: the host checks
 * what comes back as it checks a VM's. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "experiment/backend_lava_guest.h"
#include "harness/catalogue.h"
#include "labs/artifacts.h"
#include "labs/guest_token.h"
#include "lib/fileio.h"
#include "lib/spawn.h"
#include "store/db.h"
#include "store/runinfo.h"
#include "store/suites.h"

#define OUT "/var/lib/pressmark-out"

/* Figures besides the headline each cell reports, when its runs have them. */
static const char *const key_metrics[] = { "swap.in_kb", "swap.out_kb", "vmstat.pgmajfault", "vmstat.pgscan_total",
                                           "memcg.pgscan", "stat.cpu.system_pct", NULL };

/* Emulated or not, as the guest sees its CPU: QEMU's TCG names itself. */
static void add_accel_meta(void)
{
    char cpu[65536];
    bool tcg = pm_read_file("/proc/cpuinfo", cpu, sizeof cpu) == 0 && strstr(cpu, "QEMU Virtual CPU") != NULL;
    FILE *f = fopen("job-meta", "ae");
    if (!f)
        return;
    fprintf(f, "vm.accel=%s\nemulated=%s\n", tcg ? "tcg" : "lava", tcg ? "yes" : "no");
    fclose(f);
}

/* The host's arguments, split on blanks: its own words and numbers only. */
static int read_args(char **argv, size_t max, char *buf, size_t len)
{
    if (pm_read_file("args", buf, len) < 0)
        return -1;
    size_t n = 0;
    for (char *save, *w = strtok_r(buf, " \n", &save); w && n + 1 < max; w = strtok_r(NULL, " \n", &save)) {
        if (strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != strlen(w))
            return -1;
        argv[n++] = w;
    }
    argv[n] = NULL;
    return (int)n;
}

/* suite run of the group's cells, its output to the console and guest.log. */
static int run_cells(void)
{
    char buf[1024], *args[32] = { "./pressmark", "suite", "run" };
    int n = read_args(args + 3, 28, buf, sizeof buf);
    if (n <= 0) {
        fprintf(stderr, "pressmark __lava-guest: the job archive's args are missing or not pressmark's words\n");
        return 2;
    }
    int fd = open(OUT "/guest.log", O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    int p[2];
    if (fd < 0 || pipe2(p, O_CLOEXEC) < 0)
        return 2;
    setenv("PRESSMARK_DB", OUT "/results.db", 1);
    struct pm_spawn sp = { .argv = args, .in = PM_FD_NULL, .out = p[1], .err = p[1] };
    pid_t pid;
    struct pm_err err;
    int rc = pm_spawn(&sp, &pid, &err);
    close(p[1]);
    char chunk[4096];
    ssize_t got;
    while (rc == 0 && (got = read(p[0], chunk, sizeof chunk)) > 0) {
        if (write(STDOUT_FILENO, chunk, (size_t)got) < 0 || write(fd, chunk, (size_t)got) < 0)
            continue;
    }
    close(p[0]);
    close(fd);
    int status = 0;
    if (rc < 0 || pm_wait(pid, &status, &err) < 0) {
        fprintf(stderr, "pressmark __lava-guest: %s\n", rc < 0 ? err.msg : "waiting for suite run");
        return 2;
    }
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    FILE *f = fopen(OUT "/status", "we");
    if (f) {
        fprintf(f, "%d\n", code);
        fclose(f);
    }
    return code;
}

/* A LAVA test case, through LAVA's own helper on the test shell's PATH. */
static void test_case(const char *name, bool pass, const double *value, const char *unit)
{
    char v[64];
    char *argv[10] = { "lava-test-case", (char *)name, "--result", pass ? "pass" : "fail" };
    int n = 4;
    if (value) {
        snprintf(v, sizeof v, "%.6g", *value);
        argv[n++] = "--measurement";
        argv[n++] = v;
        if (unit && *unit) {
            argv[n++] = "--units";
            argv[n++] = (char *)unit;
        }
    }
    argv[n] = NULL;
    struct pm_spawn sp = { .argv = argv, .in = PM_FD_NULL };
    struct pm_err err;
    if (pm_spawn_run(&sp, &err) < 0)
        fprintf(stderr, "pressmark __lava-guest: %s\n", err.msg);
}

/* A cell's name as LAVA takes a test case's: [A-Za-z0-9._-], bounded. */
static void case_name(int idx, const char *label, const char *metric, char *buf, size_t len)
{
    int n = snprintf(buf, len, "c%d-", idx);
    for (const char *s = label; *s && (size_t)n + 1 < len && n < 64; s++)
        buf[n++] = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", *s) ? *s : '_';
    buf[n] = '\0';
    if (metric)
        snprintf(buf + n, len - (size_t)n, ".%s", metric);
}

struct mean {
    const char *name;
    double sum;
    int n;
};

static int add_metric(void *ctx, const char *name, double value, const char *unit, const char *direction,
                      struct pm_err *err)
{
    (void)unit, (void)direction, (void)err;
    struct mean *m = ctx;
    for (; m->name; m++)
        if (strcmp(m->name, name) == 0 && isfinite(value)) {
            m->sum += value;
            m->n++;
        }
    return 0;
}

/* One cell: its headline's and key metrics' means over its ok runs. */
static void report_cell(struct pm_db *db, const struct suite_cell_rec *c, const struct suite_slot *slots, size_t n)
{
    struct mean m[sizeof key_metrics / sizeof key_metrics[0] + 1] = { { .name = c->headline } };
    for (size_t i = 0; key_metrics[i]; i++)
        m[i + 1].name = key_metrics[i];
    int ok = 0, bad = 0;
    struct pm_err err;
    for (size_t i = 0; i < n; i++) {
        if (slots[i].cell != c->idx || !slots[i].run_id)
            continue;
        if (strcmp(slots[i].status, "ok") != 0) {
            bad++;
            continue;
        }
        ok++;
        store_run_metrics_each(db, slots[i].run_id, add_metric, m, &err);
    }
    if (!ok && !bad)
        return;
    char name[160];
    for (size_t i = 0; i < sizeof m / sizeof m[0] && m[i].name; i++) {
        if (i > 0 && !m[i].n)
            continue;
        const char *unit = NULL;
        enum metric_dir dir;
        catalogue_find(m[i].name, &unit, &dir);
        double mean = m[i].n ? m[i].sum / m[i].n : 0;
        case_name(c->idx, c->label, i ? m[i].name : NULL, name, sizeof name);
        test_case(name, bad == 0 && (i > 0 || m[i].n > 0), m[i].n ? &mean : NULL, unit);
    }
}

static void report_cells(void)
{
    struct pm_db db;
    struct pm_err err;
    if (store_db_open(&db, OUT "/results.db", false, &err) < 0)
        return;
    int64_t id = 0;
    struct suite_cell_rec *cells = NULL;
    struct suite_slot *slots = NULL;
    size_t nc = 0, ns = 0;
    if (suites_latest_id(&db, &id, &err) == 0 && id > 0 && suites_cells(&db, id, &cells, &nc, &err) == 0 &&
        suites_slots(&db, id, &slots, &ns, &err) == 0)
        for (size_t c = 0; c < nc; c++)
            report_cell(&db, &cells[c], slots, ns);
    free(cells);
    free(slots);
    store_db_close(&db);
}

/* The store's token from the job's token disk, when the lab gave one (1).
 * Read after the tar archive is made: it is never among its files. */
static int store_token(char *token, size_t len)
{
    struct pm_err err;
    int rc = lava_guest_token_find("/sys/block", "/dev", token, len, &err);
    if (rc < 0)
        fprintf(stderr, "pressmark __lava-guest: the store's token disk: %s; the results go without a token\n",
                err.msg);
    return rc > 0;
}

/* The output directory as a tar archive, put where the host fetches it;
 * a store that fails once gets two more tries. */
static int upload(void)
{
    char url[1200];
    if (pm_read_file("results-url", url, sizeof url) < 0)
        return -1;
    url[strcspn(url, "\n")] = '\0';
    if (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0)
        return -1;
    char *argv[] = { "tar", "-cf", "/var/lib/pressmark-results.tar", "-C", OUT, ".", NULL };
    struct pm_spawn sp = { .argv = argv, .in = PM_FD_NULL };
    struct pm_err err;
    if (pm_spawn_run(&sp, &err) < 0) {
        fprintf(stderr, "pressmark __lava-guest: %s\n", err.msg);
        return -1;
    }
    char token[520];
    int has = store_token(token, sizeof token);
    int rc = -1;
    for (int attempt = 0; attempt < 3 && rc < 0; attempt++) {
        if (artifact_put_bearer(url, "/var/lib/pressmark-results.tar", has ? token : NULL, &err) == 0) {
            rc = 0;
            break;
        }
        /* A store takes a name once: an earlier try whose answer was lost
         * may have put it already. */
        int exists = 0;
        if (attempt > 0 && artifact_exists(url, &exists, &err) == 0 && exists) {
            rc = 0;
            break;
        }
        fprintf(stderr, "pressmark __lava-guest: %s\n", err.msg);
        sleep(5);
    }
    explicit_bzero(token, sizeof token);
    return rc;
}

int exp_lava_guest_main(int argc, char **argv)
{
    (void)argv;
    if (argc != 1) {
        fprintf(stderr, "pressmark __lava-guest: takes no arguments (a LAVA job's test definition runs it in the "
                "job archive's directory)\n");
        return 2;
    }
    /* Only where a LAVA job booted pressmark's guest: it runs ./pressmark
     * of the directory it is started in, which on a host is anybody's. */
    char cmdline[4096];
    if (pm_read_file("/proc/cmdline", cmdline, sizeof cmdline) < 0 ||
        !strstr(cmdline, "init=/usr/lib/pressmark/lava-init")) {
        fprintf(stderr, "pressmark __lava-guest: not in a guest booted with init=/usr/lib/pressmark/lava-init (a LAVA "
                "job's); refused\n");
        return 2;
    }
    if (pm_mkdirs(OUT) < 0 || chmod(OUT, 0700) < 0) {
        fprintf(stderr, "pressmark __lava-guest: %s: %s\n", OUT, strerror(errno));
        return 2;
    }
    add_accel_meta();
    int rc = run_cells();
    char *dm[] = { "dmesg", NULL };
    int fd = open(OUT "/dmesg.txt", O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    struct pm_spawn sp = { .argv = dm, .in = PM_FD_NULL, .out = fd >= 0 ? fd : PM_FD_NULL, .err = PM_FD_NULL };
    struct pm_err err;
    if (pm_spawn_run(&sp, &err) < 0)
        fprintf(stderr, "pressmark __lava-guest: %s\n", err.msg);
    if (fd >= 0)
        close(fd);
    report_cells();
    int up = upload();
    test_case("pressmark-results-upload", up == 0, NULL, NULL);
    return up < 0 ? 2 : rc;
}
