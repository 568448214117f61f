#include "reports/summary.h"
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "lib/units.h"
#include "stats/stats.h"
#include "reports/table.h"
#include "reports/present.h"
#include "stats/outlier.h"
#include "store/headline.h"
#include "metric_names.h"     /* generated from the metric tables (tools/metric-names.awk) */

void summary_fmt_time(char *buf, size_t len, int64_t wall_ns)
{
    time_t t = (time_t)(wall_ns / 1000000000ll);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%d %H:%M:%S UTC", &tm);
}

const char *summary_headline(const char *workload, const char **title)
{
    struct wl_present wp;
    report_workload(workload, &wp);
    *title = wp.title;
    return wp.headline;
}

const char *summary_runs_headline(const struct run_info *runs, size_t n, const char **title)
{
    return n ? summary_workload_headline(runs, n, runs[0].workload, title) : summary_headline("", title);
}

const char *summary_workload_headline(const struct run_info *runs, size_t n, const char *workload, const char **title)
{
    const char *name = NULL;
    const struct metric *m = NULL;
    for (size_t i = 0; i < n; i++) {
        const char *h = pm_kv_get(&runs[i].meta, "headline");
        if (!h || strcmp(runs[i].workload, workload) != 0)
            continue;
        if (!headline_name_ok(h) || (name && strcmp(name, h) != 0))
            return summary_headline(workload, title);
        name = h;
        if (!m)
            m = metric_set_find(&runs[i].metrics, h);
    }
    if (!name)
        return summary_headline(workload, title);
    /* The unit is the database's: shown only when it is plain. */
    bool plain = m && m->unit[0] && headline_unit_plain(m->unit);
    *title = plain ? m->unit : "figure";
    return name;
}

static void fmt_headline(char *buf, size_t len, const struct metric *m)
{
    if (!m) {
        snprintf(buf, len, "-");
    } else if (strcmp(m->unit, "s") == 0) {
        char n[64];
        pm_fmt_fixed(n, sizeof n, m->value, 2);
        snprintf(buf, len, "%s s", n);
    } else if (fabs(m->value) >= 1000) {
        pm_fmt_fixed(buf, len, m->value, 0);
    } else {
        pm_fmt_number(buf, len, m->value);
    }
}

static void fmt_kb(char *buf, size_t len, const struct run_info *ri, const char *name)
{
    const struct metric *m = metric_set_find(&ri->metrics, name);
    if (!m) {
        snprintf(buf, len, "-");
        return;
    }
    char n[32];
    pm_fmt_thousands(n, sizeof n, (int64_t)llround(m->value));
    snprintf(buf, len, "%s KB", n);
}

static void fmt_fixed(char *buf, size_t len, const struct run_info *ri, const char *name, int decimals)
{
    const struct metric *m = metric_set_find(&ri->metrics, name);
    if (m)
        snprintf(buf, len, "%.*f", decimals, m->value);
    else
        snprintf(buf, len, "-");
}

void summary_gnu_time(FILE *f, const struct run_info *ri)
{
    const struct metric *el = metric_set_find(&ri->metrics, MN_time_elapsed_s);
    if (!el)
        return;
    char elapsed[32];
    pm_fmt_elapsed(elapsed, sizeof elapsed, el->value, true);
    fprintf(f, "%.2fuser %.2fsystem %selapsed %.0f%%CPU (0avgtext+0avgdata %.0fmaxresident)k\n"
               "%.0finputs+%.0foutputs (%.0fmajor+%.0fminor)pagefaults 0swaps\n",
            store_run_metric_or(ri, MN_time_user_s, 0), store_run_metric_or(ri, MN_time_sys_s, 0), elapsed,
            store_run_metric_or(ri, MN_time_cpu_pct, 0), store_run_metric_or(ri, MN_time_maxrss_kb, 0),
            store_run_metric_or(ri, MN_time_inblock, 0), store_run_metric_or(ri, MN_time_oublock, 0),
            store_run_metric_or(ri, MN_time_majflt, 0), store_run_metric_or(ri, MN_time_minflt, 0));
}

static void print_details(FILE *f, const struct run_info *ri)
{
    char started[64];
    summary_fmt_time(started, sizeof started, ri->started_ns);
    fprintf(f, "run %lld  %s  workload %s  label %s  status %s%s%s\n", (long long)ri->id, ri->uuid,
            ri->workload, ri->label, ri->status, ri->reason[0] ? ": " : "", ri->reason);
    const char *cap = pm_kv_get(&ri->meta, "cap.method");
    const char *capsize = pm_kv_get(&ri->meta, "cap.limit_bytes");
    const char *swap = pm_kv_get(&ri->meta, "swap.devices");
    fprintf(f, "started %s on %s, kernel %s; %lld ticks every %.0f ms\n", started, ri->hostname, ri->kernel,
            (long long)ri->ticks, (double)ri->interval_ns / 1e6);
    char capbuf[64] = "";
    if (capsize) {
        pm_fmt_size(capbuf, sizeof capbuf, strtoull(capsize, NULL, 10));
    }
    fprintf(f, "cap: %s%s%s; swap: %s\n", cap ? cap : "none", capsize ? " " : "", capbuf, swap ? swap : "none");
    if (ri->params[0])
    {
        struct wl_present wp;
        report_workload(ri->workload, &wp);
        fprintf(f, "%s: %s\n", wp.params_title, ri->params);
    }
}

/* Is name one of a latency histogram's metrics (BASE_p50_us, ...,
 * BASE_samples)? Those go in the latency table, not the list. */
static bool latency_metric(const struct run_info *ri, const char *name)
{
    const char *us = strrchr(name, '_');
    if (!us)
        return false;
    if (strcmp(us, "_us") == 0 || strcmp(us, "_samples") == 0) {
        size_t n = (size_t)(us - name);
        if (strcmp(us, "_us") == 0) {
            /* BASE_p50_us: back over the percentile's own "_p50". */
            const char *p = name + n;
            while (p > name && p[-1] != '_')
                p--;
            if (p == name)
                return false;
            n = (size_t)(p - 1 - name);
        }
        char samples[128];
        snprintf(samples, sizeof samples, "%.*s_samples", (int)n, name);
        return metric_set_find(&ri->metrics, samples) != NULL;
    }
    return false;
}

/* Latency histograms the workload measured (the chat's delivery latency):
 * a row each, under the headline table; with several runs, a row per run. */
static void print_latency(FILE *f, const struct run_info *runs, size_t n)
{
    bool head = false;
    for (size_t r = 0; r < n; r++) {
        const struct run_info *ri = &runs[r];
        for (size_t i = 0; i < ri->metrics.n; i++) {
            const char *name = ri->metrics.v[i].name;
            size_t len = strlen(name);
            if (len < 9 || strcmp(name + len - 8, "_samples") != 0)
                continue;
            char base[128], m[160];
            snprintf(base, sizeof base, "%.*s", (int)(len - 8), name);
            snprintf(m, sizeof m, "%s_p50_us", base);
            if (!metric_set_find(&ri->metrics, m))
                continue;
            if (!head)
                fprintf(f, "\n%s%-22s %10s %10s %10s %10s %10s %10s %10s\n", n > 1 ? "run  " : "", "latency", "samples",
                        "p50 us", "p90 us", "p99 us", "p99.9 us", "max us", "mean us");
            head = true;
            static const char *const sfx[] = { "p50_us", "p90_us", "p99_us", "p999_us", "max_us", "mean_us" };
            char count[32];
            pm_fmt_thousands(count, sizeof count, (int64_t)ri->metrics.v[i].value);
            if (n > 1)
                fprintf(f, "%-4lld ", (long long)ri->id);
            fprintf(f, "%-22s %10s", base, count);
            for (int k = 0; k < 6; k++) {
                snprintf(m, sizeof m, "%s_%s", base, sfx[k]);
                fprintf(f, " %10.1f", store_run_metric_or(ri, m, 0));
            }
            fputc('\n', f);
        }
    }
}

/* The workload's own figures (chat.*, shmio.*, swapout.*, build.*): the
 * reports' counts such as heap collections per side, bytes and passes. */
void summary_workload_figures(FILE *f, const struct run_info *ri)
{
    char prefix[80];
    snprintf(prefix, sizeof prefix, "%s.", ri->workload);
    size_t plen = strlen(prefix), shown = 0;
    char head[96];
    snprintf(head, sizeof head, "\n%s: ", ri->workload);
    for (size_t i = 0; i < ri->metrics.n; i++) {
        const struct metric *m = &ri->metrics.v[i];
        /* A database is data: a name or unit that could start a line of
         * its own (a newline, an escape) is not shown. */
        if (strncmp(m->name, prefix, plen) != 0 || latency_metric(ri, m->name) || !headline_name_ok(m->name))
            continue;
        char v[64];
        pm_fmt_sig(v, sizeof v, m->value, 6);
        bool unit = strcmp(m->unit, "count") != 0 && strcmp(m->unit, "none") != 0 && m->unit[0] &&
                    headline_unit_plain(m->unit);
        fprintf(f, "%s%s %s%s%s", shown++ ? ", " : head, m->name + plen, v, unit ? " " : "", unit ? m->unit : "");
    }
    if (shown)
        fputc('\n', f);
}

/* "n%" of a stored percentage, or "-" where nothing was scanned. */
static void pct(char *buf, size_t len, const struct run_info *ri, const char *name)
{
    const struct metric *m = metric_set_find(&ri->metrics, name);
    if (m)
        snprintf(buf, len, "%.1f%%", m->value);
    else
        snprintf(buf, len, "-");
}

/* The monitors beyond the counters: fragmentation, watermarks, the swap
 * devices, the largest process, mTHP. */
static void print_monitors(FILE *f, const struct run_info *ri)
{
    const struct metric_set *m = &ri->metrics;
    if (metric_set_find(m, MN_frag_unusable_o9_max_pct) || metric_set_find(m, MN_zone_below_low_max_pages)) {
        fprintf(f, "fragmentation: free memory unusable for an order-9 block at most %.1f%%",
                store_run_metric_or(ri, MN_frag_unusable_o9_max_pct, 0));
        if (metric_set_find(m, MN_zone_below_low_max_pages))
            fprintf(f, "; zones below their low watermark by at most %.0f pages (below min %.0f)",
                    store_run_metric_or(ri, MN_zone_below_low_max_pages, 0), store_run_metric_or(ri, MN_zone_below_min_max_pages, 0));
        fputc('\n', f);
    }
    if (metric_set_find(m, MN_swapdev_reads)) {
        fprintf(f, "swap devices: %.0f reads (%.0f KB), %.0f writes (%.0f KB)", store_run_metric_or(ri, MN_swapdev_reads, 0),
                store_run_metric_or(ri, MN_swapdev_read_kb, 0), store_run_metric_or(ri, MN_swapdev_writes, 0),
                store_run_metric_or(ri, MN_swapdev_write_kb, 0));
        if (metric_set_find(m, MN_swapdev_await_ms))
            fprintf(f, ", await %.3f ms per request", store_run_metric_or(ri, MN_swapdev_await_ms, 0));
        fputc('\n', f);
    }
    if (metric_set_find(m, MN_procs_rss_max_kb))
        fprintf(f, "largest process: %.0f KB RSS at most; %.0f KB swapped at most (top 5 by RSS, each tick)\n",
                store_run_metric_or(ri, MN_procs_rss_max_kb, 0), store_run_metric_or(ri, MN_procs_swap_max_kb, 0));
    if (metric_set_find(m, MN_mthp_anon_fault_alloc))
        fprintf(f, "mTHP: anon faults %.0f (fallbacks %.0f), swap-outs %.0f (fallbacks %.0f), splits %.0f\n",
                store_run_metric_or(ri, MN_mthp_anon_fault_alloc, 0), store_run_metric_or(ri, MN_mthp_anon_fault_fallback, 0),
                store_run_metric_or(ri, MN_mthp_swpout, 0), store_run_metric_or(ri, MN_mthp_swpout_fallback, 0),
                store_run_metric_or(ri, MN_mthp_split, 0));
}

/* Which sources gave values, which were switched off, which are absent. */
static void print_collected(FILE *f, const struct run_info *ri)
{
    if (!ri->nsources)
        return;
    fputs("collected:", f);
    const char *last = "";
    for (size_t i = 0; i < ri->nsources; i++)
        if (ri->sources[i].ticks > 0 && strcmp(ri->sources[i].source, last) != 0) {
            fprintf(f, " %s", ri->sources[i].source);
            last = ri->sources[i].source;
        }
    const char *off = pm_kv_get(&ri->meta, "collect.off");
    if (off && *off)
        fprintf(f, "; switched off: %s", off);
    const char *mg = pm_kv_get(&ri->meta, "mglru.enabled");
    if (mg)
        fprintf(f, "; MGLRU %s", mg);
    fputc('\n', f);
}

/* --trace-reclaim's latencies: a row per kind of stall, from the run's
 * stall.* metrics (percentiles from its histogram, 0.8% resolution). */
static void print_stalls(FILE *f, const struct run_info *ri)
{
    static const char *const kinds[] = { "direct", "memcg", "compaction" };
    if (!metric_set_find(&ri->metrics, MN_stall_count("memcg")))
        return;
    fprintf(f, "reclaim stalls (traced): lost events %.0f, nested %.0f, unpaired %.0f\n",
            store_run_metric_or(ri, MN_stall_lost_events, 0), store_run_metric_or(ri, MN_stall_nested, 0),
            store_run_metric_or(ri, MN_stall_unpaired, 0));
    fprintf(f, "    %-11s %8s %11s %10s %10s %10s %10s\n", "kind", "count", "total ms", "p50 us", "p90 us", "p99 us",
            "max us");
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        char name[64];
        snprintf(name, sizeof name, "stall.%s.count", kinds[k]);
        double n = store_run_metric_or(ri, name, 0);
        if (n == 0) {
            fprintf(f, "    %-11s %8.0f\n", kinds[k], n);
            continue;
        }
        double v[5];
        static const char *const sfx[] = { "total_ms", "p50_us", "p90_us", "p99_us", "max_us" };
        for (int i = 0; i < 5; i++) {
            snprintf(name, sizeof name, "stall.%s.%s", kinds[k], sfx[i]);
            v[i] = store_run_metric_or(ri, name, 0);
        }
        fprintf(f, "    %-11s %8.0f %11.1f %10.1f %10.1f %10.1f %10.1f\n", kinds[k], n, v[0], v[1], v[2], v[3], v[4]);
    }
}

/* mmtests' vmstat summary in two lines: how well reclaim worked, and
 * what came back because of it. */
static void print_reclaim_why(FILE *f, const struct run_info *ri)
{
    if (!metric_set_find(&ri->metrics, MN_vmstat_pgscan_kswapd) && !metric_set_find(&ri->metrics, MN_reclaim_refaults))
        return;
    char k[16], d[16], a[16], share[16];
    pct(k, sizeof k, ri, MN_reclaim_kswapd_efficiency_pct);
    pct(d, sizeof d, ri, MN_reclaim_direct_efficiency_pct);
    pct(a, sizeof a, ri, MN_reclaim_efficiency_pct);
    pct(share, sizeof share, ri, MN_reclaim_direct_scan_pct);
    fprintf(f, "reclaim efficiency (stolen/scanned): kswapd %s, direct %s, overall %s; direct share of scanning %s", k,
            d, a, share);
    if (metric_set_find(&ri->metrics, MN_reclaim_scan_velocity))
        fprintf(f, "; scan velocity %.0f pages/s", store_run_metric_or(ri, MN_reclaim_scan_velocity, 0));
    fputc('\n', f);
    if (metric_set_find(&ri->metrics, MN_reclaim_refaults)) {
        fprintf(f, "came back: refaults %.0f pages", store_run_metric_or(ri, MN_reclaim_refaults, 0));
        if (metric_set_find(&ri->metrics, MN_vmstat_workingset_refault_anon))
            fprintf(f, " (anon %.0f, file %.0f; activated %.0f + %.0f, restored %.0f + %.0f)",
                    store_run_metric_or(ri, MN_vmstat_workingset_refault_anon, 0),
                    store_run_metric_or(ri, MN_vmstat_workingset_refault_file, 0),
                    store_run_metric_or(ri, MN_vmstat_workingset_activate_anon, 0),
                    store_run_metric_or(ri, MN_vmstat_workingset_activate_file, 0),
                    store_run_metric_or(ri, MN_vmstat_workingset_restore_anon, 0),
                    store_run_metric_or(ri, MN_vmstat_workingset_restore_file, 0));
        if (metric_set_find(&ri->metrics, MN_memcg_refaults))
            fprintf(f, ", in the cgroup %.0f", store_run_metric_or(ri, MN_memcg_refaults, 0));
        fputc('\n', f);
    }
    if (metric_set_find(&ri->metrics, MN_vmstat_compact_stall))
        fprintf(f, "compaction stalls %.0f (failed %.0f, succeeded %.0f); THP faults %.0f, fallbacks %.0f; swap "
                   "readahead %.0f pages (%.0f hits)",
                store_run_metric_or(ri, MN_vmstat_compact_stall, 0), store_run_metric_or(ri, MN_vmstat_compact_fail, 0),
                store_run_metric_or(ri, MN_vmstat_compact_success, 0), store_run_metric_or(ri, MN_vmstat_thp_fault_alloc, 0),
                store_run_metric_or(ri, MN_vmstat_thp_fault_fallback, 0), store_run_metric_or(ri, MN_vmstat_swap_ra, 0),
                store_run_metric_or(ri, MN_vmstat_swap_ra_hit, 0));
    bool compact = metric_set_find(&ri->metrics, MN_vmstat_compact_stall) != NULL;
    if (metric_set_find(&ri->metrics, MN_vmstat_zswpwb))
        fprintf(f, "%szswap written back %.0f pages, pool at most %.0f KB", compact ? "; " : "",
                store_run_metric_or(ri, MN_vmstat_zswpwb, 0), store_run_metric_or(ri, MN_zswap_stored_max_kb, 0));
    if (compact || metric_set_find(&ri->metrics, MN_vmstat_zswpwb))
        fputc('\n', f);
}

static void print_profile(FILE *f, const struct run_info *ri)
{
    if (ri->nprofile) {
        /* the wblg-disk report's layout: No., samples, % of the kernel's samples, symbol. */
        fprintf(f, "\nkernel profile (top %zu; %s):\n    No.     samples         %%       symbol name\n", ri->nprofile,
                pm_kv_get(&ri->meta, "profile") ? pm_kv_get(&ri->meta, "profile") : "perf");
        for (size_t i = 0; i < ri->nprofile; i++)
            fprintf(f, "    %-7zu %-15lld %-7.4f %s\n", i + 1, (long long)ri->profile[i].samples,
                    ri->profile[i].pct_kernel, ri->profile[i].symbol);
    }
}

/* What the samplers saw: the heartbeat, reclaim, PSI, the cgroup, the
 * monitors and the sampler's own cost. */
static void print_sampled(FILE *f, const struct run_info *ri)
{
    fprintf(f, "\nheartbeat: %.0f beats, lateness p50 %.2f ms, p99 %.2f ms, max %.2f ms, %.0f skipped\n",
            store_run_metric_or(ri, MN_heartbeat_beats, 0), store_run_metric_or(ri, MN_heartbeat_late_p50_ms, 0),
            store_run_metric_or(ri, MN_heartbeat_late_p99_ms, 0), store_run_metric_or(ri, MN_heartbeat_late_max_ms, 0),
            store_run_metric_or(ri, MN_heartbeat_skipped, 0));
    fprintf(f, "reclaim: pgscan kswapd %.0f direct %.0f, pgsteal kswapd %.0f direct %.0f, allocstall %.0f,"
               " pgmajfault %.0f, oom_kill %.0f\n",
            store_run_metric_or(ri, MN_vmstat_pgscan_kswapd, 0), store_run_metric_or(ri, MN_vmstat_pgscan_direct, 0),
            store_run_metric_or(ri, MN_vmstat_pgsteal_kswapd, 0), store_run_metric_or(ri, MN_vmstat_pgsteal_direct, 0),
            store_run_metric_or(ri, MN_vmstat_allocstall, 0), store_run_metric_or(ri, MN_vmstat_pgmajfault, 0),
            store_run_metric_or(ri, MN_vmstat_oom_kill, 0));
    if (metric_set_find(&ri->metrics, MN_swap_out_kbps_max))
        fprintf(f, "swap per tick (vmstat's view): in %.0f - %.0f KB/s, out %.0f - %.0f KB/s (min - max)\n",
                store_run_metric_or(ri, MN_swap_in_kbps_min, 0), store_run_metric_or(ri, MN_swap_in_kbps_max, 0),
                store_run_metric_or(ri, MN_swap_out_kbps_min, 0), store_run_metric_or(ri, MN_swap_out_kbps_max, 0));
    if (metric_set_find(&ri->metrics, MN_vmstat_pgscan_total))
        fprintf(f, "reclaim including cgroup-limit reclaim (pgscan/pgsteal anon+file): scanned %.0f, stolen %.0f pages\n",
                store_run_metric_or(ri, MN_vmstat_pgscan_total, 0), store_run_metric_or(ri, MN_vmstat_pgsteal_total, 0));
    print_reclaim_why(f, ri);
    print_stalls(f, ri);
    if (metric_set_find(&ri->metrics, MN_psi_some_s("memory")))
        fprintf(f, "PSI: memory some %.3f s full %.3f s, io some %.3f s full %.3f s, cpu some %.3f s\n",
                store_run_metric_or(ri, MN_psi_some_s("memory"), 0), store_run_metric_or(ri, MN_psi_full_s("memory"), 0),
                store_run_metric_or(ri, MN_psi_some_s("io"), 0), store_run_metric_or(ri, MN_psi_full_s("io"), 0),
                store_run_metric_or(ri, MN_psi_some_s("cpu"), 0));
    else
        fprintf(f, "PSI: not available on this kernel\n");
    const struct metric *peak = metric_set_find(&ri->metrics, MN_memcg_usage_max_bytes);
    if (peak) {
        char p[32], s[32] = "0 B";
        pm_fmt_size(p, sizeof p, (uint64_t)peak->value);
        const struct metric *sw = metric_set_find(&ri->metrics, MN_memcg_swap_max_bytes);
        if (sw)
            pm_fmt_size(s, sizeof s, (uint64_t)sw->value);
        fprintf(f, "cgroup: peak usage %s%s%s, limit hits %.0f, OOM kills %.0f\n", p, sw ? ", peak swap " : "",
                sw ? s : "", store_run_metric_or(ri, MN_memcg_limit_hits, 0), store_run_metric_or(ri, MN_memcg_oom_kill, 0));
    }
    fprintf(f, "sampler: %.0f ticks, %.0f missed, lateness p99 %.2f ms, %.3f s CPU\n",
            store_run_metric_or(ri, MN_sampler_ticks, 0), store_run_metric_or(ri, MN_sampler_missed_ticks, 0),
            store_run_metric_or(ri, MN_sampler_late_p99_ms, 0), store_run_metric_or(ri, MN_sampler_cpu_s, 0));
    print_monitors(f, ri);
    print_collected(f, ri);
    for (size_t i = 0; i < ri->nsources; i++)
        if (ri->sources[i].note[0])
            fprintf(f, "source %s: %s\n", ri->sources[i].path, ri->sources[i].note);
}

static void print_extras(FILE *f, const struct run_info *ri)
{
    print_latency(f, ri, 1);
    summary_workload_figures(f, ri);
    if (metric_set_find(&ri->metrics, MN_time_elapsed_s)) {
        fputc('\n', f);
        summary_gnu_time(f, ri);
    }
    const char *sampler = pm_kv_get(&ri->meta, "sampler");
    if (sampler)
        fprintf(f, "\nsampler %s: no samples, heartbeat or derived counters; the workload's figures and wait4's only\n",
                sampler);
    else
        print_sampled(f, ri);
    print_profile(f, ri);
}


/* the VolanoMark loopback report's "Convergence": how tightly the runs agree, as the width of
 * the 95% confidence interval of the mean divided by the mean. */
static void print_convergence(FILE *f, const struct run_info *runs, size_t n, const char *headline, const char *title)
{
    double v[4096];
    size_t k = 0;
    for (size_t i = 0; i < n && k < 4096; i++) {
        const struct metric *m = metric_set_find(&runs[i].metrics, headline);
        if (m && strcmp(runs[i].status, "ok") == 0)
            v[k++] = m->value;
    }
    if (k == 0)
        return;
    struct summary s;
    stats_summary(v, k, &s);
    double mean = s.mean, sd = s.sd;
    char m[64], d[64], h[64];
    pm_fmt_sig(m, sizeof m, mean, 6);
    if (k < 2) {
        fprintf(f, "\nmean %s = %s (n = 1: too few runs for a convergence)\n", title, m);
        return;
    }
    double half = gsl_cdf_tdist_Pinv(0.975, (double)(k - 1)) * sd / sqrt((double)k);
    pm_fmt_sig(d, sizeof d, sd, 4);
    pm_fmt_sig(h, sizeof h, half, 4);
    fprintf(f, "\nmean %s = %s, sd %s, 95%% CI +/- %s, convergence %.3f (CI width / mean, n = %zu)\n", title, m, d,
            h, mean != 0 ? 2 * half / fabs(mean) : 0.0, k);
}

/* One row of the runs table: the 2002 VolanoMark report's columns, the
 * CPU split of the loopback report where the workload has one, and when a
 * run of the table is an outlier, o's verdict (o NULL: no such column). */
static void add_run_row(struct table *t, const struct run_info *ri, const char *headline, bool one_run, bool split,
                        const struct label_outlier *o)
{
    char c0[300], c1[48], c2[32], c3[32], c4[48], c5[48], c6[48];
    if (one_run)
        snprintf(c0, sizeof c0, "%s", ri->label);
    else
        snprintf(c0, sizeof c0, "%lld", (long long)ri->id);
    fmt_headline(c1, sizeof c1, metric_set_find(&ri->metrics, headline));
    fmt_fixed(c2, sizeof c2, ri, MN_stat_cpu_util_pct, 1);
    fmt_fixed(c3, sizeof c3, ri, MN_stat_cpu_sys_user_ratio, 2);
    fmt_kb(c4, sizeof c4, ri, MN_swap_in_kb);
    fmt_kb(c5, sizeof c5, ri, MN_swap_out_kb);
    fmt_kb(c6, sizeof c6, ri, MN_swap_io_kb);
    char cap[64] = "none", beat[32];
    const char *method = pm_kv_get(&ri->meta, "cap.method");
    const char *limit = pm_kv_get(&ri->meta, "cap.limit_bytes");
    if (method && strcmp(method, "none") != 0) {
        char size[32] = "";
        if (limit)
            pm_fmt_size(size, sizeof size, strtoull(limit, NULL, 10));
        snprintf(cap, sizeof cap, "%s %s", method, size);
    }
    fmt_fixed(beat, sizeof beat, ri, MN_heartbeat_late_p99_ms, 2);
    if (strcmp(beat, "-") != 0)
        strncat(beat, " ms", sizeof beat - strlen(beat) - 1);
    char us[16], sy[16], id[16];
    fmt_fixed(us, sizeof us, ri, MN_stat_cpu_user_pct, 2);
    fmt_fixed(sy, sizeof sy, ri, MN_stat_cpu_system_pct, 2);
    fmt_fixed(id, sizeof id, ri, MN_stat_cpu_idle_pct, 2);
    const char *row[TABLE_MAX_COLS];
    size_t k = 0;
    row[k++] = c0;
    row[k++] = c1;
    row[k++] = c2;
    row[k++] = c3;
    if (split) {
        row[k++] = us;
        row[k++] = sy;
        row[k++] = id;
    }
    row[k++] = c4;
    row[k++] = c5;
    row[k++] = c6;
    if (!one_run) {
        row[k++] = cap;
        row[k++] = beat;
        row[k++] = ri->status;
    }
    char z[32] = "";
    if (o && o->flagged)
        stats_fmt_z(z, sizeof z, o->z);
    if (o)
        row[k++] = z;
    table_add_row(t, row);
}

/* The layout of the 'make -j' report: every run's GNU time line, then the
 * average. */
static void print_time_lines(FILE *f, struct run_info *runs, size_t n)
{
    double sum = 0;
    size_t ok = 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(runs[i].status, "ok") != 0 || !metric_set_find(&runs[i].metrics, MN_time_elapsed_s))
            continue;
        if (ok == 0)
            fputc('\n', f);
        summary_gnu_time(f, &runs[i]);
        sum += store_run_metric_or(&runs[i], MN_time_elapsed_s, 0);
        ok++;
    }
    if (ok) {
        char avg[32];
        /* That report prints M:SS; under a minute that hides the spread. */
        pm_fmt_elapsed(avg, sizeof avg, sum / (double)ok, sum / (double)ok < 60);
        fprintf(f, "Average elapsed = %s (%zu ok run%s)\n", avg, ok, ok == 1 ? "" : "s");
    }
}

/* The rule under a table with an outlier column: which runs, judged how,
 * and that show keeps them (compare --exclude-outliers can leave them out). */
static void print_outliers(FILE *f, const struct run_info *runs, size_t n, const struct label_outlier *out,
                           const char *headline)
{
    size_t among = 0, flagged = 0;
    for (size_t i = 0; i < n; i++) {
        among = out[i].among > among ? out[i].among : among;
        flagged += out[i].flagged;
    }
    fprintf(f, "\noutlier%s (modified z-score 0.6745 (x - median) / MAD of %s above %.2f, the critical value among "
               "the label's %zu ok runs of %s): ", flagged == 1 ? "" : "s", headline, stats_outlier_threshold(among),
            among, runs[0].workload);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (out[i].flagged) {
            char z[32];
            stats_fmt_z(z, sizeof z, out[i].z);
            fprintf(f, "%srun %lld (%s)", k++ ? ", " : "", (long long)runs[i].id, z);
        }
    fprintf(f, "; kept in the mean (compare --exclude-outliers leaves %s out)\n", flagged == 1 ? "it" : "them");
}

void summary_print_runs(FILE *f, struct run_info *runs, size_t n, bool one_run, const struct label_outlier *out)
{
    if (n == 0)
        return;
    const char *title;
    const char *headline = summary_runs_headline(runs, n, &title);
    struct wl_present wp;
    report_workload(runs[0].workload, &wp);
    bool split = wp.cpu_split, any_outlier = false;
    for (size_t i = 0; out && !one_run && i < n; i++)
        any_outlier |= out[i].flagged;
    const char *headers[TABLE_MAX_COLS];
    bool right[TABLE_MAX_COLS];
    size_t nc = 0;
#define COL(h, r) (headers[nc] = (h), right[nc++] = (r))
    COL(one_run ? "label" : "run", false);
    COL(title, true);
    COL("%CPU", true);
    COL("%sys/%user", true);
    if (split) {
        COL("user", true);
        COL("system", true);
        COL("idle", true);
    }
    COL("Total swpin", true);
    COL("Total swpout", true);
    COL("Total swapio", true);
    if (!one_run) {
        COL("cap", false);
        COL("beat p99", true);
        COL("status", false);
    }
    if (any_outlier)
        COL("outlier", false);
#undef COL
    struct table t;
    table_init(&t, nc, headers, right);
    for (size_t i = 0; i < n; i++)
        add_run_row(&t, &runs[i], headline, one_run, split, any_outlier ? &out[i] : NULL);
    if (one_run) {
        print_details(f, &runs[0]);
        fputc('\n', f);
        table_print(&t, f);
        print_extras(f, &runs[0]);
    } else {
        fprintf(f, "label %s, workload %s: %zu run%s\n\n", runs[0].label, runs[0].workload, n, n == 1 ? "" : "s");
        table_print(&t, f);
        if (any_outlier)
            print_outliers(f, runs, n, out, headline);
        print_latency(f, runs, n);
        print_convergence(f, runs, n, headline, title);
        print_time_lines(f, runs, n);
    }
    table_free(&t);
}

void summary_json_run(struct jw *j, const struct run_info *ri, bool top, const struct label_outlier *o)
{
    jw_object_begin(j, NULL);
    if (top)
        jw_int(j, "format_version", PM_JSON_FORMAT_VERSION);
    jw_int(j, "id", ri->id);
    jw_string(j, "uuid", ri->uuid);
    jw_string(j, "label", ri->label);
    jw_string(j, "workload", ri->workload);
    jw_string(j, "params", ri->params);
    jw_string(j, "status", ri->status);
    jw_string(j, "reason", ri->reason[0] ? ri->reason : NULL);
    jw_int(j, "started_ns", ri->started_ns);
    jw_int(j, "ended_ns", ri->ended_ns);
    jw_int(j, "interval_ns", ri->interval_ns);
    jw_int(j, "ticks", ri->ticks);
    jw_object_begin(j, "machine");
    jw_string(j, "hostname", ri->hostname);
    jw_string(j, "kernel", ri->kernel);
    jw_int(j, "mem_total_kb", ri->mem_total_kb);
    jw_int(j, "page_size", ri->page_size);
    jw_object_end(j);
    jw_object_begin(j, "metrics");
    for (size_t i = 0; i < ri->metrics.n; i++) {
        const struct metric *m = &ri->metrics.v[i];
        jw_object_begin(j, m->name);
        jw_number(j, "value", m->value);
        jw_string(j, "unit", m->unit);
        jw_string(j, "direction", m->direction);
        jw_object_end(j);
    }
    jw_object_end(j);
    jw_object_begin(j, "metadata");
    for (size_t i = 0; i < ri->meta.n; i++)
        jw_string(j, ri->meta.v[i].key, ri->meta.v[i].value);
    jw_object_end(j);
    jw_array_begin(j, "sources");
    for (size_t i = 0; i < ri->nsources; i++) {
        jw_object_begin(j, NULL);
        jw_string(j, "source", ri->sources[i].source);
        jw_string(j, "path", ri->sources[i].path);
        jw_int(j, "ticks", ri->sources[i].ticks);
        jw_string(j, "note", ri->sources[i].note[0] ? ri->sources[i].note : NULL);
        jw_object_end(j);
    }
    jw_array_end(j);
    if (o && o->flagged) {
        const char *title;
        jw_object_begin(j, "outlier");
        jw_number(j, "z", o->z);
        jw_string(j, "metric", summary_runs_headline(ri, 1, &title));
        jw_int(j, "among", (int64_t)o->among);
        jw_number(j, "threshold", stats_outlier_threshold(o->among));
        jw_object_end(j);
    } else if (o) {
        jw_null(j, "outlier");
    }
    jw_object_end(j);
}
