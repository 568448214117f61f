#ifndef PM_STORE_TEXTS_H
#define PM_STORE_TEXTS_H
/* The texts a run keeps (the run_text table): what a recorded command
 * wrote and the files its figures were read from, so a figure can be
 * checked against what the tool printed long after the run. Each is kept
 * compressed, at most RUN_TEXT_MAX bytes of it; a longer one is kept cut
 * there, and says so. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "store/db.h"

/* The most of one text a run keeps, and the most a reader inflates. */
#define RUN_TEXT_MAX (64u << 20)
/* The most a run keeps of all its texts together, and how many: what a
 * reader (show --output, merge) may be made to inflate for one run. The
 * rows are the output, a --figures-from file and at most 64 logs
 * (RECORD_MAX_LOG_FILES); bytes past the total are kept cut. */
#define RUN_TEXTS_MAX_TOTAL (64u << 20)
#define RUN_TEXTS_MAX_ROWS 66u

struct run_text {
    char what[1024];             /* "output", "figures-from PATH", "figures-log PATH" */
    char *data;                  /* len bytes (malloc'd; NUL-terminated for readers) */
    size_t len;
    bool cut;                    /* the text went on past len (RUN_TEXT_MAX) */
};

struct run_texts {
    struct run_text *v;
    size_t n, cap;
};

/* Add a copy of data[0..len) as what: the part of it within what the
 * run keeps together (RUN_TEXTS_MAX_TOTAL), cut there and marked cut; -1
 * when out of memory or past RUN_TEXTS_MAX_ROWS texts. */
int store_run_texts_add(struct run_texts *t, const char *what, const char *data, size_t len, bool cut);
void store_run_texts_free(struct run_texts *t);

/* Store the run's texts (inside the caller's transaction). */
int store_run_texts(struct pm_db *db, int64_t run_id, const struct run_texts *t, struct pm_err *err);
/* fn with each of the run's texts in the order they were kept, one
 * inflated at a time (freed when fn returns), and the number of them; a
 * run beyond RUN_TEXTS_MAX_ROWS or RUN_TEXTS_MAX_TOTAL is refused before
 * any is inflated, and a row that does not inflate to its stated size
 * when it comes, err naming it (quoted for a terminal). fn's -1 stops it. */
/* How many texts the run keeps; -1 with err when more rows or more bytes
 * together than a run keeps (each_run_text's check, without inflating). */
int count_run_texts(struct pm_db *db, int64_t run_id, struct pm_err *err);
typedef int (*run_text_fn)(void *arg, const struct run_text *x);
int each_run_text(struct pm_db *db, int64_t run_id, run_text_fn fn, void *arg, struct pm_err *err);

#endif
