/* A guest's database holds what the guest wrote: runs of other suites, of
 * another kernel's cells, under other labels, more than were asked for.
 * Only the runs of the cells its boot ran, with their labels and
 * workloads, at most the suite's runs each, enter the host's database and
 * the suite (store/guest_runs.h, merge_database's only, suites_adopt_runs);
 * every other is refused with its reason. */
#include "tests/tap.h"
#include <unistd.h>
#include "lib/fileio.h"
#include "lib/machine.h"
#include "store/guest_runs.h"
#include "store/machine.h"
#include "store/merge.h"
#include "store/runs.h"
#include "store/suites.h"

static int64_t mid;

/* A finished run in db with the given suite meta (NULL: none). */
static void guest_run(struct pm_db *db, const char *label, const char *workload, const char *status,
                      const char *suite_uuid, const char *cell)
{
    struct pm_err err;
    struct run_row row = { .label = label, .workload = workload, .params = "", .interval_ns = 1000000000 };
    if (store_run_begin(db, mid, &row, &err) < 0) {
        printf("Bail out! %s\n", err.msg);
        exit(1);
    }
    struct kv_list meta = { 0 };
    if (suite_uuid) {
        kv_set(&meta, "suite.uuid", suite_uuid);
        kv_set(&meta, "suite.round", "1");
    }
    if (cell)
        kv_set(&meta, "suite.cell_index", cell);
    struct run_record rec = { .status = status, .meta = &meta };
    if (strcmp(status, "running") == 0 ? store_run_meta(db, row.id, &meta, &err) < 0
                                       : store_run_end(db, row.id, &rec, &err) < 0) {
        printf("Bail out! %s\n", err.msg);
        exit(1);
    }
    kv_free(&meta);
    usleep(1000);   /* started_ns orders them */
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
    ok(pm_db_open(&host, host_path, true, &err) == 0 && pm_db_open(&guest, guest_path, true, &err) == 0 &&
       machine_read(&mi, &err) == 0 && (mid = machine_store(&guest, &mi, &err)) > 0, "a host and a guest database");
    struct suite_rec s = { .name = "g", .path = "g.ini", .digest = "d", .text = strdup("x"), .seed = 1 };
    ok(suites_create(&host, &s, &err) == 0, "the host's suite %s", s.uuid);
    const char *S = s.uuid;

    guest_run(&guest, "c0", "record", "ok", S, "0");            /* taken */
    guest_run(&guest, "c0", "record", "failed", S, "0");        /* taken: a failed run is a run */
    guest_run(&guest, "c0", "record", "ok", S, "0");            /* a third: more than asked */
    guest_run(&guest, "c2", "record", "ok", S, "2");            /* another kernel's cell */
    guest_run(&guest, "c0", "record", "ok", "other-suite", "0");
    guest_run(&guest, "loose", "record", "ok", NULL, NULL);
    guest_run(&guest, "evil", "record", "ok", S, "1");          /* cell 1's label is c1 */
    guest_run(&guest, "c1", "chat", "ok", S, "1");              /* cell 1's workload is record */
    guest_run(&guest, "far", "record", "ok", S, "999999");
    guest_run(&guest, "word", "record", "ok", S, "1; drop table run");
    guest_run(&guest, "c1", "record", "ok", S, "1");            /* taken */
    guest_run(&guest, "c1-running", "record", "running", S, "1");

    const struct guest_cell cells[] = {
        { true, 2, "c0", "record" }, { true, 2, "c1", "record" }, { false, 2, "c2", "record" },
    };
    struct guest_selection sel;
    ok(guest_runs_select(guest_path, S, cells, 3, &sel, &err) == 0, "the guest's runs are read (%s)", err.msg);
    is_num(sel.n, 3, 0, "three runs are taken: two of cell 0, one of cell 1");
    is_num(sel.nrefused, 9, 0, "nine are refused");
    is_str(reason_of(&sel, "c2"), "cell 2 is not one this boot ran", "another kernel's cell");
    is_str(reason_of(&sel, "loose"), "not a run of this suite", "a run of no suite");
    is_str(reason_of(&sel, "evil"), "cell 1's label is another", "a cell's run under another label");
    is_str(reason_of(&sel, "far"), "cell 999999 is not one this boot ran", "a cell the suite does not have");
    is_str(reason_of(&sel, "word"), "cell -1 is not one this boot ran", "a cell index that is not a number");
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
    mid = machine_store(&host, &mi, &err);
    guest_run(&host, "c0", "record", "ok", S, "0");
    const char *only[3] = { sel.uuids[0], sel.uuids[1], sel.uuids[2] };
    int added = 0, present = 0, adopted = 0;
    ok(merge_database(&host, guest_path, only, 3, &added, &present, &err) == 0, "the taken runs are merged (%s)", err.msg);
    is_num(added, 3, 0, "only those three enter the host's database");
    ok(suites_adopt_runs(&host, s.id, S, 3, only, 3, &adopted, &err) == 0, "and are adopted (%s)", err.msg);
    is_num(adopted, 3, 0, "all three, and not the run that only claims to be the suite's");
    sqlite3_stmt *st;
    pm_db_prepare(&host, &st, "SELECT count(*) FROM run", &err);
    ok(sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 4, "the host holds its own run and the three");
    sqlite3_finalize(st);

    guest_selection_free(&sel);
    suite_rec_free(&s);
    pm_db_close(&host);
    pm_db_close(&guest);
    pm_remove_all(dir);
    return done_testing();
}
