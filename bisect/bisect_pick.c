#include "bisect/bisect_pick.h"
#include <string.h>

/* The range still in question from the stored steps: lo the last good
 * index (-1: the good kernel), hi the first bad (the bad kernel's
 * index: the last), skipped ones marked; *pending a step begun but not
 * decided (-1: none). */
static void narrow(const struct bisect_step_rec *v, size_t n, int *lo, int *hi, bool *skipped, int *pending)
{
    *pending = -1;
    for (size_t i = 0; i < n; i++) {
        int k = v[i].candidate;
        if (strcmp(v[i].role, "step") != 0 || k < 0 || k >= *hi + 1)
            continue;
        if (strcmp(v[i].verdict, "good") == 0 && k > *lo)
            *lo = k;
        else if (strcmp(v[i].verdict, "bad") == 0 && k < *hi)
            *hi = k;
        else if (strcmp(v[i].verdict, "skip") == 0 || strcmp(v[i].verdict, "cannot-tell") == 0)
            skipped[k] = true;
        else if (!v[i].verdict[0])
            *pending = k;
    }
}

/* The next candidate: nearest the middle of (lo, hi), not skipped; -1
 * when none is left. */
static int pick(int lo, int hi, const bool *skipped)
{
    int mid = lo + (hi - lo) / 2;
    for (int d = 0; d < hi - lo; d++)
        for (int s = 0; s < 2; s++) {
            int k = s ? mid + d : mid - d;
            if (k > lo && k < hi && !skipped[k])
                return k;
        }
    return -1;
}

void bisect_list_next(const struct bisect_step_rec *v, size_t nv, size_t ncands, bool *skipped,
                      struct bisect_range *r)
{
    int pending;
    r->lo = -1;
    r->hi = (int)ncands - 1;
    memset(skipped, 0, ncands * sizeof *skipped);
    narrow(v, nv, &r->lo, &r->hi, skipped, &pending);
    r->next = pending > r->lo && pending < r->hi && !skipped[pending] ? pending : pick(r->lo, r->hi, skipped);
}
