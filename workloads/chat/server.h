#ifndef PM_CHAT_SERVER_H
#define PM_CHAT_SERVER_H
/* pressmark's VolanoMark-protocol chat server: rooms created on demand,
 * indications to every member but the sender, a Chat CONFIRM to the
 * sender, never closing a client's connection itself (unless the client
 * breaks the protocol). Two threads per connection: receiver and sender. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct chat_server_config {
    const char *listen;          /* ADDR:PORT; port 0 picks a free one */
    bool once;                   /* exit when the first clients have all gone */
    uint64_t heap, msg_alloc;
    int report_fd;               /* "port N" when listening, stats at exit; -1: stdout */
};

/* Runs until SIGINT/SIGTERM (or, with once, the clients are gone).
 * Returns the process exit status. */
int chat_server_main(const struct chat_server_config *cfg);

/* Serve n (at most 16) clients in this process, each a socket pair whose
 * client end sends data[i] and reads whatever comes back, until every
 * connection has ended. The server ends a connection when its client
 * stops sending or breaks the protocol. Returns 0, or -1 when the server
 * kept a connection open (a hang) or could not start. For fuzzing the
 * server with hostile clients (fuzz/fuzz_chat.c). */
int chat_server_serve_streams(const uint8_t *const *data, const size_t *len, size_t n);

#endif
