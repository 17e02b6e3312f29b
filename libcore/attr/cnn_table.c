/* cnn_table.c: the subset tables of a cnn's convolution windows
 * (cnn_table.h). A window of width w reads one of 2^w rows of its
 * position instead of adding up to w / 2 difference rows: on the bench's
 * cnn (widths 3, 4, 5; LIME's coalitions leave about half the tokens out)
 * the additions and their unpredictable counts cost more than the reads of
 * a table of a few MB. Rows are padded to 16 floats so that each starts on
 * a cache line (in a table from the backend's page-aligned mappings). The
 * maxima compare in the same order and with the same rule as the
 * difference rows' (a > b ? a : b), so the bits are the same in every
 * instruction set. */
#include "cnn_table.h"
#include "../backend/cpu/cpu_internal.h"

#include <math.h>
#include <string.h>

static int table_wmax = EE_CNN_TABLE_WMAX, table_always;

void ee_cnn_table_set(int wmax, int always)
{
    table_wmax = wmax < 0 ? EE_CNN_TABLE_WMAX : wmax;
    table_always = always;
}

int ee_cnn_table_always(void)
{
    return table_always;
}

size_t ee_cnn_table_floats(int w, int T, int F)
{
    size_t Fp = ((size_t)F + 15) & ~(size_t)15, n = ((size_t)T << (w < 31 ? w : 31)) * Fp;
    if (w > table_wmax || w > EE_CNN_TABLE_WMAX || n * sizeof(float) > EE_CNN_TABLE_BYTES) return 0;
    return n;
}

void ee_cnn_table_build(float *tab, const float *D, const float *Xs, const float *Bs, int L, int w, int F)
{
    size_t Fp = ((size_t)F + 15) & ~(size_t)15, wF = (size_t)w * F;
    for (int t = 0; t < L; t++) {
        int nj = L - t < w ? L - t : w;
        unsigned full = (1u << nj) - 1;
        float *T0 = tab + ((size_t)t << w) * Fp;
        /* at most nj / 2 present: Bs plus the present offsets' rows, the
         * highest added last (its parent: the mask without it, built before) */
        for (unsigned m = 0; m <= full; m++) {
            if (2 * __builtin_popcount(m) > nj) continue;
            float *a = T0 + m * Fp;
            if (!m) { memcpy(a, Bs + (size_t)t * F, sizeof(float) * F); continue; }
            int o = 31 - __builtin_clz(m);
            const float *p = T0 + (m ^ 1u << o) * Fp, *d = D + (size_t)(t + o) * wF + (size_t)o * F;
            #pragma omp simd
            for (int f = 0; f < F; f++) a[f] = p[f] + d[f];
        }
        /* more present: Xs minus the absent offsets' rows, the highest
         * subtracted last (its parent: the mask with it, built before) */
        for (unsigned m = full + 1; m-- > 0;) {
            if (2 * __builtin_popcount(m) <= nj) continue;
            float *a = T0 + m * Fp;
            unsigned ab = ~m & full;
            if (!ab) { memcpy(a, Xs + (size_t)t * F, sizeof(float) * F); continue; }
            int o = 31 - __builtin_clz(ab);
            const float *p = T0 + (m | 1u << o) * Fp, *d = D + (size_t)(t + o) * wF + (size_t)o * F;
            #pragma omp simd
            for (int f = 0; f < F; f++) a[f] = p[f] - d[f];
        }
    }
}

/* Filters f0 .. f0+nf-1 (at most 16) over the windows, plain C. */
static inline __attribute__((always_inline)) void table_max_c(const float *tab, const uint64_t *pb,
                                                              const uint8_t *mask, int t0, int t1, int w,
                                                              int F, float *best)
{
    for (int f0 = 0; f0 < F; f0 += 16) {
        int ne = F - f0 < 16 ? F - f0 : 16;
        float b[16];
        for (int e = 0; e < 16; e++) b[e] = -INFINITY;
        for (int t = t0; t <= t1; t++) {
            if (!mask[t]) continue;
            const float *a = ee_cnn_table_row(tab, pb, t, w, F) + f0;
            if (ne == 16) { /* constant trip count: vector code */
                #pragma omp simd
                for (int e = 0; e < 16; e++) b[e] = a[e] > b[e] ? a[e] : b[e];
            } else {
                for (int e = 0; e < ne; e++) b[e] = a[e] > b[e] ? a[e] : b[e];
            }
        }
        memcpy(best + f0, b, sizeof(float) * ne);
    }
}

static void table_max_base(const float *tab, const uint64_t *pb, const uint8_t *mask, int t0, int t1, int w, int F,
                           float *best)
{
    table_max_c(tab, pb, mask, t0, t1, w, F, best);
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

__attribute__((target("avx2"))) static void table_max_avx2(const float *tab, const uint64_t *pb,
                                                           const uint8_t *mask, int t0, int t1, int w, int F,
                                                           float *best)
{
    table_max_c(tab, pb, mask, t0, t1, w, F, best);
}

/* NV vectors of 16 filters (f0 ..) in registers, the last one masked to
 * `tail`; NV is a constant of each call below, so the loops over v unroll.
 * vmaxps (a, b) is a > b ? a : b, the scalar comparison. */
static inline __attribute__((always_inline, target("avx512f,avx2"))) void
table_block_avx512(const float *tab, const uint64_t *pb, const uint8_t *mask, int t0, int t1, int w, int F, int f0,
                   int NV, __mmask16 tail, float *best)
{
    __m512 b[8];
    #pragma GCC unroll 8
    for (int v = 0; v < NV; v++) b[v] = _mm512_set1_ps(-INFINITY);
    for (int t = t0; t <= t1; t++) {
        if (!mask[t]) continue;
        const float *a = ee_cnn_table_row(tab, pb, t, w, F) + f0;
        #pragma GCC unroll 8
        for (int v = 0; v < NV; v++) {
            __m512 x = v < NV - 1 ? _mm512_loadu_ps(a + v * 16) : _mm512_maskz_loadu_ps(tail, a + v * 16);
            b[v] = _mm512_max_ps(x, b[v]);
        }
    }
    #pragma GCC unroll 8
    for (int v = 0; v < NV; v++) _mm512_mask_storeu_ps(best + f0 + v * 16, v < NV - 1 ? 0xFFFF : tail, b[v]);
}

__attribute__((target("avx512f,avx2"))) static void table_max_avx512(const float *tab, const uint64_t *pb,
                                                                      const uint8_t *mask, int t0, int t1, int w,
                                                                      int F, float *best)
{
    for (int f0 = 0; f0 < F; f0 += 128) {
        int nv = (F - f0 + 15) / 16 < 8 ? (F - f0 + 15) / 16 : 8, lanes = F - f0 - (nv - 1) * 16;
        __mmask16 tail = (__mmask16)(lanes >= 16 ? 0xFFFF : (1u << lanes) - 1);
        switch (nv) {
        case 1: table_block_avx512(tab, pb, mask, t0, t1, w, F, f0, 1, tail, best); break;
        case 2: table_block_avx512(tab, pb, mask, t0, t1, w, F, f0, 2, tail, best); break;
        case 3: table_block_avx512(tab, pb, mask, t0, t1, w, F, f0, 3, tail, best); break;
        case 4: table_block_avx512(tab, pb, mask, t0, t1, w, F, f0, 4, tail, best); break;
        case 5: table_block_avx512(tab, pb, mask, t0, t1, w, F, f0, 5, tail, best); break;
        case 6: table_block_avx512(tab, pb, mask, t0, t1, w, F, f0, 6, tail, best); break;
        case 7: table_block_avx512(tab, pb, mask, t0, t1, w, F, f0, 7, tail, best); break;
        default: table_block_avx512(tab, pb, mask, t0, t1, w, F, f0, 8, tail, best); break;
        }
    }
}
#endif

void ee_cnn_table_max(const float *tab, const uint64_t *pb, const uint8_t *mask, int t0, int t1, int w, int F,
                      float *best)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (ee_cpu_use_avx512()) table_max_avx512(tab, pb, mask, t0, t1, w, F, best);
    else if (ee_cpu_use_avx2()) table_max_avx2(tab, pb, mask, t0, t1, w, F, best);
    else
#endif
        table_max_base(tab, pb, mask, t0, t1, w, F, best);
}
