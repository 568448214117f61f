#ifndef PM_STALLTRACE_H
#define PM_STALLTRACE_H
/* Stall latencies from a trace instance's binary buffers: a thread drains
 * per_cpu/cpuN/trace_pipe_raw, decodes the ring-buffer pages with the
 * layout the kernel publishes (events/header_page, each event's format
 * file: its ID and where common_type and common_pid lie), and pairs each
 * task's begin with its end into a latency histogram per kind. No text is
 * formatted by the kernel or parsed here. Events the buffers lost (their
 * stats count overruns and drops; a page says when events were missed
 * before it) are counted, never hidden. Setting the instance up is
 * pressure/tracefs's business; this needs only its directory. */
#include <stdbool.h>
#include <stdint.h>
#include "lib/periodic.h"
#include "lib/err.h"
#include "lib/loghist.h"

enum stall_kind { STALL_DIRECT, STALL_MEMCG, STALL_COMPACTION, STALL_KINDS };
extern const char *const stall_kind_names[STALL_KINDS];   /* direct, memcg, compaction */

/* Where a ring-buffer page keeps its time stamp, commit word and data. */
struct rb_layout {
    size_t ts_off, commit_off, commit_size, data_off, data_size;
};

/* What the decoder needs of the traced events. */
struct stall_events {
    int id[STALL_KINDS][2];          /* [kind][0 begin, 1 end] */
    size_t type_off, type_size, pid_off;
};

struct stall_pending;                /* begins waiting for their end, by task */

struct stall_result {
    struct loghist hist[STALL_KINDS];     /* ns */
    uint64_t unpaired[STALL_KINDS];       /* an end without its begin */
    uint64_t nested[STALL_KINDS];         /* a begin inside a stall of the same kind (counted in the outer) */
    uint64_t events, pages;
    uint64_t missed_pages;                /* pages that said events were lost before them */
    uint64_t lost;                        /* events the buffers lost (stats and pages) */
};

struct stalltrace {
    char dir[4096];
    struct rb_layout layout;
    struct stall_events ev;
    int *fds;
    int ncpu;
    long page;
    uint8_t *buf;
    struct stall_pending *pending;
    struct stall_result res;
    struct periodic thread;                /* drains the buffers every 20 ms */
    struct pm_err err;
    bool failed;
};

/* Parse header_page's text into a layout; -1 when a field is missing. */
int rb_layout_parse(const char *text, struct rb_layout *l);
/* From an event's format file: its ID and the common field offsets. */
int stall_format_parse(const char *text, int *id, size_t *type_off, size_t *type_size, size_t *pid_off);

/* Decode one page read from trace_pipe_raw (len bytes): its events wait
 * in pending for stall_pair_upto. -1 when the page is not a ring-buffer
 * page. */
int stall_decode_page(const struct rb_layout *l, const struct stall_events *ev, struct stall_pending **pending,
                      const uint8_t *page, size_t len, struct stall_result *res);
/* Pair the waiting events stamped up to upto, in time order across CPUs,
 * into res's histograms. */
int stall_pair_upto(struct stall_pending **pending, uint64_t upto, struct stall_result *res);
void stall_pending_free(struct stall_pending **pending);

/* Open the instance's buffers and start draining them. */
int stalltrace_start(struct stalltrace *st, const char *instance_dir, struct pm_err *err);
/* After tracing was stopped: drain what is left, read the lost counts,
 * join the thread. The result stays in st->res until stalltrace_free. */
int stalltrace_stop(struct stalltrace *st, struct pm_err *err);
void stalltrace_free(struct stalltrace *st);

#endif
