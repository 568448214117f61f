/* The generic workload: any command, run with posix_spawn and no shell,
 * measured with wait4's rusage the way GNU time measures it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "lib/metrics.h"
#include "lib/fileio.h"
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

static int command_run(void *state, struct run_ctx *rc, struct pm_err *err)
{
    struct command_state *cs = state;
    pid_t pid;
    if (run_spawn(rc, cs->argv, &pid, err) < 0)
        return -1;
    struct run_exit ex;
    if (run_wait(rc, pid, &ex, err) < 0)
        return -1;
    run_rusage_metrics(rc, &ex);
    run_status_from_exit(rc, cs->argv[0], &ex);
    if (WIFEXITED(ex.wstatus))
        run_metric(rc, &record_defs[TIME_EXIT_STATUS], WEXITSTATUS(ex.wstatus));
    return 0;
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
    .state_size = sizeof(struct command_state),
    .set_args = command_set_args,
    .run = command_run,
    .describe = command_describe,
};
