#ifndef PM_COLLECTOR_H
#define PM_COLLECTOR_H
/* A collector reads one source each tick and hands its values to a sink:
 * open once, sample every tick, close once. Collectors know nothing of the
 * workload or the database; the sampler owns the clock and the transaction. */
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "collectors/proc_parse.h"
#include "lib/series.h"
#include "lib/err.h"

struct collector;
struct series;

/* A put position's series, with its name's hash: checking a name against
 * its position's last series compares two numbers in one array, where
 * comparing the names would chase a pointer per value (a cache miss each
 * at 1 s ticks: a tenth of the sampler's time). */
struct slot_entry {
    struct series *se;
    uint64_t hash;
};

struct collector_ops {
    /* 0 when ready; -1 with err when the source is absent on this kernel. */
    int (*open)(struct collector *c, struct pm_err *err);
    /* 0 when values were put; -1 with err when this tick's read failed. */
    int (*sample)(struct collector *c, struct sink *sink, struct pm_err *err);
    void (*close)(struct collector *c);
};

struct collector {
    const struct collector_ops *ops;
    const char *source;       /* stat, vmstat, meminfo, psi, memcg, heartbeat */
    char path[PATH_MAX];      /* for file collectors: what is read */
    char prefix[96];          /* metric name prefix: "vmstat", "psi.memory" */
    proc_parse_fn parse;
    int fd;
    char *buf;
    size_t bufcap;
    void *priv;               /* collector-specific state (the heartbeat) */
    struct slot_entry *slot_cache;  /* the series each put position resolved to last tick */
    size_t slot_cap;
    bool open_ok;
    uint64_t every_ns;        /* sampled at most this often (0: every tick); the first and last tick always */
    uint64_t last_ns;         /* when it was last sampled */
    uint64_t ticks;           /* ticks this collector delivered values in */
    uint64_t failures;
    char note[256];           /* why it is absent or failing, for the run's metadata */
};

/* A collector that re-reads one file with pread each tick: no reopen, no fork. */
extern const struct collector_ops procfile_collector_ops;
void procfile_collector_init(struct collector *c, const char *source, const char *path,
                             const char *prefix, proc_parse_fn parse);

/* Read the whole of fd from offset 0 into *buf, growing it (and *cap) as
 * needed; path names the file in err. */
ssize_t pread_whole(int fd, char **buf, size_t *cap, const char *path, struct pm_err *err);
/* The same for a collector's own fd and buffer. */
ssize_t procfile_read(struct collector *c, struct pm_err *err);

#endif
