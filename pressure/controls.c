#include "pressure/controls.h"
#include <stdbool.h>
#include <unistd.h>

int env_controls_check(const struct env_config *cfg, enum cap_method got, struct pm_err *err)
{
    const struct {
        const char *option, *file;
        bool set, zswap;
    } c[] = {
        { "mem-high", "memory.high", cfg->has_mem_high, false },
        { "mem-low", "memory.low", cfg->has_mem_low, false },
        { "mem-min", "memory.min", cfg->has_mem_min, false },
        { "zswap-max", "memory.zswap.max", cfg->has_zswap_max, true },
        { "zswap-writeback", "memory.zswap.writeback", cfg->zswap_writeback != 0, true },
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        if (!c[i].set)
            continue;
        if (got != CAP_CGROUP2)
            return pm_errf(err, "--%s: %s needs cgroup v2, and the cap here is %s (accepted: --cap-method cgroup2, "
                           "where the memory controller is on cgroup v2)", c[i].option, c[i].file,
                           got == CAP_BALLOON ? "the balloon" : env_method_name(got));
        /* The memcg's zswap files exist only in a kernel with zswap, and
         * zswap is built in or absent: its module directory says which. */
        if (c[i].zswap && access("/sys/module/zswap", F_OK) != 0)
            return pm_errf(err, "--%s: this kernel has no zswap, so no %s (/sys/module/zswap is missing; accepted: "
                           "a kernel built with CONFIG_ZSWAP)", c[i].option, c[i].file);
    }
    return 0;
}
