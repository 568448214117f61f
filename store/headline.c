#include "store/headline.h"
#include <stdio.h>
#include <string.h>

bool headline_name_ok(const char *name)
{
    size_t n = name ? strlen(name) : 0;
    if (n == 0 || n > 95)
        return false;
    return strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_.") == n;
}

bool headline_unit_plain(const char *unit)
{
    for (const char *c = unit; *c; c++)
        if (*c < 0x21 || *c > 0x7e)
            return false;
    return true;
}

/* A unit as reports print it: printable ASCII, else not shown. */
static void unit_copy(const char *u, char *unit, size_t ulen)
{
    snprintf(unit, ulen, "%s", u);
    if (!headline_unit_plain(unit))
        snprintf(unit, ulen, "?");
}

int store_label_headline(struct pm_db *db, const char *workload, const char *label, char *seen, size_t len,
                         char *unit, size_t ulen, bool *differ, struct pm_err *err)
{
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st, "SELECT DISTINCT m.value, (SELECT x.unit FROM metric x WHERE x.run_id = r.id AND"
                               " x.name = m.value) FROM run r JOIN run_meta m ON m.run_id = r.id AND m.key = 'headline'"
                               " WHERE r.workload = ? AND r.label = ?", err) < 0)
        return -1;
    sqlite3_bind_text(st, 1, workload, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, label, -1, SQLITE_STATIC);
    while (!*differ && sqlite3_step(st) == SQLITE_ROW) {
        const char *name = store_col_text(st, 0);
        if (!headline_name_ok(name) || (seen[0] && strcmp(seen, name) != 0)) {
            *differ = true;
        } else if (!seen[0]) {
            snprintf(seen, len, "%s", name);
            unit_copy(sqlite3_column_type(st, 1) == SQLITE_NULL ? "?" : store_col_text(st, 1), unit, ulen);
        }
    }
    sqlite3_finalize(st);
    return 0;
}
