/* cpu_math.h: inline exp and Gaussian CDF that vectorise, and the GELU
 * loops built on them. Included by cpu_ops.c (baseline x86-64) and by
 * cpu_avx2.c (compiled with -mavx2 -mfma); cpu_ops.c picks the AVX2 loops
 * at run time when the processor has them.
 *
 * exp: Cody-Waite range reduction and a degree-6 polynomial (Cephes'
 * coefficients), within 2 ulp for the arguments used here (<= 0).
 * Phi(x) = erfc(-x/sqrt 2)/2 with the Chebyshev fit of Numerical Recipes
 * (erfcc, relative error < 1.2e-7 everywhere), so GELU keeps float32
 * accuracy for negative x as well. Both need -fno-trapping-math to
 * vectorise (the clamp is a compare-and-select). */
#ifndef EE_CPU_MATH_H
#define EE_CPU_MATH_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline float fast_expf(float x)
{
    x = x < -87.0f ? -87.0f : x;
    x = x > 88.0f ? 88.0f : x;
    float n = floorf(x * 1.44269504088896341f + 0.5f);
    float r = x - n * 0.693359375f + n * 2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * r * r + r + 1.0f;
    /* n is an integer in [-126, 127], or NaN when x is: converting NaN to
     * int is undefined, so it takes 0 (the result stays NaN through p) */
    int32_t bits = ((n == n ? (int32_t)n : 0) + 127) << 23;
    float scale;
    memcpy(&scale, &bits, sizeof scale);
    return p * scale;
}

static inline float gauss_cdf(float x)
{
    float u = -x * 0.70710678118654752f; /* Phi(x) = erfc(u) / 2 */
    float z = fabsf(u);
    float t = 1.0f / (1.0f + 0.5f * z);
    float q = 0.17087277f;
    q = q * t - 0.82215223f;
    q = q * t + 1.48851587f;
    q = q * t - 1.13520398f;
    q = q * t + 0.27886807f;
    q = q * t - 0.18628806f;
    q = q * t + 0.09678418f;
    q = q * t + 0.37409196f;
    q = q * t + 1.00002368f;
    q = q * t - 1.26551223f;
    float erfc_z = t * fast_expf(-z * z + q);
    return 0.5f * (u >= 0 ? erfc_z : 2.0f - erfc_z);
}

#define EE_GELU_LOOPS(SUFFIX)                                                           \
    void ee_gelu_fwd_block##SUFFIX(const float *X, float *Y, size_t n)                  \
    {                                                                                   \
        _Pragma("omp simd")                                                             \
        for (size_t i = 0; i < n; i++) Y[i] = X[i] * gauss_cdf(X[i]);                   \
    }                                                                                   \
    void ee_gelu_bwd_block##SUFFIX(const float *X, const float *dY, float *dX, size_t n) \
    {                                                                                   \
        _Pragma("omp simd")                                                             \
        for (size_t i = 0; i < n; i++) {                                                \
            float x = X[i];                                                             \
            float pdf = 0.39894228040143268f * fast_expf(-0.5f * x * x);                \
            dX[i] = dY[i] * (gauss_cdf(x) + x * pdf);                                   \
        }                                                                               \
    }

/* Softmax of `rows` rows of P (row stride ld) over the first S columns,
 * masked columns (mk[j] == 0) exactly 0. */
#define EE_SOFTMAX_ROWS(SUFFIX)                                                         \
    void ee_softmax_rows##SUFFIX(float *P, int ld, const uint8_t *mk, int rows, int S)  \
    {                                                                                   \
        for (int i = 0; i < rows; i++) {                                                \
            float *row = P + (size_t)i * ld;                                            \
            float mx = -INFINITY;                                                       \
            _Pragma("omp simd reduction(max : mx)")                                     \
            for (int j = 0; j < S; j++) {                                               \
                float v = mk[j] ? row[j] : -INFINITY;                                   \
                mx = v > mx ? v : mx;                                                   \
            }                                                                           \
            float sum = 0;                                                              \
            _Pragma("omp simd reduction(+ : sum)")                                      \
            for (int j = 0; j < S; j++) {                                               \
                float e = fast_expf(row[j] - mx) * (float)mk[j];                        \
                row[j] = e;                                                             \
                sum += e;                                                               \
            }                                                                           \
            float inv = 1.0f / sum;                                                     \
            _Pragma("omp simd")                                                         \
            for (int j = 0; j < S; j++) row[j] *= inv;                                  \
        }                                                                               \
    }

/* LayerNorm of rows [r0, r1): two-pass mean and biased variance in float
 * (cols is a model width, a few hundred at most). */
#define EE_LN_ROWS(SUFFIX)                                                                  \
    void ee_ln_fwd_rows##SUFFIX(const float *X, const float *g, const float *b, float *Y,  \
                                float *mean, float *rstd, int r0, int r1, int cols, float eps) \
    {                                                                                       \
        for (int r = r0; r < r1; r++) {                                                     \
            const float *x = X + (size_t)r * cols;                                          \
            float *y = Y + (size_t)r * cols;                                                \
            float s = 0, v = 0;                                                             \
            _Pragma("omp simd reduction(+ : s)")                                            \
            for (int c = 0; c < cols; c++) s += x[c];                                       \
            float mu = s / cols;                                                            \
            _Pragma("omp simd reduction(+ : v)")                                            \
            for (int c = 0; c < cols; c++) v += (x[c] - mu) * (x[c] - mu);                  \
            float rs = 1.0f / sqrtf(v / cols + eps);                                        \
            _Pragma("omp simd")                                                             \
            for (int c = 0; c < cols; c++) y[c] = (x[c] - mu) * rs * g[c] + b[c];           \
            mean[r] = mu;                                                                   \
            rstd[r] = rs;                                                                   \
        }                                                                                   \
    }                                                                                       \
    /* no fused multiply-add: dy g - mean(dy g) must cancel exactly */                   \
    __attribute__((optimize("fp-contract=off")))                                            \
    void ee_ln_bwd_rows##SUFFIX(const float *dY, const float *X, const float *g,           \
                                const float *mean, const float *rstd, float *dX, int r0,   \
                                int r1, int cols, int accumulate)                           \
    {                                                                                       \
        for (int r = r0; r < r1; r++) {                                                     \
            const float *x = X + (size_t)r * cols, *dy = dY + (size_t)r * cols;             \
            float *dx = dX + (size_t)r * cols;                                              \
            float m = mean[r], rs = rstd[r], s1 = 0, s2 = 0;                                \
            _Pragma("omp simd reduction(+ : s1, s2)")                                       \
            for (int c = 0; c < cols; c++) {                                                \
                float dxh = dy[c] * g[c];                                                   \
                s1 += dxh;                                                                  \
                s2 += dxh * (x[c] - m) * rs;                                                \
            }                                                                               \
            float a1 = s1 / cols, a2 = s2 / cols, keep = accumulate ? 1.0f : 0.0f;         \
            _Pragma("omp simd")                                                             \
            for (int c = 0; c < cols; c++)                                                  \
                dx[c] = keep * dx[c] + rs * (dy[c] * g[c] - a1 - (x[c] - m) * rs * a2);    \
        }                                                                                   \
    }

void ee_ln_fwd_rows_base(const float *X, const float *g, const float *b, float *Y, float *mean,
                         float *rstd, int r0, int r1, int cols, float eps);
void ee_ln_fwd_rows_avx2(const float *X, const float *g, const float *b, float *Y, float *mean,
                         float *rstd, int r0, int r1, int cols, float eps);
void ee_ln_bwd_rows_base(const float *dY, const float *X, const float *g, const float *mean,
                         const float *rstd, float *dX, int r0, int r1, int cols, int accumulate);
void ee_ln_bwd_rows_avx2(const float *dY, const float *X, const float *g, const float *mean,
                         const float *rstd, float *dX, int r0, int r1, int cols, int accumulate);
void ee_softmax_rows_base(float *P, int ld, const uint8_t *mk, int rows, int S);
void ee_softmax_rows_avx2(float *P, int ld, const uint8_t *mk, int rows, int S);
void ee_softmax_rows_ref_avx2(float *P, int ld, const uint8_t *mk, int rows, int S);
void ee_gelu_fwd_block_avx512(const float *X, float *Y, size_t n);
void ee_softmax_rows_avx512(float *P, int ld, const uint8_t *mk, int rows, int S);
void ee_gelu_fwd_block_base(const float *X, float *Y, size_t n);
void ee_gelu_bwd_block_base(const float *X, const float *dY, float *dX, size_t n);
void ee_gelu_fwd_block_avx2(const float *X, float *Y, size_t n);
void ee_gelu_bwd_block_avx2(const float *X, const float *dY, float *dX, size_t n);

#endif
