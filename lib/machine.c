#include "lib/machine.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "lib/fileio.h"

int pm_machine_read(struct machine_info *m, struct pm_err *err)
{
    memset(m, 0, sizeof *m);
    struct utsname u;
    if (uname(&u) < 0)
        return pm_errf(err, "uname: %s", strerror(errno));
    snprintf(m->hostname, sizeof m->hostname, "%s", u.nodename);
    snprintf(m->kernel, sizeof m->kernel, "%s", u.release);
    if (pm_read_file("/proc/version", m->proc_version, sizeof m->proc_version) < 0)
        snprintf(m->proc_version, sizeof m->proc_version, "%s %s", u.sysname, u.version);
    if (pm_read_file("/proc/cmdline", m->cmdline, sizeof m->cmdline) < 0)
        m->cmdline[0] = '\0';
    char cpuinfo[65536];
    snprintf(m->cpu_model, sizeof m->cpu_model, "unknown");
    if (pm_read_file("/proc/cpuinfo", cpuinfo, sizeof cpuinfo) == 0) {
        char *p = strstr(cpuinfo, "model name");
        if (p && (p = strchr(p, ':'))) {
            p++;
            while (*p == ' ' || *p == '\t')
                p++;
            char *nl = strchr(p, '\n');
            snprintf(m->cpu_model, sizeof m->cpu_model, "%.*s", nl ? (int)(nl - p) : (int)strlen(p), p);
        }
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    m->cpus = n > 0 ? (int)n : 1;
    m->mem_total_kb = pm_meminfo_kb("MemTotal");
    if (m->mem_total_kb < 0)
        return pm_errf(err, "/proc/meminfo: no MemTotal");
    m->page_size = sysconf(_SC_PAGESIZE);
    return 0;
}
