#include <stdio.h>
#include <string.h>
#include "workloads/workload.h"

extern const struct workload_ops workload_command;
extern const struct workload_ops workload_swapout;
extern const struct workload_ops workload_chat;
extern const struct workload_ops workload_build;
extern const struct workload_ops workload_shmio;
extern const struct workload_ops workload_usemem;
extern const struct workload_ops workload_pagefault;
extern const struct workload_ops workload_stutter;
extern const struct workload_ops workload_filestream;

/* One line per workload. */
const struct workload_ops *const pm_workloads[] = {
    &workload_command,
    &workload_swapout,
    &workload_chat,
    &workload_build,
    &workload_shmio,
    &workload_usemem,
    &workload_pagefault,
    &workload_stutter,
    &workload_filestream,
    NULL,
};

const struct workload_ops *workload_find(const char *name)
{
    for (size_t i = 0; pm_workloads[i]; i++)
        if (strcmp(pm_workloads[i]->name, name) == 0)
            return pm_workloads[i];
    return NULL;
}

void workload_names(char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; pm_workloads[i] && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", pm_workloads[i]->name);
}

const struct wl_helper *workload_helper(const char *name)
{
    for (size_t i = 0; pm_workloads[i]; i++)
        for (const struct wl_helper *h = pm_workloads[i]->helpers; h && h->name; h++)
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
