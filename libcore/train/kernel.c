/* kernel.c: the target-free training loss of Shapley explainers
 * (doc/MODELS.md, "Target-free training"): the kernel-weighted
 * least-squares loss of an explainer's map against the coalition values
 * of attr/kernel_values.c, with its gradient, which train.c uses in place
 * of the MSE. */
#include "../ee.h"

#include <math.h>
#include <stdlib.h>

double ee_kernel_loss(int n, const double *phi_hat, double total, int K, int words, const uint64_t *coal,
                      const float *value, const float *weight, double *grad)
{
    if (n <= 0) return 0;
    double sum = 0;
    for (int j = 0; j < n; j++) sum += phi_hat[j];
    double shift = (total - sum) / n, L = 0, gsum = 0;
    double *g = grad ? grad : malloc(sizeof(double) * n);
    if (!g) return NAN;
    for (int j = 0; j < n; j++) g[j] = 0;
    for (int k = 0; k < K; k++) {
        const uint64_t *S = coal + (size_t)k * words;
        double w = weight ? weight[k] : 1.0 / K, s = 0;
        for (int j = 0; j < n; j++)
            if (S[j / 64] >> (j % 64) & 1) s += phi_hat[j] + shift; /* the projected map */
        double r = (double)value[k] - s;
        L += w * r * r;
        for (int j = 0; j < n; j++)
            if (S[j / 64] >> (j % 64) & 1) g[j] -= 2 * w * r;
    }
    /* through the projection: d phi / d phi_hat = I - 1 1' / n */
    for (int j = 0; j < n; j++) gsum += g[j];
    /* plus the squared distance of phi_hat from its projection, n shift^2 */
    L += n * shift * shift;
    for (int j = 0; j < n; j++) g[j] += -gsum / n - 2 * shift;
    if (!grad) free(g);
    return L;
}
