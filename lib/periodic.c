#include "lib/periodic.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "lib/timeutil.h"

/* The next deadline on the grid after a tick, that is still ahead at after
 * (when it woke or when it ended); the ones passed are counted as missed. */
static void advance(struct periodic *p, uint64_t after)
{
    p->next += p->period;
    if (after >= p->next) {
        uint64_t behind = (after - p->next) / p->period + 1;
        atomic_fetch_add(&p->missed, behind);
        p->next += behind * p->period;
    }
}

static void *periodic_main(void *arg)
{
    struct periodic *p = arg;
    pthread_setname_np(pthread_self(), p->name);
    pthread_mutex_lock(&p->mu);
    while (!p->stop) {
        struct timespec ts = pm_ns_to_timespec(p->next);
        int rc = pthread_cond_timedwait(&p->cv, &p->mu, &ts);
        if (p->stop)
            break;
        if (rc != ETIMEDOUT)
            continue;       /* spurious wake-up: the deadline has not come */
        pthread_mutex_unlock(&p->mu);
        uint64_t deadline = p->next, woke = pm_now_ns();
        int ended = p->tick(p->arg, deadline, woke);
        advance(p, p->skip_by_wake ? woke : pm_now_ns());
        pthread_mutex_lock(&p->mu);
        if (ended < 0)
            break;
    }
    pthread_mutex_unlock(&p->mu);
    if (p->last)
        p->last(p->arg);
    return NULL;
}

int periodic_start(struct periodic *p, const char *name, uint64_t first, uint64_t period, struct pm_err *err)
{
    snprintf(p->name, sizeof p->name, "%s", name);
    p->next = first;
    p->period = period ? period : 1;
    p->stop = false;
    atomic_init(&p->missed, 0);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&p->cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&p->mu, NULL);
    int rc = pthread_create(&p->thread, NULL, periodic_main, p);
    if (rc) {
        pthread_cond_destroy(&p->cv);
        pthread_mutex_destroy(&p->mu);
        return pm_errf(err, "%s thread: %s", strncmp(name, "pm-", 3) == 0 ? name + 3 : name, strerror(rc));
    }
    p->running = true;
    return 0;
}

void periodic_stop(struct periodic *p)
{
    if (!p->running)
        return;
    pthread_mutex_lock(&p->mu);
    p->stop = true;
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->mu);
    pthread_join(p->thread, NULL);
    p->running = false;
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
}

uint64_t periodic_missed(struct periodic *p)
{
    return atomic_load(&p->missed);
}
