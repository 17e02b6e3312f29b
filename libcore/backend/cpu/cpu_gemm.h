/* cpu_gemm.h: the micro-kernel of the CPU backend's matrix products, as a
 * template instantiated twice: for baseline x86-64 in cpu_gemm.c and for
 * AVX2 + FMA in cpu_avx2.c (the driver picks one at run time).
 *
 * Why our own kernel and not OpenBLAS: the bits OpenBLAS gives for one
 * row of C depend on the other rows of the call (its register tiles treat
 * rows differently by their position in the tile, and the last partial
 * tile takes other code paths; measured on this project's machines, see
 * doc/RANDOM.md). A row's result would then depend on the batch it was
 * computed in. Here every element of C is one chain
 *     c = (start); for k = 0 .. K-1: c = c + a_k b_k   (one rounding each)
 * in ascending k, whatever the shape, the tile or the thread that computes
 * it, so the result of a row depends on that row's data alone.
 *
 * A tile is MR x NR (6 x 16) elements held in registers; B comes as a
 * strip of NR columns (packed, zero-padded past the last column: padded
 * lanes are computed and never stored). */
#ifndef EE_CPU_GEMM_H
#define EE_CPU_GEMM_H

#include <stddef.h>
#include <string.h>

#define EE_GEMM_MR 6
#define EE_GEMM_NR 16
/* the narrow tile for a last strip of at most 8 columns (a 6 x 16 tile
 * would compute twice the lanes it keeps) */
#define EE_GEMM_MR8 12
#define EE_GEMM_NR8 8
/* the AVX-512 tile (cpu_avx512.c): up to 6 rows by 4 vectors of 16 */
#define EE_GEMM_MR512 6
#define EE_GEMM_NV512 4

/* Unaligned 8-float vector loads and stores without intrinsics. */
typedef float ee_v8 __attribute__((vector_size(32)));
typedef float ee_v8u __attribute__((vector_size(32), aligned(4), may_alias));

#define EE_BCAST(x) ({ float b_ = (x); (ee_v8){b_, b_, b_, b_, b_, b_, b_, b_}; })

/* C[r][0..nc) for r < m (row stride ldc) = (acc ? C : 0) + chains over kc
 * of A[r*ars + p*acs] * B[p*bs + j] (B: packed strip, bs = NR, or NR
 * columns of a row-major matrix, bs = its row stride). FMA(a, b, c) is
 * a*b + c with one rounding (AVX2) or two (baseline); either way the same
 * for every lane. Fewer than MR rows or NR columns go through the same
 * code with stand-in rows and a buffer, so every element of C is computed
 * by the same instructions whatever the tile it falls in. */
#define EE_GEMM_TILE(SUFFIX, FMA)                                                              \
    void ee_gemm_tile##SUFFIX(int m, int nc, int kc, const float *A, ptrdiff_t ars,            \
                              ptrdiff_t acs, const float *B, ptrdiff_t bs, float *C,           \
                              ptrdiff_t ldc, int acc)                                          \
    {                                                                                          \
        float buf[EE_GEMM_MR][EE_GEMM_NR];                                                     \
        float *c[EE_GEMM_MR];                                                                  \
        const float *a[EE_GEMM_MR];                                                            \
        int direct = nc == EE_GEMM_NR;                                                         \
        for (int r = 0; r < EE_GEMM_MR; r++) {                                                 \
            int real = r < m;                                                                  \
            a[r] = A + (real ? r : 0) * ars; /* stand-in rows repeat row 0 */                   \
            c[r] = direct && real ? C + r * ldc : buf[r];                                      \
            if (c[r] != buf[r]) continue;                                                      \
            memset(buf[r], 0, sizeof buf[r]);                                                  \
            if (acc && real) memcpy(buf[r], C + r * ldc, sizeof(float) * nc);                  \
        }                                                                                      \
        ee_v8 z = {0}, c00 = z, c01 = z, c10 = z, c11 = z, c20 = z, c21 = z, c30 = z, c31 = z, \
              c40 = z, c41 = z, c50 = z, c51 = z;                                              \
        if (acc) {                                                                             \
            c00 = *(const ee_v8u *)c[0]; c01 = *(const ee_v8u *)(c[0] + 8);                    \
            c10 = *(const ee_v8u *)c[1]; c11 = *(const ee_v8u *)(c[1] + 8);                    \
            c20 = *(const ee_v8u *)c[2]; c21 = *(const ee_v8u *)(c[2] + 8);                    \
            c30 = *(const ee_v8u *)c[3]; c31 = *(const ee_v8u *)(c[3] + 8);                    \
            c40 = *(const ee_v8u *)c[4]; c41 = *(const ee_v8u *)(c[4] + 8);                    \
            c50 = *(const ee_v8u *)c[5]; c51 = *(const ee_v8u *)(c[5] + 8);                    \
        }                                                                                      \
        const float *a0 = a[0], *a1 = a[1], *a2 = a[2], *a3 = a[3], *a4 = a[4], *a5 = a[5];    \
        for (int p = 0; p < kc; p++) {                                                         \
            ee_v8 b0 = *(const ee_v8u *)(B + p * bs), b1 = *(const ee_v8u *)(B + p * bs + 8);  \
            ptrdiff_t o = p * acs;                                                             \
            ee_v8 v;                                                                           \
            v = EE_BCAST(a0[o]); c00 = FMA(v, b0, c00); c01 = FMA(v, b1, c01);                 \
            v = EE_BCAST(a1[o]); c10 = FMA(v, b0, c10); c11 = FMA(v, b1, c11);                 \
            v = EE_BCAST(a2[o]); c20 = FMA(v, b0, c20); c21 = FMA(v, b1, c21);                 \
            v = EE_BCAST(a3[o]); c30 = FMA(v, b0, c30); c31 = FMA(v, b1, c31);                 \
            v = EE_BCAST(a4[o]); c40 = FMA(v, b0, c40); c41 = FMA(v, b1, c41);                 \
            v = EE_BCAST(a5[o]); c50 = FMA(v, b0, c50); c51 = FMA(v, b1, c51);                 \
        }                                                                                      \
        *(ee_v8u *)c[0] = c00; *(ee_v8u *)(c[0] + 8) = c01;                                    \
        *(ee_v8u *)c[1] = c10; *(ee_v8u *)(c[1] + 8) = c11;                                    \
        *(ee_v8u *)c[2] = c20; *(ee_v8u *)(c[2] + 8) = c21;                                    \
        *(ee_v8u *)c[3] = c30; *(ee_v8u *)(c[3] + 8) = c31;                                    \
        *(ee_v8u *)c[4] = c40; *(ee_v8u *)(c[4] + 8) = c41;                                    \
        *(ee_v8u *)c[5] = c50; *(ee_v8u *)(c[5] + 8) = c51;                                    \
        for (int r = 0; r < m; r++)                                                            \
            if (c[r] == buf[r]) memcpy(C + r * ldc, buf[r], sizeof(float) * nc);               \
    }

/* The same for up to MR8 rows and NR8 columns (B's first 8 lanes). */
#define EE_GEMM_TILE8(SUFFIX, FMA)                                                             \
    void ee_gemm_tile8##SUFFIX(int m, int nc, int kc, const float *A, ptrdiff_t ars,           \
                               ptrdiff_t acs, const float *B, ptrdiff_t bs, float *C,          \
                               ptrdiff_t ldc, int acc)                                         \
    {                                                                                          \
        float buf[EE_GEMM_MR8][EE_GEMM_NR8];                                                   \
        float *c[EE_GEMM_MR8];                                                                 \
        const float *a[EE_GEMM_MR8];                                                           \
        int direct = nc == EE_GEMM_NR8;                                                        \
        for (int r = 0; r < EE_GEMM_MR8; r++) {                                                \
            int real = r < m;                                                                  \
            a[r] = A + (real ? r : 0) * ars;                                                   \
            c[r] = direct && real ? C + r * ldc : buf[r];                                      \
            if (c[r] != buf[r]) continue;                                                      \
            memset(buf[r], 0, sizeof buf[r]);                                                  \
            if (acc && real) memcpy(buf[r], C + r * ldc, sizeof(float) * nc);                  \
        }                                                                                      \
        ee_v8 z = {0}, c0 = z, c1 = z, c2 = z, c3 = z, c4 = z, c5 = z, c6 = z, c7 = z, c8 = z, \
              c9 = z, c10 = z, c11 = z;                                                        \
        if (acc) {                                                                             \
            c0 = *(const ee_v8u *)c[0]; c1 = *(const ee_v8u *)c[1]; c2 = *(const ee_v8u *)c[2];     \
            c3 = *(const ee_v8u *)c[3]; c4 = *(const ee_v8u *)c[4]; c5 = *(const ee_v8u *)c[5];     \
            c6 = *(const ee_v8u *)c[6]; c7 = *(const ee_v8u *)c[7]; c8 = *(const ee_v8u *)c[8];     \
            c9 = *(const ee_v8u *)c[9]; c10 = *(const ee_v8u *)c[10]; c11 = *(const ee_v8u *)c[11]; \
        }                                                                                      \
        for (int p = 0; p < kc; p++) {                                                         \
            ee_v8 b = *(const ee_v8u *)(B + p * bs);                                           \
            ptrdiff_t o = p * acs;                                                             \
            c0 = FMA(EE_BCAST(a[0][o]), b, c0); c1 = FMA(EE_BCAST(a[1][o]), b, c1);            \
            c2 = FMA(EE_BCAST(a[2][o]), b, c2); c3 = FMA(EE_BCAST(a[3][o]), b, c3);            \
            c4 = FMA(EE_BCAST(a[4][o]), b, c4); c5 = FMA(EE_BCAST(a[5][o]), b, c5);            \
            c6 = FMA(EE_BCAST(a[6][o]), b, c6); c7 = FMA(EE_BCAST(a[7][o]), b, c7);            \
            c8 = FMA(EE_BCAST(a[8][o]), b, c8); c9 = FMA(EE_BCAST(a[9][o]), b, c9);            \
            c10 = FMA(EE_BCAST(a[10][o]), b, c10); c11 = FMA(EE_BCAST(a[11][o]), b, c11);      \
        }                                                                                      \
        *(ee_v8u *)c[0] = c0; *(ee_v8u *)c[1] = c1; *(ee_v8u *)c[2] = c2;                      \
        *(ee_v8u *)c[3] = c3; *(ee_v8u *)c[4] = c4; *(ee_v8u *)c[5] = c5;                      \
        *(ee_v8u *)c[6] = c6; *(ee_v8u *)c[7] = c7; *(ee_v8u *)c[8] = c8;                      \
        *(ee_v8u *)c[9] = c9; *(ee_v8u *)c[10] = c10; *(ee_v8u *)c[11] = c11;                  \
        for (int r = 0; r < m; r++)                                                            \
            if (c[r] == buf[r]) memcpy(C + r * ldc, buf[r], sizeof(float) * nc);               \
    }

void ee_gemm_tile8_base(int m, int nc, int kc, const float *A, ptrdiff_t ars, ptrdiff_t acs,
                        const float *B, ptrdiff_t bs, float *C, ptrdiff_t ldc, int acc);
void ee_gemm_tile8_avx2(int m, int nc, int kc, const float *A, ptrdiff_t ars, ptrdiff_t acs,
                        const float *B, ptrdiff_t bs, float *C, ptrdiff_t ldc, int acc);
void ee_gemm_tile_base(int m, int nc, int kc, const float *A, ptrdiff_t ars, ptrdiff_t acs,
                       const float *B, ptrdiff_t bs, float *C, ptrdiff_t ldc, int acc);
void ee_gemm_tile_avx2(int m, int nc, int kc, const float *A, ptrdiff_t ars, ptrdiff_t acs,
                       const float *B, ptrdiff_t bs, float *C, ptrdiff_t ldc, int acc);

/* m <= EE_GEMM_MR512 rows, nc <= 16 EE_GEMM_NV512 columns; B's 16-column
 * strip s starts at B + s*sstep, its rows bs apart (packed or in place:
 * columns past nc are never read) */
void ee_gemm_tile_avx512(int m, int nc, int kc, const float *A, ptrdiff_t ars, ptrdiff_t acs,
                         const float *B, ptrdiff_t sstep, ptrdiff_t bs, float *C, ptrdiff_t ldc, int acc);

#endif
