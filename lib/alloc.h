#ifndef PM_ALLOC_H
#define PM_ALLOC_H
/* Growing arrays, the way git's ALLOC_GROW grows them: the array x has room
 * for alloc elements; ALLOC_GROW(x, n, alloc) makes room for at least n,
 * doubling (so appending one at a time stays linear), and evaluates to 0,
 * or to -1 when out of memory, leaving x and alloc as they were. */
#include <stddef.h>

#define ALLOC_GROW(x, n, alloc) pm_alloc_grow((void **)&(x), sizeof *(x), (n), &(alloc))

int pm_alloc_grow(void **p, size_t elem, size_t need, size_t *alloc);

#endif
