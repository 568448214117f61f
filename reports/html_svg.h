#ifndef PM_HTML_SVG_H
#define PM_HTML_SVG_H
/* A chart gnuplot drew as SVG, inlined into an HTML page in a chart div:
 * from its <svg element on, without the XML prologue, so the page loads
 * nothing from anywhere. A chart that is not there is one line saying so. */
#include <stdio.h>

void html_inline_svg(FILE *out, const char *path);

#endif
