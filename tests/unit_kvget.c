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

int main(void)
{
    char why[256];
    is_num(str("VALUE key:000000000007 0 4\r\nabcd\r\nEND\r\n", why), KV_GET_HIT, 0, "a whole hit");
    is_num(str("END\r\n", why), KV_GET_MISS, 0, "END alone is a miss, never a hit");
    is_num(str("SERVER_ERROR out of memory\r\n", why), KV_GET_ERROR, 0, "SERVER_ERROR is an error reply");
    is_str(why, "SERVER_ERROR out of memory", "  quoted");
    is_num(str("ERROR\r\n", why), KV_GET_ERROR, 0, "ERROR too");
    const char whole[] = "VALUE key:000000000007 0 4\r\nabcd\r\nEND\r\n";
    int more = 1;
    for (size_t n = 0; n + 1 < sizeof whole - 1; n++)
        more &= reply(whole, n, "abcd", why, sizeof why) == KV_GET_MORE;
    ok(more, "every prefix of a hit waits for more");
    is_num(str("VALUE key:000000000007 0 4\r\nabcX\r\nEND\r\n", why), KV_GET_BAD, 0, "other bytes than stored: bad");
    is_str(why, "get key:000000000007 came back with other bytes than the loader stored", "  said so");
    is_num(str("VALUE key:000000000008 0 4\r\nabcd\r\nEND\r\n", why), KV_GET_BAD, 0, "another key: bad");
    is_num(str("VALUE key:000000000007 0 5\r\nabcde\r\nEND\r\n", why), KV_GET_BAD, 0, "another length: bad");
    is_str(why, "get key:000000000007 came back with flags 0 and 5 bytes; the loader stored flags 0 and 4 bytes",
           "  said so");
    is_num(str("VALUE key:000000000007 1 4\r\nabcd\r\nEND\r\n", why), KV_GET_BAD, 0, "other flags: bad");
    is_num(str("VALUE key:000000000007 0 99999999999\r\n", why), KV_GET_BAD, 0, "an 11-digit length: bad");
    is_num(str("VALUE key:000000000007 0 4 99\r\n", why), KV_GET_BAD, 0, "a CAS nobody asked for: bad");
    is_num(str("VALUE key:000000000007 0 4\r\nabcd\r\nEND\r\nEND\r\n", why), KV_GET_BAD, 0, "bytes after: bad");
    is_num(str("END\r\nX", why), KV_GET_BAD, 0, "bytes after a miss: bad");
    is_num(str("VALUE key:000000000007 0 4\r\nabcd\r\nEXD\r\n", why), KV_GET_BAD, 0, "no END: bad");
    is_num(str("STORED\r\n", why), KV_GET_BAD, 0, "another reply: bad");
    is_str(why, "the reply to get key:000000000007 is of another shape: 'STORED'", "  quoted");
    is_num(str("END\n", why), KV_GET_BAD, 0, "a bare LF: bad");
    is_num(reply("E\0D\r\n", 5, "abcd", why, sizeof why), KV_GET_BAD, 0, "a NUL in the line: bad");
    char junk[600];
    memset(junk, 'x', sizeof junk);
    is_num(reply(junk, sizeof junk, "abcd", why, sizeof why), KV_GET_BAD, 0, "600 bytes without a line end: bad");
    is_num(reply(junk, 100, "abcd", why, sizeof why), KV_GET_MORE, 0, "  100 of them: more");

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

    struct zipf z;
    ok(zipf_init(&z, 1, 0.99) < 0 && zipf_init(&z, 10, 1.0) < 0 && zipf_init(&z, 10, 0) < 0, "zipf: bad settings refused");
    ok(zipf_init(&z, 1000, 0.99) == 0, "zipf over 1000 keys, theta 0.99");
    uint64_t counts[1000] = { 0 }, top = 0, n = 200000, x = 1;
    for (uint64_t i = 0; i < n; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t k = zipf_rank(&z, (double)(x >> 11) / 9007199254740992.0);
        counts[k < 1000 ? k : 0]++;
        top += k < 10;
    }
    /* Rank 0 takes 1/zeta(1000, 0.99), about 13.2% of the draws; the
     * first ten about 38.6%. */
    is_num((double)counts[0] / (double)n, 1.0 / z.zetan, 0.01, "rank 0's share is 1/zeta(n)");
    is_num((double)top / (double)n, 0.386, 0.02, "the ten hottest take their share");
    ok(zipf_rank(&z, 0.999999999) < 1000, "the top of [0, 1) stays within the keys");
    return done_testing();
}
