/* Suite files: any text through the INI reader and the planner (cells,
 * axes, every setting applied to the option tables). Properties: a file
 * is read or refused with one message naming the file and a line; what
 * was read, written back as its canonical text, reads back to the same
 * canonical text and digest (so a suite stored in the database is the
 * suite that ran); a plan's cells have labels, and no two cells of a
 * workload share one; its alpha and detect are within what is accepted. */
#include "fuzz/fuzz.h"
#include <string.h>
#include "experiment/file.h"
#include "experiment/plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    struct suite_file sf;
    struct pm_err err;
    if (suite_file_read("f.ini", text, &sf, &err) < 0) {
        FUZZ_ASSERT(strncmp(err.msg, "f.ini", 5) == 0 && !strchr(err.msg, '\n'), "error '%s'", err.msg);
    } else {
        struct suite_file again;
        FUZZ_ASSERT(suite_file_read("f.ini", sf.canonical, &again, &err) == 0, "canonical text refused: %s\n%s", err.msg,
                    sf.canonical);
        FUZZ_ASSERT(strcmp(again.canonical, sf.canonical) == 0 && strcmp(again.digest, sf.digest) == 0,
                    "canonical text changes when read again:\n%s\n---\n%s", sf.canonical, again.canonical);
        suite_file_free(&again);
        suite_file_free(&sf);
        struct suite_plan p;
        if (suite_plan_load("f.ini", text, &p, &err) == 0) {
            FUZZ_ASSERT(p.alpha > 0 && p.alpha <= 0.5 && p.detect_pct >= 0 && p.detect_pct < 100,
                        "alpha %g, detect %g%%", p.alpha, p.detect_pct);
            for (size_t i = 0; i < p.ncells; i++) {
                FUZZ_ASSERT(p.cells[i].label[0] && p.cells[i].label[0] != '-', "cell %zu label '%s'", i, p.cells[i].label);
                for (size_t j = 0; j < i; j++)
                    FUZZ_ASSERT(p.cells[j].wl != p.cells[i].wl || strcmp(p.cells[j].label, p.cells[i].label) != 0,
                                "two cells labelled '%s'", p.cells[i].label);
            }
            suite_plan_free(&p);
        } else {
            FUZZ_ASSERT(strncmp(err.msg, "f.ini", 5) == 0, "plan error '%s'", err.msg);
        }
    }
    free(text);
    return 0;
}
