/* A stored LAVA job held to what the suite file makes: the row's text is
 * compared, never used. Every value of the row is quoted for the terminal
 * in a message, and cut: a hostile database chooses it. */
#include "experiment/backend_lava_stored.h"
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include "experiment/backend_lava.h"
#include "lib/quote.h"
#include "store/db.h"

int exp_lava_results_name(const char *uuid, int group, char *name, size_t len, struct pm_err *err)
{
    unsigned char rnd[LAVA_RESULTS_RANDOM / 2];
    if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd)
        return pm_errf(err, "getrandom: %s", strerror(errno));
    char hex[LAVA_RESULTS_RANDOM + 1];
    for (size_t i = 0; i < sizeof rnd; i++)
        snprintf(hex + 2 * i, 3, "%02x", rnd[i]);
    snprintf(name, len, "pressmark/results-%s-kernel%d-%s.tar", uuid, group, hex);
    return 0;
}

void exp_lava_store_url(const char *store, const char *name, char *url, size_t len)
{
    size_t n = strlen(store);
    snprintf(url, len, "%s%s%s", store, n && store[n - 1] == '/' ? "" : "/", name);
}

/* The row as a message names it: the database, the suite, the group. */
static void row_name(int64_t suite_id, const struct lava_job_rec *rec, char *buf, size_t len)
{
    char db[600];
    quote_terminal(store_db_path(), db, sizeof db);
    snprintf(buf, len, "%s: lava_job of suite %lld, kernel %d, attempt %d", db, (long long)suite_id, rec->group,
             rec->attempt);
}

/* A suite's UUID as pressmark makes them (the kernel's random UUID):
 * 8-4-4-4-12 lowercase hex digits, so a results name holds no '/' or
 * '.' whatever the suite's row says. */
static bool uuid_ok(const char *u)
{
    if (strlen(u) != 36)
        return false;
    for (int i = 0; i < 36; i++)
        if (i == 8 || i == 13 || i == 18 || i == 23 ? u[i] != '-' : !u[i] || !strchr("0123456789abcdef", u[i]))
            return false;
    return true;
}

/* Is url lava-artifacts/pressmark/results-UUID-kernelG-RANDOM.tar, read
 * by its characters (no URL parser's normalising: a dot segment, a
 * userinfo or a query cannot be in what is compared)? name gets the part
 * after the store. */
static bool results_url_ok(const char *store, const char *uuid, int group, const char *url, char *name, size_t len)
{
    char want[200];
    snprintf(want, sizeof want, "pressmark/results-%s-kernel%d-", uuid, group);
    size_t n = strlen(store);
    if (!n || strncmp(url, store, n) != 0)
        return false;
    const char *rest = url + n;
    if (store[n - 1] != '/' && *rest++ != '/')
        return false;
    if (strncmp(rest, want, strlen(want)) != 0)
        return false;
    const char *rnd = rest + strlen(want);
    if (strspn(rnd, "0123456789abcdef") != LAVA_RESULTS_RANDOM || strcmp(rnd + LAVA_RESULTS_RANDOM, ".tar") != 0)
        return false;
    snprintf(name, len, "%s", rest);
    return true;
}

int exp_lava_stored_check(const struct suite_plan *p, int64_t suite_id, const char *uuid, const struct lava_job_rec *rec,
                      char *name, size_t len, struct pm_err *err)
{
    char row[800], q[1200];
    row_name(suite_id, rec, row, sizeof row);
    if (strcmp(rec->lab, exp_lava_keys(p)->url) != 0) {
        quote_terminal(rec->lab, q, sizeof q);
        return pm_errf(err, "%s: its lab '%.300s' is not %s's lava-url %s; refused, nothing sent (accepted: a job "
                       "pressmark made for this suite file)", row, q, p->file.path, exp_lava_keys(p)->url);
    }
    bool made = strcmp(rec->state, "made") == 0, submitted = strcmp(rec->state, "submitted") == 0;
    if (!(made && rec->job_id == 0) && !(submitted && rec->job_id > 0)) {
        quote_terminal(rec->state, q, sizeof q);
        return pm_errf(err, "%s: its state '%.40s' with job_id %lld is not a job waiting (accepted: made without a "
                       "job_id, submitted with one); refused, nothing sent or fetched", row, q, (long long)rec->job_id);
    }
    if (!uuid_ok(uuid)) {
        quote_terminal(uuid, q, sizeof q);
        return pm_errf(err, "%s: its suite's UUID '%.60s' is not one pressmark makes (8-4-4-4-12 lowercase hex "
                       "digits); refused, nothing sent or fetched", row, q);
    }
    if (!results_url_ok(exp_lava_keys(p)->artifacts, uuid, rec->group, rec->results_url, name, len)) {
        char want[700];
        char prefix[300];
        snprintf(prefix, sizeof prefix, "pressmark/results-%s-kernel%d-", uuid, rec->group);
        exp_lava_store_url(exp_lava_keys(p)->artifacts, prefix, want, sizeof want);
        quote_terminal(rec->results_url, q, sizeof q);
        return pm_errf(err, "%s: its results_url '%.300s' is not %s<%d lowercase hex digits>.tar (under %s's "
                       "lava-artifacts); refused, nothing sent or fetched", row, q, want, LAVA_RESULTS_RANDOM,
                       p->file.path);
    }
    return 0;
}

/* The first line where a and b differ: its number, and each side's text
 * of it quoted for the terminal. */
static int first_difference(const char *a, const char *b, char *qa, char *qb, size_t len)
{
    int line = 1;
    const char *la = a, *lb = b;
    for (; *a && *a == *b; a++, b++)
        if (*a == '\n') {
            line++;
            la = a + 1;
            lb = b + 1;
        }
    char ta[160], tb[160];
    snprintf(ta, sizeof ta, "%.*s", (int)strcspn(la, "\n"), la);
    snprintf(tb, sizeof tb, "%.*s", (int)strcspn(lb, "\n"), lb);
    quote_terminal(ta, qa, len);
    quote_terminal(tb, qb, len);
    return line;
}

int exp_lava_stored_same(const struct suite_plan *p, int64_t suite_id, const struct lava_job_rec *rec, const char *made,
                     struct pm_err *err)
{
    const char *stored = rec->definition ? rec->definition : "";
    if (strcmp(stored, made) == 0)
        return 0;
    char row[800], qs[640], qm[640];
    row_name(suite_id, rec, row, sizeof row);
    int line = first_difference(stored, made, qs, qm, sizeof qs);
    return pm_errf(err, "%s: its definition is not the one %s makes now (line %d: '%.150s' where it makes "
                   "'%.150s'); refused, nothing sent (accepted: a job this pressmark made from this suite file and "
                   "the kernel's image as cached; else run the suite under a new name)", row, p->file.path, line, qs,
                   qm);
}
