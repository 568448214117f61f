/* A guest's database holds what the guest wrote: runs of other suites, of
 * another kernel's cells, under other labels, more than were asked for.
 * Only the runs of the cells its boot ran, with their labels and
 * workloads, at most the suite's runs each, enter the host's database and
 * the suite (store/guest_runs.h, merge_database's only, suites_adopt_runs);
 * every other is refused with its reason. */
#include "tests/tap.h"
#include <stdbool.h>
#include <unistd.h>
#include "lib/fileio.h"
#include "lib/machine.h"
#include "store/guest_runs.h"
#include "store/machines.h"
#include "store/merge.h"
#include "store/runs.h"
#include "store/suites.h"

static int64_t mid;

/* A finished run in db with the given suite meta (NULL: none); its UUID
 * in uuid when not NULL. */
static void guest_run_uuid(struct pm_db *db, const char *label, const char *workload, const char *status,
                           const char *suite_uuid, const char *cell, char *uuid)
{
    struct pm_err err;
    struct run_row row = { .label = label, .workload = workload, .params = "", .interval_ns = 1000000000 };
    if (store_run_begin(db, mid, &row, &err) < 0) {
        printf("Bail out! %s\n", err.msg);
        exit(1);
    }
    struct kv_list meta = { 0 };
    if (suite_uuid) {
        pm_kv_set(&meta, "suite.uuid", suite_uuid);
        pm_kv_set(&meta, "suite.round", "1");
    }
    if (cell)
        pm_kv_set(&meta, "suite.cell_index", cell);
    struct run_record rec = { .status = status, .meta = &meta };
    if (strcmp(status, "running") == 0 ? store_run_meta(db, row.id, &meta, &err) < 0
                                       : store_run_end(db, row.id, &rec, &err) < 0) {
        printf("Bail out! %s\n", err.msg);
        exit(1);
    }
    pm_kv_free(&meta);
    if (uuid)
        snprintf(uuid, 40, "%s", row.uuid);
    usleep(1000);   /* started_ns orders them */
}

static void guest_run(struct pm_db *db, const char *label, const char *workload, const char *status,
                      const char *suite_uuid, const char *cell)
{
    guest_run_uuid(db, label, workload, status, suite_uuid, cell, NULL);
}

static bool taken(const struct guest_selection *sel, const char *uuid)
{
    for (size_t i = 0; i < sel->n; i++)
        if (strcmp(sel->runs[i].uuid, uuid) == 0)
            return true;
    return false;
}

static const char *reason_of(const struct guest_selection *sel, const char *label)
{
    for (size_t i = 0; i < sel->nrefused; i++)
        if (strcmp(sel->refused[i].label, label) == 0)
            return sel->refused[i].reason;
    return "(taken)";
}

int main(void)
{
    char dir[] = "/tmp/pressmark-unit.XXXXXX";
    if (!mkdtemp(dir)) {
        printf("Bail out! mkdtemp\n");
        return 1;
    }
    char host_path[128], guest_path[128];
    snprintf(host_path, sizeof host_path, "%s/host.db", dir);
    snprintf(guest_path, sizeof guest_path, "%s/guest.db", dir);
    struct pm_db host, guest;
    struct pm_err err;
    struct machine_info mi;
    ok(store_db_open(&host, host_path, true, &err) == 0 && store_db_open(&guest, guest_path, true, &err) == 0 &&
       pm_machine_read(&mi, &err) == 0 && (mid = store_machine(&guest, &mi, &err)) > 0, "a host and a guest database");
    struct suite_rec s = { .name = "g", .path = "g.ini", .digest = "d", .text = strdup("x"), .seed = 1 };
    ok(suites_create(&host, &s, &err) == 0, "the host's suite %s", s.uuid);
    const char *S = s.uuid;

    char first[40], second[40], third[40], last[40];
    guest_run_uuid(&guest, "c0", "record", "ok", S, "0", first);          /* taken */
    guest_run_uuid(&guest, "c0", "record", "failed", S, "0", second);     /* taken: a failed run is a run */
    guest_run_uuid(&guest, "c0", "record", "ok", S, "0", third);          /* a third: more than asked */
    char other_cell[40];
    guest_run_uuid(&guest, "c2", "record", "ok", S, "2", other_cell);    /* another kernel's cell */
    guest_run(&guest, "c0", "record", "ok", "other-suite", "0");
    guest_run(&guest, "loose", "record", "ok", NULL, NULL);
    guest_run(&guest, "evil", "record", "ok", S, "1");          /* cell 1's label is c1 */
    guest_run(&guest, "c1", "chat", "ok", S, "1");              /* cell 1's workload is record */
    guest_run(&guest, "far", "record", "ok", S, "999999");
    guest_run(&guest, "word", "record", "ok", S, "1; drop table run");
    guest_run(&guest, "digit-then", "record", "ok", S, "1x");
    guest_run(&guest, "empty", "record", "ok", S, "");
    guest_run_uuid(&guest, "c1", "record", "aborted", S, "1", last);      /* taken: an aborted run ended */
    guest_run(&guest, "c1-running", "record", "running", S, "1");
    /* Taken, a UUID longer than any of pressmark's would be cut to the
     * other kernel's run's: refused for its UUID. */
    guest_run(&guest, "c1", "record", "ok", S, "1");
    char sql[256];
    snprintf(sql, sizeof sql, "UPDATE run SET uuid = '%sjunk' WHERE id = (SELECT max(id) FROM run)", other_cell);
    ok(store_db_exec(&guest, sql, &err) == 0, "a run whose UUID is another's and more");

    const struct guest_cell cells[] = {
        { true, 2, "c0", "record" }, { true, 2, "c1", "record" }, { false, 2, "c2", "record" },
    };
    struct guest_selection sel;
    ok(store_guest_runs_select(guest_path, S, cells, 3, &sel, &err) == 0, "the guest's runs are read (%s)", err.msg);
    is_num(sel.n, 3, 0, "three runs are taken: two of cell 0, one of cell 1");
    ok(sel.n == 3 && taken(&sel, first) && taken(&sel, second) && !taken(&sel, third) && taken(&sel, last),
       "the first two of cell 0 (ok and failed, the third refused) and cell 1's aborted run");
    is_num(sel.nrefused, 12, 0, "twelve are refused");
    char longer[64];
    snprintf(longer, sizeof longer, "%sjunk", other_cell);
    int by_uuid = 0;
    for (size_t i = 0; i < sel.nrefused; i++)
        by_uuid += strcmp(sel.refused[i].reason, "its UUID is not one pressmark makes") == 0;
    is_num(by_uuid, 1, 0, "the one whose UUID is not pressmark's");
    is_str(reason_of(&sel, "c2"), "cell 2 is not one this boot ran", "another kernel's cell");
    is_str(reason_of(&sel, "loose"), "not a run of this suite", "a run of no suite");
    is_str(reason_of(&sel, "evil"), "cell 1's label is another", "a cell's run under another label");
    is_str(reason_of(&sel, "far"), "cell 999999 is not one this boot ran", "a cell the suite does not have");
    is_str(reason_of(&sel, "word"), "cell -1 is not one this boot ran", "a cell index that is not a number");
    is_str(reason_of(&sel, "digit-then"), "cell -1 is not one this boot ran", "nor one that starts with a digit ('1x')");
    is_str(reason_of(&sel, "empty"), "cell -1 is not one this boot ran", "nor an empty one");
    is_str(reason_of(&sel, "c1-running"), "still running (it never finished)", "a run that never finished");
    int more = 0, other = 0, chat = 0;
    for (size_t i = 0; i < sel.nrefused; i++) {
        more += strcmp(sel.refused[i].reason, "cell 0 was asked for 2 runs") == 0;
        other += strcmp(sel.refused[i].reason, "not a run of this suite") == 0;
        chat += strcmp(sel.refused[i].reason, "cell 1's workload is record") == 0;
    }
    is_num(more, 1, 0, "a third run of a cell asked for two");
    is_num(other, 2, 0, "a run of another suite (and the one of none)");
    is_num(chat, 1, 0, "a cell's run of another workload");

    /* A run that claims to be of the suite reached the host another way
     * (a manual merge): a boot never adopts it. */
    mid = store_machine(&host, &mi, &err);
    guest_run(&host, "c0", "record", "ok", S, "0");
    if (sel.n != 3) {
        printf("Bail out! %zu runs taken, not 3\n", sel.n);
        pm_remove_all(dir);
        return 1;
    }
    const char *only[3] = { sel.runs[0].uuid, sel.runs[1].uuid, sel.runs[2].uuid };
    struct suite_adoption adopt[3];
    for (int i = 0; i < 3; i++)
        adopt[i] = (struct suite_adoption){ sel.runs[i].uuid, sel.runs[i].round, sel.runs[i].cell };
    int added = 0, present = 0, adopted = 0;
    ok(merge_database(&host, guest_path, only, 3, &added, &present, &err) == 0, "the taken runs are merged (%s)", err.msg);
    is_num(added, 3, 0, "only those three enter the host's database");
    ok(suites_adopt_runs(&host, s.id, adopt, 3, &adopted, &err) == 0, "and are adopted (%s)", err.msg);
    is_num(adopted, 3, 0, "all three, and not the run that only claims to be the suite's");
    sqlite3_stmt *st;
    store_db_prepare(&host, &st, "SELECT count(*) FROM run", &err);
    ok(sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 4, "the host holds its own run and the three");
    sqlite3_finalize(st);
    store_db_prepare(&host, &st, "SELECT group_concat(cell) FROM (SELECT cell FROM suite_run ORDER BY seq)", &err);
    ok(sqlite3_step(st) == SQLITE_ROW && strcmp(store_col_text(st, 0), "0,0,1") == 0, "in cells 0, 0 and 1 (%s)",
       store_col_text(st, 0));
    sqlite3_finalize(st);

    /* A guest's schema that compares keys without case would let another
     * key stand for the cell index: such a database is refused. */
    ok(store_db_exec(&guest, "CREATE TABLE rm2 (run_id INTEGER NOT NULL, key TEXT NOT NULL COLLATE NOCASE,"
                          " value TEXT NOT NULL, PRIMARY KEY (run_id, key)) WITHOUT ROWID;"
                          " INSERT INTO rm2 SELECT * FROM run_meta; DROP TABLE run_meta;"
                          " ALTER TABLE rm2 RENAME TO run_meta", &err) == 0, "a guest's run_meta with COLLATE NOCASE");
    struct guest_selection sel2;
    ok(store_guest_runs_select(guest_path, S, cells, 3, &sel2, &err) < 0 && strstr(err.msg, "declares collations"),
       "is refused whole (%s)", err.msg);

    store_guest_selection_free(&sel);
    store_suite_rec_free(&s);
    store_db_close(&host);
    store_db_close(&guest);
    pm_remove_all(dir);
    return done_testing();
}
