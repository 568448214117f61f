#ifndef PM_EXPORT_H
#define PM_EXPORT_H
/* Runs as files other programs read: CSV (pandas, R, a spreadsheet,
 * gnuplot with --wide), JSON lines, and InfluxDB line protocol exactly as
 * push sends it. Streamed: a tick is read (store/ticks.h's reader, the
 * only way to the samples), written and forgotten, so the memory an
 * export takes grows with a run's series, never with its length.
 * Everything that can make a request fail (a run that is not there, a
 * --series that matches nothing, a combination a format cannot hold) is
 * found before the first byte is written. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "store/db.h"

enum export_format { EXPORT_CSV, EXPORT_JSONL, EXPORT_LINE };
/* The words of --format, in enum export_format's order, NULL-terminated. */
extern const char *const export_format_names[];

/* What goes out (--what); several only where the format can tell them
 * apart (JSON lines, line protocol). */
enum { EXPORT_SAMPLES = 1u << 0, EXPORT_METRICS = 1u << 1, EXPORT_META = 1u << 2 };
/* "samples", "metrics", "meta" or several joined by commas into *what;
 * -1 with err saying what is accepted. */
int export_parse_what(const char *text, unsigned *what, struct pm_err *err);

struct export_request {
    enum export_format format;
    unsigned what;                      /* EXPORT_* bits; 0 means samples */
    bool wide;                          /* csv samples: a row per tick, a column per series */
    const char *const *globs;           /* --series: names kept (fnmatch); none keeps all */
    size_t nglobs;
    const int64_t *runs;                /* in the order they go out */
    size_t nruns;
};

/* Does the format hold what was asked? -1 with err naming the option
 * ("--wide: ..."); export_runs checks it too. */
int export_check(const struct export_request *rq, struct pm_err *err);
/* Write the runs to f. -1 with err: *written false when nothing was
 * written (the request was refused before the first byte), true when
 * reading or writing failed part way. */
int export_runs(struct pm_db *db, const struct export_request *rq, FILE *f, bool *written, struct pm_err *err);

#endif
