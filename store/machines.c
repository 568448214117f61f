#include "store/machines.h"
#include <stdio.h>
#include <string.h>

int64_t store_machine(struct pm_db *db, const struct machine_info *m, struct pm_err *err)
{
    sqlite3_stmt *ins, *sel;
    static const char cols[] = "hostname, kernel, proc_version, cmdline, cpu_model, cpus, mem_total_kb, page_size";
    char sql[512];
    snprintf(sql, sizeof sql, "INSERT OR IGNORE INTO machine(%s) VALUES (?,?,?,?,?,?,?,?)", cols);
    if (store_db_prepare(db, &ins, sql, err) < 0)
        return -1;
    if (store_db_prepare(db, &sel,
                      "SELECT id FROM machine WHERE hostname=? AND kernel=? AND proc_version=? AND cmdline=?"
                      " AND cpu_model=? AND cpus=? AND mem_total_kb=? AND page_size=?", err) < 0) {
        sqlite3_finalize(ins);
        return -1;
    }
    sqlite3_stmt *both[2] = { ins, sel };
    for (int i = 0; i < 2; i++) {
        sqlite3_bind_text(both[i], 1, m->hostname, -1, SQLITE_STATIC);
        sqlite3_bind_text(both[i], 2, m->kernel, -1, SQLITE_STATIC);
        sqlite3_bind_text(both[i], 3, m->proc_version, -1, SQLITE_STATIC);
        sqlite3_bind_text(both[i], 4, m->cmdline, -1, SQLITE_STATIC);
        sqlite3_bind_text(both[i], 5, m->cpu_model, -1, SQLITE_STATIC);
        sqlite3_bind_int(both[i], 6, m->cpus);
        sqlite3_bind_int64(both[i], 7, m->mem_total_kb);
        sqlite3_bind_int64(both[i], 8, m->page_size);
    }
    int64_t id = -1;
    if (store_db_step_done(db, ins, err) == 0) {
        if (sqlite3_step(sel) == SQLITE_ROW)
            id = sqlite3_column_int64(sel, 0);
        else
            pm_errf(err, "%s: machine row missing after insert", db->path);
    }
    sqlite3_finalize(ins);
    sqlite3_finalize(sel);
    return id;
}
