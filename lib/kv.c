#include "lib/kv.h"
#include "lib/alloc.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int pm_kv_set(struct kv_list *l, const char *key, const char *value)
{
    for (size_t i = 0; i < l->n; i++) {
        if (strcmp(l->v[i].key, key) == 0) {
            char *v = strdup(value);
            if (!v)
                return -1;
            free(l->v[i].value);
            l->v[i].value = v;
            return 0;
        }
    }
    if (ALLOC_GROW(l->v, l->n + 1, l->cap) < 0)
        return -1;
    char *k = strdup(key), *v = strdup(value);
    if (!k || !v) {
        free(k);
        free(v);
        return -1;
    }
    l->v[l->n++] = (struct kv){ k, v };
    return 0;
}

int pm_kv_setf(struct kv_list *l, const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n < 0)
        return -1;
    int rc = pm_kv_set(l, key, s);
    free(s);
    return rc;
}

const char *pm_kv_get(const struct kv_list *l, const char *key)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i].key, key) == 0)
            return l->v[i].value;
    return NULL;
}

void pm_kv_free(struct kv_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->v[i].key);
        free(l->v[i].value);
    }
    free(l->v);
    memset(l, 0, sizeof *l);
}
