/* Hostile clients against the chat server: the input is up to four
 * clients' byte streams (cut at the bytes FF FF FF FF), served at once
 * over socket pairs by the real server code, threads and rooms included.
 * Properties: no crash, no leak (LeakSanitizer), and every connection
 * ends once its client has said everything (the server never waits
 * forever on a client that broke the protocol or went quiet). */
#include "fuzz/fuzz.h"
#include <signal.h>
#include <string.h>
#include "workloads/chat/server.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    signal(SIGPIPE, SIG_IGN);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint8_t cut[4] = { 0xff, 0xff, 0xff, 0xff };
    const uint8_t *streams[4];
    size_t lens[4], n = 0;
    const uint8_t *p = data, *end = data + size;
    while (n < 4) {
        const uint8_t *c = memmem(p, (size_t)(end - p), cut, sizeof cut);
        streams[n] = p;
        lens[n] = (size_t)((c ? c : end) - p);
        n++;
        if (!c)
            break;
        p = c + sizeof cut;
    }
    FUZZ_ASSERT(chat_server_serve_streams(streams, lens, n) == 0, "a connection outlived its client (%zu clients)", n);
    return 0;
}
