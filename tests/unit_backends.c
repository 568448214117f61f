/* The suite backends' registry (experiment/backends.c): each backend
 * has the ops the core calls without asking, and no key of a suite,
 * run or env option's name; a backend's keys written as a batch's suite
 * text (exp_backend_keys_text) read back as they were, or are refused. */
#include "tests/tap.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "experiment/backend.h"
#include "experiment/plan.h"
#include "experiment/run_opts.h"
#include "lib/opt.h"

static void registry(void)
{
    for (size_t i = 0; exp_backends[i]; i++) {
        const struct exp_backend *b = exp_backends[i];
        ok(b->name && b->name[0] && b->summary && b->summary[0], "backend %zu has a name and a summary", i);
        ok(b->where && b->describe && b->run_group, "backend %s has where, describe and run_group", b->name);
        ok(exp_backend_find(b->name) == b, "backend %s is found by its name", b->name);
        for (const struct opt *o = b->options; o && o->type != OPT_END; o++) {
            ok(!suite_plan_core_key(o->name), "%s's key %s is no suite key", b->name, o->name);
            ok(!opt_find(exp_run_options, o->name), "%s's key %s is no run option", b->name, o->name);
            ok(!opt_find(exp_env_options, o->name), "%s's key %s is no env option", b->name, o->name);
        }
    }
}

struct keys {
    char word[64];
    bool on;
    int n;
};

static void show_n(const void *state, char *buf, size_t len)
{
    snprintf(buf, len, "%d", ((const struct keys *)state)->n);
}

static int set_n(void *state, const char *v, struct pm_err *err)
{
    (void)err;
    ((struct keys *)state)->n = atoi(v);
    return 0;
}

static const struct opt shown[] = {
    { .name = "t-word", .type = OPT_STRING, .offset = offsetof(struct keys, word), .size = 64 },
    { .name = "t-on", .type = OPT_FLAG, .offset = offsetof(struct keys, on), .def = "yes" },
    { .name = "t-n", .type = OPT_CALLBACK, .offset = offsetof(struct keys, n), .set = set_n, .show = show_n },
    { .type = OPT_END },
};

static const struct opt unshown[] = {
    { .name = "t-n", .type = OPT_CALLBACK, .offset = offsetof(struct keys, n), .set = set_n },
    { .type = OPT_END },
};

/* The text exp_backend_keys_text writes for the keys, or NULL when it
 * refuses them. */
static char *keys_text(const struct opt *table, struct keys *k)
{
    struct exp_backend b = { .name = "t", .options = table };
    struct suite_plan p;
    memset(&p, 0, sizeof p);
    p.backend = &b;
    p.backend_state = k;
    char *t = NULL;
    size_t len;
    FILE *f = open_memstream(&t, &len);
    if (!f)
        return NULL;
    int rc = exp_backend_keys_text(&p, f);
    if (fclose(f) != 0 || rc < 0) {
        free(t);
        return NULL;
    }
    return t;
}

static void check_text(const char *word, bool on, const char *want, const char *what)
{
    struct keys k = { .on = on, .n = 7 };
    snprintf(k.word, sizeof k.word, "%s", word);
    char *t = keys_text(shown, &k);
    if (want)
        is_str(t, want, "%s", what);
    else
        ok(!t, "%s: refused", what);
    free(t);
}

static void keys_text_cases(void)
{
    check_text("a,b", true, "t-word = a,b\nt-on = yes\nt-n = 7\n", "a comma: unquoted, as the reader takes it whole");
    check_text("x\"y", false, "t-word = x\"y\nt-on = no\nt-n = 7\n", "a flag that is off says no");
    check_text("", true, NULL, "an empty value");
    check_text(";x", true, NULL, "a value starting with ';'");
    check_text("a ;b", true, NULL, "a value with ' ;'");
    check_text("a #b", true, NULL, "a value with ' #'");
    check_text("a\t#b", true, NULL, "a value with a tab before '#'");
    check_text(" a", true, NULL, "a leading blank");
    check_text("a ", true, NULL, "a trailing blank");
    check_text("a\nb", true, NULL, "a newline");
    check_text("a#b;c", true, "t-word = a#b;c\nt-on = yes\nt-n = 7\n", "'#' and ';' with no blank before");
    struct keys k = { .n = 3 };
    char *t = keys_text(unshown, &k);
    ok(!t, "a key without show: refused, not dropped");
    free(t);
}

int main(void)
{
    registry();
    keys_text_cases();
    return done_testing();
}
