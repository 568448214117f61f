#ifndef PM_KVRUN_H
#define PM_KVRUN_H
/* One run of a server workload (redis, memcached), the same life for
 * both: a private server inside the cap; a load phase that fills a data
 * set sized against the cap (pressmark's own loader, outside the cap); a
 * measured phase by the server's own benchmark tool or pressmark's own
 * client (outside the cap too);
 * the server's own figures read over its socket; the server stopped and
 * its directories removed. The sample series "workload.phase" says which
 * phase each tick saw: 1 load, 2 measured, 0 before and after. */
#include <limits.h>
#include <stdint.h>
#include "lib/opt.h"
#include "workloads/kvclient.h"
#include "workloads/kvget.h"
#include "workloads/kvserver.h"
#include "workloads/workload.h"

/* The options both workloads have, first in their state. */
struct kv_common {
    char dataset[32];            /* --dataset as given: SIZE or N% of the cap */
    uint64_t value_size, requests, client_timeout_ns;
    unsigned clients, port;
    uint64_t dataset_bytes, keys;  /* resolved by kv_check */
};

/* Where the private instance listens, once started. */
struct kv_where {
    char sock[PATH_MAX];         /* its Unix socket; "" for TCP */
    unsigned port;               /* 127.0.0.1's port; 0 for the socket */
};

/* Growing argv with its words kept in one buffer (no allocation). */
struct kv_argv {
    char *v[64];
    int n;
    char buf[8192];
    size_t used;
};
/* Add a word (printf-style); a list too long is said by kv_argv_full. */
void kv_arg(struct kv_argv *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool kv_argv_full(const struct kv_argv *a);

/* What differs between the two workloads. */
struct kv_workload {
    const char *name;            /* "redis": pressmark-redis.XXXXXX, the meta keys */
    enum kv_proto proto;
    const char *const *users;    /* who the server may run as, first found first */
    /* The measured phase's tool, its figures parser's name too; NULL:
     * pressmark's own client, "pressmark __kv-get" (kvget.h), whose
     * figures get_figures stores and its histogram latency names. */
    const char *tool;
    /* The server's argv for the instance in srv (the word the journal
     * matches its command line with into word), where is filled here or
     * by ready's probe. */
    int (*server_argv)(const void *state, const struct kv_server *srv, struct kv_where *where, struct kv_argv *a,
                       char *word, size_t wlen, struct pm_err *err);
    /* Connect to the server once it is up: where->port may be learnt here. */
    int (*probe)(const struct kv_server *srv, struct kv_where *where, struct pm_err *err);
    /* The measured phase's tool against where (after "pressmark
     * __kv-get --server-pid=PID" when tool is NULL: its settings,
     * kvget.h). */
    void (*client_argv)(const void *state, const struct kv_where *where, struct kv_argv *a);
    void (*get_figures)(const void *state, struct run_ctx *rc, const struct kv_get_report *rep);
    const struct metric_def *latency;
    /* The server's own figures from its statistics' text, and the load's
     * (sets, errors, seconds). */
    void (*server_figures)(const void *state, struct run_ctx *rc, const char *stats);
    void (*load_figures)(struct run_ctx *rc, uint64_t sets, uint64_t errors, double secs);
};

/* --dataset, --port and the programs, checked before anything is written:
 * the data set resolved against the cap (default: 150% of it, 256M without
 * one) and refused where it cannot fit (wl_check_fits). */
int kv_check(struct kv_common *c, const struct wl_limits *lim, const char *const *progs, const char *pkgs,
             struct pm_err *err);
/* One run. -1 only on harness errors; a server or tool that fails says so
 * in the run's status. */
int kv_run(const struct kv_workload *w, const void *state, const struct kv_common *c, struct run_ctx *rc,
           struct pm_err *err);

/* The helpers that fill the data set ("pressmark __kv-load") and read it
 * back ("pressmark __kv-get"). */
extern const struct wl_helper kv_helpers[];

/* The last line a program wrote in out, as printable ASCII ('?' for any
 * other byte), into tail (len bytes, cut short): what a failed run's
 * status quotes. */
void kv_last_line(const char *out, char *tail, size_t len);

#endif
