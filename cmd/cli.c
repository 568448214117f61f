#include "cmd/cli.h"
#include "workloads/workload.h"
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include "store/db.h"
#include "harness/profile.h"
#include "harness/run.h"
#include "collectors/sources.h"
#include "export/push.h"
#include "lib/fileio.h"
#include "lib/quote.h"
#include "pressure/undo.h"
#include "store/foreign_db.h"
#include "store/runs.h"
#include "lib/units.h"
#include <unistd.h>

int cli_usage(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "pressmark %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return PM_EXIT_USAGE;
}

static FILE *real_stdout;

void cmd_human_output(void)
{
    FILE *t = quote_terminal_stream(stdout);
    if (!t)
        return;
    setvbuf(t, NULL, _IOFBF, 1 << 16);
    real_stdout = stdout;
    stdout = t;
}

void cmd_output_done(void)
{
    if (real_stdout) {
        fclose(stdout);
        stdout = real_stdout;
        real_stdout = NULL;
    }
    fflush(stdout);
}

void cmd_settle_status(struct run_info *ri)
{
    struct utsname u;
    if (strcmp(ri->status, "running") != 0 || uname(&u) < 0 || strcmp(u.nodename, ri->hostname) != 0 ||
        undo_run_in_progress())
        return;
    snprintf(ri->status, sizeof ri->status, "aborted");
    snprintf(ri->reason, sizeof ri->reason, "pressmark is gone: it was killed during this run");
}

int cli_read_db(struct pm_db *db, struct pm_err *err)
{
    const char *path = store_db_path();
    if (access(path, F_OK) != 0)
        return pm_errf(err, "%s: no results database here yet (a run command creates it; --db or PRESSMARK_DB choose "
                       "another)", path);
    /* Reading never changes the file: read-only, and an older schema is
     * migrated in a private copy, as for a database from elsewhere. */
    struct foreign_db f;
    if (foreign_db_open(path, &f, err) < 0)
        return -1;
    *db = f.db;
    return 0;
}

int cmd_open_db(struct pm_db *db, const char *cmd)
{
    struct pm_err err;
    if (cli_read_db(db, &err) < 0)
        return cli_usage(cmd, "%s", err.msg);
    return 0;
}

int cli_check_workload(void *state, const char *value, struct pm_err *err)
{
    (void)state;
    if (workload_find(value))
        return 0;
    char names[256];
    workload_names(names, sizeof names);
    return pm_errf(err, "'%s' is not a workload (accepted: %s)", value, names);
}

int cli_suite_id(const char *value, int64_t *id, struct pm_err *err)
{
    *id = 0;
    if (!value[0])
        return 0;
    char *end;
    long long v = strtoll(value, &end, 10);
    if (*end || v <= 0)
        return pm_errf(err, "'%s' is not a suite id (accepted: a number from 'pressmark suite list', or none for "
                       "the newest)", value);
    *id = v;
    return 0;
}

int cli_run_opts_finish(struct run_opts *ro, const char *cmd)
{
    struct pm_err err;
    if (exp_run_opts_check(ro, &err) < 0)
        return cli_usage(cmd, "%s", err.msg);
    return 0;
}

int cli_run_outcome(const struct run_outcome *o)
{
    if (o->error) {
        char line[RUN_OUTCOME_LINE];
        harness_outcome_error(o, line, sizeof line);
        fprintf(stderr, "pressmark: %s\n", line);
    }
    if (o->abort_sig)
        fprintf(stderr, "pressmark: interrupted by SIG%s; environment restored\n", sigabbrev_np(o->abort_sig));
    return o->abort_sig ? 128 + o->abort_sig : o->error ? 2 : o->some_failed ? 1 : 0;
}

void cli_push_after_store(void *arg, struct pm_db *db, int64_t run_id)
{
    struct pm_err err;
    if (exp_run_opts_push(arg, db, run_id, &err) < 0)
        fprintf(stderr, "pressmark: push: %s; run %lld stays queued for the next 'pressmark push'\n", err.msg,
                (long long)run_id);
}
