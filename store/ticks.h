#ifndef PM_STORE_TICKS_H
#define PM_STORE_TICKS_H
/* The run's samples in results.db: one row per tick holding what changed
 * since the previous tick (store/tickcodec.h), the series named once per
 * run in tick_series (the `sample` view gives (run, seq, name, value) back
 * for every tick). The sampler is handed this as its tick writer, so it
 * knows no SQL. It has a connection of its own: the sampler thread writes
 * while the run's connection is used by the main thread.
 *
 * Ticks are gathered in memory and written together, once a second of
 * them has gathered (every tick at intervals of 1 s and more), each batch
 * in one short transaction: the write lock is held for the few ms the
 * inserts take, never across the wait for the next tick, so the run's own
 * connection and other processes (a merge, a push) always find the
 * database free within a moment. While another writer holds the database
 * the batch waits in memory and is tried again at the next tick: the
 * sampler never waits for the database. The last batch (flush, close)
 * waits for it up to PM_DB_RESULT_WAIT_MS. A crash of pressmark loses at
 * most the last second of samples (and what waited); a write that fails
 * (a full disk) loses the ticks not yet written. */
#include <sqlite3.h>
#include "lib/series.h"
#include "store/db.h"
#include "store/tickcodec.h"

#define TICK_COMMIT_NS 1000000000ull
/* Ticks waiting beyond this many bytes are written at once, waiting for
 * the database: at 10 ms a run's ticks take some 20 KB/s, so this is
 * reached only when another writer holds the database for an hour. */
#define TICK_QUEUE_MAX (64u << 20)

/* A tick encoded and waiting to be written, its bytes in the queue. */
struct tick_pending {
    uint64_t seq, t_ns;
    size_t off, len;
};
/* A series first seen in a waiting tick: its tick_series row. */
struct tick_new_series {
    size_t idx;
    char *name;
    bool real;
    uint64_t since;
};

struct tick_store {
    struct tick_writer base;
    struct pm_db db;
    sqlite3_stmt *ins_tick, *ins_series, *begin, *commit;
    int64_t run_id;
    struct tick_encoder enc;
    struct tick_pending *ticks;       /* waiting to be written, in order */
    size_t nticks, capticks;
    uint8_t *bytes;                   /* their encoded values */
    size_t nbytes, capbytes;
    struct tick_new_series *series;   /* written before the waiting ticks */
    size_t nseries, capseries;
    uint64_t batch_start_ns;          /* t_ns of the first waiting tick */
    uint64_t committed;               /* ticks written */
    uint64_t deferred;                /* batches put off: another writer held the database */
    bool waiting;                     /* the batch now waiting was put off */
    bool full;                        /* a write failed for a full filesystem */
};

int tick_store_open(struct tick_store *ts, const char *db_path, int64_t run_id, struct pm_err *err);
/* Writes what waits (waiting for the database if need be), then closes. */
void tick_store_close(struct tick_store *ts);

/* Reading a run's ticks back: every series' value at every tick. */
struct tick_reader {
    sqlite3_stmt *st;
    size_t n;                 /* series in the run */
    char **names;             /* by position */
    bool *real;
    int64_t *since;           /* the first tick a series had a value in */
    int64_t *acc;             /* fixed-point values as of the current tick */
    int64_t seq, t_ns;        /* the current tick */
};

int tick_reader_open(struct tick_reader *r, struct pm_db *db, int64_t run_id, struct pm_err *err);
/* 1 with the next tick's values in place, 0 after the last, -1 on error. */
int tick_reader_next(struct tick_reader *r, struct pm_err *err);
/* False where series i had no value yet at the current tick. */
bool tick_reader_value(const struct tick_reader *r, size_t i, double *v);
/* The position of the series called name, or -1. */
int tick_reader_find(const struct tick_reader *r, const char *name);
void tick_reader_close(struct tick_reader *r);

#endif
