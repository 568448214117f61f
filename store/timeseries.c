#include "store/timeseries.h"
#include "lib/alloc.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const ts_col_names[TS_NCOLS] = {
    "swap-in KB/s", "swap-out KB/s", "swap-in+out KB/s", "user %", "system %", "iowait %",
    "MemFree MiB", "MemAvailable MiB", "SwapFree MiB", "PSI memory some %", "PSI memory full %", "heartbeat lateness ms",
};

/* The raw series each view is derived from. */
enum { R_PSWPIN, R_PSWPOUT, R_USER, R_NICE, R_SYSTEM, R_IDLE, R_IOWAIT, R_IRQ, R_SOFTIRQ, R_STEAL, R_MEMFREE,
       R_MEMAVAIL, R_SWAPFREE, R_PSI_SOME, R_PSI_FULL, R_BEAT, R_N };
static const char *const raw_names[R_N] = {
    "vmstat.pswpin", "vmstat.pswpout", "stat.cpu.user", "stat.cpu.nice", "stat.cpu.system", "stat.cpu.idle",
    "stat.cpu.iowait", "stat.cpu.irq", "stat.cpu.softirq", "stat.cpu.steal", "meminfo.MemFree",
    "meminfo.MemAvailable", "meminfo.SwapFree", "psi.memory.some.total", "psi.memory.full.total",
    "heartbeat.late_max_us",
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

int timeseries_load(struct pm_db *db, int64_t run_id, struct timeseries *ts, struct pm_err *err)
{
    memset(ts, 0, sizeof *ts);
    int pos[R_N];
    sqlite3_stmt *st;
    if (pm_db_prepare(db, &st, "SELECT idx FROM tick_series WHERE run_id = ? AND name = ?", err) < 0)
        return -1;
    for (int r = 0; r < R_N; r++) {
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_text(st, 2, raw_names[r], -1, SQLITE_STATIC);
        pos[r] = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
    }
    sqlite3_finalize(st);
    int64_t page = 4096;
    if (pm_db_prepare(db, &st, "SELECT m.page_size FROM run r JOIN machine m ON m.id = r.machine_id WHERE r.id = ?", err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, run_id);
    if (sqlite3_step(st) == SQLITE_ROW)
        page = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    /* One pass over the run's ticks, extracting only what the charts use. */
    char sql[2048];
    int o = snprintf(sql, sizeof sql, "SELECT t_ns");
    for (int r = 0; r < R_N; r++)
        o += pos[r] >= 0 ? snprintf(sql + o, sizeof sql - (size_t)o, ", json_extract(data, '$[%d]')", pos[r])
                         : snprintf(sql + o, sizeof sql - (size_t)o, ", NULL");
    snprintf(sql + o, sizeof sql - (size_t)o, " FROM tick WHERE run_id = ? ORDER BY seq");
    if (pm_db_prepare(db, &st, sql, err) < 0)
        return -1;
    sqlite3_bind_int64(st, 1, run_id);
    size_t cap = 0, rows = 0;
    double (*raw)[R_N + 1] = NULL;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (ALLOC_GROW(raw, rows + 1, cap) < 0) {
            free(raw);
            sqlite3_finalize(st);
            return pm_errf(err, "out of memory");
        }
        raw[rows][0] = (double)sqlite3_column_int64(st, 0) / 1e9;
        for (int r = 0; r < R_N; r++)
            raw[rows][r + 1] = sqlite3_column_type(st, r + 1) == SQLITE_NULL ? NAN : sqlite3_column_double(st, r + 1);
        rows++;
    }
    sqlite3_finalize(st);
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
