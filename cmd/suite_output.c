#include "cmd/suite_output.h"
#include <stdio.h>
#include <unistd.h>

static void say(void *arg, enum exp_stream stream, const char *text)
{
    (void)arg;
    fputs(text, stream == EXP_DRY_RUN ? stdout : stderr);
}

static void begin(void *arg, const char *title, size_t ncells)
{
    struct suite_output *so = arg;
    progress_init(&so->prog, stderr, !so->quiet && isatty(STDERR_FILENO), title, ncells);
    so->begun = true;
}

static void progress(void *arg, const struct exp_progress *pr)
{
    struct suite_output *so = arg;
    if (so->begun)
        progress_set(&so->prog, pr);
}

static void run_start(void *arg, int cell)
{
    struct suite_output *so = arg;
    if (so->begun)
        progress_run_start(&so->prog, cell);
}

static void tick(void *arg, const struct series_table *t, uint64_t t_ns, const struct run_live *live)
{
    struct suite_output *so = arg;
    if (so->begun)
        progress_tick(&so->prog, t, t_ns, live);
}

static void run_end(void *arg, int cell, const char *status, bool has_value, double value, const char *unit)
{
    struct suite_output *so = arg;
    if (so->begun && !so->quiet)
        progress_run_end(&so->prog, cell, status, has_value, value, unit);
}

static void end(void *arg)
{
    struct suite_output *so = arg;
    if (so->begun && !so->quiet)
        progress_done(&so->prog);
}

void cli_suite_output_init(struct suite_output *so, bool quiet, struct exp_events *ev)
{
    *so = (struct suite_output){ .quiet = quiet };
    *ev = (struct exp_events){ .arg = so, .say = say, .begin = begin, .progress = progress, .run_start = run_start,
                               .tick = tick, .run_end = run_end, .end = end };
}

void cli_suite_output_free(struct suite_output *so)
{
    if (so->begun)
        progress_free(&so->prog);
    so->begun = false;
}
