/* The /proc and cgroup file parsers (/proc/stat, vmstat, meminfo,
 * memory.stat and memory.events, PSI, single-value files) on any bytes.
 * Properties: no crash or over-read (the input is an exact-size copy),
 * the count returned is the number of values put, every name is the
 * prefix, a dot and a key, and PSI percentages are finite and in 0..100. */
#include "fuzz/fuzz.h"
#include <math.h>
#include <string.h>
#include "collectors/proc_parse.h"

static const char prefix[] = "src";

struct check_sink {
    struct sink base;
    int puts;
    bool single;
};

static void put(struct sink *self, const char *name, size_t len, struct pm_value v)
{
    struct check_sink *c = (struct check_sink *)self;
    c->puts++;
    size_t plen = strlen(prefix);
    if (c->single) {
        FUZZ_ASSERT(len == plen && memcmp(name, prefix, plen) == 0, "single value named %.*s", (int)len, name);
    } else {
        FUZZ_ASSERT(len > plen + 1 && len < 160 && memcmp(name, prefix, plen) == 0 && name[plen] == '.',
                    "name %.*s", (int)len, name);
        FUZZ_ASSERT(memchr(name, '\n', len) == NULL && memchr(name, '\0', len) == NULL, "name holds a line break or NUL");
    }
    if (v.kind == PM_REAL)
        FUZZ_ASSERT(isfinite(v.r) && v.r >= 0 && v.r <= 100, "PSI share %g", v.r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const proc_parse_fn parsers[] = { parse_proc_stat, parse_keyed_lines, parse_psi, parse_single_value,
                                             parse_buddyinfo, parse_zoneinfo };
    if (size < 1)
        return 0;
    size_t which = data[0] % (sizeof parsers / sizeof parsers[0]);
    size_t len = size - 1;
    char *buf = malloc(len ? len : 1);
    if (!buf)
        return 0;
    memcpy(buf, data + 1, len);
    struct check_sink sink = { .base = { .put = put }, .single = parsers[which] == parse_single_value };
    int r = parsers[which](buf, len, prefix, &sink.base);
    FUZZ_ASSERT(r == -1 || r == sink.puts, "returned %d, put %d", r, sink.puts);
    FUZZ_ASSERT(r != -1 || sink.puts == 0 || parsers[which] == parse_proc_stat, "-1 after putting %d", sink.puts);
    free(buf);
    return 0;
}
