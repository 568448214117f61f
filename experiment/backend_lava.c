/* backend = lava: each kernel group of a suite as one job of a LAVA lab.
 * A job is made (its images and job archive published, its definition
 * stored), submitted (its id stored, so a killed suite resumes by waiting
 * for it rather than submitting again), waited for, and collected: its
 * guest's runs fetched from the artifact store and merged through the
 * checks a VM's results go through, or the group's cells failed with
 * LAVA's reason. */
#include "experiment/backend_lava.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "experiment/backend.h"
#include "experiment/guest.h"
#include "experiment/backend_lava_publish.h"
#include "experiment/backend_lava_store.h"
#include "experiment/backend_lava_stored.h"
#include "kernels/image.h"
#include "kernels/results.h"
#include "kernels/vm.h"
#include "labs/artifacts.h"
#include "labs/lava_api.h"
#include "labs/lava_job.h"
#include "labs/lava_url.h"
#include "lib/fileio.h"
#include "lib/quote.h"
#include "lib/timeutil.h"
#include "lib/units.h"
#include "store/lava_jobs.h"

/* A guest's results archive at the most: a night's database of many runs. */
#define RESULTS_MAX (1ull << 30)

/* What the step asks (a suite run: every step, all the way). */
static const struct exp_lava_step *step_of(const struct suite_run_opts *o)
{
    static const struct exp_lava_step run_all = { .step = LAVA_RUN };
    return o->backend_opts ? o->backend_opts : &run_all;
}

/* A failed group's reason, which holds what LAVA and the lab said. */
static void say_failed(struct runner *r, const char *reason)
{
    char q[2400];
    quote_terminal(reason, q, sizeof q);
    exp_say(r->ev, EXP_LOG, "pressmark: %s; its cells are marked failed\n", q);
}

/* The job archive of the group (pressmark, the suite, its arguments, the
 * kernel's metadata, where to put the results): its URL and digest in the
 * store, and put there when publish. Made again only to be compared, it
 * is removed (its directory too) once its digest is known. */
static int publish_job(struct runner *r, int group, const char *put_url, bool publish, char *url, size_t ulen,
                       char sha[65], struct pm_err *err)
{
    const struct suite_plan *p = r->p;
    char dir[PATH_MAX];
    if (exp_boot_dir(r, group, "job", dir, sizeof dir, err) < 0)
        return -1;
    char args[512], file[160];
    snprintf(file, sizeof file, "%s.ini", p->name);
    snprintf(args, sizeof args, "--guest-group %d --guest-suite %s --guest-seed %llu --guest-meta job-meta %s\n",
             group, r->suite.uuid, (unsigned long long)r->suite.seed, file);
    char *mt = exp_meta_text(&r->kernel_meta[group]);
    struct vm_boot b = { .exe = r->rs.exe, .suite_text = p->file.canonical, .suite_file = file, .args = args,
                         .meta = mt ? mt : "", .extra_name = "results-url", .extra_text = put_url };
    char job[PATH_MAX + 32];
    int rc = vm_job_archive(dir, &b, job, sizeof job, err);
    free(mt);
    if (rc == 0)
        rc = exp_lava_publish_file(exp_lava_keys(p)->artifacts, job, "job.tar", publish, url, ulen, sha, err);
    if (!publish) {
        unlink(job);
        rmdir(dir);
    }
    return rc;
}

/* The group's job as the suite file makes it: the kernel's image (made
 * when not cached), the job archive that puts the results at results (a
 * name under the store, exp_lava_results_name's), and the definition naming
 * them. With publish the images and archive go to the store; without,
 * nothing is sent: the definition a stored job must equal. */
static int build_job(struct runner *r, int group, const struct suite_run_opts *o, const char *results, bool publish,
                     char **definition, struct pm_err *err)
{
    const struct suite_plan *p = r->p;
    const struct suite_group *sg = &p->groups[group];
    const struct exp_lava_keys *l = exp_lava_keys(p);
    FILE *say = o->quiet ? NULL : exp_say_file(r->ev);
    struct vm_image img;
    char apps[GUEST_APPS_MAX + 1];
    exp_guest_apps(p, group, apps, sizeof apps);
    int rc = image_prepare(&r->kernels[group].spec, apps, &img, say, err);
    if (say)
        fclose(say);
    if (rc < 0)
        return -1;
    exp_image_meta(r, group, &img);
    pm_kv_set(&r->kernel_meta[group], "lava.device_type", l->device_type);
    struct lava_published pub;
    char put[1200], job_url[1024], job_sha[65];
    const char *guest = l->artifacts_guest[0] ? l->artifacts_guest : l->artifacts;
    exp_lava_store_url(guest, results, put, sizeof put);
    rc = exp_lava_publish_image(l->artifacts, &img, publish, &pub, err);
    if (rc == 0)
        rc = publish_job(r, group, put, publish, job_url, sizeof job_url, job_sha, err);
    char name[400];
    snprintf(name, sizeof name, "pressmark %s: kernel %s", p->name, img.info.release);
    unsigned minutes = (unsigned)(suite_group_timeout(p, sg) / 60.0 + 0.999);
    struct lava_job_spec js = {
        .name = name, .device_type = l->device_type,
        .kernel = { pub.kernel_url, pub.kernel_sha }, .initrd = { pub.initrd_url[0] ? pub.initrd_url : NULL,
        pub.initrd_sha }, .rootfs = { pub.rootfs_url, pub.rootfs_sha }, .job = { job_url, job_sha },
        .memory_mib = sg->vm_memory >> 20, .cpus = sg->vm_cpus, .append = sg->vm_append[0] ? sg->vm_append : NULL,
        .timeout_min = minutes + 40, .test_timeout_min = minutes, .priority = "medium", .visibility = "public",
        /* A kernel that boots at all reaches its prompt in seconds (7 s
         * under TCG): a hung one is not waited for longer than its cells. */
        .boot_timeout_min = minutes < 5 ? minutes : 5,
    };
    if (rc == 0)
        rc = lava_job_yaml(&js, definition, err);
    image_free(&img);
    return rc;
}

/* A new attempt at the group's job: its image made and published, its
 * definition stored. -1 with err (the group's cells are then failed). */
static int make_job(struct runner *r, int group, const struct suite_run_opts *o, struct lava_job_rec *rec,
                    struct pm_err *err)
{
    const struct suite_plan *p = r->p;
    char results[200] = "";
    memset(rec, 0, sizeof *rec);
    int rc = exp_lava_results_name(r->suite.uuid, group, results, sizeof results, err);
    if (rc == 0)
        rc = build_job(r, group, o, results, true, &rec->definition, err);
    exp_lava_store_url(exp_lava_keys(p)->artifacts, results, rec->results_url, sizeof rec->results_url);
    rec->group = group;
    snprintf(rec->lab, sizeof rec->lab, "%s", exp_lava_keys(p)->url);
    if (rc == 0)
        rc = store_lava_jobs_add(&r->rs.db, r->suite.id, rec, err);
    return rc;
}

/* A stored job (a database is data) held to the suite file before any
 * of it is used: its lab and results URL always, its definition when it
 * is to be sent or written, made again from the suite file, the stored
 * one equal to it; rec->definition is then the one made now. 0, or -1
 * with err: nothing is sent, fetched or written for it. */
static int check_stored(struct runner *r, int group, const struct suite_run_opts *o, struct lava_job_rec *rec,
                        struct pm_err *err)
{
    char results[300];
    if (exp_lava_stored_check(r->p, r->suite.id, r->suite.uuid, rec, results, sizeof results, err) < 0)
        return -1;
    bool sent = strcmp(rec->state, "made") == 0 && (step_of(o)->step == LAVA_RUN || step_of(o)->step == LAVA_SUBMIT);
    bool written = step_of(o)->step == LAVA_MAKE && step_of(o)->out;
    if (!sent && !written)
        return 0;
    char *made = NULL;
    if (build_job(r, group, o, results, false, &made, err) < 0) {
        char why[sizeof err->msg];
        snprintf(why, sizeof why, "%s", err->msg);
        free(made);
        return pm_errf(err, "kernel %d: its stored LAVA job cannot be made again to be checked, so it is not sent: %s",
                       group, why);
    }
    if (exp_lava_stored_same(r->p, r->suite.id, rec, made, err) < 0) {
        free(made);
        return -1;
    }
    free(rec->definition);
    rec->definition = made;
    return 0;
}

/* The group's definition into the directory lava job was given. */
static int write_definition(struct runner *r, int group, const char *dir, const struct lava_job_rec *rec,
                            struct pm_err *err)
{
    char path[PATH_MAX + 200], tmp[PATH_MAX + 220];
    snprintf(path, sizeof path, "%s/%s-kernel%d.yaml", dir, r->p->name, group);
    /* A new file renamed into place: what another user of the directory
     * made beforehand is replaced, never written through. */
    snprintf(tmp, sizeof tmp, "%s.%d.tmp", path, (int)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return pm_errf(err, "%s: %s", tmp, strerror(errno));
    size_t n = strlen(rec->definition);
    bool ok = write(fd, rec->definition, n) == (ssize_t)n;
    if (close(fd) < 0 || !ok || rename(tmp, path) < 0) {
        int e = errno;
        unlink(tmp);
        return pm_errf(err, "%s: %s", path, strerror(e));
    }
    char q[4 * sizeof path];
    quote_terminal(path, q, sizeof q);
    exp_say(r->ev, EXP_LOG, "pressmark: kernel %d: job definition %s\n", group, q);
    return 0;
}

static int submit(struct runner *r, int group, const struct lava_lab *lab, struct lava_job_rec *rec,
                  struct pm_err *err)
{
    int64_t id;
    if (lava_submit(lab, rec->definition, &id, err) < 0 ||
        store_lava_jobs_set_submitted(&r->rs.db, r->suite.id, group, rec->attempt, id, err) < 0)
        return -1;
    rec->job_id = id;
    snprintf(rec->state, sizeof rec->state, "submitted");
    char url[700];
    lava_job_url(lab, id, url, sizeof url);
    exp_say(r->ev, EXP_LOG, "pressmark: kernel %d: LAVA job %lld submitted: %s\n", group, (long long)id, url);
    return 0;
}

/* Fail the group's cells with reason and end the attempt as failed. */
static int fail_group(struct runner *r, int group, const struct lava_job_rec *rec, const char *reason, int *worst)
{
    say_failed(r, reason);
    struct pm_err err;
    if (rec->attempt && store_lava_jobs_set_ended(&r->rs.db, r->suite.id, group, rec->attempt, "failed", reason, &err) < 0) {
        exp_say(r->ev, EXP_LOG, "pressmark suite run: %s\n", err.msg);
        return 2;
    }
    if (*worst < 1)
        *worst = 1;
    return exp_mark_failed(r, group, reason);
}

/* The group's job as the step needs it: the newest attempt, or a new one
 * when there is none or the last one ended and the cells still want runs.
 * 1 when the step stops here (r->incomplete), 0 to go on, 2 on error. */
static int ready_job(struct runner *r, int group, const struct suite_run_opts *o, const struct lava_lab *lab,
                     struct lava_job_rec *rec, int *worst)
{
    struct pm_err err;
    int found = 0;
    if (store_lava_jobs_get(&r->rs.db, r->suite.id, group, rec, &found, &err) < 0) {
        exp_say(r->ev, EXP_LOG, "pressmark suite run: %s\n", err.msg);
        return 2;
    }
    bool ended = found && (strcmp(rec->state, "collected") == 0 || strcmp(rec->state, "failed") == 0);
    if (found && !ended && check_stored(r, group, o, rec, &err) < 0) {
        exp_say(r->ev, EXP_LOG, "pressmark suite run: %s\n", err.msg);
        return 2;
    }
    if (found && !ended && step_of(o)->step == LAVA_COLLECT && strcmp(rec->state, "made") == 0) {
        exp_say(r->ev, EXP_LOG, "pressmark: kernel %d: its job is made, not submitted ('pressmark lava submit' "
                "submits it)\n", group);
        r->incomplete = true;
        return 1;
    }
    if (!found || ended) {
        store_lava_job_rec_free(rec);
        if (step_of(o)->step == LAVA_COLLECT) {
            exp_say(r->ev, EXP_LOG, "pressmark: kernel %d: no job of it waits to be collected ('pressmark lava "
                    "submit' submits one)\n", group);
            r->incomplete = true;
            return 1;
        }
        if (make_job(r, group, o, rec, &err) < 0) {
            char reason[1400];
            snprintf(reason, sizeof reason, "kernel %s: its LAVA job could not be made: %s", r->p->groups[group].kernel,
                     err.msg);
            int rc = fail_group(r, group, rec, reason, worst);
            store_lava_job_rec_free(rec);
            return rc ? rc : 1;
        }
    }
    if (step_of(o)->step == LAVA_MAKE) {
        int rc = step_of(o)->out && write_definition(r, group, step_of(o)->out, rec, &err) < 0 ? 2 : 1;
        if (rc == 2)
            exp_say(r->ev, EXP_LOG, "pressmark lava job: %s\n", err.msg);
        r->incomplete = true;
        return rc;
    }
    if (strcmp(rec->state, "made") == 0 && submit(r, group, lab, rec, &err) < 0) {
        exp_say(r->ev, EXP_LOG, "pressmark suite run: %s\n", err.msg);
        return 2;
    }
    if (step_of(o)->step == LAVA_SUBMIT) {
        r->incomplete = true;
        return 1;
    }
    return 0;
}

/* Is this job among those collect was named (none named: all)? */
static bool wanted(const struct suite_run_opts *o, int64_t id)
{
    if (step_of(o)->step != LAVA_COLLECT || !step_of(o)->njobs)
        return true;
    for (size_t i = 0; i < step_of(o)->njobs; i++)
        if (step_of(o)->jobs[i] == id)
            return true;
    return false;
}

/* Wait for the job to finish, asking LAVA every poll seconds; a signal
 * (blocked, as every suite blocks them) ends the wait in *abort_sig. */
static int wait_job(struct runner *r, const struct lava_lab *lab, const struct lava_job_rec *rec,
                    struct lava_job_status *st, int *abort_sig, struct pm_err *err)
{
    const char *env = getenv("PRESSMARK_LAVA_POLL_S");
    long poll = env && atol(env) > 0 ? atol(env) : 10;
    enum lava_state last = (enum lava_state)-1;
    /* A job running past its own timeouts (the cells', the boot's and the
     * deploy's) and an hour more is a LAVA that no longer ends it. */
    double limit = suite_longest_timeout(r->p) + 100 * 60.0;
    uint64_t running_since = 0;
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    for (;;) {
        if (lava_job_get(lab, rec->job_id, st, err) < 0)
            return -1;
        if (st->state == LAVA_FINISHED)
            return 0;
        if (st->state != LAVA_RUNNING)
            running_since = 0;
        else if (!running_since)
            running_since = pm_now_ns();
        else if ((double)(pm_now_ns() - running_since) / 1e9 > limit) {
            pm_errf(err, "LAVA job %lld: still running %.0f minutes after it started, past its timeouts; "
                           "given up (its page: %sscheduler/job/%lld)", (long long)rec->job_id, limit / 60, lab->url,
                           (long long)rec->job_id);
            return -2;     /* the group fails; the suite goes on */
        }
        if (st->state != last) {
            static const char *const words[] = { "waiting for a device", "running", "being cancelled", "finished" };
            char dev[4 * sizeof st->device];
            quote_terminal(st->device, dev, sizeof dev);
            exp_say(r->ev, EXP_LOG, "pressmark: kernel %d: LAVA job %lld %s%s%s\n", rec->group,
                    (long long)rec->job_id, words[st->state], dev[0] ? " on " : "", dev);
            last = st->state;
        }
        struct timespec ts = { .tv_sec = poll };
        int sig = sigtimedwait(&set, NULL, &ts);
        if (sig > 0) {
            *abort_sig = sig;
            return 0;
        }
    }
}

/* A finished job: its results fetched, checked and merged, or its cells
 * failed with why. Returns 0, or 2 for a harness error. */
static int take_job(struct runner *r, int group, const struct lava_lab *lab, const struct lava_job_rec *rec,
                    const struct lava_job_status *st, int *worst)
{
    const struct suite_group *sg = &r->p->groups[group];
    char url[700], reason[2400], dir[PATH_MAX];
    struct pm_err err;
    lava_job_url(lab, rec->job_id, url, sizeof url);
    if (st->health != LAVA_COMPLETE) {
        snprintf(reason, sizeof reason, "kernel %s: LAVA job %lld %s: %s (%s)", sg->kernel, (long long)rec->job_id,
                 st->health == LAVA_CANCELED ? "was canceled" : "is incomplete",
                 st->failure[0] ? st->failure : "LAVA gave no reason", url);
        return fail_group(r, group, rec, reason, worst);
    }
    if (exp_boot_dir(r, group, "lava", dir, sizeof dir, &err) < 0) {
        exp_say(r->ev, EXP_LOG, "pressmark suite run: %s\n", err.msg);
        return 2;
    }
    char tar[PATH_MAX + 32];
    snprintf(tar, sizeof tar, "%s/results.tar", dir);
    int missing = 0, adopted = 0, refused = 0;
    int rc = artifact_get(rec->results_url, tar, RESULTS_MAX, &missing, &err);
    if (rc == 0 && missing)
        rc = pm_errf(&err, "its guest put no results at %s", rec->results_url);
    if (rc == 0 && results_unpack(tar, dir, &err) < 0)
        rc = -1;
    char db[PATH_MAX + 32];
    snprintf(db, sizeof db, "%s/results.db", dir);
    if (rc == 0 && !pm_path_exists(db))
        rc = pm_errf(&err, "its results hold no results.db");
    if (rc == 0)
        rc = exp_merge_guest(r, group, dir, &adopted, &refused, &err);
    if (rc < 0) {
        snprintf(reason, sizeof reason, "kernel %s: LAVA job %lld (%s): %s", sg->kernel, (long long)rec->job_id, url,
                 err.msg);
        return fail_group(r, group, rec, reason, worst);
    }
    exp_say(r->ev, EXP_LOG, "pressmark: kernel %d: %d runs from LAVA job %lld%s (files in %s)\n", group, adopted,
            (long long)rec->job_id, refused ? ", some refused (see host.log there)" : "", dir);
    if (exp_group_merged(r, group, worst) != 0)
        return 2;
    if (!runner_group_done(r, group)) {
        snprintf(reason, sizeof reason, "kernel %s: LAVA job %lld ended with runs left (%s; its guest's log: "
                 "%s/guest.log)", sg->kernel, (long long)rec->job_id, url, dir);
        return fail_group(r, group, rec, reason, worst);
    }
    if (store_lava_jobs_set_ended(&r->rs.db, r->suite.id, group, rec->attempt, "collected", NULL, &err) < 0) {
        exp_say(r->ev, EXP_LOG, "pressmark suite run: %s\n", err.msg);
        return 2;
    }
    return 0;
}

/* Every other group's job submitted before the first wait, so the lab
 * runs them side by side on its devices. */
static int submit_all(struct runner *r, const struct suite_run_opts *o, const struct lava_lab *lab, int *worst)
{
    r->backend_started = true;
    for (size_t g = 0; g < r->p->ngroups; g++) {
        if (r->kernels[g].running || runner_group_done(r, (int)g))
            continue;
        struct lava_job_rec rec = { 0 };
        int rc = ready_job(r, (int)g, o, lab, &rec, worst);
        store_lava_job_rec_free(&rec);
        if (rc == 2)
            return 2;
    }
    return 0;
}

static int lava_run_group(struct runner *r, int group, const struct suite_run_opts *o, int *abort_sig, int *worst)
{
    struct lava_lab lab;
    struct pm_err err;
    if (exp_lava_open(r->p, step_of(o)->step == LAVA_RUN || step_of(o)->step == LAVA_SUBMIT, &lab, &err) < 0) {
        exp_say(r->ev, EXP_LOG, "pressmark suite run: %s\n", err.msg);
        return 2;
    }
    if (step_of(o)->step == LAVA_RUN && !r->backend_started && submit_all(r, o, &lab, worst) == 2)
        return 2;
    struct lava_job_rec rec = { 0 };
    int rc = ready_job(r, group, o, &lab, &rec, worst);
    if (rc != 0) {
        store_lava_job_rec_free(&rec);
        return rc == 1 ? 0 : rc;
    }
    if (!wanted(o, rec.job_id)) {
        r->incomplete = true;
        store_lava_job_rec_free(&rec);
        return 0;
    }
    struct lava_job_status st;
    int w = wait_job(r, &lab, &rec, &st, abort_sig, &err);
    if (w == -2) {
        char reason[1400];
        snprintf(reason, sizeof reason, "kernel %s: %s", r->p->groups[group].kernel, err.msg);
        rc = fail_group(r, group, &rec, reason, worst);
    } else if (w < 0) {
        exp_say(r->ev, EXP_LOG, "pressmark suite run: %s\n", err.msg);
        rc = 2;
    } else if (!*abort_sig) {
        rc = take_job(r, group, &lab, &rec, &st, worst);
    }
    store_lava_job_rec_free(&rec);
    explicit_bzero(&lab, sizeof lab);
    return rc;
}

/* A key's value as the lab takes it: a URL or a path taken as written
 * (the lab checks them when the suite runs), no blank, quote or
 * backslash. */
static int lab_value(char *dst, size_t size, const char *v, struct pm_err *err)
{
    if (!v[0] || strlen(v) >= size || strpbrk(v, " \t\r\n\"'\\"))
        return pm_errf(err, "not a value it takes (accepted: %zu characters at most, no blank, quote or backslash)",
                       size - 1);
    snprintf(dst, size, "%s", v);
    return 0;
}

#define LAB_KEY(field)                                                    \
    static int set_##field(void *state, const char *v, struct pm_err *err) \
    {                                                                     \
        struct exp_lava_keys *l = state;                                  \
        return lab_value(l->field, sizeof l->field, v, err);              \
    }
LAB_KEY(url)
LAB_KEY(token_file)
LAB_KEY(artifacts)
LAB_KEY(artifacts_guest)
LAB_KEY(artifacts_token_file)

/* A device type as LAVA names one. */
static int set_device_type(void *state, const char *v, struct pm_err *err)
{
    struct exp_lava_keys *l = state;
    char t[sizeof l->device_type];
    if (lab_value(t, sizeof t, v, err) < 0)
        return -1;
    if (strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != strlen(v))
        return pm_errf(err, "not a device type's name (accepted: letters, digits, '.', '-', '_')");
    memcpy(l->device_type, t, sizeof t);
    return 0;
}

static int set_allow_plain_http(void *state, const char *v, struct pm_err *err)
{
    struct exp_lava_keys *l = state;
    if (strcmp(v, "yes") != 0 && strcmp(v, "no") != 0)
        return pm_errf(err, "not yes or no");
    l->allow_plain_http = strcmp(v, "yes") == 0;
    return 0;
}

#define LK(f) offsetof(struct exp_lava_keys, f)
static const struct opt lava_options[] = {
    { .name = "lava-url", .type = OPT_CALLBACK, .offset = LK(url), .set = set_url, .help = "the LAVA server" },
    { .name = "lava-token-file", .type = OPT_CALLBACK, .offset = LK(token_file), .set = set_token_file,
      .help = "a file only its owner can read, holding the lab's API token (to submit jobs)" },
    { .name = "device-type", .type = OPT_CALLBACK, .offset = LK(device_type), .set = set_device_type,
      .help = "the lab's device type its jobs run on" },
    { .name = "lava-artifacts", .type = OPT_CALLBACK, .offset = LK(artifacts), .set = set_artifacts,
      .help = "an HTTP store that takes PUT and answers GET: images and results go through it" },
    { .name = "lava-artifacts-guest", .type = OPT_CALLBACK, .offset = LK(artifacts_guest), .set = set_artifacts_guest,
      .help = "that store as the devices reach it, when they reach it by another address" },
    { .name = "lava-allow-plain-http", .type = OPT_CALLBACK, .offset = LK(allow_plain_http),
      .set = set_allow_plain_http, .help = "yes: a token may go to another host over plain http" },
    { .name = "lava-artifacts-token-file", .type = OPT_CALLBACK, .offset = LK(artifacts_token_file),
      .set = set_artifacts_token_file, .help = "a file only its owner can read, holding the store's PUT token" },
    { .type = OPT_END },
};

/* What a key names, or that the suite does not name it (suite run then
 * refuses it). */
static const char *named(const char *v)
{
    return v[0] ? v : "(not named)";
}

/* The file alone, so suite plan too, which prints lava-url: one with a
 * user:password is refused here, its password left out, in the words
 * the lab's own check (labs/lava_lab.c) gives it at suite run. */
static int lava_check(const struct suite_plan *p, struct pm_err *err)
{
    char bare[160], q[4 * sizeof bare];
    int has = lava_text_userinfo(exp_lava_keys(p)->url, bare, sizeof bare, err);
    if (has <= 0)
        return has;
    quote_terminal(bare, q, sizeof q);
    return pm_errf(err, "%s: lava-url = %s (with a user:password): accepted: http://HOST[:PORT][/PATH] or https://..., "
                   "without user:password, query or fragment; the token goes in lava-token-file", p->file.path, q);
}

static void lava_where(const struct suite_plan *p, const struct suite_group *g, char *buf, size_t len)
{
    const struct exp_lava_keys *l = exp_lava_keys(p);
    char mem[32];
    pm_fmt_size(mem, sizeof mem, g->vm_memory);
    snprintf(buf, len, "runs as a LAVA job on device type %s at %s (%s, %u CPUs%s)", named(l->device_type),
             named(l->url), mem, g->vm_cpus, g->vm_append[0] ? ", more kernel parameters" : "");
}

static void lava_describe(const struct suite_plan *p, char *buf, size_t len)
{
    const struct exp_lava_keys *l = exp_lava_keys(p);
    snprintf(buf, len, "as a LAVA job per kernel on device type %s at %s", named(l->device_type), named(l->url));
}

/* The store's token read and the lab asked, before anything is written:
 * each job step needs the lab, and submitting its token. */
static int lava_open(const struct suite_plan *p, const struct suite_run_opts *o, struct pm_err *err)
{
    if (exp_lava_store_token(p, err) < 0)
        return -1;
    struct lava_lab lab;
    int rc = exp_lava_open(p, step_of(o)->step == LAVA_RUN || step_of(o)->step == LAVA_SUBMIT, &lab, err);
    explicit_bzero(&lab, sizeof lab);
    return rc;
}

/* A lab's dispatcher runs QEMU; here only the image is made. */
static int lava_check_kernel(const struct suite_plan *p, int group, const struct suite_run_opts *o,
                             struct pm_err *err)
{
    (void)o;
    return exp_image_check(p, group, "its LAVA job's image", false, err);
}

/* No bisection: it boots its kernels itself, one batch at a time, and a
 * LAVA job is a boot of the lab's. */
const struct exp_backend exp_backend_lava = {
    .name = "lava", .summary = "a job per kernel on a LAVA lab's devices",
    .options = lava_options, .state_size = sizeof(struct exp_lava_keys),
    .check = lava_check, .where = lava_where, .describe = lava_describe, .open = lava_open, .check_kernel = lava_check_kernel,
    .run_group = lava_run_group,
};
