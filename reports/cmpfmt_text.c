/* compare's readable formats for a terminal or a post: text (the reports'
 * table, or mmtests' long layout with --long) and markdown (the same in
 * GitHub's tables). Both are compare_readable.c's renderer with their
 * markup; human marks them as read on a terminal (strings from the
 * database shown with control characters escaped). */
#include "reports/cmpfmt.h"

const struct cmp_format cmp_format_text = {
    .markup = MARKUP_TEXT, .human = true,
    .begin = cmp_readable_begin, .comparison = cmp_readable_comparison, .end = cmp_readable_end,
};

const struct cmp_format cmp_format_markdown = {
    .markup = MARKUP_MARKDOWN, .human = true,
    .begin = cmp_readable_begin, .comparison = cmp_readable_comparison, .end = cmp_readable_end,
};
