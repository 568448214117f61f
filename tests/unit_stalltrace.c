/* The stall tracer's decoding of ring-buffer pages, built here byte by byte
 * as the kernel lays them out (every kind of record: small and large data,
 * time extends, absolute stamps, padding, a page that lost events), the
 * pairing of begins and ends across CPUs and nesting, and the log-linear
 * histogram's error bound. The real buffers are read in t26. */
#include <stdlib.h>
#include "collectors/stalltrace.h"
#include "lib/loghist.h"
#include "tests/tap.h"

static const char header_page[] =
    "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
    "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
    "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
    "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

static const char fmt_begin[] =
    "name: mm_vmscan_memcg_reclaim_begin\nID: 636\nformat:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
    "\tfield:int order;\toffset:8;\tsize:4;\tsigned:1;\n"
    "\tfield:unsigned long gfp_flags;\toffset:16;\tsize:8;\tsigned:0;\n\nprint fmt: \"order=%d\"\n";

struct page { uint8_t b[4096]; size_t len; uint64_t ts; };

static void page_init(struct page *p, uint64_t ts)
{
    memset(p, 0, sizeof *p);
    memcpy(p->b, &ts, 8);
    p->len = 16;
}

static void put32(struct page *p, uint32_t v) { memcpy(p->b + p->len, &v, 4); p->len += 4; }

/* An event of type id for pid, delta ns after the previous record; big
 * selects the type_len 0 form (length in array[0]). */
static void event(struct page *p, unsigned delta, int id, int pid, bool big)
{
    uint8_t payload[24] = { 0 };
    uint16_t t = (uint16_t)id;
    memcpy(payload, &t, 2);
    memcpy(payload + 4, &pid, 4);
    if (big) {
        put32(p, delta << 5);
        put32(p, 4 + sizeof payload);
    } else {
        put32(p, (delta << 5) | (sizeof payload / 4));
    }
    memcpy(p->b + p->len, payload, sizeof payload);
    p->len += sizeof payload;
}

static void extend(struct page *p, uint64_t delta)
{
    put32(p, (uint32_t)((delta & ((1u << 27) - 1)) << 5) | 30);
    put32(p, (uint32_t)(delta >> 27));
}

static void padding(struct page *p, uint32_t bytes)
{
    put32(p, (7u << 5) | 29);
    put32(p, bytes);
    p->len += bytes - 4;
}

static void finish(struct page *p, uint64_t flags)
{
    uint64_t commit = (p->len - 16) | flags;
    memcpy(p->b + 8, &commit, 8);
}

int main(void)
{
    struct rb_layout l;
    ok(rb_layout_parse(header_page, &l) == 0 && l.commit_off == 8 && l.commit_size == 8 && l.data_off == 16,
       "header_page gives the commit word at 8 and the data at 16");
    int id;
    size_t toff, tsize, poff;
    ok(stall_format_parse(fmt_begin, &id, &toff, &tsize, &poff) == 0 && id == 636 && toff == 0 && tsize == 2 &&
       poff == 4, "a format file gives the event's ID and where common_type and common_pid are");
    ok(stall_format_parse("name: x\nformat:\n", &id, &toff, &tsize, &poff) < 0, "a format without an ID is refused");

    struct stall_events ev = { .id = { { 10, 11 }, { 20, 21 }, { 30, 31 } }, .type_off = 0, .type_size = 2, .pid_off = 4 };
    struct stall_result res;
    memset(&res, 0, sizeof res);
    struct stall_pending *pend = NULL;

    /* CPU 0: task 7 begins memcg reclaim at 1000; task 8 at 1000 + 100 +
     * 2^30 (after a time extend), a large record; padding of a discarded
     * event; task 9 begins and ends direct reclaim (5000 ns). */
    struct page a;
    page_init(&a, 1000);
    event(&a, 0, 20, 7, false);
    extend(&a, (1ull << 30));
    event(&a, 100, 20, 8, true);
    padding(&a, 32);
    event(&a, 10, 10, 9, false);
    event(&a, 5000, 11, 9, false);
    finish(&a, 0);
    /* CPU 1: task 7 ends memcg reclaim at 1000 + 250,000 (it moved CPUs),
     * and task 8 ends at its begin + 3,000,000; this page says events
     * were lost before it (3, stored after the data). */
    struct page b;
    page_init(&b, 1000);
    event(&b, 250000, 21, 7, false);
    extend(&b, (1ull << 30) + 100 - 250000 + 3000000);
    event(&b, 0, 21, 8, false);
    finish(&b, (1ull << 31) | (1ull << 30));
    long lost = 3;
    memcpy(b.b + b.len, &lost, sizeof lost);

    ok(stall_decode_page(&l, &ev, &pend, a.b, sizeof a.b, &res) == 0, "a page of every record kind decodes");
    ok(stall_decode_page(&l, &ev, &pend, b.b, sizeof b.b, &res) == 0, "the second CPU's page decodes");
    is_num(res.events, 6, 0, "six events (the padding is none)");
    is_num(res.lost, 3, 0, "the page's stored count of lost events is read");
    ok(stall_pair_upto(&pend, UINT64_MAX, &res) == 0, "paired in time order across CPUs");
    is_num(res.hist[STALL_MEMCG].count, 2, 0, "two memcg stalls, each begun on one CPU and ended on the other");
    is_num(res.hist[STALL_MEMCG].min, 250000, 0, "task 7 stalled 250 us");
    is_num(res.hist[STALL_MEMCG].max, 3000000, 0, "task 8 stalled 3 ms (across two time extends)");
    is_num(res.hist[STALL_DIRECT].count, 1, 0, "one direct reclaim stall");
    is_num(res.hist[STALL_DIRECT].max, 5000, 0, "of 5 us");
    is_num(res.unpaired[STALL_MEMCG] + res.unpaired[STALL_DIRECT], 0, 0, "nothing unpaired");

    /* Nesting: begin, begin, end, end of one task is one stall, outermost. */
    struct page c;
    page_init(&c, 5000000000ull);
    event(&c, 0, 20, 42, false);
    event(&c, 100, 20, 42, false);
    event(&c, 100, 21, 42, false);
    event(&c, 100, 21, 42, false);
    event(&c, 100, 31, 43, false);          /* an end whose begin came before tracing */
    finish(&c, 0);
    ok(stall_decode_page(&l, &ev, &pend, c.b, sizeof c.b, &res) == 0 && stall_pair_upto(&pend, UINT64_MAX, &res) == 0,
       "a page of nested reclaim decodes");
    is_num(res.hist[STALL_MEMCG].count, 3, 0, "the nested pair is one stall");
    is_num(res.nested[STALL_MEMCG], 1, 0, "counted as nested once");
    /* The other two memcg stalls are 250 us and 3 ms: the least is this one,
     * outermost begin to outermost end (200 or 100 would be an inner pair). */
    is_num(res.hist[STALL_MEMCG].min, 300, 0, "of 300 ns, its first begin to its last end");
    is_num(res.hist[STALL_MEMCG].max, 3000000, 0, "  (the maximum stays task 8's)");
    is_num(res.unpaired[STALL_COMPACTION], 1, 0, "an end without its begin is counted unpaired");

    /* Holding back: events later than upto wait. */
    struct page d;
    page_init(&d, 9000000000ull);
    event(&d, 0, 30, 50, false);
    event(&d, 1000, 31, 50, false);
    finish(&d, 0);
    stall_decode_page(&l, &ev, &pend, d.b, sizeof d.b, &res);
    stall_pair_upto(&pend, 9000000500ull, &res);
    is_num(res.hist[STALL_COMPACTION].count, 0, 0, "an end later than the watermark waits");
    stall_pair_upto(&pend, UINT64_MAX, &res);
    is_num(res.hist[STALL_COMPACTION].count, 1, 0, "and is paired once the watermark passes it");

    /* Malformed pages are refused, never read past. */
    struct page e;
    page_init(&e, 1);
    put32(&e, (1u << 5) | 0);     /* type_len 0 with a length past the data */
    put32(&e, 4000);
    finish(&e, 0);
    ok(stall_decode_page(&l, &ev, &pend, e.b, sizeof e.b, &res) < 0, "a record longer than the page is refused");
    uint64_t huge = 5000;
    memcpy(e.b + 8, &huge, 8);
    ok(stall_decode_page(&l, &ev, &pend, e.b, sizeof e.b, &res) < 0, "a commit beyond the page is refused");
    ok(stall_decode_page(&l, &ev, &pend, e.b, 10, &res) < 0, "a short read is refused");
    stall_pending_free(&pend);
    for (int k = 0; k < STALL_KINDS; k++)
        loghist_free(&res.hist[k]);

    /* The histogram: every value lands in a bucket that holds it, buckets
     * are at most 1/64 of their lower bound wide, percentiles within 0.8%. */
    int bad = 0;
    for (uint64_t v = 0; v < 100000; v += 7) {
        uint64_t lo, hi;
        loghist_bounds(loghist_index(v), &lo, &hi);
        if (v < lo || v > hi || (lo >= 128 && (hi - lo + 1) * 64 > lo))
            bad++;
    }
    uint64_t lo, hi;
    loghist_bounds(loghist_index(UINT64_MAX), &lo, &hi);
    ok(loghist_index(UINT64_MAX) < LOGHIST_BUCKETS && hi == UINT64_MAX, "the largest value has the last bucket");
    is_num(bad, 0, 0, "buckets hold their values and are at most 1/64 wide");
    struct loghist h = { 0 }, h2 = { 0 };
    for (uint64_t v = 1; v <= 100000; v++)
        loghist_record(&h, v * 1000);
    double p50 = loghist_percentile(&h, 50), p99 = loghist_percentile(&h, 99);
    ok(p50 > 50000000 * 0.992 && p50 < 50000000 * 1.008, "p50 of 1..100000 us within 0.8%% (%.0f ns)", p50);
    ok(p99 > 99000000 * 0.992 && p99 < 99000000 * 1.008, "p99 within 0.8%% (%.0f ns)", p99);
    is_num(loghist_percentile(&h, 100), 100000000, 0, "p100 is the maximum, exactly");
    for (size_t i = 0; i < LOGHIST_BUCKETS; i++)
        if (h.b[i]) {
            loghist_bounds(i, &lo, &hi);
            loghist_add_bucket(&h2, lo, h.b[i]);
        }
    ok(h2.count == h.count && fabs(loghist_percentile(&h2, 99) - p99) < p99 * 0.008,
       "a histogram rebuilt from its stored buckets gives the same percentiles");
    loghist_free(&h);
    loghist_free(&h2);
    return done_testing();
}
