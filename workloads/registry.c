#include <stdio.h>
#include <string.h>
#include "workloads/workload.h"

/* One line per workload, in the order help and help metrics list them:
 * X(name) stands for the ops table workload_name its own file defines. */
#define PM_WORKLOADS(X) \
    X(command)          \
    X(swapout)          \
    X(chat)             \
    X(build)            \
    X(shmio)            \
    X(usemem)           \
    X(pagefault)        \
    X(stutter)          \
    X(redis)            \
    X(memcached)        \
    X(postgres)         \
    X(fio)              \
    X(filestream)

#define DECLARE(name) extern const struct workload_ops workload_##name;
PM_WORKLOADS(DECLARE)
#define ENTRY(name) &workload_##name,
const struct workload_ops *const wl_registry[] = { PM_WORKLOADS(ENTRY) NULL };

const struct workload_ops *workload_find(const char *name)
{
    for (size_t i = 0; wl_registry[i]; i++)
        if (strcmp(wl_registry[i]->name, name) == 0)
            return wl_registry[i];
    return NULL;
}

void workload_names(char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; wl_registry[i] && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", wl_registry[i]->name);
}

const struct wl_helper *workload_helper(const char *name)
{
    for (size_t i = 0; wl_registry[i]; i++)
        for (const struct wl_helper *h = wl_registry[i]->helpers; h && h->name; h++)
            if (strcmp(h->name, name) == 0)
                return h;
    return NULL;
}

void workload_describe(const struct workload_ops *wl, void *state, char *buf, size_t len)
{
    if (wl->describe)
        wl->describe(state, buf, len);
    else if (wl->options)
        opt_describe(wl->options, state, buf, len);
    else if (len)
        buf[0] = '\0';
}
