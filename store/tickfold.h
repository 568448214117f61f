#ifndef PM_STORE_TICKFOLD_H
#define PM_STORE_TICKFOLD_H
/* Gathering ticks into blocks (store/tickblock.h) and writing a finished
 * block: a tick_block row and one tick_piece row per series. The tick
 * writer (store/ticks.c) and the migration of older ticks
 * (tick_migrate.c) both fold through this, so a block is cut and encoded
 * the same way whichever wrote it.
 *
 * A block ends at TICK_BLOCK_MAX ticks, or before the tick that would make
 * some series' dense text pass TICK_PIECE_MAX. A series that first had a
 * value inside a block (tick_series.since) starts its piece there.
 *
 * A series that has held one value at every tick so far (some two thirds
 * of a run's: MemTotal, counters that stay 0) has no pieces: its value is
 * tick_series.const_value, set at the first block it is in. The tick it
 * first holds another, the blocks it was steady in get constant pieces and
 * const_value goes back to NULL, in the next transaction (so the view and
 * the reader see the right value at every commit, also for open ticks). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "store/sql.h"
#include "store/tickblock.h"

/* A finished block, encoded: its pieces in series order, the series
 * steady through it that are newly so (const_value to set), and those
 * whose first value is in it (since to set: a series is named at a tick,
 * and may have its first value at a later one). */
struct tick_fold {
    int64_t blk;              /* its first tick's seq */
    size_t n;                 /* its ticks */
    struct tick_piece *pieces;
    size_t *idx;              /* the series of each piece */
    size_t *off;              /* the block tick each piece starts at */
    size_t npieces, cap;
    size_t *steady;           /* series whose const_value to set */
    int64_t *steady_value;
    size_t nsteady;
    size_t *fresh;            /* series whose first value is in the block */
    int64_t *fresh_since;     /*   the tick of it */
    size_t nfresh;
    size_t bytes;             /* text held, for the writer's queue bound */
};

struct tick_block_span {
    int64_t blk;
    size_t n;
};

struct tick_blocker {
    size_t nseries, capseries;
    int64_t *vals;            /* [series * TICK_BLOCK_MAX + k]: value at the block's k-th tick */
    int64_t *first;           /* the block tick each series' values start at, -1: none yet */
    int64_t *lo, *hi;         /* each series' smallest and largest value in the block */
    int64_t *last;            /* each series' latest value, kept until a tick changes it */
    int64_t *once;            /* each series' first value in the run */
    bool *varied;             /* has it held another since */
    bool *marked;             /* its const_value is set (written or in a fold waiting) */
    size_t *first_blk;        /* the finished block it first had a value in */
    int64_t *first_off;       /*   and the tick there */
    size_t *steady_until;     /* finished blocks before this one have no piece for it */
    struct tick_block_span *blocks;   /* the finished blocks, in order */
    size_t nblocks, capblocks;
    size_t *unsteady;         /* series that stopped being steady, to write */
    size_t nunsteady, capunsteady;
    int64_t blk;              /* the open block's first seq */
    size_t n;                 /* ticks in the open block */
    int64_t *scratch;         /* one series' values, for encoding */
};

void tick_blocker_init(struct tick_blocker *b);
void tick_blocker_free(struct tick_blocker *b);
/* Add tick seq with the values acc[i] of the series that have one
 * (have[i]). When the tick cannot join the open block, the block is
 * encoded into *done first (done->n > 0 then, and the caller writes it);
 * otherwise done->n is 0. -1 only when out of memory. */
int tick_blocker_add(struct tick_blocker *b, int64_t seq, const int64_t *acc, const bool *have, size_t nseries,
                     struct tick_fold *done);
/* Encode the open block (if it has ticks) into *done and start afresh. */
int tick_blocker_finish(struct tick_blocker *b, struct tick_fold *done);

void tick_fold_init(struct tick_fold *f);
void tick_fold_free(struct tick_fold *f);
/* Drop the pieces but keep their memory for the next block. */
void tick_fold_clear(struct tick_fold *f);

/* Statements that write folds, prepared once per connection. */
struct tick_fold_sql {
    sqlite3_stmt *ins_block, *ins_piece, *del_open, *set_const, *set_since;
};
int tick_fold_sql_prepare(struct pm_db *db, struct tick_fold_sql *s, struct pm_err *err);
void tick_fold_sql_finalize(struct tick_fold_sql *s);
/* Write f for run_id and drop the run's open ticks it now holds; inside the
 * caller's transaction. */
int tick_fold_write(struct pm_db *db, struct tick_fold_sql *s, int64_t run_id, const struct tick_fold *f,
                    struct pm_err *err);
/* Write what the series that stopped being steady need (constant pieces
 * in the blocks they were steady in, const_value NULL), inside the
 * caller's transaction, after the folds waiting with it; the list empties
 * once the caller's transaction commits (tick_blocker_unsteady_done). */
int tick_fold_unsteady(struct pm_db *db, struct tick_fold_sql *s, int64_t run_id, const struct tick_blocker *b,
                       struct pm_err *err);
void tick_blocker_unsteady_done(struct tick_blocker *b);

#endif
