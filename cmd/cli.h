#ifndef PM_CLI_H
#define PM_CLI_H
/* What every command shares: the one-line error for bad input (exit 2,
 * nothing written), the database path, and the options of run commands. */
#include <stdbool.h>
#include <stdint.h>
#include "experiment/run_opts.h"
#include "lib/opt.h"
#include "store/db.h"
#include "store/runinfo.h"

struct run_outcome;

#define PM_EXIT_USAGE 2

/* Exit statuses, one policy for every command: 0 done; 1 the thing
 * measured or judged went wrong (a run failed, a regression, a push that
 * could not be delivered); 2 pressmark could not do what was asked (bad
 * input, a database or label that is not there, a harness error);
 * 128 + N interrupted by signal N. */

/* Print "pressmark CMD: message" to stderr and return 2. */
int cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

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
/* Check the options together once all are parsed (root, cap method here,
 * mem-high below the cap). Returns 0, or 2 after printing the one line. */
int cli_run_opts_finish(struct run_opts *ro, const char *cmd);

/* --push's hook for a run plan (arg: the struct run_opts): each run goes
 * out as soon as it is stored; a server that is down leaves it queued for
 * the next 'pressmark push', and the one line says so. */
void cli_push_after_store(void *arg, struct pm_db *db, int64_t run_id);

/* A plan's outcome (harness/run.h) said on stderr, its error and then
 * its interruption, and made the exit status: 128 + N interrupted by
 * signal N, 2 a harness error, 1 a run failed, else 0. */
int cli_run_outcome(const struct run_outcome *o);

/* Commands. */
int cmd_record(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_push(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_chat_server(int argc, char **argv);
int cmd_suite(int argc, char **argv);
int cmd_lava(int argc, char **argv);
/* A kernel's VM image made or found, its directory printed (cmd/vm_image.c). */
int cli_vm_image_main(int argc, char **argv);
int cmd_bisect(int argc, char **argv);

#endif
