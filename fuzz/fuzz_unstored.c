/* A run's record kept beside the database (store/unstored.h), which the
 * next pressmark stores as root: the input is the file's text, found in
 * the private directory under a run's name. Its length picks what the
 * database already holds of that run: nothing, a row still running, a row
 * marked aborted without an end, or a finished run. Properties: the reader
 * ends (no crash, no hang); a record is stored whole or not at all, and
 * its file is removed exactly when its run's end is in the database; a
 * stored run has the file's UUID, a label of 1 to 255 bytes not starting
 * with '-' and a finished run's status; a finished run is never changed;
 * what is said holds no control character but the line ends. */
#include "fuzz/fuzz.h"
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/fileio.h"
#include "store/db.h"
#include "store/unstored.h"

#define UUID "0f0f0f0f-1111-2222-3333-444444444444"

static char dir[64], db_path[96], kept[128], rec_path[160];
static struct pm_db db;

static void remove_dir(void)
{
    store_db_close(&db);
    pm_remove_all(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    struct pm_err err = { "" };
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/pressmark-fuzz.XXXXXX", tmp && *tmp == '/' && strlen(tmp) < 32 ? tmp : "/tmp");
    if (!mkdtemp(dir))
        abort();
    snprintf(db_path, sizeof db_path, "%s/r.db", dir);
    snprintf(kept, sizeof kept, "%s.unstored", db_path);
    snprintf(rec_path, sizeof rec_path, "%s/%s.json", kept, UUID);
    if (store_db_open(&db, db_path, true, &err) < 0) {
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
    if (store_db_prepare(&db, &st, sql, &err) < 0)
        abort();
    long long n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
    sqlite3_finalize(st);
    return n;
}

static void exec(const char *sql)
{
    struct pm_err err;
    if (store_db_exec(&db, sql, &err) < 0) {
        fprintf(stderr, "%s\n", err.msg);
        abort();
    }
}

/* What the database holds of the run before the record is read. */
enum prior { NONE, RUNNING, ABORTED, FINISHED };

static void set_up(enum prior prior)
{
    exec("DELETE FROM run; DELETE FROM machine");
    if (prior == NONE)
        return;
    exec("INSERT INTO machine(hostname, kernel, proc_version, cmdline, cpu_model, cpus, mem_total_kb, page_size)"
         " VALUES ('h', 'k', 'v', 'c', 'm', 1, 1, 4096)");
    exec(prior == RUNNING    ? "INSERT INTO run(uuid, machine_id, label, workload, params, started_ns, interval_ns, "
                               "status) SELECT '" UUID "', id, 'before', 'record', '', 1, 1, 'running' FROM machine"
         : prior == ABORTED  ? "INSERT INTO run(uuid, machine_id, label, workload, params, started_ns, interval_ns, "
                               "status) SELECT '" UUID "', id, 'before', 'record', '', 1, 1, 'aborted' FROM machine"
                             : "INSERT INTO run(uuid, machine_id, label, workload, params, started_ns, ended_ns, "
                               "interval_ns, status) SELECT '" UUID "', id, 'before', 'record', '', 1, 2, 1, 'ok' FROM machine");
}

static void check_said(const char *said, size_t len)
{
    for (size_t i = 0; i < len; i++)
        FUZZ_ASSERT((unsigned char)said[i] >= 0x20 || said[i] == '\n', "control byte %#x said: %s",
                    (unsigned char)said[i], said);
}

static void check_stored(void)
{
    FUZZ_ASSERT(count("SELECT count(*) FROM run WHERE uuid = '" UUID "' AND ended_ns IS NOT NULL"
                      " AND status IN ('ok', 'failed', 'oom', 'aborted')") == 1,
                "the stored run has another UUID, no end or an unfinished status");
    FUZZ_ASSERT(count("SELECT count(*) FROM run WHERE length(label) BETWEEN 1 AND 255 AND substr(label, 1, 1) != '-'")
                    == 1, "a label the --label rule refuses was stored");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    enum prior prior = (enum prior)(size % 4);
    set_up(prior);
    if (mkdir(kept, 0700) < 0 && errno != EEXIST)
        abort();
    FILE *f = fopen(rec_path, "w");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0 || chmod(rec_path, 0600) < 0)
        abort();
    char *said = NULL;
    size_t said_len = 0;
    FILE *say = open_memstream(&said, &said_len);
    if (!say)
        abort();
    int stored = unstored_store_all(&db, say);
    fclose(say);
    check_said(said, said_len);
    free(said);
    bool left = access(rec_path, F_OK) == 0;
    long long runs = count("SELECT count(*) FROM run");
    FUZZ_ASSERT(stored == 0 || stored == 1, "stored %d records of one", stored);
    FUZZ_ASSERT(runs == (prior == NONE ? stored : 1), "%lld runs after storing %d", runs, stored);
    if (prior == FINISHED) {
        FUZZ_ASSERT(stored == 0, "a finished run was stored again");
        FUZZ_ASSERT(count("SELECT count(*) FROM run WHERE label = 'before' AND status = 'ok' AND ended_ns = 2") == 1 &&
                        count("SELECT count(*) FROM metric") == 0 && count("SELECT count(*) FROM run_meta") == 0,
                    "a finished run was changed");
    } else if (stored) {
        FUZZ_ASSERT(!left, "stored, and the file stays");
        check_stored();
    } else {
        FUZZ_ASSERT(left, "not stored, and the file is gone");
        /* Whole or not at all: nothing of the record reached any table. */
        FUZZ_ASSERT(count("SELECT (SELECT count(*) FROM metric) + (SELECT count(*) FROM run_meta) +"
                          " (SELECT count(*) FROM run_source) + (SELECT count(*) FROM latency_hist) +"
                          " (SELECT count(*) FROM profile)") == 0 &&
                        count("SELECT count(*) FROM run WHERE ended_ns IS NOT NULL") == 0 &&
                        count("SELECT count(*) FROM machine") == (prior == NONE ? 0 : 1),
                    "a record not stored left rows behind");
    }
    unlink(rec_path);
    return 0;
}
