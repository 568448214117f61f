/* The figures parsers (figures/) and --figure's REGEX and json:PATH on any
 * bytes. The first byte picks the parser; the rest, cut at its first NUL,
 * is the tool's output (and, for pgbench, what follows the NUL its log).
 * Properties: no crash or over-read (the texts are exact-size copies);
 * a failure leaves the set as it was and says which parser failed; a
 * success gives at least one figure, every one finite, named as a figure
 * its parser declares (its word of [a-z0-9_]), with that figure's unit
 * and direction, and no name twice; output holding a NUL byte is refused.
 * A first byte of 0xff reads the rest as --figure's argument, 0xfe and
 * 0xfd as a tool's output for --figure's json:PATH and REGEX. */
#include "fuzz/fuzz.h"
#include <math.h>
#include <string.h>
#include "figures/figures.h"

static void check_set(const struct figure_parser *p, const struct figure_set *s)
{
    for (size_t i = 0; i < s->n; i++) {
        const struct figure *f = &s->v[i];
        FUZZ_ASSERT(isfinite(f->value), "%s: %s is %g", p->name, f->name, f->value);
        bool declared = false;
        for (size_t k = 0; k < p->n && !declared; k++) {
            const char *unit;
            enum metric_dir dir;
            declared = metric_def_matches(&p->defs[k], f->name, &unit, &dir) && strcmp(unit, f->unit) == 0 &&
                       dir == f->dir;
        }
        FUZZ_ASSERT(declared, "%s: %s (%s) is no figure it declares", p->name, f->name, f->unit);
        for (size_t j = 0; j < i; j++)
            FUZZ_ASSERT(strcmp(s->v[j].name, f->name) != 0, "%s: %s twice", p->name, f->name);
    }
}

static void check_parser(const struct figure_parser *p, const char *text, const char *log, const uint8_t *raw,
                         size_t raw_len)
{
    struct figure_set s = { 0 };
    struct pm_err err = { "" };
    size_t plen = strlen(p->name);
    int rc = figures_parse_log(p->name, text, strlen(text), log, log ? strlen(log) : 0, &s, &err);
    if (rc == 0) {
        FUZZ_ASSERT(s.n > 0, "%s: success with no figure", p->name);
        check_set(p, &s);
    } else {
        FUZZ_ASSERT(rc == -1 && s.n == 0, "%s: failed (%d) with %zu figures", p->name, rc, s.n);
        FUZZ_ASSERT(strncmp(err.msg, p->name, plen) == 0 && err.msg[plen] == ':', "%s: error '%s'", p->name,
                    err.msg);
    }
    figure_set_free(&s);
    if (memchr(raw, '\0', raw_len)) {
        FUZZ_ASSERT(figures_parse(p->name, (const char *)raw, raw_len, &s, &err) == -1 && s.n == 0,
                    "%s: a NUL byte accepted", p->name);
        figure_set_free(&s);
    }
}

static void check_generic(bool json, const char *text)
{
    double v = 0;
    struct pm_err err = { "" };
    int rc = json ? figure_json("x", "jobs[0].read.\"iops\"", text, strlen(text), &v, &err)
                  : figure_regex("x", "^Time: ([-0-9.e]+)$", text, strlen(text), &v, &err);
    FUZZ_ASSERT(rc == 0 ? isfinite(v) : strncmp(err.msg, "--figure x: ", 12) == 0, "rc %d, %g, '%s'", rc, v,
                err.msg);
}

/* --figure's argument: what parses has a name, unit and direction as the
 * option promises (they go into the database and the reports' titles);
 * what does not says why in one line naming the option. */
static void check_spec(const char *arg)
{
    struct figure_spec sp;
    struct pm_err err = { "" };
    if (figure_spec_parse(arg, &sp, &err) < 0) {
        FUZZ_ASSERT(strncmp(err.msg, "--figure ", 9) == 0 && !strchr(err.msg, '\n'), "'%s'", err.msg);
        for (const char *c = err.msg; *c; c++)
            FUZZ_ASSERT(*c >= 0x20 && *c != 0x7f, "a control byte in '%s'", err.msg);
        return;
    }
    FUZZ_ASSERT(sp.name[0] >= 'a' && sp.name[0] <= 'z' && strspn(sp.name, "abcdefghijklmnopqrstuvwxyz0123456789_.") ==
                strlen(sp.name), "name '%s'", sp.name);
    FUZZ_ASSERT(strlen(sp.unit) <= 15 && !strpbrk(sp.unit, " \"'`\\:="), "unit '%s'", sp.unit);
    for (const char *c = sp.unit; *c; c++)
        FUZZ_ASSERT(*c > 0x20 && *c < 0x7f, "unit '%s'", sp.unit);
    FUZZ_ASSERT(sp.dir == PM_NEITHER || sp.dir == PM_HIGHER || sp.dir == PM_LOWER, "direction %d", (int)sp.dir);
}

/* The first byte's last three values pick the --figure checks, whatever
 * the number of parsers: a corpus input keeps its target when a parser is
 * added (a byte taken modulo the count would move them all). */
enum { PICK_SPEC = 0xff, PICK_JSON = 0xfe, PICK_REGEX = 0xfd };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t parsers = 0;
    while (figures_parsers_table[parsers])
        parsers++;
    if (size < 1)
        return 0;
    char *strs[2], *block;
    size_t n = fuzz_split(data + 1, size - 1, strs, 2, &block);
    if (n == 0)
        return 0;
    if (data[0] == PICK_SPEC) {
        check_spec(strs[0]);
    } else if (data[0] == PICK_JSON || data[0] == PICK_REGEX) {
        check_generic(data[0] == PICK_JSON, strs[0]);
    } else {
        const struct figure_parser *p = figures_parsers_table[data[0] % parsers];
        check_parser(p, strs[0], p->takes_log && n > 1 ? strs[1] : NULL, data + 1, size - 1);
    }
    free(block);
    return 0;
}
