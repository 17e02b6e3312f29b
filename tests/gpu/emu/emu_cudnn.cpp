/* emu_cudnn.cpp: the cuDNN calls of inc/cudnn.h on the CPU, in double,
 * with cuDNN's shape checks; pointers are checked to be device memory.
 * Two algorithms are offered: one with FMA math and no workspace, one with
 * tensor-op math and a workspace (to exercise the caller's choice). */
#include "cudnn.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void emu_check_range(const void *p, size_t bytes, const char *what);

struct EmuTensorDesc { int set, fmt, n, c, h, w; };
struct EmuConvDesc { int set, ph, pw, u, v, dh, dw, mode; cudnnMathType_t math; };

size_t cudnnGetVersion(void) { return 90000; }
const char *cudnnGetErrorString(cudnnStatus_t s) { return s ? "CUDNN_STATUS_BAD_PARAM (emulated)" : "CUDNN_STATUS_SUCCESS"; }
cudnnStatus_t cudnnCreate(cudnnHandle_t *h) { *h = (cudnnHandle_t)malloc(8); return CUDNN_STATUS_SUCCESS; }
cudnnStatus_t cudnnDestroy(cudnnHandle_t h) { free(h); return CUDNN_STATUS_SUCCESS; }
cudnnStatus_t cudnnSetStream(cudnnHandle_t, cudaStream_t s) { return s ? CUDNN_STATUS_BAD_PARAM : CUDNN_STATUS_SUCCESS; }
cudnnStatus_t cudnnCreateTensorDescriptor(cudnnTensorDescriptor_t *d) { *d = (EmuTensorDesc *)calloc(1, sizeof(EmuTensorDesc)); return CUDNN_STATUS_SUCCESS; }
cudnnStatus_t cudnnDestroyTensorDescriptor(cudnnTensorDescriptor_t d) { free(d); return CUDNN_STATUS_SUCCESS; }
cudnnStatus_t cudnnCreateFilterDescriptor(cudnnFilterDescriptor_t *d) { return cudnnCreateTensorDescriptor(d); }
cudnnStatus_t cudnnDestroyFilterDescriptor(cudnnFilterDescriptor_t d) { free(d); return CUDNN_STATUS_SUCCESS; }
cudnnStatus_t cudnnCreateConvolutionDescriptor(cudnnConvolutionDescriptor_t *d) { *d = (EmuConvDesc *)calloc(1, sizeof(EmuConvDesc)); return CUDNN_STATUS_SUCCESS; }
cudnnStatus_t cudnnDestroyConvolutionDescriptor(cudnnConvolutionDescriptor_t d) { free(d); return CUDNN_STATUS_SUCCESS; }

cudnnStatus_t cudnnSetTensor4dDescriptor(cudnnTensorDescriptor_t d, cudnnTensorFormat_t f, cudnnDataType_t t, int n,
                                         int c, int h, int w)
{
    if (f != CUDNN_TENSOR_NHWC || t != CUDNN_DATA_FLOAT || n <= 0 || c <= 0 || h <= 0 || w <= 0) return CUDNN_STATUS_BAD_PARAM;
    *d = EmuTensorDesc{1, f, n, c, h, w};
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetFilter4dDescriptor(cudnnFilterDescriptor_t d, cudnnDataType_t t, cudnnTensorFormat_t f, int k,
                                         int c, int h, int w)
{
    return cudnnSetTensor4dDescriptor(d, f, t, k, c, h, w);
}

cudnnStatus_t cudnnSetConvolution2dDescriptor(cudnnConvolutionDescriptor_t d, int ph, int pw, int u, int v, int dh,
                                              int dw, cudnnConvolutionMode_t mode, cudnnDataType_t t)
{
    if (ph < 0 || pw < 0 || u <= 0 || v <= 0 || dh <= 0 || dw <= 0 || t != CUDNN_DATA_FLOAT) return CUDNN_STATUS_BAD_PARAM;
    *d = EmuConvDesc{1, ph, pw, u, v, dh, dw, (int)mode, CUDNN_DEFAULT_MATH};
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetConvolutionMathType(cudnnConvolutionDescriptor_t d, cudnnMathType_t m) { d->math = m; return CUDNN_STATUS_SUCCESS; }

cudnnStatus_t cudnnGetConvolution2dForwardOutputDim(cudnnConvolutionDescriptor_t c, cudnnTensorDescriptor_t x,
                                                    cudnnFilterDescriptor_t f, int *n, int *k, int *h, int *w)
{
    if (!c->set || !x->set || !f->set || x->c != f->c) return CUDNN_STATUS_BAD_PARAM;
    *n = x->n;
    *k = f->n;
    *h = 1 + (x->h + 2 * c->ph - (((f->h - 1) * c->dh) + 1)) / c->u;
    *w = 1 + (x->w + 2 * c->pw - (((f->w - 1) * c->dw) + 1)) / c->v;
    return *h > 0 && *w > 0 ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_BAD_PARAM;
}

cudnnStatus_t cudnnGetConvolutionForwardAlgorithm_v7(cudnnHandle_t, cudnnTensorDescriptor_t x, cudnnFilterDescriptor_t f,
                                                     cudnnConvolutionDescriptor_t c, cudnnTensorDescriptor_t y, int want,
                                                     int *got, cudnnConvolutionFwdAlgoPerf_t *perf)
{
    int n, k, h, w;
    if (cudnnGetConvolution2dForwardOutputDim(c, x, f, &n, &k, &h, &w) || y->n != n || y->c != k || y->h != h ||
        y->w != w || want < 2)
        return CUDNN_STATUS_BAD_PARAM;
    /* tensor-op kernels first, as on a GPU with tensor cores; FMA only
     * where the descriptor does not ask for FMA math */
    memset(perf, 0, sizeof *perf * 2);
    perf[0].algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
    perf[0].memory = 4096;
    perf[0].mathType = c->math == CUDNN_FMA_MATH ? CUDNN_FMA_MATH : CUDNN_TENSOR_OP_MATH;
    perf[0].status = CUDNN_STATUS_SUCCESS;
    perf[1].algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
    perf[1].memory = 0;
    perf[1].mathType = CUDNN_FMA_MATH;
    perf[1].status = CUDNN_STATUS_SUCCESS;
    *got = 2;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnConvolutionForward(cudnnHandle_t, const void *alpha_, cudnnTensorDescriptor_t xd, const void *x_,
                                      cudnnFilterDescriptor_t fd, const void *f_, cudnnConvolutionDescriptor_t cd,
                                      cudnnConvolutionFwdAlgo_t algo, void *ws, size_t ws_bytes, const void *beta_,
                                      cudnnTensorDescriptor_t yd, void *y_)
{
    int n, k, h, w;
    if (cudnnGetConvolution2dForwardOutputDim(cd, xd, fd, &n, &k, &h, &w) || yd->n != n || yd->c != k ||
        yd->h != h || yd->w != w || cd->mode != CUDNN_CROSS_CORRELATION)
        return CUDNN_STATUS_BAD_PARAM;
    size_t need = algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM ? 4096 : 0;
    if (ws_bytes < need || (need && !ws)) return CUDNN_STATUS_BAD_PARAM;
    if (need) emu_check_range(ws, need, "cudnn workspace");
    const float *x = (const float *)x_, *f = (const float *)f_;
    float *y = (float *)y_;
    float alpha = *(const float *)alpha_, beta = *(const float *)beta_;
    int C = xd->c, H = xd->h, W = xd->w, R = fd->h, S = fd->w;
    emu_check_range(x, sizeof(float) * (size_t)xd->n * H * W * C, "cudnn x");
    emu_check_range(f, sizeof(float) * (size_t)k * R * S * C, "cudnn filter");
    emu_check_range(y, sizeof(float) * (size_t)n * h * w * k, "cudnn y");
    for (int b = 0; b < n; b++)
        for (int oh = 0; oh < h; oh++)
            for (int ow = 0; ow < w; ow++)
                for (int kk = 0; kk < k; kk++) {
                    double s = 0;
                    for (int r = 0; r < R; r++)
                        for (int q = 0; q < S; q++) {
                            int ih = oh * cd->u - cd->ph + r * cd->dh, iw = ow * cd->v - cd->pw + q * cd->dw;
                            if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                            for (int c = 0; c < C; c++)
                                s += (double)x[(((size_t)b * H + ih) * W + iw) * C + c] *
                                     f[(((size_t)kk * R + r) * S + q) * C + c];
                        }
                    float *o = y + (((size_t)b * h + oh) * w + ow) * k + kk;
                    *o = (float)(alpha * s + (beta == 0.0f ? 0.0 : (double)beta * *o));
                }
    return CUDNN_STATUS_SUCCESS;
}
