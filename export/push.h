#ifndef PM_PUSH_H
#define PM_PUSH_H
/* Runs out to a time-series database in InfluxDB line protocol, which
 * InfluxDB 1.x (/write?db=), 2.x (/api/v2/write?org=&bucket=, token) and
 * VictoriaMetrics (/write) all take. A run's summary is one point
 * (measurement pressmark_WORKLOAD; tags host, label, kernel, workload,
 * run, status; fields its metrics; time its start); with samples, every
 * tick too. Batched, gzip-compressed, retried with backoff on 5xx and
 * connection errors; what was delivered is remembered per URL, so the
 * next push sends what is still queued and nothing twice. */
#include <stdbool.h>
#include <stdint.h>
#include "store/db.h"

struct push_request {
    const char *url;
    bool samples;
    const char *token;           /* never logged, never stored */
    size_t batch_lines;
    int64_t only_run;            /* 0: every queued run */
};

/* Returns 0 and the counts, or -1 with err (what was delivered stays delivered). */
int push_runs(struct pm_db *db, const struct push_request *rq, int *runs, size_t *lines, struct pm_err *err);
/* The token from PRESSMARK_PUSH_TOKEN or a file ("" when neither). A token
 * file must be the user's and not readable by others. */
int push_token(const char *token_file, char *buf, size_t len, struct pm_err *err);
/* May a token go to url? Over https, or plain http to this machine
 * (loopback), or anywhere with allow_plain_http; -1 with err otherwise. */
int push_token_allowed(const char *url, bool allow_plain_http, struct pm_err *err);

#endif
