#ifndef PM_KVGET_H
#define PM_KVGET_H
/* pressmark's own reader of a loaded data set ("pressmark __kv-get"), the
 * measured phase of run memcached. Debian 12's memcaslap cannot be it: it
 * makes up keys of its own in every process, so its gets never ask for
 * the data set a separate load phase stored (docs/guide/workloads.md).
 *
 * It runs as the server's user, as the server and the loader do. Each of
 * --clients threads makes one connection, refused unless the kernel
 * names the server's pid and this user at its other end (kv_peer_check:
 * a socket the user swapped in is never talked to), signs in with the
 * password pressmark put in its environment (memcached -Y), then sends
 * memcached text protocol "get key:%012llu" (the loader's names) one at
 * a time, the keys drawn uniformly, or Zipf-distributed (key 0 the
 * hottest), over exactly the --keys loaded. Every reply is checked whole:
 * a hit is a VALUE of the right key, flags 0, --value-size bytes equal to
 * what the loader stored, then END; a miss is END alone; SERVER_ERROR,
 * CLIENT_ERROR and ERROR lines are error replies, counted. Anything else
 * fails the phase.
 *
 * It reports on descriptor 4 (workloads/latency.h's lines): "progress"
 * every second, the latency histogram of every get (ns, send to whole
 * reply), then one line
 *   "gets N hits H misses M errors E ns T ops_per_s R[ first_error TEXT]"
 * or, when it failed, "failed TEXT" (and exit 1). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* That last line, read back in pressmark: plain digits, counts that add
 * up, a rate that is theirs (a process of another user wrote it). */
struct kv_get_report {
    uint64_t gets, hits, misses, errors, ns;
    double ops_per_s;
    char first_error[128];       /* "" when no error reply came */
};
/* 0, or -1 when line is not "gets ..." whole. Its first_error kept as
 * another user's words are: printable ASCII, at most 120 characters. */
int kv_get_parse(const char *line, struct kv_get_report *r);
/* Is line "failed TEXT"? TEXT into why, printable ASCII and at most 120
 * characters (kv_quote_line): the client runs as the server's user, and
 * its words reach a run's reason and the terminal. */
bool kv_get_failed(const char *line, char *why, size_t len);

/* --server-pid=N (whose socket it is), --socket=PATH | --port=N,
 * --keys=N, --value-size=N, --clients=N, --requests=N (0: until
 * --duration-ns), --duration-ns=N (0: until --requests), --zipf=THETA (0:
 * uniform; else 0 < THETA < 1). */
int kv_get_main(int argc, char **argv);

#endif
