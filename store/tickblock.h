#ifndef PM_STORE_TICKBLOCK_H
#define PM_STORE_TICKBLOCK_H
/* A block of ticks as stored (schema 8): for each series, one row (a
 * piece) holding its values over the block's ticks in a form SQLite's own
 * functions read, so the sample view gives one series of one run by
 * reading only that series' pieces, each value on its own, with no sums
 * over ticks (a window function costs some 1 us a row, five times what a
 * plain table's row costs):
 *
 *   value at the piece's k-th tick = base + scale * x_k
 *
 * scale is the greatest common divisor of the values' differences
 * (memory.stat's bytes come in pages, PSI's averages in hundredths) and
 * the piece is one of:
 *   constant  no text, width 0: every tick holds base;
 *   dense     a BLOB of n elements of `width` bytes each: x_k + an offset
 *             as one UTF-8 character of 1 to 4 bytes (width 1-4: up to 7,
 *             11, 15.7 and 20 bits), or as 2 or 3 characters of 4 bytes,
 *             20 bits each, most significant first (width 8, 12). SQL
 *             reads element k with unicode(substr(vals, k * width + 1,
 *             width)), a blob's substr being O(1); base holds minus the
 *             offsets (scale times 1, 0x80, 0x800 or 0x10000 a
 *             character), so SQL adds nothing. Five to seven bits a byte,
 *             where decimal digits hold 3.3;
 *   runs      "[[k,len,x],...]" (JSON), x from tick k for len ticks, the
 *             runs in order and covering the piece, for series that
 *             change seldom, and for values that no width holds.
 * Whichever is shortest. Integers are exact; real values (PSI averages)
 * are fixed-point millionths, as in tickcodec.h. A range wider than int64
 * (a counter near 2^63 that wraps) is stored as runs with base 0 and
 * scale 1. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Ticks in a block at most, and a piece's text at most: a row stays within
 * its b-tree page (SQLite moves a WITHOUT ROWID row's bytes beyond about
 * 1,000 to overflow pages of their own, mostly empty). A block also ends
 * early when a series' dense text would pass TICK_PIECE_MAX. */
#define TICK_BLOCK_MAX 256
/* A run's series at the most, far above any real run's (some 300 to 600):
 * what a database from elsewhere may hold before it is refused, so reading
 * it costs what a run could make. */
#define TICK_MAX_SERIES 10000
#define TICK_PIECE_MAX 960

enum tick_form { TICK_CONST = 0, TICK_DENSE = 1, TICK_RUNS = 2 };

struct tick_piece {
    int64_t base, scale;
    int width;                /* dense: bytes an element; else 0 */
    enum tick_form form;
    char *text;               /* dense fields or runs JSON, NUL-terminated; "" when constant */
    size_t len, cap;
};

void tick_piece_init(struct tick_piece *p);
void tick_piece_free(struct tick_piece *p);
/* Encode v[0..n) (n >= 1). -1 only when out of memory. */
int tick_piece_encode(struct tick_piece *p, const int64_t *v, size_t n);
/* Decode a stored piece of n ticks into out[0..n). -1 when text is not
 * what tick_piece_encode writes for n ticks (a database from elsewhere):
 * the cost is the text's length, whatever it claims. */
int tick_piece_decode(enum tick_form form, int64_t base, int64_t scale, int width, const char *text, size_t len,
                      int64_t *out, size_t n);

/* The most bytes a dense piece of n ticks whose values span range takes
 * (before the common divisor; 30 a tick, a run's most, when no width holds
 * it): the
 * writer ends a block before it passes TICK_PIECE_MAX. */
size_t tick_dense_bound(uint64_t range, size_t n);

/* One value of an open tick's JSON array ("[v,null,...]"): an integer, or a
 * real from its fixed-point millionths, exactly. buf holds 32 bytes. */
int tick_format_value(char *buf, int64_t v, bool real);
/* Parse an open tick's JSON array of at most n values (nulls where a
 * series had no value yet; a row written before later series appeared is
 * shorter): acc[i] set and have[i] true where a value stands. -1 when it
 * is not such an array. */
int tick_parse_open(const char *text, size_t len, const bool *real, int64_t *acc, bool *have, size_t n);

#endif
