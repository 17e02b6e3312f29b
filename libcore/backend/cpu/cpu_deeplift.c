/* cpu_deeplift.c: the CPU backend's ops of DeepLIFT's rescale rule
 * (backend.h, doc/MODELS.md "DeepLIFT"): the ReLU's multipliers and the
 * text CNN's ReLU-then-max-over-time. Float arithmetic in the order
 * Captum's hooks compute it: the max-pooling multiplier first, then the
 * ReLU's on top of it. */
#include "../backend.h"
#include "cpu_internal.h"

#include <math.h>

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

/* max over the valid t of relu(z[t][f]) for the filters f0 .. f0+nf-1:
 * the values and their first t, or 0 and -1 when no valid position is
 * above 0 (maxpool_fwd's convention); position by position, so that the
 * rows of z are read in order */
enum { POOL_BLOCK = 256 };
static void pool_max(const float *z, const uint8_t *mk, int T, int F, int f0, int nf, float *best, int *at)
{
    for (int j = 0; j < nf; j++) { best[j] = 0; at[j] = -1; }
    for (int t = 0; t < T; t++) {
        if (!mk[t]) continue;
        const float *row = z + (size_t)t * F + f0;
        for (int j = 0; j < nf; j++)
            if (row[j] > best[j]) { best[j] = row[j]; at[j] = t; }
    }
}

void ee_cpu_pool_rescale_bwd(const float *Zx, const float *Zr, const uint8_t *mask, const float *dPooled, int32_t *at,
                             float *mult, int B, int T, int F, int ld, int off)
{
    #pragma omp parallel for if ((size_t)B * T * F > 65536) schedule(static)
    for (int s = 0; s < B; s++) {
        const float *zx = Zx + (size_t)s * T * F, *zr = Zr + (size_t)s * T * F;
        const uint8_t *mk = mask + (size_t)s * T;
        float bx[POOL_BLOCK], br[POOL_BLOCK];
        int ix[POOL_BLOCK], ir[POOL_BLOCK];
        for (int f = 0; f < F; f++) {
            if (f % POOL_BLOCK == 0) {
                int nf = F - f < POOL_BLOCK ? F - f : POOL_BLOCK;
                pool_max(zx, mk, T, F, f, nf, bx, ix);
                pool_max(zr, mk, T, F, f, nf, br, ir);
            }
            int tx = ix[f % POOL_BLOCK], tr = ir[f % POOL_BLOCK];
            float yx = bx[f % POOL_BLOCK], yr = br[f % POOL_BLOCK];
            float g = dPooled[(size_t)s * ld + off + f], top = yx > yr ? yx : yr;
            /* Captum: the output difference split as (max - y_r) at x's
             * argmax and (y_x - max) at the reference's: the whole
             * difference lands at the position of the larger max */
            float ux = g * (top - yr), ur = g * (yx - top);
            int pos[2] = {tx, tr == tx ? -1 : tr}; /* one position once */
            for (int k = 0; k < 2; k++) {
                int t = pos[k];
                float m = 0;
                if (t >= 0) {
                    size_t q = (size_t)t * F + f;
                    float u = (t == tx ? ux : 0.0f) + (t == tr ? ur : 0.0f);
                    float da = relu(zx[q]) - relu(zr[q]);
                    /* where the pooled input did not move: the pool's gradient */
                    float ma = fabsf(da) >= EE_DEEPLIFT_EPS ? u / da : t == tx ? g : 0.0f;
                    m = ma * relu_mult(zx[q], zr[q]);
                }
                at[((size_t)k * B + s) * F + f] = t;
                mult[((size_t)k * B + s) * ld + off + f] = m;
            }
        }
    }
}
