/* The sibling hog's arithmetic and its spec: what a hog got done during
 * the measured run, pass by pass, exactly; and which specs are a hog. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "harness/sibling.h"
#include "tests/tap.h"

static void tally(const char *text, uint64_t w0, uint64_t w1, struct sibling_tally *t)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", text);
    sibling_tally(buf, w0, w1, t);
}

static int refused(const char *spec, const char *want)
{
    struct wl_limits lim = { .mem_cap = 256ull << 20 };
    struct sibling_spec sp;
    struct pm_err err = { "" };
    if (sibling_spec_parse(spec, &lim, &sp, &err) == 0) {
        sibling_spec_free(&sp);
        return 0;
    }
    return strstr(err.msg, want) != NULL;
}

int main(void)
{
    struct sibling_tally t;
    /* The run is [100, 200]: a pass wholly inside counts 1, one half
     * inside 0.5, one before or after it nothing. */
    tally("pass 110 150 ok 10\npass 150 190 ok 30\n", 100, 200, &t);
    ok(t.passes == 2 && t.total == 2 && t.failed == 0, "two passes inside the run count 2 (%g)", t.passes);
    ok(t.nvalues == 2 && t.value_sum == 40, "their headline: 2 values, summing 40");
    tally("pass 50 150 ok 1\npass 150 250 ok 3\n", 100, 200, &t);
    ok(t.passes == 1.0 && t.total == 2, "two passes half inside count 0.5 each (%g)", t.passes);
    tally("pass 20 80 ok 1\npass 80 100 ok 2\npass 200 260 ok 3\n", 100, 200, &t);
    ok(t.passes == 0 && t.total == 3 && t.nvalues == 0, "passes before or after the run count nothing, but are all counted");
    tally("pass 90 130 ok 5\npass 130 170 oom nan\npass 170 230 failed nan\n", 100, 200, &t);
    ok(fabs(t.passes - 0.75) < 1e-12, "a pass a quarter outside counts 0.75 (%g)", t.passes);
    ok(t.failed == 2 && t.nvalues == 1 && t.value_sum == 5, "failed or OOM-killed passes counted as such, their values not");
    tally("pass 120 140 ok nan\n", 100, 200, &t);
    ok(t.passes == 1 && t.nvalues == 0, "a pass without a headline counts, its value does not");
    tally("pass 150 120 ok 1\ngarbage\npass 1 2\n", 100, 200, &t);
    ok(t.passes == 0 && t.total == 0, "lines that are not passes, or end before they start, are not counted");

    struct wl_limits lim = { .mem_cap = 256ull << 20 };
    struct sibling_spec sp;
    struct pm_err err;
    ok(sibling_spec_parse("usemem --size 64M --passes=2 --pattern rand", &lim, &sp, &err) == 0 &&
       strcmp(sp.wl->name, "usemem") == 0, "a workload with options, both forms, is a hog");
    sibling_spec_free(&sp);
    ok(refused("nosuch", "'nosuch' is not a workload"), "an unknown workload is refused");
    ok(refused("record", "record takes a command"), "a command is refused");
    ok(refused("shmio", "shmio keeps a scratch directory"), "a workload that journals is refused");
    ok(refused("usemem --nosuch 1", "'--nosuch' is not an option of usemem"), "an option it lacks is refused");
    ok(refused("usemem -", "'-' is not an option of usemem"), "a lone dash is refused");
    ok(refused("usemem --=1", "'--=1' is not an option of usemem"), "an empty name is refused");
    ok(refused("usemem --size", "'--size' of usemem needs a value"), "an option without its value is refused");
    ok(refused("build --jobs 1,2", "a list of values makes phases"), "phases are refused");
    ok(refused("", "is not a hog"), "nothing is refused");
    return done_testing();
}
