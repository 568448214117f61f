/* The generic workload: any command, run with posix_spawn and no shell,
 * measured with wait4's rusage the way GNU time measures it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "lib/metrics.h"
#include "lib/fileio.h"
#include "store/texts.h"
#include "workloads/capture.h"
#include "workloads/record_figures.h"
#include "workloads/workload.h"
#include "metric_names.h"     /* generated from the metric tables (tools/metric-names.awk) */

enum { TIME_EXIT_STATUS };
static const struct metric_def record_defs[] = {
    [TIME_EXIT_STATUS] = METRIC("time.exit_status", "code", PM_NEITHER,
                  "the recorded command's exit status (record only)"),
};
static const struct metric_group record_metrics = METRIC_GROUP(
    "record: pressmark record, any command as the workload",
    record_defs);

struct command_state {
    struct record_figures fig;   /* first: record_figures_options' state is the command's */
    int argc;
    char **argv;
};


static int command_set_args(void *state, int argc, char **argv, struct pm_err *err)
{
    struct command_state *cs = state;
    if (argc < 1)
        return pm_errf(err, "a command is needed after -- (e.g. pressmark record -- make -j8)");
    /* Refuse a command that cannot be found before anything is written. */
    if (!pm_in_path(argv[0]))
        return pm_errf(err, "'%s' is not a command found in PATH (accepted: an executable name or path)", argv[0]);
    cs->argc = argc;
    cs->argv = argv;
    return 0;
}

static int command_check(void *state, const struct wl_limits *lim, struct pm_err *err)
{
    (void)lim;
    return record_figures_check(&((struct command_state *)state)->fig, err);
}

/* The command spawned with its output captured (record's figures) or
 * as it is, and waited for. */
static int spawn_wait(struct command_state *cs, struct run_ctx *rc, struct capture *cap, struct run_exit *ex,
                      struct pm_err *err)
{
    pid_t pid;
    int r = run_spawn_io(rc, cs->argv, -1, cap ? cap->fd : -1, &pid, err);
    if (cap)
        capture_spawned(cap);
    return r < 0 ? -1 : run_wait(rc, pid, ex, err);
}

static int command_run(void *state, struct run_ctx *rc, struct pm_err *err)
{
    struct command_state *cs = state;
    struct capture cap;
    bool fig = record_figures_on(&cs->fig);
    /* Through a pipe, the first RUN_TEXT_MAX bytes kept: a file would
     * grow as long as the command writes (capture.h). */
    if (fig && capture_start(&cap, RUN_TEXT_MAX, err) < 0)
        return -1;
    /* The clock files' times are taken from: a file the command writes at
     * once is never older than its start by that clock. */
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME_COARSE, &ts);
    int64_t started_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    struct run_exit ex;
    if (spawn_wait(cs, rc, fig ? &cap : NULL, &ex, err) < 0) {
        if (fig)
            capture_free(&cap);
        return -1;
    }
    run_rusage_metrics(rc, &ex);
    run_status_from_exit(rc, cs->argv[0], &ex);
    if (WIFEXITED(ex.wstatus))
        run_metric(rc, &record_defs[TIME_EXIT_STATUS], WEXITSTATUS(ex.wstatus));
    if (!fig)
        return 0;
    int r = capture_finish(&cap, err);
    if (r == 0)
        r = record_figures_collect(&cs->fig, rc, cap.data, cap.len, cap.total > cap.len, started_ns, err);
    capture_free(&cap);
    return r;
}

static const char *command_headline(void *state)
{
    return record_figures_headline(&((struct command_state *)state)->fig);
}

static const char *command_declared(void *state, size_t i)
{
    return record_figures_user_name(&((struct command_state *)state)->fig, i);
}

/* The command line as a shell would need it to run it again. */
static void command_describe(void *state, char *buf, size_t len)
{
    struct command_state *cs = state;
    size_t o = 0;
    buf[0] = '\0';
    for (int i = 0; i < cs->argc && o < len; i++) {
        const char *a = cs->argv[i];
        bool plain = *a != '\0';
        for (const char *p = a; *p; p++)
            if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+%@", *p))
                plain = false;
        o += (size_t)snprintf(buf + o, len - o, "%s", i ? " " : "");
        if (o >= len)
            break;
        if (plain) {
            o += (size_t)snprintf(buf + o, len - o, "%s", a);
        } else {
            o += (size_t)snprintf(buf + o, len - o, "'");
            for (const char *p = a; *p && o < len; p++)
                o += (size_t)(*p == '\'' ? snprintf(buf + o, len - o, "'\\''") : snprintf(buf + o, len - o, "%c", *p));
            if (o < len)
                o += (size_t)snprintf(buf + o, len - o, "'");
        }
    }
}

const struct workload_ops workload_command = {
    .metrics = &record_metrics,
    .name = "record",
    .summary = "any command, given after --",
    .headline = MN_time_elapsed_s,
    .headline_title = "elapsed",
    .hidden = true,
    .params_title = "command",
    .options = record_figures_options,
    .state_size = sizeof(struct command_state),
    .set_args = command_set_args,
    .check = command_check,
    .run = command_run,
    .describe = command_describe,
    .headline_of = command_headline,
    .declared = command_declared,
};
