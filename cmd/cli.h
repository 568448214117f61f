#ifndef PM_CLI_H
#define PM_CLI_H
/* What every command shares: the one-line error for bad input (exit 2,
 * nothing written), the database path, and the options of run commands. */
#include <stdbool.h>
#include <stdint.h>
#include "pressure/env.h"
#include "harness/run.h"
#include "lib/opt.h"
#include "store/db.h"
#include "store/runinfo.h"

#define PM_EXIT_USAGE 2

/* Exit statuses, one policy for every command: 0 done; 1 the thing
 * measured or judged went wrong (a run failed, a regression, a push that
 * could not be delivered); 2 pressmark could not do what was asked (bad
 * input, a database or label that is not there, a harness error);
 * 128 + N interrupted by signal N. */

/* Print "pressmark CMD: message" to stderr and return 2. */
int pm_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The database path chosen by --db (global or per command), PRESSMARK_DB,
 * or the default beside the binary. */
void pm_set_db_path(const char *path);
const char *pm_db_path(void);
/* Open the database for a command that only reads it (it must exist):
 * read-only, verified, an older schema migrated in a private copy, so
 * reading never changes the file. On failure print "pressmark CMD: why"
 * and return 2. */
int cmd_open_db(struct pm_db *db, const char *cmd);
/* The same, saying nothing: -1 with err why (no database, not one). */
int cli_read_db(struct pm_db *db, struct pm_err *err);
/* A run stored as 'running' on this machine while no pressmark holds the
 * run lock was killed: list and show say aborted (the database itself is
 * changed only by the next run). */
void cmd_settle_status(struct run_info *ri);
/* Human-readable output from here on goes through a stream that shows
 * control characters escaped (labels, reasons and names come from
 * databases); cmd_output_done, called by main, ends it. */
void cmd_human_output(void);
void cmd_output_done(void);
/* The check of a --workload option (OPT_STRING's set): a name the
 * registry knows, or the one-line error listing them. */
int cli_check_workload(void *state, const char *value, struct pm_err *err);
/* --suite [ID] of compare and report: "" is the newest suite (*id 0). */
int cli_suite_id(const char *value, int64_t *id, struct pm_err *err);
/* The option table of --db, for commands that take nothing else of the
 * run options. */
extern const struct opt pm_db_option[];

/* Options shared by every command that runs a workload. */
struct run_opts {
    const char *label;
    uint64_t interval_ns;
    unsigned runs;
    uint64_t gap_ns;
    uint64_t timeout_ns;
    bool quiet;
    bool profile;
    bool trace_reclaim;
    unsigned collect_off;
    bool no_sample;
    const char *push_url;
    char push_token[1024];
    struct env_config env;
    char label_buf[256];
};

/* The run options and the environment options, as option tables whose
 * state is a struct run_opts (for cmd_parse groups). */
extern const struct opt pm_run_options[];
extern const struct opt pm_env_options[];
extern const char pm_env_options_title[];

void run_opts_defaults(struct run_opts *ro);
/* The cap and planned swap, as a workload's check sees them. */
void run_opts_limits(const struct run_opts *ro, struct wl_limits *lim);
/* Check the options together once all are parsed (root, cap method here,
 * mem-high below the cap). Returns 0, or 2 after printing the one line. */
int run_opts_finish(struct run_opts *ro, const char *cmd);
/* The same checks, the reason in err instead of printed (suite files). */
int run_opts_check(struct run_opts *ro, struct pm_err *err);
/* Fill the plan's common fields from the options. */
void run_opts_to_plan(const struct run_opts *ro, struct run_plan *plan);

/* Commands. */
int cmd_record(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_push(int argc, char **argv);
int cmd_chat_server(int argc, char **argv);
int cmd_suite(int argc, char **argv);

#endif
