#ifndef PM_CHAT_CLIENT_H
#define PM_CHAT_CLIENT_H
/* pressmark's VolanoMark client: what COM.volano.Mark 2.13.4 sends, in
 * its order, with its turn rule and exit chain, counted its way. Unlike
 * Mark it never hangs: a lost connection or a stall ends the run failed. */
#include <stdint.h>

struct chat_client_config {
    const char *server;          /* ADDR:PORT */
    unsigned rooms, users, messages;
    double pause_s;              /* > 0: each user chats on its own timer */
    uint64_t duration_ns;        /* with pause: how long */
    uint64_t heap, msg_alloc;
    uint64_t stall_ns;           /* no progress for this long: failed */
    int report_fd;               /* results line; -1: stdout */
};

/* Returns the process exit status (0 when the counts are exact). */
int chat_client_main(const struct chat_client_config *cfg);

#endif
