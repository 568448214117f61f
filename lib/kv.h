#ifndef PM_KV_H
#define PM_KV_H
/* An ordered list of string pairs: a run's metadata before it is stored. */
#include <stddef.h>

struct kv {
    char *key, *value;
};

struct kv_list {
    struct kv *v;
    size_t n, cap;
};

/* Add or replace key. Returns -1 only when out of memory. */
int pm_kv_set(struct kv_list *l, const char *key, const char *value);
int pm_kv_setf(struct kv_list *l, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
const char *pm_kv_get(const struct kv_list *l, const char *key);
void pm_kv_free(struct kv_list *l);

#endif
