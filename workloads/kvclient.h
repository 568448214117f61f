#ifndef PM_KVCLIENT_H
#define PM_KVCLIENT_H
/* The little of Redis's RESP and memcached's text protocol pressmark
 * speaks itself: the server's own figures (INFO, stats) after the
 * measured phase, and the loader that fills the data set before it. What
 * a server answers is data: every read is bounded in size and time, and a
 * reply of another shape is an error, never a figure. */
#include <stddef.h>
#include <stdint.h>
#include "lib/err.h"
#include "workloads/workload.h"

enum kv_proto { KV_REDIS, KV_MEMCACHED };

/* The most a statistics reply may be: INFO is about 6 KB, stats 3 KB. */
#define KV_STATS_MAX (256u << 10)
/* How long a server may take to answer one read (a server deep in swap is
 * slow, not dead). */
#define KV_REPLY_MS 60000

/* How long a conversation may take, all of it (one deadline, not one per
 * read), and the run whose abort (Ctrl-C) ends it too (NULL: none). */
struct kv_io {
    uint64_t deadline_ns;        /* CLOCK_MONOTONIC */
    struct run_ctx *rc;
};

/* Send INFO all (Redis) or stats (memcached) on fd and read the reply's
 * text into buf (NUL-terminated): INFO's bulk string, or stats' "STAT"
 * lines up to "END". -1 with err on the deadline, an abort, a reply too
 * long or of another shape. */
int kv_stats(int fd, enum kv_proto p, const struct kv_io *io, char *buf, size_t len, struct pm_err *err);
/* Sign in as user with secret on fd: Redis's AUTH and its +OK, or
 * memcached's -Y "set" of "user secret" and its STORED; -1 with err
 * otherwise. */
int kv_auth(int fd, enum kv_proto p, const char *user, const char *secret, const struct kv_io *io,
            struct pm_err *err);
/* The value of key in that text (INFO's "key:N", stats' "STAT key N") as
 * a plain decimal whole number up to UINT64_MAX; -1 when absent or not one
 * (a sign, a fraction, an overflow). */
int kv_stat_u64(const char *text, enum kv_proto p, const char *key, uint64_t *v);
/* The digits at s as a whole number up to UINT64_MAX, *end after them; -1
 * when none or too large. */
int kv_u64(const char *s, const char **end, uint64_t *v);
/* "WORD N" at *s, N as kv_u64 reads it, *s then after N; -1 otherwise. A
 * helper's report line is read so (it runs as the server's user). */
int kv_word_u64(const char **s, const char *word, uint64_t *v);

/* Write all of buf, or read more of a reply into buf[*have..len) (kept
 * NUL-terminated), waiting at most until io's deadline: -1 with err on
 * the deadline, an abort, a closed connection or, reading, a reply that
 * reaches len. */
int kv_send_all(int fd, const char *buf, size_t n, const struct kv_io *io, struct pm_err *err);
int kv_recv_more(int fd, char *buf, size_t len, size_t *have, const struct kv_io *io, struct pm_err *err);

/* A reply's first line as words for an error: printable ASCII only, at
 * most 120 characters. */
void kv_quote_line(const char *s, char *out, size_t len);
/* The same, as long as out holds (len - 1 characters): a line of another
 * user's process (a helper's report) made fit for a run's record. */
void kv_quote_text(const char *s, char *out, size_t len);
/* A tool's output kept whole (its end), in place: its lines' printable
 * ASCII alone, anything else (an escape, a CR, a byte of UTF-8) '?'. */
void kv_printable_lines(char *s);

/* The values the loader stores, known to whoever reads them back: key
 * k's value is value_size bytes of one random block from kv_value_of.
 * The block is malloc'd (NULL when out of memory); free it. */
#define KV_VALUE_WINDOWS 4096
char *kv_value_block(uint64_t value_size);
const char *kv_value_of(const char *block, uint64_t key);

/* A helper's first step ("pressmark __kv-load", "__kv-get"): it dies with
 * pressmark (PR_SET_PDEATHSIG) and is not dumpable, so other processes of
 * its user (the server's, outside the run) can neither read its password
 * (/proc/PID/environ, ptrace) nor reopen its report pipe from
 * /proc/PID/fd/4 once it has begun. -1 with err. */
int kv_helper_start(struct pm_err *err);

/* The helper "pressmark __kv-load": it fills keys key:000000000000 ...
 * (redis-benchmark's -r names) with random values, pipelined, and reports
 * on descriptor 4 "sets N errors E ns T" and, after an error, "error TEXT". */
int kv_load_main(int argc, char **argv);

#endif
