#include "lib/alloc.h"
#include <stdint.h>
#include <stdlib.h>

int pm_alloc_grow(void **p, size_t elem, size_t need, size_t *alloc)
{
    if (need <= *alloc)
        return 0;
    size_t cap = *alloc < 8 ? 16 : *alloc;
    while (cap < need) {
        if (cap > SIZE_MAX / 2)
            return -1;
        cap *= 2;
    }
    if (cap > SIZE_MAX / elem)
        return -1;
    void *v = realloc(*p, cap * elem);
    if (!v)
        return -1;
    *p = v;
    *alloc = cap;
    return 0;
}
