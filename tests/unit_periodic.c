/* The periodic thread the sampler, heartbeat and stall tracer share:
 * deadlines on the grid first + k * period, deadlines passed during a slow
 * call skipped and counted (never taken in a burst), the last call after
 * stop, a tick that fails ending the thread. Invariants, not timings: the
 * machine may be slow. */
#include <stdatomic.h>
#include <stdbool.h>
#include <time.h>
#include "lib/periodic.h"
#include "lib/timeutil.h"
#include "tests/tap.h"

struct rec {
    struct periodic *p;
    uint64_t deadlines[64], missed_before[64], woke[64];
    int early;            /* calls before their deadline: never */
    atomic_int n;
    int lasts;
    int fail_at;          /* the call that returns -1; 0: none */
    uint64_t slow_ns;     /* the first call takes this long */
};

static int tick(void *arg, uint64_t deadline, uint64_t now)
{
    struct rec *r = arg;
    int i = atomic_load(&r->n);
    if (i < 64) {
        r->deadlines[i] = deadline;
        r->woke[i] = now;
        r->missed_before[i] = periodic_missed(r->p);
    }
    r->early += now < deadline;
    atomic_store(&r->n, i + 1);
    if (i == 0 && r->slow_ns) {
        struct timespec ts = pm_ns_to_timespec(r->slow_ns);
        nanosleep(&ts, NULL);
    }
    return r->fail_at && i + 1 == r->fail_at ? -1 : 0;
}

static void last(void *arg)
{
    ((struct rec *)arg)->lasts++;
}

/* Until the thread made n calls; false after a minute without (a thread
 * that never ticks fails the test rather than hangs it). */
static bool wait_calls(struct rec *r, int n)
{
    for (int ms = 0; atomic_load(&r->n) < n; ms++) {
        if (ms == 60000)
            return false;
        struct timespec ts = { 0, 1000000 };
        nanosleep(&ts, NULL);
    }
    return true;
}

int main(void)
{
    const uint64_t period = 20000000;   /* 20 ms */
    struct pm_err err;

    struct periodic p = { .tick = tick, .last = last };
    struct rec r = { .p = &p, .slow_ns = 5 * period / 2 };
    p.arg = &r;
    uint64_t first = pm_now_ns() + period;
    ok(periodic_start(&p, "pm-test", first, period, &err) == 0, "a periodic thread starts");
    ok(wait_calls(&r, 4), "it was called four times");
    periodic_stop(&p);
    int n = atomic_load(&r.n);
    ok(r.deadlines[0] == first, "the first deadline is the one given");
    uint64_t missed = periodic_missed(&p);
    ok(missed >= 2, "a call of two and a half periods skips two deadlines or more (%llu)", (unsigned long long)missed);
    size_t off = 0;
    for (int i = 1; i < n && i < 64; i++)
        off += (r.deadlines[i] - first) % period != 0;
    ok(off == 0, "every deadline is on the grid first + k * period (%zu off it)", off);
    ok(r.missed_before[1] >= 2, "the slow first call made the thread skip two deadlines or more (%llu)",
       (unsigned long long)r.missed_before[1]);
    size_t burst = 0;
    for (int i = 1; i < n && i < 64; i++)
        burst += r.deadlines[i] - r.deadlines[i - 1] != (r.missed_before[i] - r.missed_before[i - 1] + 1) * period;
    ok(burst == 0, "each call comes one period after the last plus one per deadline skipped (%zu not)", burst);
    ok(r.early == 0, "no call came before its deadline");
    int gaps = 0;
    for (int i = 2; i < n && i < 64; i++)
        gaps += r.deadlines[i] <= r.deadlines[i - 1];
    ok(gaps == 0, "deadlines only move forward");
    ok(r.lasts == 1, "the last call ran once, after stop");
    periodic_stop(&p);
    ok(r.lasts == 1, "a second stop does nothing");

    struct periodic q = { .tick = tick, .last = last };
    struct rec f = { .p = &q, .fail_at = 3 };
    q.arg = &f;
    ok(periodic_start(&q, "pm-test", pm_now_ns(), period, &err) == 0, "another starts, its first deadline now");
    ok(wait_calls(&f, 3), "it was called three times");
    /* The thread ends by itself at the failing call; stop only joins. */
    periodic_stop(&q);
    ok(atomic_load(&f.n) == 3, "a tick that fails is the thread's last (%d calls)", atomic_load(&f.n));
    ok(f.lasts == 1, "and the last call still runs");

    /* Counted by how late a call woke (the heartbeat's way): the slow
     * call's overrun is the next call's lateness, nothing is skipped for it
     * unless a call woke a whole period late. */
    const uint64_t slow_period = 100000000;  /* 100 ms */
    struct periodic w = { .tick = tick, .skip_by_wake = true };
    struct rec rw = { .p = &w, .slow_ns = 5 * slow_period / 2 };
    w.arg = &rw;
    uint64_t wfirst = pm_now_ns() + slow_period;
    ok(periodic_start(&w, "pm-test", wfirst, slow_period, &err) == 0, "one that counts by wake-up starts");
    ok(wait_calls(&rw, 2), "it was called twice");
    periodic_stop(&w);
    /* The next deadline is the first on the grid after the slow call woke,
     * not after it ended: what it overran is the next call's lateness. */
    uint64_t after_wake = wfirst + ((rw.woke[0] - wfirst) / slow_period + 1) * slow_period;
    ok(rw.deadlines[1] == after_wake, "the deadline after the slow call is the first after it woke (%llu periods on)",
       (unsigned long long)((rw.deadlines[1] - wfirst) / slow_period));
    ok(rw.woke[1] >= rw.woke[0] + rw.slow_ns && rw.deadlines[1] < rw.woke[0] + rw.slow_ns,
       "one it overran: that call woke late");
    size_t wburst = 0;
    for (int i = 1; i < atomic_load(&rw.n) && i < 64; i++)
        wburst += rw.deadlines[i] - rw.deadlines[i - 1] != (rw.missed_before[i] - rw.missed_before[i - 1] + 1) * slow_period;
    ok(wburst == 0, "and its deadlines too are one period apart plus one per deadline skipped");

    /* Never started: a stop calls nothing and changes nothing, and the
     * struct starts and stops as usual after it. */
    struct periodic never = { .tick = tick, .last = last };
    struct rec rn = { .p = &never };
    never.arg = &rn;
    periodic_stop(&never);
    ok(atomic_load(&rn.n) == 0 && rn.lasts == 0, "stopping one never started calls neither tick nor last (%d, %d)",
       atomic_load(&rn.n), rn.lasts);
    ok(!never.running && !never.stop, "and leaves it as it was: not running, not stopping");
    bool ticked = periodic_start(&never, "pm-test", pm_now_ns(), period, &err) == 0 && wait_calls(&rn, 2);
    ok(ticked, "it starts after that and ticks (%d calls)", atomic_load(&rn.n));
    periodic_stop(&never);
    ok(rn.lasts == 1, "and its stop then runs the last call once");
    return done_testing();
}
