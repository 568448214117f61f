/* The registry of suite backends: a suite's backend = NAME is looked up
 * here. A backend is a file of its own (backend_NAME.c, which defines
 * the table exp_backend_NAME: its ops, its keys, how it describes
 * itself) and one line below. */
#include "experiment/backend.h"
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* One line per backend: X(name) stands for the table exp_backend_name its
 * own file defines. The first is the default; a refused name gets them
 * in this order. */
#define PM_BACKENDS(X) \
    X(vm)              \
    X(host)            \
    X(lava)            \
    /* (a new backend: its line above this one) */

#define DECLARE(name) extern const struct exp_backend exp_backend_##name;
PM_BACKENDS(DECLARE)
#define ENTRY(name) &exp_backend_##name,
const struct exp_backend *const exp_backends[] = { PM_BACKENDS(ENTRY) NULL };

const struct exp_backend *exp_backend_find(const char *name)
{
    for (size_t i = 0; exp_backends[i]; i++)
        if (strcmp(exp_backends[i]->name, name) == 0)
            return exp_backends[i];
    return NULL;
}

void exp_backend_list(char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; exp_backends[i] && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s, %s", i ? "; " : "", exp_backends[i]->name,
                              exp_backends[i]->summary);
}

int exp_backend_bisects(const struct suite_plan *p, struct pm_err *err)
{
    if (p->backend->bisects)
        return p->backend->bisects(p, err);
    /* "vm or host": the backends that may, as a list in prose. */
    char may[256] = "";
    size_t n = 0, count = 0, total = 0;
    for (size_t i = 0; exp_backends[i]; i++)
        total += exp_backends[i]->bisects != NULL;
    for (size_t i = 0; exp_backends[i] && n < sizeof may; i++)
        if (exp_backends[i]->bisects) {
            count++;
            n += (size_t)snprintf(may + n, sizeof may - n, "%s%s", count == 1 ? "" : count == total ? " or " : ", ",
                                  exp_backends[i]->name);
        }
    return pm_errf(err, "%s: backend = %s: a bisection boots its kernels itself (accepted: backend = %s)", p->file.path,
                   p->backend->name, may);
}

/* Whether the suite reader gives v back as it is from "key = v": it
 * trims blanks, ends a value at a blank-led ';' or '#', refuses an empty
 * value or one that starts with ';', and takes the value whole (quotes
 * included), so nothing is quoted here. */
static bool reads_back(const char *v)
{
    size_t n = strlen(v);
    if (!n || v[0] == ';' || isspace((unsigned char)v[0]) || isspace((unsigned char)v[n - 1]) || strchr(v, '\n'))
        return false;
    for (size_t i = 1; i < n; i++)
        if ((v[i] == ';' || v[i] == '#') && isspace((unsigned char)v[i - 1]))
            return false;
    return true;
}

int exp_backend_keys_text(const struct suite_plan *p, FILE *f)
{
    for (const struct opt *o = p->backend->options; o && o->type != OPT_END; o++) {
        /* A key the text cannot say would run the batch on its default. */
        if (o->type == OPT_CALLBACK && !o->show)
            return -1;
        char v[1024];
        opt_value_text(o, p->backend_state, v, sizeof v);
        /* A flag that is off says so: its default may be yes. */
        if (o->type == OPT_FLAG && !v[0])
            snprintf(v, sizeof v, "no");
        if (!reads_back(v))
            return -1;
        fprintf(f, "%s = %s\n", o->name, v);
    }
    return 0;
}
