#include "collectors/stalltrace.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "lib/fileio.h"
#include "lib/timeutil.h"

const char *const stall_kind_names[STALL_KINDS] = { "direct", "memcg", "compaction" };

/* The ring buffer's event header: 5 bits of type/length, 27 of time delta
 * (kernel/trace/ring_buffer.c, published in events/header_event). */
enum { RB_PADDING = 29, RB_TIME_EXTEND = 30, RB_TIME_STAMP = 31, RB_TS_SHIFT = 27 };
#define RB_MISSED_EVENTS (1ull << 31)
#define RB_MISSED_STORED (1ull << 30)
#define RB_TS_MSB (0xf8ull << 56)

/* "\tfield: local_t commit;\toffset:8;\tsize:8;..." : offset and size of a
 * field whose declaration ends with " name;". */
static int field_of(const char *text, const char *name, size_t *off, size_t *size)
{
    char want[64];
    snprintf(want, sizeof want, " %s;", name);
    for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        const char *eol = strchr(line, '\n');
        size_t n = eol ? (size_t)(eol - line) : strlen(line);
        const char *f = strstr(line, "field:");
        const char *w = f ? strstr(f, want) : NULL;
        if (!w || (size_t)(w - line) >= n)
            continue;
        /* the name must be the declaration's last word */
        const char *o = strstr(w, "offset:"), *s = strstr(w, "size:");
        if (!o || !s || (size_t)(s - line) >= n)
            return -1;
        char *end;
        unsigned long ov = strtoul(o + 7, &end, 10);
        if (end == o + 7)
            return -1;
        unsigned long sv = strtoul(s + 5, &end, 10);
        if (end == s + 5)
            return -1;
        *off = ov;
        *size = sv;
        return 0;
    }
    return -1;
}

int rb_layout_parse(const char *text, struct rb_layout *l)
{
    size_t tsz;
    if (field_of(text, "timestamp", &l->ts_off, &tsz) < 0 || tsz != 8 ||
        field_of(text, "commit", &l->commit_off, &l->commit_size) < 0 ||
        (l->commit_size != 4 && l->commit_size != 8) || field_of(text, "data", &l->data_off, &l->data_size) < 0)
        return -1;
    return 0;
}

int stall_format_parse(const char *text, int *id, size_t *type_off, size_t *type_size, size_t *pid_off)
{
    const char *p = strstr(text, "\nID: ");
    if (!p && strncmp(text, "ID: ", 4) == 0)
        p = text - 1;
    if (!p)
        return -1;
    char *end;
    long v = strtol(p + 5, &end, 10);
    if (end == p + 5 || v <= 0 || v > 65535)
        return -1;
    *id = (int)v;
    size_t psize;
    if (field_of(text, "common_type", type_off, type_size) < 0 || (*type_size != 2 && *type_size != 4) ||
        field_of(text, "common_pid", pid_off, &psize) < 0 || psize != 4)
        return -1;
    return 0;
}

/* Begins waiting for their end: open addressing over (pid, kind); and
 * events decoded but not yet paired. Each CPU has its own buffer, and a
 * task that begins a stall on one CPU may end it on another: events are
 * paired in time order across CPUs, so they wait here until every CPU's
 * events up to their time have been read. */
struct stall_pending {
    size_t cap, n;
    struct slot { int32_t pid; int8_t kind; bool used; uint32_t depth; uint64_t ts; } *v;
    struct queued { uint64_t ts; int32_t pid; int8_t kind; bool end; } *q;
    size_t nq, capq;
};

static struct slot *pending_find(struct stall_pending *p, int32_t pid, int kind, bool add)
{
    if (!p->cap)
        return NULL;
    size_t h = ((uint32_t)pid * 2654435761u + (unsigned)kind) & (p->cap - 1);
    for (size_t i = 0; i < p->cap; i++) {
        struct slot *s = &p->v[(h + i) & (p->cap - 1)];
        if (!s->used)
            return add ? s : NULL;
        if (s->pid == pid && s->kind == kind)
            return s;
    }
    return NULL;
}

static int pending_grow(struct stall_pending **pp)
{
    struct stall_pending *p = *pp;
    if (!p) {
        if (!(p = calloc(1, sizeof *p)))
            return -1;
        *pp = p;
    }
    if (p->cap && (p->n + 1) * 2 < p->cap)
        return 0;
    size_t cap = p->cap ? p->cap * 2 : 256;
    struct slot *old = p->v;
    size_t oldcap = p->cap;
    p->v = calloc(cap, sizeof *p->v);
    if (!p->v) {
        p->v = old;
        return -1;
    }
    p->cap = cap;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].used)
            *pending_find(p, old[i].pid, old[i].kind, true) = old[i];
    free(old);
    return 0;
}

/* Removing from open addressing: re-place the cluster after the hole. */
static void pending_remove(struct stall_pending *p, struct slot *s)
{
    size_t i = (size_t)(s - p->v);
    s->used = false;
    p->n--;
    for (size_t j = (i + 1) & (p->cap - 1); p->v[j].used; j = (j + 1) & (p->cap - 1)) {
        struct slot t = p->v[j];
        p->v[j].used = false;
        *pending_find(p, t.pid, t.kind, true) = t;
    }
}

void stall_pending_free(struct stall_pending **pending)
{
    if (*pending) {
        free((*pending)->q);
        free((*pending)->v);
        free(*pending);
        *pending = NULL;
    }
}

static uint64_t get_le(const uint8_t *p, size_t n)
{
    uint64_t v = 0;
    memcpy(&v, p, n);      /* the host's order: the kernel wrote it on this machine */
    return v;
}

static int pair(struct stall_pending **pending, const struct queued *e, struct stall_result *res)
{
    int k = e->kind;
    if (!e->end) {
        if (pending_grow(pending) < 0)
            return -1;
        struct slot *s = pending_find(*pending, e->pid, k, true);
        if (s->used) {
            /* Reclaim entered again from inside reclaim (charging a page
             * while reclaiming): the task's stall is the outermost begin
             * to its end. */
            s->depth++;
            res->nested[k]++;
            return 0;
        }
        (*pending)->n++;
        *s = (struct slot){ .pid = e->pid, .kind = (int8_t)k, .used = true, .ts = e->ts };
        return 0;
    }
    struct slot *s = *pending ? pending_find(*pending, e->pid, k, false) : NULL;
    if (!s) {
        res->unpaired[k]++;     /* began before tracing did, or its begin was lost */
        return 0;
    }
    if (s->depth) {
        s->depth--;
        return 0;
    }
    uint64_t d_ns = e->ts >= s->ts ? e->ts - s->ts : 0;
    pending_remove(*pending, s);
    return loghist_record(&res->hist[k], d_ns);
}

static int by_time(const void *a, const void *b)
{
    const struct queued *x = a, *y = b;
    return x->ts < y->ts ? -1 : x->ts > y->ts;
}

int stall_pair_upto(struct stall_pending **pending, uint64_t upto, struct stall_result *res)
{
    struct stall_pending *p = *pending;
    if (!p || !p->nq)
        return 0;
    qsort(p->q, p->nq, sizeof *p->q, by_time);
    size_t i = 0;
    for (; i < p->nq && p->q[i].ts <= upto; i++) {
        struct queued e = p->q[i];
        if (pair(pending, &e, res) < 0)
            return -1;
        p = *pending;
    }
    memmove(p->q, p->q + i, (p->nq - i) * sizeof *p->q);
    p->nq -= i;
    return 0;
}

static int on_event(const struct stall_events *ev, struct stall_pending **pending, uint64_t ts,
                    const uint8_t *d, size_t len, struct stall_result *res)
{
    if (len < ev->type_off + ev->type_size || len < ev->pid_off + 4)
        return 0;
    int type = (int)get_le(d + ev->type_off, ev->type_size);
    int32_t pid = (int32_t)get_le(d + ev->pid_off, 4);
    res->events++;
    for (int k = 0; k < STALL_KINDS; k++)
        for (int end = 0; end < 2; end++) {
            if (type != ev->id[k][end])
                continue;
            if (pending_grow(pending) < 0)
                return -1;
            struct stall_pending *p = *pending;
            if (p->nq == p->capq) {
                size_t cap = p->capq ? p->capq * 2 : 1024;
                struct queued *q = realloc(p->q, cap * sizeof *q);
                if (!q)
                    return -1;
                p->q = q;
                p->capq = cap;
            }
            p->q[p->nq++] = (struct queued){ .ts = ts, .pid = pid, .kind = (int8_t)k, .end = end == 1 };
            return 0;
        }
    return 0;
}

int stall_decode_page(const struct rb_layout *l, const struct stall_events *ev, struct stall_pending **pending,
                      const uint8_t *page, size_t len, struct stall_result *res)
{
    if (len < l->data_off || len < l->commit_off + l->commit_size || len < l->ts_off + 8)
        return -1;
    uint64_t ts = get_le(page + l->ts_off, 8);
    uint64_t commit = get_le(page + l->commit_off, l->commit_size);
    size_t size = (size_t)(commit & (RB_MISSED_STORED - 1));
    if (size > len - l->data_off)
        return -1;
    res->pages++;
    if (commit & RB_MISSED_EVENTS) {
        res->missed_pages++;
        /* How many, when the kernel had room to say: a long after the data. */
        if ((commit & RB_MISSED_STORED) && size + sizeof(long) <= len - l->data_off)
            res->lost += get_le(page + l->data_off + size, sizeof(long));
        else
            res->lost++;
    }
    const uint8_t *p = page + l->data_off, *end = p + size;
    while (p + 4 <= end) {
        uint32_t h = (uint32_t)get_le(p, 4);
        unsigned type_len = h & 31, delta = h >> 5;
        switch (type_len) {
        case RB_PADDING:
            if (delta == 0)
                return 0;               /* the rest of the page is empty */
            if (p + 8 > end)
                return -1;
            p += 4 + (uint32_t)get_le(p + 4, 4);
            continue;
        case RB_TIME_EXTEND:
        case RB_TIME_STAMP: {
            if (p + 8 > end)
                return -1;
            uint64_t v = ((uint64_t)(uint32_t)get_le(p + 4, 4) << RB_TS_SHIFT) | delta;
            if (type_len == RB_TIME_EXTEND) {
                ts += v;
            } else {
                if (ts & RB_TS_MSB) {
                    uint64_t was = ts;
                    v |= ts & RB_TS_MSB;
                    if (v < was)
                        v += 1ull << 59;
                }
                ts = v;
            }
            p += 8;
            continue;
        }
        case 0: {
            if (p + 8 > end)
                return -1;
            uint32_t n = (uint32_t)get_le(p + 4, 4);
            if (n < 4 || n > (size_t)(end - p) - 4)
                return -1;
            ts += delta;
            if (on_event(ev, pending, ts, p + 8, n - 4, res) < 0)
                return -1;
            p += 4 + n;
            continue;
        }
        default: {
            size_t n = (size_t)type_len * 4;
            if (n > (size_t)(end - p) - 4)
                return -1;
            ts += delta;
            if (on_event(ev, pending, ts, p + 4, n, res) < 0)
                return -1;
            p += 4 + n;
            continue;
        }
        }
    }
    return 0;
}

static char *read_text(const char *dir, const char *rel, struct pm_err *err)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    /* Format files print the event's gfp flags in full: some 5 KB. */
    enum { MAX_TEXT = 65536 };
    char *t = malloc(MAX_TEXT);
    if (!t) {
        pm_errf(err, "out of memory");
        return NULL;
    }
    if (pm_read_file(path, t, MAX_TEXT) < 0) {
        pm_errf(err, "%s: %s", path, strerror(errno));
        free(t);
        return NULL;
    }
    return t;
}

static int load_layout(struct stalltrace *st, struct pm_err *err)
{
    char *t = read_text(st->dir, "events/header_page", err);
    if (!t)
        return -1;
    int rc = rb_layout_parse(t, &st->layout);
    free(t);
    if (rc < 0)
        return pm_errf(err, "%s/events/header_page: a layout this pressmark does not know", st->dir);
    static const char *const files[STALL_KINDS][2] = {
        { "vmscan/mm_vmscan_direct_reclaim_begin", "vmscan/mm_vmscan_direct_reclaim_end" },
        { "vmscan/mm_vmscan_memcg_reclaim_begin", "vmscan/mm_vmscan_memcg_reclaim_end" },
        { "compaction/mm_compaction_begin", "compaction/mm_compaction_end" },
    };
    for (int k = 0; k < STALL_KINDS; k++)
        for (int e = 0; e < 2; e++) {
            char rel[160];
            snprintf(rel, sizeof rel, "events/%s/format", files[k][e]);
            if (!(t = read_text(st->dir, rel, err)))
                return -1;
            size_t toff, tsize, poff;
            rc = stall_format_parse(t, &st->ev.id[k][e], &toff, &tsize, &poff);
            free(t);
            if (rc < 0)
                return pm_errf(err, "%s/%s: not an event format this pressmark knows", st->dir, rel);
            if (k || e) {
                if (toff != st->ev.type_off || tsize != st->ev.type_size || poff != st->ev.pid_off)
                    return pm_errf(err, "%s/%s: common fields differ between events", st->dir, rel);
            }
            st->ev.type_off = toff;
            st->ev.type_size = tsize;
            st->ev.pid_off = poff;
        }
    return 0;
}

static int open_buffers(struct stalltrace *st, struct pm_err *err)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/per_cpu", st->dir);
    DIR *d = opendir(path);
    if (!d)
        return pm_errf(err, "%s: %s", path, strerror(errno));
    int max = -1;
    struct dirent *de;
    while ((de = readdir(d)))
        if (strncmp(de->d_name, "cpu", 3) == 0 && de->d_name[3]) {
            int c = atoi(de->d_name + 3);
            if (c > max)
                max = c;
        }
    closedir(d);
    if (max < 0)
        return pm_errf(err, "%s: no per-CPU buffers", path);
    st->ncpu = max + 1;
    st->fds = malloc((size_t)st->ncpu * sizeof *st->fds);
    if (!st->fds)
        return pm_errf(err, "out of memory");
    for (int c = 0; c < st->ncpu; c++) {
        snprintf(path, sizeof path, "%s/per_cpu/cpu%d/trace_pipe_raw", st->dir, c);
        /* An offline CPU has no buffer to read: -1 is skipped. */
        st->fds[c] = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    }
    return 0;
}

/* Read every page there is now from every CPU. */
static int drain(struct stalltrace *st)
{
    for (int c = 0; c < st->ncpu; c++) {
        if (st->fds[c] < 0)
            continue;
        for (;;) {
            ssize_t n = read(st->fds[c], st->buf, (size_t)st->page);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            if (stall_decode_page(&st->layout, &st->ev, &st->pending, st->buf, (size_t)n, &st->res) < 0) {
                pm_errf(&st->err, "cpu%d: a buffer page this pressmark cannot decode", c);
                return -1;
            }
        }
    }
    return 0;
}

/* Events are paired once they are 100 ms old: by then every CPU's buffer
 * has given up what it recorded before them (mono is CLOCK_MONOTONIC). */
#define PAIR_HOLDBACK_NS 100000000ull

static int reader_tick(void *arg, uint64_t deadline, uint64_t now)
{
    struct stalltrace *st = arg;
    (void)deadline;
    if (drain(st) < 0 ||
        stall_pair_upto(&st->pending, now > PAIR_HOLDBACK_NS ? now - PAIR_HOLDBACK_NS : 0, &st->res) < 0) {
        st->failed = true;
        return -1;
    }
    return 0;
}

int stalltrace_start(struct stalltrace *st, const char *instance_dir, struct pm_err *err)
{
    memset(st, 0, sizeof *st);
    snprintf(st->dir, sizeof st->dir, "%s", instance_dir);
    st->page = sysconf(_SC_PAGESIZE);
    if (st->page <= 0)
        st->page = 4096;
    if (load_layout(st, err) < 0)
        return -1;
    if (!(st->buf = malloc((size_t)st->page)))
        return pm_errf(err, "out of memory");
    if (open_buffers(st, err) < 0) {
        stalltrace_free(st);
        return -1;
    }
    /* Every 20 ms, the first at once: at thousands of stalls a second a
     * buffer of 4 MB per CPU stays far from full. */
    st->thread = (struct periodic){ .tick = reader_tick, .arg = st };
    if (periodic_start(&st->thread, "pm-stalltrace", pm_now_ns(), 20000000ull, err) < 0) {
        stalltrace_free(st);
        return -1;
    }
    return 0;
}

/* "overrun: 12\n...dropped events: 3\n": the events a CPU's buffer lost. */
static uint64_t lost_in_stats(const char *dir, int cpu)
{
    char rel[64];
    snprintf(rel, sizeof rel, "per_cpu/cpu%d/stats", cpu);
    struct pm_err err;
    char *t = read_text(dir, rel, &err);
    if (!t)
        return 0;
    uint64_t lost = 0;
    static const char *const keys[] = { "overrun: ", "commit overrun: ", "dropped events: " };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        for (const char *p = t; (p = strstr(p, keys[i])); p++)
            if (p == t || p[-1] == '\n') {
                lost += strtoull(p + strlen(keys[i]), NULL, 10);
                break;
            }
    free(t);
    return lost;
}

int stalltrace_stop(struct stalltrace *st, struct pm_err *err)
{
    if (!st->thread.running)
        return 0;
    periodic_stop(&st->thread);
    if (!st->failed && (drain(st) < 0 || stall_pair_upto(&st->pending, UINT64_MAX, &st->res) < 0))
        st->failed = true;
    uint64_t lost = 0;
    for (int c = 0; c < st->ncpu; c++)
        if (st->fds[c] >= 0)
            lost += lost_in_stats(st->dir, c);
    /* The stats and the pages count the same losses; the larger is kept. */
    if (lost > st->res.lost)
        st->res.lost = lost;
    for (int c = 0; c < st->ncpu; c++)
        if (st->fds[c] >= 0) {
            close(st->fds[c]);
            st->fds[c] = -1;
        }
    if (st->failed)
        return pm_errf(err, "stall trace: %s", st->err.msg);
    return 0;
}

void stalltrace_free(struct stalltrace *st)
{
    if (st->fds)
        for (int c = 0; c < st->ncpu; c++)
            if (st->fds[c] >= 0)
                close(st->fds[c]);
    free(st->fds);
    st->fds = NULL;
    free(st->buf);
    st->buf = NULL;
    stall_pending_free(&st->pending);
    for (int k = 0; k < STALL_KINDS; k++)
        loghist_free(&st->res.hist[k]);
}
