#ifndef PM_KVGET_REPLY_H
#define PM_KVGET_REPLY_H
/* One memcached text-protocol reply to "get KEY", read strictly: the
 * server's bytes are data, never trusted to be the shape asked for. */
#include <stddef.h>

enum kv_get_reply {
    KV_GET_MORE,     /* not whole yet: read more (the buffer is big enough) */
    KV_GET_HIT,      /* VALUE KEY 0 LEN, the stored bytes, END */
    KV_GET_MISS,     /* END alone */
    KV_GET_ERROR,    /* SERVER_ERROR ..., CLIENT_ERROR ..., ERROR: counted */
    KV_GET_BAD,      /* anything else: why says what */
};

/* The longest first line a reply to our get may have ("VALUE", the key,
 * flags and length): more, and the server is not answering our get. */
#define KV_GET_LINE_MAX 512
/* What a reply to "get key" in buf[0..have) is. want is the value the
 * loader stored (vlen bytes). have past the reply's end is KV_GET_BAD:
 * one get is in flight, nothing else may arrive. why gets the reason for
 * KV_GET_BAD and the error line for KV_GET_ERROR. */
enum kv_get_reply kv_get_reply(const char *buf, size_t have, const char *key, const char *want, size_t vlen,
                               char *why, size_t wlen);

#endif
