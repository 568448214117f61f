#include "store/guest_runs.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/alloc.h"
#include "store/foreign_db.h"
#include "store/runs.h"

void store_guest_selection_free(struct guest_selection *sel)
{
    free(sel->runs);
    free(sel->refused);
    memset(sel, 0, sizeof *sel);
}

static int refuse(struct guest_selection *sel, size_t *cap, const char *uuid, const char *label, const char *why)
{
    if (ALLOC_GROW(sel->refused, sel->nrefused + 1, *cap) < 0)
        return -1;
    struct guest_refusal *r = &sel->refused[sel->nrefused++];
    snprintf(r->uuid, sizeof r->uuid, "%s", uuid);
    snprintf(r->label, sizeof r->label, "%s", label);
    snprintf(r->reason, sizeof r->reason, "%s", why);
    return 0;
}

/* Why a run of the guest's is refused, or "" when it is taken. taken[c]
 * counts the runs of cell c taken so far. */
static void why_refused(const struct guest_cell *cells, size_t ncells, const int *taken, const char *uuid,
                        const char *label, const char *workload, const char *status, bool ours, long long cell,
                        long long round, char *why, size_t len)
{
    why[0] = '\0';
    if (!store_run_uuid_ok(uuid))
        snprintf(why, len, "its UUID is not one pressmark makes");
    else if (!ours)
        snprintf(why, len, "not a run of this suite");
    else if (strcmp(status, "running") == 0)
        snprintf(why, len, "still running (it never finished)");
    else if (cell < 0 || (size_t)cell >= ncells || !cells[cell].planned)
        snprintf(why, len, "cell %lld is not one this boot ran", cell);
    else if (strcmp(label, cells[cell].label) != 0)
        snprintf(why, len, "cell %lld's label is another", cell);
    else if (strcmp(workload, cells[cell].workload) != 0)
        snprintf(why, len, "cell %lld's workload is %s", cell, cells[cell].workload);
    else if (taken[cell] >= cells[cell].max_runs)
        snprintf(why, len, "cell %lld was asked for %d run%s", cell, cells[cell].max_runs,
                 cells[cell].max_runs == 1 ? "" : "s");
    else if (round < 1)
        snprintf(why, len, "its round is not a number from 1");
}

static int judge(struct guest_selection *sel, size_t *cap, size_t *rcap, const struct guest_cell *cells,
                 size_t ncells, int *taken, sqlite3_stmt *st)
{
    const char *uuid = store_col_text(st, 0), *label = store_col_text(st, 1);
    long long cell = sqlite3_column_type(st, 5) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 5);
    long long round = sqlite3_column_type(st, 6) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 6);
    char why[160];
    why_refused(cells, ncells, taken, uuid, label, store_col_text(st, 2), store_col_text(st, 3), sqlite3_column_int(st, 4) != 0,
                cell, round, why, sizeof why);
    if (why[0])
        return refuse(sel, rcap, uuid, label, why);
    if (ALLOC_GROW(sel->runs, sel->n + 1, *cap) < 0)
        return -1;
    struct guest_run *g = &sel->runs[sel->n++];
    snprintf(g->uuid, sizeof g->uuid, "%s", uuid);
    g->cell = (int)cell;
    g->round = (int)round;
    taken[cell]++;
    return 0;
}

int store_guest_runs_select(const char *path, const char *suite_uuid, const struct guest_cell *cells, size_t ncells,
                      struct guest_selection *sel, struct pm_err *err)
{
    memset(sel, 0, sizeof *sel);
    struct foreign_db f;
    if (foreign_db_open(path, &f, err) < 0)
        return -1;
    sqlite3_stmt *st;
    /* Every run, the first started first: those are the ones taken. Keys
     * and values compared byte for byte (COLLATE BINARY), whatever the
     * guest's schema declares; numbers only as plain digits. */
#define PLAIN_NUMBER(key)                                                                                      \
    " (SELECT CASE WHEN m.value <> '' AND m.value NOT GLOB '*[^0-9]*' AND length(m.value) < 10"               \
    "  THEN CAST(m.value AS INTEGER) ELSE -1 END FROM run_meta m WHERE m.run_id = r.id"                        \
    "  AND m.key = '" key "' COLLATE BINARY)"
    if (store_db_prepare(&f.db, &st,
                      "SELECT r.uuid, r.label, r.workload, r.status,"
                      " EXISTS (SELECT 1 FROM run_meta u WHERE u.run_id = r.id AND u.key = 'suite.uuid' COLLATE BINARY"
                      "  AND u.value = ?1 COLLATE BINARY),"
                      PLAIN_NUMBER("suite.cell_index") "," PLAIN_NUMBER("suite.round")
                      " FROM run r ORDER BY r.started_ns, r.id", err) < 0) {
        foreign_db_close(&f);
        return -1;
    }
    sqlite3_bind_text(st, 1, suite_uuid, -1, SQLITE_STATIC);
    int *taken = calloc(ncells + 1, sizeof *taken);
    size_t cap = 0, rcap = 0;
    int rc = taken ? 0 : pm_errf(err, "out of memory");
    int step;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW)
        if (judge(sel, &cap, &rcap, cells, ncells, taken, st) < 0)
            rc = pm_errf(err, "out of memory");
    if (rc == 0 && step != SQLITE_DONE)
        rc = pm_errf(err, "%s: %s", path, sqlite3_errmsg(f.db.h));
    sqlite3_finalize(st);
    free(taken);
    foreign_db_close(&f);
    if (rc < 0)
        store_guest_selection_free(sel);
    return rc;
}
