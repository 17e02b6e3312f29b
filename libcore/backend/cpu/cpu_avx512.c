/* cpu_avx512.c: the matrix-product micro-kernel of cpu_gemm.h for AVX-512
 * (16-float vectors, 32 registers), compiled per function for that target
 * (the rest of the build stays baseline x86-64); the driver calls it only
 * when the processor reports AVX-512F.
 *
 * Same bits as the AVX2 kernel: every element of C is the same chain
 *     c = (start); for k = 0 .. K-1: c = fma(a_k, b_k, c)
 * in ascending k, and a lane of a 512-bit FMA is the same IEEE fused
 * multiply-add as a lane of a 256-bit one. What changes is the work per
 * instruction: on processors with 512-bit FMA units (AMD Zen 5, Intel
 * server parts) twice the multiply-adds per cycle.
 *
 * A tile is m <= 6 rows by up to 4 vectors (64 columns) of C: 24
 * accumulators, 4 loads of B and 6 broadcasts of A per k. Columns past
 * nc are masked (loads read zeros, stores leave C alone), so a partial
 * last strip of B is read in place, never copied; rows past m are not
 * computed (the row count is a constant of each instantiation). */
#include "cpu_gemm.h"
#include "cpu_math.h"

#include <stdlib.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#define T512 __attribute__((target("avx512f,avx2,fma")))

/* M rows x V vectors; `last`: the lanes of vector V-1 that exist. B's
 * vector v of row p is at B + v*sstep + p*bs (sstep: the distance of two
 * 16-column strips, packed or in place). */
#define EE_TILE512(M, V)                                                                            \
    static T512 void tile512_##M##_##V(int kc, const float *A, ptrdiff_t ars, ptrdiff_t acs,         \
                                        const float *B, ptrdiff_t sstep, ptrdiff_t bs, float *C,     \
                                        ptrdiff_t ldc, int acc, __mmask16 last)                       \
    {                                                                                                \
        __m512 c[M][V];                                                                              \
        _Pragma("GCC unroll 8") for (int r = 0; r < M; r++)                                          \
            _Pragma("GCC unroll 4") for (int v = 0; v < V; v++)                                      \
                c[r][v] = acc ? _mm512_maskz_loadu_ps(v == V - 1 ? last : 0xFFFF, C + r * ldc + v * 16) \
                              : _mm512_setzero_ps();                                                 \
        for (int p = 0; p < kc; p++) {                                                               \
            __m512 b[V];                                                                             \
            _Pragma("GCC unroll 4") for (int v = 0; v < V; v++)                                      \
                b[v] = _mm512_maskz_loadu_ps(v == V - 1 ? last : 0xFFFF, B + v * sstep + p * bs);     \
            const float *a = A + p * acs;                                                            \
            _Pragma("GCC unroll 8") for (int r = 0; r < M; r++) {                                    \
                __m512 x = _mm512_set1_ps(a[r * ars]);                                               \
                _Pragma("GCC unroll 4") for (int v = 0; v < V; v++)                                  \
                    c[r][v] = _mm512_fmadd_ps(x, b[v], c[r][v]);                                     \
            }                                                                                        \
        }                                                                                            \
        _Pragma("GCC unroll 8") for (int r = 0; r < M; r++)                                          \
            _Pragma("GCC unroll 4") for (int v = 0; v < V; v++)                                      \
                _mm512_mask_storeu_ps(C + r * ldc + v * 16, v == V - 1 ? last : 0xFFFF, c[r][v]);    \
    }

#define EE_TILE512_ROW(M) EE_TILE512(M, 1) EE_TILE512(M, 2) EE_TILE512(M, 3) EE_TILE512(M, 4)
EE_TILE512_ROW(1)
EE_TILE512_ROW(2)
EE_TILE512_ROW(3)
EE_TILE512_ROW(4)
EE_TILE512_ROW(5)
EE_TILE512_ROW(6)

typedef void (*Tile512)(int, const float *, ptrdiff_t, ptrdiff_t, const float *, ptrdiff_t, ptrdiff_t,
                        float *, ptrdiff_t, int, __mmask16);
#define EE_TILE512_FNS(M) {tile512_##M##_1, tile512_##M##_2, tile512_##M##_3, tile512_##M##_4}
static const Tile512 tiles512[EE_GEMM_MR512][EE_GEMM_NV512] = {
    EE_TILE512_FNS(1), EE_TILE512_FNS(2), EE_TILE512_FNS(3),
    EE_TILE512_FNS(4), EE_TILE512_FNS(5), EE_TILE512_FNS(6)};

void ee_gemm_tile_avx512(int m, int nc, int kc, const float *A, ptrdiff_t ars, ptrdiff_t acs,
                         const float *B, ptrdiff_t sstep, ptrdiff_t bs, float *C, ptrdiff_t ldc, int acc)
{
    if (m <= 0 || nc <= 0) return;
    int nv = (nc + 15) / 16, lanes = nc - (nv - 1) * 16;
    __mmask16 last = (__mmask16)(lanes == 16 ? 0xFFFF : (1u << lanes) - 1);
    tiles512[m - 1][nv - 1](kc, A, ars, acs, B, sstep, bs, C, ldc, acc, last);
}

/* The text CNN's max over time of one sequence (cpu_ops.c's maxpool_fwd
 * before its ReLU step): for each filter f the first t in order with
 * mk[t] and a[t][f] > best, 64 filters at a time held in registers. The
 * comparisons are those of the scalar scan, filter by filter. */
T512 void ee_maxpool_scan_avx512(const float *a, const uint8_t *mk, int T, int F, float *best, int32_t *bi)
{
    for (int f0 = 0; f0 < F; f0 += 64) {
        int nv = (F - f0 + 15) / 16 < 4 ? (F - f0 + 15) / 16 : 4, lanes = F - f0 - (nv - 1) * 16;
        __mmask16 last = (__mmask16)(lanes >= 16 ? 0xFFFF : (1u << lanes) - 1);
        __m512 b[4];
        __m512i ix[4];
        for (int v = 0; v < 4; v++) {
            b[v] = _mm512_set1_ps(-INFINITY);
            ix[v] = _mm512_set1_epi32(-1);
        }
        for (int t = 0; t < T; t++) {
            if (!mk[t]) continue;
            const float *at = a + (size_t)t * F + f0;
            __m512i tv = _mm512_set1_epi32(t);
            for (int v = 0; v < nv; v++) {
                __m512 x = _mm512_maskz_loadu_ps(v == nv - 1 ? last : 0xFFFF, at + v * 16);
                __mmask16 gt = _mm512_cmp_ps_mask(x, b[v], _CMP_GT_OQ);
                b[v] = _mm512_mask_blend_ps(gt, b[v], x);
                ix[v] = _mm512_mask_blend_epi32(gt, ix[v], tv);
            }
        }
        for (int v = 0; v < nv; v++) {
            __mmask16 mv = v == nv - 1 ? last : 0xFFFF;
            _mm512_mask_storeu_ps(best + f0 + v * 16, mv, b[v]);
            _mm512_mask_storeu_epi32(bi + f0 + v * 16, mv, ix[v]);
        }
    }
}

/* GELU forward and the softmax rows of cpu_avx2.c in 16-float vectors.
 * Each element takes the operations it takes there (the same source,
 * contracted to FMA where GCC contracts it for AVX2: tests/c/test_ops
 * compares both builds over every float for GELU and on random rows for
 * the softmax), and the softmax sums in the same 32 lanes. */
#if defined(EE_HAVE_AVX2_OBJECT)
/* GCC vectorises the `omp simd` loops below at 512 bits only when told */
#if defined(__clang__)
#define T512V T512
#else
#define T512V __attribute__((target("avx512f,avx2,fma,prefer-vector-width=512")))
#endif
T512V void ee_gelu_fwd_block_avx512(const float *X, float *Y, size_t n)
{
    /* the AVX2 loop runs its last n % 8 elements in scalar code, which
     * orders the operands of the last product otherwise (the sign of a
     * NaN result follows that order): those go to the AVX2 loop itself */
    size_t nv = n - n % 8;
    _Pragma("omp simd")
    for (size_t i = 0; i < nv; i++) Y[i] = X[i] * gauss_cdf(X[i]);
    if (nv < n) ee_gelu_fwd_block_avx2(X + nv, Y + nv, n - nv);
}

T512V void ee_softmax_rows_avx512(float *P, int ld, const uint8_t *mk, int rows, int S)
{
    if (S <= 0) return;
    float stack_mf[512], *mf = S <= 512 ? stack_mf : malloc(sizeof(float) * (size_t)S);
    if (!mf) { /* out of memory: the AVX2 rows need none for S <= 512, the macro's none */
        ee_softmax_rows_ref_avx2(P, ld, mk, rows, S);
        return;
    }
    for (int j = 0; j < S; j++) mf[j] = (float)mk[j];
    int nmain = S - S % 32, n16 = S - S % 16;
    const __m512 ninf = _mm512_set1_ps(-INFINITY), zero = _mm512_setzero_ps();
    /* rows four at a time: each row's sums are serial chains of adds (the
     * tail into lane 0, then lanes 0..31), run side by side */
    for (int i0 = 0; i0 < rows; i0 += 4) {
        int g = rows - i0 < 4 ? rows - i0 : 4;
        float lanes[4][32], sum[4] = {0, 0, 0, 0};
        for (int r = 0; r < g; r++) {
            float *row = P + (size_t)(i0 + r) * ld;
            __m512 vm = ninf;
            for (int j = 0; j < n16; j += 16) {
                __mmask16 keep = _mm512_cmp_ps_mask(_mm512_loadu_ps(mf + j), zero, _CMP_NEQ_OQ);
                vm = _mm512_max_ps(_mm512_mask_blend_ps(keep, ninf, _mm512_loadu_ps(row + j)), vm);
            }
            _mm512_storeu_ps(lanes[r], vm);
            float mx = -INFINITY;
            for (int l = 0; l < 16; l++) mx = lanes[r][l] > mx ? lanes[r][l] : mx;
            for (int j = n16; j < S; j++) {
                float v = mk[j] ? row[j] : -INFINITY;
                mx = v > mx ? v : mx;
            }
            _Pragma("omp simd")
            for (int j = 0; j < S; j++) row[j] = fast_expf(row[j] - mx) * mf[j];
            __m512 a0 = zero, a1 = zero;
            for (int j = 0; j < nmain; j += 32) {
                a0 = _mm512_add_ps(a0, _mm512_loadu_ps(row + j));
                a1 = _mm512_add_ps(a1, _mm512_loadu_ps(row + j + 16));
            }
            _mm512_storeu_ps(lanes[r], a0);
            _mm512_storeu_ps(lanes[r] + 16, a1);
        }
        for (int r = g; r < 4; r++) memset(lanes[r], 0, sizeof lanes[r]); /* rows past the last: unused */
        float t0 = lanes[0][0], t1 = lanes[1][0], t2 = lanes[2][0], t3 = lanes[3][0];
        const float *p0 = P + (size_t)i0 * ld, *p1 = g > 1 ? p0 + ld : p0, *p2 = g > 2 ? p0 + 2 * (size_t)ld : p0;
        const float *p3 = g > 3 ? p0 + 3 * (size_t)ld : p0;
        for (int j = nmain; j < S; j++) {
            t0 += p0[j];
            t1 += p1[j];
            t2 += p2[j];
            t3 += p3[j];
        }
        float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        s0 += t0; s1 += t1; s2 += t2; s3 += t3;
        for (int l = 1; l < 32; l++) {
            s0 += lanes[0][l];
            s1 += lanes[1][l];
            s2 += lanes[2][l];
            s3 += lanes[3][l];
        }
        sum[0] = s0; sum[1] = s1; sum[2] = s2; sum[3] = s3;
        for (int r = 0; r < g; r++) {
            float *row = P + (size_t)(i0 + r) * ld, inv = 1.0f / sum[r];
            _Pragma("omp simd")
            for (int j = 0; j < S; j++) row[j] *= inv;
        }
    }
    if (mf != stack_mf) free(mf);
}
#endif


#endif
#if !(defined(__x86_64__) && defined(__GNUC__) && defined(EE_HAVE_AVX2_OBJECT))
void ee_gelu_fwd_block_avx512(const float *X, float *Y, size_t n) { (void)X; (void)Y; (void)n; }
void ee_softmax_rows_avx512(float *P, int ld, const uint8_t *mk, int rows, int S)
{
    (void)P; (void)ld; (void)mk; (void)rows; (void)S;
}
#endif
#if !(defined(__x86_64__) && defined(__GNUC__))
void ee_maxpool_scan_avx512(const float *a, const uint8_t *mk, int T, int F, float *best, int32_t *bi)
{
    (void)a; (void)mk; (void)T; (void)F; (void)best; (void)bi;
}
void ee_gemm_tile_avx512(int m, int nc, int kc, const float *A, ptrdiff_t ars, ptrdiff_t acs,
                         const float *B, ptrdiff_t sstep, ptrdiff_t bs, float *C, ptrdiff_t ldc, int acc)
{
    (void)m; (void)nc; (void)kc; (void)A; (void)ars; (void)acs; (void)B; (void)sstep; (void)bs;
    (void)C; (void)ldc; (void)acc;
}
#endif
