/* emu.cpp: the CUDA runtime and cuBLAS calls of libcore's CUDA backend,
 * emulated on the CPU (see run.sh). Device memory: one mmap per allocation
 * ending at a PROT_NONE page (reads or writes past the end fault at once;
 * the slack before the page is checked at every launch and free), filled
 * with NaN bytes like uninitialised memory; copies and kernel pointer
 * arguments are checked to be device memory. Kernels: every thread is a
 * fiber (makecontext once, then _setjmp/_longjmp); a warp shuffle or
 * __syncwarp is a barrier of the 32 lanes, __syncthreads of the block;
 * shuffles with exited lanes and deadlocks abort. Blocks run one after
 * another, so races between blocks or warps are NOT detected. cuBLAS:
 * naive column-major products in double, with cuBLAS's argument checks. */
#include "cuda_runtime.h"
#include "cublas_v2.h"
#include <map>
#include <vector>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <setjmp.h>
#include <unistd.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

dim3 threadIdx, blockIdx, blockDim, gridDim;
unsigned char emu_slots[32][32][8];
static cudaError_t last_err = cudaSuccess;
static long n_launch, n_switch, n_sync_exited;

static void die(const char *fmt, const char *a = "", long b = 0)
{
    fprintf(stderr, "EMU FATAL: ");
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, "\n");
    abort();
}

/* ---- memory: each allocation ends right before a PROT_NONE page ---- */
struct Alloc { char *map; size_t maplen; char *p; size_t n; size_t slack; };
static std::map<uintptr_t, Alloc> allocs;
static long page;
#define SLACK_BYTE 0xA5

cudaError_t cudaMalloc(void **out, size_t n)
{
    if (!page) page = sysconf(_SC_PAGESIZE);
    if (n == 0) { *out = NULL; return cudaSuccess; }
    size_t body = (n + 15) & ~(size_t)15; /* 16-byte aligned start */
    size_t pages = (body + page - 1) / page + 2;
    char *m = (char *)mmap(NULL, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) { last_err = cudaErrorMemoryAllocation; return cudaErrorMemoryAllocation; }
    mprotect(m, page, PROT_NONE);                          /* guard before */
    mprotect(m + (pages - 1) * page, page, PROT_NONE);     /* guard after */
    char *end = m + (pages - 1) * page;
    char *p = end - body;
    memset(p, 0xFF, n);                    /* garbage (NaN) like uninitialised device memory */
    memset(p + n, SLACK_BYTE, body - n);   /* slack to the guard page */
    allocs[(uintptr_t)p] = Alloc{m, pages * page, p, n, body - n};
    *out = p;
    return cudaSuccess;
}

static const Alloc *find(const void *q)
{
    uintptr_t a = (uintptr_t)q;
    auto it = allocs.upper_bound(a);
    if (it == allocs.begin()) return NULL;
    --it;
    if (a >= it->first && a < it->first + it->second.n) return &it->second;
    return NULL;
}

void emu_check_range(const void *q, size_t bytes, const char *what)
{
    const Alloc *al = find(q);
    if (!al) die("%s: pointer %p is not in a device allocation", what, (long)q);
    if ((const char *)q + bytes > al->p + al->n) die("%s: range past the end of a device allocation (%ld bytes)", what, (long)bytes);
}

static void check_slack(const Alloc &al)
{
    for (size_t i = 0; i < al.slack; i++)
        if ((unsigned char)al.p[al.n + i] != SLACK_BYTE) die("write past the end of a device allocation detected at free%s (%ld)", "", (long)al.n);
}

cudaError_t cudaFree(void *q)
{
    if (!q) return cudaSuccess;
    auto it = allocs.find((uintptr_t)q);
    if (it == allocs.end()) die("cudaFree of a non-allocation%s", "", 0);
    check_slack(it->second);
    munmap(it->second.map, it->second.maplen);
    allocs.erase(it);
    return cudaSuccess;
}

static void check_all_slack(void)
{
    for (auto &kv : allocs) check_slack(kv.second);
}

static int is_dev(const void *q) { return find(q) != NULL; }

cudaError_t cudaMemcpy(void *d, const void *s, size_t n, cudaMemcpyKind k)
{
    if (!n) return cudaSuccess;
    if (k == cudaMemcpyHostToDevice) { emu_check_range(d, n, "cudaMemcpy H2D dst"); if (is_dev(s)) die("H2D from a device pointer%s", "", 0); }
    else if (k == cudaMemcpyDeviceToHost) { emu_check_range(s, n, "cudaMemcpy D2H src"); if (is_dev(d)) die("D2H into a device pointer%s", "", 0); }
    else if (k == cudaMemcpyDeviceToDevice) { emu_check_range(s, n, "D2D src"); emu_check_range(d, n, "D2D dst"); }
    else die("unexpected memcpy kind%s", "", (long)k);
    memmove(d, s, n);
    return cudaSuccess;
}
cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, cudaMemcpyKind k, cudaStream_t st)
{
    if (st) die("non-default stream%s", "", 0);
    return cudaMemcpy(d, s, n, k);
}
cudaError_t cudaMemsetAsync(void *d, int v, size_t n, cudaStream_t st)
{
    if (st) die("non-default stream%s", "", 0);
    if (!n) return cudaSuccess;
    emu_check_range(d, n, "cudaMemsetAsync");
    memset(d, v, n);
    return cudaSuccess;
}
const char *cudaGetErrorString(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    default: return "emulated error";
    }
}
cudaError_t cudaGetLastError(void) { cudaError_t e = last_err; last_err = cudaSuccess; return e; }
cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
cudaError_t cudaDeviceSynchronize(void) { return cudaSuccess; }
cudaError_t cudaGetDeviceCount(int *n) { *n = 1; return cudaSuccess; }
cudaError_t cudaMemGetInfo(size_t *free_b, size_t *total)
{
    *total = (size_t)1 << 32; /* as totalGlobalMem below */
    *free_b = *total;
    return cudaSuccess;
}
cudaError_t cudaGetDevice(int *d) { *d = 0; return cudaSuccess; }
cudaError_t cudaSetDevice(int d) { return d == 0 ? cudaSuccess : cudaErrorInvalidValue; }
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int)
{
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "CPU emulation of a CUDA device");
    p->major = 9; p->minor = 0; p->multiProcessorCount = 1; p->totalGlobalMem = (size_t)1 << 32;
    return cudaSuccess;
}
cudaError_t cudaEventCreate(cudaEvent_t *e) { *e = (cudaEvent_t)malloc(1); return cudaSuccess; }
cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t) { return cudaSuccess; }
cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t, cudaEvent_t) { *ms = 0; return cudaSuccess; }
cudaError_t cudaEventDestroy(cudaEvent_t e) { free(e); return cudaSuccess; }

void emu_check_kernel_ptr(const void *q, const char *kernel, int arg)
{
    if (q && !is_dev(q)) {
        fprintf(stderr, "EMU FATAL: kernel %s argument %d: %p is not a device pointer\n", kernel, arg, q);
        abort();
    }
}

/* ---- fibers ---- */
struct Fiber { ucontext_t ctx; jmp_buf jb; int started; dim3 tid; int lin; int done; int wait; };
static jmp_buf sched_jb;
static std::vector<Fiber> fib;
static std::vector<char *> stacks;
static int cur;
static const std::function<void()> *body;
#define STACK (64 * 1024)

static void fiber_entry(void)
{
    (*body)();
    fib[cur].done = 1;
    _longjmp(sched_jb, 1);
}

static void yield_to_sched(void)
{
    n_switch++;
    if (!_setjmp(fib[cur].jb)) _longjmp(sched_jb, 1);
}

static void resume(int t)
{
    cur = t;
    threadIdx = fib[t].tid;
    if (!_setjmp(sched_jb)) {
        if (!fib[t].started) {
            fib[t].started = 1;
            setcontext(&fib[t].ctx);
        }
        _longjmp(fib[t].jb, 1);
    }
}

int emu_linear_tid(void) { return fib[cur].lin; }
void emu_warp_barrier(void) { fib[cur].wait = 1; yield_to_sched(); }
void emu_block_barrier(void) { fib[cur].wait = 2; yield_to_sched(); }

void emu_run(const char *name, EmuCfg c, const std::function<void()> &f)
{
    n_launch++;
    unsigned nt = c.b.x * c.b.y * c.b.z;
    if (nt == 0 || nt > 1024 || c.b.z > 64 || c.g.x == 0 || c.g.y == 0 || c.g.z == 0 ||
        c.g.y > 65535 || c.g.z > 65535 || c.g.x > 2147483647u) {
        fprintf(stderr, "EMU: kernel %s: invalid launch configuration\n", name);
        last_err = cudaErrorInvalidConfiguration;
        return;
    }
    if (nt % 32) die("kernel %s: block size not a multiple of 32", name, nt);
    gridDim = c.g;
    blockDim = c.b;
    body = &f;
    while (stacks.size() < nt) stacks.push_back((char *)malloc(STACK));
    fib.resize(nt);
    for (unsigned bz = 0; bz < c.g.z; bz++)
    for (unsigned by = 0; by < c.g.y; by++)
    for (unsigned bx = 0; bx < c.g.x; bx++) {
        blockIdx = dim3(bx, by, bz);
        for (unsigned t = 0; t < nt; t++) {
            Fiber &F = fib[t];
            getcontext(&F.ctx);
            F.ctx.uc_stack.ss_sp = stacks[t];
            F.ctx.uc_stack.ss_size = STACK;
            F.ctx.uc_link = NULL;
            F.started = 0;
            makecontext(&F.ctx, fiber_entry, 0);
            F.tid = dim3(t % c.b.x, (t / c.b.x) % c.b.y, t / (c.b.x * c.b.y));
            F.lin = (int)t;
            F.done = 0;
            F.wait = 0;
        }
        for (;;) {
            for (unsigned t = 0; t < nt; t++) {
                if (fib[t].done || fib[t].wait) continue;
                resume((int)t);
            }
            unsigned ndone = 0, nblk = 0;
            for (unsigned t = 0; t < nt; t++) { ndone += fib[t].done; nblk += fib[t].wait == 2; }
            if (ndone == nt) break;
            int released = 0;
            if (nblk && nblk + ndone == nt) {
                if (ndone) n_sync_exited++;
                for (unsigned t = 0; t < nt; t++) if (fib[t].wait == 2) fib[t].wait = 0;
                released = 1;
            }
            for (unsigned w = 0; w < nt / 32; w++) {
                int nw = 0, nd = 0;
                for (int l = 0; l < 32; l++) { nw += fib[w * 32 + l].wait == 1; nd += fib[w * 32 + l].done; }
                if (nw == 0) continue;
                if (nd) die("kernel %s: warp shuffle/syncwarp with exited lanes (warp %ld)", name, w);
                if (nw == 32) {
                    for (int l = 0; l < 32; l++) fib[w * 32 + l].wait = 0;
                    released = 1;
                }
            }
            if (!released) die("kernel %s: deadlock (divergent barriers)", name, 0);
        }
    }
    check_all_slack();
}

__attribute__((destructor)) static void report(void)
{
    fprintf(stderr, "EMU: %ld kernel launches, %ld barrier waits, %ld __syncthreads with exited threads\n",
            n_launch, n_switch, n_sync_exited);
}

/* ---- cuBLAS (naive column-major reference in double, validating arguments like cuBLAS) ---- */
cublasStatus_t cublasCreate(cublasHandle_t *h) { *h = (cublasHandle_t)malloc(8); return CUBLAS_STATUS_SUCCESS; }
cublasStatus_t cublasDestroy(cublasHandle_t h) { free(h); return CUBLAS_STATUS_SUCCESS; }
cublasStatus_t cublasSetStream(cublasHandle_t, cudaStream_t s) { if (s) die("stream%s", "", 0); return CUBLAS_STATUS_SUCCESS; }
cublasStatus_t cublasSetMathMode(cublasHandle_t, cublasMath_t m) { if (m != CUBLAS_DEFAULT_MATH) die("math mode%s", "", m); return CUBLAS_STATUS_SUCCESS; }
cublasStatus_t cublasSetPointerMode(cublasHandle_t, cublasPointerMode_t) { return CUBLAS_STATUS_SUCCESS; }
const char *cublasGetStatusString(cublasStatus_t s) { return s == CUBLAS_STATUS_SUCCESS ? "success" : "CUBLAS_STATUS_INVALID_VALUE (emulated)"; }

static long n_gemm;
/* x rounded to nearest even at `bits` mantissa bits (23: unchanged) */
static double round_mantissa(float x, int bits)
{
    if (bits >= 23 || !isfinite(x)) return x;
    uint32_t u;
    memcpy(&u, &x, 4);
    uint32_t drop = 23 - bits, half = 1u << (drop - 1), mask = (1u << drop) - 1;
    uint32_t low = u & mask;
    u &= ~mask;
    if (low > half || (low == half && (u >> drop) & 1)) u += 1u << drop;
    float y;
    memcpy(&y, &u, 4);
    return y;
}

/* element i of an FP32 (es 4) or bf16 (es 2, raw bits) array */
static float elem(const void *p, size_t i, int es)
{
    if (es == 4) return ((const float *)p)[i];
    uint32_t u = (uint32_t)((const uint16_t *)p)[i] << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static cublasStatus_t gemm_emu(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                               int n, int k, const float *alpha, const void *A, int lda,
                               long long sA, const void *B, int ldb, long long sB,
                               const float *beta, float *C, int ldc, long long sC, int batch, int bits,
                               int es)
{
    n_gemm++;
    if (!h) return CUBLAS_STATUS_NOT_INITIALIZED;
    int ar = ta == CUBLAS_OP_N ? m : k, ac = ta == CUBLAS_OP_N ? k : m;
    int br = tb == CUBLAS_OP_N ? k : n, bc = tb == CUBLAS_OP_N ? n : k;
    if (m < 0 || n < 0 || k < 0 || batch < 0 || lda < (ar > 1 ? ar : 1) || ldb < (br > 1 ? br : 1) ||
        ldc < (m > 1 ? m : 1)) {
        fprintf(stderr, "EMU: cublasSgemm invalid value m=%d n=%d k=%d lda=%d ldb=%d ldc=%d ta=%d tb=%d\n", m, n, k, lda, ldb, ldc, ta, tb);
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    if (m == 0 || n == 0 || batch == 0) return CUBLAS_STATUS_SUCCESS;
    for (int bi = 0; bi < batch; bi++) {
        const char *Ab = (const char *)A + (size_t)bi * sA * es, *Bb = (const char *)B + (size_t)bi * sB * es;
        float *Cb = C + bi * sC;
        if (k > 0) {
            emu_check_range(Ab, es * ((size_t)(ac - 1) * lda + ar), "gemm A");
            emu_check_range(Bb, es * ((size_t)(bc - 1) * ldb + br), "gemm B");
        }
        emu_check_range(Cb, sizeof(float) * ((size_t)(n - 1) * ldc + m), "gemm C");
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++) {
                double s = 0;
                for (int p = 0; p < k; p++) {
                    double a = round_mantissa(elem(Ab, ta == CUBLAS_OP_N ? i + (size_t)p * lda : p + (size_t)i * lda, es), bits);
                    double b = round_mantissa(elem(Bb, tb == CUBLAS_OP_N ? p + (size_t)j * ldb : j + (size_t)p * ldb, es), bits);
                    s += a * b;
                }
                float *c = Cb + i + (size_t)j * ldc;
                *c = (float)(*alpha * s + (*beta == 0.0f ? 0.0 : (double)*beta * *c));
            }
    }
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                                         int n, int k, const float *alpha, const float *A, int lda,
                                         long long sA, const float *B, int ldb, long long sB,
                                         const float *beta, float *C, int ldc, long long sC, int batch)
{
    return gemm_emu(h, ta, tb, m, n, k, alpha, A, lda, sA, B, ldb, sB, beta, C, ldc, sC, batch, 23, 4);
}

cublasStatus_t cublasSgemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                           const float *alpha, const float *A, int lda, const float *B, int ldb,
                           const float *beta, float *C, int ldc)
{
    return cublasSgemmStridedBatched(h, ta, tb, m, n, k, alpha, A, lda, 0, B, ldb, 0, beta, C, ldc, 0, 1);
}

static int compute_bits(cudaDataType at, cudaDataType bt, cudaDataType ct, cublasComputeType_t c)
{
    if (at != bt || (at != CUDA_R_32F && at != CUDA_R_16BF) || ct != CUDA_R_32F) die("GemmEx: data type %s%ld", "", at);
    if (at == CUDA_R_16BF) {
        if (c != CUBLAS_COMPUTE_32F) die("GemmEx: bf16 data with compute type %s%ld", "", c);
        return 23; /* the operands are bf16 already */
    }
    if (c == CUBLAS_COMPUTE_32F_FAST_TF32) return 10;
    if (c == CUBLAS_COMPUTE_32F_FAST_16BF) return 7;
    if (c == CUBLAS_COMPUTE_32F) return 23;
    die("GemmEx: compute type %s%ld", "", c);
    return 23;
}

cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                                          int n, int k, const void *alpha, const void *A, cudaDataType Atype,
                                          int lda, long long sA, const void *B, cudaDataType Btype, int ldb,
                                          long long sB, const void *beta, void *C, cudaDataType Ctype, int ldc,
                                          long long sC, int batch, cublasComputeType_t ct, cublasGemmAlgo_t)
{
    int bits = compute_bits(Atype, Btype, Ctype, ct);
    return gemm_emu(h, ta, tb, m, n, k, (const float *)alpha, A, lda, sA, B, ldb, sB, (const float *)beta,
                    (float *)C, ldc, sC, batch, bits, Atype == CUDA_R_16BF ? 2 : 4);
}

cublasStatus_t cublasGemmEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                            const void *alpha, const void *A, cudaDataType Atype, int lda, const void *B,
                            cudaDataType Btype, int ldb, const void *beta, void *C, cudaDataType Ctype, int ldc,
                            cublasComputeType_t ct, cublasGemmAlgo_t algo)
{
    return cublasGemmStridedBatchedEx(h, ta, tb, m, n, k, alpha, A, Atype, lda, 0, B, Btype, ldb, 0, beta, C,
                                      Ctype, ldc, 0, 1, ct, algo);
}
