/* One cell's settings applied to its run options and workload state.
 * Apart from the planner (plan.c) because the runner and the backends
 * that run cells use it, and the planner looks a suite's backend up in
 * the registry (backends.c): the planner calls down into the backends,
 * the backends down into this. */
#include "experiment/cell.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harness/catalogue.h"
#include "lib/opt.h"

static bool in_list(const char *const *list, const char *s)
{
    for (; *list; list++)
        if (strcmp(*list, s) == 0)
            return true;
    return false;
}

const struct opt *suite_cell_option(const struct workload_ops *wl, const char *key, bool *is_run)
{
    const struct opt *o = wl->options ? opt_find(wl->options, key) : NULL;
    *is_run = false;
    if (o)
        return o;
    *is_run = true;
    if ((o = opt_find(exp_run_options, key)) && strcmp(key, "label") != 0 && strcmp(key, "runs") != 0)
        return o;
    return opt_find(exp_env_options, key);
}

bool suite_flag_value(const char *v, bool *on)
{
    static const char *const yes[] = { "yes", "true", "on", "1", NULL }, *const no[] = { "no", "false", "off", "0", NULL };
    if (in_list(yes, v))
        return *on = true;
    if (in_list(no, v)) {
        *on = false;
        return true;
    }
    return false;
}

/* Split a command line on blanks, "..." and '...' keeping blanks (no
 * shell). Returns argc, argv NULL-terminated in *argv (free *argv and
 * (*argv)[0]); -1 for an unclosed quote. */
static int suite_split_command(const char *s, char ***argv)
{
    size_t len = strlen(s);
    char *buf = malloc(len + 1);
    char **v = calloc(len / 2 + 2, sizeof *v);
    if (!buf || !v) {
        free(buf);
        free(v);
        return -1;
    }
    int n = 0;
    char *o = buf;
    const char *p = s;
    while (*p) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        v[n++] = o;
        while (*p && *p != ' ' && *p != '\t') {
            if (*p == '"' || *p == '\'') {
                const char *close = strchr(p + 1, *p);
                if (!close) {
                    free(buf);
                    free(v);
                    return -1;
                }
                memcpy(o, p + 1, (size_t)(close - p - 1));
                o += close - p - 1;
                p = close + 1;
            } else {
                *o++ = *p++;
            }
        }
        *o++ = '\0';
    }
    v[n] = NULL;
    if (n == 0)
        free(buf);
    *argv = v;
    return n;
}

/* Apply one setting to the cell's states. */
static int apply(const struct suite_plan *p, const struct suite_cell *c, const struct suite_setting *s,
                 struct cell_run *cr, struct pm_err *err)
{
    bool is_run;
    const struct opt *o = suite_cell_option(c->wl, s->key, &is_run);
    void *state = is_run ? (void *)&cr->ro : cr->wl_state;
    struct pm_err e;
    if (o->type == OPT_FLAG) {
        bool on;
        if (!suite_flag_value(s->value, &on))
            return pm_errf(err, "%s:%d: %s = %s: not a yes or no (accepted: yes, no, true, false, on, off, 1, 0)",
                           p->file.path, s->line, s->key, s->value);
        if (!on)
            return 0;
    }
    if (opt_set(o, state, o->type == OPT_FLAG ? "" : s->value, &e) < 0)
        return pm_errf(err, "%s:%d: %s: %s", p->file.path, s->line, s->key, e.msg);
    return 0;
}

int suite_cell_prepare(const struct suite_plan *p, const struct suite_cell *c, struct cell_run *cr, struct pm_err *err)
{
    memset(cr, 0, sizeof *cr);
    exp_run_opts_defaults(&cr->ro);
    /* A cell of a named kernel runs on that kernel (its VM, or this machine
     * rebooted into it), so this one cannot judge what it lacks: that is
     * judged when the run's environment comes up there, and a refusal fails
     * that run with its reason while the suite goes on. So too in the guest
     * for its own group's cells: refused here, they would end its whole
     * suite when it loads. */
    cr->ro.env.kernel_checks_deferred = strcmp(p->groups[c->group].kernel, "running") != 0;
    cr->wl_state = calloc(1, c->wl->state_size ? c->wl->state_size : 1);
    if (!cr->wl_state)
        return pm_errf(err, "out of memory");
    struct pm_err e;
    if (c->wl->options && opt_set_defaults(c->wl->options, cr->wl_state, &e) < 0)
        goto bad_default;
    for (size_t i = 0; i < c->nsettings; i++)
        if (apply(p, c, &c->settings[i], cr, err) < 0)
            goto fail;
    snprintf(cr->ro.label_buf, sizeof cr->ro.label_buf, "%s", c->label);
    cr->ro.label = cr->ro.label_buf;
    cr->ro.runs = 1;
    cr->ro.quiet = true;
    struct wl_limits lim;
    exp_run_opts_limits(&cr->ro, &lim);
    if (exp_run_opts_check(&cr->ro, &e) < 0 || (c->wl->check && c->wl->check(cr->wl_state, &lim, &e) < 0) ||
        catalogue_check_declared(c->wl, cr->wl_state, &e) < 0) {
        pm_errf(err, "%s: cell '%s': %s", p->file.path, c->label, e.msg);
        goto fail;
    }
    if (c->wl->set_args) {
        int argc = c->command ? suite_split_command(c->command, &cr->argv) : 0;
        if (argc < 0) {
            pm_errf(err, "%s:%d: command = %s: an unclosed quote", p->file.path, c->command_line, c->command);
            goto fail;
        }
        if (c->wl->set_args(cr->wl_state, argc, cr->argv, &e) < 0) {
            pm_errf(err, "%s:%d: command: %s", p->file.path, c->command ? c->command_line : 0, e.msg);
            goto fail;
        }
    }
    return 0;
bad_default:
    pm_errf(err, "%s: %s", c->wl->name, e.msg);
fail:
    suite_cell_release(cr);
    return -1;
}

void suite_cell_release(struct cell_run *cr)
{
    free(cr->wl_state);
    cr->wl_state = NULL;
    if (cr->argv) {
        if (cr->argv[0])
            free(cr->argv[0]);
        free(cr->argv);
        cr->argv = NULL;
    }
}
