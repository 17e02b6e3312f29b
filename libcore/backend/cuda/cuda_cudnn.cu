/* cuda_cudnn.cu: the CUDA backend's cuDNN paths (built with EE_HAVE_CUDNN).
 *
 * The text-CNN convolution forward runs as a cuDNN 2-D convolution in NHWC
 * layout: the embeddings E [B][T][d] are N = B, H = T, W = 1, C = d; the
 * filter bank [F][w][1][d] is W^T (the backend keeps W as [(w*d)][F]);
 * cuDNN pads symmetrically, so with w - 1 rows of zeros on each side the
 * output has T + w - 1 rows per sequence and row w - 1 + t is the window
 * that starts at t, which the crop kernel copies out (adding the bias).
 * Math: fp32 asks for FMA kernels only (no TF32, the FP32 results of the
 * other ops); tf32 lets cuDNN use the tensor cores; bf16 is not offered on
 * FP32 tensors (the caller keeps its own GEMM path). The algorithm comes
 * from cuDNN's heuristics and is kept per shape. Whether cuDNN or the
 * backend's own im2col + GEMM runs a shape class is measured, not assumed:
 * the first call of each class times both (cuda_backend.cu); on
 * an H200 cuDNN's FMA kernels lost to im2col + SGEMM at fp32 everywhere
 * and its TF32 kernels won on SV's forward-only batches only.
 *
 * eecu_cudnn_conv_fwd returns 0 without touching anything when cuDNN is
 * off, absent, or refuses the shape, so the caller runs its own path. */
#include "cuda_common.cuh"
#include "cuda_backend.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef EE_HAVE_CUDNN
#include <cudnn.h>

static cudnnHandle_t g_dnn;
static int g_state = -1; /* -1 not decided, 0 off, 1 on (measured per shape), 2 always */
static int g_failed;     /* cuDNN could not be set up: stay off */
static char g_desc[160] = "cuDNN not initialised";
static long g_calls;

static int dnn_report(cudnnStatus_t s, const char *what, const char *file, int line)
{
    if (s == CUDNN_STATUS_SUCCESS) return 0;
    eecu_report(what, cudnnGetErrorString(s), file, line);
    return 1;
}
#define DNN_CK(call) dnn_report((call), #call, __FILE__, __LINE__)

static int use_cudnn(void)
{
    if (g_state < 0) {
        const char *e = getenv("EE_CUDNN");
        g_state = !(e && *e && !strcmp(e, "0"));
    }
    if (!g_state || g_failed) return 0;
    if (!g_dnn) {
        if (cudnnCreate(&g_dnn) != CUDNN_STATUS_SUCCESS || cudnnSetStream(g_dnn, EECU_STREAM) != CUDNN_STATUS_SUCCESS) {
            g_failed = 1;
            g_dnn = NULL;
            snprintf(g_desc, sizeof g_desc, "cuDNN could not be initialised: own kernels only");
            return 0;
        }
        size_t v = cudnnGetVersion();
        snprintf(g_desc, sizeof g_desc, "cuDNN %zu.%zu.%zu (built against %d.%d.%d)", v / 10000,
                 (v / 100) % 100, v % 100, CUDNN_MAJOR, CUDNN_MINOR, CUDNN_PATCHLEVEL);
    }
    return 1;
}

extern "C" int ee_cuda_use_cudnn(int on)
{
    int prev = use_cudnn() ? g_state : 0;
    if (on >= 0) g_state = on > 2 ? 2 : on;
    return prev;
}

extern "C" const char *ee_cuda_cudnn_describe(void)
{
    use_cudnn();
    if (!g_state) return "cuDNN built in, switched off (EE_CUDNN=0 or ee_cuda_use_cudnn(0))";
    return g_desc;
}

/* One shape's descriptors and algorithm. */
typedef struct {
    int B, T, d, w, F, prec, used;
    cudnnTensorDescriptor_t x, y;
    cudnnFilterDescriptor_t f;
    cudnnConvolutionDescriptor_t conv;
    cudnnConvolutionFwdAlgo_t algo;
    size_t ws;
    long stamp;
} ConvPlan;

#define PLANS 16
static ConvPlan g_plans[PLANS];
static long g_clock;

static void plan_free(ConvPlan *p)
{
    if (!p->used) return;
    cudnnDestroyTensorDescriptor(p->x);
    cudnnDestroyTensorDescriptor(p->y);
    cudnnDestroyFilterDescriptor(p->f);
    cudnnDestroyConvolutionDescriptor(p->conv);
    memset(p, 0, sizeof *p);
}

extern "C" void eecu_cudnn_shutdown(void)
{
    for (int i = 0; i < PLANS; i++) plan_free(&g_plans[i]);
    if (g_dnn) cudnnDestroy(g_dnn);
    g_dnn = NULL;
}

/* The plan of a shape: found, or made in the least recently used slot;
 * NULL when cuDNN offers no algorithm with the math this precision needs. */
static ConvPlan *plan_for(int B, int T, int d, int w, int F, EePrecision prec)
{
    ConvPlan *lru = &g_plans[0];
    for (int i = 0; i < PLANS; i++) {
        ConvPlan *p = &g_plans[i];
        if (p->used && p->B == B && p->T == T && p->d == d && p->w == w && p->F == F && p->prec == (int)prec) {
            p->stamp = ++g_clock;
            return p;
        }
        if (!p->used || p->stamp < lru->stamp) lru = p;
    }
    plan_free(lru);
    ConvPlan *p = lru;
    if (DNN_CK(cudnnCreateTensorDescriptor(&p->x)) || DNN_CK(cudnnCreateTensorDescriptor(&p->y)) ||
        DNN_CK(cudnnCreateFilterDescriptor(&p->f)) || DNN_CK(cudnnCreateConvolutionDescriptor(&p->conv)))
        return NULL;
    p->used = 1;
    p->B = B; p->T = T; p->d = d; p->w = w; p->F = F; p->prec = (int)prec;
    int Tout = T + w - 1;
    cudnnMathType_t math = prec == EE_PRECISION_FP32 ? CUDNN_FMA_MATH : CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
    if (DNN_CK(cudnnSetTensor4dDescriptor(p->x, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, B, d, T, 1)) ||
        DNN_CK(cudnnSetTensor4dDescriptor(p->y, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, B, F, Tout, 1)) ||
        DNN_CK(cudnnSetFilter4dDescriptor(p->f, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NHWC, F, d, w, 1)) ||
        DNN_CK(cudnnSetConvolution2dDescriptor(p->conv, w - 1, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                               CUDNN_DATA_FLOAT)) ||
        DNN_CK(cudnnSetConvolutionMathType(p->conv, math))) {
        plan_free(p);
        return NULL;
    }
    /* the output shape cuDNN computes must be ours */
    int n, c, h, wo;
    if (DNN_CK(cudnnGetConvolution2dForwardOutputDim(p->conv, p->x, p->f, &n, &c, &h, &wo)) || n != B ||
        c != F || h != Tout || wo != 1) {
        plan_free(p);
        return NULL;
    }
    cudnnConvolutionFwdAlgoPerf_t perf[8];
    int got = 0;
    if (DNN_CK(cudnnGetConvolutionForwardAlgorithm_v7(g_dnn, p->x, p->f, p->conv, p->y, 8, &got, perf))) {
        plan_free(p);
        return NULL;
    }
    for (int i = 0; i < got; i++) {
        if (perf[i].status != CUDNN_STATUS_SUCCESS) continue;
        /* fp32 must stay FP32: FMA kernels only */
        if (prec == EE_PRECISION_FP32 && perf[i].mathType != CUDNN_FMA_MATH) continue;
        if (DNN_CK(cudnnSetConvolutionMathType(p->conv, perf[i].mathType))) break;
        p->algo = perf[i].algo;
        p->ws = perf[i].memory;
        p->stamp = ++g_clock;
        return p;
    }
    plan_free(p);
    return NULL;
}

/* Wt[f][k] = W[k][f], k < w*d */
__global__ void k_transpose(const float *__restrict__ W, float *__restrict__ Wt, int K, int F, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        size_t f = i / (size_t)K, k = i % (size_t)K;
        Wt[i] = W[k * F + f];
    }
}

/* out[b][t][f] = Y[b][t + w - 1][f] (+ bias[f]) */
__global__ void k_crop_bias(const float *__restrict__ Y, const float *__restrict__ bias, float *out, int T,
                            int w, int F, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        size_t f = i % (size_t)F, bt = i / (size_t)F;
        size_t b = bt / (size_t)T, t = bt % (size_t)T;
        float v = Y[(b * (size_t)(T + w - 1) + t + (size_t)(w - 1)) * F + f];
        out[i] = bias ? v + bias[f] : v;
    }
}

static size_t align256(size_t x) { return (x + 255) & ~(size_t)255; }

extern "C" int eecu_cudnn_conv_fwd(const float *E, const float *W, const float *b, float *out, int B, int T,
                                   int d, int w, int F, EePrecision prec)
{
    if (prec == EE_PRECISION_BF16 || B <= 0 || T <= 0 || d <= 0 || w <= 0 || F <= 0) return 0;
    if (!use_cudnn()) return 0;
    ConvPlan *p = plan_for(B, T, d, w, F, prec);
    if (!p) return 0;
    size_t ny = (size_t)B * (T + w - 1) * F, nw = (size_t)F * w * d;
    size_t oy = 0, ow = align256(sizeof(float) * ny), ows = ow + align256(sizeof(float) * nw);
    char *ws = (char *)eecu_workspace(ows + p->ws + 256);
    if (!ws) return 1; /* recorded: the op failed */
    float *Y = (float *)(ws + oy), *Wt = (float *)(ws + ow);
    void *dnn_ws = p->ws ? ws + ows : NULL;
    k_transpose<<<eecu_blocks(nw, 256), 256, 0, EECU_STREAM>>>(W, Wt, w * d, F, nw);
    EECU_LAUNCHED("transpose");
    const float one = 1.0f, zero = 0.0f;
    if (DNN_CK(cudnnConvolutionForward(g_dnn, &one, p->x, E, p->f, Wt, p->conv, p->algo, dnn_ws, p->ws, &zero,
                                       p->y, Y)))
        return 1;
    size_t n = (size_t)B * T * F;
    k_crop_bias<<<eecu_blocks(n, 256), 256, 0, EECU_STREAM>>>(Y, b, out, T, w, F, n);
    EECU_LAUNCHED("crop_bias");
    g_calls++;
    return 1;
}

extern "C" long ee_cuda_cudnn_calls(void) { return g_calls; }

/* 0 off, 1 on where measured faster, 2 on wherever it can */
int eecu_cudnn_mode(void) { return use_cudnn() ? g_state : 0; }

#else /* no cuDNN in this build */

int eecu_cudnn_mode(void) { return 0; }

extern "C" long ee_cuda_cudnn_calls(void) { return 0; }
extern "C" int ee_cuda_use_cudnn(int on) { (void)on; return -1; }
extern "C" const char *ee_cuda_cudnn_describe(void) { return "this build has no cuDNN (configure --with-cudnn)"; }
extern "C" void eecu_cudnn_shutdown(void) {}
extern "C" int eecu_cudnn_conv_fwd(const float *, const float *, const float *, float *, int, int, int, int, int,
                                   EePrecision)
{
    return 0;
}

#endif
