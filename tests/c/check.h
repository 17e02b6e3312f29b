/* check.h: a minimal test harness for the C tests.
 *
 * Three kinds of assertion, counted apart so that the closing line says
 * how many results were checked:
 *  - CHECK(cond, ...) checks a result (a number, a status that is the
 *    behaviour under test, an error message): one pass or one failure;
 *  - REQUIRE(cond, ...) and CHECK_OK(expr) check bookkeeping (an
 *    allocation, a setup call's status, the shape of a reference's own
 *    parameters): a failure fails the program like any other, a success
 *    is not counted as a pass (it checked no result);
 *  - SKIP(...) records a check that could not run here, with its reason.
 * Every numerical comparison goes through CheckCmp (cmp_add, CHECK_CMP):
 * fmax-style accumulation ignores NaN, so an all-NaN output would compare
 * as error 0; here a non-finite value on either side fails the comparison
 * (the references of these tests are finite), and so does a comparison of
 * nothing.
 *
 * The program prints the number of bookkeeping checks, then as its last
 * line "NAME: N passed, N failed, N skipped", and exits non-zero on any
 * failure; a program that skips as a whole exits 77 (automake). */
#ifndef EE_CHECK_H
#define EE_CHECK_H

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

static int check_passed, check_failed, check_skipped;
static long check_setup; /* bookkeeping checks that held */

#define CHECK(cond, ...)                                              \
    do {                                                              \
        if (cond) check_passed++;                                     \
        else {                                                        \
            check_failed++;                                           \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);      \
            fprintf(stderr, __VA_ARGS__);                             \
            fprintf(stderr, "\n");                                    \
        }                                                             \
    } while (0)

#define REQUIRE(cond, ...)                                            \
    do {                                                              \
        if (cond) check_setup++;                                      \
        else {                                                        \
            check_failed++;                                           \
            fprintf(stderr, "FAIL (setup) %s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                             \
            fprintf(stderr, "\n");                                    \
        }                                                             \
    } while (0)

#define CHECK_OK(expr)                                                                    \
    do {                                                                                  \
        EeStatus st_ = (expr);                                                            \
        REQUIRE(st_ == EE_OK, "%s -> %s: %s", #expr, ee_status_id(st_), ee_last_error()); \
    } while (0)

#define SKIP(...)                                                     \
    do {                                                              \
        check_skipped++;                                              \
        printf("SKIP %s:%d: ", __FILE__, __LINE__);                   \
        printf(__VA_ARGS__);                                          \
        printf("\n");                                                 \
    } while (0)

/* ---- numerical comparison ------------------------------------------------ */
/* max |got - ref| over the pairs added, max |ref| (the scale), and the
 * pairs where either side is not finite. */
typedef struct {
    double err, scale;
    size_t n, nonfinite, at; /* at: index (in adding order) of the largest error */
    double got_at, ref_at;
} CheckCmp;

#define CMP_INIT {0, 0, 0, 0, 0, 0, 0}

static inline void cmp_add(CheckCmp *c, double got, double ref)
{
    if (!isfinite(got) || !isfinite(ref)) {
        if (!c->nonfinite++) { c->at = c->n; c->got_at = got; c->ref_at = ref; } /* the first one */
        c->err = INFINITY;
    } else {
        double d = fabs(got - ref);
        if (d > c->err || c->n == 0) { c->err = d; c->at = c->n; c->got_at = got; c->ref_at = ref; }
        if (fabs(ref) > c->scale) c->scale = fabs(ref);
    }
    c->n++;
}

/* a pair whose error is measured in units of its own bound (the check is
 * then err <= 1): |got - ref| / bound */
static inline void cmp_add_scaled(CheckCmp *c, double got, double ref, double bound)
{
    if (!isfinite(got) || !isfinite(ref) || !(bound > 0)) {
        cmp_add(c, got, isfinite(ref) && bound > 0 ? ref : NAN);
        return;
    }
    double d = fabs(got - ref) / bound;
    if (d > c->err || c->n == 0) { c->err = d; c->at = c->n; c->got_at = got; c->ref_at = ref; }
    if (fabs(ref) > c->scale) c->scale = fabs(ref);
    c->n++;
}

/* the usual bound: rel * max(scale, floor) */
static inline double cmp_bound(const CheckCmp *c, double rel, double floor_scale)
{
    return rel * fmax(c->scale, floor_scale);
}

/* true when something was compared, everything was finite and err <= bound */
static inline int cmp_ok(const CheckCmp *c, double bound)
{
    return c->n > 0 && c->nonfinite == 0 && c->err <= bound;
}

/* One CHECK of a comparison; on failure the worst pair is printed too. */
#define CHECK_CMP(c, bound, ...)                                                                       \
    do {                                                                                               \
        const CheckCmp *c_ = &(c);                                                                     \
        double b_ = (bound);                                                                           \
        int ok_ = cmp_ok(c_, b_);                                                                      \
        CHECK(ok_, __VA_ARGS__);                                                                       \
        if (!ok_)                                                                                      \
            fprintf(stderr, "     %zu pairs compared, %zu not finite; max err %.3g at pair %zu "        \
                    "(got %.9g, ref %.9g), bound %.3g\n", c_->n, c_->nonfinite, c_->err, c_->at,       \
                    c_->got_at, c_->ref_at, b_);                                                       \
    } while (0)

/* a float array against a double one, pair by pair */
static inline void cmp_add_fd(CheckCmp *c, const float *got, const double *ref, size_t n)
{
    for (size_t i = 0; i < n; i++) cmp_add(c, got[i], ref[i]);
}

static inline void cmp_add_ff(CheckCmp *c, const float *got, const float *ref, size_t n)
{
    for (size_t i = 0; i < n; i++) cmp_add(c, got[i], ref[i]);
}

static inline int check_finish(const char *name)
{
    printf("%s: %ld bookkeeping checks held (not counted as passes)\n", name, check_setup);
    printf("%s: %d passed, %d failed, %d skipped\n", name, check_passed, check_failed, check_skipped);
    return check_failed ? 1 : 0;
}

#endif
