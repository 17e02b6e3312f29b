/* cnn_incremental.c: the pieces of the cnn's incremental evaluation
 * (cnn_incremental.h), shared by Shapley sampling (sv.c) and the coalition
 * values (cnn_coalitions.c). The windows go through the backend's product, the
 * same chains as the full pass's convolution; the target logit is summed in
 * double: the same number as a full pass up to float rounding. */
#include "cnn_incremental.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* out[t0..t1] of width k from embeddings e [L][d] (zero past L). */
void ee_cnn_windows(const CnnView *v, int k, const float *e, int t0, int t1, float *scratch,
                    float *out)
{
    int w = v->w.widths[k], d = v->w.d, F = v->w.F, n = t1 - t0 + 1;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < w; j++) {
            int t = t0 + i + j;
            float *dst = scratch + (size_t)i * w * d + (size_t)j * d;
            if (t < v->L) memcpy(dst, e + (size_t)t * d, sizeof(float) * d);
            else memset(dst, 0, sizeof(float) * d);
        }
    ee_cnn_rows(v, k, scratch, n, out + (size_t)t0 * F);
}

void ee_cnn_windows_ids(const CnnView *v, int k, const int32_t *ids, float *scratch, int *map, float *out)
{
    int w = v->w.widths[k], d = v->w.d, F = v->w.F, L = v->L, M = 0;
    for (int t = 0; t < L; t++) {
        int same = t > 0;
        for (int j = 0; j < w && same; j++) {
            int p = t + j;
            same = (p < L ? ids[p] : -1) == (p - 1 < L ? ids[p - 1] : -1);
        }
        if (same) { map[t] = map[t - 1]; continue; }
        map[t] = M;
        float *dst = scratch + (size_t)M++ * w * d;
        for (int j = 0; j < w; j++, dst += d) {
            if (t + j < L) memcpy(dst, v->w.E + (size_t)ids[t + j] * d, sizeof(float) * d);
            else memset(dst, 0, sizeof(float) * d);
        }
    }
    ee_cnn_rows(v, k, scratch, M, out);
    /* spread the distinct rows out, from the end: row map[t] <= t is still in place */
    for (int t = L - 1; t >= 0; t--)
        if (map[t] != t) memcpy(out + (size_t)t * F, out + (size_t)map[t] * F, sizeof(float) * F);
}

void ee_cnn_rows(const CnnView *v, int k, const float *A, int M, float *out)
{
    int K = v->w.widths[k] * v->w.d, F = v->w.F;
    for (int i = 0; i < M; i++) {
        if (v->w.b[k]) memcpy(out + (size_t)i * F, v->w.b[k], sizeof(float) * F);
        else memset(out + (size_t)i * F, 0, sizeof(float) * F);
    }
    v->be->gemm(0, 0, M, F, K, 1.0f, A, K, v->w.W[k], F, 1.0f, out, F);
}

/* Only the value matters downstream: ee_cnn_value reads a maximum through
 * b > 0, so which of equal values (+0 or -0) is kept changes nothing. */
void ee_cnn_running_max(const CnnView *v, const float *out, const uint8_t *mask, float *pre, float *suf)
{
    int F = v->w.F, L = v->L;
    for (int f = 0; f < F; f++) pre[f] = -INFINITY, suf[(size_t)L * F + f] = -INFINITY;
    for (int t = 0; t < L; t++) {
        const float *o = out + (size_t)t * F, *p = pre + (size_t)t * F;
        float *q = pre + (size_t)(t + 1) * F;
        if (!mask[t]) { memcpy(q, p, sizeof(float) * F); continue; }
        #pragma omp simd
        for (int f = 0; f < F; f++) q[f] = o[f] > p[f] ? o[f] : p[f];
    }
    for (int t = L - 1; t >= 0; t--) {
        const float *o = out + (size_t)t * F, *p = suf + (size_t)(t + 1) * F;
        float *q = suf + (size_t)t * F;
        if (!mask[t]) { memcpy(q, p, sizeof(float) * F); continue; }
        #pragma omp simd
        for (int f = 0; f < F; f++) q[f] = o[f] > p[f] ? o[f] : p[f];
    }
}

/* The max over the valid positions of each filter's pre-activations and
 * where it is (-1: none above -inf), kept per permutation: a token
 * changes only the windows t0..t1, so a filter whose maximum lies outside
 * them compares those alone, and only one whose maximum moved scans again.
 * The max of a set is the same number in any order (the first of equal
 * values is kept, as a full scan in t order keeps it; NaN never wins). */
void ee_cnn_max_scan(const CnnView *v, const float *out, const uint8_t *mask, int f, float *best, int *arg)
{
    int F = v->w.F;
    float b = -INFINITY;
    int a = -1;
    for (int t = 0; t < v->L; t++)
        if (mask[t] && out[(size_t)t * F + f] > b) { b = out[(size_t)t * F + f]; a = t; }
    *best = b;
    *arg = a;
}

void ee_cnn_max_update(const CnnView *v, const float *out, const uint8_t *mask, int t0, int t1, float *best,
                       int *arg)
{
    int F = v->w.F;
    for (int f = 0; f < F; f++) {
        if (arg[f] >= t0 && arg[f] <= t1) { /* the maximum itself changed */
            ee_cnn_max_scan(v, out, mask, f, best + f, arg + f);
            continue;
        }
        for (int t = t0; t <= t1; t++)
            if (mask[t] && out[(size_t)t * F + f] > best[f]) { best[f] = out[(size_t)t * F + f]; arg[f] = t; }
    }
}

/* Target logit from each width's maxima (summed in the order k, f). */
float ee_cnn_value(const CnnView *v, const float *best, int tg)
{
    double z = v->w.bc ? v->w.bc[tg] : 0;
    for (int k = 0; k < v->w.K; k++)
        for (int f = 0; f < v->w.F; f++) {
            float b = best[(size_t)k * v->w.F + f];
            if (b > 0) z += (double)b * v->w.Wc[((size_t)k * v->w.F + f) * v->w.C + tg];
        }
    return (float)z;
}

