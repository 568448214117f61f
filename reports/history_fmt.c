#include "reports/history_fmt.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "lib/quote.h"
#include "lib/units.h"
#include "reports/table.h"

const char *const history_format_names[] = { "text", "json", "csv", NULL };

static const char *direction_words(const struct history *h)
{
    int d = history_direction(h);
    return d > 0 ? "higher is better" : d < 0 ? "lower is better" : "no better direction";
}

void history_change_sentence(char *buf, size_t len, const struct history *h, size_t c)
{
    const struct cp_change *ch = &h->changes[c];
    char before[64], after[64], p[32], unit[24] = "", pct[32] = "", line[512];
    pm_fmt_sig(before, sizeof before, ch->mean_before, 6);
    pm_fmt_sig(after, sizeof after, ch->mean_after, 6);
    stats_fmt_p(p, sizeof p, ch->p, false);
    if (h->unit[0] && strcmp(h->unit, "count") != 0)
        snprintf(unit, sizeof unit, " %s", h->unit);
    if (!isnan(ch->change_pct))
        snprintf(pct, sizeof pct, " (%+.1f %%)", ch->change_pct);
    snprintf(line, sizeof line, "change at night %s: mean %s -> %s%s%s, %s", h->nights[h->change_night[c]].id,
             before, after, unit, pct, p);
    quote_terminal(line, buf, len);
}

void history_change_html(FILE *f, const struct history *h, size_t c)
{
    char line[1600];
    history_change_sentence(line, sizeof line, h, c);
    quote_html(f, line);
    fputs("; kernel ", f);
    quote_html(f, history_kernel_before(h, c));
    fputs(" before, ", f);
    quote_html(f, history_kernel_after(h, c));
    fputs(" after", f);
}

void history_event_sentence(char *buf, size_t len, const struct history *h, size_t e)
{
    const struct hist_event *ev = &h->events[e];
    const char *night = h->nights[ev->night].id;
    char line[1400];
    if (ev->kind == HIST_KERNEL)
        snprintf(line, sizeof line, "kernel %s -> %s at night %s", ev->before, ev->after, night);
    else if (ev->kind == HIST_VERSION)
        snprintf(line, sizeof line, "pressmark %s -> %s at night %s", ev->before, ev->after, night);
    else
        snprintf(line, sizeof line, "settings changed at night %s: %s -> %s", night, ev->before, ev->after);
    quote_terminal(line, buf, len);
}

void history_method(char *buf, size_t len, const struct history *h)
{
    snprintf(buf, len, "E-Divisive means over the nights' means, each change kept when its permutation test "
             "(%u permutations, seed %lu) gives p <= %g, at least %zu nights a side",
             h->cp.permutations, h->cp.seed, h->cp.max_p, h->cp.min_size);
}

void history_marks(char *buf, size_t len, const struct history *h, size_t k)
{
    buf[0] = '\0';
    const struct hist_night *n = &h->nights[k];
    if (n->change >= 0) {
        char p[32];
        stats_fmt_p(p, sizeof p, h->changes[n->change].p, true);
        snprintf(buf, len, "CHANGE %+.1f %% (%s)", h->changes[n->change].change_pct, p);
    }
    static const char *const what[] = { "new kernel", "new settings", "new pressmark" };
    for (size_t e = 0; e < h->nevents; e++)
        if (h->events[e].night == k) {
            size_t o = strlen(buf);
            snprintf(buf + o, len - o, "%s%s", o ? ", " : "", what[h->events[e].kind]);
        }
    if (n->mixed_settings) {
        size_t o = strlen(buf);
        snprintf(buf + o, len - o, "%smixed settings", o ? ", " : "");
    }
}

static int night_row(struct table *t, const struct history *h, size_t k)
{
    const struct hist_night *n = &h->nights[k];
    char night[300], raw[300], cnt[32], mean[64] = "-", sd[64] = "-", mn[64] = "-", mx[64] = "-", kern[300],
         ver[200], mark[200];
    snprintf(raw, sizeof raw, "%s %s", n->id, n->suite ? (n->suite_name[0] ? n->suite_name : "(suite)") : "(day)");
    quote_terminal(raw, night, sizeof night);
    snprintf(cnt, sizeof cnt, "%zu", n->n);
    if (n->n) {
        pm_fmt_number(mean, sizeof mean, n->s.mean);
        pm_fmt_number(mn, sizeof mn, n->s.min);
        pm_fmt_number(mx, sizeof mx, n->s.max);
        if (n->n > 1)
            pm_fmt_number(sd, sizeof sd, n->s.sd);
    }
    quote_terminal(n->kernels, kern, sizeof kern);
    quote_terminal(n->versions, ver, sizeof ver);
    history_marks(mark, sizeof mark, h, k);
    const char *cells[] = { night, cnt, mean, sd, mn, mx, kern, ver, mark };
    return table_add_row(t, cells);
}

/* The first line: what this is the history of, and what a night is. */
static void heading(FILE *f, const struct history *h)
{
    char label[600], metric[200], unit[48], workload[200], line[1300];
    quote_terminal(h->label, label, sizeof label);
    quote_terminal(h->workload, workload, sizeof workload);
    quote_terminal(h->metric, metric, sizeof metric);
    quote_terminal(h->unit, unit, sizeof unit);
    size_t days = h->nnights - h->suite_nights;
    char nights[160];
    if (days == 0)
        snprintf(nights, sizeof nights, "a night is a suite run");
    else if (h->suite_nights == 0)
        snprintf(nights, sizeof nights, "a night is a UTC day (no suite runs)");
    else
        snprintf(nights, sizeof nights, "a night is a suite run, or a UTC day for the %zu days of runs outside any "
                 "suite", days);
    snprintf(line, sizeof line, "%s (workload %s): %s in %s, %s; %zu ok runs over %zu night%s (%s)", label,
             workload, metric, unit[0] ? unit : "-", direction_words(h), h->runs.n, h->nnights,
             h->nnights == 1 ? "" : "s", nights);
    fprintf(f, "%s\n", line);
    if (h->missing)
        fprintf(f, "(%zu ok runs store no %s: left out)\n", h->missing, metric);
    if (h->emulated)
        fputs("caveat: some of these runs ran under QEMU's TCG emulation (no KVM): their rates and times measure "
              "the emulator as much as the kernel\n", f);
    fputc('\n', f);
}

/* The change points under the table, when they were looked for. */
static void change_points_below(FILE *f, const struct history *h)
{
    if (!h->looked)
        return;
    char line[1600];
    history_method(line, sizeof line, h);
    fprintf(f, "change points (%s):\n", line);
    if (!h->detected)
        fprintf(f, "  not looked for: %s\n", h->why_not);
    else if (!h->nchanges)
        fputs("  none\n", f);
    for (size_t c = 0; c < h->nchanges; c++) {
        history_change_sentence(line, sizeof line, h, c);
        fprintf(f, "  %s\n", line);
    }
}

/* The kernel, settings and pressmark changes, each kind under its heading. */
static void events_below(FILE *f, const struct history *h)
{
    static const char *const head[] = { "kernel changes", "settings changes", "pressmark changes" };
    char line[1600];
    for (int kind = HIST_KERNEL; kind <= HIST_VERSION; kind++) {
        bool any = false;
        for (size_t e = 0; e < h->nevents; e++) {
            if ((int)h->events[e].kind != kind)
                continue;
            if (!any)
                fprintf(f, "%s:\n", head[kind]);
            any = true;
            history_event_sentence(line, sizeof line, h, e);
            fprintf(f, "  %s\n", line);
        }
    }
}

void history_print_text(FILE *f, const struct history *h)
{
    heading(f, h);
    static const char *const headers[] = { "night", "n", "mean", "sd", "min", "max", "kernel", "pressmark",
                                           "marks" };
    static const bool right[] = { false, true, true, true, true, true, false, false, false };
    struct table t;
    table_init(&t, 9, headers, right);
    for (size_t k = 0; k < h->nnights; k++)
        if (night_row(&t, h, k) < 0)
            break;
    table_print(&t, f);
    table_free(&t);
    if (h->looked || h->nevents)
        fputc('\n', f);
    change_points_below(f, h);
    events_below(f, h);
}

void history_change_json(struct jw *j, const struct history *h, size_t c)
{
    const struct cp_change *ch = &h->changes[c];
    jw_object_begin(j, NULL);
    jw_string(j, "night", h->nights[h->change_night[c]].id);
    jw_int(j, "night_index", (int64_t)h->change_night[c]);
    jw_int(j, "at", (int64_t)ch->at);
    jw_number(j, "mean_before", ch->mean_before);
    jw_number(j, "mean_after", ch->mean_after);
    jw_number(j, "change_pct", ch->change_pct);
    jw_number(j, "p", ch->p);
    jw_number(j, "statistic", ch->q);
    jw_string(j, "kernel_before", history_kernel_before(h, c));
    jw_string(j, "kernel_after", history_kernel_after(h, c));
    jw_object_end(j);
}

static void night_json(struct jw *j, const struct history *h, size_t k)
{
    const struct hist_night *n = &h->nights[k];
    jw_object_begin(j, NULL);
    jw_string(j, "night", n->id);
    jw_string(j, "kind", n->suite ? "suite" : "day");
    jw_string(j, "suite_uuid", n->suite ? n->suite_uuid : NULL);
    jw_string(j, "suite_name", n->suite ? n->suite_name : NULL);
    jw_int(j, "first_started_ns", n->first_ns);
    jw_int(j, "runs", (int64_t)n->runs);
    jw_int(j, "n", (int64_t)n->n);
    jw_number(j, "mean", n->n ? n->s.mean : NAN);
    jw_number(j, "sd", n->n > 1 ? n->s.sd : NAN);
    jw_number(j, "min", n->n ? n->s.min : NAN);
    jw_number(j, "max", n->n ? n->s.max : NAN);
    jw_string(j, "kernel", n->kernels);
    jw_string(j, "pressmark_version", n->versions);
    jw_string(j, "settings", n->settings);
    jw_bool(j, "mixed_settings", n->mixed_settings);
    jw_array_begin(j, "run_ids");
    for (size_t i = 0; i < n->n; i++)
        jw_int(j, NULL, h->runs.v[h->value_run[n->first + i]].id);
    jw_array_end(j);
    jw_array_begin(j, "values");
    for (size_t i = 0; i < n->n; i++)
        jw_number(j, NULL, h->values[n->first + i]);
    jw_array_end(j);
    jw_object_end(j);
}

static void events_json(struct jw *j, const struct history *h)
{
    static const char *const kinds[] = { "kernel", "settings", "pressmark" };
    jw_array_begin(j, "events");
    for (size_t e = 0; e < h->nevents; e++) {
        const struct hist_event *ev = &h->events[e];
        jw_object_begin(j, NULL);
        jw_string(j, "kind", kinds[ev->kind]);
        jw_string(j, "night", h->nights[ev->night].id);
        jw_int(j, "night_index", (int64_t)ev->night);
        jw_string(j, "before", ev->before);
        jw_string(j, "after", ev->after);
        jw_object_end(j);
    }
    jw_array_end(j);
}

static void change_points_json(struct jw *j, const struct history *h)
{
    jw_object_begin(j, "change_points");
    jw_bool(j, "detected", h->detected);
    jw_string(j, "not_detected", h->detected ? NULL : h->why_not);
    jw_int(j, "min_size", (int64_t)h->cp.min_size);
    jw_number(j, "max_p", h->cp.max_p);
    jw_int(j, "permutations", h->cp.permutations);
    jw_int(j, "seed", (int64_t)h->cp.seed);
    jw_array_begin(j, "changes");
    for (size_t c = 0; c < h->nchanges; c++)
        history_change_json(j, h, c);
    jw_array_end(j);
    jw_object_end(j);
}

int history_write_json(FILE *f, const struct history *h)
{
    struct jw j;
    jw_init(&j, f, true);
    jw_object_begin(&j, NULL);
    jw_int(&j, "format_version", PM_JSON_FORMAT_VERSION);
    jw_string(&j, "label", h->label);
    jw_string(&j, "workload", h->workload);
    jw_string(&j, "metric", h->metric);
    jw_string(&j, "unit", h->unit);
    jw_string(&j, "direction", h->direction[0] ? h->direction : "none");
    jw_int(&j, "runs", (int64_t)h->runs.n);
    jw_int(&j, "runs_without_metric", (int64_t)h->missing);
    jw_bool(&j, "emulated", h->emulated);
    jw_array_begin(&j, "nights");
    for (size_t k = 0; k < h->nnights; k++)
        night_json(&j, h, k);
    jw_array_end(&j);
    change_points_json(&j, h);
    events_json(&j, h);
    jw_object_end(&j);
    return jw_end(&j);
}

static void csv_num(FILE *f, double v)
{
    char b[PM_EXACT_LEN];
    pm_fmt_exact(b, sizeof b, v);
    fprintf(f, ",%s", isfinite(v) ? b : "");
}

void history_print_csv(FILE *f, const struct history *h)
{
    fputs("label,workload,metric,unit,night,kind,suite_name,suite_uuid,first_started_ns,runs,n,mean,sd,min,max,"
          "kernel,pressmark_version,change_pct,change_p\n", f);
    for (size_t k = 0; k < h->nnights; k++) {
        const struct hist_night *n = &h->nights[k];
        const char *strs[] = { h->label, h->workload, h->metric, h->unit, n->id, n->suite ? "suite" : "day",
                               n->suite_name, n->suite_uuid };
        for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) {
            if (i)
                fputc(',', f);
            quote_csv(f, strs[i]);
        }
        fprintf(f, ",%lld,%zu,%zu", (long long)n->first_ns, n->runs, n->n);
        csv_num(f, n->n ? n->s.mean : NAN);
        csv_num(f, n->n > 1 ? n->s.sd : NAN);
        csv_num(f, n->n ? n->s.min : NAN);
        csv_num(f, n->n ? n->s.max : NAN);
        fputc(',', f);
        quote_csv(f, n->kernels);
        fputc(',', f);
        quote_csv(f, n->versions);
        csv_num(f, n->change >= 0 ? h->changes[n->change].change_pct : NAN);
        csv_num(f, n->change >= 0 ? h->changes[n->change].p : NAN);
        fputc('\n', f);
    }
}
