/* cuda_backend.cu: the CUDA backend's op table: device memory, the
 * cuBLAS-based ops (GEMM, attention, the text-CNN convolution), the host
 * side of the losses, and the process-wide state (error flag, cuBLAS
 * handle, workspace). The kernels live in cuda_kernels.cu.
 *
 * Which op uses what:
 *   gemm             cublasSgemm, row-major as C^T = op(B)^T op(A)^T in
 *                    column-major, default math mode (no TF32)
 *   attention        cublasSgemmStridedBatched per head (batched over the
 *                    sequences) for scores, P V and the four backward
 *                    products; own masked softmax kernels (span rule)
 *   attention_cls    own kernels (one warp per sequence and head)
 *   conv             im2col kernel + one cublasSgemm (forward, dW, dE) +
 *                    col2im kernel; bias by the column-sum kernels
 *   everything else  own kernels (cuda_kernels.cu)
 * cuDNN is not used.
 *
 * Host syncs happen only where the op table demands a host value (the two
 * losses), in download and sync. */
#include "cuda_common.cuh"
#include "cuda_backend.h"

#include <cublas_v2.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- state ------------------------------------------------------------------------ */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static int g_err;            /* sticky until ee_cuda_check_error() */
static int g_reports;        /* messages printed since the last check */
static cublasHandle_t g_blas;
static void *g_ws;
static size_t g_ws_size;
static cudaEvent_t g_ev0, g_ev1;

#define MAX_REPORTS 10

void eecu_report(const char *what, const char *detail, const char *file, int line)
{
    __atomic_store_n(&g_err, 1, __ATOMIC_SEQ_CST);
    int k = __atomic_fetch_add(&g_reports, 1, __ATOMIC_SEQ_CST);
    if (k < MAX_REPORTS)
        fprintf(stderr, "libcore CUDA backend: %s failed: %s (%s:%d)\n", what, detail, file, line);
    else if (k == MAX_REPORTS)
        fprintf(stderr, "libcore CUDA backend: further errors are not printed\n");
}

#define EECU_CKB(call)                                                                  \
    do {                                                                                \
        cublasStatus_t eecu_s_ = (call);                                                \
        if (eecu_s_ != CUBLAS_STATUS_SUCCESS)                                           \
            eecu_report(#call, cublasGetStatusString(eecu_s_), __FILE__, __LINE__);     \
    } while (0)

extern "C" int ee_cuda_check_error(void)
{
    int e = __atomic_exchange_n(&g_err, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&g_reports, 0, __ATOMIC_SEQ_CST);
    return e;
}

/* The cuBLAS handle, created on first use (on stream 0, default math mode:
 * FP32 GEMMs stay FP32, no TF32). NULL if it cannot be created. */
static cublasHandle_t blas(void)
{
    cublasHandle_t h = (cublasHandle_t)__atomic_load_n(&g_blas, __ATOMIC_ACQUIRE);
    if (h) return h;
    pthread_mutex_lock(&g_lock);
    if (!g_blas) {
        cublasStatus_t s = cublasCreate(&h);
        if (s != CUBLAS_STATUS_SUCCESS) {
            eecu_report("cublasCreate", cublasGetStatusString(s), __FILE__, __LINE__);
            h = NULL;
        } else {
            EECU_CKB(cublasSetStream(h, EECU_STREAM));
            EECU_CKB(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
            EECU_CKB(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
            __atomic_store_n(&g_blas, h, __ATOMIC_RELEASE);
        }
    }
    h = g_blas;
    pthread_mutex_unlock(&g_lock);
    return h;
}

void *eecu_workspace(size_t bytes)
{
    if (bytes <= g_ws_size && g_ws) return g_ws;
    if (g_ws) {
        /* work queued on the old buffer must finish before it is freed */
        EECU_CK(cudaStreamSynchronize(EECU_STREAM));
        EECU_CK(cudaFree(g_ws));
        g_ws = NULL;
        g_ws_size = 0;
    }
    size_t size = (bytes + ((size_t)1 << 20) - 1) & ~(((size_t)1 << 20) - 1);
    if (size == 0) size = (size_t)1 << 20;
    cudaError_t e = cudaMalloc(&g_ws, size);
    if (e != cudaSuccess) {
        cudaGetLastError();
        g_ws = NULL;
        char msg[160];
        snprintf(msg, sizeof msg, "%s (workspace of %zu bytes)", cudaGetErrorString(e), size);
        eecu_report("cudaMalloc", msg, __FILE__, __LINE__);
        return NULL;
    }
    g_ws_size = size;
    return g_ws;
}

extern "C" void ee_cuda_shutdown(void)
{
    pthread_mutex_lock(&g_lock);
    if (g_blas || g_ws || g_ev0) EECU_CK(cudaDeviceSynchronize());
    if (g_blas) {
        EECU_CKB(cublasDestroy(g_blas));
        __atomic_store_n(&g_blas, (cublasHandle_t)NULL, __ATOMIC_RELEASE);
    }
    if (g_ws) {
        EECU_CK(cudaFree(g_ws));
        g_ws = NULL;
        g_ws_size = 0;
    }
    if (g_ev0) {
        EECU_CK(cudaEventDestroy(g_ev0));
        EECU_CK(cudaEventDestroy(g_ev1));
        g_ev0 = g_ev1 = NULL;
    }
    pthread_mutex_unlock(&g_lock);
}

extern "C" void ee_cuda_timer_start(void)
{
    if (!g_ev0) {
        EECU_CK(cudaEventCreate(&g_ev0));
        EECU_CK(cudaEventCreate(&g_ev1));
    }
    EECU_CK(cudaEventRecord(g_ev0, EECU_STREAM));
}

extern "C" double ee_cuda_timer_stop(void)
{
    if (!g_ev0) return -1.0;
    float ms = -1.0f;
    cudaError_t e = cudaEventRecord(g_ev1, EECU_STREAM);
    if (e == cudaSuccess) e = cudaEventSynchronize(g_ev1);
    if (e == cudaSuccess) e = cudaEventElapsedTime(&ms, g_ev0, g_ev1);
    if (e != cudaSuccess) {
        eecu_report("timer", cudaGetErrorString(e), __FILE__, __LINE__);
        return -1.0;
    }
    return ms;
}

/* ---- memory ------------------------------------------------------------------------- */
/* An optional cap on the device memory libcore allocates:
 * EE_GPU_MEMORY_MB in the environment (read once). Allocations past it
 * fail like an out-of-memory, and the callers split their batches. Sizes
 * are kept in a small host table keyed by pointer. */
#define ALLOC_SLOTS 4096
static struct { void *p; size_t n; } g_allocs[ALLOC_SLOTS];
static size_t g_allocated, g_cap;
static int g_cap_read;

static size_t mem_cap(void)
{
    if (!g_cap_read) {
        const char *e = getenv("EE_GPU_MEMORY_MB");
        double mb = e ? atof(e) : 0;
        g_cap = mb > 0 ? (size_t)(mb * 1048576.0) : 0;
        g_cap_read = 1;
    }
    return g_cap;
}

static void track(void *p, size_t n)
{
    size_t h = ((uintptr_t)p >> 8) % ALLOC_SLOTS;
    for (size_t k = 0; k < ALLOC_SLOTS; k++) {
        size_t i = (h + k) % ALLOC_SLOTS;
        if (!g_allocs[i].p) { g_allocs[i].p = p; g_allocs[i].n = n; g_allocated += n; return; }
    }
    g_allocated += n; /* table full: counted, not tracked */
}

static void untrack(void *p)
{
    size_t h = ((uintptr_t)p >> 8) % ALLOC_SLOTS;
    for (size_t k = 0; k < ALLOC_SLOTS; k++) {
        size_t i = (h + k) % ALLOC_SLOTS;
        if (g_allocs[i].p == p) { g_allocated -= g_allocs[i].n; g_allocs[i].p = NULL; return; }
    }
}

static void *cu_alloc(size_t bytes)
{
    void *p = NULL;
    if (bytes == 0) bytes = 1;
    if (mem_cap() && g_allocated + bytes > mem_cap()) return NULL;
    if (cudaMalloc(&p, bytes) != cudaSuccess) {
        cudaGetLastError(); /* out of memory is reported by the caller */
        return NULL;
    }
    if (cudaMemsetAsync(p, 0, bytes, EECU_STREAM) != cudaSuccess) {
        cudaGetLastError();
        cudaFree(p);
        return NULL;
    }
    track(p, bytes);
    return p;
}

static void cu_release(void *p)
{
    if (!p) return;
    untrack(p);
    EECU_CK(cudaFree(p));
}

static void cu_upload(void *dst, const void *host, size_t bytes)
{
    if (bytes) EECU_CK(cudaMemcpy(dst, host, bytes, cudaMemcpyHostToDevice));
}

static void cu_download(void *host, const void *src, size_t bytes)
{
    if (bytes) EECU_CK(cudaMemcpy(host, src, bytes, cudaMemcpyDeviceToHost));
}

static void cu_copy(void *dst, const void *src, size_t bytes)
{
    if (bytes && dst != src)
        EECU_CK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, EECU_STREAM));
}

static void cu_zero(void *dst, size_t bytes)
{
    if (bytes) EECU_CK(cudaMemsetAsync(dst, 0, bytes, EECU_STREAM));
}

static void cu_sync(void) { EECU_CK(cudaStreamSynchronize(EECU_STREAM)); }

/* ---- GEMM ------------------------------------------------------------------------------ */
/* Row-major C (M x N) = alpha op(A) op(B) + beta C is column-major
 * C^T = alpha op(B)^T op(A)^T: swap the operands and M/N, keep the flags. */
static void cu_gemm(int ta, int tb, int M, int N, int K, float alpha, const float *A, int lda,
                    const float *B, int ldb, float beta, float *C, int ldc)
{
    if (M <= 0 || N <= 0) return;
    if (K <= 0) { /* the CPU's rule: C *= beta */
        eecu_scale_matrix(C, M, N, ldc, beta);
        return;
    }
    cublasHandle_t h = blas();
    if (!h) return;
    EECU_CKB(cublasSgemm(h, tb ? CUBLAS_OP_T : CUBLAS_OP_N, ta ? CUBLAS_OP_T : CUBLAS_OP_N, N, M, K,
                         &alpha, B, ldb, A, lda, &beta, C, ldc));
}

/* The same over `batch` problems at constant strides (in floats). */
static void gemm_sb(int ta, int tb, int M, int N, int K, float alpha, const float *A, int lda,
                    long long sA, const float *B, int ldb, long long sB, float beta, float *C,
                    int ldc, long long sC, int batch)
{
    if (M <= 0 || N <= 0 || K <= 0 || batch <= 0) return;
    cublasHandle_t h = blas();
    if (!h) return;
    EECU_CKB(cublasSgemmStridedBatched(h, tb ? CUBLAS_OP_T : CUBLAS_OP_N,
                                       ta ? CUBLAS_OP_T : CUBLAS_OP_N, N, M, K, &alpha, B, ldb, sB,
                                       A, lda, sA, &beta, C, ldc, sC, batch));
}

/* ---- elementwise wrappers ----------------------------------------------------------------- */
static void cu_axpy(size_t n, float a, const float *x, float *y) { eecu_axpy(n, a, x, y); }
static void cu_scale(size_t n, float a, float *x) { eecu_scale(n, a, x); }
static void cu_add_bias(float *Y, const float *b, int rows, int cols)
{
    eecu_add_bias(Y, b, rows, cols);
}
static void cu_bias_grad(const float *dY, float *db, int rows, int cols)
{
    eecu_colsum(dY, NULL, NULL, NULL, rows, cols, db, NULL);
}

static void cu_layernorm_fwd(const float *X, const float *g, const float *b, float *Y, float *mean,
                             float *rstd, int rows, int cols, float eps)
{
    eecu_layernorm_fwd(X, g, b, Y, mean, rstd, rows, cols, eps);
}

static void cu_layernorm_bwd(const float *dY, const float *X, const float *g, const float *mean,
                             const float *rstd, float *dX, float *dg, float *db, int rows, int cols,
                             int accumulate)
{
    /* dgamma/dbeta first: they read dY, which dX may overwrite */
    if (dg || db) eecu_colsum(dY, X, mean, rstd, rows, cols, db, dg);
    eecu_layernorm_bwd_dx(dY, X, g, mean, rstd, dX, rows, cols, accumulate);
}

static void cu_gelu_fwd(const float *X, float *Y, size_t n) { eecu_gelu_fwd(X, Y, n); }
static void cu_gelu_bwd(const float *X, const float *dY, float *dX, size_t n)
{
    eecu_gelu_bwd(X, dY, dX, n);
}
static void cu_relu_fwd(const float *X, float *Y, size_t n) { eecu_relu_fwd(X, Y, n); }
static void cu_mul_mask(float *X, const uint8_t *mask, size_t n) { eecu_mul_mask(X, mask, n); }
static void cu_relu_bwd(const float *X, const float *dY, float *dX, size_t n)
{
    eecu_relu_bwd(X, dY, dX, n);
}
static void cu_tanh_fwd(const float *X, float *Y, size_t n) { eecu_tanh_fwd(X, Y, n); }
static void cu_tanh_bwd(const float *Y, const float *dY, float *dX, size_t n)
{
    eecu_tanh_bwd(Y, dY, dX, n);
}

/* Threshold and scale computed on the host exactly as the CPU does. */
static void cu_dropout_fwd(float *X, uint8_t *keep, size_t n, float p, uint64_t seed)
{
    if (p <= 0) return;
    uint32_t thr = (uint32_t)((1.0 - p) * 16777216.0);
    float sc = 1.0f / (1.0f - p);
    eecu_dropout_fwd(X, keep, n, thr, sc, seed);
}

static void cu_dropout_bwd(float *dX, const uint8_t *keep, size_t n, float p)
{
    if (p <= 0) return;
    float sc = 1.0f / (1.0f - p);
    eecu_dropout_bwd(dX, keep, n, sc);
}

/* ---- attention --------------------------------------------------------------------------- */
/* Per head h, batched over the B sequences: head h of sequence b is the
 * column block h*dh of rows b*T.. (stride T*d), P[b][h] is at
 * (b*H + h)*T*T (stride H*T*T). Full T x T products; the softmax kernels
 * zero every probability outside the attended span, so the result is the
 * CPU's (which multiplies only the first `span` rows and columns). */
static void cu_attention_fwd(const float *q, const float *k, const float *v, const uint8_t *mask,
                             float *P, float *ctx, int B, int T, int d, int H)
{
    if (B <= 0 || T <= 0 || H <= 0) return;
    int dh = d / H;
    if (dh <= 0) return;
    float scale = 1.0f / sqrtf((float)dh);
    long long sX = (long long)T * d, sP = (long long)H * T * T;
    for (int h = 0; h < H; h++)
        gemm_sb(0, 1, T, T, dh, scale, q + h * dh, d, sX, k + h * dh, d, sX, 0.0f,
                P + (size_t)h * T * T, T, sP, B);
    eecu_attn_softmax(P, mask, B, H, T);
    for (int h = 0; h < H; h++)
        gemm_sb(0, 0, T, dh, T, 1.0f, P + (size_t)h * T * T, T, sP, v + h * dh, d, sX, 0.0f,
                ctx + h * dh, d, sX, B);
}

static void cu_attention_bwd(const float *q, const float *k, const float *v, const uint8_t *mask,
                             const float *P, const float *dctx, float *dq, float *dk, float *dv,
                             int B, int T, int d, int H)
{
    if (B <= 0 || T <= 0 || H <= 0) return;
    int dh = d / H;
    if (dh <= 0) return;
    float scale = 1.0f / sqrtf((float)dh);
    long long sX = (long long)T * d, sP = (long long)H * T * T;
    float *dS = (float *)eecu_workspace(sizeof(float) * (size_t)B * H * T * T);
    if (!dS) return;
    for (int h = 0; h < H; h++) {
        size_t oP = (size_t)h * T * T;
        /* dP = dctx v^T ; dv = P^T dctx */
        gemm_sb(0, 1, T, T, dh, 1.0f, dctx + h * dh, d, sX, v + h * dh, d, sX, 0.0f, dS + oP, T, sP,
                B);
        gemm_sb(1, 0, T, dh, T, 1.0f, P + oP, T, sP, dctx + h * dh, d, sX, 0.0f, dv + h * dh, d, sX,
                B);
    }
    eecu_attn_softmax_bwd(P, dS, mask, B, H, T, scale);
    for (int h = 0; h < H; h++) {
        size_t oP = (size_t)h * T * T;
        /* dq = dS k ; dk = dS^T q */
        gemm_sb(0, 0, T, dh, T, 1.0f, dS + oP, T, sP, k + h * dh, d, sX, 0.0f, dq + h * dh, d, sX,
                B);
        gemm_sb(1, 0, T, dh, T, 1.0f, dS + oP, T, sP, q + h * dh, d, sX, 0.0f, dk + h * dh, d, sX,
                B);
    }
}

/* The classifier's last layer: one query ([CLS]) per sequence, own kernels
 * (a dh x span product per (sequence, head) is too small for cuBLAS). */
static void cu_attention_cls_fwd(const float *q_cls, const float *k, const float *v,
                                 const uint8_t *mask, float *P, float *ctx_cls, int B, int T, int d,
                                 int H)
{
    if (B <= 0 || T <= 0 || H <= 0 || d / H <= 0) return;
    float scale = 1.0f / sqrtf((float)(d / H));
    eecu_attn_cls_fwd(q_cls, k, v, mask, P, ctx_cls, B, T, d, H, scale);
}

static void cu_attention_cls_bwd(const float *q_cls, const float *k, const float *v,
                                 const uint8_t *mask, const float *P, const float *dctx_cls,
                                 float *dq_cls, float *dk, float *dv, int B, int T, int d, int H)
{
    if (B <= 0 || T <= 0 || H <= 0 || d / H <= 0) return;
    float scale = 1.0f / sqrtf((float)(d / H));
    float *ds = (float *)eecu_workspace(sizeof(float) * (size_t)B * H * T);
    if (!ds) return;
    cu_zero(dk, sizeof(float) * (size_t)B * T * d);
    cu_zero(dv, sizeof(float) * (size_t)B * T * d);
    eecu_attn_cls_bwd(q_cls, k, v, mask, P, dctx_cls, dq_cls, dk, dv, ds, B, T, d, H, scale);
}

/* ---- embeddings ------------------------------------------------------------------------------ */
static void cu_embed_fwd(const int32_t *ids, const float *E_tok, const float *E_pos, float *out,
                         int B, int T, int d)
{
    eecu_embed_fwd(ids, E_tok, E_pos, out, B, T, d);
}

static void cu_embed_bwd(const int32_t *ids, const float *dOut, float *dE_tok, float *dE_pos, int B,
                         int T, int d)
{
    eecu_embed_bwd(ids, dOut, dE_tok, dE_pos, B, T, d);
}

/* ---- text CNN --------------------------------------------------------------------------------- */
/* With Xc = im2col(E) ([B*T][w*d], zero past each sequence's end) the
 * convolution is one GEMM: out = Xc W (+ b); dW += Xc^T dOut;
 * dXc = dOut W^T, then dE += col2im(dXc). */
static void cu_conv_fwd(const float *E, const float *W, const float *b, float *out, int B, int T,
                        int d, int w, int F)
{
    if (B <= 0 || T <= 0 || F <= 0) return;
    int rows = B * T, wd = w * d;
    if (wd <= 0) { /* no taps: out = b or 0 */
        if (b) eecu_fill_rows(out, b, rows, F);
        else cu_zero(out, sizeof(float) * (size_t)rows * F);
        return;
    }
    float *Xc = (float *)eecu_workspace(sizeof(float) * (size_t)rows * wd);
    if (!Xc) return;
    eecu_im2col(E, Xc, B, T, d, w);
    if (b) eecu_fill_rows(out, b, rows, F);
    cu_gemm(0, 0, rows, F, wd, 1.0f, Xc, wd, W, F, b ? 1.0f : 0.0f, out, F);
}

static void cu_conv_bwd(const float *E, const float *W, const float *dOut, float *dE, float *dW,
                        float *db, int B, int T, int d, int w, int F)
{
    if (B <= 0 || T <= 0 || F <= 0) return;
    int rows = B * T, wd = w * d;
    if (db) eecu_colsum(dOut, NULL, NULL, NULL, rows, F, db, NULL);
    if ((!dW && !dE) || wd <= 0) return;
    /* one workspace buffer: Xc for dW, then dXc for dE (stream-ordered) */
    float *Xc = (float *)eecu_workspace(sizeof(float) * (size_t)rows * wd);
    if (!Xc) return;
    if (dW) {
        eecu_im2col(E, Xc, B, T, d, w);
        cu_gemm(1, 0, wd, F, rows, 1.0f, Xc, wd, dOut, F, 1.0f, dW, F);
    }
    if (dE) {
        cu_gemm(0, 1, rows, wd, F, 1.0f, dOut, F, W, F, 0.0f, Xc, wd);
        eecu_col2im_add(Xc, dE, B, T, d, w);
    }
}

static void cu_maxpool_fwd(const float *act, const uint8_t *mask, float *pooled, int32_t *argmax,
                           int B, int T, int F, int ld, int off)
{
    eecu_maxpool_fwd(act, mask, pooled, argmax, B, T, F, ld, off);
}

static void cu_maxpool_bwd(const float *dPooled, const int32_t *argmax, float *dAct, int B, int T,
                           int F, int ld, int off)
{
    eecu_maxpool_bwd(dPooled, argmax, dAct, B, T, F, ld, off);
}

static void cu_gather_rows(const float *src, int stride, float *dst, int n, int cols)
{
    eecu_gather_rows(src, stride, dst, n, cols);
}

static void cu_scatter_rows(const float *src, float *dst, int stride, int n, int cols)
{
    eecu_scatter_rows(src, dst, stride, n, cols);
}

/* ---- losses (host result: the only syncs inside ops) -------------------------------------- */
static void cu_softmax_xent(const float *logits, const int32_t *labels, float *dlogits, float *loss,
                            int n, int C)
{
    *loss = NAN;
    if (n <= 0 || C <= 0) return;
    double *rowloss = (double *)eecu_workspace(sizeof(double) * (size_t)n);
    double *h = (double *)malloc(sizeof(double) * (size_t)n);
    if (!rowloss || !h) {
        if (!h) eecu_report("malloc", "out of host memory", __FILE__, __LINE__);
        free(h);
        return;
    }
    eecu_softmax_xent(logits, labels, dlogits, rowloss, n, C);
    cudaError_t e = cudaMemcpy(h, rowloss, sizeof(double) * (size_t)n, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
        eecu_report("cudaMemcpy (softmax_xent loss)", cudaGetErrorString(e), __FILE__, __LINE__);
    } else {
        double total = 0;
        for (int i = 0; i < n; i++) total += h[i];
        *loss = (float)(total / n);
    }
    free(h);
}

static void cu_mse(const float *pred, const float *target, float *dpred, float *loss, int n,
                   int cols)
{
    *loss = NAN;
    if (n <= 0 || cols <= 0) return;
    size_t count = (size_t)n * cols;
    double denom = (double)n * cols;
    double *part = (double *)eecu_workspace(sizeof(double) * EECU_MSE_PARTS);
    if (!part) return;
    int parts = eecu_mse(pred, target, dpred, count, denom, part);
    double h[EECU_MSE_PARTS];
    cudaError_t e = cudaMemcpy(h, part, sizeof(double) * (size_t)parts, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
        eecu_report("cudaMemcpy (mse loss)", cudaGetErrorString(e), __FILE__, __LINE__);
        return;
    }
    double total = 0;
    for (int i = 0; i < parts; i++) total += h[i];
    *loss = (float)(total / denom);
}

/* Bias corrections computed on the host exactly as the CPU does. */
static void cu_adam(float *w, const float *g, float *m, float *v, size_t n, float lr, float beta1,
                    float beta2, float eps, int t)
{
    float c1 = 1.0f - powf(beta1, (float)t), c2 = 1.0f - powf(beta2, (float)t);
    float step = lr / c1, rc2 = 1.0f / sqrtf(c2);
    eecu_adam(w, g, m, v, n, step, rc2, beta1, beta2, eps);
}

/* ---- the table --------------------------------------------------------------------------------- */
static EeBackend g_backend;
static const EeBackend *g_available;
static char g_desc[512] = "CUDA backend not initialised";
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void fill_table(EeBackend *be)
{
    memset(be, 0, sizeof *be);
    be->name = "cuda";
    be->device = EE_DEVICE_GPU;
    be->alloc = cu_alloc;
    be->release = cu_release;
    be->upload = cu_upload;
    be->download = cu_download;
    be->copy = cu_copy;
    be->zero = cu_zero;
    be->sync = cu_sync;
    be->gemm = cu_gemm;
    be->axpy = cu_axpy;
    be->scale = cu_scale;
    be->add_bias = cu_add_bias;
    be->bias_grad = cu_bias_grad;
    be->layernorm_fwd = cu_layernorm_fwd;
    be->layernorm_bwd = cu_layernorm_bwd;
    be->gelu_fwd = cu_gelu_fwd;
    be->gelu_bwd = cu_gelu_bwd;
    be->relu_fwd = cu_relu_fwd;
    be->mul_mask = cu_mul_mask;
    be->relu_bwd = cu_relu_bwd;
    be->tanh_fwd = cu_tanh_fwd;
    be->tanh_bwd = cu_tanh_bwd;
    be->dropout_fwd = cu_dropout_fwd;
    be->dropout_bwd = cu_dropout_bwd;
    be->attention_fwd = cu_attention_fwd;
    be->attention_bwd = cu_attention_bwd;
    be->attention_cls_fwd = cu_attention_cls_fwd;
    be->attention_cls_bwd = cu_attention_cls_bwd;
    be->embed_fwd = cu_embed_fwd;
    be->embed_bwd = cu_embed_bwd;
    be->conv_fwd = cu_conv_fwd;
    be->conv_bwd = cu_conv_bwd;
    be->maxpool_fwd = cu_maxpool_fwd;
    be->maxpool_bwd = cu_maxpool_bwd;
    be->conv_pool_bwd = eecu_conv_pool_bwd;
    be->gather_rows = cu_gather_rows;
    be->scatter_rows = cu_scatter_rows;
    be->lerp_rows = eecu_lerp_rows;
    be->accum_rows = eecu_accum_rows;
    be->softmax_xent = cu_softmax_xent;
    be->mse = cu_mse;
    be->adam = cu_adam;
}

static void init_once(void)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        cudaGetLastError();
        snprintf(g_desc, sizeof g_desc, "no CUDA device: cudaGetDeviceCount: %s",
                 cudaGetErrorString(e));
        return;
    }
    if (n <= 0) {
        snprintf(g_desc, sizeof g_desc, "no CUDA device: cudaGetDeviceCount found none");
        return;
    }
    int dev = 0;
    cudaDeviceProp prop;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
        cudaGetLastError();
        snprintf(g_desc, sizeof g_desc, "no CUDA device: cannot read the properties of device %d",
                 dev);
        return;
    }
    if (!eecu_kernels_usable()) {
        snprintf(g_desc, sizeof g_desc,
                 "CUDA device %d (%s, sm_%d%d) cannot run this build's kernels (set CUDA_ARCH "
                 "at configure time)",
                 dev, prop.name, prop.major, prop.minor);
        return;
    }
    snprintf(g_desc, sizeof g_desc, "%s (device %d of %d, sm_%d%d, %d SMs, %.1f GiB)", prop.name,
             dev, n, prop.major, prop.minor, prop.multiProcessorCount,
             prop.totalGlobalMem / 1073741824.0);
    fill_table(&g_backend);
    /* every op of backend.h must be here: an op added there but not here
     * would be a NULL call; say so and offer no GPU instead */
    int missing = 0;
    for (const char *q = (const char *)&g_backend.alloc;
         q + sizeof(void (*)(void)) <= (const char *)(&g_backend + 1); q += sizeof(void (*)(void))) {
        void (*fp)(void);
        memcpy(&fp, q, sizeof fp);
        missing += fp == NULL;
    }
    if (missing) {
        snprintf(g_desc, sizeof g_desc,
                 "the CUDA backend lacks %d op(s) of backend.h: rebuild with an updated "
                 "libcore/backend/cuda",
                 missing);
        return;
    }
    g_available = &g_backend;
}

extern "C" const EeBackend *ee_backend_cuda(void)
{
    pthread_once(&g_once, init_once);
    return g_available;
}

extern "C" int ee_cuda_select(int index)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n <= 0 || index < 0) {
        cudaGetLastError();
        return -1;
    }
    /* init_once reads the current device: set it before the first op */
    if (cudaSetDevice(index % n) != cudaSuccess) {
        cudaGetLastError();
        return -1;
    }
    return index % n;
}

extern "C" const char *ee_cuda_describe(void)
{
    pthread_once(&g_once, init_once);
    return g_desc;
}
