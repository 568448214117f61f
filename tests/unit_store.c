/* What store/ promises its callers of a read and a write, held against
 * another connection writing meanwhile and a write that fails half-way:
 * store_run_list_each hands over the runs as one read saw them, the list and
 * every run read in it (a run removed or added since is not seen), and
 * bisects_create keeps all or nothing, no id of a row rolled back. */
#include "tests/tap.h"
#include <stdbool.h>
#include "lib/machine.h"
#include "store/bisects.h"
#include "store/machines.h"
#include "store/runinfo.h"
#include "store/runs.h"

static int64_t mid;

/* A finished run of label; its id. */
static int64_t add_run(struct pm_db *db, const char *label)
{
    struct pm_err err;
    struct run_row row = { .label = label, .workload = "record", .params = "", .interval_ns = 1000000000 };
    struct run_record rec = { .status = "ok" };
    if (store_run_begin(db, mid, &row, &err) < 0 || store_run_end(db, row.id, &rec, &err) < 0) {
        printf("Bail out! %s\n", err.msg);
        exit(1);
    }
    return row.id;
}

/* What the list's callback saw, and what it does to the database through
 * another connection at its first run. */
struct seen {
    struct pm_db *db, *other;
    int64_t drop;               /* removed by the other connection at the first run */
    int64_t ids[8];
    size_t n, loaded;
    char labels[8][32];
    int stop_at, fail_at;       /* 1 or -1 from the callback at this many runs */
};

static int each(void *ctx, int64_t id, struct pm_err *err)
{
    struct seen *s = ctx;
    if (s->n == 0 && s->other) {
        char sql[96];
        snprintf(sql, sizeof sql, "DELETE FROM run WHERE id = %lld", (long long)s->drop);
        struct pm_err werr;
        if (store_db_exec(s->other, sql, &werr) < 0)
            printf("# the other connection's delete: %s\n", werr.msg);
        add_run(s->other, "added");
    }
    if (s->n >= sizeof s->ids / sizeof s->ids[0])
        return pm_errf(err, "too many runs");
    s->ids[s->n] = id;
    struct run_info ri;
    if (store_run_info_load(s->db, id, &ri, err) == 0) {
        snprintf(s->labels[s->n], sizeof s->labels[0], "%s", ri.label);
        s->loaded++;
        store_run_info_free(&ri);
    }
    s->n++;
    if (s->fail_at && (int)s->n == s->fail_at)
        return pm_errf(err, "the callback's own error");
    return s->stop_at && (int)s->n == s->stop_at ? 1 : 0;
}

static void one_read(const char *path)
{
    struct pm_db db, other;
    struct pm_err err;
    ok(store_db_open(&db, path, false, &err) == 0 && store_db_open(&other, path, false, &err) == 0,
       "two connections to one database");
    int64_t a = add_run(&db, "a"), b = add_run(&db, "b"), c = add_run(&db, "c");
    struct seen s = { .db = &db, .other = &other, .drop = b };
    int rc = store_run_list_each(&db, &(struct run_filter){ 0 }, each, &s, &err);
    ok(rc == 0, "the list of every run is read%s%s", rc == 0 ? "" : ": ", rc == 0 ? "" : err.msg);
    ok(s.n == 3 && s.ids[0] == a && s.ids[1] == b && s.ids[2] == c,
       "the runs as the list began, by id: the one added meanwhile is not among them (%zu runs)", s.n);
    ok(s.loaded == 3 && strcmp(s.labels[1], "b") == 0,
       "each read whole in the list's read, the one removed meanwhile too (%zu of %zu)", s.loaded, s.n);
    struct run_info ri;
    ok(store_run_info_load(&db, b, &ri, &err) < 0, "after the list, the removed run is gone");

    struct seen again = { .db = &db };
    ok(store_run_list_each(&db, &(struct run_filter){ 0 }, each, &again, &err) == 0 && again.n == 3 &&
       again.ids[1] == c && again.ids[2] > c && strcmp(again.labels[2], "added") == 0,
       "a new list sees the other connection's writes");
    struct seen one = { .db = &db };
    ok(store_run_list_each(&db, &(struct run_filter){ .label = "c" }, each, &one, &err) == 0 && one.n == 1 &&
       one.ids[0] == c, "a label's runs only");
    struct seen stop = { .db = &db, .stop_at = 1 };
    ok(store_run_list_each(&db, &(struct run_filter){ 0 }, each, &stop, &err) == 0 && stop.n == 1,
       "a callback that has what it wanted (1) ends the list, which is no error");
    struct seen fail = { .db = &db, .fail_at = 2 };
    err.msg[0] = 0;
    ok(store_run_list_each(&db, &(struct run_filter){ 0 }, each, &fail, &err) < 0 && fail.n == 2 &&
       strcmp(err.msg, "the callback's own error") == 0, "a callback's error ends the list with its message (%s)",
       err.msg);
    store_db_close(&other);
    store_db_close(&db);
}

static void bisection_all_or_nothing(const char *path)
{
    struct pm_db db;
    struct pm_err err;
    if (!ok(store_db_open(&db, path, false, &err) == 0, "the database again"))
        return;
    struct bisect_candidate_rec cands[2] = { { "k1", "1.0" }, { "k2", "2.0" } };
    struct bisect_rec b = { .key = "k", .suite_path = "/s.ini", .suite_text = "x", .cell = "c", .metric = "m",
                            .kind = "packages", .good = "g", .bad = "b", .runs = 3, .max_runs = 9, .alpha = 0.05 };
    /* A candidate that cannot be stored, after the bisection's row was. */
    ok(store_db_exec(&db, "CREATE TEMP TRIGGER planted BEFORE INSERT ON bisect_candidate WHEN NEW.idx = 1"
                       " BEGIN SELECT RAISE(ABORT, 'planted'); END", &err) == 0, "a candidate's insert will fail");
    int rc = bisects_create(&db, &b, cands, 2, &err);
    ok(rc < 0 && strstr(err.msg, "planted"), "the bisection is not created (%s)", err.msg);
    ok(b.id == 0, "and it has no id: the one its row had went with the rollback (%lld)", (long long)b.id);
    struct bisect_rec got;
    ok(bisects_by_key(&db, "k", &got, &err) == 0, "nothing of it is kept");
    rc = store_db_exec(&db, "DROP TRIGGER planted", &err) == 0 ? bisects_create(&db, &b, cands, 2, &err) : -1;
    ok(rc == 0 && b.id > 0, "without the failure it is created, with its id (%lld)", (long long)b.id);
    struct bisect_candidate_rec *v;
    size_t n;
    ok(bisects_candidates(&db, b.id, &v, &n, &err) == 0 && n == 2 && strcmp(v[1].kernel, "k2") == 0,
       "and its candidates");
    free(v);
    store_db_close(&db);
}

int main(void)
{
    char dir[] = "/tmp/pressmark-unit.XXXXXX";
    if (!mkdtemp(dir)) {
        printf("Bail out! mkdtemp\n");
        return 1;
    }
    char path[128], cmd[160];
    snprintf(path, sizeof path, "%s/results.db", dir);
    struct pm_db db;
    struct pm_err err;
    struct machine_info mi;
    ok(store_db_open(&db, path, true, &err) == 0 && pm_machine_read(&mi, &err) == 0 &&
       (mid = store_machine(&db, &mi, &err)) > 0, "a database");
    store_db_close(&db);
    one_read(path);
    bisection_all_or_nothing(path);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        printf("# %s left\n", dir);
    return done_testing();
}
