#ifndef PM_SUITE_PLAN_H
#define PM_SUITE_PLAN_H
/* A suite file turned into its cells: every part (section) of it crossed
 * with its axes (the keys given a list of values), each cell a workload,
 * a label and the settings of one run. Every setting of every cell is
 * applied once here to the option tables, so a suite that loads is a
 * suite whose every run can start. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "experiment/run_opts.h"
#include "experiment/file.h"
#include "lib/kv.h"
#include "workloads/workload.h"

enum suite_order { ORDER_INTERLEAVED, ORDER_SEQUENTIAL };
/* Where the cells of a kernel that is not running run (backend.h). */
struct exp_backend;

/* Runs of one cell at the most (runs = N, runs = MIN..MAX). */
#define SUITE_MAX_RUNS 10000u

/* Cells in one suite at the most (the product of its axes, over its parts). */
#define SUITE_MAX_CELLS 1024

struct suite_setting {
    const char *key, *value;    /* into the suite file */
    int line;
};

struct suite_cell {
    char label[256];
    char part[64];
    const struct workload_ops *wl;
    struct kv_list axes;        /* axis key -> this cell's value */
    struct suite_setting *settings;
    size_t nsettings;
    const char *command;        /* record's command line, or NULL */
    int command_line;
    char headline[96];          /* the metric target-ci and the report follow */
    int group;                  /* its kernel and machine: index into plan->groups */
    char params[2048];          /* what workload_describe says, for estimates */
};

/* The cells that run under one kernel on one (virtual) machine: one boot.
 * A suite without a kernel key has one group, the running kernel. */
#define SUITE_MAX_GROUPS 64
struct suite_group {
    char kernel[256];           /* as written: running, a package, a .deb, a bzImage path */
    uint64_t vm_memory;         /* the VM's RAM in bytes (mem= of the original reports) */
    unsigned vm_cpus;
    char vm_append[256];        /* added to the guest's kernel command line */
    double vm_timeout_s;        /* the part's own vm-timeout; 0: the suite's */
    int line;                   /* of the kernel key, for messages */
};

struct suite_plan {
    struct suite_file file;
    char name[128];
    struct suite_cell *cells;
    size_t ncells;
    unsigned runs_min, runs_max;    /* equal: a fixed count */
    double target_ci;               /* the CI's half-width as a fraction of the mean; 0: none */
    double alpha;                   /* the significance level its power is judged at (0.05) */
    double detect_pct;              /* the change its cells should detect, in %; 0: none named */
    enum suite_order order;
    bool has_seed;
    uint64_t seed;
    char question[512];
    char baseline[256];             /* a cell's label; "": the first cell */
    char axis_names[16][64];        /* every axis, in the order first seen */
    size_t naxes;
    bool has_kernels;               /* a kernel key anywhere: a kernel comparison */
    struct suite_group groups[SUITE_MAX_GROUPS];
    size_t ngroups;
    const struct exp_backend *backend;  /* backend = NAME, else the registry's first */
    void *backend_state;            /* its keys as its option table reads them (backend.h) */
    double vm_timeout_s;            /* a boot that takes longer is killed */
};

/* The VM's RAM when a suite names none, and the least a Debian kernel
 * with its initramfs boots in. */
#define SUITE_VM_MEMORY_DEFAULT (1024ull << 20)
#define SUITE_VM_MEMORY_MIN (256ull << 20)

/* Read FILE (or text, a suite as stored, named path) and build its cells.
 * -1 with err "FILE:LINE: ..." naming the key, the value and what is
 * accepted. */
int suite_plan_load(const char *path, const char *text, struct suite_plan *p, struct pm_err *err);
/* Only the file and its suite-wide keys (runs, target-ci, alpha, detect,
 * order, seed, question, baseline, name), checked: no cells, nothing
 * applied, so it needs neither root nor the machine the suite ran on
 * (status, reports). */
int suite_plan_read(const char *path, const char *text, struct suite_plan *p, struct pm_err *err);
void suite_plan_free(struct suite_plan *p);
/* How long a boot of group G may take: its parts' vm-timeout, else the
 * suite's; and the longest of any group's. (Inline: the backends that
 * boot read them, and plan.c calls down into the backends.) */
static inline double suite_group_timeout(const struct suite_plan *p, const struct suite_group *g)
{
    return g->vm_timeout_s > 0 ? g->vm_timeout_s : p->vm_timeout_s;
}
static inline double suite_longest_timeout(const struct suite_plan *p)
{
    double t = p->vm_timeout_s;
    for (size_t i = 0; i < p->ngroups; i++)
        if (p->groups[i].vm_timeout_s > t)
            t = p->groups[i].vm_timeout_s;
    return t;
}

/* Where each cell of a suite comes from, read from its file alone (after
 * suite_plan_read: nothing applied, so no root, kernel or machine the
 * suite ran on is needed): its part (section), the part's settings other
 * than its axes, and the cell's axis values; in suite_plan_load's cell
 * order. The reports judge a cell only against one that differs from it
 * in its axes alone. -1 (err) for more than max_cells cells. */
struct suite_cell_origin {
    char part[64];
    struct kv_list fixed;       /* key -> value as written, [global]'s included, but not label or workload */
    struct kv_list axes;        /* axis -> the cell's value */
};
int suite_plan_origins(const struct suite_plan *p, size_t max_cells, struct suite_cell_origin **out, size_t *n,
                       struct pm_err *err);
void suite_origins_free(struct suite_cell_origin *o, size_t n);

/* A key the suite itself reads (a suite, machine or part key, or one it
 * refuses): no backend may bring a key of that name. */
bool suite_plan_core_key(const char *name);

#endif
