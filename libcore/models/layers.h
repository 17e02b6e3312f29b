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
