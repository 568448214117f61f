#include "harness/profile.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "harness/sysfs.h"
#include "harness/undo.h"

extern char **environ;


bool profile_available(void)
{
    return pm_in_path("perf");
}

static int spawn_quiet(char *const argv[], int out_fd, pid_t *pid)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    if (out_fd >= 0)
        posix_spawn_file_actions_adddup2(&fa, out_fd, STDOUT_FILENO);
    else
        posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
    int e = posix_spawnp(pid, argv[0], &fa, &attr, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    return e;
}

int profile_start(struct profile *p, const char *exe, struct pm_err *err)
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
    /* Through the exec helper: perf dies with pressmark, even on SIGKILL. */
    char *argv[] = { (char *)exe, "__exec", "--", "perf", "record", "-e", "cpu-clock", "-a", "-q", "-o", p->data, NULL };
    int e = spawn_quiet(argv, -1, &p->pid);
    if (e)
        return pm_errf(err, "perf: %s", strerror(e));
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

int profile_finish(struct profile *p, struct pm_db *db, int64_t run_id, struct kv_list *meta, struct pm_err *err)
{
    if (p->pid <= 0)
        return 0;
    kill(p->pid, SIGINT);
    int st;
    while (waitpid(p->pid, &st, 0) < 0 && errno == EINTR)
        ;
    p->pid = 0;
    int pipefd[2];
    int rc = 0;
    if (pipe2(pipefd, O_CLOEXEC) < 0)
        return pm_errf(err, "pipe: %s", strerror(errno));
    char *argv[] = { "perf", "report", "-i", p->data, "--stdio", "--sort", "sym", "--no-children", "-n",
                     "--percent-limit", "0", NULL };
    pid_t pid;
    int e = spawn_quiet(argv, pipefd[1], &pid);
    close(pipefd[1]);
    if (e) {
        close(pipefd[0]);
        return pm_errf(err, "perf report: %s", strerror(e));
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
    struct entry *top = all;
    if (in)
        fclose(in);
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    sqlite3_stmt *ins;
    if (pm_db_prepare(db, &ins, "INSERT OR REPLACE INTO profile(run_id, rank, symbol, samples, pct_kernel, pct_all)"
                                " VALUES (?,?,?,?,?,?)", err) < 0) {
        rc = -1;
    } else {
        for (size_t i = 0; i < n && rc == 0; i++) {
            sqlite3_bind_int64(ins, 1, run_id);
            sqlite3_bind_int(ins, 2, (int)i + 1);
            sqlite3_bind_text(ins, 3, top[i].sym, -1, SQLITE_STATIC);
            sqlite3_bind_int64(ins, 4, top[i].samples);
            sqlite3_bind_double(ins, 5, kernel ? (double)top[i].samples / (double)kernel * 100.0 : 0);
            sqlite3_bind_double(ins, 6, top[i].pct);
            rc = pm_db_step_done(db, ins, err);
        }
        sqlite3_finalize(ins);
    }
    free(all);
    kv_setf(meta, "profile", "perf record -e cpu-clock -a: %lld samples, %lld in the kernel", total, kernel);
    char said[512];
    undo_apply(UNDO_SCRATCH, p->dir, "perf", said, sizeof said);
    undo_done(p->undo_id);
    return rc;
}
