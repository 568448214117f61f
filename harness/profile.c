#include "harness/profile.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include "lib/spawn.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "lib/fileio.h"
#include "pressure/undo.h"



bool profile_available(void)
{
    return pm_in_path("perf");
}

/* perf with no input and its chatter discarded; out_fd (when >= 0) is
 * its stdout. */
static int spawn_perf(char *const argv[], int out_fd, bool die_with_parent, pid_t *pid, struct pm_err *err)
{
    struct pm_spawn sp = { .argv = argv, .in = PM_FD_NULL, .out = out_fd >= 0 ? out_fd : PM_FD_NULL,
                           .err = PM_FD_NULL, .die_with_parent = die_with_parent,
                           .missing_hint = "(install linux-perf)" };
    return pm_spawn(&sp, pid, err);
}

int profile_start(struct profile *p, struct pm_err *err)
{
    memset(p, 0, sizeof *p);
    p->undo_id = -1;
    const char *tmp = getenv("TMPDIR");
    snprintf(p->dir, sizeof p->dir, "%s/pressmark-profile.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(p->dir))
        return pm_errf(err, "%s: %s", p->dir, strerror(errno));
    if ((p->undo_id = undo_push(UNDO_SCRATCH, p->dir, "perf", err)) < 0) {
        rmdir(p->dir);
        return -1;
    }
    snprintf(p->data, sizeof p->data, "%s/perf.data", p->dir);
    /* perf dies with pressmark, even on SIGKILL. */
    char *argv[] = { "perf", "record", "-e", "cpu-clock", "-a", "-q", "-o", p->data, NULL };
    if (spawn_perf(argv, -1, true, &p->pid, err) < 0)
        return -1;
    char pid[32];
    snprintf(pid, sizeof pid, "%d", (int)p->pid);
    undo_push(UNDO_PROCESS, pid, "record", NULL);
    /* perf needs a moment before it samples; a run shorter than that
     * would profile nothing. */
    for (int i = 0; i < 100 && access(p->data, F_OK) != 0; i++) {
        struct timespec ts = { 0, 10000000 };
        nanosleep(&ts, NULL);
    }
    return 0;
}

struct entry {
    char sym[256];
    long long samples;
    double pct;
};

static int by_samples_desc(const void *a, const void *b)
{
    long long x = ((const struct entry *)a)->samples, y = ((const struct entry *)b)->samples;
    return (x < y) - (x > y);
}

int profile_finish(struct profile *p, struct run_symbol *top, size_t *ntop, struct kv_list *meta, struct pm_err *err)
{
    *ntop = 0;
    if (p->pid <= 0)
        return 0;
    kill(p->pid, SIGINT);
    int st;
    pm_wait(p->pid, &st, NULL);
    p->pid = 0;
    int pipefd[2];
    int rc = 0;
    if (pipe2(pipefd, O_CLOEXEC) < 0)
        return pm_errf(err, "pipe: %s", strerror(errno));
    char *argv[] = { "perf", "report", "-i", p->data, "--stdio", "--sort", "sym", "--no-children", "-n",
                     "--percent-limit", "0", NULL };
    pid_t pid;
    int e = spawn_perf(argv, pipefd[1], false, &pid, err);
    close(pipefd[1]);
    if (e < 0) {
        close(pipefd[0]);
        return -1;
    }
    FILE *in = fdopen(pipefd[0], "r");
    struct entry *all = NULL;
    size_t nall = 0, cap = 0;
    long long kernel = 0, total = 0;
    char line[1024];
    while (in && fgets(line, sizeof line, in)) {
        double pct;
        long long samples;
        char kind[8], sym[512];
        if (line[0] == '#' || sscanf(line, " %lf%% %lld [%7[^]]] %511[^\n]", &pct, &samples, kind, sym) != 4)
            continue;
        total += samples;
        if (strcmp(kind, "k") != 0)
            continue;
        kernel += samples;
        if (nall == cap) {
            cap = cap ? cap * 2 : 256;
            struct entry *v = realloc(all, cap * sizeof *v);
            if (!v)
                break;
            all = v;
        }
        snprintf(all[nall].sym, sizeof all[nall].sym, "%s", sym);
        all[nall].samples = samples;
        all[nall].pct = pct;
        nall++;
    }
    qsort(all, nall, sizeof *all, by_samples_desc);
    size_t n = nall < PROFILE_TOP ? nall : PROFILE_TOP;
    if (in)
        fclose(in);
    pm_wait(pid, &st, NULL);
    for (size_t i = 0; i < n; i++) {
        snprintf(top[i].symbol, sizeof top[i].symbol, "%s", all[i].sym);
        top[i].samples = all[i].samples;
        top[i].pct_kernel = kernel ? (double)all[i].samples / (double)kernel * 100.0 : 0;
        top[i].pct_all = all[i].pct;
    }
    *ntop = n;
    free(all);
    pm_kv_setf(meta, "profile", "perf record -e cpu-clock -a: %lld samples, %lld in the kernel", total, kernel);
    char said[512];
    undo_apply(UNDO_SCRATCH, p->dir, "perf", said, sizeof said);
    undo_done(p->undo_id);
    return rc;
}
