#ifndef PM_CHART_FILES_H
#define PM_CHART_FILES_H
/* A gnuplot chart as pressmark writes it: its data (.dat), its script
 * (.gp) and its image, named after one base in one directory, each file
 * created without following a link planted there (pm_create_file), and
 * gnuplot run over the script in that directory with its messages kept
 * in gnuplot.log. plot's charts and history's share it. */
#include <stdbool.h>
#include <stdio.h>
#include "lib/err.h"

struct chart_files {
    char dat[600], gp[600], img[600], path[4096];
};

/* Name the three files after base (svg or png) and open the data file. */
FILE *chart_open(struct chart_files *cf, const char *dir, const char *base, bool svg, struct pm_err *err);
/* Close the finished data file and open the chart's script. */
FILE *chart_script(struct chart_files *cf, FILE *data, const char *dir, struct pm_err *err);
/* Close the finished script f, let gnuplot draw it, name the image in
 * written (4096 bytes). */
int chart_draw(struct chart_files *cf, FILE *f, const char *dir, char *written, struct pm_err *err);
/* The script's first lines: a comment saying what it draws (what as
 * text, one line), the terminal (rows panels high) and the output. */
void gp_header(FILE *f, const char *what, const char *dat, const char *img, bool svg, int rows);

#endif
