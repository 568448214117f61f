/* pressmark lava job|submit|collect: a suite's kernels as jobs of a LAVA
 * lab, one step at a time (suite run with backend = lava does all three). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cmd/cli.h"
#include "cmd/parse.h"
#include "cmd/suite_output.h"
#include "experiment/backend_lava.h"
#include "experiment/suite.h"

static const char lava_usage[] =
    "usage: pressmark lava job FILE [--output DIR]  make each kernel's job: its image and pressmark published to the\n"
    "                                              lab's artifact store, its definition written to DIR (default .)\n"
    "       pressmark lava submit FILE           make and submit the jobs not submitted yet; print their ids\n"
    "       pressmark lava collect FILE [JOB...] wait for the suite's submitted jobs (or these), merge their runs\n\n"
    "FILE is a suite with backend = lava and, in [global], lava-url (the LAVA server), device-type (the\n"
    "devices its jobs run on), lava-token-file (a file only its owner can read, holding an API token),\n"
    "lava-artifacts (an HTTP store that takes PUT and answers GET: images and results go through it) and,\n"
    "when the devices reach that store by another address, lava-artifacts-guest (the token goes to another\n"
    "host over plain http only with lava-allow-plain-http = yes). Each kernel group of the\n"
    "suite is one job: LAVA deploys the kernel and pressmark's guest root, boots it and runs the group's\n"
    "cells; each cell's headline and key metrics are LAVA test cases with measurements, and the run\n"
    "database comes back through the store, checked as a VM's results are. 'pressmark suite run FILE'\n"
    "does the three steps and is resumable: a suite killed while its jobs run waits for them again.\n";

struct lava_opts {
    bool quiet;
    char out[1024];
};

#define LO(f) offsetof(struct lava_opts, f)
static const struct opt job_options[] = {
    { .name = "output", .type = OPT_STRING, .offset = LO(out), .size = 1024, .metavar = "DIR",
      .help = "where the job definitions are written (default: the current directory)" },
    { .name = "quiet", .type = OPT_FLAG, .offset = LO(quiet), .help = "no progress on stderr" },
    { .type = OPT_END },
};
static const struct opt step_options[] = {
    { .name = "quiet", .type = OPT_FLAG, .offset = LO(quiet), .help = "no progress on stderr" },
    { .type = OPT_END },
};

static int parse_sub(const char *name, const struct opt *table, void *state, int argc, char **argv, int max_args)
{
    return cmd_parse_sub(name, lava_usage, table, state, argc, argv, max_args);
}

static int run_step(const char *path, const struct suite_run_opts *ro)
{
    struct suite_output so;
    struct exp_events ev;
    cli_suite_output_init(&so, ro->quiet, &ev);
    int rc = suite_run(path, ro, &ev);
    cli_suite_output_free(&so);
    return rc;
}

static int cmd_lava_job(int argc, char **argv)
{
    struct lava_opts o = { 0 };
    int first = parse_sub("lava job", job_options, &o, argc, argv, 1);
    if (first < 0)
        return cmd_parse_exit(first);
    if (first >= argc)
        return cli_usage("lava job", "name a suite file (pressmark lava job FILE)");
    const char *dir = o.out[0] ? o.out : ".";
    struct stat st;
    if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
        return cli_usage("lava job", "--output %s: not a directory (accepted: an existing directory)", dir);
    struct exp_lava_step step = { .step = LAVA_MAKE, .out = dir };
    struct suite_run_opts ro = { .quiet = o.quiet, .backend_cmd = "lava", .backend_opts = &step };
    return run_step(argv[first], &ro);
}

static int cmd_lava_submit(int argc, char **argv)
{
    struct lava_opts o = { 0 };
    int first = parse_sub("lava submit", step_options, &o, argc, argv, 1);
    if (first < 0)
        return cmd_parse_exit(first);
    if (first >= argc)
        return cli_usage("lava submit", "name a suite file (pressmark lava submit FILE)");
    struct exp_lava_step step = { .step = LAVA_SUBMIT };
    struct suite_run_opts ro = { .quiet = o.quiet, .backend_cmd = "lava", .backend_opts = &step };
    return run_step(argv[first], &ro);
}

static int cmd_lava_collect(int argc, char **argv)
{
    struct lava_opts o = { 0 };
    int first = parse_sub("lava collect", step_options, &o, argc, argv, 65);
    if (first < 0)
        return cmd_parse_exit(first);
    if (first >= argc)
        return cli_usage("lava collect", "name a suite file (pressmark lava collect FILE [JOB...])");
    size_t n = (size_t)(argc - first - 1);
    int64_t *jobs = calloc(n + 1, sizeof *jobs);
    if (!jobs)
        return cli_usage("lava collect", "out of memory");
    for (size_t i = 0; i < n; i++) {
        const char *v = argv[first + 1 + (int)i];
        char *end;
        long long id = strtoll(v, &end, 10);
        if (!*v || *end || id <= 0 || strspn(v, "0123456789") != strlen(v)) {
            free(jobs);
            return cli_usage("lava collect", "'%s': not a LAVA job id (accepted: a whole number above 0)", v);
        }
        jobs[i] = id;
    }
    struct exp_lava_step step = { .step = LAVA_COLLECT, .jobs = jobs, .njobs = n };
    struct suite_run_opts ro = { .quiet = o.quiet, .backend_cmd = "lava", .backend_opts = &step };
    int rc = run_step(argv[first], &ro);
    free(jobs);
    return rc;
}

int cmd_lava(int argc, char **argv)
{
    static const struct { const char *name; int (*fn)(int, char **); } subs[] = {
        { "job", cmd_lava_job }, { "submit", cmd_lava_submit }, { "collect", cmd_lava_collect },
    };
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        fputs(lava_usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? PM_EXIT_USAGE : 0;
    }
    for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++)
        if (strcmp(argv[1], subs[i].name) == 0)
            return subs[i].fn(argc, argv);
    return cli_usage("lava", "'%s' is not a lava command (accepted: job, submit, collect)", argv[1]);
}
