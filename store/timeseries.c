#include "store/timeseries.h"
#include "store/ticks.h"
#include "lib/alloc.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const ts_col_names[TS_NCOLS] = {
    "swap-in KB/s", "swap-out KB/s", "swap-in+out KB/s", "user %", "system %", "iowait %",
    "MemFree MiB", "MemAvailable MiB", "SwapFree MiB", "PSI memory some %", "PSI memory full %", "heartbeat lateness ms",
    "pages scanned/s", "pages stolen/s", "refaults/s", "workload p99 latency us",
};

/* The raw series each view is derived from. */
enum { R_PSWPIN, R_PSWPOUT, R_USER, R_NICE, R_SYSTEM, R_IDLE, R_IOWAIT, R_IRQ, R_SOFTIRQ, R_STEAL, R_MEMFREE,
       R_MEMAVAIL, R_SWAPFREE, R_PSI_SOME, R_PSI_FULL, R_BEAT, R_SCAN_K, R_SCAN_D, R_STEAL_K, R_STEAL_D,
       R_REFAULT_A, R_REFAULT_F, R_WL_P99, R_N };
static const char *const raw_names[R_N] = {
    "vmstat.pswpin", "vmstat.pswpout", "stat.cpu.user", "stat.cpu.nice", "stat.cpu.system", "stat.cpu.idle",
    "stat.cpu.iowait", "stat.cpu.irq", "stat.cpu.softirq", "stat.cpu.steal", "meminfo.MemFree",
    "meminfo.MemAvailable", "meminfo.SwapFree", "psi.memory.some.total", "psi.memory.full.total",
    "heartbeat.late_max_us", "vmstat.pgscan_anon", "vmstat.pgscan_file", "vmstat.pgsteal_anon",
    "vmstat.pgsteal_file", "vmstat.workingset_refault_anon", "vmstat.workingset_refault_file",
    "workload.latency_p99_us",
};
/* Before 5.8 there is no anon/file split of scanning: kswapd + direct
 * stand for it (which then count memcg limit reclaim too; since, that
 * shows only in the split, not in kswapd or direct). */
static const char *const raw_older[R_N] = {
    [R_SCAN_K] = "vmstat.pgscan_kswapd", [R_SCAN_D] = "vmstat.pgscan_direct",
    [R_STEAL_K] = "vmstat.pgsteal_kswapd", [R_STEAL_D] = "vmstat.pgsteal_direct",
    [R_REFAULT_A] = "vmstat.workingset_refault",
};

void timeseries_free(struct timeseries *ts)
{
    free(ts->t);
    for (int c = 0; c < TS_NCOLS; c++)
        free(ts->v[c]);
    memset(ts, 0, sizeof *ts);
}

static int alloc_ts(struct timeseries *ts, size_t n)
{
    memset(ts, 0, sizeof *ts);
    ts->t = calloc(n ? n : 1, sizeof *ts->t);
    for (int c = 0; c < TS_NCOLS; c++)
        ts->v[c] = calloc(n ? n : 1, sizeof *ts->v[c]);
    for (int c = 0; c < TS_NCOLS; c++)
        if (!ts->v[c] || !ts->t) {
            timeseries_free(ts);
            return -1;
        }
    return 0;
}

/* A raw series may be split by zone on older kernels (pgscan_kswapd_normal,
 * ...): those add up to the node-wide counter newer kernels print. */
static bool zone_part(const char *name, const char *base)
{
    size_t k = strlen(base);
    return strncmp(name, base, k) == 0 && name[k] == '_' && series_is_zone_suffix(name + k + 1);
}

/* The sum of raw series r at the reader's current tick; NaN if none has a value. */
static double raw_value(const struct tick_reader *rd, const int *pos, size_t npos)
{
    double sum = NAN;
    for (size_t i = 0; i < npos; i++) {
        double v;
        if (tick_reader_value(rd, (size_t)pos[i], &v))
            sum = isnan(sum) ? v : sum + v;
    }
    return sum;
}

int timeseries_load(struct pm_db *db, int64_t run_id, struct timeseries *ts, struct pm_err *err)
{
    memset(ts, 0, sizeof *ts);
    int64_t page = 4096;
    sqlite3_stmt *st;
    if (store_db_prepare(db, &st, "SELECT m.page_size FROM run r JOIN machine m ON m.id = r.machine_id WHERE r.id = ?", err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, run_id);
    if (sqlite3_step(st) == SQLITE_ROW)
        page = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    struct tick_reader rd;
    if (tick_reader_open(&rd, db, run_id, err) < 0)
        return -1;
    /* Positions of each raw series: the series itself, or its zone parts. */
    enum { MAXPOS = 8 };
    int pos[R_N][MAXPOS];
    size_t npos[R_N] = { 0 };
    bool split = tick_reader_find(&rd, "vmstat.pgscan_anon") >= 0;
    for (int r = 0; r < R_N; r++) {
        const char *name = raw_names[r];
        if (raw_older[r] && (r == R_REFAULT_A ? tick_reader_find(&rd, name) < 0 : !split))
            name = raw_older[r];
        int i = tick_reader_find(&rd, name);
        if (i >= 0) {
            pos[r][npos[r]++] = i;
            continue;
        }
        for (size_t k = 0; k < rd.n && npos[r] < MAXPOS; k++)
            if (rd.names[k] && zone_part(rd.names[k], name))
                pos[r][npos[r]++] = (int)k;
    }
    for (int r = 0; r < R_N; r++)
        for (size_t k = 0; k < npos[r]; k++)
            tick_reader_want(&rd, (size_t)pos[r][k]);
    size_t cap = 0, rows = 0;
    double (*raw)[R_N + 1] = NULL;
    int more;
    while ((more = tick_reader_next(&rd, err)) == 1) {
        if (ALLOC_GROW(raw, rows + 1, cap) < 0) {
            more = pm_errf(err, "out of memory");
            break;
        }
        raw[rows][0] = (double)rd.t_ns / 1e9;
        for (int r = 0; r < R_N; r++)
            raw[rows][r + 1] = raw_value(&rd, pos[r], npos[r]);
        rows++;
    }
    tick_reader_close(&rd);
    if (more < 0) {
        free(raw);
        return -1;
    }
    size_t n = rows > 1 ? rows - 1 : 0;
    if (alloc_ts(ts, n) < 0) {
        free(raw);
        return pm_errf(err, "out of memory");
    }
    ts->n = n;
    double kb = (double)page / 1024.0;
    for (size_t i = 0; i < n; i++) {
        const double *a = raw[i], *b = raw[i + 1];
        double dt = b[0] - a[0];
#define D(r) (b[(r) + 1] - a[(r) + 1])
#define RATE(r) (dt > 0 ? D(r) / dt : NAN)
        ts->t[i] = b[0];
        ts->v[TS_SWAPIN][i] = dt > 0 ? D(R_PSWPIN) * kb / dt : NAN;
        ts->v[TS_SWAPOUT][i] = dt > 0 ? D(R_PSWPOUT) * kb / dt : NAN;
        ts->v[TS_SWAPIO][i] = ts->v[TS_SWAPIN][i] + ts->v[TS_SWAPOUT][i];
        double total = 0;
        for (int r = R_USER; r <= R_STEAL; r++)
            if (!isnan(D(r)))
                total += D(r);
        ts->v[TS_USER][i] = total > 0 ? (D(R_USER) + (isnan(D(R_NICE)) ? 0 : D(R_NICE))) / total * 100 : NAN;
        ts->v[TS_SYSTEM][i] = total > 0 ? (D(R_SYSTEM) + (isnan(D(R_IRQ)) ? 0 : D(R_IRQ)) +
                                           (isnan(D(R_SOFTIRQ)) ? 0 : D(R_SOFTIRQ))) / total * 100 : NAN;
        ts->v[TS_IOWAIT][i] = total > 0 ? D(R_IOWAIT) / total * 100 : NAN;
        ts->v[TS_MEMFREE][i] = b[R_MEMFREE + 1] / 1024.0;
        ts->v[TS_MEMAVAIL][i] = b[R_MEMAVAIL + 1] / 1024.0;
        ts->v[TS_SWAPFREE][i] = b[R_SWAPFREE + 1] / 1024.0;
        /* PSI totals are microseconds stalled: over dt seconds, a share. */
        ts->v[TS_PSI_SOME][i] = dt > 0 ? D(R_PSI_SOME) / 1e6 / dt * 100 : NAN;
        ts->v[TS_PSI_FULL][i] = dt > 0 ? D(R_PSI_FULL) / 1e6 / dt * 100 : NAN;
        ts->v[TS_BEAT_MS][i] = b[R_BEAT + 1] / 1000.0;
        ts->v[TS_WL_P99_US][i] = b[R_WL_P99 + 1];
        /* Reclaim: pages scanned and stolen (anon + file, by every kind of
         * reclaim), pages refaulted. */
        ts->v[TS_SCAN][i] = RATE(R_SCAN_K) + (isnan(RATE(R_SCAN_D)) ? 0 : RATE(R_SCAN_D));
        ts->v[TS_STEAL][i] = RATE(R_STEAL_K) + (isnan(RATE(R_STEAL_D)) ? 0 : RATE(R_STEAL_D));
        ts->v[TS_REFAULT][i] = RATE(R_REFAULT_A) + (isnan(RATE(R_REFAULT_F)) ? 0 : RATE(R_REFAULT_F));
#undef RATE
#undef D
    }
    free(raw);
    return 0;
}

int timeseries_mean(const struct timeseries *runs, size_t nruns, struct timeseries *out)
{
    size_t n = 0;
    for (size_t r = 0; r < nruns; r++)
        if (runs[r].n > n)
            n = runs[r].n;
    if (alloc_ts(out, n) < 0)
        return -1;
    out->n = n;
    for (size_t i = 0; i < n; i++) {
        for (int c = -1; c < TS_NCOLS; c++) {
            double sum = 0;
            size_t k = 0;
            for (size_t r = 0; r < nruns; r++) {
                if (i >= runs[r].n)
                    continue;
                double v = c < 0 ? runs[r].t[i] : runs[r].v[c][i];
                if (!isnan(v)) {
                    sum += v;
                    k++;
                }
            }
            double m = k ? sum / (double)k : NAN;
            if (c < 0)
                out->t[i] = m;
            else
                out->v[c][i] = m;
        }
    }
    return 0;
}
