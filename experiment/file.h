#ifndef PM_SUITE_FILE_H
#define PM_SUITE_FILE_H
/* A suite file as written: fio's job-file style, INI read by Debian's
 * libinih. A [global] section and one section per part of the experiment;
 * every key is a pressmark run option (without its dashes) or one of the
 * suite's own keys. A value holding commas is a list: that key is an axis.
 * Each key keeps its line, so every error can name FILE:LINE. */
#include <stddef.h>
#include "lib/err.h"

struct suite_key {
    char *name;
    char *raw;                  /* the value as written (trimmed) */
    char **values;              /* one, or the items of a list (quotes keep a comma) */
    size_t nvalues;
    int line;
};

struct suite_section {
    char *name;
    int line;
    struct suite_key *keys;
    size_t nkeys, capkeys;
};

struct suite_file {
    char path[1024];
    struct suite_section *sections;   /* [global] first when present */
    size_t nsections, capsections;
    char *canonical;            /* sections and keys as parsed, comments and spacing gone */
    char digest[24];            /* FNV-1a of canonical: a changed file is a changed suite */
};

/* Read and split FILE (or, when text is not NULL, text as if it were
 * FILE: a suite as stored). -1 with err "FILE:LINE: ..." for what is not
 * a suite file (syntax, a key outside a section, a section twice, an
 * empty list item, nothing in it). */
int suite_file_read(const char *path, const char *text, struct suite_file *sf, struct pm_err *err);
void suite_file_free(struct suite_file *sf);

#endif
