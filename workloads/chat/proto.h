#ifndef PM_CHAT_PROTO_H
#define PM_CHAT_PROTO_H
/* VolanoMark 2.13.4's wire protocol (../shared/volanomark-protocol.md):
 * frames of u16 id + i32 type + fields, big-endian, strings as Java's
 * writeUTF (u16 length + modified UTF-8). No length prefix, so a frame is
 * parsed field by field; anything unexpected ends the connection. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { CHAT_REQUEST = 1, CHAT_INDICATION = 2, CHAT_RESPONSE = 3, CHAT_CONFIRM = 4 };
enum {
    PKT_ACCESS = 1, PKT_ERROR = 102, PKT_CHAT = 203, PKT_ENTER_ROOM = 206, PKT_EXIT_ROOM = 208,
    PKT_PING = 213, PKT_ROOM_LIST = 215,
};
enum { ACCESS_OKAY = 1, ACCESS_VERSION_DENIED = 4 };
enum { ENTER_OKAY = 1, ENTER_NAME_TAKEN = 3, ENTER_NO_SUCH_ROOM = 5 };

#define CHAT_APPLET_VERSION "2.13.4"
/* Mark's message: "123456789 " six times, 60 characters, trailing blank. */
#define CHAT_TEXT "123456789 123456789 123456789 123456789 123456789 123456789 "
#define CHAT_MAX_STR 65535
/* pressmark's message: Mark's first 40 characters, then '@', the send
 * time (CLOCK_MONOTONIC ns, 18 digits) and the trailing blank: the same
 * 60 characters on the wire, so a server that only relays text relays it,
 * and a receiver can time the delivery. */
#define CHAT_STAMP_AT 40
#define CHAT_STAMP_DIGITS 18
#define CHAT_TEXT_LEN 60

/* Mark's text carrying ns; out holds CHAT_TEXT_LEN + 1. */
void chat_stamp_text(char *out, uint64_t ns);
/* The send time in text (len bytes, trimmed or not), if it carries one. */
bool chat_text_stamp(const char *text, size_t len, uint64_t *ns);

/* Modified UTF-8 from standard UTF-8 (which may hold NUL, given len).
 * Returns the encoded length, or -1 for invalid UTF-8 or too long. */
int chat_mutf8_encode(const char *utf8, size_t len, uint8_t *out, size_t cap);
/* Standard UTF-8 from modified UTF-8; strict: -1 for 4-byte forms, bad
 * continuations, overlong forms other than C0 80, unpaired surrogates. */
int chat_mutf8_decode(const uint8_t *in, size_t len, char *out, size_t cap);

/* A frame being built. */
struct frame {
    uint8_t *buf;
    size_t len, cap;
    bool bad;                    /* a string did not fit or was invalid */
};
void chat_frame_init(struct frame *f, uint8_t *storage, size_t cap);
void chat_frame_u16(struct frame *f, uint16_t v);
void chat_frame_i32(struct frame *f, int32_t v);
void chat_frame_bool(struct frame *f, bool v);
void chat_frame_u8(struct frame *f, uint8_t v);
void chat_frame_utf(struct frame *f, const char *s);

/* Reading frames from a socket, buffered. */
struct reader {
    int fd;
    uint8_t buf[8192];
    size_t pos, len;
    uint8_t *raw;                /* a string's wire bytes; grown on demand */
    size_t rawcap;
    char *str;                   /* the last string read, as UTF-8 (decoding never grows it) */
    size_t strcap;
};
void chat_reader_init(struct reader *r, int fd);
void chat_reader_free(struct reader *r);
/* Each returns false on EOF, error or malformed data. */
bool chat_read_u16(struct reader *r, uint16_t *v);
bool chat_read_i32(struct reader *r, int32_t *v);
bool chat_read_bool(struct reader *r, bool *v);
bool chat_read_u8(struct reader *r, uint8_t *v);
/* Reads a string into r->str (NUL-terminated; *len its byte length). */
bool chat_read_utf(struct reader *r, size_t *len);
/* Read a string and copy it (up to cap - 1 bytes; longer is malformed). */
bool chat_read_utf_copy(struct reader *r, char *dst, size_t cap);

/* Frames Mark sends, built into f. */
void chat_build_access_request(struct frame *f, const char *room);
void chat_build_enter_request(struct frame *f, const char *room, const char *user, const char *profile);
void chat_build_chat_request(struct frame *f, const char *room, const char *user, const char *text);
void chat_build_exit_request(struct frame *f, const char *room, const char *user);
void chat_build_roomlist_request(struct frame *f);

/* Trim leading and trailing blanks in place, as the server does with names and text. */
char *chat_trim(char *s);

#endif
