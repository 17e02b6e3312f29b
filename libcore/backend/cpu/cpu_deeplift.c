/* cpu_deeplift.c: the CPU backend's ops of DeepLIFT's rescale rule
 * (backend.h, doc/MODELS.md "DeepLIFT"): the ReLU's multipliers and the
 * text CNN's ReLU-then-max-over-time. Float arithmetic in the order
 * Captum's hooks compute it: the max-pooling multiplier first, then the
 * ReLU's on top of it. */
#include "../backend.h"
#include "cpu_internal.h"

#include <math.h>
#include <string.h>

static inline float relu(float z) { return z > 0 ? z : 0.0f; }

/* The ReLU's multiplier at one element; the gradient where the input did
 * not move (ReLU'(0) = 0, as relu_bwd). */
static inline float relu_mult(float zx, float zr)
{
    float dz = zx - zr;
    if (fabsf(dz) < EE_DEEPLIFT_EPS) return zx > 0 ? 1.0f : 0.0f;
    return (relu(zx) - relu(zr)) / dz;
}

void ee_cpu_relu_rescale_bwd(const float *Zx, const float *Zr, const float *dY, float *dX, size_t n)
{
    #pragma omp parallel for if (n > 65536) schedule(static)
    for (size_t i = 0; i < n; i++) dX[i] = dY[i] * relu_mult(Zx[i], Zr[i]);
}

/* max over the valid t of relu(z[t][f]): the value and its first t, or 0
 * and -1 when no valid position is above 0 (maxpool_fwd's convention) */
static float pool_max(const float *z, const uint8_t *mk, int T, int F, int f, int *at)
{
    float best = 0;
    *at = -1;
    for (int t = 0; t < T; t++)
        if (mk[t] && z[(size_t)t * F + f] > best) {
            best = z[(size_t)t * F + f];
            *at = t;
        }
    return best;
}

void ee_cpu_pool_rescale_bwd(const float *Zx, const float *Zr, const uint8_t *mask, const float *dPooled, float *dZ,
                             int B, int T, int F, int ld, int off)
{
    #pragma omp parallel for if ((size_t)B * T * F > 65536) schedule(static)
    for (int s = 0; s < B; s++) {
        const float *zx = Zx + (size_t)s * T * F, *zr = Zr + (size_t)s * T * F;
        const uint8_t *mk = mask + (size_t)s * T;
        float *dz = dZ + (size_t)s * T * F;
        memset(dz, 0, sizeof(float) * (size_t)T * F);
        for (int f = 0; f < F; f++) {
            int tx, tr;
            float yx = pool_max(zx, mk, T, F, f, &tx), yr = pool_max(zr, mk, T, F, f, &tr);
            float g = dPooled[(size_t)s * ld + off + f], top = yx > yr ? yx : yr;
            /* Captum: the output difference split as (max - y_r) at x's
             * argmax and (y_x - max) at the reference's: the whole
             * difference lands at the position of the larger max */
            float ux = g * (top - yr), ur = g * (yx - top);
            int at[2] = {tx, tr};
            for (int k = 0; k < 2; k++) {
                int t = at[k];
                if (t < 0 || (k == 1 && t == tx)) continue;
                size_t q = (size_t)t * F + f;
                float u = (t == tx ? ux : 0.0f) + (t == tr ? ur : 0.0f);
                float da = relu(zx[q]) - relu(zr[q]);
                /* where the pooled input did not move: the pool's gradient */
                float ma = fabsf(da) >= EE_DEEPLIFT_EPS ? u / da : t == tx ? g : 0.0f;
                dz[q] = ma * relu_mult(zx[q], zr[q]);
            }
        }
    }
}
