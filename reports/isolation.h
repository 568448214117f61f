#ifndef PM_ISOLATION_H
#define PM_ISOLATION_H
/* What a workload keeps beside a sibling hog (resctl-bench's isolation
 * factor): for each compared cell whose runs ran with a sibling (run meta
 * "sibling"), its headline and its workload's other compared figures as a
 * share of the same cell without the hog, oriented so that 100 % kept
 * everything (rates: with / without; latencies and times: without /
 * with), each with the 95 % interval of that ratio of means that
 * Welch's test inverts (ratio_ci.h: its coverage is measured); the
 * hog's own progress beside it; and where a protection axis (mem-low,
 * mem-min) sets cells apart, the hog's progress against the same cell
 * unprotected, so protection that starves the hog shows.
 *
 * The cell without the hog is found among the same comparison's cells
 * (a suite's group: the same workload, part and axes): the one whose axis
 * values are the hog cell's but for sibling, and whose runs ran with none.
 * Outside suites a label has no axes: its comparison's baseline is its
 * cell without the hog when that ran with none. A cell without one is
 * listed with the reason, never paired with another. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "reports/compare.h"
#include "stats/ratio_ci.h"
#include "store/db.h"

/* The headline and its compare_also figures at the most. */
#define ISO_MAX_SHARES 4

struct iso_share {
    char metric[96], title[48], unit[16], direction[8];
    size_t n_with, n_without;    /* runs with a value, beside the hog and without it */
    double mean_with, mean_without;
    struct ratio_ci ci;          /* ratio: the share (1 is all kept, NAN: none); valid false: no interval */
    bool oriented;               /* false: the metric has no better direction, no share */
};

struct iso_row {
    char workload[64], group[128];
    char cell[256], cell_shown[256];   /* the cell beside the hog, as its comparison names and shows it */
    char spec[512];                    /* the sibling as the runs stored it ("usemem --size 300M") */
    bool paired;
    char base[256], base_shown[256];   /* its cell without the hog, when paired */
    char why[512];                     /* not paired: why, one line */
    struct iso_share shares[ISO_MAX_SHARES];
    size_t nshares;
    /* The hog's progress during the measured runs: passes per second and
     * its own workload's headline (the mean over the passes it finished). */
    size_t hog_n;
    double hog_passes_per_s;           /* NaN: none stored */
    char hog_metric[112], hog_title[48], hog_unit[16];
    double hog_headline;               /* NaN: none stored */
    /* A protected cell's hog against the same cell unprotected
     * (passes per second, higher is better). */
    bool protected_cell, has_unprotected;
    char unprotected[256];             /* that cell's label, as shown */
    struct ratio_ci hog_kept;
};

struct isolation {
    struct iso_row *rows;
    size_t n;
};

/* The isolation rows of comparisons cs (built, their labels' axis values
 * in config when they are a suite's: compare_grid), in their order. The
 * values are the comparisons' own runs (outliers left out when they
 * were); a foreign baseline (--baseline-db) is never a cell without the
 * hog. -1 with err. */
int isolation_build(struct pm_db *db, struct comparison *const *cs, size_t n, struct isolation *out,
                    struct pm_err *err);
void isolation_free(struct isolation *iso);

#endif
