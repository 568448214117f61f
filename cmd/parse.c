#include "cmd/parse.h"
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include "cmd/cli.h"

/* Options are numbered past the characters getopt uses: group g's option
 * i is BASE + g * STRIDE + i. */
#define BASE 1000
#define STRIDE 100

static void print_help(const struct cmd_spec *spec)
{
    fputs(spec->usage, stdout);
    for (size_t g = 0; g < spec->ngroups; g++) {
        const char *title = spec->groups[g].title;
        if (!title || title[0])       /* "": the previous group's section goes on */
            printf("\n%s:\n", title ? title : "options");
        opt_help(stdout, spec->groups[g].table);
    }
}

static struct option *long_options(const struct cmd_spec *spec)
{
    size_t n = 1;
    for (size_t g = 0; g < spec->ngroups; g++)
        n += opt_count(spec->groups[g].table);
    struct option *v = calloc(n + 1, sizeof *v);
    if (!v)
        return NULL;
    size_t k = 0;
    for (size_t g = 0; g < spec->ngroups; g++) {
        const struct opt *t = spec->groups[g].table;
        for (size_t i = 0; t[i].type != OPT_END; i++) {
            bool takes_value = t[i].type != OPT_FLAG && t[i].metavar;
            int has_arg = !takes_value ? no_argument : (t[i].flags & OPT_OPTIONAL) ? optional_argument : required_argument;
            v[k++] = (struct option){ t[i].name, has_arg, NULL,
                                      BASE + (int)(g * STRIDE + i) };
        }
    }
    v[k] = (struct option){ "help", no_argument, NULL, 'h' };
    return v;
}

int cmd_parse(const struct cmd_spec *spec, int argc, char **argv)
{
    struct option *longopts = long_options(spec);
    if (!longopts) {
        cli_usage(spec->name, "out of memory");
        return CMD_BAD;
    }
    int result = 0;
    for (size_t g = 0; g < spec->ngroups && result == 0; g++) {
        struct pm_err err;
        if (spec->groups[g].state && opt_set_defaults(spec->groups[g].table, spec->groups[g].state, &err) < 0) {
            cli_usage(spec->name, "%s", err.msg);
            result = CMD_BAD;
        }
    }
    /* getopt sees the words from the first option on, behind a stand-in
     * for the program name, so optind = 0 can ask glibc for a full reset
     * (an earlier parse may have stopped inside "-xyz"). */
    int skip = (spec->first > 0 ? spec->first : 1) - 1;
    argc -= skip;
    argv += skip;
    opterr = 0;
    optind = 0;
    int c;
    while (result == 0 && (c = getopt_long(argc, argv, spec->stop_at_command ? "+h" : "h", longopts, NULL)) != -1) {
        if (c == 'h') {
            print_help(spec);
            result = CMD_HELP;
        } else if (c < BASE) {
            /* A short option inside a cluster ("-xq") is named by itself:
             * optind still points at its word, or past it. */
            char shortopt[3] = { '-', (char)optopt, '\0' };
            cli_usage(spec->name, "unknown option or missing value '%s' (see 'pressmark %s --help')",
                     optopt > 0 && optopt < 128 ? shortopt : argv[optind - 1], spec->name);
            result = CMD_BAD;
        } else {
            const struct cmd_group *g = &spec->groups[(c - BASE) / STRIDE];
            const struct opt *o = &g->table[(c - BASE) % STRIDE];
            const char *value = optarg;
            if (!value && (o->flags & OPT_OPTIONAL) && optind < argc && argv[optind][0] >= '0' && argv[optind][0] <= '9')
                value = argv[optind++];
            struct pm_err err;
            if (opt_set(o, g->state, value ? value : "", &err) < 0) {
                cli_usage(spec->name, "--%s: %s", o->name, err.msg);
                result = CMD_BAD;
            }
        }
    }
    free(longopts);
    if (result < 0)
        return result;
    if (spec->max_args >= 0 && argc - optind > spec->max_args) {
        cli_usage(spec->name, "unexpected argument '%s'%s", argv[optind + spec->max_args],
                 spec->first > 1 ? " (options start with --)" : "");
        return CMD_BAD;
    }
    return optind + skip;
}

int cmd_parse_exit(int r)
{
    return r == CMD_HELP ? 0 : PM_EXIT_USAGE;
}

int cmd_parse_sub(const char *name, const char *usage, const struct opt *table, void *state, int argc, char **argv,
                  int max_args)
{
    const struct cmd_group groups[] = { { NULL, table, state }, { "", exp_db_option, NULL } };
    const struct cmd_spec spec = { .name = name, .usage = usage, .groups = groups, .ngroups = 2,
                                   .max_args = max_args, .first = 2 };
    return cmd_parse(&spec, argc, argv);
}
