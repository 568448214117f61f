/* compare --format html: the readable renderer's HTML fragment (tables of
 * class cmp and env, the sentences as a list), to put in a page of one's
 * own; the HTML report (html_report.c) puts the same fragment in its. */
#include "reports/cmpfmt.h"

const struct cmp_format cmp_format_html = {
    .markup = MARKUP_HTML,
    .begin = cmp_readable_begin, .comparison = cmp_readable_comparison, .end = cmp_readable_end,
};
