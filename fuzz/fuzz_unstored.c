/* A run's record kept beside the database (store/unstored.h), which the
 * next pressmark stores as root: the input is the file's text, found in
 * the private directory under a run's name. Properties: the reader ends
 * (no crash, no hang); the record is stored whole or not at all, and the
 * file is removed exactly when its run is in the database; a stored run
 * has the file's UUID, a label the --label rule accepts and the status of
 * a finished run, and nothing but that one run is added. */
#include "fuzz/fuzz.h"
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/fileio.h"
#include "store/db.h"
#include "store/runs.h"
#include "store/unstored.h"

#define UUID "0f0f0f0f-1111-2222-3333-444444444444"

static char dir[64], db_path[96], rec_path[160];
static struct pm_db db;
static FILE *quiet;

static void remove_dir(void)
{
    pm_db_close(&db);
    pm_remove_all(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    snprintf(dir, sizeof dir, "/tmp/pressmark-fuzz.XXXXXX");
    struct pm_err err;
    if (!mkdtemp(dir))
        abort();
    snprintf(db_path, sizeof db_path, "%s/r.db", dir);
    snprintf(rec_path, sizeof rec_path, "%s.unstored/%s.json", db_path, UUID);
    quiet = fopen("/dev/null", "w");
    if (!quiet || pm_db_open(&db, db_path, true, &err) < 0) {
        fprintf(stderr, "%s\n", err.msg);
        abort();
    }
    atexit(remove_dir);
    return 0;
}

static long long count(const char *sql)
{
    sqlite3_stmt *st;
    struct pm_err err;
    if (pm_db_prepare(&db, &st, sql, &err) < 0)
        abort();
    long long n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
    sqlite3_finalize(st);
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct pm_err err;
    char kept[128];
    snprintf(kept, sizeof kept, "%s.unstored", db_path);
    if (pm_db_exec(&db, "DELETE FROM run; DELETE FROM machine", &err) < 0 || (mkdir(kept, 0700) < 0 && errno != EEXIST))
        abort();
    FILE *f = fopen(rec_path, "w");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort();
    chmod(rec_path, 0600);
    int stored = unstored_store_all(&db, quiet);
    bool left = access(rec_path, F_OK) == 0;
    long long runs = count("SELECT count(*) FROM run");
    FUZZ_ASSERT(stored == 0 || stored == 1, "stored %d records of one", stored);
    FUZZ_ASSERT(stored == (left ? 0 : 1), "stored %d, the file %s", stored, left ? "stays" : "is gone");
    FUZZ_ASSERT(runs == stored, "%lld runs in the database after storing %d", runs, stored);
    if (stored) {
        FUZZ_ASSERT(count("SELECT count(*) FROM run WHERE uuid = '" UUID "'") == 1, "the run has another UUID");
        FUZZ_ASSERT(count("SELECT count(*) FROM run WHERE status IN ('ok', 'failed', 'oom', 'aborted')") == 1,
                    "the run's status is not a finished run's");
        sqlite3_stmt *st;
        if (pm_db_prepare(&db, &st, "SELECT label FROM run", &err) < 0 || sqlite3_step(st) != SQLITE_ROW)
            abort();
        FUZZ_ASSERT(run_label_ok(pm_col_text(st, 0)), "label '%s' stored", pm_col_text(st, 0));
        sqlite3_finalize(st);
    }
    unlink(rec_path);
    return 0;
}
