/* lime.c: LIME (Ribeiro et al. 2016) as a coalition method, with the
 * defaults of Captum's Lime where they apply to a binary interpretable
 * vector (doc/MODELS.md): each player present with probability 1/2, an
 * exponential kernel exp(-d^2 / (2 width^2)) on the cosine distance d,
 * and a weighted linear fit with intercept (least squares, optionally
 * ridge) whose coefficients are the players' values. */
#include "coalition.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The kernel of a coalition of s of the P players: d is the cosine
 * distance between its 0/1 vector z and the row's own (all ones),
 * 1 - s / sqrt(s P) = 1 - sqrt(s / P); 1 for the empty coalition (the
 * cosine of a zero vector taken as 0). */
double ee_lime_weight(const EeCoalitionOptions *m, int P, int s)
{
    double width = m->width > 0 ? m->width : 1.0;
    double d = s > 0 && P > 0 ? 1 - sqrt((double)s / P) : 1;
    return exp(-d * d / (2 * width * width));
}

/* Coalition j of row `row`: player p present iff the top bit of the
 * stream's (p+1)-th output is set (stream (seed, row, EE_LIME_STREAM + j)). */
EeStatus ee_lime_draw(const EeCoalitionOptions *m, uint64_t seed, long row, int P, uint8_t *Z, double *w)
{
    long n = m->coalitions ? m->n : m->samples;
    for (long j = 0; j < n; j++) {
        uint8_t *z = Z + (size_t)j * P;
        int s = 0;
        if (m->coalitions) {
            for (int p = 0; p < P; p++) s += (z[p] = m->coalitions[(size_t)j * P + p] != 0);
        } else {
            EeRng r;
            ee_rng_stream(&r, seed, (uint64_t)row, EE_LIME_STREAM + (uint64_t)j);
            for (int p = 0; p < P; p++) s += (z[p] = (uint8_t)(ee_rng_next(&r) >> 63));
        }
        w[j] = m->coalitions && m->weights ? m->weights[j] : ee_lime_weight(m, P, s);
    }
    return EE_OK;
}

/* min over (b, c) of sum_j w_j (v_j - b - z_j . c)^2 + ridge |c|^2: the
 * (P + 1) x (P + 1) normal equations, intercept first, by Cholesky. */
EeStatus ee_lime_solve(const EeCoalitionOptions *m, int P, long n, const uint8_t *Z, const double *w,
                       const double *v, double *phi)
{
    int q = P + 1;
    double *G = calloc((size_t)q * q + (size_t)q, sizeof(double));
    int *idx = malloc(sizeof(int) * (size_t)q);
    if (!G || !idx) {
        free(G);
        free(idx);
        return ee_fail(EE_ERR_NOMEM, "out of memory for LIME's %d x %d system", q, q);
    }
    double *r = G + (size_t)q * q;
    for (long j = 0; j < n; j++) {
        if (w[j] == 0) continue;
        /* the design row (1, z) is 0/1: w_j at the pairs of its support
         * (lower triangle, mirrored below), O(|z|^2) */
        int k = 0;
        idx[k++] = 0;
        for (int p = 0; p < P; p++)
            if (Z[(size_t)j * P + p]) idx[k++] = p + 1;
        for (int u = 0; u < k; u++) {
            r[idx[u]] += w[j] * v[j];
            double *row = G + (size_t)idx[u] * q;
            for (int t = 0; t <= u; t++) row[idx[t]] += w[j];
        }
    }
    free(idx);
    for (int p = 0; p < q; p++)
        for (int t = p + 1; t < q; t++) G[(size_t)p * q + t] = G[(size_t)t * q + p];
    for (int p = 1; p < q; p++) G[(size_t)p * q + p] += m->ridge;
    if (ee_spd_solve(q, G, r)) {
        free(G);
        return ee_fail(EE_ERR_INPUT, "LIME: the %ld coalitions do not determine a linear model of the %d players "
                       "(the weighted design has rank < %d); use more 'samples' or a 'ridge' > 0", n, P, q);
    }
    memcpy(phi, r + 1, sizeof(double) * P);
    free(G);
    return EE_OK;
}
