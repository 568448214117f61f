#ifndef PM_SUITES_H
#define PM_SUITES_H
/* Suites in results.db: the file as it was run, its cells and its planned
 * runs in execution order (suite_run.seq), each linked to its run once
 * started. What is done, running, failed or left is read from the runs. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "store/db.h"

struct suite_rec {
    int64_t id;
    char uuid[40];
    char name[128];
    char path[1024];
    char digest[24];
    char *text;                 /* the suite as parsed, canonical; owned */
    int64_t created_ns;
    uint64_t seed;
    char state[16];             /* running, complete */
};

struct suite_slot {
    int64_t seq;
    int round, cell;
    int64_t run_id;             /* 0: not started */
    char status[16];            /* the run's, "" when not started */
    bool has_value;
    double value;               /* the cell's headline metric, when stored: the run's own where it names
                                 * one (run_meta "headline": a record's figures) */
    double elapsed_s;           /* the run's wall time, when ended */
    bool own_headline;          /* the run named its headline itself */
    char unit[16];              /* the headline's unit, when stored */
};

struct suite_cell_rec {
    int idx;
    char label[256], workload[64], headline[96];
    char axes[1024];            /* JSON object: axis -> value */
};

void store_suite_rec_free(struct suite_rec *s);
/* The cells of a suite, by index; *v allocated. */
int suites_cells(struct pm_db *db, int64_t suite_id, struct suite_cell_rec **v, size_t *n, struct pm_err *err);
/* The newest suite's id, 0 when there is none. */
int suites_latest_id(struct pm_db *db, int64_t *id, struct pm_err *err);
/* The newest suite called name (1), none (0), or -1 with err. */
int suites_latest(struct pm_db *db, const char *name, struct suite_rec *out, struct pm_err *err);
/* Suite id (1), none (0), or -1. */
int suites_get(struct pm_db *db, int64_t id, struct suite_rec *out, struct pm_err *err);
/* Insert s (uuid made here); sets s->id. */
int suites_create(struct pm_db *db, struct suite_rec *s, struct pm_err *err);
/* A changed file taken over by an unfinished suite (suite run --continue). */
int suites_update_file(struct pm_db *db, int64_t id, const char *digest, const char *text, struct pm_err *err);
int suites_set_state(struct pm_db *db, int64_t id, const char *state, struct pm_err *err);
/* Add or replace cell idx. */
int suites_put_cell(struct pm_db *db, int64_t suite_id, int idx, const char *label, const char *workload,
                    const char *headline, const char *axes_json, struct pm_err *err);
int suites_add_slot(struct pm_db *db, int64_t suite_id, int64_t seq, int round, int cell, struct pm_err *err);
int suites_link_run(struct pm_db *db, int64_t suite_id, int64_t seq, int64_t run_id, struct pm_err *err);
/* Runs a guest ran for this suite, chosen from its database
 * (store/guest_runs.h) and merged: each becomes the suite's next slot, in
 * the order given, with the cell and round given; a run that is not in
 * the database (by its UUID exactly) or is linked already is passed over.
 * *n: how many were adopted. */
struct suite_adoption {
    const char *uuid;
    int round, cell;
};
int suites_adopt_runs(struct pm_db *db, int64_t suite_id, const struct suite_adoption *runs, size_t nruns,
                      int *n, struct pm_err *err);
/* Every planned run, by seq; *v is allocated (free it). */
int suites_slots(struct pm_db *db, int64_t suite_id, struct suite_slot **v, size_t *n, struct pm_err *err);
/* Each suite, newest last: fn(arg, rec, cells, planned, finished). */
int suites_each(struct pm_db *db, void (*fn)(void *arg, const struct suite_rec *s, int cells, int planned, int finished),
                void *arg, struct pm_err *err);

/* Mean wall time of earlier ok runs with this workload, label and
 * parameters (*n of them; 0: none, *secs 0). */
int suites_estimate(struct pm_db *db, const char *workload, const char *label, const char *params, double *secs,
                    int *n, struct pm_err *err);
/* Those runs' values of metric (those that stored it), oldest first; *v
 * allocated (free it). */
int suites_earlier_values(struct pm_db *db, const char *workload, const char *label, const char *params,
                          const char *metric, double **v, size_t *n, struct pm_err *err);

#endif
