/* A data set's size against the cap (dataset.h). */
#include "workloads/dataset.h"
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/units.h"

/* N% as a plain decimal: digits, at most one '.' with digits after it,
 * then '%' and nothing else. strtod alone would also take 0x10%, 0x1p3%,
 * 1e3% and " 5%", none of which is a share anyone writes. */
static int parse_share(const char *s, double *pct)
{
    static const char digits[] = "0123456789";
    size_t n = strspn(s, digits);
    if (!n)
        return -1;
    if (s[n] == '.') {
        size_t f = strspn(s + n + 1, digits);
        if (!f)
            return -1;
        n += 1 + f;
    }
    if (strcmp(s + n, "%") != 0)
        return -1;
    char *end;
    errno = 0;
    *pct = strtod(s, &end);
    return errno || end != s + n ? -1 : 0;
}

/* A size, or N% of the cap with 0 < N <= WL_DATASET_PCT_MAX (pm_parse_size
 * stops at 100%: a share of MemTotal cannot exceed it, of a cap it may). */
static int parse_dataset(const char *s, uint64_t cap, uint64_t *bytes)
{
    size_t n = strlen(s);
    if (!n || s[n - 1] != '%')
        return pm_parse_size(s, cap, bytes);
    double v;
    if (parse_share(s, &v) < 0 || !(v > 0) || v > WL_DATASET_PCT_MAX)
        return -1;
    *bytes = (uint64_t)(v / 100.0 * (double)cap);
    return 0;
}

int wl_dataset_set(void *state, const char *value, struct pm_err *err)
{
    (void)state;
    uint64_t b;
    /* Syntax only here: a percentage's bytes need the cap (wl_dataset_resolve). */
    if (parse_dataset(value, 1ull << 30, &b) < 0 || b == 0)
        return pm_errf(err, "'%s' is not a size (accepted: a byte count with K, M, G or T, e.g. 64M, or a "
                       "percentage of --mem-cap up to %d%% such as 150%%)", value, WL_DATASET_PCT_MAX);
    return 0;
}

int wl_dataset_resolve(const char *given, uint64_t cap, uint64_t *bytes, struct pm_err *err)
{
    bool pct = given[0] && given[strlen(given) - 1] == '%';
    if (pct && !cap)
        return pm_errf(err, "--dataset: '%s' is a share of the cap and there is none (accepted without --mem-cap: "
                       "a size such as %s)", given, WL_DATASET_UNCAPPED);
    char def[32];
    snprintf(def, sizeof def, "%d%%", WL_DATASET_PCT_DEFAULT);
    const char *ds = given[0] ? given : cap ? def : WL_DATASET_UNCAPPED;
    if (parse_dataset(ds, cap, bytes) < 0 || *bytes == 0)
        return pm_errf(err, "--dataset: '%s' comes to no bytes", ds);
    return 0;
}
