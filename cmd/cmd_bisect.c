/* pressmark bisect: the first bad kernel among Debian packages, package
 * files or a git range, for one cell of a suite file (bisect/bisect.h
 * does the work; this parses, and prints the plan and the evidence). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cmd/bisect_output.h"
#include "cmd/cli.h"
#include "cmd/parse.h"
#include "cmd/suite_output.h"
#include "bisect/bisect.h"
#include "lib/quote.h"

static const char bisect_usage[] =
    "usage: pressmark bisect --good PACKAGE --bad PACKAGE --packages [options] FILE\n"
    "       pressmark bisect --good FILE.deb --bad FILE.deb --debs [options] FILE PACKAGE-FILE...\n"
    "       pressmark bisect --good COMMIT --bad COMMIT --git REPO --build CMD [options] FILE\n"
    "       pressmark bisect --continue [--id N] [--git REPO --build CMD] FILE [PACKAGE-FILE...]\n"
    "       pressmark bisect --step [--id N] --git REPO --build CMD FILE   (git bisect run's command)\n\n"
    "Finds the first bad kernel for one cell of the suite file FILE: the cell's\n"
    "metric is measured on the good and the bad kernel (one boot each, --runs runs\n"
    "a boot), which must differ (Welch's t-test at --alpha; else it says so and\n"
    "exits 1), then on candidates between them, halving the range each step.\n"
    "Candidates: --packages, the kernel packages apt knows of the endpoints'\n"
    "flavour (e.g. cloud-amd64) whose versions lie between theirs, in dpkg's order;\n"
    "--debs, the package files after FILE in the order given; --git, the commits\n"
    "git bisect picks in a private clone of REPO (the repository itself is only\n"
    "read), each built by CMD run in the clone without a shell, with\n"
    "PRESSMARK_BISECT_OUT an empty private directory and PRESSMARK_BISECT_COMMIT the\n"
    "commit in its environment; its last line on standard output names the kernel\n"
    "it built: BZIMAGE@MODULES (the INSTALL_MOD_PATH of make modules_install) or\n"
    "PATH.deb. A build that fails is skipped with its log's last lines.\n\n"
    "Each boot is a suite of its own (kernel = the candidate, runs = --runs) run\n"
    "with FILE's backend, its runs stored and labelled 'CELL @ KERNEL'. A step is\n"
    "good when its runs differ from the bad kernel's and not from the good one's,\n"
    "bad the other way round (Welch's p; each look after a boot held to alpha /\n"
    "looks, looks = --max-runs / --runs; a metric constant on both sides: the same\n"
    "value is no difference, two values are); otherwise it boots again, and at\n"
    "--max-runs it cannot tell and is skipped. Runs already stored for the cell and\n"
    "kernel (the same package version, file, or bzImage) are used, not repeated.\n"
    "The same command again, or --continue, resumes after any interruption without\n"
    "repeating a finished step. A database is data, never code: what a bisection\n"
    "runs is given again each time, and the stored bisection must hold the same\n"
    "(else one line, exit 2, nothing run): --continue and --step take FILE, for\n"
    "--git also --git REPO --build CMD, and for --debs every package file, the\n"
    "--good and --bad ones included. It ends with the first bad kernel, the evidence\n"
    "(each step's runs, mean, verdict and p), the boots and the memory-management\n"
    "configuration differences between the last good and the first bad kernel.\n"
    "Exit status: 0 found; 1 the endpoints do not differ, one cannot be measured,\n"
    "or only skipped candidates are left; 2 bad input or a harness error; 128+N\n"
    "interrupted. --step: git bisect run's 0 good, 1 bad, 125 skip, 128 stop.\n";

struct bisect_opts {
    char cell[256], metric[96], good[1024], bad[1024], git[1024], build[1024];
    bool packages, debs, plan, cont, step, quiet;
    unsigned runs, max_runs, id, format;
    double alpha;
};

static const char *const formats[] = { "text", "json", NULL };

#define BO(f) offsetof(struct bisect_opts, f)
#define BS(f) sizeof(((struct bisect_opts *)0)->f)
static const struct opt bisect_options[] = {
    { .name = "cell", .type = OPT_STRING, .offset = BO(cell), .size = BS(cell), .metavar = "LABEL",
      .help = "the cell of FILE to measure, by its label (default: its only cell)" },
    { .name = "metric", .type = OPT_STRING, .offset = BO(metric), .size = BS(metric), .metavar = "NAME",
      .help = "the metric judged (default: the cell's headline); one the cell's runs store" },
    { .name = "good", .type = OPT_STRING, .offset = BO(good), .size = BS(good), .metavar = "KERNEL",
      .help = "the last known good kernel: a package name, a package file, or with --git a commit" },
    { .name = "bad", .type = OPT_STRING, .offset = BO(bad), .size = BS(bad), .metavar = "KERNEL",
      .help = "the known bad kernel, after the good one" },
    { .name = "packages", .type = OPT_FLAG, .offset = BO(packages),
      .help = "candidates: apt's kernel packages of the endpoints' flavour between their versions" },
    { .name = "debs", .type = OPT_FLAG, .offset = BO(debs),
      .help = "candidates: the package files after FILE, in the order given" },
    { .name = "git", .type = OPT_STRING, .offset = BO(git), .size = BS(git), .metavar = "REPO",
      .help = "candidates: the commits between --good and --bad in REPO, as git bisect picks them" },
    { .name = "build", .type = OPT_STRING, .offset = BO(build), .size = BS(build), .metavar = "CMD",
      .help = "with --git: builds the checkout; its last line of output names BZIMAGE@MODULES or PATH.deb" },
    { .name = "runs", .type = OPT_UINT, .offset = BO(runs), .metavar = "N", .def = "3", .min = BISECT_RUNS_MIN,
      .max = BISECT_RUNS_MAX, .noun = "run count", .help = "runs a boot" },
    { .name = "max-runs", .type = OPT_UINT, .offset = BO(max_runs), .metavar = "N", .def = "9",
      .min = BISECT_RUNS_MIN, .max = BISECT_MAX_RUNS_MAX, .noun = "run count",
      .help = "a step's runs at most before it cannot tell" },
    { .name = "alpha", .type = OPT_REAL, .offset = BO(alpha), .metavar = "A", .def = "0.05",
      .min = BISECT_ALPHA_MIN, .max = BISECT_ALPHA_MAX, .noun = "significance level",
      .help = "the significance level of every verdict" },
    { .name = "plan", .type = OPT_FLAG, .offset = BO(plan),
      .help = "list the candidates in order and exit: nothing boots, nothing is written" },
    { .name = "continue", .type = OPT_FLAG, .offset = BO(cont),
      .help = "resume the newest unfinished bisection (or --id's), given FILE, --git and --build or the package "
              "files again: it must hold the same" },
    { .name = "step", .type = OPT_FLAG, .offset = BO(step),
      .help = "git bisect run's command: build, measure and judge the checkout here, given FILE, --git and --build "
              "again" },
    { .name = "id", .type = OPT_UINT, .offset = BO(id), .metavar = "N", .min = 1, .max = 1e9, .noun = "bisection id",
      .help = "the bisection --continue, --step or the evidence is for" },
    { .name = "format", .type = OPT_CHOICE, .offset = BO(format), .metavar = "F", .words = formats, .noun = "format",
      .help = "the evidence as text or json (default text)" },
    { .name = "quiet", .type = OPT_FLAG, .offset = BO(quiet), .help = "no progress on stderr" },
    { .type = OPT_END },
};

/* The kind asked for, one of three. -1 after the one line. */
static int kind_of(const struct bisect_opts *o, enum bisect_kind *k)
{
    int n = o->packages + o->debs + (o->git[0] != '\0');
    if (n != 1)
        return cli_usage("bisect", "%s (accepted: one of --packages, --debs, --git REPO)",
                        n ? "more than one kind of candidates" : "no kind of candidates"), -1;
    *k = o->packages ? BISECT_PACKAGES : o->debs ? BISECT_DEBS : BISECT_GIT;
    if (*k == BISECT_GIT && !o->build[0])
        return cli_usage("bisect", "--git %s needs --build CMD (accepted: the command that builds a checkout)",
                        o->git), -1;
    if (!o->good[0] || !o->bad[0])
        return cli_usage("bisect", "--good and --bad are needed (accepted: the last good and the first known bad "
                        "kernel)"), -1;
    return 0;
}

static int run_new(const struct bisect_opts *o, int argc, char **argv, int first)
{
    enum bisect_kind kind;
    if (kind_of(o, &kind) < 0)
        return PM_EXIT_USAGE;
    if (first >= argc)
        return cli_usage("bisect", "name a suite file (pressmark bisect [options] FILE)");
    if (kind != BISECT_DEBS && argc - first > 1)
        return cli_usage("bisect", "'%s': package files after FILE go with --debs only", argv[first + 1]);
    struct bisect_args a = { .suite_path = argv[first], .cell = o->cell, .metric = o->metric, .kind = kind,
                             .good = o->good, .bad = o->bad, .repo = o->git, .build = o->build,
                             .debs = argv + first + 1, .ndebs = (size_t)(argc - first - 1), .runs = (int)o->runs,
                             .max_runs = (int)o->max_runs, .alpha = o->alpha };
    struct bisect_plan bp;
    struct pm_err err;
    if (bisect_prepare(&a, &bp, &err) < 0)
        return cli_usage("bisect", "%s", err.msg);
    if (o->plan) {
        cli_bisect_print_plan(&bp);
        bisect_plan_free(&bp);
        return 0;
    }
    struct suite_output so;
    struct exp_events ev;
    cli_suite_output_init(&so, o->quiet, &ev);
    int64_t id = 0;
    int rc = bisect_run(&bp, &ev, o->quiet, &id);
    cli_suite_output_free(&so);
    bisect_plan_free(&bp);
    if (id && rc < 128 && rc != 2)
        cli_bisect_print_result(id, o->format == 1);
    return rc;
}

/* --continue and --step: what the bisection runs given again, checked
 * as a new bisection's is (bisect_prepare_resume). */
static int run_resume(const struct bisect_opts *o, int argc, char **argv, int first)
{
    const char *what = o->step ? "--step" : "--continue";
    if (first >= argc)
        return cli_usage("bisect", "%s needs the suite FILE the bisection was started with (accepted: pressmark bisect "
                        "%s [--id N] [--git REPO --build CMD] FILE%s)", what, what, o->step ? "" : " [PACKAGE-FILE...]");
    if (o->step && (!o->git[0] || !o->build[0]))
        return cli_usage("bisect", "--step needs --git REPO and --build CMD (accepted: those the git bisection was "
                        "started with)");
    if (!o->git[0] != !o->build[0])
        return cli_usage("bisect", "--continue %s: --git REPO and --build CMD go together (accepted: both, as a git "
                        "bisection was started with, or neither)", o->git[0] ? "--git" : "--build");
    if (o->step && argc - first > 1)
        return cli_usage("bisect", "'%s': --step takes one FILE (accepted: --step --git REPO --build CMD FILE)",
                        argv[first + 1]);
    struct bisect_resume_args a = { .suite_path = argv[first], .repo = o->git, .build = o->build,
                                    .debs = argv + first + 1, .ndebs = (size_t)(argc - first - 1) };
    struct bisect_plan given;
    struct pm_err err;
    if (bisect_prepare_resume(&a, &given, &err) < 0)
        return cli_usage("bisect", "%s", err.msg);
    struct suite_output so;
    struct exp_events ev;
    cli_suite_output_init(&so, o->quiet, &ev);
    char cwd[PATH_MAX];
    int64_t id = o->id;
    int rc = o->step ? (getcwd(cwd, sizeof cwd) ? bisect_step_here(id, &given, cwd, &ev, o->quiet) : 128)
                     : bisect_resume(id, &given, &ev, o->quiet, &id);
    cli_suite_output_free(&so);
    bisect_plan_free(&given);
    if (!o->step && id && rc < 128 && rc != 2)
        cli_bisect_print_result(id, o->format == 1);
    return rc;
}

int cmd_bisect(int argc, char **argv)
{
    struct bisect_opts o = { 0 };
    const struct cmd_group groups[] = { { NULL, bisect_options, &o }, { "", exp_db_option, NULL } };
    const struct cmd_spec spec = { .name = "bisect", .usage = bisect_usage, .groups = groups, .ngroups = 2,
                                   .max_args = -1, .first = 1 };
    int first = cmd_parse(&spec, argc, argv);
    if (first < 0)
        return cmd_parse_exit(first);
    if (!o.cont && !o.step)
        return run_new(&o, argc, argv, first);
    int rc = run_resume(&o, argc, argv, first);
    /* git bisect run takes 2 for "bad": a --step it cannot take stops it. */
    return o.step && rc == PM_EXIT_USAGE ? 128 : rc;
}
