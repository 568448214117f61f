/* The HTML report's Runs section, when the runs cannot be listed (a read
 * that fails: a corrupt page, an I/O error; here the listing's statement
 * interrupted): the report fails saying why, and leaves no page, neither
 * one without the section nor one with its table cut short. */
#include "tests/tap.h"
#include <stdbool.h>
#include <sys/stat.h>
#include "lib/machine.h"
#include "reports/html_report.h"
#include "store/machines.h"
#include "store/runs.h"

/* The listing of the runs (store/runinfo.c's store_run_list_each): what the
 * progress handler interrupts, and nothing else. */
static const char listing[] = "SELECT id FROM run WHERE (?1 IS NULL OR label = ?1)";
static int interrupted;

static int interrupt_listing(void *arg)
{
    sqlite3 *h = arg;
    for (sqlite3_stmt *st = sqlite3_next_stmt(h, NULL); st; st = sqlite3_next_stmt(h, st))
        if (sqlite3_stmt_busy(st) && strstr(sqlite3_sql(st), listing)) {
            interrupted++;
            return 1;
        }
    return 0;
}

static void add_run(struct pm_db *db, int64_t mid, const char *label, double v)
{
    struct pm_err err;
    struct metric_set ms = { 0 };
    struct run_row row = { .label = label, .workload = "record", .params = "", .interval_ns = 1000000000 };
    struct run_record rec = { .status = "ok", .metrics = &ms };
    if (metric_set_put(&ms, "record.wall_s", v, "s", PM_LOWER) < 0 ||
        store_run_begin(db, mid, &row, &err) < 0 || store_run_end(db, row.id, &rec, &err) < 0) {
        printf("Bail out! %s\n", err.msg);
        exit(1);
    }
    metric_set_free(&ms);
}

/* The report, without charts (gnuplot out of PATH: not what is tested). */
static int report(struct pm_db *db, const char *out, char *page, size_t len, struct pm_err *err)
{
    char *path = strdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
    setenv("PATH", "/nonexistent", 1);
    int rc = html_report_write(db, NULL, false, out, "results.db", page, len, err);
    setenv("PATH", path ? path : "/usr/bin:/bin", 1);
    free(path);
    return rc;
}

/* How many times needle is in the file at path. */
static int count_in(const char *path, const char *needle)
{
    FILE *f = fopen(path, "r");
    char line[8192];
    int n = 0;
    while (f && fgets(line, sizeof line, f))
        for (const char *p = line; (p = strstr(p, needle)); p++)
            n++;
    if (f)
        fclose(f);
    return n;
}

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

int main(void)
{
    char dir[] = "/tmp/pressmark-unit.XXXXXX";
    if (!mkdtemp(dir)) {
        printf("Bail out! mkdtemp\n");
        return 1;
    }
    char path[128], out[128], page[4200], tmp[4300], cmd[160];
    snprintf(path, sizeof path, "%s/results.db", dir);
    struct pm_db db;
    struct pm_err err;
    struct machine_info mi;
    int64_t mid = 0;
    if (!ok(store_db_open(&db, path, true, &err) == 0 && pm_machine_read(&mi, &err) == 0 &&
            (mid = store_machine(&db, &mi, &err)) > 0, "a database")) {
        printf("Bail out! %s\n", err.msg);
        return 1;
    }
    for (int i = 0; i < 3; i++) {
        add_run(&db, mid, "base", 10 + i);
        add_run(&db, mid, "new", 12 + i);
    }

    snprintf(out, sizeof out, "%s/page", dir);
    int rc = report(&db, out, page, sizeof page, &err);
    ok(rc >= 0 && exists(page), "the report is written (%d%s%s)", rc, rc < 0 ? ": " : "", rc < 0 ? err.msg : "");
    is_num(count_in(page, "<tr id=\"run-"), 6, 0, "  its Runs section a row for each of the 6 runs");

    snprintf(out, sizeof out, "%s/cut", dir);
    sqlite3_progress_handler(db.h, 1, interrupt_listing, db.h);
    err.msg[0] = 0;
    rc = report(&db, out, page, sizeof page, &err);
    sqlite3_progress_handler(db.h, 0, NULL, NULL);
    ok(interrupted > 0, "the runs' listing was interrupted");
    ok(rc < 0, "a listing that fails fails the report (%d)", rc);
    ok(strstr(err.msg, "interrupted") != NULL, "  saying why: %s", err.msg);
    snprintf(tmp, sizeof tmp, "%s.new", page);
    ok(!exists(page) && !exists(tmp), "  and leaves no page");

    store_db_close(&db);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        printf("# %s left\n", dir);
    return done_testing();
}
