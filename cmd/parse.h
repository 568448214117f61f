#ifndef PM_PARSE_H
#define PM_PARSE_H
/* Every command's command line, from option tables (lib/opt.h): one parser
 * that builds getopt_long's list, sets each option into its group's state,
 * answers --help from the same tables, and turns every bad option into
 * one line and exit status 2. */
#include <stdbool.h>
#include <stddef.h>
#include "lib/opt.h"

struct cmd_group {
    const char *title;          /* heading in --help; NULL: "options"; "": none (goes on) */
    const struct opt *table;
    void *state;
};

struct cmd_spec {
    const char *name;           /* "list", "run swapout": errors say "pressmark NAME: " */
    const char *usage;          /* --help's text before the options */
    const struct cmd_group *groups;
    size_t ngroups;
    bool stop_at_command;       /* record: options end at the first word (the command) */
    int max_args;               /* words allowed after the options (-1: any) */
    int first;                  /* argv index where options start (1, or 2 after "run WORKLOAD") */
};

enum { CMD_HELP = -1, CMD_BAD = -2 };

/* Parse argv. Returns the index of the first word after the options, or
 * CMD_HELP after printing --help (exit 0), or CMD_BAD after printing the
 * one-line error (exit 2). Each group's defaults are set first. */
int cmd_parse(const struct cmd_spec *spec, int argc, char **argv);
/* A subcommand's line (suite run, lava job ...): its table and the --db
 * option, options from argv[2], at most max_args words after them. */
int cmd_parse_sub(const char *name, const char *usage, const struct opt *table, void *state, int argc, char **argv,
                  int max_args);
/* The exit status for what cmd_parse returned when it is below zero. */
int cmd_parse_exit(int r);

#endif
