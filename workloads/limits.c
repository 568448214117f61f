#include <stdio.h>
#include "lib/fileio.h"
#include "lib/units.h"
#include "workloads/workload.h"

int wl_check_fits(const struct wl_limits *lim, uint64_t bytes, const char *what, struct pm_err *err)
{
    int64_t mem = pm_meminfo_kb("MemTotal"), swap = pm_meminfo_kb("SwapTotal");
    if (mem < 0)
        return 0;                    /* no meminfo: nothing to judge by */
    uint64_t room = (uint64_t)mem * 1024 + (swap > 0 ? (uint64_t)swap * 1024 : 0) + lim->swap_planned;
    if (bytes <= room)
        return 0;
    char b[32], r[32];
    pm_fmt_size(b, sizeof b, bytes);
    pm_fmt_size(r, sizeof r, room);
    return pm_errf(err, "%s: %s is more than this machine can hold even with swap (%s: MemTotal + swap%s)", what,
                   b, r, lim->swap_planned ? " + --swap" : "");
}
