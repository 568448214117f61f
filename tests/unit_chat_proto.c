/* The chat workload's wire format against the sizes and bytes that
 * ../shared/volanomark-protocol.md gives for VolanoMark 2.13.4. */
#include <fcntl.h>
#include <unistd.h>
#include "workloads/chat/proto.h"
#include "tests/tap.h"

static int hex_eq(const uint8_t *got, size_t n, const char *hex)
{
    char buf[512] = "";
    size_t o = 0;
    for (size_t i = 0; i < n && o + 4 < sizeof buf; i++)
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%02x", i ? " " : "", got[i]);
    if (strcmp(buf, hex) != 0) {
        printf("#   got  %s\n#   want %s\n", buf, hex);
        return 0;
    }
    return 1;
}

int main(void)
{
    uint8_t b[1024];
    struct frame f;

    /* writeUTF("A\0é€😀") from the protocol document, byte for byte. */
    const char s[] = "A\0\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";
    chat_frame_init(&f, b, sizeof b);
    int n = chat_mutf8_encode(s, sizeof s - 1, b + 2, sizeof b - 2);
    b[0] = (uint8_t)(n >> 8);
    b[1] = (uint8_t)n;
    ok(hex_eq(b, (size_t)n + 2, "00 0e 41 c0 80 c3 a9 e2 82 ac ed a0 bd ed b8 80"),
       "modified UTF-8 of A NUL e-acute euro U+1F600 matches Java's writeUTF");
    char back[64];
    int m = chat_mutf8_decode(b + 2, (size_t)n, back, sizeof back);
    ok(m == (int)(sizeof s - 1) && memcmp(back, s, sizeof s - 1) == 0, "and decodes back to the same UTF-8, NUL included");
    static const uint8_t four_byte[] = { 0xf0, 0x9f, 0x98, 0x80 };
    ok(chat_mutf8_decode(four_byte, 4, back, sizeof back) < 0, "a 4-byte form is rejected, as readUTF does");
    static const uint8_t raw_nul[] = { 'a', 0x00 };
    ok(chat_mutf8_decode(raw_nul, 2, back, sizeof back) < 0, "a raw 0x00 byte is rejected");
    static const uint8_t lone[] = { 0xed, 0xa0, 0xbd };
    ok(chat_mutf8_decode(lone, 3, back, sizeof back) < 0, "an unpaired high surrogate is rejected");
    static const uint8_t overlong[] = { 0xc1, 0x81 };
    ok(chat_mutf8_decode(overlong, 2, back, sizeof back) < 0, "an overlong form other than C0 80 is rejected");
    static const uint8_t cut[] = { 0xe2, 0x82 };
    ok(chat_mutf8_decode(cut, 2, back, sizeof back) < 0, "a truncated sequence is rejected");

    chat_frame_init(&f, b, sizeof b);
    chat_build_chat_request(&f, "Room1", "Mark1", CHAT_TEXT);
    is_num(f.len, 87, 0, "Chat request from Mark1 in Room1 is 87 bytes");
    ok(hex_eq(b, 11, "00 cb 00 00 00 01 00 00 00 00 00"), "id 203, REQUEST, question false, roomId 0");
    is_num(strlen(CHAT_TEXT), 60, 0, "the message text is 60 characters");
    chat_frame_init(&f, b, sizeof b);
    chat_build_chat_request(&f, "Room12", "Mark20", CHAT_TEXT);
    is_num(f.len, 89, 0, "Room12/Mark20: 89 bytes");
    chat_frame_init(&f, b, sizeof b);
    chat_build_enter_request(&f, "Room1", "Mark1", "This is the profile for Mark1 in Room1.");
    is_num(f.len, 61, 0, "EnterRoom request is 61 bytes");
    chat_frame_init(&f, b, sizeof b);
    chat_build_exit_request(&f, "Room1", "Mark1");
    is_num(f.len, 20, 0, "ExitRoom request is 20 bytes");
    chat_frame_init(&f, b, sizeof b);
    chat_build_roomlist_request(&f);
    ok(hex_eq(b, f.len, "00 d7 00 00 00 01 00 00 00 00 00 00"), "RoomList request is 00d7 00000001 0000 00000000");
    chat_frame_init(&f, b, sizeof b);
    chat_build_access_request(&f, "Room1");
    ok(b[0] == 0 && b[1] == 1 && b[5] == 1, "Access request: id 1, REQUEST");
    /* Parse it back: exactly 11 strings, the second the applet version. */
    int p[2];
    if (pipe(p) < 0)
        return 1;
    if (write(p[1], b, f.len) != (ssize_t)f.len)
        return 1;
    close(p[1]);
    struct reader rd;
    chat_reader_init(&rd, p[0]);
    uint16_t id;
    int32_t type;
    char first[64], second[64];
    ok(chat_read_u16(&rd, &id) && chat_read_i32(&rd, &type) && chat_read_utf_copy(&rd, first, sizeof first) &&
       chat_read_utf_copy(&rd, second, sizeof second), "the Access request reads back");
    is_str(first, "Room1", "defaultRoom first");
    is_str(second, "2.13.4", "then the applet version");
    int more = 0;
    while (chat_read_utf(&rd, NULL))
        more++;
    is_num(more, 9, 0, "nine more strings: 11 in all, then the end");
    chat_reader_free(&rd);
    close(p[0]);

    /* A short frame is an error, not a hang or a crash. */
    if (pipe(p) < 0)
        return 1;
    static const uint8_t partial[] = { 0x00, 0xcb, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 'R' };
    if (write(p[1], partial, sizeof partial) != (ssize_t)sizeof partial)
        return 1;
    close(p[1]);
    chat_reader_init(&rd, p[0]);
    bool q;
    int32_t rid;
    ok(chat_read_u16(&rd, &id) && chat_read_i32(&rd, &type) && chat_read_bool(&rd, &q) && chat_read_i32(&rd, &rid) &&
       !chat_read_utf(&rd, NULL), "a string cut short by EOF reads as an error");
    chat_reader_free(&rd);
    close(p[0]);

    char t[] = "  123456789 123456789 123456789 123456789 123456789 123456789   ";
    is_num(strlen(chat_trim(t)), 59, 0, "the server's trim leaves 59 characters of Mark's text");

    /* The send time in the text: Mark's 60 characters, the wire unchanged. */
    char st[CHAT_TEXT_LEN + 1];
    chat_stamp_text(st, 1234567890123ull);
    is_str(st, "123456789 123456789 123456789 123456789 @000001234567890123 ", "the stamp replaces Mark's last 20 characters");
    is_num(strlen(st), 60, 0, "60 characters, as Mark's text");
    uint64_t ns = 0;
    ok(chat_text_stamp(st, 60, &ns) && ns == 1234567890123ull, "read back as sent");
    ok(chat_text_stamp(st, 59, &ns) && ns == 1234567890123ull, "and after the server's trim (59 characters)");
    chat_stamp_text(st, 999999999999999999ull);
    ok(chat_text_stamp(st, 60, &ns) && ns == 999999999999999999ull, "18 digits: 31 years of CLOCK_MONOTONIC");
    ok(!chat_text_stamp(CHAT_TEXT, 60, &ns) && !chat_text_stamp(CHAT_TEXT, 59, &ns),
       "Mark's own text (the Java client's) carries no time");
    char badd[] = "123456789 123456789 123456789 123456789 @00000123456789x123 ";
    ok(!chat_text_stamp(badd, 60, &ns), "a non-digit in the stamp: no time");
    char other[] = "923456789 123456789 123456789 123456789 @000001234567890123 ";
    ok(!chat_text_stamp(other, 60, &ns), "another prefix: no time");
    ok(!chat_text_stamp(st, 58, &ns), "cut short: no time");
    return done_testing();
}
