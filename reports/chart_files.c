#include "reports/chart_files.h"
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "lib/fileio.h"
#include "lib/quote.h"
#include "lib/spawn.h"

static int run_gnuplot(const char *dir, const char *script, struct pm_err *err)
{
    char *argv[] = { "gnuplot", (char *)script, NULL };
    char logpath[4200];
    snprintf(logpath, sizeof logpath, "%s/gnuplot.log", dir);
    /* Its warnings (an empty y range when nothing swapped) are kept, not shown. */
    int log = pm_open_output(logpath, O_APPEND);
    if (log < 0)
        return pm_errf(err, "%s: %s", logpath, strerror(errno));
    struct pm_spawn sp = { .argv = argv, .dir = dir, .err = log, .missing_hint = "(install gnuplot-nox)" };
    int rc = pm_spawn_run(&sp, err);
    close(log);
    if (rc < 0)
        return pm_errf(err, "gnuplot failed on %s/%s (its messages are in %s/gnuplot.log)", dir, script, dir);
    return 0;
}

static FILE *open_out(const char *dir, const char *name, char *path, size_t len, struct pm_err *err)
{
    snprintf(path, len, "%s/%s", dir, name);
    FILE *f = pm_create_file(path);
    if (!f)
        pm_errf(err, "%s: %s", path, strerror(errno));
    return f;
}

/* gnuplot reads a file name beginning with '<' (plot) or '|' (set
 * output) as a command to run, and the script's comments end at a
 * newline: such a name never reaches it. */
static bool gnuplot_safe_name(const char *base)
{
    if (base[0] == '<' || base[0] == '|' || base[0] == '\0')
        return false;
    for (const unsigned char *p = (const unsigned char *)base; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return false;
    return true;
}

FILE *chart_open(struct chart_files *cf, const char *dir, const char *base, bool svg, struct pm_err *err)
{
    if (!gnuplot_safe_name(base)) {
        pm_errf(err, "%s/%s: not a chart's name (accepted: a file name not beginning with '<' or '|', without "
                "control characters)", dir, base);
        return NULL;
    }
    snprintf(cf->dat, sizeof cf->dat, "%s.dat", base);
    snprintf(cf->gp, sizeof cf->gp, "%s.gp", base);
    snprintf(cf->img, sizeof cf->img, "%s.%s", base, svg ? "svg" : "png");
    return open_out(dir, cf->dat, cf->path, sizeof cf->path, err);
}

FILE *chart_script(struct chart_files *cf, FILE *data, const char *dir, struct pm_err *err)
{
    if (fclose(data) != 0) {
        pm_errf(err, "%s: %s", cf->path, strerror(errno));
        return NULL;
    }
    return open_out(dir, cf->gp, cf->path, sizeof cf->path, err);
}

int chart_draw(struct chart_files *cf, FILE *f, const char *dir, char *written, struct pm_err *err)
{
    if (fclose(f) != 0)
        return pm_errf(err, "%s: %s", cf->path, strerror(errno));
    /* gnuplot opens the image itself, following whatever is there: it
     * is made here first, so that a link or FIFO planted under its name
     * is refused as the data's and script's are. */
    FILE *img = open_out(dir, cf->img, cf->path, sizeof cf->path, err);
    if (!img)
        return -1;
    if (fclose(img) != 0)
        return pm_errf(err, "%s: %s", cf->path, strerror(errno));
    if (run_gnuplot(dir, cf->gp, err) < 0)
        return -1;
    snprintf(written, 4096, "%s/%s", dir, cf->img);
    return 0;
}

void gp_header(FILE *f, const char *what, const char *dat, const char *img, bool svg, int rows)
{
    /* A comment ends at the line's end: the title's newlines must not. */
    char safe[512];
    quote_terminal(what, safe, sizeof safe);
    fprintf(f, "# pressmark: %s\n# data: %s (one index block per line; columns as named below)\n"
               "# redraw with: gnuplot %s\n", safe, dat, img);
    if (svg)
        fprintf(f, "set terminal svg size 1000,%d dynamic enhanced font 'DejaVu Sans,11' background '#ffffff'\n", 260 * rows + 80);
    else
        fprintf(f, "set terminal pngcairo size 1000,%d enhanced font 'DejaVu Sans,10'\n", 260 * rows + 80);
    fputs("set output ", f);
    quote_gnuplot(f, img);
    fputs("\nset datafile missing 'NaN'\nset grid\nset key outside right top noenhanced\n"
          "set xlabel 'time since the run''s first tick (s)'\n", f);
}
