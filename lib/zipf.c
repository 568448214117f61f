#include "lib/zipf.h"
#include <math.h>

static double zeta(uint64_t n, double theta)
{
    double s = 0;
    for (uint64_t i = 1; i <= n; i++)
        s += 1.0 / pow((double)i, theta);
    return s;
}

int zipf_init(struct zipf *z, uint64_t n, double theta)
{
    if (!(theta > 0 && theta < 1) || n < 2)
        return -1;
    z->n = n;
    z->theta = theta;
    z->alpha = 1.0 / (1.0 - theta);
    z->zetan = zeta(n, theta);
    z->half_pow = 1.0 + pow(0.5, theta);
    z->eta = (1.0 - pow(2.0 / (double)n, 1.0 - theta)) / (1.0 - zeta(2, theta) / z->zetan);
    return 0;
}

uint64_t zipf_rank(const struct zipf *z, double u)
{
    double uz = u * z->zetan;
    if (uz < 1.0)
        return 0;
    if (uz < z->half_pow)
        return 1;
    uint64_t r = (uint64_t)((double)z->n * pow(z->eta * u - z->eta + 1.0, z->alpha));
    /* Rounding at u near 1 may reach n itself. */
    return r < z->n ? r : z->n - 1;
}
