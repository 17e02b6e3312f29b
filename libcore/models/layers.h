/* layers.h: the dense layer that every model kind uses, on top of the
 * backend ops. Row-major: Y (R x n) = X (R x m) W (m x n) + b. */
#ifndef EE_LAYERS_H
#define EE_LAYERS_H

#include "../backend/backend.h"

static inline void ee_linear_fwd(const EeBackend *be, const float *X, const float *W,
                                 const float *b, float *Y, int R, int m, int n)
{
    be->gemm(0, 0, R, n, m, 1.0f, X, m, W, n, 0.0f, Y, n);
    if (b) be->add_bias(Y, b, R, n);
}

/* Z = X W (+ b), G = gelu(Z): the feed-forward's first half (one fused
 * pass over Z for the bias and the activation). */
static inline void ee_linear_gelu_fwd(const EeBackend *be, const float *X, const float *W,
                                      const float *b, float *Z, float *G, int R, int m, int n)
{
    be->gemm(0, 0, R, n, m, 1.0f, X, m, W, n, 0.0f, Z, n);
    if (b) be->bias_gelu_fwd(Z, b, G, R, n);
    else be->gelu_fwd(Z, G, (size_t)R * n);
}

/* Y = X W (+ b) + Xres (the residual), out = LayerNorm(Y) with gamma g and
 * beta: a sublayer's end, without dropout (one fused pass over Y). */
static inline void ee_linear_residual_ln_fwd(const EeBackend *be, const float *X, const float *W,
                                             const float *b, float *Y, const float *Xres,
                                             const float *g, const float *beta, float *out,
                                             float *mean, float *rstd, int R, int m, int n, float eps)
{
    be->gemm(0, 0, R, n, m, 1.0f, X, m, W, n, 0.0f, Y, n);
    be->bias_residual_layernorm_fwd(Y, b, Xres, g, beta, out, mean, rstd, R, n, eps);
}

/* dX = dY W^T (added to dX when accumulate); dW += X^T dY, db += colsum(dY)
 * when dW / db are given. dX may be NULL. */
static inline void ee_linear_bwd(const EeBackend *be, const float *X, const float *W,
                                 const float *dY, float *dX, int accumulate, float *dW,
                                 float *db, int R, int m, int n)
{
    if (dW) be->gemm(1, 0, m, n, R, 1.0f, X, m, dY, n, 1.0f, dW, n);
    if (db) be->bias_grad(dY, db, R, n);
    if (dX) be->gemm(0, 1, R, m, n, 1.0f, dY, n, W, n, accumulate ? 1.0f : 0.0f, dX, m);
}

#endif
