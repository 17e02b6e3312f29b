/* cuda_backend.cu: the CUDA backend's op table: device memory, the
 * cuBLAS-based ops (GEMM, attention, the text-CNN convolution), the host
 * side of the losses, and the process-wide state (error flag, cuBLAS
 * handle, workspace). The kernels live in cuda_kernels.cu.
 *
 * Which op uses what:
 *   gemm             cublasSgemm, row-major as C^T = op(B)^T op(A)^T in
 *                    column-major, default math mode (no TF32); the tf32 and
 *                    bf16 tables: cublasGemmEx with the FAST_TF32 / FAST_16BF
 *                    compute types (tensor cores, FP32 accumulation)
 *   attention        strided-batched GEMMs per head (batched over the
 *                    sequences) for scores, P V and the four backward
 *                    products, own masked softmax kernels (span rule); the
 *                    forward may run the fused kernel instead (measured
 *                    per shape class, see "measured choices")
 *   attention_cls    own kernels (one warp per sequence and head)
 *   conv             forward: cuDNN (cuda_cudnn.cu) when built with it and
 *                    on, at fp32 and tf32; else, and for the backward,
 *                    im2col kernel + one GEMM (forward, dW, dE) + col2im
 *                    kernel; bias by the column-sum kernels
 *   everything else  own kernels (cuda_kernels.cu)
 *
 * Host syncs happen only where the op table demands a host value (the two
 * losses), in download and sync. */
#include "cuda_common.cuh"
#include "cuda_backend.h"
#include "cuda_optime.cuh"

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
static cudaEvent_t g_tune0, g_tune1; /* tune_start/tune_stop */
static void note_peak(void); /* device memory accounting, below */
static uint16_t *g_bf;       /* bf16 copies of GEMM operands (bf16_scratch) */
static size_t g_bf_elems;

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
    note_peak();
    return g_ws;
}

static void mem_give_back(void);

extern "C" void ee_cuda_shutdown(void)
{
    pthread_mutex_lock(&g_lock);
    if (g_blas || g_ws || g_ev0) EECU_CK(cudaDeviceSynchronize());
    mem_give_back();
    eecu_cudnn_shutdown();
    if (g_bf) {
        EECU_CK(cudaFree(g_bf));
        g_bf = NULL;
        g_bf_elems = 0;
    }
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
    if (g_tune0) {
        EECU_CK(cudaEventDestroy(g_tune0));
        EECU_CK(cudaEventDestroy(g_tune1));
        g_tune0 = g_tune1 = NULL;
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

/* Events of the backend's own measurements (the choice of a convolution
 * path), apart from the timer above, which a caller may be holding. */

static void tune_start(void)
{
    if (!g_tune0) {
        EECU_CK(cudaEventCreate(&g_tune0));
        EECU_CK(cudaEventCreate(&g_tune1));
    }
    EECU_CK(cudaEventRecord(g_tune0, EECU_STREAM));
}

static double tune_stop(void)
{
    float ms = -1.0f;
    if (cudaEventRecord(g_tune1, EECU_STREAM) != cudaSuccess || cudaEventSynchronize(g_tune1) != cudaSuccess ||
        cudaEventElapsedTime(&ms, g_tune0, g_tune1) != cudaSuccess) {
        cudaGetLastError();
        return -1.0;
    }
    return ms;
}

/* ---- measured choices -------------------------------------------------------------------
 * Where an op has two implementations (the cnn convolution: own or cuDNN;
 * attention: the GEMM path or the fused kernel), the first call of each
 * shape class runs both twice and times the second runs (the first pays
 * for plans and workspace growth), and later calls of the class run the
 * faster. A class is the op, the precision and the shape with the length
 * rounded up to 16; the oldest of 64 remembered classes is forgotten first. */
enum { CHOICE_CONV, CHOICE_ATTENTION };
#define CHOICES 64
static struct { int op, prec, key[5], alt, used; } g_choice[CHOICES];
static int g_next_choice;

static int choice_find(int op, EePrecision prec, const int key[5])
{
    for (int i = 0; i < CHOICES; i++)
        if (g_choice[i].used && g_choice[i].op == op && g_choice[i].prec == (int)prec &&
            !memcmp(g_choice[i].key, key, sizeof g_choice[i].key))
            return i;
    return -1;
}

/* 1 the alternative, 0 the first implementation, -1 not measured yet */
static int choice_get(int op, EePrecision prec, const int key[5])
{
    int i = choice_find(op, prec, key);
    return i < 0 ? -1 : g_choice[i].alt;
}

static void choice_set(int op, EePrecision prec, const int key[5], int alt)
{
    int i = choice_find(op, prec, key);
    if (i < 0) {
        i = g_next_choice;
        g_next_choice = (g_next_choice + 1) % CHOICES;
    }
    g_choice[i].op = op;
    g_choice[i].prec = (int)prec;
    memcpy(g_choice[i].key, key, sizeof g_choice[i].key);
    g_choice[i].alt = alt;
    g_choice[i].used = 1;
}

/* Runs `first` and `alt` twice each (the first runs pay for plans and
 * workspace growth), times the second runs and remembers whether `alt`
 * was faster. `alt` returns 0 when it declines the shape: `first` is then
 * the choice and its output stands. When `first` wins it runs once more,
 * so that the outputs are the chosen implementation's: the first call of
 * a shape class gives the same bits as every later one (before, it gave
 * alt's, and a repeated prediction could differ in the last bits). The
 * ops measured this way overwrite their outputs, so running again is
 * safe. */
template <class First, class Alt>
static void choice_measure(int op, EePrecision prec, const int key[5], First first, Alt alt)
{
    double t_first = -1, t_alt = -1;
    int ran = 1;
    for (int rep = 0; rep < 2 && ran; rep++) {
        tune_start();
        first();
        t_first = tune_stop();
        tune_start();
        ran = alt();
        t_alt = tune_stop();
    }
    int use_alt = ran && t_alt >= 0 && t_first >= 0 && t_alt < t_first;
    choice_set(op, prec, key, use_alt);
    if (ran && !use_alt) first();
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

static size_t g_peak; /* largest g_allocated + workspace since the last reset */

static void note_peak(void)
{
    size_t now = g_allocated + g_ws_size;
    if (now > g_peak) g_peak = now;
}

extern "C" size_t ee_cuda_memory_peak(int reset)
{
    size_t p = g_peak;
    if (reset) g_peak = g_allocated + g_ws_size;
    return p;
}

static void track(void *p, size_t n)
{
    size_t h = ((uintptr_t)p >> 8) % ALLOC_SLOTS;
    for (size_t k = 0; k < ALLOC_SLOTS; k++) {
        size_t i = (h + k) % ALLOC_SLOTS;
        if (!g_allocs[i].p) {
            g_allocs[i].p = p;
            g_allocs[i].n = n;
            g_allocated += n;
            note_peak();
            return;
        }
    }
    g_allocated += n; /* table full: counted, not tracked */
    note_peak();
}

/* the size track() noted, 0 when p was not tracked (a full table) */
static size_t untrack(void *p)
{
    size_t h = ((uintptr_t)p >> 8) % ALLOC_SLOTS;
    for (size_t k = 0; k < ALLOC_SLOTS; k++) {
        size_t i = (h + k) % ALLOC_SLOTS;
        if (g_allocs[i].p == p) {
            size_t n = g_allocs[i].n;
            g_allocated -= n;
            g_allocs[i].p = NULL;
            return n;
        }
    }
    return 0;
}

/* Freed blocks are kept for the next allocation of the same size in
 * bytes (cudaFree waits for the whole device, and the runs of a loop of
 * calls allocate the same buffers again and again; exact sizes, so that a
 * block is never larger than asked and the emulation's guard pages still
 * catch an access past its end), up to a quarter of the device's memory;
 * they go back to the driver when an allocation fails, past the cap, and
 * at shutdown. EE_CUDA_POOL=0 turns this off (for comparisons). */
#define POOL_SLOTS 512
static struct { void *p; size_t n; } g_pool[POOL_SLOTS];
static size_t g_pooled, g_pool_limit;
static int g_pool_on = -1;

static int env_off(const char *name)
{
    const char *e = getenv(name);
    return e && !strcmp(e, "0");
}

static int pool_on(void)
{
    if (g_pool_on < 0) {
        size_t free_b = 0, total = 0;
        if (cudaMemGetInfo(&free_b, &total) != cudaSuccess) {
            cudaGetLastError();
            total = 0;
        }
        g_pool_limit = total / 4;
        g_pool_on = !env_off("EE_CUDA_POOL") && g_pool_limit > 0;
    }
    return g_pool_on;
}

static void *pool_take(size_t n)
{
    for (int i = 0; i < POOL_SLOTS; i++)
        if (g_pool[i].p && g_pool[i].n == n) {
            void *p = g_pool[i].p;
            g_pool[i].p = NULL;
            g_pooled -= n;
            return p;
        }
    return NULL;
}

static int pool_put(void *p, size_t n)
{
    if (!pool_on() || g_pooled + n > g_pool_limit) return 0;
    for (int i = 0; i < POOL_SLOTS; i++)
        if (!g_pool[i].p) {
            g_pool[i].p = p;
            g_pool[i].n = n;
            g_pooled += n;
            return 1;
        }
    return 0;
}

static void pool_drain(void)
{
    for (int i = 0; i < POOL_SLOTS; i++)
        if (g_pool[i].p) {
            EECU_CK(cudaFree(g_pool[i].p));
            g_pool[i].p = NULL;
        }
    g_pooled = 0;
}

/* Resident weights (backend.h weights_acquire): a few device copies keyed
 * by content, shared by the runs that read them, the least recently used
 * unreferenced one replaced first. EE_CUDA_RESIDENT=0 turns them off. */
#define WEIGHT_SLOTS 4
static struct { uint64_t k0, k1; size_t n; void *p; int refs; unsigned long long used; } g_wts[WEIGHT_SLOTS];
static unsigned long long g_wts_clock;
static int g_wts_on = -1;

/* a block that track() noted, back to the driver */
static void free_tracked(void *p)
{
    untrack(p);
    EECU_CK(cudaFree(p));
}

/* frees the unreferenced resident copies; returns how many */
static int weights_drop_unused(void)
{
    int k = 0;
    for (int i = 0; i < WEIGHT_SLOTS; i++)
        if (g_wts[i].p && g_wts[i].refs == 0) {
            free_tracked(g_wts[i].p);
            g_wts[i].p = NULL;
            k++;
        }
    return k;
}

/* Device memory held for later back to the driver: the pool and the
 * unreferenced resident weights. */
static void mem_give_back(void)
{
    pool_drain();
    weights_drop_unused();
}

static void *raw_alloc(size_t n)
{
    void *p = NULL;
    for (int attempt = 0; attempt < 2; attempt++) {
        if (mem_cap() && g_allocated + g_pooled + n > mem_cap()) pool_drain();
        if (mem_cap() && g_allocated + n > mem_cap() && !weights_drop_unused()) return NULL;
        if (mem_cap() && g_allocated + n > mem_cap()) continue;
        if (cudaMalloc(&p, n) == cudaSuccess) return p;
        cudaGetLastError(); /* out of memory is reported by the caller */
        p = NULL;
        if (attempt == 0) mem_give_back(); /* then once more */
    }
    return NULL;
}

static void *cu_alloc(size_t bytes)
{
    if (bytes == 0) bytes = 1;
    size_t n = bytes;
    void *p = pool_on() ? pool_take(n) : NULL;
    if (!p && !(p = raw_alloc(n))) return NULL;
    if (cudaMemsetAsync(p, 0, n, EECU_STREAM) != cudaSuccess) {
        cudaGetLastError();
        cudaFree(p);
        return NULL;
    }
    track(p, n);
    return p;
}

static void cu_release(void *p)
{
    if (!p) return;
    size_t n = untrack(p);
    if (n && pool_put(p, n)) return;
    EECU_CK(cudaFree(p));
}

static void *cu_weights_acquire(const void *host, size_t bytes, const uint64_t key[2])
{
    if (g_wts_on < 0) g_wts_on = !env_off("EE_CUDA_RESIDENT");
    if (!g_wts_on) return NULL;
    int slot = -1;
    for (int i = 0; i < WEIGHT_SLOTS; i++)
        if (g_wts[i].p && g_wts[i].k0 == key[0] && g_wts[i].k1 == key[1] && g_wts[i].n == bytes) {
            g_wts[i].refs++;
            g_wts[i].used = ++g_wts_clock;
            return g_wts[i].p;
        }
    for (int i = 0; i < WEIGHT_SLOTS; i++) /* an empty slot, else the oldest unused */
        if (!g_wts[i].p) { slot = i; break; }
    if (slot < 0)
        for (int i = 0; i < WEIGHT_SLOTS; i++)
            if (g_wts[i].refs == 0 && (slot < 0 || g_wts[i].used < g_wts[slot].used)) slot = i;
    if (slot < 0) return NULL; /* every copy in use: the run keeps its own */
    if (g_wts[slot].p) {
        free_tracked(g_wts[slot].p);
        g_wts[slot].p = NULL;
    }
    void *p = cu_alloc(bytes);
    if (!p) return NULL;
    EECU_CK(cudaMemcpy(p, host, bytes, cudaMemcpyHostToDevice));
    g_wts[slot].k0 = key[0];
    g_wts[slot].k1 = key[1];
    g_wts[slot].n = bytes;
    g_wts[slot].p = p;
    g_wts[slot].refs = 1;
    g_wts[slot].used = ++g_wts_clock;
    return p;
}

static void cu_weights_release(void *p)
{
    if (!p) return;
    for (int i = 0; i < WEIGHT_SLOTS; i++)
        if (g_wts[i].p == p) {
            if (g_wts[i].refs > 0) g_wts[i].refs--;
            return;
        }
    cu_release(p); /* not a resident copy (cannot happen): freed as a block */
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
 * C^T = alpha op(B)^T op(A)^T: swap the operands and M/N, keep the flags.
 *
 * Precision: fp32 is cublasSgemm in the default math mode (no TF32); tf32
 * is cublasGemmEx on the same FP32 buffers with the FAST_TF32 compute type
 * (inputs rounded to tf32 by the tensor cores); bf16 rounds the operands
 * to bf16 copies (bf16_operand) and multiplies them with FP32 accumulation
 * (cuBLAS's FAST_16BF compute type on FP32 buffers was measured to run
 * the TF32 kernels, same speed and same results, so it is not used). In
 * every case alpha, beta and C stay FP32. */
static cublasComputeType_t compute_type(EePrecision P)
{
    return P == EE_PRECISION_TF32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
}

/* The bf16 copies of operands: a buffer of its own (an op's workspace may
 * hold the very operand being converted), grown on demand, never shrunk. */

static uint16_t *bf16_scratch(size_t elems)
{
    if (elems <= g_bf_elems && g_bf) return g_bf;
    if (g_bf) {
        EECU_CK(cudaStreamSynchronize(EECU_STREAM));
        EECU_CK(cudaFree(g_bf));
        g_bf = NULL;
        g_bf_elems = 0;
    }
    size_t n = (elems + (1u << 20) - 1) & ~(size_t)((1u << 20) - 1);
    if (cudaMalloc((void **)&g_bf, n * sizeof(uint16_t)) != cudaSuccess) {
        cudaGetLastError();
        g_bf = NULL;
        eecu_report("cudaMalloc", "out of memory for bf16 operands", __FILE__, __LINE__);
        return NULL;
    }
    g_bf_elems = n;
    return g_bf;
}

/* Elements a (batched) matrix of `rows` x `cols` with leading dimension ld
 * spans in memory, counting `batch` matrices `stride` apart. */
static size_t span(int rows, int cols, int ld, long long stride, int batch)
{
    if (rows <= 0 || cols <= 0 || batch <= 0) return 0;
    return (size_t)(batch - 1) * (size_t)stride + (size_t)(rows - 1) * ld + cols;
}

/* The cuBLAS call on operands of type `ab` (CUDA_R_32F or CUDA_R_16BF). */
static void gemm_raw(int ta, int tb, int M, int N, int K, float alpha, const void *A, int lda,
                     long long sA, const void *B, int ldb, long long sB, float beta, float *C,
                     int ldc, long long sC, int batch, cudaDataType ab, cublasComputeType_t ct)
{
    cublasHandle_t h = blas();
    if (!h) return;
    cublasOperation_t oa = ta ? CUBLAS_OP_T : CUBLAS_OP_N, ob = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
    if (ab == CUDA_R_32F && ct == CUBLAS_COMPUTE_32F) { /* plain FP32: today's Sgemm calls */
        if (batch == 1)
            EECU_CKB(cublasSgemm(h, ob, oa, N, M, K, &alpha, (const float *)B, ldb, (const float *)A,
                                 lda, &beta, C, ldc));
        else
            EECU_CKB(cublasSgemmStridedBatched(h, ob, oa, N, M, K, &alpha, (const float *)B, ldb, sB,
                                               (const float *)A, lda, sA, &beta, C, ldc, sC, batch));
    } else if (batch == 1) {
        EECU_CKB(cublasGemmEx(h, ob, oa, N, M, K, &alpha, B, ab, ldb, A, ab, lda, &beta, C,
                              CUDA_R_32F, ldc, ct, CUBLAS_GEMM_DEFAULT));
    } else {
        EECU_CKB(cublasGemmStridedBatchedEx(h, ob, oa, N, M, K, &alpha, B, ab, ldb, sB, A, ab, lda,
                                            sA, &beta, C, CUDA_R_32F, ldc, sC, batch, ct,
                                            CUBLAS_GEMM_DEFAULT));
    }
}

/* The batched product at precision PREC on FP32 operands. */
template <EePrecision PREC>
static void gemm_sb(int ta, int tb, int M, int N, int K, float alpha, const float *A, int lda,
                    long long sA, const float *B, int ldb, long long sB, float beta, float *C,
                    int ldc, long long sC, int batch)
{
    if (M <= 0 || N <= 0 || K <= 0 || batch <= 0) return;
    if (PREC != EE_PRECISION_BF16) {
        gemm_raw(ta, tb, M, N, K, alpha, A, lda, sA, B, ldb, sB, beta, C, ldc, sC, batch,
                 CUDA_R_32F, compute_type(PREC));
        return;
    }
    size_t nA = span(ta ? K : M, ta ? M : K, lda, sA, batch);
    size_t nB = span(tb ? N : K, tb ? K : N, ldb, sB, batch);
    size_t oB = (nA + 127) & ~(size_t)127;
    uint16_t *buf = bf16_scratch(oB + nB);
    if (!buf) return;
    eecu_to_bf16(A, buf, nA);
    eecu_to_bf16(B, buf + oB, nB);
    gemm_raw(ta, tb, M, N, K, alpha, buf, lda, sA, buf + oB, ldb, sB, beta, C, ldc, sC, batch,
             CUDA_R_16BF, CUBLAS_COMPUTE_32F);
}

template <EePrecision PREC>
static void cu_gemm(int ta, int tb, int M, int N, int K, float alpha, const float *A, int lda,
                    const float *B, int ldb, float beta, float *C, int ldc)
{
    if (M <= 0 || N <= 0) return;
    if (K <= 0) { /* the CPU's rule: C *= beta */
        eecu_scale_matrix(C, M, N, ldc, beta);
        return;
    }
    gemm_sb<PREC>(ta, tb, M, N, K, alpha, A, lda, 0, B, ldb, 0, beta, C, ldc, 0, 1);
}

/* Attention operands: FP32 buffers as they are, or (bf16) one bf16 copy of
 * each whole tensor, made once per op for all heads. */
struct Operands {
    const void *p[6];
    cudaDataType type;
    size_t esize;
    cublasComputeType_t ct;
    uint16_t *reserved; /* bf16: room for one more operand */
    /* the head-h column block of operand i (rows of width d) */
    const void *at(int i, size_t off) const { return (const char *)p[i] + off * esize; }
};

template <EePrecision PREC>
static int operands(Operands *o, const float *const *x, const size_t *n, int count, size_t reserve)
{
    o->type = PREC == EE_PRECISION_BF16 ? CUDA_R_16BF : CUDA_R_32F;
    o->esize = PREC == EE_PRECISION_BF16 ? 2 : 4;
    o->ct = PREC == EE_PRECISION_BF16 ? CUBLAS_COMPUTE_32F : compute_type(PREC);
    o->reserved = NULL;
    if (PREC != EE_PRECISION_BF16) {
        for (int i = 0; i < count; i++) o->p[i] = x[i];
        return 1;
    }
    size_t total = reserve;
    for (int i = 0; i < count; i++) total += (n[i] + 127) & ~(size_t)127;
    uint16_t *buf = bf16_scratch(total);
    if (!buf) return 0;
    for (int i = 0; i < count; i++) {
        eecu_to_bf16(x[i], buf, n[i]);
        o->p[i] = buf;
        buf += (n[i] + 127) & ~(size_t)127;
    }
    o->reserved = buf;
    return 1;
}

/* An operand made after the others (P, dS): FP32 as it is, or its bf16
 * copy in the room reserved for it. */
static const void *late_operand(const Operands *o, const float *x, size_t n)
{
    if (o->type == CUDA_R_32F) return x;
    eecu_to_bf16(x, o->reserved, n);
    return o->reserved;
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
/* The fused kernel (FP32 products on the CUDA cores) is a candidate where
 * it fits: at fp32 for heads up to 64 wide, at tf32/bf16 for heads up to
 * 32 wide (thin products that gain nothing from tensor cores); which of it
 * and the GEMM path runs a shape class is measured (measured choices,
 * above). EE_CUDA_FUSED_ATTN=0 in the environment leaves it out, =2 takes
 * it wherever it fits (tests and comparisons). Returns 0 (not a
 * candidate), 1 (measure) or 2 (always). */
static int fused_attention(EePrecision prec, int T, int dh)
{
    static int on = -1;
    if (on < 0) {
        const char *e = getenv("EE_CUDA_FUSED_ATTN");
        on = e && *e ? (atoi(e) >= 2 ? 2 : atoi(e) > 0) : 1;
    }
    if (!eecu_attn_fused_fits(T, dh) || !(prec == EE_PRECISION_FP32 || dh <= 32)) return 0;
    return on;
}

template <EePrecision PREC>
static void attention_fwd_gemm(const float *q, const float *k, const float *v, const uint8_t *mask,
                               float *P, float *ctx, int B, int T, int d, int H, float scale);

template <EePrecision PREC>
static void cu_attention_fwd(const float *q, const float *k, const float *v, const uint8_t *mask,
                             float *P, float *ctx, int B, int T, int d, int H)
{
    if (B <= 0 || T <= 0 || H <= 0) return;
    int dh = d / H;
    if (dh <= 0) return;
    float scale = 1.0f / sqrtf((float)dh);
    int pick = fused_attention(PREC, T, dh);
    const int key[5] = {B, (T + 15) & ~15, d, H, 0};
    if (pick == 1) pick = choice_get(CHOICE_ATTENTION, PREC, key);
    if (pick < 0) { /* not measured yet (once per shape class) */
        choice_measure(
            CHOICE_ATTENTION, PREC, key,
            [&] { attention_fwd_gemm<PREC>(q, k, v, mask, P, ctx, B, T, d, H, scale); },
            [&] {
                eecu_attn_fused_fwd(q, k, v, mask, P, ctx, B, T, d, H, scale);
                return 1;
            });
        return;
    }
    if (pick) eecu_attn_fused_fwd(q, k, v, mask, P, ctx, B, T, d, H, scale);
    else attention_fwd_gemm<PREC>(q, k, v, mask, P, ctx, B, T, d, H, scale);
}

template <EePrecision PREC>
static void attention_fwd_gemm(const float *q, const float *k, const float *v, const uint8_t *mask,
                               float *P, float *ctx, int B, int T, int d, int H, float scale)
{
    int dh = d / H;
    long long sX = (long long)T * d, sP = (long long)H * T * T;
    size_t n = (size_t)B * T * d, nP = (size_t)B * H * T * T;
    const float *x[3] = {q, k, v};
    size_t ns[3] = {n, n, n};
    Operands o;
    if (!operands<PREC>(&o, x, ns, 3, nP)) return;
    for (int h = 0; h < H; h++)
        gemm_raw(0, 1, T, T, dh, scale, o.at(0, h * dh), d, sX, o.at(1, h * dh), d, sX, 0.0f,
                 P + (size_t)h * T * T, T, sP, B, o.type, o.ct);
    eecu_attn_softmax(P, mask, B, H, T);
    const void *Pp = late_operand(&o, P, nP);
    for (int h = 0; h < H; h++)
        gemm_raw(0, 0, T, dh, T, 1.0f, (const char *)Pp + (size_t)h * T * T * o.esize, T, sP,
                 o.at(2, h * dh), d, sX, 0.0f, ctx + h * dh, d, sX, B, o.type, o.ct);
}

template <EePrecision PREC>
static void cu_attention_bwd(const float *q, const float *k, const float *v, const uint8_t *mask,
                             const float *P, const float *dctx, float *dq, float *dk, float *dv,
                             int B, int T, int d, int H)
{
    if (B <= 0 || T <= 0 || H <= 0) return;
    int dh = d / H;
    if (dh <= 0) return;
    float scale = 1.0f / sqrtf((float)dh);
    long long sX = (long long)T * d, sP = (long long)H * T * T;
    size_t n = (size_t)B * T * d, nP = (size_t)B * H * T * T;
    float *dS = (float *)eecu_workspace(sizeof(float) * nP);
    if (!dS) return;
    enum { DCTX, V, PR, Q, K };
    const float *x[5] = {dctx, v, P, q, k};
    size_t ns[5] = {n, n, nP, n, n};
    Operands o;
    if (!operands<PREC>(&o, x, ns, 5, nP)) return;
    for (int h = 0; h < H; h++) {
        size_t oP = (size_t)h * T * T;
        /* dP = dctx v^T ; dv = P^T dctx */
        gemm_raw(0, 1, T, T, dh, 1.0f, o.at(DCTX, h * dh), d, sX, o.at(V, h * dh), d, sX, 0.0f,
                 dS + oP, T, sP, B, o.type, o.ct);
        gemm_raw(1, 0, T, dh, T, 1.0f, o.at(PR, oP), T, sP, o.at(DCTX, h * dh), d, sX, 0.0f,
                 dv + h * dh, d, sX, B, o.type, o.ct);
    }
    eecu_attn_softmax_bwd(P, dS, mask, B, H, T, scale);
    const void *dSp = late_operand(&o, dS, nP);
    for (int h = 0; h < H; h++) {
        size_t oP = (size_t)h * T * T * o.esize;
        /* dq = dS k ; dk = dS^T q */
        gemm_raw(0, 0, T, dh, T, 1.0f, (const char *)dSp + oP, T, sP, o.at(K, h * dh), d, sX, 0.0f,
                 dq + h * dh, d, sX, B, o.type, o.ct);
        gemm_raw(1, 0, T, dh, T, 1.0f, (const char *)dSp + oP, T, sP, o.at(Q, h * dh), d, sX, 0.0f,
                 dk + h * dh, d, sX, B, o.type, o.ct);
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
template <EePrecision PREC>
static void conv_fwd_own(const float *E, const float *W, const float *b, float *out, int B, int T,
                         int d, int w, int F)
{
    int rows = B * T, wd = w * d;
    float *Xc = (float *)eecu_workspace(sizeof(float) * (size_t)rows * wd);
    if (!Xc) return;
    eecu_im2col(E, Xc, B, T, d, w);
    if (b) eecu_fill_rows(out, b, rows, F);
    cu_gemm<PREC>(0, 0, rows, F, wd, 1.0f, Xc, wd, W, F, b ? 1.0f : 0.0f, out, F);
}

template <EePrecision PREC>
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
    /* cuDNN or the own path, whichever ran faster on this shape class */
    int mode = PREC == EE_PRECISION_BF16 ? 0 : eecu_cudnn_mode();
    const int key[5] = {B, (T + 15) & ~15, d, w, F};
    int pick = mode == 2 ? 1 : mode == 1 ? choice_get(CHOICE_CONV, PREC, key) : 0;
    if (pick < 0) { /* not measured yet (once per shape class) */
        choice_measure(
            CHOICE_CONV, PREC, key, [&] { conv_fwd_own<PREC>(E, W, b, out, B, T, d, w, F); },
            [&] { return eecu_cudnn_conv_fwd(E, W, b, out, B, T, d, w, F, PREC); });
        return;
    }
    if (pick && eecu_cudnn_conv_fwd(E, W, b, out, B, T, d, w, F, PREC)) return;
    conv_fwd_own<PREC>(E, W, b, out, B, T, d, w, F);
}

template <EePrecision PREC>
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
        cu_gemm<PREC>(1, 0, wd, F, rows, 1.0f, Xc, wd, dOut, F, 1.0f, dW, F);
    }
    if (dE) {
        cu_gemm<PREC>(0, 1, rows, wd, F, 1.0f, dOut, F, W, F, 0.0f, Xc, wd);
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
static EeBackend g_backend[EE_PRECISION_COUNT]; /* one table per precision */
static const EeBackend *g_available;
static char g_desc[512] = "CUDA backend not initialised";
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

template <EePrecision PREC>
static void fill_table(EeBackend *be)
{
    memset(be, 0, sizeof *be);
    be->name = "cuda";
    be->device = EE_DEVICE_GPU;
    be->precision = PREC;
    be->host_memory = 0; /* device memory: the samplers' host paths do not run */
    EECU_SET_OP(be, alloc, cu_alloc);
    /* the zero-filled allocation: a forward-only run's activations are
     * zeroed on the device as before (the saving measured was the CPU's) */
    EECU_SET_OP(be, alloc_scratch, cu_alloc);
    EECU_SET_OP(be, release, cu_release);
    EECU_SET_OP(be, weights_acquire, cu_weights_acquire);
    EECU_SET_OP(be, weights_release, cu_weights_release);
    EECU_SET_OP(be, upload, cu_upload);
    EECU_SET_OP(be, download, cu_download);
    EECU_SET_OP(be, copy, cu_copy);
    EECU_SET_OP(be, zero, cu_zero);
    EECU_SET_OP(be, sync, cu_sync);
    EECU_SET_OP(be, gemm, cu_gemm<PREC>);
    EECU_SET_OP(be, axpy, cu_axpy);
    EECU_SET_OP(be, scale, cu_scale);
    EECU_SET_OP(be, add_bias, cu_add_bias);
    EECU_SET_OP(be, bias_grad, cu_bias_grad);
    EECU_SET_OP(be, layernorm_fwd, cu_layernorm_fwd);
    EECU_SET_OP(be, layernorm_bwd, cu_layernorm_bwd);
    EECU_SET_OP(be, bias_gelu_fwd, eecu_bias_gelu_fwd);
    EECU_SET_OP(be, bias_residual_layernorm_fwd, eecu_bias_residual_layernorm_fwd);
    EECU_SET_OP(be, gelu_fwd, cu_gelu_fwd);
    EECU_SET_OP(be, gelu_bwd, cu_gelu_bwd);
    EECU_SET_OP(be, relu_fwd, cu_relu_fwd);
    EECU_SET_OP(be, mul_mask, cu_mul_mask);
    EECU_SET_OP(be, relu_bwd, cu_relu_bwd);
    EECU_SET_OP(be, tanh_fwd, cu_tanh_fwd);
    EECU_SET_OP(be, tanh_bwd, cu_tanh_bwd);
    EECU_SET_OP(be, dropout_fwd, cu_dropout_fwd);
    EECU_SET_OP(be, dropout_bwd, cu_dropout_bwd);
    EECU_SET_OP(be, attention_fwd, cu_attention_fwd<PREC>);
    EECU_SET_OP(be, attention_bwd, cu_attention_bwd<PREC>);
    EECU_SET_OP(be, attention_cls_fwd, cu_attention_cls_fwd);
    EECU_SET_OP(be, attention_cls_bwd, cu_attention_cls_bwd);
    EECU_SET_OP(be, embed_fwd, cu_embed_fwd);
    EECU_SET_OP(be, embed_bwd, cu_embed_bwd);
    EECU_SET_OP(be, conv_fwd, cu_conv_fwd<PREC>);
    EECU_SET_OP(be, conv_bwd, cu_conv_bwd<PREC>);
    EECU_SET_OP(be, maxpool_fwd, cu_maxpool_fwd);
    EECU_SET_OP(be, maxpool_bwd, cu_maxpool_bwd);
    EECU_SET_OP(be, relu_rescale_bwd, eecu_relu_rescale_bwd);
    EECU_SET_OP(be, pool_rescale_bwd, eecu_pool_rescale_bwd);
    EECU_SET_OP(be, conv_pool_bwd, eecu_conv_pool_bwd);
    EECU_SET_OP(be, gather_rows, cu_gather_rows);
    EECU_SET_OP(be, scatter_rows, cu_scatter_rows);
    EECU_SET_OP(be, lerp_rows, eecu_lerp_rows);
    EECU_SET_OP(be, accum_rows, eecu_accum_rows);
    EECU_SET_OP(be, softmax_xent, cu_softmax_xent);
    EECU_SET_OP(be, mse, cu_mse);
    EECU_SET_OP(be, adam, cu_adam);
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
    fill_table<EE_PRECISION_FP32>(&g_backend[EE_PRECISION_FP32]);
    fill_table<EE_PRECISION_TF32>(&g_backend[EE_PRECISION_TF32]);
    fill_table<EE_PRECISION_BF16>(&g_backend[EE_PRECISION_BF16]);
    /* every op of backend.h must be here: an op added there but not here
     * would be a NULL call; say so and offer no GPU instead */
    int missing = 0;
    for (int k = 0; k < EE_PRECISION_COUNT; k++)
        for (const char *q = (const char *)&g_backend[k].alloc;
             q + sizeof(void (*)(void)) <= (const char *)(&g_backend[k] + 1);
             q += sizeof(void (*)(void))) {
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
    g_available = g_backend;
}

extern "C" const EeBackend *ee_backend_cuda(void)
{
    pthread_once(&g_once, init_once);
    return g_available;
}

extern "C" const EeBackend *ee_backend_cuda_at(EePrecision p)
{
    pthread_once(&g_once, init_once);
    if (!g_available || (unsigned)p >= EE_PRECISION_COUNT) return NULL;
    return &g_backend[p];
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
