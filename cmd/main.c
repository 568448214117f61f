/* pressmark: a memory-pressure benchmark harness. One cmd_<name> per
 * command, one table listing them, as git's builtin/ does. */
#include <gsl/gsl_errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/cli.h"
#include "experiment/backend_lava_guest.h"
#include "cmd/complete.h"
#include "pressure/balloon.h"
#include "harness/sibling.h"
#include "pressure/undo.h"
#include "harness/catalogue.h"
#include "lib/version.h"
#include "reports/present.h"
#include "workloads/workload.h"

struct command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;        /* NULL hides internal commands from help */
};

static int cmd_help(int argc, char **argv);

static const struct command commands[] = {
    { "record", cmd_record, "run any command with the samplers on and store it as a run" },
    { "run", cmd_run, "run a named workload (see 'pressmark run --help') and store its runs" },
    { "chat-server", cmd_chat_server, "a VolanoMark-protocol chat server alone (the netserver side)" },
    { "suite", cmd_suite, "an experiment from a file: cells from its axes (kernels too), interleaved runs, resumable" },
    { "lava", cmd_lava, "a suite's kernels as jobs on a LAVA lab's devices: job definitions, submit, collect the runs" },
    { "bisect", cmd_bisect, "the first bad kernel for a suite's cell: Debian packages, package files or a git range" },
    { "list", cmd_list, "one line per stored run" },
    { "show", cmd_show, "a run's or a label's summary in the layout of the kernel reports it reproduces" },
    { "compare", cmd_compare, "labels side by side: the 2002 VolanoMark report's table, Welch's t-test, ratio sentences" },
    { "history", cmd_history, "one metric of one configuration across nights: kernels, settings, change points" },
    { "plot", cmd_plot, "gnuplot charts: swap rate, CPU, free memory, PSI and heartbeat, reclaim, headline per run, latency" },
    { "report", cmd_report, "one self-contained HTML page: tables, ratio sentences, inline SVG charts, runs" },
    { "merge", cmd_merge, "import other machines' results databases (by run UUID, idempotent)" },
    { "push", cmd_push, "send runs to InfluxDB or VictoriaMetrics (line protocol), each once" },
    { "export", cmd_export, "runs' samples, metrics or metadata as CSV, JSON lines or line protocol, streamed" },
    { "doctor", cmd_doctor, "what this machine offers and what pressmark will use" },
    { "help", cmd_help, "this list, or 'pressmark help COMMAND' for one command" },
};

/* pressmark's own helper processes: the balloon's here, each workload's in
 * its ops table (workload_helper). */
static int balloon_helper(int argc, char **argv)
{
    (void)argv;
    return argc == 1 ? balloon_helper_main(3) : PM_EXIT_USAGE;
}

/* Reports learn each workload's headline from the registry through this. */
static bool present_workload(const char *name, struct wl_present *out)
{
    const struct workload_ops *wl = workload_find(name);
    if (!wl)
        return false;
    *out = (struct wl_present){ .headline = wl->headline, .title = wl->headline_title, .cpu_split = wl->show_cpu_split,
                                .params_title = wl->params_title ? wl->params_title : "parameters",
                                .compare_also = wl->compare_also, .figures = wl->metrics };
    return true;
}

static void print_overview(FILE *f)
{
    fprintf(f, "usage: pressmark [--db PATH] <command> [options]\n\n"
               "pressmark puts a workload under a memory cap, samples /proc/stat, /proc/vmstat,\n"
               "/proc/meminfo, PSI and the workload's memory cgroup into SQLite, and reports\n"
               "the tables of the kernel reports it grew from: msg/s or elapsed, %%CPU, %%sys/%%user,\n"
               "total swap in/out/io.\n\n"
               "commands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (commands[i].summary)
            fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n'pressmark <command> --help' shows a command's options; 'pressmark help metrics', every metric.\n"
               "The database is results.db beside the binary in a clone; installed, $XDG_DATA_HOME/pressmark/\n"
               "(~/.local/share/pressmark/, /var/lib/pressmark/ for root); --db or PRESSMARK_DB choose another.\n"
               "The user guide: docs/guide/ in a clone; installed, PREFIX/share/doc/pressmark/guide/ (/usr for the package).\n"
               "The man pages: pressmark(1), pressmark-COMMAND(1), pressmark-suite(5), pressmark-metrics(7), pressmark-nightly(8).\n");
}

static const struct command *find_command(const char *name)
{
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

static int cmd_help(int argc, char **argv)
{
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: pressmark help [COMMAND]\n       pressmark help metrics\n\nThe commands and what each does; with COMMAND, that command's\n"
               "options (the same as 'pressmark COMMAND --help'); 'metrics', every metric a run\n"
               "can store, with its unit, which way is better and where it comes from.\n");
        return 0;
    }
    if (argc >= 2 && strcmp(argv[1], "metrics") == 0) {
        printf("usage: pressmark help metrics\n\n"
               "Every metric a run can store: its name (source.key), unit, which way is better\n"
               "(compare's change, --fail-on-regression and the ratio sentences follow it; a metric\n"
               "with no better direction is reported, never judged) and what it is. A run stores\n"
               "those its kernel, cgroup and workload provide. <word> in a name stands for each\n"
               "of the values listed beside it.\n");
        catalogue_print(stdout);
        return 0;
    }
    if (argc >= 2) {
        const struct command *c = find_command(argv[1]);
        if (!c || !c->summary)
            return cli_usage("help", "'%s' is not a command (see 'pressmark help')", argv[1]);
        char *args[] = { argv[1], "--help", NULL };
        return c->fn(2, args);
    }
    print_overview(stdout);
    return 0;
}

/* Is this invocation help text only: 'help ...' or 'COMMAND --help'?
 * (Only as the first option: elsewhere "-h" may be another option's value,
 * and a run must not start before recovery.) */
static bool only_help(const struct command *c, int argc, char **argv)
{
    return c->fn == cmd_help || (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0));
}

int main(int argc, char **argv)
{
    /* GSL's default answer to a bad argument is abort(): a value from a
     * hostile database must give a NaN, never kill the process. */
    gsl_set_error_handler_off();
    report_set_workload_lookup(present_workload);
    int i = 1;
    while (i < argc && argv[i][0] == '-') {
        if (strcmp(argv[i], "--db") == 0 && i + 1 < argc) {
            store_set_db_path(argv[i + 1]);
            i += 2;
        } else if (strncmp(argv[i], "--db=", 5) == 0) {
            store_set_db_path(argv[i] + 5);
            i++;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            print_overview(stdout);
            return 0;
        } else if (strcmp(argv[i], "--version") == 0) {
            printf("pressmark %s\n", pm_version());
            return 0;
        } else {
            fprintf(stderr, "pressmark: unknown option '%s' (accepted before the command: --db PATH, --help, --version)\n",
                    argv[i]);
            return PM_EXIT_USAGE;
        }
    }
    if (i >= argc) {
        print_overview(stderr);
        return PM_EXIT_USAGE;
    }
    if (strncmp(argv[i], "__", 2) == 0) {
        if (strcmp(argv[i], "__complete") == 0)
            return cmd_complete(argc - i, argv + i);
        if (strcmp(argv[i], "__balloon") == 0)
            return balloon_helper(argc - i, argv + i);
        if (strcmp(argv[i], "__sibling") == 0)
            return sibling_helper_main(argc - i, argv + i);
        if (strcmp(argv[i], "__lava-guest") == 0)
            return exp_lava_guest_main(argc - i, argv + i);
        if (strcmp(argv[i], "__vm-image") == 0)
            return cli_vm_image_main(argc - i, argv + i);
        const struct wl_helper *h = workload_helper(argv[i]);
        if (h)
            return h->main(argc - i, argv + i);
    }
    const struct command *c = find_command(argv[i]);
    if (!c) {
        /* What is accepted comes from the table, so it cannot drift from it. */
        fprintf(stderr, "pressmark: '%s' is not a command (accepted: ", argv[i]);
        for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++)
            fprintf(stderr, "%s%s", k ? ", " : "", commands[k].name);
        fputs(")\n", stderr);
        return PM_EXIT_USAGE;
    }
    /* Whatever command comes next after a pressmark was killed mid-run
     * first undoes what it left (unless a live pressmark owns it); help
     * only prints, and changes nothing on the machine. */
    if (!only_help(c, argc - i, argv + i))
        undo_recover(stderr);
    int rc = c->fn(argc - i, argv + i);
    cmd_output_done();
    return rc;
}
