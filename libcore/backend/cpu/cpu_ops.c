/* cpu_ops.c: the CPU backend: OpenBLAS (run single-threaded) for the
 * GEMMs, OpenMP for all parallelism.
 *
 * Threading model (cpu_threads.c): libcore never lets OpenBLAS start its
 * own threads (ee_threads_enter sets it to 1 thread); every op splits its work over
 * the OpenMP team instead, and BLAS is called from inside those regions on
 * disjoint blocks. One pool, no oversubscription. */
#include "../backend.h"
#include "cpu_internal.h"
#include "cpu_math.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* The loops of cpu_math.h (GELU, softmax, LayerNorm rows), for the
 * baseline here and for AVX2+FMA in cpu_avx2.c, picked at run time. */
EE_GELU_LOOPS(_base)
EE_SOFTMAX_ROWS(_base)
EE_LN_ROWS(_base)

#define GELU_BLOCK 4096
#if defined(EE_HAVE_AVX2_OBJECT)
/* the AVX-512 GELU and softmax: the AVX2 loops' bits, twice the lanes */
#define GELU_FWD(X, Y, n) (ee_cpu_use_avx512() ? ee_gelu_fwd_block_avx512(X, Y, n) : ee_cpu_use_avx2() ? ee_gelu_fwd_block_avx2(X, Y, n) : ee_gelu_fwd_block_base(X, Y, n))
#define GELU_BWD(X, dY, dX, n) (ee_cpu_use_avx2() ? ee_gelu_bwd_block_avx2(X, dY, dX, n) : ee_gelu_bwd_block_base(X, dY, dX, n))
#define SOFTMAX_ROWS(P, ld, mk, rows, S) (ee_cpu_use_avx512() ? ee_softmax_rows_avx512(P, ld, mk, rows, S) : ee_cpu_use_avx2() ? ee_softmax_rows_avx2(P, ld, mk, rows, S) : ee_softmax_rows_base(P, ld, mk, rows, S))
#define LN_FWD(...) (ee_cpu_use_avx2() ? ee_ln_fwd_rows_avx2(__VA_ARGS__) : ee_ln_fwd_rows_base(__VA_ARGS__))
#define LN_BWD(...) (ee_cpu_use_avx2() ? ee_ln_bwd_rows_avx2(__VA_ARGS__) : ee_ln_bwd_rows_base(__VA_ARGS__))
#else
#define LN_FWD(...) ee_ln_fwd_rows_base(__VA_ARGS__)
#define LN_BWD(...) ee_ln_bwd_rows_base(__VA_ARGS__)
#define SOFTMAX_ROWS(P, ld, mk, rows, S) ee_softmax_rows_base(P, ld, mk, rows, S)
#define GELU_FWD(X, Y, n) ((void)ee_cpu_use_avx2, ee_gelu_fwd_block_base(X, Y, n))
#define GELU_BWD(X, dY, dX, n) ((void)ee_cpu_use_avx2, ee_gelu_bwd_block_base(X, dY, dX, n))
#endif

/* ---- memory ------------------------------------------------------------- */
static void *cpu_alloc(size_t bytes) { return ee_cpu_alloc(bytes); }
/* A scratch buffer is not zeroed: its user writes it before reading it.
 * EE_POISON_SCRATCH=1 fills it with NaN bytes instead, so that a test run
 * under it fails wherever that promise is broken (tests/run_all.sh; a
 * fresh mapping reads as zeros and would hide it). */
static void *cpu_alloc_scratch(size_t bytes)
{
    static int poison = -1;
    if (poison < 0) {
        const char *env = getenv("EE_POISON_SCRATCH");
        poison = env && !strcmp(env, "1");
    }
    void *p = ee_host_alloc(bytes);
    if (p && poison) memset(p, 0xFF, bytes);
    return p;
}
static void cpu_release(void *p) { ee_cpu_free(p); }
/* Copies of a megabyte and more (a batch's activations) are shared out
 * over the team, which would otherwise wait for one thread. */
#define COPY_CHUNK ((size_t)1 << 16)
static void cpu_memcpy(void *dst, const void *src, size_t bytes)
{
    if (bytes < ((size_t)1 << 20)) {
        if (bytes) memcpy(dst, src, bytes);
        return;
    }
    long chunks = (long)((bytes + COPY_CHUNK - 1) / COPY_CHUNK);
    #pragma omp parallel for schedule(static)
    for (long i = 0; i < chunks; i++) {
        size_t off = (size_t)i * COPY_CHUNK, n = bytes - off < COPY_CHUNK ? bytes - off : COPY_CHUNK;
        memcpy((char *)dst + off, (const char *)src + off, n);
    }
}
static void cpu_zero(void *dst, size_t bytes)
{
    if (bytes) memset(dst, 0, bytes);
}
static void cpu_sync(void) {}

/* ---- GEMM ------------------------------------------------------------------ */
/* Our own kernel, not OpenBLAS: see cpu_gemm.h. */
static void cpu_gemm(int ta, int tb, int M, int N, int K, float alpha,
                     const float *A, int lda, const float *B, int ldb,
                     float beta, float *C, int ldc)
{
    ee_cpu_gemm(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

/* ---- elementwise ------------------------------------------------------------ */
static void cpu_axpy(size_t n, float a, const float *x, float *y)
{
    /* simd: the same operations per element, in vectors (no contraction
     * in this baseline build) */
    #pragma omp parallel for simd if (n > 65536) schedule(static)
    for (size_t i = 0; i < n; i++) y[i] += a * x[i];
}

static void cpu_scale(size_t n, float a, float *x)
{
    #pragma omp parallel for if (n > 65536) schedule(static)
    for (size_t i = 0; i < n; i++) x[i] *= a;
}

static void cpu_add_bias(float *Y, const float *b, int rows, int cols)
{
    #pragma omp parallel for if ((size_t)rows * cols > 65536) schedule(static)
    for (int r = 0; r < rows; r++) {
        float *y = Y + (size_t)r * cols;
        #pragma omp simd
        for (int c = 0; c < cols; c++) y[c] += b[c];
    }
}

static void cpu_bias_grad(const float *dY, float *db, int rows, int cols)
{
    /* Column sums in double, rows in order: these add up thousands of rows. */
    double *acc = ee_cpu_scratch(EE_SCRATCH_OP, sizeof(double) * (size_t)cols);
    if (!acc) return;
    memset(acc, 0, sizeof(double) * (size_t)cols);
    for (int r = 0; r < rows; r++) {
        const float *y = dY + (size_t)r * cols;
        for (int c = 0; c < cols; c++) acc[c] += y[c];
    }
    for (int c = 0; c < cols; c++) db[c] += (float)acc[c];
}

/* Row blocks over the OpenMP team; the per-row work is in cpu_math.h. */
#define LN_ROWS_PER_TASK 64
static void cpu_layernorm_fwd(const float *X, const float *g, const float *b, float *Y,
                              float *mean, float *rstd, int rows, int cols, float eps)
{
    int tasks = (rows + LN_ROWS_PER_TASK - 1) / LN_ROWS_PER_TASK;
    #pragma omp parallel for if ((size_t)rows * cols > 32768) schedule(static)
    for (int k = 0; k < tasks; k++) {
        int r0 = k * LN_ROWS_PER_TASK, r1 = r0 + LN_ROWS_PER_TASK < rows ? r0 + LN_ROWS_PER_TASK : rows;
        LN_FWD(X, g, b, Y, mean, rstd, r0, r1, cols, eps);
    }
}

/* dX from the rows; dgamma and dbeta (when asked for) are sums over all
 * rows: kept in double per block of LN_ROWS_PER_TASK rows and added in
 * block order, so the sum does not depend on the thread count. */
static void cpu_layernorm_bwd(const float *dY, const float *X, const float *g,
                              const float *mean, const float *rstd, float *dX,
                              float *dg, float *db, int rows, int cols, int accumulate)
{
    int tasks = (rows + LN_ROWS_PER_TASK - 1) / LN_ROWS_PER_TASK;
    #pragma omp parallel for if ((size_t)rows * cols > 32768) schedule(static)
    for (int k = 0; k < tasks; k++) {
        int r0 = k * LN_ROWS_PER_TASK, r1 = r0 + LN_ROWS_PER_TASK < rows ? r0 + LN_ROWS_PER_TASK : rows;
        LN_BWD(dY, X, g, mean, rstd, dX, r0, r1, cols, accumulate);
    }
    if (!dg && !db) return;
    double *part = ee_cpu_scratch(EE_SCRATCH_OP, sizeof(double) * (size_t)tasks * 2 * cols);
    if (!part) return;
    #pragma omp parallel for if ((size_t)rows * cols > 32768) schedule(static)
    for (int k = 0; k < tasks; k++) {
        double *pg = part + (size_t)k * 2 * cols, *pb = pg + cols;
        memset(pg, 0, sizeof(double) * 2 * (size_t)cols);
        int r0 = k * LN_ROWS_PER_TASK, r1 = r0 + LN_ROWS_PER_TASK < rows ? r0 + LN_ROWS_PER_TASK : rows;
        for (int r = r0; r < r1; r++) {
            const float *x = X + (size_t)r * cols, *dy = dY + (size_t)r * cols;
            float m = mean[r], rs = rstd[r];
            for (int c = 0; c < cols; c++) {
                pg[c] += (double)dy[c] * ((x[c] - m) * rs);
                pb[c] += dy[c];
            }
        }
    }
    for (int c = 0; c < cols; c++) {
        double sg = 0, sb = 0;
        for (int k = 0; k < tasks; k++) {
            sg += part[(size_t)k * 2 * cols + c];
            sb += part[(size_t)k * 2 * cols + cols + c];
        }
        if (dg) dg[c] += (float)sg;
        if (db) db[c] += (float)sb;
    }
}

static void cpu_gelu_fwd(const float *X, float *Y, size_t n)
{
    long blocks = (long)((n + GELU_BLOCK - 1) / GELU_BLOCK);
    #pragma omp parallel for if (blocks > 4) schedule(static)
    for (long b = 0; b < blocks; b++) {
        size_t i0 = (size_t)b * GELU_BLOCK, m = n - i0 < GELU_BLOCK ? n - i0 : GELU_BLOCK;
        GELU_FWD(X + i0, Y + i0, m);
    }
}

static void cpu_gelu_bwd(const float *X, const float *dY, float *dX, size_t n)
{
    long blocks = (long)((n + GELU_BLOCK - 1) / GELU_BLOCK);
    #pragma omp parallel for if (blocks > 4) schedule(static)
    for (long b = 0; b < blocks; b++) {
        size_t i0 = (size_t)b * GELU_BLOCK, m = n - i0 < GELU_BLOCK ? n - i0 : GELU_BLOCK;
        GELU_BWD(X + i0, dY + i0, dX + i0, m);
    }
}

static void cpu_relu_fwd(const float *X, float *Y, size_t n)
{
    #pragma omp parallel for if (n > 65536) schedule(static)
    for (size_t i = 0; i < n; i++) Y[i] = X[i] > 0 ? X[i] : 0.0f;
}

static void cpu_relu_bwd(const float *X, const float *dY, float *dX, size_t n)
{
    #pragma omp parallel for if (n > 65536) schedule(static)
    for (size_t i = 0; i < n; i++) dX[i] = X[i] > 0 ? dY[i] : 0.0f;
}

static void cpu_mul_mask(float *X, const uint8_t *mask, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!mask[i]) X[i] = 0.0f;
}

static void cpu_tanh_fwd(const float *X, float *Y, size_t n)
{
    for (size_t i = 0; i < n; i++) Y[i] = tanhf(X[i]);
}

static void cpu_tanh_bwd(const float *Y, const float *dY, float *dX, size_t n)
{
    for (size_t i = 0; i < n; i++) dX[i] = dY[i] * (1.0f - Y[i] * Y[i]);
}

/* Keep element i iff hash(seed ^ i) maps below 1 - p in 24-bit fixed point. */
static void cpu_dropout_fwd(float *X, uint8_t *keep, size_t n, float p, uint64_t seed)
{
    if (p <= 0) return;
    uint32_t thr = (uint32_t)((1.0 - p) * 16777216.0);
    float sc = 1.0f / (1.0f - p);
    #pragma omp parallel for if (n > 65536) schedule(static)
    for (size_t i = 0; i < n; i++) {
        uint32_t u = (uint32_t)(ee_hash64(seed ^ (uint64_t)i) >> 40);
        keep[i] = u < thr;
        X[i] = keep[i] ? X[i] * sc : 0.0f;
    }
}

static void cpu_dropout_bwd(float *dX, const uint8_t *keep, size_t n, float p)
{
    if (p <= 0) return;
    float sc = 1.0f / (1.0f - p);
    #pragma omp parallel for if (n > 65536) schedule(static)
    for (size_t i = 0; i < n; i++) dX[i] = keep[i] ? dX[i] * sc : 0.0f;
}

/* ---- attention -------------------------------------------------------------- */
/* Keys past the last attended position have probability exactly 0, so the
 * products run over the first `span` keys only (same result, fewer flops).
 * Query rows at or past `span` are masked positions that no model reads:
 * their context rows are set to 0. */
static int attended_span(const uint8_t *mask, int T)
{
    int span = 0;
    for (int t = 0; t < T; t++)
        if (mask[t]) span = t + 1;
    return span;
}

static void cpu_attention_fwd(const float *q, const float *k, const float *v,
                              const uint8_t *mask, float *P, float *ctx,
                              int B, int T, int d, int H)
{
    int dh = d / H;
    float scale = 1.0f / sqrtf((float)dh);
    /* small problems run serially: a parallel region costs more than it saves */
    #pragma omp parallel for schedule(dynamic, 1) if ((size_t)B * T * T * d > 200000)
    for (int bh = 0; bh < B * H; bh++) {
        int b = bh / H, h = bh % H;
        const uint8_t *mk = mask + (size_t)b * T;
        int S = attended_span(mk, T);
        const float *qb = q + (size_t)b * T * d + h * dh;
        const float *kb = k + (size_t)b * T * d + h * dh;
        const float *vb = v + (size_t)b * T * d + h * dh;
        float *Pb = P + (size_t)bh * T * T;
        float *cb = ctx + (size_t)b * T * d + h * dh;
        /* P outside the S x S block and the context rows past S are 0
         * (written here, not computed); the products write the rest */
        for (int t = 0; t < S; t++) memset(Pb + (size_t)t * T + S, 0, sizeof(float) * (size_t)(T - S));
        memset(Pb + (size_t)S * T, 0, sizeof(float) * (size_t)(T - S) * T);
        for (int t = S; t < T; t++) memset(cb + (size_t)t * d, 0, sizeof(float) * dh);
        if (S == 0) continue;
        /* scores for the first S queries and keys, row stride T (the
         * backend's own chains, as every product: doc/RANDOM.md) */
        ee_cpu_gemm(0, 1, S, S, dh, scale, qb, d, kb, d, 0.0f, Pb, T);
        SOFTMAX_ROWS(Pb, T, mk, S, S);
        ee_cpu_gemm(0, 0, S, dh, S, 1.0f, Pb, T, vb, d, 0.0f, cb, d);
    }
}

static void cpu_attention_bwd(const float *q, const float *k, const float *v,
                              const uint8_t *mask, const float *P, const float *dctx,
                              float *dq, float *dk, float *dv, int B, int T, int d, int H)
{
    int dh = d / H;
    float scale = 1.0f / sqrtf((float)dh);
    /* one T x T block per thread, taken by the calling thread: a block
     * malloc'ed by a team thread would land in that thread's malloc arena,
     * which glibc does not give back to the system when it is freed (an
     * interrupted call then leaves the process megabytes larger) */
    int par = (size_t)B * T * T * d > 200000, team = par ? ee_threads_count() : 1;
    float *blocks = ee_cpu_scratch(EE_SCRATCH_OP, sizeof(float) * (size_t)team * T * T);
    if (!blocks) return; /* the flag is raised: the call fails */
    #pragma omp parallel if (par) num_threads (team)
    {
#ifdef _OPENMP
        float *dS = blocks + (size_t)omp_get_thread_num() * T * T;
#else
        float *dS = blocks;
#endif
        #pragma omp for schedule(dynamic, 1)
        for (int bh = 0; bh < B * H; bh++) {
            int b = bh / H, h = bh % H;
            int S = attended_span(mask + (size_t)b * T, T);
            size_t off = (size_t)b * T * d + h * dh;
            const float *Pb = P + (size_t)bh * T * T;
            for (int t = S; t < T; t++) { /* rows < S are written by the products below */
                memset(dq + off + (size_t)t * d, 0, sizeof(float) * dh);
                memset(dk + off + (size_t)t * d, 0, sizeof(float) * dh);
                memset(dv + off + (size_t)t * d, 0, sizeof(float) * dh);
            }
            if (S == 0) continue;
            /* dP = dctx v^T ; dv = P^T dctx */
            ee_cpu_gemm(0, 1, S, S, dh, 1.0f, dctx + off, d, v + off, d, 0.0f, dS, T);
            ee_cpu_gemm(1, 0, S, dh, S, 1.0f, Pb, T, dctx + off, d, 0.0f, dv + off, d);
            /* softmax backward: dS = P .* (dP - rowsum(P .* dP)), times scale */
            for (int i = 0; i < S; i++) {
                const float *p = Pb + (size_t)i * T;
                float *ds = dS + (size_t)i * T;
                double dot = 0;
                for (int j = 0; j < S; j++) dot += (double)p[j] * ds[j];
                for (int j = 0; j < S; j++) ds[j] = p[j] * (ds[j] - (float)dot) * scale;
            }
            ee_cpu_gemm(0, 0, S, dh, S, 1.0f, dS, T, k + off, d, 0.0f, dq + off, d);
            ee_cpu_gemm(1, 0, S, dh, S, 1.0f, dS, T, q + off, d, 0.0f, dk + off, d);
        }
    }
}

/* One query row per sequence: scores over the first `span` keys, softmax,
 * context. Plain loops: each (sequence, head) is a dh x span product. */
static void cpu_attention_cls_fwd(const float *q, const float *k, const float *v,
                                  const uint8_t *mask, float *P, float *ctx,
                                  int B, int T, int d, int H)
{
    int dh = d / H;
    float scale = 1.0f / sqrtf((float)dh);
    #pragma omp parallel for schedule(static) if ((size_t)B * T * d > 65536)
    for (int bh = 0; bh < B * H; bh++) {
        int b = bh / H, h = bh % H;
        const uint8_t *mk = mask + (size_t)b * T;
        int S = attended_span(mk, T);
        const float *qb = q + (size_t)b * d + h * dh;
        float *p = P + (size_t)bh * T, *cb = ctx + (size_t)b * d + h * dh;
        float mx = -INFINITY;
        /* four keys at a time: four independent chains, each in the order
         * c = 0, 1, ... (the chains of one key at a time, interleaved) */
        for (int j0 = 0; j0 < S; j0 += 4) {
            int nj = S - j0 < 4 ? S - j0 : 4;
            const float *kj = k + ((size_t)b * T + j0) * d + h * dh;
            float sc[4] = {0, 0, 0, 0};
            if (nj == 4) {
                for (int c = 0; c < dh; c++) {
                    sc[0] += qb[c] * kj[c];
                    sc[1] += qb[c] * kj[d + c];
                    sc[2] += qb[c] * kj[2 * d + c];
                    sc[3] += qb[c] * kj[3 * d + c];
                }
            } else {
                for (int u = 0; u < nj; u++)
                    for (int c = 0; c < dh; c++) sc[u] += qb[c] * kj[(size_t)u * d + c];
            }
            for (int u = 0; u < nj; u++) {
                int j = j0 + u;
                if (!mk[j]) { p[j] = 0; continue; }
                p[j] = sc[u] * scale;
                if (p[j] > mx) mx = p[j];
            }
        }
        double sum = 0;
        for (int j = 0; j < S; j++) {
            float e = mk[j] ? fast_expf(p[j] - mx) : 0.0f;
            p[j] = e;
            sum += e;
        }
        float inv = sum > 0 ? (float)(1.0 / sum) : 0.0f;
        for (int c = 0; c < dh; c++) cb[c] = 0;
        for (int j = 0; j < S; j++) {
            p[j] *= inv;
            const float *vj = v + ((size_t)b * T + j) * d + h * dh;
            float pj = p[j];
            #pragma omp simd
            for (int c = 0; c < dh; c++) cb[c] += pj * vj[c];
        }
        for (int j = S; j < T; j++) p[j] = 0;
    }
}

static void cpu_attention_cls_bwd(const float *q, const float *k, const float *v,
                                  const uint8_t *mask, const float *P, const float *dctx,
                                  float *dq, float *dk, float *dv, int B, int T, int d, int H)
{
    int dh = d / H;
    float scale = 1.0f / sqrtf((float)dh);
    memset(dk, 0, sizeof(float) * (size_t)B * T * d);
    memset(dv, 0, sizeof(float) * (size_t)B * T * d);
    #pragma omp parallel for schedule(static) if ((size_t)B * T * d > 65536)
    for (int bh = 0; bh < B * H; bh++) {
        int b = bh / H, h = bh % H;
        int S = attended_span(mask + (size_t)b * T, T);
        const float *qb = q + (size_t)b * d + h * dh, *gc = dctx + (size_t)b * d + h * dh;
        const float *p = P + (size_t)bh * T;
        float *gq = dq + (size_t)b * d + h * dh;
        /* dP_j = dctx . v_j ; dS_j = P_j (dP_j - sum_i P_i dP_i) scale */
        double dot = 0;
        for (int j = 0; j < S; j++) {
            const float *vj = v + ((size_t)b * T + j) * d + h * dh;
            float g = 0;
            for (int c = 0; c < dh; c++) g += gc[c] * vj[c];
            dot += (double)p[j] * g;
        }
        for (int c = 0; c < dh; c++) gq[c] = 0;
        for (int j = 0; j < S; j++) {
            size_t off = ((size_t)b * T + j) * d + h * dh;
            const float *vj = v + off, *kj = k + off;
            float g = 0;
            for (int c = 0; c < dh; c++) g += gc[c] * vj[c];
            float ds = p[j] * (g - (float)dot) * scale;
            for (int c = 0; c < dh; c++) {
                gq[c] += ds * kj[c];
                dk[off + c] = ds * qb[c];
                dv[off + c] = p[j] * gc[c];
            }
        }
    }
}

/* ---- embeddings ------------------------------------------------------------ */
static void cpu_embed_fwd(const int32_t *ids, const float *E_tok, const float *E_pos,
                          float *out, int B, int T, int d)
{
    #pragma omp parallel for if ((size_t)B * T * d > 65536) schedule(static)
    for (int r = 0; r < B * T; r++) {
        const float *e = E_tok + (size_t)ids[r] * d;
        float *o = out + (size_t)r * d;
        if (E_pos) {
            const float *p = E_pos + (size_t)(r % T) * d;
            for (int c = 0; c < d; c++) o[c] = e[c] + p[c];
        } else {
            memcpy(o, e, sizeof(float) * d);
        }
    }
}

static void cpu_embed_bwd(const int32_t *ids, const float *dOut, float *dE_tok,
                          float *dE_pos, int B, int T, int d)
{
    /* Serial scatter: rows collide on repeated ids. */
    for (int r = 0; r < B * T; r++) {
        const float *g = dOut + (size_t)r * d;
        if (dE_tok && ids[r] != EE_PAD) {
            float *e = dE_tok + (size_t)ids[r] * d;
            for (int c = 0; c < d; c++) e[c] += g[c];
        }
        if (dE_pos) {
            float *p = dE_pos + (size_t)(r % T) * d;
            for (int c = 0; c < d; c++) p[c] += g[c];
        }
    }
}

/* ---- text CNN ----------------------------------------------------------------- */
/* Output position t sees tokens t..t+w-1 (zero vectors past T): one
 * product per sequence of the windows (w*d consecutive floats of E for
 * t <= T-w, zero-padded copies for the last w-1 positions) with W, whose
 * rows j*d+c are already in window order. Rows go through the product
 * kernel, so a position's result does not depend on T (the zeros past a
 * shorter T are the PAD rows of a longer one). Many sequences share one
 * packing of the filters; one sequence reads them in place. */
static void conv_rows(const float *A, int lda, int M, const float *W, const float *packed, int K, int F,
                      float *o)
{
    if (M <= 0) return;
    if (packed) ee_cpu_gemm_run(0, M, F, K, A, lda, packed, 1, o, F);
    else ee_cpu_gemm_inplace(M, F, K, A, lda, W, F, 1.0f, o, F);
}

/* Sequence s of conv_fwd. */
static void conv_seq(const float *E, const float *W, const float *b, float *out, const float *packed, int s,
                     int T, int d, int w, int F, int tail)
{
    int K = w * d;
    const float *e = E + (size_t)s * T * d;
    float *o = out + (size_t)s * T * F;
    for (int t = 0; t < T; t++) {
        if (b) memcpy(o + (size_t)t * F, b, sizeof(float) * F);
        else memset(o + (size_t)t * F, 0, sizeof(float) * F);
    }
    conv_rows(e, d, T - tail, W, packed, K, F, o);
    if (!tail) return;
    /* the zero-padded windows of the last positions: this task's own */
    float small[4096];
    size_t need = (size_t)tail * K;
    float *win = need <= sizeof small / sizeof *small ? small : malloc(sizeof(float) * need);
    if (!win) {
        ee_cpu_raise_nomem();
        return;
    }
    for (int i = 0; i < tail; i++) {
        int t = T - tail + i, have = T - t; /* positions t..T-1 exist */
        memcpy(win + (size_t)i * K, e + (size_t)t * d, sizeof(float) * (size_t)have * d);
        memset(win + (size_t)i * K + (size_t)have * d, 0, sizeof(float) * (size_t)(w - have) * d);
    }
    conv_rows(win, K, tail, W, packed, K, F, o + (size_t)(T - tail) * F);
    if (win != small) free(win);
}

static void cpu_conv_fwd(const float *E, const float *W, const float *b, float *out,
                         int B, int T, int d, int w, int F)
{
    int K = w * d;
    float *packed = NULL;
    int nested = 0;
#ifdef _OPENMP
    nested = omp_in_parallel();
#endif
    if (B >= 4 && !nested) {
        packed = ee_cpu_scratch(EE_SCRATCH_OP, sizeof(float) * ee_cpu_gemm_packed_size(K, F));
        if (!packed) return;
        ee_cpu_gemm_pack(0, K, F, 1.0f, W, F, packed);
    }
    int tail = w - 1 < T ? w - 1 : T; /* positions whose window passes the end */
    if (ee_team_worth((size_t)B * T * d * F * w, 200000)) {
        #pragma omp parallel for schedule(static)
        for (int s = 0; s < B; s++) conv_seq(E, W, b, out, packed, s, T, d, w, F, tail);
    } else {
        for (int s = 0; s < B; s++) conv_seq(E, W, b, out, packed, s, T, d, w, F, tail);
    }
}

/* dE per sequence (tasks); dW and db add the sequences in order, so the
 * sums do not depend on the thread count (only the tests call this op:
 * training goes through conv_pool_bwd). */
static void cpu_conv_bwd(const float *E, const float *W, const float *dOut, float *dE,
                         float *dW, float *db, int B, int T, int d, int w, int F)
{
    if (dE) {
        size_t tap = ee_cpu_gemm_packed_size(F, d);
        float *packed = ee_cpu_scratch(EE_SCRATCH_OP, sizeof(float) * tap * w);
        if (!packed) return;
        for (int j = 0; j < w; j++) ee_cpu_gemm_pack(1, F, d, 1.0f, W + (size_t)j * d * F, F, packed + tap * j);
        #pragma omp parallel for schedule(static) if ((size_t)B * T * d * F * w > 200000)
        for (int s = 0; s < B; s++)
            for (int j = 0; j < w && j < T; j++)
                ee_cpu_gemm_run(0, T - j, d, F, dOut + (size_t)s * T * F, F, packed + tap * j, 1,
                                dE + (size_t)s * T * d + (size_t)j * d, d);
    }
    for (int s = 0; s < B; s++) {
        const float *e = E + (size_t)s * T * d, *go = dOut + (size_t)s * T * F;
        if (dW)
            for (int j = 0; j < w && j < T; j++)
                ee_cpu_gemm(1, 0, d, F, T - j, 1.0f, e + (size_t)j * d, d, go, F, 1.0f, dW + (size_t)j * d * F, F);
        if (db)
            for (int t = 0; t < T; t++)
                for (int f = 0; f < F; f++) db[f] += go[(size_t)t * F + f];
    }
}

/* ReLU then max over the valid positions: relu is monotone, so this is
 * relu(max_t pre); the argmax is the lowest t among ties and is -1 when the
 * max is <= 0 (ReLU'(0) = 0: no gradient flows). */
/* Sequence s of maxpool_fwd. */
static void maxpool_seq(const float *act, const uint8_t *mask, float *pooled, int32_t *argmax, int s, int T,
                    int F, int ld, int off)
{
    const float *a = act + (size_t)s * T * F;
    const uint8_t *mk = mask + (size_t)s * T;
    if (ee_cpu_use_avx512()) {
        float *best = pooled + (size_t)s * ld + off;
        int32_t *bi = argmax + (size_t)s * F;
        ee_maxpool_scan_avx512(a, mk, T, F, best, bi);
        for (int f = 0; f < F; f++)
            if (bi[f] < 0 || !(best[f] > 0)) { best[f] = 0; bi[f] = -1; }
        return;
    }
    for (int f = 0; f < F; f++) {
        float best = -INFINITY;
        int bi = -1;
        for (int t = 0; t < T; t++)
            if (mk[t] && a[(size_t)t * F + f] > best) { best = a[(size_t)t * F + f]; bi = t; }
        if (bi < 0 || !(best > 0)) { best = 0; bi = -1; }
        pooled[(size_t)s * ld + off + f] = best;
        argmax[(size_t)s * F + f] = bi;
    }
}

static void cpu_maxpool_fwd(const float *act, const uint8_t *mask, float *pooled,
                            int32_t *argmax, int B, int T, int F, int ld, int off)
{
    if (ee_team_worth((size_t)B * T * F, 65536)) {
        #pragma omp parallel for schedule(static)
        for (int s = 0; s < B; s++) maxpool_seq(act, mask, pooled, argmax, s, T, F, ld, off);
    } else {
        for (int s = 0; s < B; s++) maxpool_seq(act, mask, pooled, argmax, s, T, F, ld, off);
    }
}

static void cpu_maxpool_bwd(const float *dPooled, const int32_t *argmax, float *dAct,
                            int B, int T, int F, int ld, int off)
{
    memset(dAct, 0, sizeof(float) * (size_t)B * T * F);
    for (int s = 0; s < B; s++)
        for (int f = 0; f < F; f++) {
            int t = argmax[(size_t)s * F + f];
            if (t >= 0) dAct[((size_t)s * T + t) * F + f] = dPooled[(size_t)s * ld + off + f];
        }
}

/* Sequence b of conv_pool_bwd's input gradient. */
static void pool_de_seq(const float *W, const float *dPooled, const int32_t *argmax, float *dE, int b, int T,
                        int d, int w, int F, int ld, int off)
{
    for (int f = 0; f < F; f++) {
        int t = argmax[(size_t)b * F + f];
        if (t < 0) continue;
        float g = dPooled[(size_t)b * ld + off + f];
        for (int j = 0; j < w && t + j < T; j++) {
            float *e = dE + ((size_t)b * T + t + j) * d;
            const float *wj = W + (size_t)j * d * F + f;
            for (int c = 0; c < d; c++) e[c] += g * wj[(size_t)c * F];
        }
    }
}

static void cpu_conv_pool_bwd(const float *E, const float *W, const float *dPooled,
                              const int32_t *argmax, float *dE, float *dW, float *db, int B, int T,
                              int d, int w, int F, int ld, int off)
{
    if (dE) {
        if (ee_team_worth((size_t)B * F * w * d, 100000)) {
            #pragma omp parallel for schedule(static)
            for (int b = 0; b < B; b++) pool_de_seq(W, dPooled, argmax, dE, b, T, d, w, F, ld, off);
        } else {
            for (int b = 0; b < B; b++) pool_de_seq(W, dPooled, argmax, dE, b, T, d, w, F, ld, off);
        }
    }
    if (dW || db) {
        /* each thread owns filters: sums over sequences in order */
        #pragma omp parallel for if ((size_t)B * F * w * d > 100000) schedule(static)
        for (int f = 0; f < F; f++)
            for (int b = 0; b < B; b++) {
                int t = argmax[(size_t)b * F + f];
                if (t < 0) continue;
                float g = dPooled[(size_t)b * ld + off + f];
                if (db) db[f] += g;
                if (!dW) continue;
                for (int j = 0; j < w && t + j < T; j++) {
                    const float *e = E + ((size_t)b * T + t + j) * d;
                    float *wj = dW + (size_t)j * d * F + f;
                    for (int c = 0; c < d; c++) wj[(size_t)c * F] += g * e[c];
                }
            }
    }
}

static void cpu_gather_rows(const float *src, int stride, float *dst, int n, int cols)
{
    for (int i = 0; i < n; i++)
        memcpy(dst + (size_t)i * cols, src + (size_t)i * stride, sizeof(float) * cols);
}

static void cpu_scatter_rows(const float *src, float *dst, int stride, int n, int cols)
{
    for (int i = 0; i < n; i++)
        memcpy(dst + (size_t)i * stride, src + (size_t)i * cols, sizeof(float) * cols);
}

/* ---- integrated-gradients rows ------------------------------------------------- */
static void cpu_lerp_rows(float *out, const float *base, const float *diff, const float *alpha,
                          const int32_t *group, int rows, int width)
{
    #pragma omp parallel for if ((size_t)rows * width > 65536) schedule(static)
    for (int j = 0; j < rows; j++) {
        const float *b = base + (size_t)group[j] * width, *df = diff + (size_t)group[j] * width;
        float *o = out + (size_t)j * width, a = alpha[j];
        for (int c = 0; c < width; c++) o[c] = b[c] + a * df[c];
    }
}

static void cpu_accum_rows(float *acc, const float *x, const float *w, const int32_t *group,
                           int rows, int width)
{
    /* columns split over threads; rows in order within each column */
    #pragma omp parallel for if ((size_t)rows * width > 65536) schedule(static)
    for (int c = 0; c < width; c++)
        for (int j = 0; j < rows; j++) acc[(size_t)group[j] * width + c] += w[j] * x[(size_t)j * width + c];
}

/* ---- losses ---------------------------------------------------------------- */
static void cpu_softmax_xent(const float *logits, const int32_t *labels, float *dlogits,
                             float *loss, int n, int C)
{
    double total = 0;
    for (int i = 0; i < n; i++) {
        const float *z = logits + (size_t)i * C;
        float *g = dlogits + (size_t)i * C;
        float mx = z[0];
        for (int c = 1; c < C; c++) if (z[c] > mx) mx = z[c];
        double s = 0;
        for (int c = 0; c < C; c++) s += exp((double)z[c] - mx);
        double lse = mx + log(s);
        total += lse - z[labels[i]];
        for (int c = 0; c < C; c++)
            g[c] = (float)((exp((double)z[c] - lse) - (c == labels[i])) / n);
    }
    *loss = (float)(total / n);
}

static void cpu_mse(const float *pred, const float *target, float *dpred, float *loss,
                    int n, int cols)
{
    double total = 0, denom = (double)n * cols;
    for (size_t i = 0; i < (size_t)n * cols; i++) {
        double r = (double)pred[i] - target[i];
        total += r * r;
        if (dpred) dpred[i] = (float)(2.0 * r / denom);
    }
    *loss = (float)(total / denom);
}

static void cpu_adam(float *w, const float *g, float *m, float *v, size_t n, float lr,
                     float beta1, float beta2, float eps, int t)
{
    float c1 = 1.0f - powf(beta1, (float)t), c2 = 1.0f - powf(beta2, (float)t);
    float step = lr / c1, rc2 = 1.0f / sqrtf(c2);
    #pragma omp parallel for if (n > 65536) schedule(static)
    for (size_t i = 0; i < n; i++) {
        m[i] = beta1 * m[i] + (1 - beta1) * g[i];
        v[i] = beta2 * v[i] + (1 - beta2) * g[i] * g[i];
        w[i] -= step * m[i] / (sqrtf(v[i]) * rc2 + eps);
    }
}

/* The fusions are the separate ops, in their order: the same numbers. */
static void cpu_bias_gelu_fwd(float *Z, const float *b, float *G, int rows, int cols)
{
    cpu_add_bias(Z, b, rows, cols);
    cpu_gelu_fwd(Z, G, (size_t)rows * cols);
}

static void cpu_bias_residual_layernorm_fwd(float *Y, const float *b, const float *X, const float *g,
                                            const float *beta, float *out, float *mean, float *rstd,
                                            int rows, int cols, float eps)
{
    if (b) cpu_add_bias(Y, b, rows, cols);
    cpu_axpy((size_t)rows * cols, 1.0f, X, Y);
    cpu_layernorm_fwd(Y, g, beta, out, mean, rstd, rows, cols, eps);
}

static const EeBackend cpu_backend = {
    .name = "cpu",
    .device = EE_DEVICE_CPU,
    .host_memory = 1,
    .alloc = cpu_alloc,
    .alloc_scratch = cpu_alloc_scratch,
    .release = cpu_release,
    .upload = cpu_memcpy,
    .download = cpu_memcpy,
    .copy = cpu_memcpy,
    .zero = cpu_zero,
    .sync = cpu_sync,
    .gemm = cpu_gemm,
    .axpy = cpu_axpy,
    .scale = cpu_scale,
    .add_bias = cpu_add_bias,
    .bias_grad = cpu_bias_grad,
    .layernorm_fwd = cpu_layernorm_fwd,
    .layernorm_bwd = cpu_layernorm_bwd,
    .bias_gelu_fwd = cpu_bias_gelu_fwd,
    .bias_residual_layernorm_fwd = cpu_bias_residual_layernorm_fwd,
    .gelu_fwd = cpu_gelu_fwd,
    .gelu_bwd = cpu_gelu_bwd,
    .relu_fwd = cpu_relu_fwd,
    .relu_bwd = cpu_relu_bwd,
    .mul_mask = cpu_mul_mask,
    .tanh_fwd = cpu_tanh_fwd,
    .tanh_bwd = cpu_tanh_bwd,
    .dropout_fwd = cpu_dropout_fwd,
    .dropout_bwd = cpu_dropout_bwd,
    .attention_fwd = cpu_attention_fwd,
    .attention_bwd = cpu_attention_bwd,
    .attention_cls_fwd = cpu_attention_cls_fwd,
    .attention_cls_bwd = cpu_attention_cls_bwd,
    .embed_fwd = cpu_embed_fwd,
    .embed_bwd = cpu_embed_bwd,
    .conv_fwd = cpu_conv_fwd,
    .conv_bwd = cpu_conv_bwd,
    .maxpool_fwd = cpu_maxpool_fwd,
    .maxpool_bwd = cpu_maxpool_bwd,
    .conv_pool_bwd = cpu_conv_pool_bwd,
    .relu_rescale_bwd = ee_cpu_relu_rescale_bwd,
    .pool_rescale_bwd = ee_cpu_pool_rescale_bwd,
    .gather_rows = cpu_gather_rows,
    .scatter_rows = cpu_scatter_rows,
    .lerp_rows = cpu_lerp_rows,
    .accum_rows = cpu_accum_rows,
    .softmax_xent = cpu_softmax_xent,
    .mse = cpu_mse,
    .adam = cpu_adam,
};

const EeBackend *ee_backend_cpu(void) { return &cpu_backend; }
