#ifndef PM_CHAT_HEAP_H
#define PM_CHAT_HEAP_H
/* A heap that behaves like the reports' JVM heaps: every message sent or
 * received allocates msg_alloc bytes from a bump pointer and writes them;
 * when the heap is full a "collection" starts again at its beginning. As
 * the pointer cycles the whole heap is touched, so a cap below the heaps
 * makes the chat swap, as in the 2002 VolanoMark report. */
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct chat_heap {
    uint8_t *base;
    size_t size, alloc;
    atomic_size_t off;
    atomic_uint_fast64_t collections;
    pthread_mutex_t mu;
};

/* size 0 disables the heap. -1 when it cannot be mapped. */
int chat_heap_init(struct chat_heap *h, size_t size, size_t alloc);
void chat_heap_message(struct chat_heap *h);
void chat_heap_free(struct chat_heap *h);

#endif
