/* pressmark's memcached client's reading of replies (a server's bytes are
 * hostile: every shape but the two asked for is refused or counted) and
 * its Zipf draw, against what YCSB's generator gives. */
#include "lib/zipf.h"
#include "workloads/kvget.h"
#include "workloads/kvget_reply.h"
#include "tests/tap.h"

static const char key[] = "key:000000000007";

static enum kv_get_reply reply(const char *buf, size_t n, const char *want, char *why, size_t wlen)
{
    return kv_get_reply(buf, n, key, want, 4, why, wlen);
}

static enum kv_get_reply str(const char *buf, char *why)
{
    return reply(buf, strlen(buf), "abcd", why, 256);
}

/* Each case is refused by the one check it plants a fault for, as its
 * reason says: the rest of the reply is a good hit, so without that check
 * it would pass (a key, flags, length, value and END each as stored). */
static void bad_case(const char *buf, size_t n, const char *why_want, const char *desc)
{
    char why[256];
    enum kv_get_reply r = reply(buf, n, "abcd", why, sizeof why);
    ok(r == KV_GET_BAD && strcmp(why, why_want) == 0, "%s: bad (%s)", desc, why);
}

static void bad_str(const char *buf, const char *why_want, const char *desc)
{
    bad_case(buf, strlen(buf), why_want, desc);
}

static void replies(void)
{
    char why[256];
    is_num(str("VALUE key:000000000007 0 4\r\nabcd\r\nEND\r\n", why), KV_GET_HIT, 0, "a whole hit");
    is_num(str("END\r\n", why), KV_GET_MISS, 0, "END alone is a miss, never a hit");
    is_num(str("SERVER_ERROR out of memory\r\n", why), KV_GET_ERROR, 0, "SERVER_ERROR is an error reply");
    is_str(why, "SERVER_ERROR out of memory", "  quoted");
    is_num(str("CLIENT_ERROR bad command line format\r\n", why), KV_GET_ERROR, 0, "CLIENT_ERROR too");
    is_num(str("ERROR\r\n", why), KV_GET_ERROR, 0, "ERROR too");
    /* Every proper prefix of each reply, down to none and up to its last
     * byte but one (the LF that ends it), waits for more. */
    const char *const whole[] = { "VALUE key:000000000007 0 4\r\nabcd\r\nEND\r\n", "END\r\n", "ERROR\r\n" };
    const char *const name[] = { "a hit", "a miss", "an error reply" };
    for (size_t w = 0; w < 3; w++) {
        size_t len = strlen(whole[w]), first = len;
        for (size_t n = 0; n < len && first == len; n++)
            if (reply(whole[w], n, "abcd", why, sizeof why) != KV_GET_MORE)
                first = n;
        ok(first == len, "every prefix of %s, 0 to %zu of its %zu bytes, waits for more (first that does not: %zu)",
           name[w], len - 1, len, first);
    }
    const char *other = "the reply to get key:000000000007 is not 'VALUE key flags bytes': ";
    char want[256];
    bad_str("VALUE key:000000000007 0 4\r\nabcX\r\nEND\r\n",
            "get key:000000000007 came back with other bytes than the loader stored", "other bytes than stored");
    bad_str("VALUE key:000000000008 0 4\r\nabcd\r\nEND\r\n",
            "the reply to get key:000000000007 names another key: 'VALUE key:000000000008 0 4'", "another key");
    /* 5 declared, the 4 stored sent: only the length says so */
    bad_str("VALUE key:000000000007 0 5\r\nabcd\r\nEND\r\n",
            "get key:000000000007 came back with flags 0 and 5 bytes; the loader stored flags 0 and 4 bytes",
            "another length");
    bad_str("VALUE key:000000000007 1 4\r\nabcd\r\nEND\r\n",
            "get key:000000000007 came back with flags 1 and 4 bytes; the loader stored flags 0 and 4 bytes",
            "other flags");
    /* 4 in 11 digits: the length is right, its form is not */
    snprintf(want, sizeof want, "%s'VALUE key:000000000007 0 00000000004'", other);
    bad_str("VALUE key:000000000007 0 00000000004\r\nabcd\r\nEND\r\n", want, "an 11-digit length");
    snprintf(want, sizeof want, "%s'VALUE key:000000000007 0 4 99'", other);
    bad_str("VALUE key:000000000007 0 4 99\r\nabcd\r\nEND\r\n", want, "a CAS nobody asked for");
    bad_str("VALUE key:000000000007 0 4\r\nabcd\r\nEND\r\nEND\r\n", "bytes after the reply to get key:000000000007",
            "bytes after a hit");
    bad_str("END\r\nX", "bytes after the reply to get key:000000000007", "bytes after a miss");
    bad_str("VALUE key:000000000007 0 4\r\nabcd\r\nEXD\r\n",
            "the reply to get key:000000000007 does not end with END after its 4 bytes", "no END");
    bad_str("STORED\r\n", "the reply to get key:000000000007 is of another shape: 'STORED'", "another reply");
    /* The line's end must be CR LF: "ENDx\n" read as if x were its CR
     * would be END, a miss. */
    bad_str("ENDx\n", "the reply to get key:000000000007 has a first line of another shape: 'ENDx'", "a bare LF");
    /* A NUL ends the line for strcmp: "END\0" would be END. */
    bad_case("END\0\r\n", 6, "the reply to get key:000000000007 has a first line of another shape: 'END'",
             "a NUL in the line");
    char junk[600];
    memset(junk, 'x', sizeof junk);
    memcpy(junk, "END", 3);
    snprintf(want, sizeof want, "the reply to get key:000000000007 has a first line of another shape: '%.120s'", junk);
    bad_case(junk, sizeof junk, want, "600 bytes without a line end");
    is_num(reply(junk, 100, "abcd", why, sizeof why), KV_GET_MORE, 0, "  100 of them: more");
}

/* The Zipf draw against values computed apart from it, with Python's
 * math.fsum over the same 1000 ranks at theta 0.99: zeta = sum of
 * i^-0.99 = 7.728953217284738, so rank 0 takes 1/zeta = 0.1293836 of the
 * draws and rank 1 2^-0.99/zeta = 0.0651418 (both exact in Gray's
 * method); below rank 10 it gives 0.3983456 (its approximation above
 * rank 1: Zipf's own share is 0.3824719), and at u = 0.2, 0.5, 0.9, 0.99
 * the ranks 2, 22, 471, 927 (none within 0.04 of the next). */
static void zipfs(void)
{
    struct zipf z;
    ok(zipf_init(&z, 1, 0.99) < 0 && zipf_init(&z, 10, 1.0) < 0 && zipf_init(&z, 10, 0) < 0, "zipf: bad settings refused");
    ok(zipf_init(&z, 1000, 0.99) == 0, "zipf over 1000 keys, theta 0.99");
    is_num(z.zetan, 7.728953217284738, 1e-9, "  zeta(1000, 0.99) as Python sums it");
    ok(zipf_rank(&z, 0.1) == 0 && zipf_rank(&z, 0.15) == 1 && zipf_rank(&z, 0.2) == 2 && zipf_rank(&z, 0.5) == 22 &&
       zipf_rank(&z, 0.9) == 471 && zipf_rank(&z, 0.99) == 927, "  u 0.1 0.15 0.2 0.5 0.9 0.99: ranks 0 1 2 22 471 927");
    uint64_t counts[1000] = { 0 }, top = 0, outside = 0, n = 200000, x = 1;
    for (uint64_t i = 0; i < n; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t k = zipf_rank(&z, (double)(x >> 11) / 9007199254740992.0);
        if (k < 1000)
            counts[k]++;
        outside += k >= 1000;
        top += k < 10;
    }
    /* 200,000 draws: a share's standard error is at most 0.0011; 4 of them */
    is_num(outside, 0, 0, "200,000 draws: every rank within the keys");
    is_num((double)counts[0] / (double)n, 0.1293836, 0.0045, "  rank 0's share is 1/zeta");
    is_num((double)counts[1] / (double)n, 0.0651418, 0.0045, "  rank 1's 2^-theta/zeta");
    is_num((double)top / (double)n, 0.3983456, 0.0045, "  below rank 10, Gray's share");
    /* The largest u a draw makes, 1 - 2^-53: the formula comes to n
     * itself there (eta u - eta + 1 rounds to 1), so the clamp is what
     * keeps it a key. */
    double top_u = nextafter(1.0, 0.0);
    ok((uint64_t)(1000.0 * pow(z.eta * top_u - z.eta + 1.0, z.alpha)) == 1000, "  at u = 1 - 2^-53 the formula gives n");
    is_num(zipf_rank(&z, top_u), 999, 0, "  and the draw the last key");
}

/* What the client writes is another user's words: in a reason or a
 * record, printable ASCII and at most 120 characters. */
static void words(void)
{
    struct kv_get_report r;
    char line[512], why[128];
    snprintf(line, sizeof line, "gets 1 hits 0 misses 0 errors 1 ns 1 ops_per_s 1000000000.000 first_error "
             "ERROR \033]0;owned\007\033[2J%0200d", 0);
    ok(kv_get_parse(line, &r) == 0 && strlen(r.first_error) == 120 &&
       strncmp(r.first_error, "ERROR ?]0;owned??[2J000", 23) == 0, "first_error: escapes made '?', cut at 120 (%.30s)",
       r.first_error);
    ok(kv_get_failed("failed the server did not answer in time", why, sizeof why) &&
       strcmp(why, "the server did not answer in time") == 0, "a 'failed' line's words");
    snprintf(line, sizeof line, "failed \033[31mred\r\033[2K%0300d", 0);
    ok(kv_get_failed(line, why, sizeof why) && strcmp(why, "?[31mred") == 0, "  escapes made '?', cut at CR (%s)", why);
    snprintf(line, sizeof line, "failed %0300d", 7);
    ok(kv_get_failed(line, why, sizeof why) && strlen(why) == 120, "  at most 120 characters");
    ok(!kv_get_failed("gets 0 hits 0", why, sizeof why) && !kv_get_failed("failedx", why, sizeof why),
       "  another line is none");
}

int main(void)
{
    replies();
    words();

    struct kv_get_report r;
    ok(kv_get_parse("gets 10 hits 8 misses 1 errors 1 ns 5 ops_per_s 2000000000.000 first_error ERROR", &r) == 0 &&
       r.gets == 10 && r.hits == 8 && r.misses == 1 && r.errors == 1 && r.ns == 5 && r.ops_per_s == 2e9 &&
       strcmp(r.first_error, "ERROR") == 0, "the client's report line read back");
    ok(kv_get_parse("gets 10 hits 10 misses 1 errors 0 ns 5 ops_per_s 1.000", &r) < 0, "  counts that do not add up: refused");
    ok(kv_get_parse("gets 10 hits 10 misses 0 errors 0 ns 5 ops_per_s 2000000000.000 x", &r) < 0,
       "  trailing words: refused");
    ok(kv_get_parse("gets 10 hits 10 misses 0 errors 0 ns 5 ops_per_s 1.000", &r) < 0,
       "  a rate that is not gets over ns: refused");
    ok(kv_get_parse("gets 3 hits 3 misses 0 errors 0 ns 7 ops_per_s 428571428.571", &r) == 0 &&
       r.ops_per_s == 428571428.571, "  the rate to its three decimals: taken as written");
    ok(kv_get_parse("gets -1 hits 0 misses 0 errors -1 ns 5 ops_per_s 0.000", &r) < 0, "  a sign: refused");
    ok(kv_get_parse("gets 18446744073709551615 hits 18446744073709551615 misses 1 errors 0 ns 0 ops_per_s 0.000",
                    &r) < 0, "  counts that add up only by wrapping: refused");
    ok(kv_get_parse("gets 0 hits 0 misses 0 errors 0 ns 0 ops_per_s 0.0", &r) < 0 &&
       kv_get_parse("gets 0 hits 0 misses 0 errors 0 ns 0 ops_per_s nan", &r) < 0 &&
       kv_get_parse("gets  0 hits 0 misses 0 errors 0 ns 0 ops_per_s 0.000", &r) < 0,
       "  a rate of another shape, two spaces: refused");
    ok(kv_get_parse("gets 0 hits 0 misses 0 errors 0 ns 0 ops_per_s 0.000", &r) == 0, "  nothing at all, in shape: taken");

    zipfs();
    return done_testing();
}
