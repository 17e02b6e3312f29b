/* cpu_gemm.c: the CPU backend's matrix products: blocking, packing of B,
 * the OpenMP split, and the baseline build of the micro-kernel (the AVX2
 * build is in cpu_avx2.c; cpu_gemm.h explains why this is not OpenBLAS).
 *
 * Blocking: op(B) is cut into blocks of KC rows and NC columns; a block
 * is packed into strips of NR columns (alpha folded in), or read in place
 * when few rows use it, and every MR-row tile of C runs over it. The
 * blocks of k are taken in ascending order, each continuing the chains
 * that the previous one left in C, so an element's chain is the same as
 * without blocking. Threads share out the tiles of a block; each element
 * is written by one thread per block, and the barrier between blocks
 * keeps the k order.
 *
 * op(A) = A^T (parameter gradients: a sum over the rows of a batch, and
 * the attention's products of one sequence) runs the same tiles, reading
 * A down its columns: each element is again one chain in ascending k.
 * Nothing here calls OpenBLAS, whose bits depend on the kernel it picks
 * for the processor (doc/RANDOM.md): every FMA machine, AVX2 or AVX-512,
 * gets the same bits. */
#include "cpu_gemm.h"
#include "cpu_internal.h"

#include <stdlib.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#define KC 256
#define NC 512
#define MR EE_GEMM_MR
#define NR EE_GEMM_NR

/* Baseline kernel: multiply and add rounded separately, never contracted
 * (a contracted and an uncontracted path would differ in the last bit). */
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
#define EE_FMA_BASE(a, b, c) ((a) * (b) + (c))
EE_GEMM_TILE(_base, EE_FMA_BASE)
EE_GEMM_TILE8(_base, EE_FMA_BASE)
#pragma GCC pop_options

typedef void (*TileFn)(int, int, int, const float *, ptrdiff_t, ptrdiff_t, const float *, ptrdiff_t,
                       float *, ptrdiff_t, int);

/* avx512: the AVX-512 tiles (cpu_avx512.c), which read a partial last
 * strip of B in place; else the 6 x 16 and 12 x 8 tiles of one build */
typedef struct { TileFn wide, narrow; int avx512; } Tiles;

static Tiles tile_fn(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (ee_cpu_use_avx512()) return (Tiles){NULL, NULL, 1};
#endif
#if defined(EE_HAVE_AVX2_OBJECT)
    if (ee_cpu_use_avx2()) return (Tiles){ee_gemm_tile_avx2, ee_gemm_tile8_avx2, 0};
#endif
    return (Tiles){ee_gemm_tile_base, ee_gemm_tile8_base, 0};
}

static int round_nr(int n) { return (n + NR - 1) / NR * NR; }

size_t ee_cpu_gemm_packed_size(int K, int N) { return (size_t)K * round_nr(N); }

/* Strips [s0, s1) of the block at rows k0..k0+kc, columns n0..n0+nc of
 * op(B), into dst (strip s at s*kc*NR), times alpha, zero past nc. */
static void pack_strips(int tb, const float *B, int ldb, int k0, int kc, int n0, int nc, float alpha,
                        float *dst, int s0, int s1)
{
    for (int s = s0; s < s1; s++) {
        float *d = dst + (size_t)s * kc * NR;
        int j0 = n0 + s * NR, w = nc - s * NR < NR ? nc - s * NR : NR;
        if (tb) /* read along the rows of B (its columns of op(B)) */
            for (int j = 0; j < w; j++) {
                const float *src = B + (size_t)(j0 + j) * ldb + k0;
                for (int p = 0; p < kc; p++) d[(size_t)p * NR + j] = src[p];
            }
        for (int p = 0; p < kc; p++) {
            float *row = d + (size_t)p * NR;
            if (!tb) memcpy(row, B + (size_t)(k0 + p) * ldb + j0, sizeof(float) * w);
            if (alpha != 1.0f)
                for (int j = 0; j < w; j++) row[j] *= alpha;
            for (int j = w; j < NR; j++) row[j] = 0.0f;
        }
    }
}

/* Every tile of C rows [0, M) x block columns [0, nc) for one block of k
 * (op(A) element (i, p) at A[i*ars + p*acs]); B is packed (bs = NR,
 * strip s at s*kc*NR) or read in place (bs = its row stride, strip s at
 * s*NR). A last strip of at most 8 columns takes the narrow tiles. With
 * few rows the strips go outer (one strip serves every row tile from the
 * cache), else the row tiles (one row tile serves every strip). Shared
 * out over the enclosing team when `team` (an orphaned worksharing loop),
 * else by the calling thread. None of this changes a result: each
 * element is the same chain whichever tile computes it. */
/* The AVX-512 tiles: 6 rows by groups of up to 4 strips (the strips of a
 * block shared out evenly over its groups: 7 strips go 4 + 3). */
static void run_block512(int team, int M, int nc, int kc, const float *A, ptrdiff_t ars, ptrdiff_t acs,
                         const float *B, ptrdiff_t bs, float *C, ptrdiff_t ldc, int acc)
{
    const int MR5 = EE_GEMM_MR512, NV = EE_GEMM_NV512;
    int strips = (nc + NR - 1) / NR, groups = (strips + NV - 1) / NV, tiles_m = (M + MR5 - 1) / MR5;
    int per = strips / groups, extra = strips % groups, strips_outer = tiles_m <= 16;
    long items = (long)tiles_m * groups;
    size_t sstep = bs == NR ? (size_t)kc * NR : NR;
#define EE_GEMM_ITEM512(q)                                                                     \
    do {                                                                                       \
        int t = strips_outer ? (int)((q) % tiles_m) : (int)((q) / groups);                     \
        int g = strips_outer ? (int)((q) / tiles_m) : (int)((q) % groups), i = t * MR5;        \
        int s0 = g * per + (g < extra ? g : extra), ns = per + (g < extra);                    \
        int m = M - i < MR5 ? M - i : MR5, w = nc - s0 * NR < ns * NR ? nc - s0 * NR : ns * NR; \
        ee_gemm_tile_avx512(m, w, kc, A + i * ars, ars, acs, B + s0 * sstep, sstep, bs,       \
                            C + i * ldc + s0 * NR, ldc, acc);                                  \
    } while (0)
    if (team) {
        #pragma omp for schedule(static)
        for (long q = 0; q < items; q++) EE_GEMM_ITEM512(q);
    } else {
        for (long q = 0; q < items; q++) EE_GEMM_ITEM512(q);
    }
#undef EE_GEMM_ITEM512
}

static void run_block(Tiles tl, int team, int M, int nc, int kc, const float *A, ptrdiff_t ars,
                      ptrdiff_t acs, const float *B, ptrdiff_t bs, float *C, ptrdiff_t ldc, int acc)
{
    if (tl.avx512) {
        run_block512(team, M, nc, kc, A, ars, acs, B, bs, C, ldc, acc);
        return;
    }
    int strips = (nc + NR - 1) / NR, tiles_m = (M + MR - 1) / MR, strips_outer = tiles_m <= 16;
    int narrow = nc % NR != 0 && nc % NR <= EE_GEMM_NR8, wide = strips - narrow;
    int tiles8 = narrow ? (M + EE_GEMM_MR8 - 1) / EE_GEMM_MR8 : 0;
    long items = (long)tiles_m * wide + tiles8;
    size_t sstep = bs == NR ? (size_t)kc * NR : NR;
#define EE_GEMM_ITEM(q)                                                                        \
    do {                                                                                       \
        if ((q) >= (long)tiles_m * wide) { /* narrow tile of the last strip */                 \
            int i = (int)((q) - (long)tiles_m * wide) * EE_GEMM_MR8, s = wide;                 \
            int m = M - i < EE_GEMM_MR8 ? M - i : EE_GEMM_MR8;                                 \
            tl.narrow(m, nc - s * NR, kc, A + i * ars, ars, acs, B + s * sstep, bs,            \
                      C + i * ldc + s * NR, ldc, acc);                                         \
            break;                                                                             \
        }                                                                                      \
        int t = strips_outer ? (int)((q) % tiles_m) : (int)((q) / wide);                       \
        int s = strips_outer ? (int)((q) / tiles_m) : (int)((q) % wide), i = t * MR;           \
        int m = M - i < MR ? M - i : MR, w = nc - s * NR < NR ? nc - s * NR : NR;              \
        tl.wide(m, w, kc, A + i * ars, ars, acs, B + s * sstep, bs, C + i * ldc + s * NR, ldc, acc); \
    } while (0)
    if (team) {
        #pragma omp for schedule(static)
        for (long q = 0; q < items; q++) EE_GEMM_ITEM(q);
    } else {
        for (long q = 0; q < items; q++) EE_GEMM_ITEM(q);
    }
#undef EE_GEMM_ITEM
}

/* C = beta C before the chains start (beta = 0 writes exact zeros, as
 * BLAS does, so NaN in C does not survive). */
static void scale_c(int M, int N, float beta, float *C, int ldc)
{
    #pragma omp parallel for if ((size_t)M * N > 65536) schedule(static)
    for (int i = 0; i < M; i++) {
        float *c = C + (size_t)i * ldc;
        for (int j = 0; j < N; j++) c[j] = beta == 0.0f ? 0.0f : beta * c[j];
    }
}

/* pack_b: 1 packs every strip of B, 0 reads full strips in place (packing
 * then only the partial last one), -1 decides by the number of rows */
static void gemm(int ta, int tb, int M, int N, int K, float alpha, const float *A, int lda,
                 const float *B, int ldb, float beta, float *C, int ldc, int pack_b);

void ee_cpu_gemm(int ta, int tb, int M, int N, int K, float alpha, const float *A, int lda,
                 const float *B, int ldb, float beta, float *C, int ldc)
{
    gemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, -1);
}

void ee_cpu_gemm_inplace(int M, int N, int K, const float *A, int lda, const float *B, int ldb,
                         float beta, float *C, int ldc)
{
    gemm(0, 0, M, N, K, 1.0f, A, lda, B, ldb, beta, C, ldc, 0);
}

typedef struct {
    Tiles tile;
    int M, N, K;
    float alpha;
    const float *A;
    ptrdiff_t ars, acs; /* op(A) element (i, p) at A[i*ars + p*acs] */
    const float *B;
    int ldb;
    float *C;
    int ldc, tb, pack_b, first_acc;
    float *bpack;
    float *apack; /* op(A) = A^T: each block of k transposed here first, or NULL */
} GemmBlocks;

/* Rows [i0, i1) of op(A) = A^T over the block of k (kc rows of A from
 * A, row stride lda) into dst, row-major with row stride kc: the tiles
 * then read rows of op(A) as they do without transposition. */
static void transpose_block(const float *A, ptrdiff_t lda, int kc, int i0, int i1, float *dst)
{
    /* in blocks of 8 rows of A by 16 of its columns: the 8 source lines
     * stay in the cache (one set each, even where lda is a multiple of
     * 4 KB) while the 16 destination rows are written */
    for (int ib = i0; ib < i1; ib += 16) {
        int ni = i1 - ib < 16 ? i1 - ib : 16;
        for (int pb = 0; pb < kc; pb += 8) {
            int np = kc - pb < 8 ? kc - pb : 8;
            const float *src = A + pb * lda + ib;
            for (int r = 0; r < ni; r++) {
                float *d = dst + (size_t)(ib + r) * kc + pb;
                for (int c = 0; c < np; c++) d[c] = src[c * lda + r];
            }
        }
    }
}

/* The blocks of k in ascending order, each over the blocks of N; with
 * `team` the work of each block is shared out over the enclosing team
 * (orphaned worksharing), else the calling thread does it all. */
static void gemm_blocks(const GemmBlocks *g, int team)
{
    int M = g->M, N = g->N, K = g->K, ldb = g->ldb, ldc = g->ldc;
    const float *B = g->B;
    float *C = g->C, *bpack = g->bpack;
    for (int k0 = 0; k0 < K; k0 += KC) {
        int kc = K - k0 < KC ? K - k0 : KC;
        const float *A = g->A + k0 * g->acs;
        ptrdiff_t ars = g->ars, acs = g->acs;
        if (g->apack) {
            if (team) {
                #pragma omp for schedule(static)
                for (int i0 = 0; i0 < M; i0 += 32) transpose_block(A, acs, kc, i0, M - i0 < 32 ? M : i0 + 32, g->apack);
            } else {
                transpose_block(A, acs, kc, 0, M, g->apack);
            }
            A = g->apack, ars = kc, acs = 1;
        }
        for (int n0 = 0; n0 < N; n0 += NC) {
            int nc = N - n0 < NC ? N - n0 : NC, full = nc / NR * NR;
            int acc = k0 > 0 || g->first_acc;
            if (g->pack_b) {
                int strips = (nc + NR - 1) / NR;
                if (team) {
                    #pragma omp for schedule(static)
                    for (int s = 0; s < strips; s++)
                        pack_strips(g->tb, B, ldb, k0, kc, n0, nc, g->alpha, bpack, s, s + 1);
                } else {
                    pack_strips(g->tb, B, ldb, k0, kc, n0, nc, g->alpha, bpack, 0, strips);
                }
                run_block(g->tile, team, M, nc, kc, A, ars, acs, bpack, NR, C + n0, ldc, acc);
                continue;
            }
            /* in place: the AVX-512 tiles read a partial strip in place too */
            if (g->tile.avx512) full = nc;
            if (full)
                run_block(g->tile, team, M, full, kc, A, ars, acs, B + (size_t)k0 * ldb + n0, ldb, C + n0,
                          ldc, acc);
            if (full < nc) {
                if (team) {
                    #pragma omp single
                    pack_strips(0, B, ldb, k0, kc, n0 + full, nc - full, 1.0f, bpack, 0, 1);
                } else {
                    pack_strips(0, B, ldb, k0, kc, n0 + full, nc - full, 1.0f, bpack, 0, 1);
                }
                run_block(g->tile, team, M, nc - full, kc, A, ars, acs, bpack, NR, C + n0 + full, ldc, acc);
            }
        }
    }
}

static void gemm(int ta, int tb, int M, int N, int K, float alpha, const float *A, int lda,
                 const float *B, int ldb, float beta, float *C, int ldc, int pack_b)
{
    if (M <= 0 || N <= 0) return;
    int skip = K <= 0 || alpha == 0.0f;
    /* with beta = 0 the first block of k starts its chains from 0 itself */
    if (beta != 1.0f && (beta != 0.0f || skip)) scale_c(M, N, beta, C, ldc);
    if (skip) return;
    /* B is packed when many row tiles reuse it (contiguous strips stream
     * better) and when it must be (transposed, scaled, a partial last
     * strip); fewer rows read full strips of a plain B in place. The
     * values, and so the chains, are the same either way. */
    if (pack_b < 0) pack_b = M > 256;
    pack_b = pack_b || tb || alpha != 1.0f;
    int kcm = K < KC ? K : KC, ncm = N < NC ? round_nr(N) : NC;
    size_t pack_floats = (size_t)kcm * (pack_b ? ncm : NR);
    /* the calling thread keeps its packing buffer between products; a
     * product inside a parallel region (one task of an op: the attention
     * of one sequence and head) uses its own, on the stack up to 64 KB
     * (a key block of 256 positions by 64 columns) */
    int nested = 0;
#ifdef _OPENMP
    nested = omp_in_parallel();
#endif
    float strip[4 * KC * NR];
    float *bpack = !nested ? ee_cpu_scratch(EE_SCRATCH_PACK, sizeof(float) * pack_floats)
                 : pack_floats <= 4 * KC * NR ? strip : malloc(sizeof(float) * pack_floats);
    if (!bpack) {
        ee_cpu_raise_nomem(); /* ee_backend_check reports it */
        return;
    }
    Tiles tile = tile_fn();
    int first_acc = beta != 0.0f;
    int par = 2.0 * M * N * K >= 1e6;
#ifdef _OPENMP
    par = par && !omp_in_parallel() && omp_get_max_threads() > 1;
#endif
    /* op(A) = A^T is read down the columns of A in place, or transposed
     * block by block where A's rows are long (over 1 KB: a tile's loads
     * would fall into few cache sets); never inside a parallel region
     * (the attention's products of a few dozen rows) */
    float *apack = NULL;
    if (ta && lda > 256 && !nested && !(apack = ee_cpu_scratch(EE_SCRATCH_PACK_A, sizeof(float) * (size_t)M * kcm))) {
        ee_cpu_raise_nomem();
        return;
    }
    GemmBlocks g = {tile, M, N, K, alpha, A, ta ? 1 : lda, ta ? lda : 1, B, ldb, C, ldc, tb, pack_b, first_acc, bpack,
                    apack};
    /* a region only where it shares out work: a team of one (a product
     * inside a parallel region, or a small one) costs more than the product */
    if (par) {
        #pragma omp parallel
        gemm_blocks(&g, 1);
    } else {
        gemm_blocks(&g, 0);
    }
    if (nested && bpack != strip) free(bpack);
}

void ee_cpu_gemm_pack(int tb, int K, int N, float alpha, const float *B, int ldb, float *packed)
{
    for (int n0 = 0; n0 < N; n0 += NC) {
        int nc = N - n0 < NC ? N - n0 : NC;
        for (int k0 = 0; k0 < K; k0 += KC) {
            int kc = K - k0 < KC ? K - k0 : KC;
            pack_strips(tb, B, ldb, k0, kc, n0, nc, alpha, packed + (size_t)n0 * K + (size_t)k0 * round_nr(nc),
                        0, (nc + NR - 1) / NR);
        }
    }
}

void ee_cpu_gemm_run(int ta, int M, int N, int K, const float *A, int lda, const float *packed,
                     int accumulate, float *C, int ldc)
{
    if (M <= 0 || N <= 0 || K <= 0) return;
    Tiles tile = tile_fn();
    for (int n0 = 0; n0 < N; n0 += NC) {
        int nc = N - n0 < NC ? N - n0 : NC;
        for (int k0 = 0; k0 < K; k0 += KC) {
            int kc = K - k0 < KC ? K - k0 : KC;
            run_block(tile, 0, M, nc, kc, A + (ta ? (size_t)k0 * lda : (size_t)k0), ta ? 1 : lda, ta ? lda : 1,
                      packed + (size_t)n0 * K + (size_t)k0 * round_nr(nc), NR, C + n0, ldc, k0 > 0 || accumulate);
        }
    }
}
