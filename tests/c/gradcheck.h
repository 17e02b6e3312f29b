/* gradcheck.h: helpers for checking float32 libcore results against
 * independent double-precision computations in the C tests: seeded random
 * fills, central finite differences, and a comparison that prints the
 * observed error next to the bound and counts one CHECK.
 *
 * Error measure used throughout: max_i |got_i - ref_i| <= rtol * scale,
 * where scale is max_i |ref_i| (or a larger floor given by the caller when
 * the reference itself is nearly zero, e.g. a gradient that vanishes in
 * exact arithmetic). */
#ifndef EE_GRADCHECK_H
#define EE_GRADCHECK_H

#include "check.h"
#include "ee.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* The OpenMP team of the parallel regions that follow (the tests that
 * compare 1 and 2 threads); nothing in a build without OpenMP. */
static inline void gc_set_threads(int n)
{
#ifdef _OPENMP
    omp_set_num_threads(n);
#else
    (void)n;
#endif
}

/* The attribution options of a test's call: the defaults, on the CPU
 * (the CPU results are the ones compared bit for bit), without progress
 * lines. */
static inline void gc_cpu_options(EeAttrOptions *o)
{
    ee_attr_options_defaults(o);
    o->verbose = 0;
    o->device = EE_DEVICE_CPU;
}

/* EE_TEST_QUICK=1 (e.g. under valgrind): smaller problems, fewer samples. */
static inline int gc_quick(void)
{
    const char *q = getenv("EE_TEST_QUICK");
    return q && *q && strcmp(q, "0") != 0;
}

/* EE_TEST_VERBOSE=1 prints every comparison, not only failures. */
static inline int gc_verbose(void)
{
    const char *q = getenv("EE_TEST_VERBOSE");
    return q && *q && strcmp(q, "0") != 0;
}

static inline void *gc_alloc(size_t bytes)
{
    void *p = calloc(1, bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "out of memory (%zu bytes)\n", bytes);
        exit(99);
    }
    return p;
}

/* ---- seeded random fills ------------------------------------------------- */
static inline double gc_unif(EeRng *r, double lo, double hi)
{
    return lo + (hi - lo) * ee_rng_uniform(r);
}

static inline void gc_fill_f(EeRng *r, float *x, size_t n, double lo, double hi)
{
    for (size_t i = 0; i < n; i++) x[i] = (float)gc_unif(r, lo, hi);
}

static inline void gc_fill_normal_f(EeRng *r, float *x, size_t n, double mean, double sd)
{
    for (size_t i = 0; i < n; i++) x[i] = (float)(mean + sd * ee_rng_normal(r));
}

static inline void gc_fill_normal_d(EeRng *r, double *x, size_t n, double mean, double sd)
{
    for (size_t i = 0; i < n; i++) x[i] = mean + sd * ee_rng_normal(r);
}

static inline void gc_f2d(const float *x, double *y, size_t n)
{
    for (size_t i = 0; i < n; i++) y[i] = x[i];
}

static inline void gc_d2f(const double *x, float *y, size_t n)
{
    for (size_t i = 0; i < n; i++) y[i] = (float)x[i];
}

/* ---- measures -------------------------------------------------------------- */
static inline double gc_maxabs_d(const double *x, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++) m = fmax(m, fabs(x[i]));
    return m;
}

static inline double gc_maxabs_f(const float *x, size_t n)
{
    double m = 0;
    for (size_t i = 0; i < n; i++) m = fmax(m, fabs((double)x[i]));
    return m;
}

static inline int gc_all_finite(const float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i])) return 0;
    return 1;
}

/* One CHECK: max|got - ref| <= rtol * max(max|ref|, floor), through
 * check.h's comparison (a non-finite value fails). Returns the relative
 * error err / scale (inf when something was not finite). */
static inline double gc_check_close(const char *what, const float *got, const double *ref,
                                    size_t n, double rtol, double floor_scale)
{
    CheckCmp c = CMP_INIT;
    cmp_add_fd(&c, got, ref, n);
    double scale = fmax(c.scale, floor_scale);
    if (!(scale > 0)) scale = 1e-300;
    if (n == 0) { /* nothing to compare (every sample left out) is not a failure of the code */
        if (gc_verbose()) printf("  %-44s nothing compared\n", what);
        return 0;
    }
    CHECK_CMP(c, rtol * scale, "%s: max|err| %.3g > %.1g * scale %.3g", what, c.err, rtol, scale);
    if (gc_verbose()) printf("  %-44s err %.3g  scale %.3g  rel %.2g\n", what, c.err, scale, c.err / scale);
    return c.err / scale;
}

/* One CHECK that got equals ref exactly. */
static inline void gc_check_equal_f(const char *what, const float *got, const float *ref, size_t n)
{
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n; i++)
        if (!(got[i] == ref[i])) { if (!bad) first = i; bad++; }
    CHECK(bad == 0, "%s: %zu of %zu differ (first %zu: %.9g vs %.9g)", what, bad, n, first,
          n ? (double)got[first] : 0.0, n ? (double)ref[first] : 0.0);
}

/* ---- finite differences ------------------------------------------------------ */
/* Central difference of f at x along coordinate i: (f(x+h e_i) - f(x-h e_i)) / 2h,
 * x restored afterwards. */
typedef double (*gc_fun)(void *ctx);

static inline double gc_fd1(gc_fun f, void *ctx, double *xi, double h)
{
    double v = *xi;
    *xi = v + h;
    double fp = f(ctx);
    *xi = v - h;
    double fm = f(ctx);
    *xi = v;
    return (fp - fm) / (2 * h);
}

/* Indices to check in a tensor of n elements: all of them when n <= cap,
 * otherwise cap distinct indices drawn without replacement (sorted). */
static inline size_t gc_sample(EeRng *r, size_t n, size_t cap, size_t *idx)
{
    if (n <= cap) {
        for (size_t i = 0; i < n; i++) idx[i] = i;
        return n;
    }
    /* selection sampling (Knuth's Algorithm S): sorted, uniform */
    size_t k = 0;
    for (size_t i = 0; i < n && k < cap; i++)
        if ((double)(n - i) * ee_rng_uniform(r) < (double)(cap - k)) idx[k++] = i;
    return k;
}

/* Upper quantile of chi-square with k degrees of freedom at standard normal
 * deviate z (Wilson-Hilferty); z = 4 is a one-sided p of about 3e-5. */
static inline double gc_chi2_quantile(int k, double z)
{
    double a = 2.0 / (9.0 * k);
    double c = 1 - a + z * sqrt(a);
    return k * c * c * c;
}

#endif
