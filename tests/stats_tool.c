/* pressmark's statistics on numbers given on the command line, for
 * tests/t47-statistics.t to hold against an independent implementation
 * (Debian's scipy). Not installed; a subcommand per function:
 *   stats_tool SUBCOMMAND NUMBER...    one answer on a line
 *   stats_tool SUBCOMMAND -            NUMBER... per line of stdin, an answer each
 * Answers are printed with 10 significant digits. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "reports/power.h"

struct sub {
    const char *name, *args;
    int nargs;
    void (*fn)(const double *a);
};

static unsigned as_runs(double v)
{
    return v >= 0 && v <= 1e9 ? (unsigned)v : 0;
}

static void do_power(const double *a)
{
    printf("%.10g\n", stats_power(a[0], a[1], as_runs(a[2]), a[3]));
}

static void do_detectable(const double *a)
{
    printf("%.10g\n", stats_detectable_pct(a[0], as_runs(a[1]), a[2], a[3]));
}

static void do_runs_needed(const double *a)
{
    printf("%u\n", stats_runs_needed(a[0], a[1], a[2], a[3], as_runs(a[4])));
}

static const struct sub subs[] = {
    { "power", "CV% CHANGE% N ALPHA", 4, do_power },
    { "detectable", "CV% N ALPHA POWER", 4, do_detectable },
    { "runs-needed", "CV% CHANGE% ALPHA POWER MAX", 5, do_runs_needed },
};

static int usage(void)
{
    fprintf(stderr, "usage: stats_tool SUBCOMMAND NUMBER... | stats_tool SUBCOMMAND - (a call per line of stdin)\n");
    for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++)
        fprintf(stderr, "  %-12s %s\n", subs[i].name, subs[i].args);
    return 2;
}

/* Parse n numbers from words; false on anything that is not one. */
static bool numbers(char **words, int n, double *out)
{
    for (int i = 0; i < n; i++) {
        char *end;
        out[i] = strtod(words[i], &end);
        if (end == words[i] || *end)
            return false;
    }
    return true;
}

/* Each line of stdin: the subcommand's numbers, blank-separated. */
static int from_stdin(const struct sub *s)
{
    char line[1024];
    while (fgets(line, sizeof line, stdin)) {
        char *words[16];
        int n = 0;
        for (char *w = strtok(line, " \t\n"); w && n < 16; w = strtok(NULL, " \t\n"))
            words[n++] = w;
        if (n == 0)
            continue;
        double a[16];
        if (n != s->nargs || !numbers(words, n, a)) {
            fprintf(stderr, "stats_tool %s: a line is not %s\n", s->name, s->args);
            return 2;
        }
        s->fn(a);
    }
    return ferror(stdin) ? 2 : 0;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage();
    for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++) {
        const struct sub *s = &subs[i];
        if (strcmp(argv[1], s->name) != 0)
            continue;
        if (argc == 3 && strcmp(argv[2], "-") == 0)
            return from_stdin(s);
        double a[16];
        if (argc - 2 != s->nargs || !numbers(argv + 2, s->nargs, a))
            return usage();
        s->fn(a);
        return fflush(stdout) == 0 ? 0 : 2;
    }
    return usage();
}
