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

#else
void ee_gemm_tile_avx512(int m, int nc, int kc, const float *A, ptrdiff_t ars, ptrdiff_t acs,
                         const float *B, ptrdiff_t sstep, ptrdiff_t bs, float *C, ptrdiff_t ldc, int acc)
{
    (void)m; (void)nc; (void)kc; (void)A; (void)ars; (void)acs; (void)B; (void)sstep; (void)bs;
    (void)C; (void)ldc; (void)acc;
}
#endif
