#ifndef PM_STORE_TICKS_H
#define PM_STORE_TICKS_H
/* The run's samples in results.db (schema 8): each tick a row of `tick`
 * (seq, t_ns); the values in blocks of ticks, one row of tick_piece per
 * series and block (store/tickblock.h), the series named once per run in
 * tick_series. The block still being gathered is kept as one row of
 * tick_open per tick (every series' value, a JSON array), replaced by the
 * block's pieces once it is full and at the run's end: the `sample` view
 * reads both. The sampler is handed this as its tick writer, so it knows
 * no SQL. It has a connection of its own: the sampler thread writes while
 * the run's connection is used by the main thread.
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
 * (a full disk) loses the ticks not yet written, and ends the store. */
#include <sqlite3.h>
#include "lib/series.h"
#include "store/db.h"
#include "store/tickfold.h"

#define TICK_COMMIT_NS 1000000000ull
/* Bytes waiting beyond this are written at once, waiting for the
 * database: at 10 ms a run's open ticks take some 300 KB/s, so this is
 * reached only when another writer holds the database for minutes. */
#define TICK_QUEUE_MAX (64u << 20)

/* A tick waiting to be written, its open row's JSON in the queue. */
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
    sqlite3_stmt *ins_tick, *ins_open, *ins_series, *begin, *commit;
    struct tick_fold_sql fold_sql;
    int64_t run_id;
    struct tick_pending *ticks;       /* waiting to be written, in order */
    size_t nticks, capticks;
    char *bytes;                      /* their open rows' JSON */
    size_t nbytes, capbytes;
    struct tick_new_series *series;   /* written before the waiting ticks */
    size_t nseries, capseries;
    struct tick_blocker blocker;      /* the block being gathered */
    struct tick_fold *folds;          /* finished blocks waiting to be written */
    size_t nfolds, capfolds, initfolds;
    struct tick_fold spare;           /* where the next finished block is encoded */
    size_t fold_bytes;                /* their text */
    int64_t *acc;                     /* this tick's values (fixed-point), by series */
    bool *have, *real;
    size_t capacc, known;             /* known: series seen so far */
    uint64_t batch_start_ns;          /* t_ns of the first waiting tick */
    uint64_t committed;               /* ticks written */
    uint64_t deferred;                /* batches put off: another writer held the database */
    bool waiting;                     /* the batch now waiting was put off */
    bool full;                        /* a write failed for a full filesystem */
    bool failed;                      /* a write failed: nothing more is written */
};

int tick_store_open(struct tick_store *ts, const char *db_path, int64_t run_id, struct pm_err *err);
/* Writes what waits (waiting for the database if need be), then closes. */
void tick_store_close(struct tick_store *ts);

/* Reading a run's ticks back, tick by tick: every series' value at every
 * tick, a block's pieces at a time (memory: the run's series times
 * TICK_BLOCK_MAX, whatever the run's length). A database from elsewhere
 * is checked as it is read: what does not hold together (a piece past the
 * series, a block longer than pressmark writes, a tick in no block, text
 * that is not what pressmark writes) ends the reading with an error. */
struct tick_reader {
    struct pm_db *db;
    int64_t run_id;
    sqlite3_stmt *st, *blocks, *pieces;
    size_t n;                 /* series in the run */
    char **names;             /* by position */
    bool *real;
    int64_t *since;           /* the first tick a series had a value in */
    int64_t *konst;           /* the value it held all run long, where steady */
    bool *steady;
    int64_t *acc;             /* fixed-point values as of the current tick */
    bool *have;               /* a value at the current tick */
    int64_t *mat;             /* the loaded block: [series * TICK_BLOCK_MAX + k] */
    bool *inblk;              /* the series has a piece in the loaded block */
    bool *want, some;         /* series to read, when tick_reader_want named some */
    int64_t *poff;            /*   starting at that tick of it */
    int64_t blk, bn, next_blk;/* the loaded block (bn 0: none), where the next may start */
    bool blocks_done;
    int64_t seq, t_ns;        /* the current tick */
};

int tick_reader_open(struct tick_reader *r, struct pm_db *db, int64_t run_id, struct pm_err *err);
/* 1 with the next tick's values in place, 0 after the last, -1 on error. */
int tick_reader_next(struct tick_reader *r, struct pm_err *err);
/* Read only series i from now on, among those named so (before the first
 * tick_reader_next): a report that draws 20 of a run's 400 series decodes
 * those 20. Every other series then has no value. */
void tick_reader_want(struct tick_reader *r, size_t i);
/* False where series i had no value yet at the current tick. */
bool tick_reader_value(const struct tick_reader *r, size_t i, double *v);
/* The same, written exactly as stored: an integer's every digit (a double
 * holds only 53 bits of a counter), a real's decimals without trailing
 * zeros ("1.68", "0"). buf holds 32 bytes. */
bool tick_reader_text(const struct tick_reader *r, size_t i, char *buf);
/* The position of the series called name, or -1. */
int tick_reader_find(const struct tick_reader *r, const char *name);
void tick_reader_close(struct tick_reader *r);

#endif
