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

/* Add a copy of data[0..len) as what; -1 only when out of memory. */
int run_texts_add(struct run_texts *t, const char *what, const char *data, size_t len, bool cut);
void run_texts_free(struct run_texts *t);

/* Store the run's texts (inside the caller's transaction). */
int store_run_texts(struct pm_db *db, int64_t run_id, const struct run_texts *t, struct pm_err *err);
/* The run's texts in the order they were kept. A row that does not inflate
 * to its stated size (at most RUN_TEXT_MAX) is refused, err naming it. */
int load_run_texts(struct pm_db *db, int64_t run_id, struct run_texts *t, struct pm_err *err);

#endif
