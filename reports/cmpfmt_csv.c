/* compare --format csv: one header line, then a row per metric and label
 * of every comparison, every figure at full precision (%.17g), an
 * absent one empty; with --isolation the isolation figures' table
 * instead. */
#include "reports/cmpfmt.h"
#include <math.h>
#include "lib/quote.h"
#include "reports/isolation_fmt.h"

/* For csv: the header line, printed once. */
static void compare_csv_header(FILE *f)
{
    fputs("workload,label,baseline,metric,unit,direction,n,mean,sd,cv_pct,min,median,max,change_pct,t,df,p,"
          "significant,ci_low,ci_high,runs,failed,oom,aborted,test,p_decided,p_bh,p_holm,mw_u,mw_p,boot_ratio,"
          "boot_low,boot_high,detectable_pct,outliers,ratio,ratio_low,ratio_high,ratio_shape\n", f);
}

static void csv_num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, ",%.17g", v);
    else
        fputs(",", f);
}

static void print_csv(FILE *f, const struct comparison *c)
{
    for (size_t m = 0; m < c->nmetrics; m++) {
        for (size_t l = 0; l < c->nlabels; l++) {
            const struct cmp_cell *cell = cmp_cell_at(c, l, m);
            const struct cmp_label *lb = &c->labels[l];
            quote_csv(f, c->workload);
            fputc(',', f);
            quote_csv(f, lb->name);
            fputc(',', f);
            quote_csv(f, cmp_judged(c) ? c->labels[c->base].name : "");
            fputc(',', f);
            quote_csv(f, c->metrics[m].name);
            fputc(',', f);
            quote_csv(f, c->metrics[m].unit);
            fputc(',', f);
            quote_csv(f, c->metrics[m].direction);
            fprintf(f, ",%zu", cell->s.n);
            bool has = cell->s.n > 0, tested = cmp_judged(c) && l != c->base, vs = tested && cell->w.valid;
            csv_num(f, has ? cell->s.mean : NAN);
            csv_num(f, cell->s.n > 1 ? cell->s.sd : NAN);
            csv_num(f, cell->s.n > 1 ? cell->s.cv_pct : NAN);
            csv_num(f, has ? cell->s.min : NAN);
            csv_num(f, has ? cell->s.median : NAN);
            csv_num(f, has ? cell->s.max : NAN);
            csv_num(f, tested ? cell->change_pct : NAN);
            csv_num(f, vs ? cell->w.t : NAN);
            csv_num(f, vs ? cell->w.df : NAN);
            csv_num(f, vs ? cell->w.p : NAN);
            fprintf(f, ",%s", !tested ? "" : cell->significant ? "yes" : "no");
            csv_num(f, vs ? cell->w.ci_low : NAN);
            csv_num(f, vs ? cell->w.ci_high : NAN);
            fprintf(f, ",%zu,%zu,%zu,%zu", lb->runs, lb->failed, lb->oom, lb->aborted);
            bool judged = l != c->base && !isnan(cell->p);
            fprintf(f, ",%s", judged ? cell->test : "");
            csv_num(f, judged ? cell->p : NAN);
            csv_num(f, judged ? cell->p_bh : NAN);
            csv_num(f, judged ? cell->p_holm : NAN);
            csv_num(f, judged ? cell->mwu.u : NAN);
            csv_num(f, judged ? cell->mwu.p : NAN);
            csv_num(f, judged && cell->boot.valid ? cell->boot.ratio : NAN);
            csv_num(f, judged && cell->boot.valid ? cell->boot.low : NAN);
            csv_num(f, judged && cell->boot.valid ? cell->boot.high : NAN);
            csv_num(f, judged ? cell->detectable_pct : NAN);
            fprintf(f, ",%zu", lb->noutliers);
            bool set = judged && cell->rci.valid && cell->rci.shape != RATIO_CI_ALL;
            csv_num(f, judged && cell->rci.valid ? cell->rci.ratio : NAN);
            csv_num(f, set ? cell->rci.low : NAN);
            csv_num(f, set ? cell->rci.high : NAN);
            fprintf(f, ",%s", judged && cell->rci.valid ? ratio_ci_shape_name(cell->rci.shape) : "");
            fputc('\n', f);
        }
    }
}

/* CSV is one table a file: the comparisons', or with --isolation the
 * isolation figures'. */
static void csv_begin(struct cmp_writer *w)
{
    if (!w->isolation_only)
        compare_csv_header(w->f);
}

static void csv_comparison(struct cmp_writer *w, const struct comparison *c, bool long_view)
{
    (void)long_view;
    w->n++;
    if (!w->isolation_only)
        print_csv(w->f, c);
}

/* Data formats keep their output parseable: the verdict's line goes to
 * the log (the command's stderr). */
static void csv_end(struct cmp_writer *w, const struct cmp_verdict *v)
{
    if (w->isolation_only)
        isolation_csv(w->f, w->isolation);
    if (v && w->log)
        verdict_print(w->log, v);
}

const struct cmp_format cmp_format_csv = {
    .markup = MARKUP_TEXT, .begin = csv_begin, .comparison = csv_comparison, .end = csv_end,
};
