/* bench_stats.h: the order statistics the benchmark programs report
 * (header-only: each program is one translation unit). */
#ifndef EE_BENCH_STATS_H
#define EE_BENCH_STATS_H

#include <stdlib.h>

static int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts t[0..n) in place and returns its median (n >= 1; the mean of the
 * middle two for even n). */
static double bench_median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, bench_cmp_double);
    return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

#endif
