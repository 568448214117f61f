#ifndef PM_WORKLOAD_H
#define PM_WORKLOAD_H
/* A workload is a table of operations plus an option table, as fio's I/O
 * engines are: adding one means adding one file and one line in registry.c
 * (workloads/skeleton.c shows the shape).
 * Workloads never write the database; they hand metrics to the run. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "lib/err.h"
#include "lib/loghist.h"
#include "lib/metrics.h"
#include "lib/opt.h"

struct run_ctx;


/* What the run's environment will be, for a workload's check: sizes that
 * cannot fit are refused before anything runs. */
struct wl_limits {
    uint64_t mem_cap;                   /* the run's memory cap in bytes; 0: none */
    uint64_t swap_planned;              /* --swap's size; 0: none */
    /* Why the run's processes will be in no cgroup of the run's, NULL
     * when they will be (as root, a cgroup cap or no cap with a memory
     * cgroup hierarchy): "--cap-method balloon", "not root", ... */
    const char *no_cgroup;
    const char *swap_dir;               /* where --swap's file goes (its disk's room is shared); NULL: no
                                         * file (no swap, or zram) */
    bool elsewhere;                     /* the run runs on another kernel (a suite's VM cell): what this
                                         * machine has (modules, memory) is judged there, at the run */
};

/* Can bytes of memory be held here: MemTotal + the swap already on + the
 * run's planned swap? 0, or -1 with err saying so (what names them). */
int wl_check_fits(const struct wl_limits *lim, uint64_t bytes, const char *what, struct pm_err *err);

/* A helper process of a workload: pressmark's own binary started as
 * "pressmark NAME ...", NAME beginning with "__" (hidden from help). */
struct wl_helper {
    const char *name;
    int (*main)(int argc, char **argv);
};

struct workload_ops {
    const char *name;
    const char *summary;
    const char *headline;               /* metric shown first by show and compare */
    const char *headline_title;         /* its column title: "elapsed", "msg/s", "MB/s" */
    /* More of its metrics compare shows by default, after the headline
     * (the chat's p99 delivery latency); NULL-terminated, or NULL. */
    const char *const *compare_also;
    bool show_cpu_split;                /* show adds the CPU split columns (user, system, idle) */
    bool hidden;                        /* not offered by 'pressmark run' (record's command) */
    bool journals;                      /* keeps changes of its own in the run's undo journal (not a hog) */
    const char *params_title;           /* what describe writes: NULL "parameters"; "command" */
    const struct opt *options;          /* typed, fio-style; defaults applied first */
    size_t state_size;
    /* Words after "--" (a command), or none. */
    int (*set_args)(void *state, int argc, char **argv, struct pm_err *err);
    /* Optional: check the options together once all are set, against
     * the run's cap and swap; it may fill in defaults that depend on them. */
    int (*check)(void *state, const struct wl_limits *lim, struct pm_err *err);
    /* Once before the runs: check what is needed, build what is shared. */
    int (*prepare)(void *state, struct run_ctx *rc, struct pm_err *err);
    /* One measured run, inside the cap. Returns -1 only on harness errors;
     * a workload that fails reports it through run_set_status. */
    int (*run)(void *state, struct run_ctx *rc, struct pm_err *err);
    void (*cleanup)(void *state);
    /* The parameters that define this configuration, for the run's record;
     * NULL: the options as opt_describe writes them. */
    void (*describe)(void *state, char *buf, size_t len);
    /* Optional: a list-valued option makes phases, each with its own runs
     * (kernbench's -j half, 4x, max). Returns how many (1 without). */
    int (*phases)(void *state);
    /* Select phase i; suffix names it for the label ("j8"). */
    void (*set_phase)(void *state, int i, char *suffix, size_t len);
    const struct wl_helper *helpers;    /* NULL-terminated, or NULL */
    /* The Debian packages it needs that a guest's root lacks (redis-server,
     * memcached), comma-separated, or NULL: a suite's VM image adds them
     * for the cells it runs (kernels/base.c). */
    const char *guest_packages;
    /* Optional: the headline this configuration names, where it is not
     * the workload's (record's figures); "" when each run's output
     * decides it; NULL: headline. Each run stores its own as its
     * "headline" metadata when it has one. */
    const char *(*headline_of)(void *state);
    /* Optional: the i-th metric name this configuration's user declares
     * (record --figure), NULL past the last: no table has them, and none
     * may be a name a table declares (catalogue_check_declared). */
    const char *(*declared)(void *state, size_t i);
    /* What it stores, declared once (METRIC rows under its heading):
     * run_metric takes these; help metrics, the man page and the tests'
     * strict check read them. */
    const struct metric_group *metrics;
};

/* The helper called name, from any workload; NULL when none has it. */
const struct wl_helper *workload_helper(const char *name);

/* What a workload may ask of the run it is part of. The harness fills a
 * table of operations (struct run_ops) and hands each workload a run whose
 * first member points at it; the functions below (workloads/run_api.c)
 * call down through that table, so workloads neither include nor link
 * against the layer above them. */
#include <sys/resource.h>
#include <sys/types.h>

/* What run_wait saw when the workload's process ended. */
struct run_exit {
    int wstatus;
    struct rusage ru;
    uint64_t elapsed_ns;
    bool timed_out;
    bool aborted;                /* SIGINT or SIGTERM reached pressmark */
};

/* The harness's side of a run, one function each; struct run_ctx begins
 * with a pointer to this table (harness/run.c). */
struct run_ops {
    int (*spawn_io)(struct run_ctx *rc, char *const argv[], int pass_fd, int out_fd, pid_t *pid, struct pm_err *err);
    int (*spawn_env)(struct run_ctx *rc, char *const argv[], char *const envp[], bool client, int pass_fd,
                     int out_fd, pid_t *pid, struct pm_err *err);
    int (*wait)(struct run_ctx *rc, pid_t pid, struct run_exit *ex, struct pm_err *err);
    int (*wait_until)(struct run_ctx *rc, pid_t pid, uint64_t deadline_ns, struct run_exit *ex, struct pm_err *err);
    void (*metric)(struct run_ctx *rc, const char *name, double value, const char *unit, enum metric_dir dir);
    void (*live_count)(struct run_ctx *rc, uint64_t count, const char *unit);
    void (*gauge)(struct run_ctx *rc, const char *name, double value);
    /* Keep a latency histogram for the run's end; -1 out of memory. */
    int (*keep_hist)(struct run_ctx *rc, const char *name, const struct loghist *h);
    void (*meta)(struct run_ctx *rc, const char *key, const char *value);
    /* A metric its user declared (record --figure NAME:UNIT:DIR): not in
     * any table, so the catalogue's strict check takes it as declared. */
    void (*user_metric)(struct run_ctx *rc, const char *name, double value, const char *unit, enum metric_dir dir);
    /* Keep a text with the run (what a recorded command wrote); -1 out of memory. */
    int (*keep_text)(struct run_ctx *rc, const char *what, const char *data, size_t len, bool cut);
    void (*set_status)(struct run_ctx *rc, const char *status, const char *reason);
    const char *(*status)(struct run_ctx *rc);
    const char *(*exe)(struct run_ctx *rc);
    /* The signal that interrupted the run, checking for a pending one; 0: none. */
    int (*abort_signal)(struct run_ctx *rc);
    const char *(*cgroup)(struct run_ctx *rc);
    /* The cgroup of run_spawn_env's clients; NULL until one ran, or none. */
    const char *(*client_cgroup)(struct run_ctx *rc);
    uint64_t (*timeout_ns)(struct run_ctx *rc);
    FILE *(*say)(struct run_ctx *rc);
};

/* Spawn argv inside the run's cap (own process group, oom_score_adj 0). */
int run_spawn(struct run_ctx *rc, char *const argv[], pid_t *pid, struct pm_err *err);
/* The same, handing pass_fd to the child as its descriptor 4 (a report pipe). */
int run_spawn_fd(struct run_ctx *rc, char *const argv[], int pass_fd, pid_t *pid, struct pm_err *err);
/* The same, with the child's stdout and stderr going to out_fd (when >= 0). */
int run_spawn_io(struct run_ctx *rc, char *const argv[], int pass_fd, int out_fd, pid_t *pid, struct pm_err *err);
/* A process that runs as another user (setpriv in argv): started as
 * run_spawn_io starts the workload, with envp as its whole environment,
 * so nothing of root's crosses the privilege drop, in a session of its
 * own with /dev/null for stdin: root's terminal is never its controlling
 * terminal (TIOCSTI) nor its input. client: it is a load generator
 * (redis-benchmark, memcaslap), started OUTSIDE the cap: in a cgroup of its
 * own beside the run's, which the harness makes on first use, journals
 * and removes with the run (where the run has no cgroup, where pressmark
 * is). The server under pressure is what is measured, not its client. */
int run_spawn_env(struct run_ctx *rc, char *const argv[], char *const envp[], bool client, int pass_fd, int out_fd,
                  pid_t *pid, struct pm_err *err);
/* run_wait with a deadline of the workload's own (CLOCK_MONOTONIC ns, 0:
 * none) beside the run's --timeout: at whichever comes first the process
 * is sent SIGTERM, then SIGKILL, and ex->timed_out says so. For a tool
 * that may wait for ever (redis-benchmark without its server). */
int run_wait_until(struct run_ctx *rc, pid_t pid, uint64_t deadline_ns, struct run_exit *ex, struct pm_err *err);
/* A helper that reports once, at its end, on descriptor 4: spawn argv with
 * a pipe as that descriptor, wait for it, read what it wrote into report
 * (NUL-terminated, "" when nothing), store wait4's figures and turn its exit
 * into the run's status (what names it there). -1 only on harness errors. */
int run_helper(struct run_ctx *rc, char *const argv[], const char *what, char *report, size_t len,
               struct pm_err *err);
/* Wait for pid, handling SIGINT/SIGTERM and the run's timeout. */
int run_wait(struct run_ctx *rc, pid_t pid, struct run_exit *ex, struct pm_err *err);
/* Store a metric the workload declared (its ops table's metrics). */
void run_metric(struct run_ctx *rc, const struct metric_def *m, double value);
/* A running count of the workload's work so far (messages, bytes), for
 * the live progress: shown as its rate per second. Any thread may call it;
 * unit names the rate ("msg/s"). */
void run_live_count(struct run_ctx *rc, uint64_t count, const char *unit);
void run_meta(struct run_ctx *rc, const char *key, const char *value);
/* Store a metric the user named and declared (its unit and direction are
 * the user's), and one a figures parser declares (its table's). */
void run_user_metric(struct run_ctx *rc, const char *name, double value, const char *unit, enum metric_dir dir);
void run_declared_metric(struct run_ctx *rc, const char *name, double value, const char *unit, enum metric_dir dir);
/* Keep data[0..len) with the run as what ("output"); cut: it went on
 * beyond len. -1 when out of memory. */
int run_keep_text(struct run_ctx *rc, const char *what, const char *data, size_t len, bool cut);
/* A value the workload measures about itself while it runs, sampled at
 * every tick as the series called name ("workload.KEY"; the charts draw
 * "workload.latency_p99_us", the p99 over the workload's last window).
 * Any thread may call it. */
void run_gauge(struct run_ctx *rc, const char *name, double value);
/* A latency histogram of the run (ns), declared as a LATENCY_METRIC called
 * name ("WORKLOAD.latency" is the one the charts draw as a distribution):
 * stored bucket by bucket, and its percentiles as the metrics
 * name_p50_us, _p90_us, _p99_us, _p999_us, _max_us, _mean_us, with name_samples. */
int run_latency(struct run_ctx *rc, const struct metric_def *m, const struct loghist *h, struct pm_err *err);
/* status is "ok", "failed", "oom" or "aborted"; the reason is stored as is. */
void run_set_status(struct run_ctx *rc, const char *status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* GNU time's fields from wait4, stored as time.* metrics. */
void run_rusage_metrics(struct run_ctx *rc, const struct run_exit *ex);
/* Turn a wait status into the run's status and reason. */
void run_status_from_exit(struct run_ctx *rc, const char *what, const struct run_exit *ex);

/* The time.* metrics run_rusage_metrics stores, every run's. */
extern const struct metric_group run_time_metrics;

/* The run's status so far ("ok" until something says otherwise). */
const char *rc_status(struct run_ctx *rc);
/* pressmark's own binary, for workloads that run its helpers. */
const char *run_exe(struct run_ctx *rc);
/* Where the workload says what it does besides measuring (a cache made
 * once, a helper that would not end): the run's, given by the command.
 * Workloads never print; their helper processes' mains may. */
FILE *run_say(struct run_ctx *rc);
/* Has SIGINT/SIGTERM arrived? Marks the run aborted if so. */
bool run_check_abort(struct run_ctx *rc);
/* The run's cgroup directory, or NULL when it has none. */
const char *run_cgroup(struct run_ctx *rc);
/* The cgroup directory its clients (run_spawn_env's client) run in,
 * beside the run's: NULL until one was started, or when the run has no
 * cgroup (they then run where pressmark does). What is in it is a
 * client's, or a client's child's, and nothing else. */
const char *run_client_cgroup(struct run_ctx *rc);

const struct workload_ops *workload_find(const char *name);
/* Every workload's name, "record, swapout, ...", for what is accepted. */
void workload_names(char *buf, size_t len);
/* The configuration text stored with each run. */
void workload_describe(const struct workload_ops *wl, void *state, char *buf, size_t len);
/* NULL-terminated list of all workloads, for help and doctor. */
extern const struct workload_ops *const wl_registry[];

#endif
