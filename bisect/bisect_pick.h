#ifndef PM_EXPERIMENT_BISECT_PICK_H
#define PM_EXPERIMENT_BISECT_PICK_H
/* A list bisection's next step from its stored steps alone: the range
 * still in question and the candidate to measure next. Pure (no
 * database, no events, nothing measured), so that the halving can be
 * walked step by step by a test as bisect_list.c walks it with boots. */
#include <stdbool.h>
#include <stddef.h>
#include "store/bisects.h"

struct bisect_range {
    int lo;      /* the last good candidate's index; -1: the good kernel */
    int hi;      /* the first bad one's; at first the bad kernel's (the last candidate) */
    int next;    /* the candidate to measure next; -1: none is left (the search ends) */
};

/* Over ncands candidates (the bad kernel the last) and the steps v[0..nv)
 * in the order they were taken: a step begun but not decided is resumed
 * first; else the candidate nearest the middle of (lo, hi), the lower
 * of two as near, that was not skipped (or judged "cannot tell").
 * skipped (ncands flags) is set to the candidates skipped. When next is
 * -1, hi - lo == 1 means hi is the first bad candidate; more means only
 * skipped candidates are left between lo and hi. */
void bisect_list_next(const struct bisect_step_rec *v, size_t nv, size_t ncands, bool *skipped,
                      struct bisect_range *r);

#endif
