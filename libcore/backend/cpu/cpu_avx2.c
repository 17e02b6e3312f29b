/* cpu_avx2.c: the loops of cpu_math.h (GELU, softmax, LayerNorm) and the
 * matrix-product micro-kernel of cpu_gemm.h compiled for AVX2 + FMA (this
 * file alone gets -mavx2 -mfma); the backend calls them only when the
 * processor reports both. */
#include "cpu_gemm.h"
#include "cpu_math.h"

#include <immintrin.h>

#include <stdlib.h>

EE_GELU_LOOPS(_avx2)
EE_LN_ROWS(_avx2)

/* Softmax rows (the contract of EE_SOFTMAX_ROWS), in a fixed summation
 * order: 32 lanes, lane l summing the elements j = l mod 32 of the first
 * S - S % 32 in order, lane 0 then the last S % 32 in order, and the sum
 * lane 0 + lane 1 + ... + lane 31 from 0. This is the order GCC gave the
 * macro's `omp simd` reduction in this file (32 lanes: the uint8_t mask
 * set the vector width), so the bits are those of the macro; written out,
 * the exponentials of the tail run in vectors too and no lane arrays are
 * cleared per row. The maximum is exact in any order. */
void ee_softmax_rows_avx2(float *P, int ld, const uint8_t *mk, int rows, int S)
{
    if (S <= 0) return;
    float stack_mf[512], *mf = S <= 512 ? stack_mf : malloc(sizeof(float) * (size_t)S);
    if (!mf) { /* out of memory: the macro's loops need none */
        ee_softmax_rows_ref_avx2(P, ld, mk, rows, S);
        return;
    }
    for (int j = 0; j < S; j++) mf[j] = (float)mk[j];
    int nmain = S - S % 32, n8 = S - S % 8;
    const __m256 ninf = _mm256_set1_ps(-INFINITY), zero = _mm256_setzero_ps();
    for (int i = 0; i < rows; i++) {
        float *row = P + (size_t)i * ld;
        __m256 vm = ninf;
        for (int j = 0; j < n8; j += 8) {
            __m256 keep = _mm256_cmp_ps(_mm256_loadu_ps(mf + j), zero, _CMP_NEQ_OQ);
            vm = _mm256_max_ps(_mm256_blendv_ps(ninf, _mm256_loadu_ps(row + j), keep), vm);
        }
        float lanes[32];
        _mm256_storeu_ps(lanes, vm);
        float mx = -INFINITY;
        for (int l = 0; l < 8; l++) mx = lanes[l] > mx ? lanes[l] : mx;
        for (int j = n8; j < S; j++) {
            float v = mk[j] ? row[j] : -INFINITY;
            mx = v > mx ? v : mx;
        }
        _Pragma("omp simd")
        for (int j = 0; j < S; j++) row[j] = fast_expf(row[j] - mx) * mf[j];
        __m256 a0 = zero, a1 = zero, a2 = zero, a3 = zero;
        for (int j = 0; j < nmain; j += 32) {
            a0 = _mm256_add_ps(a0, _mm256_loadu_ps(row + j));
            a1 = _mm256_add_ps(a1, _mm256_loadu_ps(row + j + 8));
            a2 = _mm256_add_ps(a2, _mm256_loadu_ps(row + j + 16));
            a3 = _mm256_add_ps(a3, _mm256_loadu_ps(row + j + 24));
        }
        _mm256_storeu_ps(lanes, a0);
        _mm256_storeu_ps(lanes + 8, a1);
        _mm256_storeu_ps(lanes + 16, a2);
        _mm256_storeu_ps(lanes + 24, a3);
        for (int j = nmain; j < S; j++) lanes[0] += row[j];
        float sum = 0;
        for (int l = 0; l < 32; l++) sum += lanes[l];
        float inv = 1.0f / sum;
        _Pragma("omp simd")
        for (int j = 0; j < S; j++) row[j] *= inv;
    }
    if (mf != stack_mf) free(mf);
}

/* the macro's loops: the fallback above, and the reference of the tests */
EE_SOFTMAX_ROWS(_ref_avx2)

/* one rounding per multiply-add, the same instruction on every path */
#define EE_FMA_AVX2(a, b, c) ((ee_v8)_mm256_fmadd_ps((__m256)(a), (__m256)(b), (__m256)(c)))
EE_GEMM_TILE(_avx2, EE_FMA_AVX2)
EE_GEMM_TILE8(_avx2, EE_FMA_AVX2)
