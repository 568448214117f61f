#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cmd/cli.h"
#include "cmd/parse.h"
#include "pressure/probe.h"
#include "lib/machine.h"
#include "pressure/env.h"
#include "pressure/swap.h"
#include "lib/fileio.h"
#include "pressure/undo.h"


static void line(const char *what, bool ok, const char *detail)
{
    printf("  %-28s %-4s %s\n", what, ok ? "yes" : "no", detail);
}

int cmd_doctor(int argc, char **argv)
{
    static const struct opt no_options[] = { { .type = OPT_END } };
    const struct cmd_group groups[] = { { NULL, no_options, NULL } };
    const struct cmd_spec spec = {
        .name = "doctor", .groups = groups, .ngroups = 1, .max_args = 0,
        .usage = "usage: pressmark doctor\n\nWhat this machine offers for memory-pressure runs and what pressmark will use.\n",
    };
    int r = cmd_parse(&spec, argc, argv);
    if (r < 0)
        return cmd_parse_exit(r);
    struct machine_info mi;
    struct pm_err err;
    if (pm_machine_read(&mi, &err) < 0) {
        return cli_usage("doctor", "%s", err.msg);
    }
    bool root = geteuid() == 0;
    printf("machine: %s, kernel %s, %d CPUs, MemTotal %lld kB, page size %ld\n\n", mi.hostname, mi.kernel,
           mi.cpus, (long long)mi.mem_total_kb, mi.page_size);
    printf("what this machine offers:\n");
    line("root", root, root ? "caps, swap and sysctls can be set" : "runs work uncapped; caps, swap and sysctls need root");
    struct cgroup_support cs;
    cgroup_detect(&cs);
    char d[1024];
    if (cs.v2_root[0])
        snprintf(d, sizeof d, "at %s", cs.v2_root);
    else if (cs.v2_mount[0])
        snprintf(d, sizeof d, "v2 mounted at %s, but without the memory controller", cs.v2_mount);
    else
        snprintf(d, sizeof d, "no cgroup2 mount");
    line("cgroup v2 memory controller", cs.v2_root[0] != 0, d);
    if (cs.v1_memory[0])
        snprintf(d, sizeof d, "at %s", cs.v1_memory);
    else
        snprintf(d, sizeof d, "not mounted");
    line("cgroup v1 memory controller", cs.v1_memory[0] != 0, d);
    char swaps[4096] = "";
    int nswap = 0;
    if (pm_read_file("/proc/swaps", swaps, sizeof swaps) == 0)
        for (char *p = strchr(swaps, '\n'); p; p = strchr(p + 1, '\n'))
            nswap++;
    snprintf(d, sizeof d, "%d active device%s (/proc/swaps)", nswap, nswap == 1 ? "" : "s");
    line("swap devices", nswap > 0, d);
    enum zram_state zs_state = swap_zram_state();
    bool zram = zs_state != ZRAM_NONE;
    line("zram", zram, zs_state == ZRAM_LOADED ? "/sys/class/zram-control present"
                       : zram ? "a module, loaded for a run that asks and unloaded after" : "no zram module in this kernel");
    char zs[64] = "";
    bool zswap = pm_read_file("/sys/module/zswap/parameters/enabled", zs, sizeof zs) == 0;
    snprintf(d, sizeof d, zswap ? "enabled=%s" : "not built in", zs);
    line("zswap", zswap, d);
    char psi[256];
    bool has_psi = pm_read_file("/proc/pressure/memory", psi, sizeof psi) == 0;
    line("PSI (/proc/pressure)", has_psi, has_psi ? "memory, cpu, io" : "absent or disabled (psi=0)");
    char thp[64];
    bool has_thp = pm_read_choice("/sys/kernel/mm/transparent_hugepage/enabled", thp, sizeof thp) == 0;
    snprintf(d, sizeof d, has_thp ? "enabled=%s" : "not built in", thp);
    line("transparent hugepages", has_thp, d);
    line("gnuplot (charts)", pm_in_path("gnuplot"), pm_in_path("gnuplot") ? "" : "install gnuplot-nox for 'pressmark plot'");
    line("perf (--profile)", pm_in_path("perf"), pm_in_path("perf") ? "" : "install linux-perf for --profile");
    printf("\ncap methods (--cap-method):\n");
    line("cgroup2", root && cs.v2_root[0], cs.v2_root[0] ? "memory.max, memory.swap.max, memory.high" : "no v2 memory controller");
    line("cgroup1", root && cs.v1_memory[0], cs.v1_memory[0] ? "memory.limit_in_bytes, memory.memsw.limit_in_bytes" : "no v1 memory controller");
    line("balloon", root, "mlocked helper leaving MemAvailable at the cap (system-wide, like mem=)");
    line("none", true, "no cap");
    printf("\nswap kinds (--swap):\n");
    char swapdir[512];
    snprintf(swapdir, sizeof swapdir, "temporary file under %s", PM_SWAP_DIR);
    line("file", root, swapdir);
    line("zram:SIZE[:ALGO]", root && zram, zram ? "a zram device added and removed per run" : "no zram in this kernel");
    line("--zswap on|off", root && zswap, zswap ? "zswap switched per run" : "no zswap");
    printf("\nwhat pressmark will use:\n");
    enum cap_method got = CAP_NONE;
    struct pm_err merr;
    const char *cap = !root ? "none (not root)"
                    : env_resolve_method(CAP_AUTO, &got, &merr) == 0 ? env_method_name(got) : "none";
    printf("  --cap-method auto            %s\n", cap);
    printf("  state and lock               %s (an interrupted run is undone by the next invocation)\n", undo_state_dir());
    printf("  samplers                     /proc/stat, /proc/vmstat, /proc/meminfo%s, heartbeat every 100 ms\n",
           has_psi ? ", /proc/pressure/{memory,cpu,io}" : "");
    printf("  database                     %s\n", store_db_path());
    char cache[PATH_MAX];
    if (pm_cache_root(cache, sizeof cache) == 0)
        printf("  cache                        %s (generated trees, fetched baselines, filestream's files)\n", cache);
    else
        printf("  cache                        none: neither HOME nor XDG_CACHE_HOME is an absolute path (set "
               "PRESSMARK_CACHE)\n");
    return 0;
}
