#include "reports/compare_fmt.h"

/* The registry: one line per format, in the order --help lists them (the
 * first is the default's index, 0). X(name) stands for the struct
 * cmp_format cmp_format_name its own file defines (cmpfmt_NAME.c); name
 * is the word --format takes. Adding a format is that file and a line
 * here; reports/cmpfmt_skeleton.c is one to copy. */
#define PM_CMP_FORMATS(X) \
    X(text)               \
    X(markdown)           \
    X(csv)                \
    X(json)               \
    X(html)

#define DECLARE(name) extern const struct cmp_format cmp_format_##name;
PM_CMP_FORMATS(DECLARE)
#define ENTRY(name) &cmp_format_##name,
static const struct cmp_format *const formats[] = { PM_CMP_FORMATS(ENTRY) };
#define NAME(name) #name,
const char *const cmp_format_names[] = { PM_CMP_FORMATS(NAME) NULL };

const struct cmp_format *cmp_format_get(unsigned index)
{
    return index < sizeof formats / sizeof formats[0] ? formats[index] : formats[0];
}
