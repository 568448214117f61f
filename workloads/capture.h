#ifndef PM_WORKLOADS_CAPTURE_H
#define PM_WORKLOADS_CAPTURE_H
/* What a recorded command writes, captured through a pipe: a thread keeps
 * the first `keep` bytes in memory and counts and discards the rest, so a
 * command that writes without end fills neither memory nor a disk (a file
 * would grow with it; RLIMIT_FSIZE would kill the tool with SIGXFSZ
 * mid-run, a failure the run did not have). */
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/err.h"

struct capture {
    int fd;               /* the write end, for the command's stdout and stderr; -1 once closed */
    int rfd, stopfd;      /* the read end; an eventfd: the command has exited */
    pthread_t thread;
    bool started;
    size_t keep;          /* the most kept */
    char *data;           /* the first min(total, keep) bytes, NUL-terminated */
    size_t len, cap;
    uint64_t total;       /* every byte written */
    int error;            /* errno of a failed read or allocation; 0 */
};

/* The pipe and its reader; -1 with err. */
int capture_start(struct capture *c, size_t keep, struct pm_err *err);
/* The command has its copy of the write end: the parent's goes, so the
 * pipe ends when every process holding it has. */
void capture_spawned(struct capture *c);
/* The command has exited: what is in the pipe is read, then the reader
 * stops (a child it left behind holding the pipe is not waited for).
 * -1 with err when a read failed. */
int capture_finish(struct capture *c, struct pm_err *err);
/* Everything freed and closed (after capture_finish, or on a failure). */
void capture_free(struct capture *c);

#endif
