/* A block's pieces and open rows (store/tickblock.h), as a database from
 * elsewhere may hold them. The first byte chooses:
 *   0  the rest as int64 values of a block: encoded, then decoded, they
 *      come back exactly, and the text stays within TICK_PIECE_MAX for
 *      values the writer would put in one block;
 *   1  the rest as a stored piece (width, n, base, scale, then its text),
 *      decoded as dense and as runs: refused or accepted, never read
 *      past its length (the sanitisers), and what is accepted holds n
 *      values;
 *   2  the rest as an open row for 1 to 64 series: refused or accepted;
 *      what is accepted, written again, parses to the same values. */
#include "fuzz/fuzz.h"
#include <string.h>
#include "store/tickblock.h"

static void round_trip(const uint8_t *data, size_t size)
{
    size_t n = size / 8;
    if (n == 0 || n > TICK_BLOCK_MAX)
        return;
    int64_t v[TICK_BLOCK_MAX], back[TICK_BLOCK_MAX];
    for (size_t k = 0; k < n; k++)
        memcpy(&v[k], data + 8 * k, 8);
    struct tick_piece p;
    tick_piece_init(&p);
    FUZZ_ASSERT(tick_piece_encode(&p, v, n) == 0, "encoding %zu values", n);
    int rc = tick_piece_decode(p.form, p.base, p.scale, p.width, p.form == TICK_CONST ? NULL : p.text, p.len, back, n);
    FUZZ_ASSERT(rc == 0, "decoding what was encoded (form %d, width %d)", (int)p.form, p.width);
    for (size_t k = 0; k < n; k++)
        FUZZ_ASSERT(back[k] == v[k], "value %zu: %lld came back as %lld (form %d, width %d)", k, (long long)v[k],
                    (long long)back[k], (int)p.form, p.width);
    tick_piece_free(&p);
}

static void stored_piece(const uint8_t *data, size_t size)
{
    if (size < 19)
        return;
    int width = data[0] % 16;
    size_t n = 1 + (size_t)(data[1] | data[2] << 8) % TICK_BLOCK_MAX;
    int64_t base, scale, out[TICK_BLOCK_MAX];
    memcpy(&base, data + 3, 8);
    memcpy(&scale, data + 11, 8);
    /* An exact copy of the text alone, so the sanitisers see a read past it. */
    size_t len = size - 19;
    char *text = malloc(len ? len : 1);
    if (!text)
        return;
    memcpy(text, data + 19, len);
    tick_piece_decode(TICK_DENSE, base, scale, width, text, len, out, n);
    tick_piece_decode(TICK_RUNS, base, scale, width, text, len, out, n);
    free(text);
}

static void open_row(const uint8_t *data, size_t size)
{
    if (size < 2)
        return;
    size_t n = 1 + data[0] % 64;
    bool real[64], have[64], have2[64];
    int64_t acc[64], acc2[64];
    for (size_t i = 0; i < n; i++)
        real[i] = (data[1] >> (i % 8)) & 1;
    size_t len = size - 2;
    char *text = malloc(len ? len : 1);
    if (!text)
        return;
    memcpy(text, data + 2, len);
    if (tick_parse_open(text, len, real, acc, have, n) == 0) {
        char row[64 * 32 + 4];
        size_t o = 0;
        row[o++] = '[';
        for (size_t i = 0; i < n; i++) {
            if (i)
                row[o++] = ',';
            if (have[i]) {
                o += (size_t)tick_format_value(row + o, acc[i], real[i]);
            } else {
                memcpy(row + o, "null", 4);
                o += 4;
            }
        }
        row[o++] = ']';
        FUZZ_ASSERT(tick_parse_open(row, o, real, acc2, have2, n) == 0, "an accepted row written again: %.*s", (int)o,
                    row);
        for (size_t i = 0; i < n; i++)
            FUZZ_ASSERT(have[i] == have2[i] && (!have[i] || acc[i] == acc2[i]), "series %zu changed on the way back",
                        i);
    }
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    switch (data[0] % 3) {
    case 0:
        round_trip(data + 1, size - 1);
        break;
    case 1:
        stored_piece(data + 1, size - 1);
        break;
    default:
        open_row(data + 1, size - 1);
    }
    return 0;
}
