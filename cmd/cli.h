#ifndef PM_CLI_H
#define PM_CLI_H
/* What every command shares: the one-line error for bad input (exit 2,
 * nothing written), the database path, and the options of run commands. */
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include "pressure/env.h"
#include "harness/run.h"

#define PM_EXIT_USAGE 2

/* Print "pressmark CMD: message" to stderr and return 2. */
int pm_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The database path chosen by --db (global or per command), PRESSMARK_DB,
 * or the default beside the binary. */
void pm_set_db_path(const char *path);
const char *pm_db_path(void);

/* Options shared by every command that runs a workload. */
struct run_opts {
    const char *label;
    uint64_t interval_ns;
    unsigned runs;
    uint64_t gap_ns;
    uint64_t timeout_ns;
    bool quiet;
    bool profile;
    const char *push_url;
    char push_token[1024];
    struct env_config env;
    char label_buf[256];
};

/* getopt_long entries for the run options, terminated; ids start at 1000. */
extern const struct option pm_run_long_options[];
/* Help text for them, for each run command's --help. */
extern const char pm_run_options_help[];

void run_opts_defaults(struct run_opts *ro);
/* Handle one getopt_long result that belongs to the run options. Returns 1
 * if handled, 0 if not one of ours, -1 (after printing) on a bad value. */
int run_opts_handle(struct run_opts *ro, const char *cmd, int id, const char *arg);
/* Check the options together once all are parsed (root, cap method here,
 * mem-high below the cap). Returns 0, or 2 after printing the one line. */
int run_opts_finish(struct run_opts *ro, const char *cmd);
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

#endif
