/* input_scale.c: the scaling of a feature-vector explainer's inputs
 * (ee_train (@f, X, ...)): tabular columns come in their own units (a
 * weight in pounds next to a cylinder count), and an mlp trained by Adam
 * on them raw learns little (doc/GENERALIZATION.md). Each column is
 * centred on its median and divided by a robust spread (the interquartile
 * range / 1.349, the standard deviation where half the rows or more share
 * one value, 1 for a constant column), which maps a column shifted and
 * multiplied by any positive factor to the same inputs. In a heavy-tailed
 * column (a training value beyond EE_INPUT_HEAVY robust units) values
 * beyond EE_INPUT_SQUASH units are compressed logarithmically, so its tail
 * cannot push the ReLUs far outside the range they were trained on; the
 * other columns stay affine (a linear explainer stays linear in them). */
#include "../ee.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Quantile q of n sorted values, linear between order statistics (R's
 * default rule, type 7). */
static double quantile_sorted(const double *v, long n, double q)
{
    double h = q * (double)(n - 1);
    long lo = (long)floor(h);
    if (lo >= n - 1) return v[n - 1];
    return v[lo] + (h - (double)lo) * (v[lo + 1] - v[lo]);
}

EeStatus ee_input_scale_fit(const float *x, long n, int F, double *center, double *scale, double *squash)
{
    if (!x || n < 1 || F < 1 || !center || !scale || !squash) return ee_fail(EE_ERR_INPUT, "input scaling: no rows");
    double *col = malloc(sizeof(double) * (size_t)n);
    if (!col) return ee_fail(EE_ERR_NOMEM, "out of memory fitting the input scaling");
    for (int f = 0; f < F; f++) {
        double sum = 0;
        for (long i = 0; i < n; i++) {
            col[i] = x[(size_t)i * F + f];
            if (!isfinite(col[i])) {
                free(col);
                return ee_fail(EE_ERR_INPUT, "X has NaN or Inf at row %ld, column %d", i + 1, f + 1);
            }
            sum += col[i];
        }
        qsort(col, (size_t)n, sizeof(double), cmp_double);
        double med = quantile_sorted(col, n, 0.5);
        double iqr = quantile_sorted(col, n, 0.75) - quantile_sorted(col, n, 0.25);
        double mean = sum / (double)n, ss = 0;
        for (long i = 0; i < n; i++) ss += (col[i] - mean) * (col[i] - mean);
        double sd = n > 1 ? sqrt(ss / (double)(n - 1)) : 0;
        double s = iqr / 1.349;
        /* a spread below the float resolution of the column's values is no
         * spread: a constant column stays 0 after centring */
        double tiny = 1e-6 * (fabs(med) > 1 ? fabs(med) : 1);
        if (!(s > tiny)) s = sd;
        if (!(s > tiny)) s = 1;
        center[f] = med;
        scale[f] = s;
        /* a heavy tail: a training value beyond EE_INPUT_HEAVY spreads,
         * which a normal column of any size this side of 10^8 rows
         * practically never has */
        double far = fabs(col[0] - med) > fabs(col[n - 1] - med) ? fabs(col[0] - med) : fabs(col[n - 1] - med);
        squash[f] = far / s > EE_INPUT_HEAVY ? EE_INPUT_SQUASH : INFINITY;
    }
    free(col);
    return EE_OK;
}

double ee_input_scale_value(double x, double center, double scale, double squash)
{
    double z = (x - center) / scale, a = fabs(z);
    if (!(a > squash)) return z;
    /* continuous with slope 1 at the threshold, logarithmic beyond */
    double s = squash + log1p(a - squash);
    return z < 0 ? -s : s;
}

void ee_input_scale_apply(const double *center, const double *scale, const double *squash, const float *x, long n,
                          int F, float *out)
{
    for (long i = 0; i < n; i++)
        for (int f = 0; f < F; f++) {
            size_t q = (size_t)i * F + f;
            out[q] = (float)ee_input_scale_value(x[q], center[f], scale[f], squash[f]);
        }
}
