/* record's figures once the command has run: what it wrote kept with the
 * run, the figures read from it (or from the file it wrote, with its
 * logs), and handed to the run with the run's headline; or the run
 * failed, naming what was missing, with none of them stored. */
#include "workloads/record_figures.h"
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/quote.h"
#include "store/texts.h"

/* What is read of a text is what is kept of it: one bound. */
_Static_assert(FIGURES_MAX_TEXT == RUN_TEXT_MAX, "a text the parsers read is a text the run keeps whole");
_Static_assert(2 + RECORD_MAX_LOG_FILES <= RUN_TEXTS_MAX_ROWS, "a run keeps its output, --figures-from and every log");

/* A text read whole, or its first RUN_TEXT_MAX bytes with cut set. */
struct text {
    char *data;
    size_t len;
    bool cut;
};

/* fd's bytes from its start, at most RUN_TEXT_MAX of them. */
static int read_bounded(int fd, const char *what, struct text *t, struct pm_err *err)
{
    struct stat st;
    memset(t, 0, sizeof *t);
    if (fstat(fd, &st) < 0)
        return pm_errf(err, "%s: %s", what, strerror(errno));
    size_t want = (uint64_t)st.st_size > RUN_TEXT_MAX ? RUN_TEXT_MAX : (size_t)st.st_size;
    t->cut = (uint64_t)st.st_size > RUN_TEXT_MAX;
    if (!(t->data = malloc(want + 1)))
        return pm_errf(err, "%s: out of memory for %zu bytes", what, want);
    while (t->len < want) {
        ssize_t n = pread(fd, t->data + t->len, want - t->len, (off_t)t->len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            free(t->data);
            t->data = NULL;
            return pm_errf(err, "%s: %s", what, strerror(errno));
        }
        if (n == 0)
            break;                       /* it shrank while read: what is there */
        t->len += (size_t)n;
    }
    t->data[t->len] = '\0';
    return 0;
}

/* A path as reasons name it: the run line and show print reasons, and a
 * file name is whatever the command (or a glob's match) made it. */
static const char *qpath(const char *path, char *buf, size_t len)
{
    char cut[201];
    snprintf(cut, sizeof cut, "%s", path);
    quote_terminal(cut, buf, len);
    return buf;
}

/* What may be read as root before anything is opened: a regular file,
 * not a link (a symlink or a second hard link could point anywhere the
 * run's command or another user chose), owned by root or by who runs
 * pressmark, in a directory no other user can change (group or world
 * writable without the sticky bit lets them swap the file). */
static int check_path(const char *path, const char *what, struct stat *ls, struct pm_err *err)
{
    char q[820], dir[PATH_MAX];
    struct stat ds;
    if (lstat(path, ls) < 0)
        return pm_errf(err, "%s %s: %s", what, qpath(path, q, sizeof q), strerror(errno));
    if (S_ISLNK(ls->st_mode))
        return pm_errf(err, "%s %s: a symbolic link (accepted: the file itself)", what, qpath(path, q, sizeof q));
    if (!S_ISREG(ls->st_mode))
        return pm_errf(err, "%s %s: not a regular file", what, qpath(path, q, sizeof q));
    if (ls->st_nlink != 1)
        return pm_errf(err, "%s %s: has %ju hard links (accepted: one)", what, qpath(path, q, sizeof q),
                       (uintmax_t)ls->st_nlink);
    if (ls->st_uid != 0 && ls->st_uid != getuid())
        return pm_errf(err, "%s %s: owned by uid %ju (accepted: root or uid %ju, who runs pressmark)", what,
                       qpath(path, q, sizeof q), (uintmax_t)ls->st_uid, (uintmax_t)getuid());
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else
        slash[slash == dir] = '\0';              /* "/f": "/" */
    if (stat(dir, &ds) < 0)
        return pm_errf(err, "%s %s: its directory: %s", what, qpath(path, q, sizeof q), strerror(errno));
    if ((ds.st_mode & (S_IWGRP | S_IWOTH)) && !(ds.st_mode & S_ISVTX))
        return pm_errf(err, "%s %s: its directory is writable by others (accepted: not group or world writable, "
                       "or sticky as /tmp)", what, qpath(path, q, sizeof q));
    return 0;
}

/* A regular file the command wrote: one last written before it started
 * is an earlier run's (or nobody's this time), and its figures are not
 * this run's. Checked by name first (check_path), then opened without
 * following a link or blocking on a FIFO, and checked again by the open
 * file, which must be the one the name was. */
static int read_written(const char *path, const char *what, int64_t started_ns, struct text *t, struct pm_err *err)
{
    char q[820];
    struct stat ls, st;
    if (check_path(path, what, &ls, err) < 0)
        return -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return pm_errf(err, "%s %s: %s", what, qpath(path, q, sizeof q), strerror(errno));
    int rc = fstat(fd, &st) < 0 ? pm_errf(err, "%s %s: %s", what, qpath(path, q, sizeof q), strerror(errno)) : 0;
    if (rc == 0 && (!S_ISREG(st.st_mode) || st.st_dev != ls.st_dev || st.st_ino != ls.st_ino))
        rc = pm_errf(err, "%s %s: changed while it was opened", what, qpath(path, q, sizeof q));
    else if (rc == 0 && (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec < started_ns)
        rc = pm_errf(err, "%s %s: last written before the command started, not by this run", what,
                     qpath(path, q, sizeof q));
    if (rc == 0)
        rc = read_bounded(fd, qpath(path, q, sizeof q), t, err);
    close(fd);
    if (rc == 0 && t->cut) {
        free(t->data);
        rc = pm_errf(err, "%s %s: over %u MiB, more than a parser reads", what, qpath(path, q, sizeof q),
                     RUN_TEXT_MAX >> 20);
    }
    return rc;
}

/* Append t to all (the logs of several threads are one log to the parser). */
static int append(struct text *all, const struct text *t, struct pm_err *err)
{
    if (all->len + t->len > RUN_TEXT_MAX)
        return pm_errf(err, "--figures-log: the logs are over %u MiB together, more than a parser reads",
                       RUN_TEXT_MAX >> 20);
    char *n = realloc(all->data, all->len + t->len + 1);
    if (!n)
        return pm_errf(err, "--figures-log: out of memory");
    memcpy(n + all->len, t->data, t->len);
    all->data = n;
    all->len += t->len;
    all->data[all->len] = '\0';
    return 0;
}

/* Every file each pattern matches, in glob's order, each kept with the
 * run and all of them joined for the parser: at most RECORD_MAX_LOG_FILES
 * in all (a run keeps that many texts beside its output), more failing
 * the run before any is read. */
static int read_logs(const struct record_figures *f, struct run_ctx *rc, int64_t started_ns, struct text *all,
                     struct pm_err *err)
{
    glob_t g[RECORD_MAX_LOGS];
    size_t ng = 0, files = 0;
    int r = 0;
    char q[820];
    for (; ng < f->nlogs && r == 0; ng++) {
        int grc = glob(f->logs[ng], 0, NULL, &g[ng]);
        if (grc == 0)
            files += g[ng].gl_pathc;
        else if (grc == GLOB_NOMATCH)
            r = pm_errf(err, "--figures-log %s: no file matches it", qpath(f->logs[ng], q, sizeof q));
        else
            r = pm_errf(err, "--figures-log %s: %s", qpath(f->logs[ng], q, sizeof q),
                        grc == GLOB_NOSPACE ? "out of memory" : "a directory could not be read");
        if (grc != 0 && grc != GLOB_NOMATCH)
            globfree(&g[ng]);
        if (grc != 0)
            break;
    }
    if (r == 0 && files > RECORD_MAX_LOG_FILES)
        r = pm_errf(err, "--figures-log: %zu files match (accepted: at most %d)", files, RECORD_MAX_LOG_FILES);
    for (size_t i = 0; i < ng && r == 0; i++)
        for (size_t k = 0; k < g[i].gl_pathc && r == 0; k++) {
            struct text t;
            char what[PATH_MAX + 16];
            if ((r = read_written(g[i].gl_pathv[k], "--figures-log", started_ns, &t, err)) < 0)
                break;
            snprintf(what, sizeof what, "figures-log %s", g[i].gl_pathv[k]);
            if (run_keep_text(rc, what, t.data, t.len, false) < 0)
                r = pm_errf(err, "--figures-log: out of memory");
            else
                r = append(all, &t, err);
            free(t.data);
        }
    for (size_t i = 0; i < ng; i++)
        globfree(&g[i]);
    return r;
}

/* Every figure asked for, from text (and the parser's log): all of them,
 * or -1 with err and none. */
static int read_figures(const struct record_figures *f, const struct text *text, const struct text *log,
                        struct figure_set *out, struct pm_err *err)
{
    if (text->cut)
        return pm_errf(err, "%s is over %u MiB: kept cut there, and no figure is read from part of it",
                       f->from[0] ? f->from : "the output", RUN_TEXT_MAX >> 20);
    if (f->parser && figures_parse_log(f->parser->name, text->data, text->len, f->nlogs ? log->data : NULL,
                                       log->len, out, err) < 0)
        return -1;
    for (size_t i = 0; i < f->nspecs; i++) {
        double v;
        if (figure_spec_eval(&f->specs[i], text->data, text->len, &v, err) < 0)
            return -1;
        const struct metric_def d = { .name = f->specs[i].name, .unit = f->specs[i].unit, .dir = f->specs[i].dir };
        if (figure_set_add(out, &d, NULL, v, err) < 0)
            return -1;
    }
    return 0;
}

/* The run's headline among the figures read: --headline's, else the
 * parser's rule's, else the first --figure's. */
static const struct figure *pick_headline(const struct record_figures *f, const struct figure_set *s,
                                          struct pm_err *err)
{
    const struct figure *h = NULL;
    if (f->headline[0] && !(h = figure_set_find(s, f->headline)))
        pm_errf(err, "no %s (--headline) among the figures read", f->headline);
    else if (!h && f->parser && !(h = figures_headline(f->parser, s)))
        pm_errf(err, "%s: no headline figure (%s) among the figures read", f->parser->name, f->parser->headline[0]);
    else if (!h)
        h = figure_set_find(s, f->specs[0].name);
    return h;
}

/* Hand every figure to the run: the parser's as declared in its table
 * (the catalogue has them), the user's as the user declared them. */
static void store_figures(const struct record_figures *f, struct run_ctx *rc, const struct figure_set *s,
                          const struct figure *h)
{
    for (size_t i = 0; i < s->n; i++) {
        const struct figure *x = &s->v[i];
        bool user = false;
        for (size_t k = 0; k < f->nspecs && !user; k++)
            user = strcmp(f->specs[k].name, x->name) == 0;
        if (user)
            run_user_metric(rc, x->name, x->value, x->unit, x->dir);
        else
            run_declared_metric(rc, x->name, x->value, x->unit, x->dir);
    }
    run_meta(rc, "headline", h->name);
    if (f->parser)
        run_meta(rc, "figures.parser", f->parser->name);
}

/* The texts read and kept; then, if the run is still ok, its figures.
 * A reason for failing goes to err with -1 from here: the caller makes
 * it the run's. */
static int collect(const struct record_figures *f, struct run_ctx *rc, const struct text *out, int64_t started_ns,
                   struct pm_err *err)
{
    struct text from = { 0 }, log = { 0 };
    struct figure_set s = { 0 };
    int r = 0;
    if (f->from[0]) {
        if ((r = read_written(f->from, "--figures-from", started_ns, &from, err)) == 0) {
            char what[PATH_MAX + 16];
            snprintf(what, sizeof what, "figures-from %s", f->from);
            if (run_keep_text(rc, what, from.data, from.len, false) < 0)
                r = pm_errf(err, "--figures-from: out of memory");
        }
    }
    if (r == 0)
        r = read_logs(f, rc, started_ns, &log, err);
    const struct figure *h = NULL;
    if (r == 0 && (r = read_figures(f, f->from[0] ? &from : out, &log, &s, err)) == 0 &&
        !(h = pick_headline(f, &s, err)))
        r = -1;
    if (r == 0)
        store_figures(f, rc, &s, h);
    figure_set_free(&s);
    free(from.data);
    free(log.data);
    return r;
}

int record_figures_collect(const struct record_figures *f, struct run_ctx *rc, const char *data, size_t len, bool cut,
                           int64_t started_ns, struct pm_err *err)
{
    const struct text out = { (char *)data, len, cut };
    struct pm_err e = { "" };
    if (run_keep_text(rc, "output", out.data, out.len, out.cut) < 0)
        return pm_errf(err, "out of memory keeping the command's output");
    /* A command that failed has no figures to trust: its failure is the
     * run's reason, not a figure its output lacks. */
    if (strcmp(rc_status(rc), "ok") == 0 && collect(f, rc, &out, started_ns, &e) < 0)
        run_set_status(rc, "failed", "%s", e.msg);
    return 0;
}
