/* The option parsers: every option of the run and environment tables and
 * of every workload, set from any text, and whole command lines through
 * cmd_parse. Properties: an accepted value is written back by describe as
 * text that sets the same value again (what describe stores with a run
 * must mean what was run), and a command line is either parsed or refused
 * with a status, never a crash. The input's first byte picks the table,
 * the second the option; the rest is the value, or with the table byte's
 * top bit set, NUL-separated words of a command line. Refused values
 * print their one-line errors: make fuzz runs it with -close_fd_mask=3
 * (fuzz/opts.options). */
#include "fuzz/fuzz.h"
#include <getopt.h>
#include <string.h>
#include "cmd/cli.h"
#include "cmd/parse.h"
#include "workloads/workload.h"

struct table {
    const struct opt *opts;
    size_t state_size;
};

static size_t tables(struct table *t, size_t max)
{
    size_t n = 0;
    t[n++] = (struct table){ exp_run_options, sizeof(struct run_opts) };
    t[n++] = (struct table){ exp_env_options, sizeof(struct run_opts) };
    for (size_t i = 0; wl_registry[i] && n < max; i++)
        if (wl_registry[i]->options)
            t[n++] = (struct table){ wl_registry[i]->options, wl_registry[i]->state_size };
    return n;
}

static void *fresh_state(const struct table *t)
{
    void *state = calloc(1, t->state_size ? t->state_size : 1);
    if (!state)
        return NULL;
    struct pm_err err;
    if (t->opts == exp_run_options || t->opts == exp_env_options)
        exp_run_opts_defaults(state);
    else if (opt_set_defaults(t->opts, state, &err) < 0)
        FUZZ_ASSERT(0, "defaults refused: %s", err.msg);
    return state;
}

static void one_option(const struct table *t, const struct opt *o, const char *value)
{
    /* --db and --push point at places rather than describe a run. */
    if (o->type == OPT_CALLBACK && !o->show)
        return;
    void *state = fresh_state(t);
    if (!state)
        return;
    struct pm_err err;
    if (opt_set(o, state, value, &err) == 0) {
        char text[1024], again[1024];
        opt_value_text(o, state, text, sizeof text);
        void *second = fresh_state(t);
        if (second) {
            if (o->type == OPT_FLAG) {
                FUZZ_ASSERT(opt_set(o, second, text, &err) == 0 || !text[0], "--%s: '%s' refused", o->name, text);
            } else {
                FUZZ_ASSERT(opt_set(o, second, text, &err) == 0, "--%s '%s' is described as '%s', which is refused: %s",
                            o->name, value, text, err.msg);
                opt_value_text(o, second, again, sizeof again);
                FUZZ_ASSERT(strcmp(text, again) == 0, "--%s '%s' is described as '%s', then as '%s'", o->name, value,
                            text, again);
            }
            free(second);
        }
        char all[4096];
        opt_describe(t->opts, state, all, sizeof all);
    }
    free(state);
}

static void command_line(const struct table *t, const uint8_t *data, size_t size)
{
    char *words[33], *block;
    size_t n = fuzz_split(data, size, words + 1, 32, &block);
    words[0] = (char *)"pressmark";
    struct run_opts ro;
    exp_run_opts_defaults(&ro);
    void *state = calloc(1, t->state_size ? t->state_size : 1);
    if (!state) {
        free(block);
        return;
    }
    struct cmd_group groups[] = {
        { "workload options", t->opts == exp_run_options || t->opts == exp_env_options ? NULL : t->opts, state },
        { "run options", exp_run_options, &ro },
        { exp_env_options_title, exp_env_options, &ro },
    };
    struct cmd_spec spec = { .name = "fuzz", .usage = "usage: fuzz\n", .groups = groups + (groups[0].table ? 0 : 1),
                             .ngroups = groups[0].table ? 3 : 2, .first = 1, .max_args = -1 };
    int r = cmd_parse(&spec, (int)n + 1, words);
    FUZZ_ASSERT(r == CMD_HELP || r == CMD_BAD || (r >= 1 && r <= (int)n + 1), "cmd_parse returned %d", r);
    free(state);
    free(block);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct table t[16];
    size_t nt = tables(t, 16);
    if (size < 2)
        return 0;
    const struct table *tab = &t[(data[0] & 0x7f) % nt];
    if (data[0] & 0x80) {
        command_line(tab, data + 1, size - 1);
        return 0;
    }
    const struct opt *o = &tab->opts[data[1] % opt_count(tab->opts)];
    char *value = malloc(size - 1);
    if (!value)
        return 0;
    memcpy(value, data + 2, size - 2);
    value[size - 2] = '\0';
    one_option(tab, o, value);
    free(value);
    return 0;
}
