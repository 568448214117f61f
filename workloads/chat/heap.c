#include "workloads/chat/heap.h"
#include <sys/mman.h>

int chat_heap_init(struct chat_heap *h, size_t size, size_t alloc)
{
    h->size = size;
    h->alloc = alloc;
    h->base = NULL;
    atomic_init(&h->off, 0);
    atomic_init(&h->collections, 0);
    pthread_mutex_init(&h->mu, NULL);
    if (size == 0 || alloc == 0)
        return 0;
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return -1;
    h->base = p;
    return 0;
}

void chat_heap_message(struct chat_heap *h)
{
    if (!h->base)
        return;
    for (;;) {
        size_t o = atomic_fetch_add(&h->off, h->alloc);
        if (o + h->alloc <= h->size) {
            /* Distinct words, as objects hold: zram cannot store the page
             * as "same-filled" for free. */
            uint64_t *w = (uint64_t *)(h->base + o);
            for (size_t i = 0; i < h->alloc / sizeof *w; i++)
                w[i] = o + i;
            return;
        }
        pthread_mutex_lock(&h->mu);
        if (atomic_load(&h->off) >= h->size) {
            atomic_store(&h->off, 0);
            atomic_fetch_add(&h->collections, 1);
        }
        pthread_mutex_unlock(&h->mu);
    }
}

void chat_heap_free(struct chat_heap *h)
{
    if (h->base)
        munmap(h->base, h->size);
    h->base = NULL;
    pthread_mutex_destroy(&h->mu);
}
