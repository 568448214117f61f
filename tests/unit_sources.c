/* The sampler over a /proc without PSI (a kernel built without it): the
 * absent files are skipped and noted, every other source is stored. */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sqlite3.h>
#include "collectors/sampler.h"
#include "collectors/sources.h"
#include "store/db.h"
#include "pressure/probe.h"
#include "store/machines.h"
#include "store/ticks.h"
#include "store/runs.h"
#include "tests/tap.h"

/* The ticks of a run the tick store has written so far (it writes what it
 * has gathered once a second), read on a connection of its own. */
static int stored_ticks(const char *db_path, int64_t run_id)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    int n = -1;
    if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_busy_timeout(db, 1000) == SQLITE_OK &&
        sqlite3_prepare_v2(db, "select count(*) from tick where run_id = ?", -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_bind_int64(st, 1, run_id) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
            n = sqlite3_column_int(st, 0);
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return n;
}

static void copy(const char *from, const char *to)
{
    size_t len;
    char *buf = slurp(from, &len);
    FILE *f = fopen(to, "w");
    fwrite(buf, 1, len, f);
    fclose(f);
    free(buf);
}

int main(void)
{
    char dir[] = "/tmp/pressmark-unit.XXXXXX";
    if (!mkdtemp(dir)) {
        printf("Bail out! mkdtemp\n");
        return 1;
    }
    char path[512], db_path[512];
    snprintf(path, sizeof path, "%s/stat", dir);
    copy("tests/fixtures/stat-2.6.9.txt", path);
    snprintf(path, sizeof path, "%s/vmstat", dir);
    copy("tests/fixtures/vmstat-2.6.8.txt", path);
    snprintf(path, sizeof path, "%s/meminfo", dir);
    copy("tests/fixtures/meminfo-2.6.8.txt", path);
    snprintf(db_path, sizeof db_path, "%s/results.db", dir);

    struct source_set ss;
    /* The monitors beyond the six files are other tests' business. */
    struct source_opts so = { .proc_root = dir, .off = 1u << SRC_buddyinfo | 1u << SRC_zoneinfo | 1u << SRC_diskstats |
                                                     1u << SRC_procs | 1u << SRC_mthp };
    sources_init(&ss, &so);
    sources_open(&ss);
    is_num(ss.n, 6, 0, "stat, vmstat, meminfo and three PSI files are configured");
    int opened = 0, absent = 0;
    for (size_t i = 0; i < ss.n; i++) {
        if (ss.cols[i].open_ok)
            opened++;
        else if (strstr(ss.cols[i].note, "absent:") && strstr(ss.cols[i].note, "No such file"))
            absent++;
    }
    is_num(opened, 3, 0, "the three files this kernel has open");
    is_num(absent, 3, 0, "the PSI files are absent, each with a note saying why");

    struct pm_db db;
    struct pm_err err;
    ok(store_db_open(&db, db_path, true, &err) == 0, "a fresh database");
    struct machine_info mi;
    pm_machine_read(&mi, &err);
    int64_t mid = store_machine(&db, &mi, &err), run_id = 0;
    struct run_row row = { .label = "old", .workload = "record", .params = "", .interval_ns = 10000000 };
    ok(mid > 0 && store_run_begin(&db, mid, &row, &err) == 0 && (run_id = row.id) > 0, "a run row");
    struct sampler s;
    struct tick_store ts;
    ok(tick_store_open(&ts, db_path, run_id, &err) == 0, "the tick store opens");
    ok(sampler_start(&s, &ts.base, 10000000, ss.cols, ss.n, &err) == 0, "the sampler starts without PSI");
    /* Polled, not slept for a fixed time: a busy machine may take longer
     * than 50 ms to give five 10 ms ticks (bounded at 60 s). */
    int stored = 0;
    for (int i = 0; i < 6000 && stored < 5; i++) {
        usleep(10000);
        stored = stored_ticks(db_path, run_id);
    }
    ok(sampler_stop(&s, &err) == 0, "and stops cleanly");
    struct sampler_stats st;
    sampler_stats(&s, &st);
    ok(stored >= 5 && st.ticks >= (unsigned long long)stored, "it ticked at 10 ms (%d stored while it ran, %llu in all)", stored,
       (unsigned long long)st.ticks);
    ok(series_table_find(&s.table, "vmstat.kswapd_steal") != NULL, "vmstat values were taken");
    ok(series_table_find(&s.table, "psi.memory.some.total") == NULL, "no PSI series was invented");
    struct run_source src[16];
    for (size_t i = 0; i < ss.n && i < 16; i++)
        src[i] = (struct run_source){ ss.cols[i].source, ss.cols[i].path, ss.cols[i].note, ss.cols[i].ticks };
    ok(store_run_end(&db, run_id, &(struct run_record){ .status = "ok", .sources = src, .nsources = ss.n < 16 ? ss.n : 16 }, &err) == 0, "the run is stored");
    sqlite3_stmt *q;
    store_db_prepare(&db, &q, "SELECT count(*) FROM run_source WHERE run_id = ? AND note LIKE 'absent:%'", &err);
    sqlite3_bind_int64(q, 1, run_id);
    sqlite3_step(q);
    is_num(sqlite3_column_int(q, 0), 3, 0, "the absent sources are noted in the run's record");
    sqlite3_finalize(q);
    store_db_prepare(&db, &q, "SELECT count(*) FROM sample WHERE run_id = ? AND name = 'meminfo.LowFree'", &err);
    sqlite3_bind_int64(q, 1, run_id);
    sqlite3_step(q);
    is_num(sqlite3_column_int(q, 0), (double)st.ticks, 0, "every tick holds the 2.6 kernel's LowFree");
    sqlite3_finalize(q);
    sampler_free(&s);
    tick_store_close(&ts);
    sources_close(&ss);
    store_db_close(&db);
    static const char *files[] = { "stat", "vmstat", "meminfo", "results.db", "results.db-wal", "results.db-shm" };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    if (rmdir(dir) < 0)
        printf("# could not remove %s\n", dir);
    return done_testing();
}
