/* pressmark suite plan|run|status|list: experiments as files. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cmd/cli.h"
#include "cmd/parse.h"
#include "cmd/suite_output.h"
#include "experiment/backend.h"
#include "experiment/plan.h"
#include "experiment/plan_power.h"
#include "experiment/suite.h"
#include "experiment/view.h"
#include "kernels/spec.h"
#include "lib/quote.h"
#include "lib/units.h"
#include "pressure/undo.h"
#include "store/suites.h"

static const char suite_usage[] =
    "usage: pressmark suite plan FILE      the cells, runs, order, estimated time, detectable change; runs nothing\n"
    "       pressmark suite run FILE       run it, or continue it where it stopped\n"
    "       pressmark suite status [ID]    what is done, running, failed and left (default: the latest)\n"
    "       pressmark suite list           every suite in the database\n"
    "       pressmark suite next-kernel FILE  the kernel to boot next (backend = host)\n\n"
    "A suite file is INI in fio's job-file style: a [global] section and one section\n"
    "per part, each key a run option without its dashes (workload, mem-cap, swap,\n"
    "sysctl, a workload's options...). A key given a comma list is an axis: the\n"
    "suite's cells are the product of its axes. [global] also takes runs = N or\n"
    "runs = MIN..MAX with target-ci = P% (add runs until each cell's 95% confidence\n"
    "interval is within P% of its mean; it looks after each run from the MIN-th to\n"
    "the MAX-th, K = MAX - MIN + 1 looks, each at 1 - 0.05/K (Bonferroni), so the\n"
    "interval it stops with holds 95%), alpha = A (the significance level plan\n"
    "judges power at; above 0, at most 0.5; 0.05), detect = P% (plan also says the\n"
    "runs a side that find a change of P% with 80% power), order =\n"
    "interleaved|sequential, order-seed, question, baseline and name.\n\n"
    "kernel = K1, K2 compares kernels: running, a linux-image package name, a\n"
    "package file PATH.deb, or a bzImage PATH[@MODULES_DIR]. Kernels that are not\n"
    "running boot in QEMU VMs (backend = vm, the default; vm-memory, vm-cpus,\n"
    "vm-append, vm-timeout, vm-accel = auto|kvm|tcg), on this machine one after\n"
    "another (backend = host; suite run --reboot kexec boots the next one), or as\n"
    "jobs of a LAVA lab (backend = lava; see pressmark lava --help).\n";

struct suite_opts {
    bool cont, again, quiet, dry_run;
    unsigned reboot;            /* 0: none, 1: kexec */
    unsigned guest_group;
    char guest_suite[40];
    uint64_t guest_seed;
    char guest_meta[256];
};

static const char *const reboot_words[] = { "none", "kexec", NULL };

static int check_uuid(void *state, const char *v, struct pm_err *err)
{
    (void)state;
    if (strlen(v) != 36 || strspn(v, "0123456789abcdef-") != 36)
        return pm_errf(err, "not a suite UUID (accepted: 36 characters of hex digits and '-')");
    return 0;
}

#define SO(f) offsetof(struct suite_opts, f)
static const struct opt run_options[] = {
    { .name = "continue", .type = OPT_FLAG, .offset = SO(cont),
      .help = "a changed file continues the unfinished suite instead of starting a new one" },
    { .name = "again", .type = OPT_FLAG, .offset = SO(again), .help = "run a suite that is complete once more, anew" },
    { .name = "quiet", .type = OPT_FLAG, .offset = SO(quiet), .help = "no progress on stderr" },
    { .name = "reboot", .type = OPT_CHOICE, .offset = SO(reboot), .metavar = "HOW", .words = reboot_words,
      .help = "backend = host: when this kernel's cells are done, boot the next kernel (kexec: load it with kexec, "
              "install a systemd unit that continues the suite after the boot, reboot)" },
    { .name = "dry-run", .type = OPT_FLAG, .offset = SO(dry_run),
      .help = "with --reboot: print the commands and the unit instead of running and installing them" },
    /* What the host tells a guest (kernels/vm.c writes them, never a user). */
    { .name = "guest-group", .type = OPT_UINT, .offset = SO(guest_group), .metavar = "N", .min = 0, .max = 63,
      .help = "inside a VM: run only this kernel group's cells" },
    { .name = "guest-suite", .type = OPT_STRING, .offset = SO(guest_suite), .size = 40, .metavar = "UUID",
      .set = check_uuid, .help = "inside a VM: the host suite's UUID" },
    { .name = "guest-seed", .type = OPT_U64, .offset = SO(guest_seed), .metavar = "N",
      .help = "inside a VM: the host suite's order seed" },
    { .name = "guest-meta", .type = OPT_STRING, .offset = SO(guest_meta), .size = 256, .metavar = "FILE",
      .help = "inside a VM: key=value metadata for every run (the kernel's)" },
    { .type = OPT_END },
};
static const struct opt no_options[] = { { .type = OPT_END } };

static int parse_sub(const char *name, const struct opt *table, void *state, int argc, char **argv, int max_args)
{
    return cmd_parse_sub(name, suite_usage, table, state, argc, argv, max_args);
}

/* With target-ci, how a cell's interval is judged: each look at a higher
 * confidence, so that the one it stops with is a 95% interval. */
static void print_look_rule(const struct suite_plan *p)
{
    if (p->target_ci <= 0)
        return;
    char conf[32];
    pm_fmt_sig(conf, sizeof conf, 100 * suite_ci_confidence(p), 4);
    printf("each cell's CI is judged after each of its runs %u..%u at %s%% (Bonferroni over %u looks), so the one "
           "it stops with holds 95%%\n", p->runs_min, p->runs_max, conf, suite_ci_looks(p));
}

/* The plan's first lines: the suite, its cells times its runs (a fixed
 * count, or a range that target-ci stops within), the order, and the
 * question when the file asks one. */
static void print_plan_header(const struct suite_plan *p)
{
    printf("suite %s (%s): %zu cell%s x ", p->name, p->file.path, p->ncells, p->ncells == 1 ? "" : "s");
    char target[48];
    pm_fmt_sig(target, sizeof target, p->target_ci * 100, 3);
    if (p->runs_min == p->runs_max)
        printf("%u runs = %zu runs", p->runs_min, p->ncells * p->runs_min);
    else
        printf("%u to %u runs until each cell's 95%% CI is within %s%% of its mean = %zu to %zu runs", p->runs_min,
               p->runs_max, target, p->ncells * p->runs_min, p->ncells * p->runs_max);
    printf(", %s\n", p->order == ORDER_INTERLEAVED ? "interleaved (every round in a new order)" : "sequential");
    print_look_rule(p);
    if (p->question[0])
        printf("question: %s\n", p->question);
}

/* The cells table's column widths, one per axis as well. */
struct plan_widths {
    int label, workload, axis[16];
};

/* Columns as wide as their longest entry (kernel package names are long),
 * never narrower than the widths the table was first laid out with. */
static void measure_plan_columns(const struct suite_plan *p, struct plan_widths *w)
{
    w->label = 28;
    w->workload = 8;
    for (size_t i = 0; i < p->ncells; i++) {
        w->label = (int)strlen(p->cells[i].label) > w->label ? (int)strlen(p->cells[i].label) : w->label;
        w->workload = (int)strlen(p->cells[i].wl->name) > w->workload ? (int)strlen(p->cells[i].wl->name) : w->workload;
    }
    for (size_t a = 0; a < p->naxes; a++) {
        w->axis[a] = (int)strlen(p->axis_names[a]) > 12 ? (int)strlen(p->axis_names[a]) : 12;
        for (size_t i = 0; i < p->ncells; i++) {
            const char *v = pm_kv_get(&p->cells[i].axes, p->axis_names[a]);
            w->axis[a] = v && (int)strlen(v) > w->axis[a] ? (int)strlen(v) : w->axis[a];
        }
    }
}

/* A cell's estimate column, from its earlier runs in the database when
 * there are any: true (and *secs, one run's time) when it is known. */
static bool cell_estimate(struct pm_db *db, bool have_db, const struct suite_cell *c, double *secs, char *buf,
                          size_t len)
{
    struct pm_err err;
    int n = 0;
    *secs = 0;
    if (have_db && suites_estimate(db, c->wl->name, c->label, c->params, secs, &n, &err) == 0 && n > 0) {
        char t[32];
        pm_fmt_elapsed(t, sizeof t, *secs, true);
        snprintf(buf, len, "%s a run (%d earlier run%s)", t, n, n == 1 ? "" : "s");
        return true;
    }
    snprintf(buf, len, "no earlier runs");
    return false;
}

/* The power columns' titles: the runs a side the cells get ("5 runs
 * detect", "3..20 runs detect") and, with detect = P%, "P% needs". */
static void power_titles(const struct suite_plan *p, char *detect, size_t dlen, char *needs, size_t nlen)
{
    if (p->runs_min == p->runs_max)
        snprintf(detect, dlen, "%u run%s detect", p->runs_min, p->runs_min == 1 ? "" : "s");
    else
        snprintf(detect, dlen, "%u..%u runs detect", p->runs_min, p->runs_max);
    char d[32];
    pm_fmt_sig(d, sizeof d, p->detect_pct, 3);
    snprintf(needs, nlen, "%s%% needs", d);
}

static void fmt_pct(char *buf, size_t len, double pct)
{
    char v[32];
    pm_fmt_sig(v, sizeof v, pct, pct < 10 ? 2 : 3);
    snprintf(buf, len, "%s%%", v);
}

/* What runs_needed says of the cell's planned runs. */
static void judge_needs(const struct suite_plan *p, unsigned need, char *buf, size_t len)
{
    if (need > SUITE_MAX_RUNS)
        snprintf(buf, len, "more than %u runs", SUITE_MAX_RUNS);
    else if (need <= p->runs_min)
        snprintf(buf, len, "%u runs: %u are enough", need, p->runs_min);
    else if (p->runs_min == p->runs_max)
        snprintf(buf, len, "%u runs: %u are too few", need, p->runs_min);
    else if (need <= p->runs_max)
        snprintf(buf, len, "%u runs: within %u..%u", need, p->runs_min, p->runs_max);
    else
        snprintf(buf, len, "%u runs: more than %u", need, p->runs_max);
}

/* A cell's CV, detectable change and, with detect = P%, runs needed;
 * "-" where its earlier runs do not tell (fewer than 2 with a headline). */
static void cell_power_text(const struct suite_plan *p, struct pm_db *db, bool have_db, const struct suite_cell *c,
                            char *cv, char *detect, char *needs, size_t len)
{
    struct cell_power cp;
    struct pm_err err;
    snprintf(cv, len, "-");
    snprintf(detect, len, "-");
    snprintf(needs, len, "-");
    if (!have_db || suite_cell_power(db, p, c, &cp, &err) < 0 || isnan(cp.cv_pct))
        return;
    fmt_pct(cv, len, cp.cv_pct);
    if (isnan(cp.detect_min_pct))
        return;
    char lo[32], hi[32];
    fmt_pct(lo, sizeof lo, cp.detect_min_pct);
    fmt_pct(hi, sizeof hi, cp.detect_max_pct);
    if (p->runs_min == p->runs_max)
        snprintf(detect, len, "%s", lo);
    else
        snprintf(detect, len, "%s..%s", lo, hi);
    if (p->detect_pct > 0 && cp.runs_needed)
        judge_needs(p, cp.runs_needed, needs, len);
}

/* A cell's columns after its axes. */
struct plan_row {
    char est[96], cv[32], detect[64], needs[64];
    bool known;                 /* its estimate */
    double secs;
};

static int widest(const struct plan_row *rows, size_t n, size_t off, int least)
{
    int w = least;
    for (size_t i = 0; i < n; i++) {
        int l = (int)strlen((const char *)&rows[i] + off);
        w = l > w ? l : w;
    }
    return w;
}

/* One line per cell: its number, label, workload, axis values ("-" where
 * the cell has none), estimate and what its runs can detect. Adds up the
 * estimated total (one run's time times the runs each cell gets at least)
 * and counts the cells it is known for. */
static void print_plan_cells(const struct suite_plan *p, struct pm_db *db, bool have_db, double *total, size_t *known)
{
    *total = 0;
    *known = 0;
    struct plan_widths w;
    measure_plan_columns(p, &w);
    struct plan_row *rows = calloc(p->ncells ? p->ncells : 1, sizeof *rows);
    if (!rows) {
        printf("\n(out of memory for the cells' table)\n");
        return;
    }
    for (size_t i = 0; i < p->ncells; i++) {
        struct plan_row *r = &rows[i];
        if ((r->known = cell_estimate(db, have_db, &p->cells[i], &r->secs, r->est, sizeof r->est))) {
            *total += r->secs * p->runs_min;
            (*known)++;
        }
        cell_power_text(p, db, have_db, &p->cells[i], r->cv, r->detect, r->needs, sizeof r->cv);
    }
    char dtitle[64], ntitle[64];
    power_titles(p, dtitle, sizeof dtitle, ntitle, sizeof ntitle);
    int ew = widest(rows, p->ncells, offsetof(struct plan_row, est), 8);
    int cw = widest(rows, p->ncells, offsetof(struct plan_row, cv), 5);
    int dw = widest(rows, p->ncells, offsetof(struct plan_row, detect), (int)strlen(dtitle));
    bool needs = p->detect_pct > 0;
    printf("\n  #  %-*s %-*s", w.label, "label", w.workload, "workload");
    for (size_t a = 0; a < p->naxes; a++)
        printf(" %-*s", w.axis[a], p->axis_names[a]);
    printf(" %-*s %-*s %-*s%s%s\n", ew, "estimate", cw, "CV", needs ? dw : 0, dtitle, needs ? " " : "",
           needs ? ntitle : "");
    for (size_t i = 0; i < p->ncells; i++) {
        const struct suite_cell *c = &p->cells[i];
        printf("%3zu  %-*s %-*s", i, w.label, c->label, w.workload, c->wl->name);
        for (size_t a = 0; a < p->naxes; a++) {
            const char *v = pm_kv_get(&c->axes, p->axis_names[a]);
            printf(" %-*s", w.axis[a], v ? v : "-");
        }
        printf(" %-*s %-*s %-*s%s%s\n", ew, rows[i].est, cw, rows[i].cv, needs ? dw : 0, rows[i].detect,
               needs ? " " : "", needs ? rows[i].needs : "");
    }
    free(rows);
}

/* What the power columns mean, under the table. */
static void print_plan_power_note(const struct suite_plan *p)
{
    char a[32], d[32];
    pm_fmt_sig(a, sizeof a, p->alpha, 3);
    pm_fmt_sig(d, sizeof d, p->detect_pct, 3);
    printf("\ndetect: the smallest change of a cell's headline (in %% of its mean) that its runs find against as "
           "many\nruns of another cell 4 times in 5 (80%% power, two-sided t-test at alpha %s), if both vary as "
           "its\nearlier runs did (CV: of 2 or more earlier runs; \"-\": too few)", a);
    if (p->detect_pct > 0)
        printf(". %s%% needs: the runs a side that\nfind a change of %s%% so (detect = %s%%)", d, d, d);
    printf("\n");
}

/* One boot per kernel and machine: where each group's cells run, as the
 * suite's backend says. */
static void print_plan_kernels(const struct suite_plan *p)
{
    printf("\nkernels (backend %s):\n", p->backend->name);
    for (size_t g = 0; g < p->ngroups; g++) {
        const struct suite_group *sg = &p->groups[g];
        struct kernel_spec ks;
        struct pm_err err;
        bool here = kernel_spec_parse(sg->kernel, &ks, &err) == 0 && kernel_spec_is_running(&ks);
        char q[300], where[1200];
        quote_terminal(sg->kernel, q, sizeof q);
        if (here)
            snprintf(where, sizeof where, "the running kernel: runs here");
        else
            p->backend->where(p, sg, where, sizeof where);
        printf("  %-40s %s: cells", q, where);
        for (size_t i = 0; i < p->ncells; i++)
            if (p->cells[i].group == (int)g)
                printf(" %zu", i);
        printf("\n");
    }
}

/* The order the runs go in. A seed in the file fixes the interleaved
 * order, so the first rounds (at most 3) are shown as they will run;
 * otherwise the seed is drawn when the suite starts. */
static void print_plan_order(const struct suite_plan *p)
{
    if (p->has_seed && p->order == ORDER_INTERLEAVED) {
        printf("\norder: interleaved, seed %llu (each round shuffled from it); the first rounds:\n",
               (unsigned long long)p->seed);
        int *order = calloc(p->ncells ? p->ncells : 1, sizeof *order);
        for (int round = 1; order && round <= 3 && (unsigned)round <= p->runs_min; round++) {
            for (size_t i = 0; i < p->ncells; i++)
                order[i] = (int)i;
            suite_shuffle(p->seed & 0x7fffffffffffffffull, round, order, p->ncells);
            printf("  round %d: cells", round);
            for (size_t i = 0; i < p->ncells; i++)
                printf(" %d", order[i]);
            printf("\n");
        }
        free(order);
    }
    else if (p->order == ORDER_INTERLEAVED)
        printf("\norder: interleaved%s; the seed is drawn when the suite starts and recorded\n",
               p->has_kernels ? " within each kernel's boot, the kernels one after another" : "");
    else
        printf("\norder: sequential, cell 0's runs first\n");
}

/* The suite's estimated duration: only from the cells with earlier runs,
 * and for a run range only its least ("at least ... the first"). */
static void print_plan_estimate(const struct suite_plan *p, double total, size_t known)
{
    if (known) {
        char t[32];
        pm_fmt_elapsed(t, sizeof t, total, false);
        printf("estimated duration: %s%s for %s runs (from earlier runs of %zu of %zu cells)\n",
               p->runs_min == p->runs_max ? "" : "at least ", t, p->runs_min == p->runs_max ? "the" : "the first",
               known, p->ncells);
    } else {
        printf("estimated duration: not known (no earlier runs of these cells); shown after the first round\n");
    }
}

static int cmd_suite_plan(int argc, char **argv)
{
    struct suite_opts o = { 0 };
    int first = parse_sub("suite plan", no_options, &o, argc, argv, 1);
    if (first < 0)
        return cmd_parse_exit(first);
    if (first >= argc)
        return cli_usage("suite plan", "name a suite file (pressmark suite plan FILE)");
    struct suite_plan p;
    struct pm_err err;
    if (suite_plan_load(argv[first], NULL, &p, &err) < 0)
        return cli_usage("suite plan", "%s", err.msg);
    cmd_human_output();
    /* Estimates come from the database when there is one (opened as
     * read-only commands open it); a plan needs none, and says nothing
     * when there is none. */
    struct pm_db db;
    struct pm_err dberr;
    bool have_db = cli_read_db(&db, &dberr) == 0;
    print_plan_header(&p);
    double total;
    size_t known;
    print_plan_cells(&p, &db, have_db, &total, &known);
    print_plan_power_note(&p);
    if (p.has_kernels)
        print_plan_kernels(&p);
    print_plan_order(&p);
    print_plan_estimate(&p, total, known);
    if (have_db)
        store_db_close(&db);
    suite_plan_free(&p);
    return 0;
}

static int cmd_suite_run(int argc, char **argv)
{
    struct suite_opts o = { 0 };
    int first = parse_sub("suite run", run_options, &o, argc, argv, 1);
    if (first < 0)
        return cmd_parse_exit(first);
    if (first >= argc)
        return cli_usage("suite run", "name a suite file (pressmark suite run FILE)");
    struct suite_run_opts ro = { .cont = o.cont, .again = o.again, .quiet = o.quiet, .reboot = o.reboot == 1,
                                 .dry_run = o.dry_run, .guest = o.guest_suite[0] != '\0', .group = (int)o.guest_group,
                                 .seed = o.guest_seed };
    if (o.dry_run && !ro.reboot)
        return cli_usage("suite run", "--dry-run goes with --reboot kexec (accepted: --reboot kexec --dry-run)");
    snprintf(ro.suite_uuid, sizeof ro.suite_uuid, "%s", o.guest_suite);
    snprintf(ro.meta_path, sizeof ro.meta_path, "%s", o.guest_meta);
    struct suite_output so;
    struct exp_events ev;
    cli_suite_output_init(&so, ro.quiet, &ev);
    int rc = suite_run(argv[first], &ro, &ev);
    cli_suite_output_free(&so);
    return rc;
}

static void list_one(void *arg, const struct suite_rec *s, int cells, int planned, int finished)
{
    (void)arg;
    char when[32] = "";
    time_t t = (time_t)(s->created_ns / 1000000000);
    struct tm tm;
    if (localtime_r(&t, &tm))
        strftime(when, sizeof when, "%Y-%m-%d %H:%M", &tm);
    printf("%4lld  %-16s  %-24s  %-8s  %5d  %4d/%-4d\n", (long long)s->id, when, s->name, s->state, cells, finished,
           planned);
}

static int cmd_suite_list(int argc, char **argv)
{
    struct suite_opts o = { 0 };
    int first = parse_sub("suite list", no_options, &o, argc, argv, 0);
    if (first < 0)
        return cmd_parse_exit(first);
    struct pm_db db;
    struct pm_err err;
    if (cmd_open_db(&db, "suite list") != 0)
        return PM_EXIT_USAGE;
    cmd_human_output();
    printf("%4s  %-16s  %-24s  %-8s  %5s  %s\n", "id", "started", "name", "state", "cells", "runs done/planned");
    int rc = suites_each(&db, list_one, NULL, &err);
    store_db_close(&db);
    if (rc < 0)
        return cli_usage("suite list", "%s", err.msg);
    return 0;
}

static int cmd_suite_status(int argc, char **argv)
{
    struct suite_opts o = { 0 };
    int first = parse_sub("suite status", no_options, &o, argc, argv, 1);
    if (first < 0)
        return cmd_parse_exit(first);
    int64_t id = 0;
    struct pm_err err;
    if (first < argc && (!argv[first][0] || cli_suite_id(argv[first], &id, &err) < 0))
        return cli_usage("suite status", "%s", argv[first][0] ? err.msg : "'' is not a suite id");
    struct pm_db db;
    if (cmd_open_db(&db, "suite status") != 0)
        return PM_EXIT_USAGE;
    /* The suite as stored: its cells from the database, its counts from
     * the file as it was run; nothing is applied (status needs no root). */
    struct suite_view sv;
    if (suite_view_load(&db, id, &sv, &err) < 0) {
        store_db_close(&db);
        return cli_usage("suite status", "%s", err.msg);
    }
    struct suite_slot *slots;
    size_t n;
    struct cell_state *cs = calloc(sv.ncells ? sv.ncells : 1, sizeof *cs);
    if (!cs || suites_slots(&db, sv.rec.id, &slots, &n, &err) < 0) {
        free(cs);
        suite_view_free(&sv);
        store_db_close(&db);
        return cli_usage("suite status", "%s", cs ? err.msg : "out of memory");
    }
    struct suite_plan p = { .ncells = sv.ncells, .runs_min = sv.runs_min, .runs_max = sv.runs_max,
                            .target_ci = sv.target_ci };
    /* A run stored as running with no pressmark holding the run lock was
     * killed: it counts as aborted, as list shows it. */
    bool live = undo_run_in_progress(), running = false;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(slots[i].status, "running") == 0 && !live)
            snprintf(slots[i].status, sizeof slots[i].status, "aborted");
        running |= strcmp(slots[i].status, "running") == 0;
    }
    suite_cell_states(&p, slots, n, cs);
    cmd_human_output();
    bool complete = strcmp(sv.rec.state, "complete") == 0;
    printf("suite %lld (%s, %s): %s%s, seed %llu\n", (long long)sv.rec.id, sv.rec.name, sv.rec.path,
           complete ? "complete" : running ? "running now" : "unfinished",
           !complete && !running ? " ('pressmark suite run FILE' continues it)" : "", (unsigned long long)sv.rec.seed);
    char target[48];
    pm_fmt_sig(target, sizeof target, p.target_ci * 100, 3);
    if (p.runs_min == p.runs_max)
        printf("%u runs per cell\n", p.runs_min);
    else
        printf("%u to %u runs per cell, until the 95%% CI is within %s%% of the mean\n", p.runs_min, p.runs_max,
               target);
    print_look_rule(&p);
    if (sv.where[0])
        printf("kernels: the running one's cells here, the others' %s (backend %s)\n", sv.where, sv.backend);
    int lw = 28, ww = 8;
    for (size_t c = 0; c < sv.ncells; c++) {
        lw = (int)strlen(sv.cells[c].label) > lw ? (int)strlen(sv.cells[c].label) : lw;
        ww = (int)strlen(sv.cells[c].workload) > ww ? (int)strlen(sv.cells[c].workload) : ww;
    }
    printf("\n  #  %-*s %-*s %5s %6s %5s  %-24s %s\n", lw, "label", ww, "workload", "ok", "failed", "left", "headline (95% CI)",
           "state");
    for (size_t c = 0; c < sv.ncells; c++) {
        const struct cell_state *x = &cs[c];
        /* Runs still to do: to the count, or with a target one more
         * round while the cell has not converged. */
        int left = 0;
        if (suite_cell_wants_run(&p, x) && !complete)
            left = (unsigned)x->finished < p.runs_min ? (int)p.runs_min - x->finished : 1;
        char head[96] = "-", mean[64];
        pm_fmt_number(mean, sizeof mean, x->mean);
        if (x->nvalues >= 2)
            snprintf(head, sizeof head, "%s ±%.1f%%", mean, x->ci_pct);
        else if (x->nvalues == 1)
            snprintf(head, sizeof head, "%s", mean);
        char state[64];
        if (x->converged)
            snprintf(state, sizeof state, "converged after %d runs", x->finished);
        else if (p.target_ci > 0 && x->at_max)
            snprintf(state, sizeof state, "at maximum, not converged");
        else
            snprintf(state, sizeof state, "%s", left == 0 ? "done" : "");
        for (size_t i = 0; i < n; i++)
            if (slots[i].cell == (int)c && strcmp(slots[i].status, "running") == 0)
                snprintf(state, sizeof state, "running");
        printf("%3zu  %-*s %-*s %5d %6d %5d  %-24s %s\n", c, lw, sv.cells[c].label, ww, sv.cells[c].workload,
               x->finished - x->failed, x->failed, left, head, state);
    }
    suite_cell_states_free(cs, sv.ncells);
    free(cs);
    free(slots);
    suite_view_free(&sv);
    store_db_close(&db);
    return 0;
}

static int cmd_suite_next_kernel(int argc, char **argv)
{
    struct suite_opts o = { 0 };
    int first = parse_sub("suite next-kernel", no_options, &o, argc, argv, 1);
    if (first < 0)
        return cmd_parse_exit(first);
    if (first >= argc)
        return cli_usage("suite next-kernel", "name a suite file (pressmark suite next-kernel FILE)");
    struct suite_plan p;
    struct pm_err err;
    if (suite_plan_load(argv[first], NULL, &p, &err) < 0)
        return cli_usage("suite next-kernel", "%s", err.msg);
    if (!p.has_kernels) {
        suite_plan_free(&p);
        return cli_usage("suite next-kernel", "%s names no kernels (accepted: a suite with kernel = ...)", argv[first]);
    }
    /* The suite's progress from the database; none yet: every kernel is to do. */
    struct cell_state *cs = calloc(p.ncells, sizeof *cs);
    struct suite_slot *slots = NULL;
    size_t n = 0;
    struct pm_db db;
    struct suite_rec rec;
    if (!cs) {
        suite_plan_free(&p);
        return cli_usage("suite next-kernel", "out of memory");
    }
    if (cli_read_db(&db, &err) == 0) {
        if (suites_latest(&db, p.name, &rec, &err) == 1) {
            if (strcmp(rec.state, "running") == 0 && suites_slots(&db, rec.id, &slots, &n, &err) < 0)
                n = 0;
            store_suite_rec_free(&rec);
        }
        store_db_close(&db);
    }
    suite_cell_states(&p, slots, n, cs);
    bool running[SUITE_MAX_GROUPS];
    for (size_t g = 0; g < p.ngroups; g++) {
        struct kernel_spec ks;
        running[g] = kernel_spec_parse(p.groups[g].kernel, &ks, &err) == 0 && kernel_spec_is_running(&ks);
    }
    int g = suite_next_group(&p, cs, running);
    cmd_human_output();
    int rc = 0;
    if (g < 0) {
        fprintf(stderr, "pressmark suite next-kernel: every kernel of %s is done\n", p.name);
        rc = 1;
    } else {
        char q[300];
        quote_terminal(p.groups[g].kernel, q, sizeof q);
        printf("%s\n", q);
    }
    suite_cell_states_free(cs, p.ncells);
    free(cs);
    free(slots);
    suite_plan_free(&p);
    return rc;
}

int cmd_suite(int argc, char **argv)
{
    static const struct { const char *name; int (*fn)(int, char **); } subs[] = {
        { "plan", cmd_suite_plan }, { "run", cmd_suite_run }, { "status", cmd_suite_status }, { "list", cmd_suite_list },
        { "next-kernel", cmd_suite_next_kernel },
    };
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        fputs(suite_usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? PM_EXIT_USAGE : 0;
    }
    for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++)
        if (strcmp(argv[1], subs[i].name) == 0)
            return subs[i].fn(argc, argv);
    return cli_usage("suite", "'%s' is not a suite command (accepted: plan, run, status, list, next-kernel)", argv[1]);
}
