/* Waiting for a helper's "ready" line, as the run goes on around it. */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>
#include "lib/spawn.h"
#include "workloads/ready.h"

int wl_wait_ready(struct run_ctx *rc, int fd, pid_t pid, const char *word)
{
    char buf[32];
    size_t o = 0, n = strlen(word);
    for (;;) {
        if (run_check_abort(rc))
            return 1;
        struct pollfd p = { .fd = fd, .events = POLLIN };
        int r = poll(&p, 1, 200);
        if (r < 0 && errno != EINTR)
            return 1;
        if (r > 0) {
            /* A byte at a time: nothing after the line is taken from the pipe. */
            ssize_t got = read(fd, buf + o, 1);
            if (got <= 0)
                return 1;
            if (buf[o] == '\n')
                return o == n && memcmp(buf, word, n) == 0 ? 0 : 1;
            if (++o == sizeof buf)
                return 1;
        }
        if (pm_child_ended(pid))
            return 1;
    }
}
