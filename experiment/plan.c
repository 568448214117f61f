#include "experiment/plan.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "experiment/backend.h"
#include "experiment/cell.h"
#include "kernels/spec.h"
#include "lib/opt.h"
#include "lib/quote.h"
#include "lib/units.h"
#include "store/runs.h"

/* The suite's own keys, in [global]; the part's own keys, anywhere. */
static const char *const suite_keys[] = { "runs", "target-ci", "alpha", "detect", "order", "order-seed", "question",
                                          "baseline", "name", "backend", "vm-timeout", NULL };
/* Where a cell runs: the kernel and the (virtual) machine it boots in.
 * Not run options: they choose the boot the cell's runs happen in.
 * vm-timeout is both: [global]'s is the suite's, a part's its own boot's
 * (a kernel known to boot slowly, a guest expected to hang). */
static const char *const machine_keys[] = { "kernel", "vm-memory", "vm-cpus", "vm-append", "vm-timeout", NULL };
static const char *const part_keys[] = { "workload", "label", "command", NULL };
/* Run options a suite decides itself, or that do not belong in a file. */
static const char *const refused_keys[] = { "db", "help", NULL };

static bool in_list(const char *const *list, const char *s)
{
    for (; *list; list++)
        if (strcmp(*list, s) == 0)
            return true;
    return false;
}

bool suite_plan_core_key(const char *name)
{
    return in_list(suite_keys, name) || in_list(machine_keys, name) || in_list(part_keys, name) ||
           in_list(refused_keys, name);
}

/* One of the keys the suite's backend brings (backend.h)? */
static const struct opt *backend_option(const struct suite_plan *p, const char *name)
{
    return p->backend && p->backend->options ? opt_find(p->backend->options, name) : NULL;
}

/* A key that is the whole suite's where it is given: in [global] every
 * suite key and its backend's, in a part none but those (vm-timeout is
 * a part's own). */
static bool suite_wide(const struct suite_plan *p, const char *name, bool in_part)
{
    return (in_list(suite_keys, name) && !(in_part && in_list(machine_keys, name))) || backend_option(p, name);
}

static const struct suite_key *key_in(const struct suite_section *s, const char *name)
{
    for (size_t i = s ? s->nkeys : 0; i-- > 0;)
        if (strcmp(s->keys[i].name, name) == 0)
            return &s->keys[i];
    return NULL;
}

/* A percentage P% with lo < P < hi (or <= hi when hi_in): true and *out,
 * or false. */
static bool percent_value(const char *v, double lo, double hi, bool hi_in, double *out)
{
    char *end;
    double t = strtod(v, &end);
    if (end == v || strcmp(end, "%") != 0 || !(t > lo && (hi_in ? t <= hi : t < hi)))
        return false;
    *out = t;
    return true;
}

/* The keys that decide how many runs a cell gets and what they can tell:
 * runs, target-ci, alpha, detect. 1: k was one of them (and is set), 0:
 * it was not, -1: a bad value. */
static int stat_key(struct suite_plan *p, const struct suite_key *k, struct pm_err *err)
{
    const char *path = p->file.path, *v = k->raw;
    if (strcmp(k->name, "runs") == 0) {
        unsigned a, b;
        char tail;
        if (sscanf(v, "%u..%u%c", &a, &b, &tail) == 2 && a >= 2 && b >= a && b <= SUITE_MAX_RUNS) {
            p->runs_min = a;
            p->runs_max = b;
        } else if (sscanf(v, "%u%c", &a, &tail) == 1 && a >= 1 && a <= SUITE_MAX_RUNS &&
                   strspn(v, "0123456789") == strlen(v)) {
            p->runs_min = p->runs_max = a;
        } else {
            return pm_errf(err, "%s:%d: runs = %s: not a run count (accepted: N from 1 to 10000, or MIN..MAX with "
                           "2 <= MIN <= MAX, e.g. 3..20 with target-ci)", path, k->line, v);
        }
    } else if (strcmp(k->name, "target-ci") == 0) {
        double t;
        if (!percent_value(v, 0, 100, true, &t))
            return pm_errf(err, "%s:%d: target-ci = %s: not a target (accepted: a percentage of the mean above 0, "
                           "e.g. 2%%)", path, k->line, v);
        p->target_ci = t / 100;
    } else if (strcmp(k->name, "alpha") == 0) {
        char *end;
        double a = strtod(v, &end);
        if (end == v || *end || !(a > 0 && a <= 0.5))
            return pm_errf(err, "%s:%d: alpha = %s: not a significance level (accepted: a number above 0 and at "
                           "most 0.5, e.g. 0.05)", path, k->line, v);
        p->alpha = a;
    } else if (strcmp(k->name, "detect") == 0) {
        if (!percent_value(v, 0, 100, false, &p->detect_pct))
            return pm_errf(err, "%s:%d: detect = %s: not a change to detect (accepted: a percentage of the mean "
                           "above 0 and below 100, e.g. 5%%)", path, k->line, v);
    } else {
        return 0;
    }
    return 1;
}

static int suite_key(struct suite_plan *p, const struct suite_key *k, struct pm_err *err)
{
    const char *path = p->file.path, *v = k->raw;
    int stat = stat_key(p, k, err);
    if (stat != 0)
        return stat < 0 ? -1 : 0;
    if (strcmp(k->name, "order") == 0) {
        if (strcmp(v, "interleaved") == 0)
            p->order = ORDER_INTERLEAVED;
        else if (strcmp(v, "sequential") == 0)
            p->order = ORDER_SEQUENTIAL;
        else
            return pm_errf(err, "%s:%d: order = %s: not an order (accepted: interleaved, sequential)", path, k->line, v);
    } else if (strcmp(k->name, "order-seed") == 0) {
        char *end;
        unsigned long long s = strtoull(v, &end, 10);
        if (!*v || *end || v[0] == '-')
            return pm_errf(err, "%s:%d: order-seed = %s: not a seed (accepted: a whole number)", path, k->line, v);
        p->has_seed = true;
        p->seed = s;
    } else if (strcmp(k->name, "question") == 0) {
        snprintf(p->question, sizeof p->question, "%s", v);
    } else if (strcmp(k->name, "baseline") == 0) {
        snprintf(p->baseline, sizeof p->baseline, "%s", v);
    } else if (strcmp(k->name, "vm-timeout") == 0) {
        uint64_t ns;
        if (pm_parse_duration(v, &ns) < 0 || ns < 1000000000ull)
            return pm_errf(err, "%s:%d: vm-timeout = %s: not a time limit (accepted: a duration of 1s or more, "
                           "e.g. 90s, 30m)", path, k->line, v);
        p->vm_timeout_s = (double)ns / 1e9;
    } else if (strcmp(k->name, "name") == 0) {
        if (!v[0] || strlen(v) >= sizeof p->name || strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != strlen(v))
            return pm_errf(err, "%s:%d: name = %s: not a suite name (accepted: letters, digits, '.', '-', '_')", path,
                           k->line, v);
        snprintf(p->name, sizeof p->name, "%s", v);
    }
    return 0;
}

/* The keys of one part: [global]'s (but the suite's own) overridden by
 * the part's, in order of first appearance. */
struct eff_key {
    const struct suite_key *k;
};

static size_t effective_keys(const struct suite_plan *p, const struct suite_section *global,
                             const struct suite_section *part, struct eff_key *out, size_t max)
{
    size_t n = 0;
    const struct suite_section *secs[2] = { global, part };
    for (int s = 0; s < 2; s++) {
        if (!secs[s])
            continue;
        for (size_t i = 0; i < secs[s]->nkeys && n < max; i++) {
            const struct suite_key *k = &secs[s]->keys[i];
            if (suite_wide(p, k->name, s == 1))
                continue;
            /* A key the part sets itself replaces [global]'s. */
            if (s == 0 && part && key_in(part, k->name))
                continue;
            out[n++].k = k;
        }
    }
    return n;
}

static bool list_key(const struct suite_key *k)
{
    return k->nvalues > 1 && strcmp(k->name, "command") != 0 && strcmp(k->name, "question") != 0 &&
           strcmp(k->name, "label") != 0 && strcmp(k->name, "workload") != 0;
}

static void add_axis_name(struct suite_plan *p, const char *name)
{
    for (size_t i = 0; i < p->naxes; i++)
        if (strcmp(p->axis_names[i], name) == 0)
            return;
    if (p->naxes < sizeof p->axis_names / sizeof p->axis_names[0])
        snprintf(p->axis_names[p->naxes++], sizeof p->axis_names[0], "%s", name);
}

/* label = {mem-cap}-{swap}: each {key} is the cell's value of that key. */
static int expand_label(const char *tmpl, const struct eff_key *keys, size_t nkeys, const size_t *pick, char *out,
                        size_t len)
{
    size_t o = 0;
    for (const char *t = tmpl; *t && o + 1 < len; t++) {
        if (*t != '{') {
            out[o++] = *t;
            continue;
        }
        const char *close = strchr(t, '}');
        if (!close)
            return -1;
        size_t n = (size_t)(close - t - 1);
        size_t i = 0;
        while (i < nkeys && !(strlen(keys[i].k->name) == n && strncmp(keys[i].k->name, t + 1, n) == 0))
            i++;
        if (i == nkeys)
            return -1;
        const char *v = keys[i].k->values[list_key(keys[i].k) ? pick[i] : 0];
        o += (size_t)snprintf(out + o, len - o, "%s", v);
        if (o >= len)
            o = len - 1;
        t = close;
    }
    out[o] = '\0';
    return 0;
}

/* Check one value of a machine key; with g, also set it there. */
static int machine_value(struct suite_plan *p, const char *key, const char *v, int line, struct suite_group *g,
                         struct pm_err *err)
{
    const char *path = p->file.path;
    if (strcmp(key, "kernel") == 0) {
        struct kernel_spec ks;
        struct pm_err e;
        if (kernel_spec_parse(v, &ks, &e) < 0)
            return pm_errf(err, "%s:%d: %s", path, line, e.msg);
        p->has_kernels = true;
        if (g) {
            snprintf(g->kernel, sizeof g->kernel, "%s", v);
            g->line = line;
        }
    } else if (strcmp(key, "vm-memory") == 0) {
        uint64_t b;
        char min[32];
        pm_fmt_size(min, sizeof min, SUITE_VM_MEMORY_MIN);
        if (pm_parse_size(v, 0, &b) < 0 || b < SUITE_VM_MEMORY_MIN || b > (1ull << 40))
            return pm_errf(err, "%s:%d: vm-memory = %s: not a VM size (accepted: %s to 1T, e.g. 512M; a Debian "
                           "kernel and its initramfs need %s to boot)", path, line, v, min, min);
        if (g)
            g->vm_memory = b;
    } else if (strcmp(key, "vm-cpus") == 0) {
        uint64_t n;
        if (pm_parse_uint(v, 1, 256, &n) < 0)
            return pm_errf(err, "%s:%d: vm-cpus = %s: not a CPU count (accepted: 1 to 256)", path, line, v);
        if (g)
            g->vm_cpus = (unsigned)n;
    } else if (strcmp(key, "vm-append") == 0) {
        for (const char *c = v; *c; c++)
            if ((unsigned char)*c < 0x20 || *c == 0x7f)
                return pm_errf(err, "%s:%d: vm-append: a control character (accepted: kernel parameters separated "
                               "by blanks)", path, line);
        if (strlen(v) >= sizeof g->vm_append)
            return pm_errf(err, "%s:%d: vm-append: longer than %zu characters", path, line, sizeof g->vm_append - 1);
        if (g)
            snprintf(g->vm_append, sizeof g->vm_append, "%s", v);
    } else if (strcmp(key, "vm-timeout") == 0) {
        uint64_t ns;
        if (pm_parse_duration(v, &ns) < 0 || ns < 1000000000ull)
            return pm_errf(err, "%s:%d: vm-timeout = %s: not a time limit (accepted: a duration of 1s or more, "
                           "e.g. 90s, 30m)", path, line, v);
        if (g)
            g->vm_timeout_s = (double)ns / 1e9;
    }
    return 0;
}

/* The group of cells booting this kernel on this machine, made if new. A
 * part's vm-timeout does not make a boot of its own (its cells would no
 * longer interleave with the others on that kernel): the boot takes the
 * longest any of its parts gives. */
static int find_group(struct suite_plan *p, const struct suite_group *g)
{
    for (size_t i = 0; i < p->ngroups; i++) {
        struct suite_group *o = &p->groups[i];
        if (strcmp(o->kernel, g->kernel) == 0 && o->vm_memory == g->vm_memory && o->vm_cpus == g->vm_cpus &&
            strcmp(o->vm_append, g->vm_append) == 0) {
            if (g->vm_timeout_s > o->vm_timeout_s)
                o->vm_timeout_s = g->vm_timeout_s;
            return (int)i;
        }
    }
    if (p->ngroups == SUITE_MAX_GROUPS)
        return -1;
    p->groups[p->ngroups] = *g;
    return (int)p->ngroups++;
}

/* One part on its way to becoming cells: what every cell of it shares,
 * and the combination of axis values the next cell takes. */
struct part_cells {
    const struct suite_section *global, *part;
    bool prefix_part;                   /* its name begins its cells' automatic labels */
    const struct workload_ops *wl;
    struct eff_key keys[128];
    size_t nkeys;
    size_t axis_of[128];                /* the axes, as indices into keys */
    size_t naxes;
    const struct suite_key *lk;         /* label = template, or NULL */
    size_t pick[128];                   /* by key: the value this cell takes */
};

/* A part runs the workload its workload key names, else the one its
 * section is named after. Naming none is an error that lists them. */
static int part_workload(const struct suite_plan *p, struct part_cells *pc, struct pm_err *err)
{
    const char *path = p->file.path;
    const struct suite_key *wk = key_in(pc->part, "workload");
    if (!wk)
        wk = key_in(pc->global, "workload");
    const char *wname = wk ? wk->raw : pc->part->name;
    pc->wl = workload_find(wname);
    if (!pc->wl) {
        char names[256];
        workload_names(names, sizeof names);
        if (wk)
            return pm_errf(err, "%s:%d: workload = %s: not a workload (accepted: %s)", path, wk->line, wname, names);
        return pm_errf(err, "%s:%d: [%s] names no workload (accepted: workload = NAME, NAME one of %s)", path,
                       pc->part->line, pc->part->name, names);
    }
    return 0;
}

/* Every key is one this workload or a run takes. A machine key's values
 * are all checked here, before any cell is made, so that setting them in
 * a cell later cannot fail. */
static int check_key(struct suite_plan *p, const struct workload_ops *wl, const struct suite_key *k,
                     struct pm_err *err)
{
    const char *path = p->file.path;
    bool is_run;
    if (in_list(machine_keys, k->name)) {
        if (strcmp(k->name, "vm-timeout") == 0 && k->nvalues > 1)
            return pm_errf(err, "%s:%d: vm-timeout = %s: one limit (accepted: a duration such as 90s or 30m; a "
                           "boot's limit is no axis)", path, k->line, k->raw);
        for (size_t v = 0; v < k->nvalues; v++)
            if (machine_value(p, k->name, k->values[v], k->line, NULL, err) < 0)
                return -1;
    } else if (in_list(part_keys, k->name)) {
        if (strcmp(k->name, "command") == 0 && !wl->set_args)
            return pm_errf(err, "%s:%d: command: workload %s takes no command (accepted with workload = record)",
                           path, k->line, wl->name);
    } else if (in_list(refused_keys, k->name) || !suite_cell_option(wl, k->name, &is_run)) {
        /* [global]'s keys: the suite's own, then its backend's. */
        char theirs[512] = "";
        size_t n = 0;
        for (const struct opt *o = p->backend->options; o && o->type != OPT_END && n < sizeof theirs; o++)
            n += (size_t)snprintf(theirs + n, sizeof theirs - n, ", %s", o->name);
        return pm_errf(err, "%s:%d: '%s' is not a key of a suite part running %s (accepted: workload, label, "
                       "command, the options 'pressmark run %s --help' lists, without their dashes; kernel, vm-memory, vm-cpus, vm-append, vm-timeout; in [global] also runs, "
                       "target-ci, alpha, detect, order, order-seed, question, baseline, name, backend, vm-timeout%s)",
                       path, k->line, k->name, wl->name, wl->name, theirs);
    }
    return 0;
}

/* Check the part's keys and note its axes, the keys given a list of
 * values. A workload that runs a command must be given one. */
static int part_axes(struct suite_plan *p, struct part_cells *pc, struct pm_err *err)
{
    for (size_t i = 0; i < pc->nkeys; i++) {
        const struct suite_key *k = pc->keys[i].k;
        if (check_key(p, pc->wl, k, err) < 0)
            return -1;
        if (list_key(k)) {
            pc->axis_of[pc->naxes++] = i;
            add_axis_name(p, k->name);
        }
    }
    if (pc->wl->set_args && !key_in(pc->part, "command") && !key_in(pc->global, "command"))
        return pm_errf(err, "%s:%d: [%s] runs %s but gives no command (accepted: command = CMD ARGS...)",
                       p->file.path, pc->part->line, pc->part->name, pc->wl->name);
    return 0;
}

/* The product is counted before it is made: ten axes of ten values
 * would be ten billion cells, a typo rather than an experiment. */
static int check_cell_count(const struct suite_plan *p, const struct part_cells *pc, struct pm_err *err)
{
    size_t cells = 1;
    for (size_t a = 0; a < pc->naxes; a++) {
        const struct suite_key *k = pc->keys[pc->axis_of[a]].k;
        cells *= k->nvalues;            /* at most 1024 x the values a line holds: no overflow */
        if (cells + p->ncells > SUITE_MAX_CELLS)
            return pm_errf(err, "%s:%d: [%s]'s axes make more than %d cells with %s (accepted: at most %d cells in a "
                           "suite)", p->file.path, k->line, pc->part->name, SUITE_MAX_CELLS, k->name,
                           SUITE_MAX_CELLS);
    }
    return 0;
}

/* A new, empty cell at the end of the plan, with room for every value of
 * every key as a setting. It is the plan's as soon as it is counted, so
 * suite_plan_free frees it whatever fails after. */
static struct suite_cell *new_cell(struct suite_plan *p, const struct part_cells *pc, struct pm_err *err)
{
    struct suite_cell *nc = realloc(p->cells, (p->ncells + 1) * sizeof *nc);
    if (!nc) {
        pm_errf(err, "out of memory");
        return NULL;
    }
    p->cells = nc;
    struct suite_cell *c = &p->cells[p->ncells];
    memset(c, 0, sizeof *c);
    p->ncells++;
    c->wl = pc->wl;
    snprintf(c->part, sizeof c->part, "%s", pc->part->name);
    snprintf(c->headline, sizeof c->headline, "%s", pc->wl->headline);
    size_t nvalues = 0;
    for (size_t i = 0; i < pc->nkeys; i++)
        nvalues += pc->keys[i].k->nvalues;
    c->settings = calloc(nvalues ? nvalues : 1, sizeof *c->settings);
    if (!c->settings) {
        pm_errf(err, "out of memory");
        return NULL;
    }
    return c;
}

/* Give a cell the picked value of each axis, every value of the other
 * keys, its command, and its kernel and machine in g. The machine values
 * were checked by check_key, so setting them here does not fail. */
static void fill_cell(struct suite_plan *p, const struct part_cells *pc, struct suite_cell *c, struct suite_group *g,
                      struct pm_err *err)
{
    for (size_t i = 0; i < pc->nkeys; i++) {
        const struct suite_key *k = pc->keys[i].k;
        if (strcmp(k->name, "command") == 0) {
            c->command = k->raw;
            c->command_line = k->line;
            continue;
        }
        if (in_list(part_keys, k->name))
            continue;
        if (list_key(k)) {
            const char *v = k->values[pc->pick[i]];
            pm_kv_set(&c->axes, k->name, v);
            if (in_list(machine_keys, k->name))
                machine_value(p, k->name, v, k->line, g, err);
            else
                c->settings[c->nsettings++] = (struct suite_setting){ k->name, v, k->line };
        } else if (in_list(machine_keys, k->name)) {
            machine_value(p, k->name, k->values[0], k->line, g, err);
        } else {
            /* Repeatable options (sysctl, make-arg) given once with
             * one value each: every value is set. */
            for (size_t v = 0; v < k->nvalues; v++)
                c->settings[c->nsettings++] = (struct suite_setting){ k->name, k->values[v], k->line };
        }
    }
}

/* A cell's label when the part gives no template: its axis values in
 * order, after the part's name when the part needs telling apart from
 * another of its workload, or when there are no axes to name it by. */
static void auto_label(const struct part_cells *pc, char *out, size_t len)
{
    size_t al = 0;
    out[0] = '\0';
    if (pc->prefix_part || pc->naxes == 0)
        al += (size_t)snprintf(out + al, len - al, "%s", pc->part->name);
    for (size_t i = 0; i < pc->nkeys; i++) {
        const struct suite_key *k = pc->keys[i].k;
        if (in_list(part_keys, k->name) || !list_key(k))
            continue;
        if (al < len)
            al += (size_t)snprintf(out + al, len - al, "%s%s", al ? " " : "", k->values[pc->pick[i]]);
    }
}

/* Label the cell from the part's template, or automatically. The label
 * must be one a run takes, and no two cells of one workload may share
 * one: their results could not be told apart. */
static int label_cell(const struct suite_plan *p, const struct part_cells *pc, struct suite_cell *c,
                      struct pm_err *err)
{
    const char *path = p->file.path;
    const struct suite_key *lk = pc->lk;
    const struct suite_section *part = pc->part;
    if (lk) {
        if (expand_label(lk->raw, pc->keys, pc->nkeys, pc->pick, c->label, sizeof c->label) < 0)
            return pm_errf(err, "%s:%d: label = %s: a {key} that is not a key of [%s] (accepted: {KEY} for any key "
                           "it sets, e.g. {mem-cap})", path, lk->line, lk->raw, part->name);
    } else {
        auto_label(pc, c->label, sizeof c->label);
    }
    if (!store_run_label_ok(c->label))
        return pm_errf(err, "%s:%d: [%s]: the label '%s' is not one (accepted: 1 to 255 characters, not starting "
                       "with '-')", path, lk ? lk->line : part->line, part->name, c->label);
    for (size_t i = 0; i + 1 < p->ncells; i++)
        if (p->cells[i].wl == c->wl && strcmp(p->cells[i].label, c->label) == 0)
            return pm_errf(err, "%s:%d: two cells of workload %s are labelled '%s' (accepted: a label = template "
                           "with a {key} for each axis)", path, lk ? lk->line : part->line, c->wl->name, c->label);
    return 0;
}

/* The cell of the combination pc->pick holds: made, labelled, put in the
 * group of its kernel and machine, and applied once. */
static int add_cell(struct suite_plan *p, const struct part_cells *pc, struct pm_err *err)
{
    struct suite_cell *c = new_cell(p, pc, err);
    if (!c)
        return -1;
    struct suite_group g = { .kernel = "running", .vm_memory = SUITE_VM_MEMORY_DEFAULT, .vm_cpus = 2 };
    fill_cell(p, pc, c, &g, err);
    if (label_cell(p, pc, c, err) < 0)
        return -1;
    if ((c->group = find_group(p, &g)) < 0)
        return pm_errf(err, "%s:%d: more than %d kernels and machines in one suite (accepted: at most %d)",
                       p->file.path, g.line, SUITE_MAX_GROUPS, SUITE_MAX_GROUPS);
    /* Applied once now: a cell that loads is a cell that can run. */
    struct cell_run cr;
    if (suite_cell_prepare(p, c, &cr, err) < 0)
        return -1;
    workload_describe(c->wl, cr.wl_state, c->params, sizeof c->params);
    /* A record cell of figures follows its own headline where it names
     * one before it runs (else each run's is in its metadata). */
    const char *own = c->wl->headline_of ? c->wl->headline_of(cr.wl_state) : NULL;
    if (own && own[0])
        snprintf(c->headline, sizeof c->headline, "%s", own);
    suite_cell_release(&cr);
    return 0;
}

/* Step to the next combination of axis values, the last axis varying
 * fastest. False once every combination has been made. */
static bool next_pick(struct part_cells *pc)
{
    size_t a = pc->naxes;
    while (a > 0) {
        size_t i = pc->axis_of[a - 1];
        if (++pc->pick[i] < pc->keys[i].k->nvalues)
            break;
        pc->pick[i] = 0;
        a--;
    }
    return a > 0;
}

/* A part's cells, one for each combination of its axes' values, added
 * to the plan; everything is checked before the first is made. */
static int add_cells(struct suite_plan *p, const struct suite_section *global, const struct suite_section *part,
                     bool prefix_part, struct pm_err *err)
{
    struct part_cells pc = { .global = global, .part = part, .prefix_part = prefix_part };
    pc.nkeys = effective_keys(p, global, part, pc.keys, 128);
    if (part_workload(p, &pc, err) < 0 || part_axes(p, &pc, err) < 0 || check_cell_count(p, &pc, err) < 0)
        return -1;
    pc.lk = key_in(part, "label");
    if (!pc.lk)
        pc.lk = key_in(global, "label");
    /* The product of the axes, the last varying fastest. */
    do {
        if (add_cell(p, &pc, err) < 0)
            return -1;
    } while (next_pick(&pc));
    return 0;
}

/* backend = NAME, looked up in the registry (its last such line counts,
 * as every key's does), and the state its keys fill made: its table's
 * defaults. Before the other keys, which may be the backend's. */
static int choose_backend(struct suite_plan *p, const struct suite_section *global, struct pm_err *err)
{
    p->backend = exp_backends[0];
    for (size_t i = 0; global && i < global->nkeys; i++) {
        const struct suite_key *k = &global->keys[i];
        if (strcmp(k->name, "backend") != 0)
            continue;
        if (!(p->backend = exp_backend_find(k->raw))) {
            /* The file's text goes to a terminal: quoted, escapes and all. */
            char names[1024], shown[256];
            exp_backend_list(names, sizeof names);
            quote_terminal(k->raw, shown, sizeof shown);
            return pm_errf(err, "%s:%d: backend = %s: not a backend (accepted: %s)", p->file.path, k->line, shown,
                           names);
        }
    }
    const struct exp_backend *b = p->backend;
    struct pm_err e;
    if (!(p->backend_state = calloc(1, b->state_size ? b->state_size : 1)))
        return pm_errf(err, "out of memory");
    if (b->options && opt_set_defaults(b->options, p->backend_state, &e) < 0)
        return pm_errf(err, "backend %s: %s", b->name, e.msg);
    return 0;
}

/* One of the backend's own keys, set through its option table. Its value
 * is echoed in messages to a terminal: no control character. A flag
 * takes the words a cell's flags take. */
static int backend_key(struct suite_plan *p, const struct opt *o, const struct suite_key *k, struct pm_err *err)
{
    const char *v = k->raw;
    for (const unsigned char *c = (const unsigned char *)v; *c; c++)
        if (*c < 0x20 || *c == 0x7f || (*c == 0xc2 && c[1] >= 0x80 && c[1] < 0xa0))
            return pm_errf(err, "%s:%d: %s: a control character in its value (accepted: printable text)", p->file.path,
                           k->line, k->name);
    struct pm_err e;
    if (o->type == OPT_FLAG) {
        bool on;
        if (!suite_flag_value(v, &on))
            return pm_errf(err, "%s:%d: %s = %s: not a yes or no (accepted: yes, no, true, false, on, off, 1, 0)",
                           p->file.path, k->line, k->name, v);
        *(bool *)((char *)p->backend_state + o->offset) = on;
        return 0;
    }
    if (opt_set(o, p->backend_state, v, &e) < 0)
        return pm_errf(err, "%s:%d: %s = %s: %s", p->file.path, k->line, k->name, v, e.msg);
    return 0;
}

/* [global]'s keys in their order: the suite's own and its backend's. */
static int global_keys(struct suite_plan *p, const struct suite_section *s, struct pm_err *err)
{
    for (size_t k = 0; k < s->nkeys; k++) {
        const struct suite_key *key = &s->keys[k];
        const struct opt *o = backend_option(p, key->name);
        if (strcmp(key->name, "backend") == 0)
            continue;       /* chose the backend already */
        if (in_list(suite_keys, key->name) ? suite_key(p, key, err) < 0 : o && backend_key(p, o, key, err) < 0)
            return -1;
    }
    return 0;
}

int suite_plan_read(const char *path, const char *text, struct suite_plan *p, struct pm_err *err)
{
    memset(p, 0, sizeof *p);
    p->runs_min = p->runs_max = 5;
    p->alpha = 0.05;
    p->vm_timeout_s = 3600;
    if (suite_file_read(path, text, &p->file, err) < 0)
        return -1;
    const struct suite_section *global = NULL;
    for (size_t i = 0; i < p->file.nsections; i++)
        if (strcmp(p->file.sections[i].name, "global") == 0)
            global = &p->file.sections[i];
    if (choose_backend(p, global, err) < 0)
        goto fail;
    for (size_t i = 0; i < p->file.nsections; i++) {
        const struct suite_section *s = &p->file.sections[i];
        if (s == global) {
            if (global_keys(p, s, err) < 0)
                goto fail;
        } else {
            for (size_t k = 0; k < s->nkeys; k++)
                if (suite_wide(p, s->keys[k].name, true)) {
                    pm_errf(err, "%s:%d: '%s' belongs in [global] (it is the whole suite's)", path, s->keys[k].line,
                            s->keys[k].name);
                    goto fail;
                }
        }
    }
    if (p->runs_min != p->runs_max && p->target_ci == 0) {
        const struct suite_key *k = key_in(global, "runs");
        pm_errf(err, "%s:%d: runs = %s needs target-ci (accepted: target-ci = 2%% with it, or runs = N)", path,
                k ? k->line : 0, k ? k->raw : "");
        goto fail;
    }
    if (p->target_ci > 0 && p->runs_min == p->runs_max) {
        const struct suite_key *k = key_in(global, "target-ci");
        pm_errf(err, "%s:%d: target-ci needs a range of runs (accepted: runs = MIN..MAX with it, e.g. 3..20)", path,
                k ? k->line : 0);
        goto fail;
    }
    if (!p->name[0]) {
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        snprintf(p->name, sizeof p->name, "%.*s", (int)strcspn(base, "."), base);
        for (char *c = p->name; *c; c++)
            if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", *c))
                *c = '_';
    }
    if (p->backend->check && p->backend->check(p, err) < 0)
        goto fail;
    return 0;
fail:
    suite_plan_free(p);
    return -1;
}

int suite_plan_load(const char *path, const char *text, struct suite_plan *p, struct pm_err *err)
{
    if (suite_plan_read(path, text, p, err) < 0)
        return -1;
    const struct suite_section *global = NULL;
    for (size_t i = 0; i < p->file.nsections; i++)
        if (strcmp(p->file.sections[i].name, "global") == 0)
            global = &p->file.sections[i];
    /* A part's workload may repeat in another part: then the part's name
     * goes in front of its cells' labels. */
    const struct suite_section *parts[64];
    size_t np = 0;
    for (size_t i = 0; i < p->file.nsections && np < 64; i++)
        if (strcmp(p->file.sections[i].name, "global") != 0)
            parts[np++] = &p->file.sections[i];
    if (np == 0 && global)
        parts[np++] = global;
    for (size_t i = 0; i < np; i++) {
        bool shared = false;
        const struct suite_key *wi = key_in(parts[i], "workload");
        const char *ni = wi ? wi->raw : parts[i]->name;
        for (size_t j = 0; j < np; j++) {
            const struct suite_key *wj = key_in(parts[j], "workload");
            if (j != i && strcmp(ni, wj ? wj->raw : parts[j]->name) == 0)
                shared = true;
        }
        if (add_cells(p, parts[i] == global ? NULL : global, parts[i], shared, err) < 0)
            goto fail;
    }
    if (p->baseline[0]) {
        size_t i = 0;
        while (i < p->ncells && strcmp(p->cells[i].label, p->baseline) != 0)
            i++;
        if (i == p->ncells) {
            const struct suite_key *k = key_in(global, "baseline");
            pm_errf(err, "%s:%d: baseline = %s: no cell is labelled so (accepted: one of the cells' labels, see "
                    "'pressmark suite plan')", path, k ? k->line : 0, p->baseline);
            goto fail;
        }
    }
    return 0;
fail:
    suite_plan_free(p);
    return -1;
}

void suite_plan_free(struct suite_plan *p)
{
    for (size_t i = 0; i < p->ncells; i++) {
        pm_kv_free(&p->cells[i].axes);
        free(p->cells[i].settings);
    }
    free(p->cells);
    p->cells = NULL;
    p->ncells = 0;
    free(p->backend_state);
    p->backend_state = NULL;
    suite_file_free(&p->file);
}

/* One part's cells' origins, appended to *out: the product of its axes
 * in add_cells' order (the last axis varying fastest). Only the file is
 * read, so it works on a suite as stored, wherever it ran. */
static int part_origins(const struct suite_plan *p, const struct suite_section *global,
                        const struct suite_section *part, size_t max_cells, struct suite_cell_origin **out, size_t *n,
                        struct pm_err *err)
{
    struct part_cells pc = { .global = global, .part = part };
    pc.nkeys = effective_keys(p, global, part, pc.keys, 128);
    size_t cells = 1;
    for (size_t i = 0; i < pc.nkeys; i++) {
        if (!list_key(pc.keys[i].k))
            continue;
        pc.axis_of[pc.naxes++] = i;
        cells *= pc.keys[i].k->nvalues;     /* at most 1024 x a line's values: no overflow */
        if (cells > max_cells)
            break;
    }
    if (cells + *n > max_cells)
        return pm_errf(err, "[%s] makes more cells than the suite has", part->name);
    struct suite_cell_origin *v = realloc(*out, (*n + cells) * sizeof *v);
    if (!v)
        return pm_errf(err, "out of memory");
    *out = v;
    do {
        struct suite_cell_origin *o = &v[(*n)++];
        memset(o, 0, sizeof *o);
        snprintf(o->part, sizeof o->part, "%s", part->name);
        for (size_t i = 0; i < pc.nkeys; i++) {
            const struct suite_key *k = pc.keys[i].k;
            if (strcmp(k->name, "label") == 0 || strcmp(k->name, "workload") == 0)
                continue;       /* a name, and the cell's own workload */
            if ((list_key(k) ? pm_kv_set(&o->axes, k->name, k->values[pc.pick[i]]) : pm_kv_set(&o->fixed, k->name, k->raw)) < 0)
                return pm_errf(err, "out of memory");
        }
    } while (next_pick(&pc));
    return 0;
}

int suite_plan_origins(const struct suite_plan *p, size_t max_cells, struct suite_cell_origin **out, size_t *n,
                       struct pm_err *err)
{
    *out = NULL;
    *n = 0;
    const struct suite_section *global = NULL;
    size_t nparts = 0;
    for (size_t i = 0; i < p->file.nsections; i++) {
        if (strcmp(p->file.sections[i].name, "global") == 0)
            global = &p->file.sections[i];
        else
            nparts++;
    }
    int rc = 0;
    /* The parts as suite_plan_load takes them: the first 64 sections but
     * [global], or [global] alone when it is the only one. */
    for (size_t i = 0, taken = 0; rc == 0 && i < p->file.nsections && taken < 64; i++) {
        const struct suite_section *s = &p->file.sections[i];
        if (s == global && nparts)
            continue;
        taken++;
        rc = part_origins(p, s == global ? NULL : global, s, max_cells, out, n, err);
    }
    if (rc < 0) {
        suite_origins_free(*out, *n);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

void suite_origins_free(struct suite_cell_origin *o, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        pm_kv_free(&o[i].fixed);
        pm_kv_free(&o[i].axes);
    }
    free(o);
}
