/* The build command of a git bisection (kernels/gitbisect.h): run in the
 * checkout without a shell, its own process group, journalled and dying
 * with pressmark; its last line on standard output names the kernel. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "harness/run.h"
#include "kernels/gitbisect.h"
#include "kernels/spec.h"
#include "kernels/vm.h"
#include "lib/fileio.h"
#include "lib/quote.h"
#include "lib/spawn.h"
#include "pressure/undo.h"

#define MAX_WORDS 64

/* Split cmd on blanks into words (no shell, no quotes: a script takes
 * anything more). Returns the count; buf holds the words. */
static int split_words(const char *cmd, char *buf, size_t len, char **words)
{
    snprintf(buf, len, "%s", cmd);
    int n = 0;
    for (char *w = strtok(buf, " \t"); w && n < MAX_WORDS - 1; w = strtok(NULL, " \t"))
        words[n++] = w;
    words[n] = NULL;
    return n;
}

int git_build_check(const char *repo, const char *cmd, struct pm_err *err)
{
    char buf[1024], *words[MAX_WORDS];
    if (split_words(cmd, buf, sizeof buf, words) == 0)
        return pm_errf(err, "--build '%s': no command (accepted: a program and its arguments, run in the tree)", cmd);
    const char *prog = words[0];
    char path[PATH_MAX + 1100];
    if (!strchr(prog, '/')) {
        if (pm_in_path(prog))
            return 0;
        return pm_errf(err, "--build '%s': '%s' is not a program in PATH (accepted: an executable file: absolute, "
                       "relative to the repository, or in PATH)", cmd, prog);
    }
    snprintf(path, sizeof path, "%s%s%s", prog[0] == '/' ? "" : repo, prog[0] == '/' ? "" : "/", prog);
    struct stat st;
    if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) || access(path, X_OK) < 0)
        return pm_errf(err, "--build '%s': %s is not an executable file (accepted: an executable file: absolute, "
                       "relative to the repository, or in PATH)", cmd, path);
    return 0;
}

/* The build's environment: pressmark's without its secrets or git's
 * variables, and where to put what it makes. */
static char **build_env(const char *out_dir, const char *sha)
{
    char **base = pm_env_without_secrets();
    if (!base)
        return NULL;
    size_t n = 0;
    while (base[n])
        n++;
    char **env = calloc(n + 3, sizeof *env);
    size_t k = 0;
    for (size_t i = 0; env && i < n; i++)
        if (strncmp(base[i], "GIT_", 4) != 0 && strncmp(base[i], "PRESSMARK_BISECT_", 17) != 0)
            env[k++] = base[i];
    if (env && (asprintf(&env[k], "PRESSMARK_BISECT_OUT=%s", out_dir) < 0 ||
                asprintf(&env[k + 1], "PRESSMARK_BISECT_COMMIT=%s", sha) < 0)) {
        free(env);
        env = NULL;
    }
    free(base);
    return env;
}

/* Asked while the build runs: the first SIGINT, SIGTERM or SIGHUP to
 * pressmark (kept in *sig) ends the build's whole group; a later one is
 * left pending for whoever asks next. */
static int build_stop(void *arg, int taken)
{
    int *sig = arg;
    (void)taken;               /* no signal is taken by the wait's sleeps */
    if (!*sig)
        *sig = harness_pending_abort();
    return *sig ? PM_WAIT_STOP : PM_WAIT_GO_ON;
}

/* Wait for the build, looking every 100 ms; stopped, its group gets
 * SIGTERM and a second to end before SIGKILL. Its wait status, the
 * interrupting signal in *sig. */
static int wait_build(pid_t pid, int *status, int *sig, struct pm_err *err)
{
    *sig = 0;
    const struct pm_wait_opts w = { .first_sig = SIGTERM, .grace_ns = 1000000000ull, .group = true,
                                    .poll_ns = 100000000ull, .stop = build_stop, .arg = sig };
    struct pm_wait_result res;
    if (pm_wait_deadline(pid, &w, &res, err) < 0)
        return -1;
    *status = res.status;
    return 0;
}

/* The last line of the build's output that holds anything. */
static void last_line(const char *path, char *buf, size_t len)
{
    char text[8192];
    buf[0] = '\0';
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return;
    struct stat st;
    off_t at = fstat(fd, &st) == 0 && st.st_size > (off_t)sizeof text - 1 ? st.st_size - (off_t)sizeof text + 1 : 0;
    ssize_t n = pread(fd, text, sizeof text - 1, at);
    close(fd);
    while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == ' ' || text[n - 1] == '\r'))
        n--;
    if (n <= 0)
        return;
    text[n] = '\0';
    const char *l = strrchr(text, '\n');
    snprintf(buf, len, "%s", l ? l + 1 : text);
}

/* spec's paths made absolute from dir (BZIMAGE@MODULES: both). */
static void absolute_spec(const char *dir, const char *line, char *spec, size_t len)
{
    const char *at = strchr(line, '@');
    size_t pl = at ? (size_t)(at - line) : strlen(line);
    size_t o = (size_t)snprintf(spec, len, "%s%s%.*s", line[0] == '/' ? "" : dir, line[0] == '/' ? "" : "/", (int)pl,
                                line);
    if (at && o < len)
        snprintf(spec + o, len - o, "@%s%s%s", at[1] == '/' ? "" : dir, at[1] == '/' ? "" : "/", at + 1);
}

/* A skipped build's reason, escaped: what a build prints is data, and
 * the reason is stored and shown on terminals. Returns 1 (skip). */
static int skip_build(char *reason, size_t rlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int skip_build(char *reason, size_t rlen, const char *fmt, ...)
{
    char raw[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    quote_terminal(raw, reason, rlen);
    return 1;
}

/* Is path (resolved) dir itself or below it (resolved)? */
static bool within(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return dir[0] == '/' && strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0' || n == 1);
}

/* The files a kernel spec names, resolved: each must lie in the tree
 * built or in PRESSMARK_BISECT_OUT. The build's last line is its output,
 * not the operator's word, and root reads and boots what it names: not
 * any file of the host (a secret, a device, a FIFO that hangs the read).
 * spec is rewritten with the resolved paths. 0, or 1 with reason. */
static int contain(const char *sha, const char *dir, const char *out_dir, char *spec, size_t len, char *reason,
                   size_t rlen)
{
    struct kernel_spec ks;
    struct pm_err e;
    if (kernel_spec_parse(spec, &ks, &e) < 0 || (ks.kind != KERNEL_BZIMAGE && ks.kind != KERNEL_DEB))
        return -1;
    char *d = realpath(dir, NULL), *o = realpath(out_dir, NULL), *k = realpath(ks.path, NULL);
    char *m = ks.modules[0] ? realpath(ks.modules, NULL) : NULL;
    struct stat st;
    int rc = 0;
    if (!d || !o)
        rc = skip_build(reason, rlen, "the build of %.12s: %s or %s cannot be resolved", sha, dir, out_dir);
    else if (!k || (ks.modules[0] && !m))
        rc = skip_build(reason, rlen, "the build of %.12s named %s, which is not there", sha, !k ? ks.path : ks.modules);
    else if (!(within(k, d) || within(k, o)) || (m && !within(m, d) && !within(m, o)))
        rc = skip_build(reason, rlen, "the build of %.12s named %s, outside the tree it built and PRESSMARK_BISECT_OUT "
                        "(accepted: a kernel the build made in one of them)", sha,
                        !(within(k, d) || within(k, o)) ? k : m);
    else if (ks.kind == KERNEL_DEB && (stat(k, &st) < 0 || !S_ISREG(st.st_mode)))
        rc = skip_build(reason, rlen, "the build of %.12s named %s, which is not a regular file", sha, k);
    else if ((size_t)snprintf(spec, len, "%s%s%s", k, m ? "@" : "", m ? m : "") >= len ||
             kernel_spec_parse(spec, &ks, &e) < 0)
        rc = skip_build(reason, rlen, "the build of %.12s named a kernel whose resolved name is not one: %s", sha,
                        e.msg);
    free(d);
    free(o);
    free(k);
    free(m);
    return rc;
}

static int open_log(const char *dir, int n, const char *ext, char *path, size_t len)
{
    snprintf(path, len, "%s/build-%d.%s", dir, n, ext);
    return open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
}

/* Run it; 0 ran (its wait status in *status, *sig when interrupted). */
static int spawn_build(struct git_clone *g, const char *dir, char **words, char **env, int fo, int fe, int *status,
                       int *sig, struct pm_err *err)
{
    struct pm_spawn sp = { .argv = words, .dir = dir, .in = PM_FD_NULL, .out = fo, .err = fe, .envp = env,
                           .new_group = true, .die_with_parent = true };
    pid_t pid;
    if (pm_spawn(&sp, &pid, err) < 0)
        return -1;
    char pids[16];
    snprintf(pids, sizeof pids, "%d", (int)pid);
    int uid = strlen(words[0]) < 500 ? undo_push(UNDO_PROCESS, pids, words[0], err) : -1;
    struct pm_err why;
    int rc = wait_build(pid, status, sig, &why);
    if (uid >= 0)
        undo_done(uid);
    (void)g;
    return rc < 0 ? pm_errf(err, "waiting for the build: %s", why.msg) : 0;
}

int git_build(struct git_clone *g, const char *dir, const char *cmd, const char *sha, char *spec, size_t speclen,
              char *reason, size_t rlen, struct pm_err *err)
{
    int n = ++g->builds;
    char out_dir[PATH_MAX + 32], lo[PATH_MAX + 32], le[PATH_MAX + 32], buf[1024], *words[MAX_WORDS];
    snprintf(out_dir, sizeof out_dir, "%s/out-%d", g->dir, n);
    if (mkdir(out_dir, 0700) < 0)
        return pm_errf(err, "%s: %s", out_dir, strerror(errno));
    split_words(cmd, buf, sizeof buf, words);
    int fo = open_log(g->dir, n, "out", lo, sizeof lo), fe = open_log(g->dir, n, "log", le, sizeof le);
    char **env = build_env(out_dir, sha);
    int status = 0, sig = 0, rc = fo < 0 || fe < 0 || !env ? pm_errf(err, "%s: cannot make the build's logs", g->dir)
                                                          : spawn_build(g, dir, words, env, fo, fe, &status, &sig, err);
    if (fo >= 0)
        close(fo);
    if (fe >= 0)
        close(fe);
    if (env)
        for (size_t i = 0; env[i]; i++)
            if (strncmp(env[i], "PRESSMARK_BISECT_", 17) == 0)
                free(env[i]);
    free(env);
    if (rc < 0)
        return -1;
    if (sig)
        return 128 + sig;
    char tail[800], how[64], line[PATH_MAX * 2];
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        pm_wait_describe(status, how, sizeof how);
        vm_console_tail(le, 5, tail, sizeof tail);
        if (!tail[0])
            vm_console_tail(lo, 5, tail, sizeof tail);
        return skip_build(reason, rlen, "the build of %.12s %s: %s", sha, how, tail[0] ? tail : "(no output)");
    }
    last_line(lo, line, sizeof line);
    absolute_spec(dir, line, spec, speclen);
    int rc2 = line[0] ? contain(sha, dir, out_dir, spec, speclen, reason, rlen) : -1;
    if (rc2 < 0)
        return skip_build(reason, rlen, "the build of %.12s named no kernel on its last line of output ('%.200s'; "
                          "accepted: BZIMAGE[@MODULES] or PATH.deb)", sha, line);
    return rc2;
}
