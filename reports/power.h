#ifndef PM_POWER_H
#define PM_POWER_H
/* TEMPORARY: replaced by the plan branch's */
double stats_power(double cv_pct, double change_pct, unsigned n, double alpha);
double stats_detectable_pct(double cv_pct, unsigned n, double alpha, double power);
unsigned stats_runs_needed(double cv_pct, double change_pct, double alpha, double power, unsigned max_runs);
#endif
