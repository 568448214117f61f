/* pressmark merge OTHER.db...: one place where all machines' results meet.
 * Runs are identified by their UUID, so merging twice adds nothing twice;
 * each keeps its machine and kernel; an older database is migrated in a
 * private copy first (foreign_db), never changed itself. */
#include <stdio.h>
#include <string.h>
#include "cmd/cli.h"
#include "store/db.h"
#include "store/foreign_db.h"

/* Every table that hangs off a run, copied for the new runs only. */
static const char *const child_copies[] = {
    "INSERT INTO run_meta(run_id, key, value) SELECT n.id, c.key, c.value FROM other.run_meta c"
    " JOIN other.run o ON o.id = c.run_id JOIN new_runs x ON x.uuid = o.uuid JOIN main.run n ON n.uuid = o.uuid",
    "INSERT INTO metric(run_id, name, value, unit, direction) SELECT n.id, c.name, c.value, c.unit, c.direction"
    " FROM other.metric c JOIN other.run o ON o.id = c.run_id JOIN new_runs x ON x.uuid = o.uuid"
    " JOIN main.run n ON n.uuid = o.uuid",
    "INSERT INTO run_source(run_id, source, path, ticks, note) SELECT n.id, c.source, c.path, c.ticks, c.note"
    " FROM other.run_source c JOIN other.run o ON o.id = c.run_id JOIN new_runs x ON x.uuid = o.uuid"
    " JOIN main.run n ON n.uuid = o.uuid",
    "INSERT INTO tick_series(run_id, idx, name) SELECT n.id, c.idx, c.name FROM other.tick_series c"
    " JOIN other.run o ON o.id = c.run_id JOIN new_runs x ON x.uuid = o.uuid JOIN main.run n ON n.uuid = o.uuid",
    "INSERT INTO tick(run_id, seq, t_ns, data) SELECT n.id, c.seq, c.t_ns, c.data FROM other.tick c"
    " JOIN other.run o ON o.id = c.run_id JOIN new_runs x ON x.uuid = o.uuid JOIN main.run n ON n.uuid = o.uuid",
    "INSERT INTO profile(run_id, rank, symbol, samples, pct_kernel, pct_all)"
    " SELECT n.id, c.rank, c.symbol, c.samples, c.pct_kernel, c.pct_all FROM other.profile c"
    " JOIN other.run o ON o.id = c.run_id JOIN new_runs x ON x.uuid = o.uuid JOIN main.run n ON n.uuid = o.uuid",
};

static int merge_one(struct pm_db *db, const char *path, int *added, int *present, struct pm_err *err)
{
    struct foreign_db f;
    if (foreign_db_open(path, &f, err) < 0)
        return -1;
    const char *file = f.copy[0] ? f.copy : path;
    sqlite3_stmt *st;
    int rc = -1;
    /* The migrated copy (or the original) is attached read-only by URI. */
    sqlite3_close(f.db.h);
    f.db.h = NULL;
    char uri[4400];
    snprintf(uri, sizeof uri, "file:%s?mode=ro", file);
    if (pm_db_prepare(db, &st, "ATTACH DATABASE ? AS other", err) < 0)
        goto out;
    sqlite3_bind_text(st, 1, uri, -1, SQLITE_STATIC);
    rc = pm_db_step_done(db, st, err);
    sqlite3_finalize(st);
    if (rc < 0)
        goto out;
    rc = -1;
    if (pm_db_exec(db, "BEGIN IMMEDIATE", err) < 0)
        goto detach;
    if (pm_db_exec(db,
                   "CREATE TEMP TABLE new_runs AS SELECT uuid FROM other.run"
                   " WHERE status != 'running' AND uuid NOT IN (SELECT uuid FROM main.run);"
                   "INSERT OR IGNORE INTO machine(hostname, kernel, proc_version, cmdline, cpu_model, cpus, mem_total_kb, page_size)"
                   " SELECT hostname, kernel, proc_version, cmdline, cpu_model, cpus, mem_total_kb, page_size FROM other.machine;"
                   "INSERT INTO run(uuid, machine_id, label, workload, params, started_ns, ended_ns, interval_ns, status, reason)"
                   " SELECT o.uuid, (SELECT m.id FROM main.machine m WHERE m.hostname = om.hostname AND m.kernel = om.kernel"
                   "   AND m.proc_version = om.proc_version AND m.cmdline = om.cmdline AND m.cpu_model = om.cpu_model"
                   "   AND m.cpus = om.cpus AND m.mem_total_kb = om.mem_total_kb AND m.page_size = om.page_size),"
                   "  o.label, o.workload, o.params, o.started_ns, o.ended_ns, o.interval_ns, o.status, o.reason"
                   " FROM other.run o JOIN other.machine om ON om.id = o.machine_id JOIN new_runs x ON x.uuid = o.uuid"
                   " ORDER BY o.started_ns, o.id;", err) < 0)
        goto rollback;
    for (size_t i = 0; i < sizeof child_copies / sizeof child_copies[0]; i++)
        if (pm_db_exec(db, child_copies[i], err) < 0)
            goto rollback;
    if (pm_db_prepare(db, &st, "SELECT (SELECT count(*) FROM new_runs), (SELECT count(*) FROM other.run) - (SELECT count(*) FROM new_runs)",
                      err) < 0)
        goto rollback;
    if (sqlite3_step(st) == SQLITE_ROW) {
        *added = sqlite3_column_int(st, 0);
        *present = sqlite3_column_int(st, 1);
    }
    sqlite3_finalize(st);
    if (pm_db_exec(db, "DROP TABLE temp.new_runs; COMMIT", err) < 0)
        goto rollback;
    rc = 0;
    goto detach;
rollback:
    pm_db_exec(db, "ROLLBACK", NULL);
    pm_db_exec(db, "DROP TABLE IF EXISTS temp.new_runs", NULL);
detach:
    pm_db_exec(db, "DETACH DATABASE other", NULL);
out:
    foreign_db_close(&f);
    return rc;
}

int cmd_merge(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "db", required_argument, NULL, 'd' }, { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
    };
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'd': pm_set_db_path(optarg); break;
        case 'h':
            printf("usage: pressmark merge OTHER.db... [--db PATH]\n\n"
                   "Imports the runs of other machines' results databases into this one, each with\n"
                   "its machine and kernel. Runs are known by their UUID: merging the same file twice\n"
                   "adds nothing the second time. An older database is migrated in a private copy;\n"
                   "the file itself is never changed. Runs still 'running' there are left out.\n");
            return 0;
        default:
            return pm_usage("merge", "unknown option or missing value '%s' (see 'pressmark merge --help')", argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return pm_usage("merge", "name at least one database to merge (pressmark merge OTHER.db...)");
    struct pm_db db;
    struct pm_err err;
    if (pm_db_open(&db, pm_db_path(), true, &err) < 0) {
        fprintf(stderr, "pressmark merge: %s\n", err.msg);
        return 2;
    }
    int rc = 0;
    for (int i = optind; i < argc; i++) {
        int added = 0, present = 0;
        if (merge_one(&db, argv[i], &added, &present, &err) < 0) {
            fprintf(stderr, "pressmark merge: %s\n", err.msg);
            rc = 2;
            continue;
        }
        printf("%s: %d run%s added, %d already here\n", argv[i], added, added == 1 ? "" : "s", present);
    }
    pm_db_close(&db);
    return rc;
}
